"""The neutral delta vocabulary: what a streamed reply is made of, whichever provider streams it.

A stream is a sequence of events. Blocks are numbered by their position in the reply (``index``, from 0, in
the order they start); several may be open at once (parallel tool calls). A streamed block opens with
:class:`BlockStarted`, grows through deltas addressed to its index and closes with :class:`BlockEnded`; a file
or a JSON value arrives whole (:class:`FileAdded`, :class:`JsonAdded`), as do a tool the provider ran
(:class:`ServerToolAdded`), a compaction (:class:`CompactionAdded`) and an approval request
(:class:`ApprovalRequested`). The reply ends with
:class:`ReplyStopped`.

Every event is a frozen, slotted attrs class that checks its own fields when built, as blocks do: each field
names its rule in its metadata (``_rules``), a class may name rules over several fields in ``__cross_rules__``,
and the blocks' one check applies them, so an invalid event cannot be constructed. Whether an event fits the
stream (its block exists, is open, is of the right kind) is the fold's rule, not the event's.

>>> from contentblocks.streaming import BlockStarted, TextAppended
>>> TextAppended(0, "Hel")
TextAppended(index=0, text='Hel')
>>> BlockStarted(0, "image")
Traceback (most recent call last):
contentblocks.ValidationError: $.kind: expected one of: text, refusal, reasoning, tool_call
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, get_args

import attrs

from .._checks._instances import resolve_annotations
from .._checks._rules import (
    FLAG,
    FREE_TEXT,
    ID_OR_NAME,
    IDENTIFIER,
    INDEX,
    METADATA,
    ONE_OF,
    PIECE,
    REDACTED,
    TOOL_CALL_ONLY,
    choice,
)
from .._json._values import EMPTY_OBJECT, json_key
from .._model._classes import (
    ApprovalRequestBlock,
    Citation,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
)
from .._model._values import Checked, bytes_repr, ruled
from ..providers._contract import STOP_REASONS, StopReason, Usage

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
    "ReplyStopped",
    "ResponseIdentified",
    "ServerToolAdded",
    "SignatureAppended",
    "SignatureSet",
    "StreamEvent",
    "TextAppended",
    "ToolCallIdentified",
    "UsageUpdated",
]

BlockKind: TypeAlias = Literal["text", "refusal", "reasoning", "tool_call"]
"""The kinds of block that grow by deltas; files and JSON values arrive whole."""

#: Every streamed block kind, in the order above.
BLOCK_KINDS: tuple[BlockKind, ...] = get_args(BlockKind)


class _Event(Checked):
    """What every event shares with the blocks: built in Python, it checks its fields' rules and its cross rules."""

    __slots__ = ()


@attrs.frozen
class _Indexed(_Event):
    """An event addressed to the block ``index``."""

    index: int = attrs.field(metadata=ruled(INDEX))


@attrs.frozen
class _Delta(_Indexed):
    """A piece of text for the open block ``index``; an empty piece is allowed and changes nothing."""

    text: str = attrs.field(metadata=ruled(PIECE))


@attrs.frozen
class ResponseIdentified(_Event):
    """The response's model and id became known (Anthropic's ``message_start``, each OpenAI chunk...).

    A field left ``None`` keeps what an earlier event said; a value replaces it, so the last word wins (a
    final event may name the exact model version).
    """

    model: str | None = attrs.field(default=None, metadata=ruled(FREE_TEXT))
    response_id: str | None = attrs.field(default=None, metadata=ruled(FREE_TEXT))


@attrs.frozen
class BlockStarted(_Indexed):
    """Block ``index`` starts, of ``kind``; blocks start in order, 0 first.

    A tool call's id and name go here when the provider sends them with the start (Anthropic does), or later
    in a :class:`ToolCallIdentified` (OpenAI Chat may). ``metadata`` is the block's metadata as far as it is
    known now; :class:`BlockEnded` may add to it.

    >>> BlockStarted(1, "tool_call", tool_call_id="call_1", tool_name="get_weather").tool_name
    'get_weather'
    """

    kind: BlockKind = attrs.field(metadata=ruled(choice(BLOCK_KINDS)))
    tool_call_id: str | None = attrs.field(default=None, kw_only=True, metadata=ruled(IDENTIFIER))
    tool_name: str | None = attrs.field(default=None, kw_only=True, metadata=ruled(IDENTIFIER))
    metadata: Mapping[str, Any] = attrs.field(default=EMPTY_OBJECT, kw_only=True, eq=json_key, metadata=ruled(METADATA))

    __cross_rules__ = (TOOL_CALL_ONLY,)


@attrs.frozen
class TextAppended(_Delta):
    """Text appended to the text block ``index``."""


@attrs.frozen
class RefusalAppended(_Delta):
    """Text appended to the refusal block ``index`` (the model's words declining)."""


@attrs.frozen
class ReasoningAppended(_Delta):
    """Visible reasoning text (thinking, or a summary of it) appended to the reasoning block ``index``."""


@attrs.frozen
class SignatureSet(_Indexed):
    """The reasoning block ``index``'s signature is ``signature``, whatever pieces came before.

    Anthropic's ``signature_delta`` sends the whole signature at once, and its SDK replaces rather than
    appends; this is that event.
    """

    signature: str = attrs.field(metadata=ruled(FREE_TEXT))


@attrs.frozen
class SignatureAppended(_Indexed):
    """A piece of the reasoning block ``index``'s signature, appended to what came before (an opaque string)."""

    signature: str = attrs.field(metadata=ruled(PIECE))


@attrs.frozen
class ReasoningRedacted(_Indexed):
    """The reasoning block ``index`` is redacted: ``data`` is the provider's opaque payload, to send back as is.

    Redacted reasoning carries neither text nor a signature, so the block must have received neither.
    """

    data: bytes = attrs.field(repr=bytes_repr, metadata=ruled(REDACTED))


@attrs.frozen
class CitationAdded(_Indexed):
    """A citation added to the text block ``index``, after the ones before it.

    Its span (``start``/``end``) may reach past the text streamed so far: a snapshot shows it once the text
    covers it, and the block must cover it by the time it ends.
    """

    citation: Citation = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class ToolCallIdentified(_Indexed):
    """The tool call ``index``'s id, name or both became known.

    Each is given once: repeating the same value is harmless, a different one is an error.
    """

    tool_call_id: str | None = attrs.field(default=None, metadata=ruled(IDENTIFIER))
    tool_name: str | None = attrs.field(default=None, metadata=ruled(IDENTIFIER))

    __cross_rules__ = (ID_OR_NAME,)


@attrs.frozen
class ArgumentsAppended(_Delta):
    """JSON text appended to the tool call ``index``'s arguments; they are parsed when the block ends."""


@attrs.frozen
class FileAdded(_Indexed):
    """A whole file (an image the model made, an inline media part) is block ``index``: it starts and ends here."""

    block: FileBlock = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class JsonAdded(_Indexed):
    """A whole JSON block is block ``index`` (a provider part with no neutral kind, kept verbatim)."""

    block: JsonBlock = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class ServerToolAdded(_Indexed):
    """A whole call or result of a tool the provider ran is block ``index``: it starts and ends here."""

    block: ServerToolCallBlock | ServerToolResultBlock = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class CompactionAdded(_Indexed):
    """A whole compaction is block ``index`` (Anthropic sends its summary in one delta, OpenAI its item whole)."""

    block: CompactionBlock = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class ApprovalRequested(_Indexed):
    """A whole approval request is block ``index``: the model asks before the call it names runs."""

    block: ApprovalRequestBlock = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class BlockEnded(_Indexed):
    """The streamed block ``index`` is complete.

    ``metadata`` adds to what :class:`BlockStarted` gave (a key given twice takes this value): providers often
    know a part's native extras only once it is complete. A tool call's arguments must then be JSON, unless
    ``keep_invalid_arguments`` says the provider's adapter keeps text that is not JSON as the input string
    (the OpenAI adapters do, flagging it in the metadata).

    ``input_text`` is the input of a tool call whose arguments are JSON that no block can hold (a 30-digit
    integer, ``1e400``, nesting past the depth limit), when the provider's adapter keeps such an input as a text
    of its own making rather than the arguments as they came: Anthropic's adapter keeps its compact JSON text,
    flagged ``openai/invalid_arguments``. Only such arguments may end with it; ``None`` (the default) reads the
    arguments as above.

    >>> BlockEnded(0, {"openai/invalid_arguments": True}, input_text='{"order":123456789012345678901234567890}').index
    0
    """

    metadata: Mapping[str, Any] = attrs.field(default=EMPTY_OBJECT, eq=json_key, metadata=ruled(METADATA))
    keep_invalid_arguments: bool = attrs.field(default=False, kw_only=True, metadata=ruled(FLAG))
    input_text: str | None = attrs.field(default=None, kw_only=True, metadata=ruled(FREE_TEXT))


@attrs.frozen
class MessageMetadataAdded(_Event):
    """Entries for the reply message's own metadata (a key given twice takes the later value)."""

    metadata: Mapping[str, Any] = attrs.field(eq=json_key, metadata=ruled(METADATA))


@attrs.frozen
class UsageUpdated(_Event):
    """The token counts so far; each replaces the last (providers report running totals, not increments)."""

    usage: Usage = attrs.field(metadata=ruled(ONE_OF))


@attrs.frozen
class ReplyStopped(_Event):
    """The reply is complete: why it stopped, in the neutral vocabulary and in the provider's own words.

    Every block must have ended; nothing may follow.

    >>> ReplyStopped("tool_use", "tool_calls").stop_reason
    'tool_use'
    """

    stop_reason: StopReason | None = attrs.field(default=None, metadata=ruled(choice(STOP_REASONS)))
    provider_stop_reason: str | None = attrs.field(default=None, metadata=ruled(FREE_TEXT))


StreamEvent: TypeAlias = (
    ResponseIdentified
    | BlockStarted
    | TextAppended
    | RefusalAppended
    | ReasoningAppended
    | SignatureSet
    | SignatureAppended
    | ReasoningRedacted
    | CitationAdded
    | ToolCallIdentified
    | ArgumentsAppended
    | FileAdded
    | JsonAdded
    | ServerToolAdded
    | CompactionAdded
    | ApprovalRequested
    | BlockEnded
    | MessageMetadataAdded
    | UsageUpdated
    | ReplyStopped
)
"""Any event of the vocabulary."""

resolve_annotations(globals())  # before the classes take the package as their module
for _name in __all__:
    if isinstance(_public := globals()[_name], type):
        _public.__module__ = "contentblocks.streaming"
