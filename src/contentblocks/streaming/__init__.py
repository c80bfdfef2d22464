"""Streamed replies: a neutral delta vocabulary, a fold into progressive snapshots, and readers per provider.

A provider's stream reader (``contentblocks.streaming.anthropic``, ``.openai_chat``, ``.openai_responses``,
``.gemini``) turns the SDK's stream events, or their dicts, into the neutral events of this module. A
:class:`ReplyBuilder` folds them: ``snapshot()`` gives the blocks so far at any moment (for a UI to render),
and ``reply()`` at the end gives the same :class:`~contentblocks.providers.Reply` that reading the whole
response with the provider's ``from_response`` gives.

>>> from contentblocks.streaming import (
...     ArgumentsAppended, BlockEnded, BlockStarted, ReplyBuilder, ReplyStopped, TextAppended,
... )
>>> builder = ReplyBuilder("openai_chat")
>>> builder.feed([
...     BlockStarted(0, "text"), TextAppended(0, "Checking"),
...     BlockStarted(1, "tool_call", tool_call_id="call_1", tool_name="get_weather"),
...     ArgumentsAppended(1, '{"city": "Pa'),
... ])
>>> [type(block).__name__ for block in builder.snapshot()], builder.snapshot()[1].input
(['TextBlock', 'ToolCallBlock'], '{"city": "Pa')
>>> builder.feed([ArgumentsAppended(1, 'ris"}'), BlockEnded(0), BlockEnded(1), ReplyStopped("tool_use", "tool_calls")])
>>> builder.reply().message.content[1].input
JsonObject({'city': 'Paris'})

.. versionadded:: 2026.11.0
"""

from __future__ import annotations

from ._errors import StreamError
from ._events import (
    BLOCK_KINDS,
    ApprovalRequested,
    ArgumentsAppended,
    BlockEnded,
    BlockKind,
    BlockStarted,
    CitationAdded,
    CompactionAdded,
    FileAdded,
    JsonAdded,
    MessageMetadataAdded,
    ReasoningAppended,
    ReasoningRedacted,
    RefusalAppended,
    ReplyStopped,
    ResponseIdentified,
    ServerToolAdded,
    SignatureAppended,
    SignatureSet,
    StreamEvent,
    TextAppended,
    ToolCallIdentified,
    UsageUpdated,
)
from ._fold import ReplyBuilder, fold
from ._reading import StreamReader

__all__ = [
    "BLOCK_KINDS",
    "ApprovalRequested",
    "ArgumentsAppended",
    "BlockEnded",
    "BlockKind",
    "BlockStarted",
    "CitationAdded",
    "CompactionAdded",
    "FileAdded",
    "JsonAdded",
    "MessageMetadataAdded",
    "ReasoningAppended",
    "ReasoningRedacted",
    "RefusalAppended",
    "ReplyBuilder",
    "ReplyStopped",
    "ResponseIdentified",
    "ServerToolAdded",
    "SignatureAppended",
    "SignatureSet",
    "StreamError",
    "StreamEvent",
    "StreamReader",
    "TextAppended",
    "ToolCallIdentified",
    "UsageUpdated",
    "fold",
]
