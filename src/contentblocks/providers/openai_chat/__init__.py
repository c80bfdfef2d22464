"""OpenAI Chat Completions: conversations to and from the ``messages`` request field, and typed replies.

What maps where, what a reply keeps and drops, every loss and every pre-send rule is on the docs page
``providers/openai_chat``. In short:

- roles map one to one; user parts ``text``, ``image_url`` (http URLs, and data URLs as inline bytes),
  ``input_audio`` (WAV and MP3) and ``file`` (``file_id`` or ``file_data``) map onto text and file blocks;
- assistant ``content``, ``refusal`` and ``tool_calls`` map onto text, refusal and tool-call blocks; tool-call
  ``arguments`` are parsed; arguments that are not valid JSON are kept as the raw string in ``input`` with the
  flag ``openai/invalid_arguments`` and sent back verbatim;
- tool messages carry text only: JSON is sent as JSON text, files are dropped (or moved into a following
  user message with ``tool_result_files="user_message"``), and a failed or denied outcome is lost;
- reasoning: OpenAI's Chat Completions has none, and takes none back (reasoning blocks are dropped and reported);
  OpenAI-compatible servers have their own fields, read and written by the ``dialect`` argument (``"openai"`` by
  default; ``"deepseek"``, ``"moonshot"``, ``"openrouter"``, ``"vllm"``, ``"ollama"``): the field becomes reasoning
  blocks before the message's text and tool calls, issued by the dialect, and goes back only where the dialect
  takes it (DeepSeek: the current turn and turns that called tools; Moonshot and OpenRouter: every turn);
- metadata goes out only where the request type has the field (``name``, an assistant's ``audio`` id and
  ``function_call``, a part's ``prompt_cache_breakpoint``, an image's ``detail``), with the right shape.

A live loop, with the SDK's own reply object and no network:

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_chat
>>> from openai.types.chat import ChatCompletion
>>> completion = ChatCompletion.model_validate({
...     "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
...     "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [
...         {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
...     ]}}],
...     "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29},
... })
>>> reply = openai_chat.from_response(completion)
>>> reply.stop_reason, reply.usage.input_tokens, reply.message.content[0].input["city"]
('tool_use', 20, 'Paris')
>>> call = reply.message.content[0]
>>> result = cb.ToolResultBlock(tool_call_id=call.tool_call_id, tool_name=call.tool_name, outcome="succeeded",
...                             content=[cb.TextBlock(text="15 C")])
>>> history = cb.Conversation(messages=[
...     cb.Message(role="user", content="Weather in Paris?"), reply.message, cb.Message(role="tool", content=[result]),
... ])
>>> openai_chat.preflight(history)
()
>>> converted = openai_chat.to_provider(history, strict=True)
>>> converted.payload["messages"][1:]  # doctest: +NORMALIZE_WHITESPACE
[{'role': 'assistant', 'tool_calls': [{'id': 'call_1', 'type': 'function',
                                       'function': {'name': 'get_weather', 'arguments': '{"city":"Paris"}'}}]},
 {'role': 'tool', 'tool_call_id': 'call_1', 'content': '15 C'}]
>>> converted.losses
()
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ..._model._conversation import Conversation
from ..._sealing import Keyring, SealKey
from .._argument_checks import (
    conversation_argument,
    index_argument,
    issuer_argument,
    option_argument,
    reading_argument,
    strict_argument,
)
from .._contract import Converted, LossKind, Rejection, Reply
from .._provenance import with_provenance
from ._checks import check
from ._dialects import DIALECTS, Dialect
from ._read import read_conversation
from ._reply import read_reply
from ._request import (
    OpenAIChatAssistantMessage,
    OpenAIChatAudio,
    OpenAIChatDeveloperMessage,
    OpenAIChatFunctionCall,
    OpenAIChatMessage,
    OpenAIChatRequest,
    OpenAIChatSystemMessage,
    OpenAIChatToolMessage,
    OpenAIChatUserMessage,
)
from ._write import ToolResultFiles, write_conversation

#: The values ``tool_result_files`` takes.
FILE_OPTIONS: tuple[ToolResultFiles, ...] = ("drop", "user_message")

__all__ = [
    "DIALECTS",
    "Dialect",
    "OpenAIChatAssistantMessage",
    "OpenAIChatAudio",
    "OpenAIChatDeveloperMessage",
    "OpenAIChatFunctionCall",
    "OpenAIChatMessage",
    "OpenAIChatRequest",
    "OpenAIChatSystemMessage",
    "OpenAIChatToolMessage",
    "OpenAIChatUserMessage",
    "ToolResultFiles",
    "from_provider",
    "from_response",
    "preflight",
    "to_provider",
]


def to_provider(
    conversation: Conversation,
    *,
    strict: bool | Iterable[LossKind] = False,
    issuer: str | None = None,
    tool_result_files: ToolResultFiles = "drop",
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
    dialect: Dialect = "openai",
) -> Converted[OpenAIChatRequest]:
    r"""The ``messages`` request field carrying ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: the loss kinds that raise instead of being returned: ``True`` for the content kinds
            (``content_dropped``, ``content_degraded``), or an iterable of kinds.
        issuer: the target of reasoning: the dialect's name when not given (``"deepseek"``), or a narrower
            ``"<dialect>/<model family>"``; reasoning another issuer produced is dropped and reported. OpenAI's own
            Chat Completions takes no reasoning back, so reasoning is dropped there whoever issued it.
        tool_result_files: ``"drop"`` (the default) drops files in tool results and reports them;
            ``"user_message"`` moves them into a user message right after the tool messages, introduced by
            a text part naming the tool call (each move is still reported, as ``order_changed``).
        keys: the server's ``cb.SealKey`` or ``cb.Keyring``: provider state (signatures, redacted reasoning,
            provider-run items) is then sent only from messages whose seal verifies, so that its issuer is a
            sealed fact (see ``docs/security.md``). Without keys the recorded issuer is believed, which is
            right only for a history that never left the server.
        context: the context the messages were sealed with (only with ``keys``).
        dialect: the server the request is for (see ``DIALECTS``; ``"openai"``, the default, writes what OpenAI
            takes): which reasoning field goes back, and from which messages (``docs/providers/openai_chat``).

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind (``None`` or raw dicts for the conversation, a string
            for ``strict``), before anything is written; raw dicts go through ``cb.structure(raw, cb.Conversation)``.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import openai_chat
    >>> call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="screenshot", input={})
    >>> shot = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
    >>> result = cb.ToolResultBlock(tool_call_id="call_1", tool_name="screenshot", outcome="succeeded", content=[shot])
    >>> converted = openai_chat.to_provider(cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Take a screenshot", metadata={"app/latency_ms": 12}),
    ...     cb.Message(role="assistant", content=[call]),
    ...     cb.Message(role="tool", content=[result]),
    ... ]), tool_result_files="user_message")
    >>> converted.payload["messages"][2]
    {'role': 'tool', 'tool_call_id': 'call_1', 'content': ''}
    >>> for part in converted.payload["messages"][3]["content"]:
    ...     print(part)
    {'type': 'text', 'text': 'Files returned by tool call call_1 (screenshot):'}
    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw=='}}
    >>> for loss in converted.losses:
    ...     print(loss.kind, loss.path)
    metadata_not_sent $[0].metadata["app/latency_ms"]
    order_changed $[2].content[0].content[0]
    """
    call = "openai_chat.to_provider"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    target = issuer_argument(issuer, call)
    option_argument(tool_result_files, "tool_result_files", FILE_OPTIONS, call)
    option_argument(dialect, "dialect", DIALECTS, call)
    conversation, rejected = with_provenance(conversation, keys, context, call)
    payload, writer = write_conversation(conversation, tool_result_files, dialect, target or dialect)
    return writer.losses.finish(cast("OpenAIChatRequest", payload), strict=raising, before=rejected)


def from_provider(payload: Any, *, dialect: Dialect = "openai") -> Conversation:
    """A conversation from the Chat Completions ``messages`` request field (other fields are ignored).

    ``dialect`` names the server whose reasoning fields are read (see ``to_provider``); with ``"openai"``, the
    default, a field a compatible server adds is kept verbatim as ``openai/<field>`` metadata.

    A message may be the SDK's own object (a reply's ``ChatCompletionMessage`` appended to the history) or any
    of its dump forms; an explicit ``null`` in an optional field is read as absent. Tool results take their
    tool name from the earlier call they answer, and their outcome is ``succeeded`` (Chat Completions has no
    status for them). ``annotations`` on an assistant message become citations.

    Raises:
        ValidationError: when the payload is not Chat Completions' shape or holds an invalid value; the path
            points into the payload (``$.messages[2].content[0]``).

    >>> from contentblocks.providers import openai_chat
    >>> conversation = openai_chat.from_provider({"messages": [
    ...     {"role": "developer", "content": "Be brief."},
    ...     {"role": "user", "content": [
    ...         {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lGODlh", "detail": "low"}},
    ...     ]},
    ... ]})
    >>> image = conversation[1].content[0]
    >>> image.media_type, image.source.data, image.metadata["openai/detail"]
    ('image/gif', b'GIF89a', 'low')
    >>> openai_chat.from_provider({"messages": [{"role": "user"}]})
    Traceback (most recent call last):
    contentblocks.ValidationError: $.messages[0].content: required field missing
    """
    call = "openai_chat.from_provider"
    option_argument(dialect, "dialect", DIALECTS, call)
    return read_conversation(reading_argument(payload, "Chat Completions request fields", call), dialect)


def from_response(response: Any, *, choice: int = 0, dialect: Dialect = "openai") -> Reply:
    """The typed reply of a ChatCompletion: the SDK object, or any of its dump forms.

    ``model_dump()``, ``model_dump(mode="json")``, ``to_dict()`` and ``json.loads(to_json())`` all read the
    same; so does the SDK stream accumulator's ``ParsedChatCompletion`` (its tool calls' ``index`` and the
    ``parsed`` fields are derived data and are not read). A bare ``ChatCompletionMessage`` gives a reply with
    only its message.

    Args:
        response: the ChatCompletion.
        choice: which choice to read (a request with ``n`` > 1 has several); the others are not read.
        dialect: the server that answered: its reasoning field becomes reasoning blocks before the message's
            text (see ``to_provider``).

    Returns:
        The assistant message (``None`` for an empty reply: no content, refusal, audio or tool call), the stop
        reason (``stop`` is ``end_turn``, or ``refusal`` when the message holds one; ``length`` is
        ``max_tokens``; ``tool_calls`` and ``function_call`` are ``tool_use``; ``content_filter``), the usage,
        model and response id. The message's metadata holds nothing about the response, so sending it back
        reports no loss.

    Raises:
        ValidationError: when the response is not a ChatCompletion's shape; the path points into it.

    >>> from contentblocks.providers import openai_chat
    >>> reply = openai_chat.from_response({
    ...     "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
    ...     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi!"}}],
    ...     "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11,
    ...               "prompt_tokens_details": {"cached_tokens": 4}},
    ... })
    >>> reply.message.content[0].text, reply.stop_reason, reply.provider_stop_reason, reply.usage.cache_read_tokens
    ('Hi!', 'end_turn', 'stop', 4)
    >>> empty = openai_chat.from_response({"id": "x", "choices": [{"finish_reason": "length", "message": {}}]})
    >>> empty.message, empty.stop_reason, empty.provider_stop_reason
    (None, 'max_tokens', 'length')
    """
    call = "openai_chat.from_response"
    option_argument(dialect, "dialect", DIALECTS, call)
    raw = reading_argument(response, "a ChatCompletion", call)
    return read_reply(raw, index_argument(choice, "choice", call), dialect)


def preflight(
    conversation: Conversation,
    *,
    tool_result_files: ToolResultFiles = "drop",
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
    dialect: Dialect = "openai",
    issuer: str | None = None,
) -> tuple[Rejection, ...]:
    """What Chat Completions would refuse in the request ``to_provider`` builds for ``conversation``.

    Each rejection names its rule (``openai_chat/<rule>``; the docs page gives each one's source) and the
    place in the conversation it comes from. ``tool_result_files``, ``dialect`` and ``issuer`` are
    ``to_provider``'s options, since they change what is sent.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import openai_chat
    >>> call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="lookup", input={})
    >>> for rejection in openai_chat.preflight(cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Look it up"),
    ...     cb.Message(role="assistant", content=[call]),
    ...     cb.Message(role="user", content="Well?"),
    ... ])):
    ...     print(rejection.path, rejection.rule)
    $[1].content[0] openai_chat/calls-answered
    """
    call = "openai_chat.preflight"
    conversation_argument(conversation, call)
    target = issuer_argument(issuer, call)
    option_argument(tool_result_files, "tool_result_files", FILE_OPTIONS, call)
    option_argument(dialect, "dialect", DIALECTS, call)
    conversation, _ = with_provenance(conversation, keys, context, call)
    payload, writer = write_conversation(conversation, tool_result_files, dialect, target or dialect)
    return check(conversation, payload["messages"], writer.sent, move_files=tool_result_files == "user_message")
