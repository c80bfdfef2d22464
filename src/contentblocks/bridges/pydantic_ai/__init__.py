"""pydantic-ai's message history (``ModelRequest``, ``ModelResponse``) to and from a conversation.

What maps where, and every loss, is in the docs page ``bridges/pydantic_ai``. In short:

- system prompts, user prompts (text, ``TextContent``, ``StructuredContent``, URLs, ``BinaryContent``,
  ``UploadedFile``), tool returns (with their outcome and files) and retry prompts read as system, user and tool
  messages; each response as an assistant message of text (with citations), reasoning, tool calls and files;
- every pydantic-ai field with no neutral home (timestamps, usage, model name, ids, provider details...) is kept
  as ``pydantic_ai/<field>`` metadata and written back to the same part; parts with no neutral block
  (cache points outside a prompt, later versions' parts...) are kept whole as JSON blocks flagged
  ``pydantic_ai/native_part``;
- a tool the provider ran (``NativeToolCallPart``, ``NativeToolReturnPart``) is a server call and result, and
  they go back as those parts whoever ran the tool: pydantic-ai holds them as data, for their provider only;
- a thinking signature (and Anthropic's redacted thinking, which pydantic-ai holds as a signature) records its
  issuer under ``contentblocks/issuer``, so that the provider adapters send it back only to its issuer.

pydantic-ai is imported on the first call, never when ``contentblocks`` is imported.

>>> import contentblocks as cb
>>> from contentblocks.bridges import pydantic_ai as bridge
>>> history = bridge.to_messages(cb.Conversation(messages=[cb.Message(role="user", content="Hi")])).payload
>>> type(history[0]).__name__, history[0].parts[0].content
('ModelRequest', 'Hi')
>>> bridge.from_messages(history)[0].text()
'Hi'
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..._errors import ValidationError
from ..._model._classes import Message
from ..._model._conversation import Conversation
from ...providers._approvals import writing_without_approvals
from ...providers._argument_checks import conversation_argument, reading_argument, strict_argument
from ...providers._contract import Converted, LossKind, LossRecorder
from ...providers._search_results import without_search_results
from .._shared import require_version
from ._read import read_history
from ._write import write_history

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

__all__ = ["SUPPORTED", "from_messages", "to_messages"]

#: The pydantic-ai versions the bridge is tested with (the ``pydantic-ai`` extra pins the same range).
SUPPORTED = ">=2.78,<3"
_LOWEST, _BELOW = (2, 78), (3,)


@functools.cache
def _adapter() -> Any:
    """pydantic-ai's ``ModelMessagesTypeAdapter``, once the installed version is checked.

    The check runs on the first call only: reading a distribution's version takes about half a millisecond.
    """
    require_version("pydantic_ai", "pydantic-ai-slim", SUPPORTED, "pydantic-ai", _LOWEST, _BELOW)
    return importlib.import_module("pydantic_ai.messages").ModelMessagesTypeAdapter


def _path(location: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location)


def _validated(adapter: Any, history: object) -> Any:
    """pydantic-ai's messages for ``history``, its problems as a ``ValidationError`` at their paths."""
    import pydantic  # noqa: PLC0415 - pydantic-ai's own dependency, imported with it

    try:
        with warnings.catch_warnings():
            # pydantic-ai warns that RetryPromptPart is deprecated; the history holds it, the caller built none
            warnings.filterwarnings("ignore", message=".*RetryPromptPart")
            return adapter.validate_python(history)
    except pydantic.ValidationError as e:
        raise ValidationError([(_path(tuple(error["loc"])), error["msg"]) for error in e.errors()]) from None


def from_messages(messages: Any) -> Conversation:
    """A conversation from a pydantic-ai history: its message objects, or their JSON form.

    ``messages`` is what ``result.all_messages()`` returns, or what ``ModelMessagesTypeAdapter.dump_python``
    (in either mode) or ``json.loads(dump_json(...))`` wrote; all read the same. Nothing is lost: what has no
    neutral field is kept in ``pydantic_ai/`` metadata or as a JSON block, so ``to_messages`` gives the same
    history back. Like the provider adapters' readers, this returns the conversation itself.

    Raises:
        ValidationError: when ``messages`` is not a pydantic-ai history, or holds a value the neutral rules
            refuse where no JSON block can keep it (a tool call id with a space), with the path into it.
        ImportError: when pydantic-ai is missing, or its version is outside ``SUPPORTED``.

    >>> from contentblocks.bridges import pydantic_ai as bridge
    >>> conversation = bridge.from_messages([
    ...     {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Weather in Paris?"}]},
    ...     {"kind": "response", "model_name": "claude-sonnet-4-5", "parts": [
    ...         {"part_kind": "tool-call", "tool_name": "weather", "args": {"city": "Paris"}, "tool_call_id": "c1"}]},
    ... ])
    >>> conversation[1].content[0].input, conversation[1].metadata["pydantic_ai/model_name"]
    (JsonObject({'city': 'Paris'}), 'claude-sonnet-4-5')
    """
    adapter = _adapter()
    # pydantic-ai's own validator turns the JSON forms into its objects (and checks objects, at little cost):
    # the reader reads objects only
    history = _validated(adapter, reading_argument(messages, "a pydantic-ai history", "pydantic_ai.from_messages"))
    if any(part.part_kind == "retry-prompt" for message in history for part in message.parts):
        # read a deprecated RetryPromptPart as pydantic-ai reads a stored one: a retried tool return, or feedback
        history = _validated(adapter, adapter.dump_python(history, mode="json"))
    return read_history(history)


def to_messages(
    conversation: Conversation, *, strict: bool | Iterable[LossKind] = False
) -> Converted[list[ModelMessage]]:
    """pydantic-ai's message objects carrying ``conversation``, and what did not survive.

    The payload is a list of ``ModelRequest`` and ``ModelResponse``, as ``ModelMessagesTypeAdapter`` validates
    them: pass it as an agent's ``message_history``.

    Args:
        conversation: the conversation to write.
        strict: which loss kinds raise ``LossError`` instead of being returned: ``True`` for the content kinds,
            or the kinds named.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind.
        ImportError: when pydantic-ai is missing, or its version is outside ``SUPPORTED``.

    >>> import contentblocks as cb
    >>> from contentblocks.bridges import pydantic_ai as bridge
    >>> result = bridge.to_messages(cb.Conversation(messages=[
    ...     cb.Message(role="developer", content="Be brief."),
    ...     cb.Message(role="assistant", content=[cb.RefusalBlock(text="I can't help with that.")]),
    ... ]))
    >>> [type(message).__name__ for message in result.payload]
    ['ModelRequest', 'ModelResponse']
    >>> for loss in result.losses:
    ...     print(loss, f"[{loss.kind}]")
    $[0].role: pydantic-ai has no developer role; written as a system prompt [content_degraded]
    $[1].content[0]: pydantic-ai has no refusal part; written as text [content_degraded]
    """
    call = "pydantic_ai.to_messages"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    adapter = _adapter()
    if not isinstance(conversation, Conversation):
        conversation = Conversation(messages=conversation)
    losses = LossRecorder()

    def write(kept: Sequence[Message]) -> Any:
        # the messages, not a new conversation: its rules hold already (a search result becomes a text block)
        return write_history(without_search_results(kept, losses.add, "pydantic-ai"), losses)

    history, _ = writing_without_approvals(conversation.messages, losses.losses, "pydantic-ai", write)
    return losses.finish(_validated(adapter, history), strict=raising)
