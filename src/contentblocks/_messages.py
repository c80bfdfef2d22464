"""Messages (a role and its blocks) and conversations (messages with tool calls paired to their results)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, TypeAlias, overload

import attrs

from ._blocks import (
    BLOCK_CLASSES,
    Block,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    _Immutable,
    _metadata,
    _metadata_field,
    _raise,
    _set,
    _tuple_of,
)
from ._checks import pairing_problems

__all__ = ["ROLE_BLOCKS", "Conversation", "Message", "Role", "check_roles", "conversation_problems"]

Role: TypeAlias = Literal["system", "developer", "user", "assistant", "tool"]
"""Who speaks: instructions (system, developer), the user, the model (assistant), or tools."""

#: The block classes each role may carry (SPEC §4).
ROLE_BLOCKS: dict[str, tuple[type, ...]] = {
    "system": (TextBlock,),
    "developer": (TextBlock,),
    "user": (TextBlock, FileBlock, JsonBlock),
    "assistant": (TextBlock, RefusalBlock, FileBlock, ReasoningBlock, ToolCallBlock, JsonBlock),
    "tool": (ToolResultBlock,),
}

KIND_NAMES: dict[type, str] = {
    TextBlock: "text",
    RefusalBlock: "refusal",
    FileBlock: "file",
    ReasoningBlock: "reasoning",
    ToolCallBlock: "tool_call",
    ToolResultBlock: "tool_result",
    JsonBlock: "json",
}
_ROLE_LIST = ", ".join(ROLE_BLOCKS)


def check_roles(problems: list[tuple[str, str]], path: str, role: str, content: Sequence[object]) -> None:
    """Each block must be of a kind the role may carry."""
    allowed = ROLE_BLOCKS[role]
    for i, block in enumerate(content):
        if isinstance(block, BLOCK_CLASSES) and not isinstance(block, allowed):
            names = ", ".join(KIND_NAMES[c] for c in allowed)
            problems.append(
                (f"{path}[{i}]", f"a {role} message cannot carry {KIND_NAMES[type(block)]} blocks (allowed: {names})")
            )


@attrs.frozen(kw_only=True)
class Message(_Immutable):
    """One turn: a role and the blocks it carries (never empty).

    A string is shorthand for one text block, in Python as on the wire.

    >>> import contentblocks as cb
    >>> cb.Message(role="user", content="Hello").content
    (TextBlock(text='Hello', citations=(), metadata=JsonObject({})),)
    """

    role: Role
    content: tuple[Block, ...]
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        content: Any = self.content
        if type(content) is str:
            if not content:
                problems.append(("$.content", "must not be empty"))
                content = ()
            else:
                content = (TextBlock(text=content),)
        else:
            content = _tuple_of(problems, "$.content", content, BLOCK_CLASSES, "a block")
            if not content and not problems:
                problems.append(("$.content", "a message carries at least one block"))
        _set(self, "content", content)
        if type(self.role) is not str or self.role not in ROLE_BLOCKS:
            problems.append(("$.role", f"expected one of: {_ROLE_LIST}"))
        else:
            check_roles(problems, "$.content", self.role, content)
        _metadata(self, problems)
        _raise(problems)


_TOOL_BLOCKS = (ToolCallBlock, ToolResultBlock)
_OTHER_BLOCKS = frozenset(BLOCK_CLASSES) - frozenset(_TOOL_BLOCKS)


def conversation_problems(problems: list[tuple[str, str]], messages: Sequence[Message]) -> None:
    """Tool-call pairing over valid messages; paths are ``$[i].content[j]...``."""
    other_blocks = _OTHER_BLOCKS
    summary = [
        (m, tools)
        for m, message in enumerate(messages)
        # Most messages hold no tool block: a C-speed test of exact types passes over them.
        if not other_blocks.issuperset(map(type, message.content))
        and (
            tools := [
                (isinstance(b, ToolCallBlock), b.tool_call_id, b.tool_name, i)
                for i, b in enumerate(message.content)
                if isinstance(b, _TOOL_BLOCKS)
            ]
        )
    ]
    pairing_problems(problems, summary)


@attrs.frozen(kw_only=True)
class Conversation(_Immutable):
    """Messages in order, with every tool result answering an earlier call of the same id and name.

    Tool call ids are unique across the conversation; a call may stay unanswered. On the wire a conversation
    is a JSON array of messages. It is a read-only sequence of its messages.
    """

    messages: tuple[Message, ...] = ()

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        messages = _tuple_of(problems, "$", self.messages, (Message,), "a Message")
        _set(self, "messages", messages)
        if not problems:
            conversation_problems(problems, messages)
        _raise(problems)

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        return self.messages[index]
