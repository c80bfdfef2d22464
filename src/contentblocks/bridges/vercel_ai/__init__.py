"""The Vercel AI SDK's message JSON (``UIMessage`` and ``ModelMessage``, AI SDK 6) to and from a conversation.

The SDK is TypeScript and has no Python package, so there is nothing to import and no version to check: the
bridge reads and writes the JSON a front end posts (``useChat``'s ``UIMessage`` list) and a server stores or hands
to ``generateText`` (``ModelMessage``). Its shapes follow the SDK's own validators (``validateUIMessages``, the
``modelMessageSchema``); what maps where, and every loss, is in the docs page ``bridges/vercel_ai``. In short:

- a ``UIMessage`` tool part holds a call and its result: it becomes a tool call in the assistant message and its
  result in the tool message after it (``output-error`` a ``failed`` result, a denied approval ``denied``), and
  back; each step of an assistant ``UIMessage`` (between ``step-start`` parts) is one assistant message;
- ``providerMetadata``/``providerOptions`` and every field with no neutral home are kept as ``vercel_ai/``
  metadata and written back; a reasoning signature in them (``anthropic.signature``,
  ``google.thoughtSignature``) becomes the reasoning block's, with its issuer under ``contentblocks/issuer``, and
  a ``ModelMessage``'s ``anthropic.cacheControl`` (or a message's ``bedrock.cachePoint``) its cache breakpoint;
- a tool the provider ran (a tool part or ``tool-call`` with ``providerExecuted: true``, and its result) is a
  server call and result, written back as those parts whoever ran it (the SDK names no provider for them);
- a tool part's approval, a client tool's or a provider-run one's, is an approval request after its call and a
  decision in the tool message after the step, where ``convertToModelMessages`` puts them;
- sources (which carry no span) and approval requests naming no call of their message are kept as JSON blocks
  flagged ``vercel_ai/native_part``, written back as they were.

``from_messages`` and ``to_messages``, the verbs every bridge has, are the ``UIMessage`` pair: the form a front
end posts and a server stores.

The JSON comes from a browser: every value is checked, and what is not the SDK's shape is a ``ValidationError``
with its path, never another exception.

>>> import contentblocks as cb
>>> from contentblocks.bridges import vercel_ai
>>> posted = [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}]
>>> vercel_ai.from_ui_messages(posted)[0].text()
'Hi'
>>> vercel_ai.to_ui_messages(vercel_ai.from_ui_messages(posted)).payload == posted
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..._model._conversation import Conversation
from ...providers._argument_checks import conversation_argument, reading_argument, strict_argument
from ...providers._contract import Converted, LossKind, LossRecorder
from ...providers._search_results import without_search_results
from ._model_read import read_model
from ._model_write import write_model
from ._ui_read import read_ui
from ._ui_write import write_ui

__all__ = [
    "SDK_VERSION",
    "from_messages",
    "from_model_messages",
    "from_ui_messages",
    "to_messages",
    "to_model_messages",
    "to_ui_messages",
]

#: The AI SDK release whose published types the bridge's shapes follow (its tests build payloads as these do).
SDK_VERSION = "6.0"


def from_ui_messages(messages: Any) -> Conversation:
    """A conversation from a list of ``UIMessage`` (the JSON ``useChat`` posts, parsed).

    Nothing is lost: what has no neutral field is kept in ``vercel_ai/`` metadata or as a JSON block, so
    ``to_ui_messages`` gives the same list back. Like the provider adapters' readers, this returns the
    conversation itself.

    Raises:
        ValidationError: when ``messages`` is not the SDK's shape (a wrong type, an unknown part type, a value
            nested too deep), or holds a value the neutral rules refuse where no JSON block can keep it (a tool
            call id with a space), with the path into it.

    >>> from contentblocks.bridges import vercel_ai
    >>> conversation = vercel_ai.from_ui_messages([{"id": "a1", "role": "assistant", "parts": [
    ...     {"type": "step-start"},
    ...     {"type": "tool-weather", "toolCallId": "c1", "state": "output-error", "input": {"city": "Paris"},
    ...      "errorText": "No station."}]}])
    >>> [m.role for m in conversation], conversation[1].content[0].outcome
    (['assistant', 'tool'], 'failed')
    """
    return read_ui(reading_argument(messages, "a list of UIMessage", "vercel_ai.from_ui_messages"))


def to_ui_messages(
    conversation: Conversation, *, strict: bool | Iterable[LossKind] = False
) -> Converted[list[dict[str, Any]]]:
    """The ``UIMessage`` list carrying ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to write.
        strict: which loss kinds raise ``LossError`` instead of being returned: ``True`` for the content kinds,
            or the kinds named.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind.

    >>> import contentblocks as cb
    >>> from contentblocks.bridges import vercel_ai
    >>> result = vercel_ai.to_ui_messages(cb.Conversation(messages=[
    ...     cb.Message(role="assistant", content=[cb.RefusalBlock(text="I can't help with that.")])]))
    >>> result.payload[0]["parts"]
    [{'type': 'step-start'}, {'type': 'text', 'text': "I can't help with that."}]
    >>> [(loss.path, loss.kind) for loss in result.losses]
    [('$[0].content[0]', 'content_degraded')]
    """
    call = "vercel_ai.to_ui_messages"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    if not isinstance(conversation, Conversation):
        conversation = Conversation(messages=conversation)
    losses = LossRecorder()
    conversation = without_search_results(conversation, losses.add, "the SDK")
    return losses.finish(write_ui(conversation, losses), strict=raising)


def from_model_messages(messages: Any) -> Conversation:
    """A conversation from a list of ``ModelMessage`` (what ``convertToModelMessages`` returns), as JSON.

    Binary data is read as the JSON form holds it: base64 text, or a URL (``data:`` included).

    Raises:
        ValidationError: when ``messages`` is not the SDK's shape, with the path into it.

    >>> from contentblocks.bridges import vercel_ai
    >>> conversation = vercel_ai.from_model_messages([
    ...     {"role": "system", "content": "Be brief."},
    ...     {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "weather",
    ...                                        "input": {"city": "Paris"}}]},
    ...     {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "weather",
    ...                                   "output": {"type": "execution-denied", "reason": "Not now."}}]}])
    >>> conversation[2].content[0].outcome, conversation[2].content[0].content[0].text
    ('denied', 'Not now.')
    """
    return read_model(reading_argument(messages, "a list of ModelMessage", "vercel_ai.from_model_messages"))


def to_model_messages(
    conversation: Conversation, *, strict: bool | Iterable[LossKind] = False
) -> Converted[list[dict[str, Any]]]:
    """The ``ModelMessage`` list carrying ``conversation`` (binary data as base64 text), and what did not survive.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind.

    >>> import contentblocks as cb
    >>> from contentblocks.bridges import vercel_ai
    >>> vercel_ai.to_model_messages(cb.Conversation(messages=[cb.Message(role="user", content="Hi")])).payload
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}]
    """
    call = "vercel_ai.to_model_messages"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    if not isinstance(conversation, Conversation):
        conversation = Conversation(messages=conversation)
    losses = LossRecorder()
    conversation = without_search_results(conversation, losses.add, "the SDK")
    return losses.finish(write_model(conversation, losses), strict=raising)


#: The verbs every bridge has (``contentblocks.bridges``): here the ``UIMessage`` form, the one a front end posts.
from_messages = from_ui_messages
to_messages = to_ui_messages
