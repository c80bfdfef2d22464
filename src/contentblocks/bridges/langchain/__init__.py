"""LangChain's messages (``HumanMessage``, ``AIMessage``, ``ToolMessage``...) to and from a conversation.

What maps where, and every loss, is in the docs page ``bridges/langchain``. In short:

- system (and developer), human, AI and tool messages, their chunks too, read as system, user, assistant and
  tool messages; content items as text (with citations), refusals, reasoning (with its signature), files, tool
  calls (from the content and from ``tool_calls``/``invalid_tool_calls``) and tool results with their outcome;
- every LangChain field with no neutral home (``id``, ``name``, ``response_metadata``, ``usage_metadata``,
  ``artifact``, a block's ``id`` or ``extras``...) is kept as ``langchain/<field>`` metadata and written back to
  the same place; a provider's format (OpenAI's ``image_url``, Anthropic's ``image`` with a ``source``...) is
  read as LangChain's own ``content_blocks`` translates it, and written back as it was; content items with no
  neutral block (``non_standard``...) are kept whole as JSON blocks flagged ``langchain/native_block``;
- a streamed reply is read as LangChain merges it: consecutive ``AIMessageChunk``s of one ``id`` summed with
  LangChain's own ``+``, and the ``tool_call_chunk``/``server_tool_call_chunk`` blocks of one call joined into
  the call LangChain's last chunk gives (``._chunks``);
- a tool the provider ran (``server_tool_call``, its chunk, ``server_tool_result``) is a server call and result,
  written back as those blocks whoever ran it: LangChain holds them as data, for their provider only;
- a reasoning signature records its issuer under ``contentblocks/issuer`` (from the message's
  ``model_provider``), so that the provider adapters send it back only to its issuer.

langchain-core is imported on the first call, never when ``contentblocks`` is imported.

>>> import contentblocks as cb
>>> from contentblocks.bridges import langchain as bridge
>>> history = bridge.to_messages(cb.Conversation(messages=[cb.Message(role="user", content="Hi")])).payload
>>> history
[HumanMessage(content='Hi', additional_kwargs={}, response_metadata={})]
>>> bridge.from_messages(history)[0].text()
'Hi'
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._errors import ValidationError
from ..._model._classes import Message
from ..._model._conversation import Conversation
from ...providers._approvals import restore_path, writing_without_approvals
from ...providers._argument_checks import conversation_argument, reading_argument, strict_argument
from ...providers._contract import Converted, LossKind, LossRecorder
from ...providers._search_results import without_search_results
from .._shared import require_version
from ._build import Builder
from ._chunks import summed
from ._read import read_history
from ._write import write_history

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["SUPPORTED", "from_messages", "to_messages"]

#: The langchain-core versions the bridge is tested with (the ``langchain`` extra pins the same range).
SUPPORTED = ">=1.8,<2"
_LOWEST, _BELOW = (1, 8), (2,)


@functools.cache
def _messages_module() -> Any:
    """``langchain_core.messages``, once the installed version is checked."""
    require_version("langchain", "langchain-core", SUPPORTED, "langchain", _LOWEST, _BELOW)
    return importlib.import_module("langchain_core.messages")


@functools.cache
def _builder(module: Any) -> Builder:
    """What builds the messages of ``module`` ``to_messages`` writes (checked against their constructors once)."""
    return Builder(module)


def _problem(error: Exception) -> str:
    return " ".join(str(error).split())[:300]


def _loaded(module: Any, messages: Any) -> list[Any]:
    """LangChain's message objects for each item of ``messages``.

    An item is a message, its ``messages_to_dict`` form, or what ``convert_to_messages`` takes (an OpenAI-style
    dict, a ``(role, content)`` pair).
    """
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Iterable):
        raise ValidationError([("$", "expected a list of LangChain messages")])
    loaded = []
    for index, item in enumerate(messages):
        try:
            if isinstance(item, module.BaseMessage):
                loaded.append(item)
            elif isinstance(item, Mapping) and set(item) == {"type", "data"}:
                loaded.extend(module.messages_from_dict([dict(item)]))
            else:
                loaded.extend(module.convert_to_messages([item]))
        except Exception as e:  # noqa: BLE001 - LangChain's own refusal, in any of its forms
            raise ValidationError([(f"$[{index}]", f"not a LangChain message: {_problem(e)}")]) from None
    return loaded


def from_messages(messages: Any) -> Conversation:
    """A conversation from LangChain messages.

    ``messages`` holds message objects (chunks too), their ``messages_to_dict`` form, or what
    ``convert_to_messages`` takes; all read the same. A streamed reply's ``AIMessageChunk``s (consecutive, of
    one ``id``) are read as their sum, and chunk blocks of one call as that call, as LangChain merges them.
    Nothing is lost: what has no neutral field is kept in ``langchain/`` metadata or as a JSON block, so
    ``to_messages`` gives the same messages back. Like the provider adapters' readers, this returns the
    conversation itself.

    Raises:
        ValidationError: when ``messages`` is not a list of LangChain messages, holds a message type with no
            neutral message (``ChatMessage``, ``FunctionMessage``, ``RemoveMessage``), a ``ToolMessage`` with no
            ``name`` answering no earlier tool call, or a field the neutral rules refuse, with the path into it.
        ImportError: when langchain-core is missing, or its version is outside ``SUPPORTED``.

    >>> from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    >>> from contentblocks.bridges import langchain as bridge
    >>> conversation = bridge.from_messages([
    ...     HumanMessage("Weather in Paris?"),
    ...     AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "c1"}],
    ...               response_metadata={"model_name": "claude-sonnet-4-5"}),
    ...     ToolMessage("18 C", tool_call_id="c1", name="weather"),
    ... ])
    >>> conversation[1].content[0].input, conversation[1].metadata["langchain/response_metadata"]["model_name"]
    (JsonObject({'city': 'Paris'}), 'claude-sonnet-4-5')
    >>> conversation[2].content[0].outcome
    'succeeded'
    """
    module = _messages_module()
    loaded = _loaded(module, reading_argument(messages, "LangChain messages", "langchain.from_messages"))
    loaded, starts = summed(module, loaded)  # a streamed reply's chunks, as LangChain's ``+`` sums them
    # the fields as they are (``model_dump`` would copy every content block first; the reader copies what it edits)
    return read_history([{**message.__dict__, **(message.__pydantic_extra__ or {})} for message in loaded], starts)


def to_messages(
    conversation: Conversation, *, strict: bool | Iterable[LossKind] = False
) -> Converted[list[BaseMessage]]:
    """LangChain's message objects carrying ``conversation``, and what did not survive.

    The payload is a list of ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and ``ToolMessage``: content is
    a string where one plain text says it all, else a list of LangChain's v1 standard content blocks; tool calls
    are in ``AIMessage.tool_calls`` too.

    Args:
        conversation: the conversation to write.
        strict: which loss kinds raise ``LossError`` instead of being returned: ``True`` for the content kinds,
            or the kinds named.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind.
        ValidationError: when a kept ``langchain/`` field is one LangChain's classes refuse.
        ImportError: when langchain-core is missing, or its version is outside ``SUPPORTED``.

    >>> import contentblocks as cb
    >>> from contentblocks.bridges import langchain as bridge
    >>> result = bridge.to_messages(cb.Conversation(messages=[
    ...     cb.Message(role="developer", content="Be brief."),
    ...     cb.Message(role="assistant", content=[cb.RefusalBlock(text="I can't help with that.")]),
    ... ]))
    >>> result.payload[0].additional_kwargs, result.payload[1].content
    ({'__openai_role__': 'developer'}, [{'type': 'refusal', 'refusal': "I can't help with that."}])
    >>> result.losses
    ()
    """
    call = "langchain.to_messages"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    build = _builder(_messages_module())
    messages = conversation.messages if isinstance(conversation, Conversation) else tuple(conversation)
    losses = LossRecorder()

    def write(kept: Sequence[Message]) -> list[tuple[str, str, dict[str, Any]]]:
        return list(write_history(list(without_search_results(kept, losses.add, "LangChain")), losses))

    history, paths = writing_without_approvals(messages, losses.losses, "LangChain", write)
    built = []
    for path, name, kwargs in history:
        try:
            built.append(build(name, kwargs))
        except Exception as e:  # noqa: BLE001 - pydantic's or LangChain's own refusal of a kept field
            where = path if paths is None else restore_path(path, paths)
            raise ValidationError([(where, f"LangChain refuses this message: {_problem(e)}")]) from None
    return losses.finish(built, strict=raising)
