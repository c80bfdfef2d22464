"""The shape of the ``messages`` request field ``to_provider`` writes for Chat Completions, as TypedDicts.

They name every key the writer emits, one TypedDict per role, and type the keys the SDK types the same way in
every release (roles, ids, names, the refusal, the audio reference and a legacy ``function_call``). Content and
tool calls are ``Any``: TypedDict items are invariant, so a type declared here is accepted where ``openai``
expects its own ``ChatCompletionMessageParam`` only when each item's type is the SDK's own, and the SDK's part
unions grow with its releases. Typed this way, ``client.chat.completions.create(model=..., **converted.payload)``
type-checks without a cast and gives the SDK's ``ChatCompletion``; no SDK is imported here.
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypeAlias, TypedDict

__all__ = [
    "OpenAIChatAssistantMessage",
    "OpenAIChatAudio",
    "OpenAIChatDeveloperMessage",
    "OpenAIChatFunctionCall",
    "OpenAIChatMessage",
    "OpenAIChatRequest",
    "OpenAIChatSystemMessage",
    "OpenAIChatToolMessage",
    "OpenAIChatUserMessage",
]


class OpenAIChatSystemMessage(TypedDict, total=False):
    """A system message: its text (a string or text parts) and a ``name`` from ``openai/name``."""

    role: Required[Literal["system"]]
    content: Required[Any]
    name: str


class OpenAIChatDeveloperMessage(TypedDict, total=False):
    """A developer message: its text (a string or text parts) and a ``name`` from ``openai/name``."""

    role: Required[Literal["developer"]]
    content: Required[Any]
    name: str


class OpenAIChatUserMessage(TypedDict, total=False):
    """A user message: a string or content parts (text, images, audio, files), and a ``name``."""

    role: Required[Literal["user"]]
    content: Required[Any]
    name: str


class OpenAIChatAudio(TypedDict):
    """The reference to an earlier reply's audio, by id."""

    id: str


class OpenAIChatFunctionCall(TypedDict):
    """The legacy ``function_call`` of an assistant message, kept in ``openai/function_call``."""

    name: str
    arguments: str


class OpenAIChatAssistantMessage(TypedDict, total=False):
    """An assistant message: content (a string or parts), a refusal, an audio reference, tool calls, a name."""

    role: Required[Literal["assistant"]]
    content: Any
    refusal: str | None
    audio: OpenAIChatAudio | None
    function_call: OpenAIChatFunctionCall | None
    name: str
    tool_calls: Any


class OpenAIChatToolMessage(TypedDict):
    """A tool message: the id of the call it answers and its text (a string or text parts)."""

    role: Literal["tool"]
    tool_call_id: str
    content: Any


OpenAIChatMessage: TypeAlias = (
    OpenAIChatSystemMessage
    | OpenAIChatDeveloperMessage
    | OpenAIChatUserMessage
    | OpenAIChatAssistantMessage
    | OpenAIChatToolMessage
)
"""One entry of ``messages``."""


class OpenAIChatRequest(TypedDict):
    """The request field ``to_provider`` writes: ``messages``."""

    messages: list[OpenAIChatMessage]
