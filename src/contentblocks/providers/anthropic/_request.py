"""The shape of the request fields ``to_provider`` writes for the Messages API, as TypedDicts.

They name every key the writer emits, and type the keys the SDK types the same way in every release (roles, the
text of a system block). Content lists and the fields inside a block are ``Any``: TypedDict items are invariant,
so a type declared here is accepted where ``anthropic`` expects its own ``MessageParam`` only when each item's
type is the SDK's own, and the SDK's block unions grow with its releases. Typed this way,
``client.messages.create(model=..., max_tokens=..., **converted.payload)`` type-checks without a cast and gives
the SDK's ``Message``; no SDK is imported here.
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypeAlias, TypedDict

__all__ = [
    "AnthropicAssistantMessage",
    "AnthropicMessage",
    "AnthropicRequest",
    "AnthropicSystemBlock",
    "AnthropicSystemMessage",
    "AnthropicUserMessage",
]


class AnthropicSystemBlock(TypedDict, total=False):
    """A text block of the top-level ``system`` prompt (``cache_control`` and ``citations`` from metadata)."""

    type: Required[Literal["text"]]
    text: Required[str]
    cache_control: Any
    citations: Any


class AnthropicUserMessage(TypedDict):
    """A user turn: text, files, and the ``tool_result`` blocks of tool messages (a string or a block list)."""

    role: Literal["user"]
    content: Any


class AnthropicAssistantMessage(TypedDict):
    """An assistant turn: text, thinking and ``tool_use`` blocks (a string or a block list)."""

    role: Literal["assistant"]
    content: Any


class AnthropicSystemMessage(TypedDict):
    """A system message kept inside ``messages`` (read with ``anthropic/in_messages``) and written back there."""

    role: Literal["system"]
    content: Any


AnthropicMessage: TypeAlias = AnthropicUserMessage | AnthropicAssistantMessage | AnthropicSystemMessage
"""One entry of ``messages``."""


class AnthropicRequest(TypedDict, total=False):
    """The request fields ``to_provider`` writes: ``messages`` always, ``system`` when there are instructions.

    ``system`` is a string where the conversation was read from one (``anthropic/string``), else a block list.
    """

    system: str | list[AnthropicSystemBlock]
    messages: Required[list[AnthropicMessage]]
