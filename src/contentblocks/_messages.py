"""Messages (a role and its blocks) and conversations (messages with tool calls paired to their results)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

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
    as_tuple,
)
from ._errors import describe_type, with_article
from ._growth import Growth, ToolBlockSummary, ToolPairing

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
                (
                    f"{path}[{i}]",
                    f"{with_article(role)} message cannot carry {KIND_NAMES[type(block)]} blocks (allowed: {names})",
                )
            )


def _content(value: str | Sequence[Block]) -> tuple[Block, ...]:
    """A message's content as the field holds it; a string stays one, for the shorthand of one text block."""
    return value if type(value) is str else as_tuple(value)  # type: ignore[return-value]


def _messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class Message(_Immutable):
    """One turn: a role and the blocks it carries (never empty).

    A string is shorthand for one text block, in Python as on the wire.

    >>> import contentblocks as cb
    >>> cb.Message(role="user", content="Hello").content
    (TextBlock(text='Hello', citations=(), metadata=JsonObject({})),)
    """

    role: Role
    content: tuple[Block, ...] = attrs.field(converter=_content)
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
        elif not isinstance(content, (list, tuple)):
            problems.append(("$.content", f"expected a string or a list of blocks, got {describe_type(content)}"))
            content = ()
        else:
            content = _tuple_of(problems, "$.content", content, BLOCK_CLASSES, "blocks", "a block")
            if not content and not problems:
                problems.append(("$.content", "a message carries at least one block"))
        _set(self, "content", content)
        if type(self.role) is not str or self.role not in ROLE_BLOCKS:
            problems.append(("$.role", f"expected one of: {_ROLE_LIST}"))
        else:
            check_roles(problems, "$.content", self.role, content)
        _metadata(self, problems)
        _raise(problems)

    def text(self, sep: str = "") -> str:
        """The text of the message's text blocks, joined by ``sep`` (nothing by default); ``""`` when it has none.

        Refusals, reasoning and every other kind of block are left out.

        >>> import contentblocks as cb
        >>> reply = cb.Message(role="assistant", content=[
        ...     cb.ReasoningBlock(text="The user greets me."),
        ...     cb.TextBlock(text="Hello! "),
        ...     cb.TextBlock(text="How can I help?"),
        ... ])
        >>> reply.text()
        'Hello! How can I help?'
        """
        return sep.join([b.text for b in self.content if isinstance(b, TextBlock)])

    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The message's tool calls, in order (an assistant message asks for them to be run).

        >>> import contentblocks as cb
        >>> reply = cb.Message(role="assistant", content=[
        ...     cb.TextBlock(text="Checking."),
        ...     cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
        ... ])
        >>> [call.tool_name for call in reply.tool_calls()]
        ['weather']
        """
        return tuple(b for b in self.content if isinstance(b, ToolCallBlock))

    def tool_results(self) -> tuple[ToolResultBlock, ...]:
        """The message's tool results, in order (a tool message carries them).

        >>> import contentblocks as cb
        >>> sunny = [cb.TextBlock(text="Sunny")]
        >>> result = cb.ToolResultBlock(tool_call_id="c1", tool_name="weather", outcome="succeeded", content=sunny)
        >>> answer = cb.Message(role="tool", content=[result])
        >>> [result.tool_call_id for result in answer.tool_results()]
        ['c1']
        """
        return tuple(b for b in self.content if isinstance(b, ToolResultBlock))


_TOOL_BLOCKS = (ToolCallBlock, ToolResultBlock)
_OTHER_BLOCKS = frozenset(BLOCK_CLASSES) - frozenset(_TOOL_BLOCKS)


def _tool_summary(messages: Sequence[Message], offset: int) -> list[ToolBlockSummary]:
    """The tool blocks of ``messages`` (message indexes counted from ``offset``), for ``ToolPairing``."""
    other_blocks = _OTHER_BLOCKS
    return [
        (m, tools)
        for m, message in enumerate(messages, offset)
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


def conversation_problems(problems: list[tuple[str, str]], messages: Sequence[Message]) -> ToolPairing:
    """Tool-call pairing over valid messages; paths are ``$[i].content[j]...``. Returns the pairing state."""
    pairing = ToolPairing()
    pairing.extend(problems, _tool_summary(messages, 0), len(messages))
    return pairing


class _Growable(_Immutable):
    """Slots for a conversation's growth, which are no fields: not compared, copied, shown or pickled.

    ``_growth`` is the line of conversations this one grows along and ``_size`` its own length in it. A
    conversation made by ``extend`` leaves its ``messages`` slot empty until it is first read (building that
    tuple is the one cost that grows with the conversation, and an agent loop often never asks for it).
    """

    __slots__ = ("_growth", "_size")
    _growth: Growth
    _size: int


@attrs.frozen(kw_only=True)
class Conversation(_Growable, Sequence[Message]):
    """Messages in order, with every tool result answering an earlier call of the same id and name.

    Tool call ids are unique across the conversation; a call may stay unanswered. On the wire a conversation
    is a JSON array of messages. It is an immutable sequence of its messages (a ``collections.abc.Sequence``)
    that grows by returning a new conversation: :meth:`append`, :meth:`extend` and ``+`` check only the new
    messages against what is already known, so a conversation grown turn by turn costs each turn only its
    own messages, with exactly the errors that checking the whole conversation gives.

    >>> import attrs
    >>> import contentblocks as cb
    >>> history = cb.Conversation(messages=[cb.Message(role="user", content="Weather in Oslo?")])
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"})
    >>> history = history.append(cb.Message(role="assistant", content=[call]))
    >>> [c.tool_call_id for c in history.pending_tool_calls()]
    ['c1']
    >>> sunny = cb.ToolResultBlock(
    ...     tool_call_id="c1", tool_name="weather", outcome="succeeded", content=[cb.TextBlock(text="Sunny")]
    ... )
    >>> history = history + [cb.Message(role="tool", content=[sunny])]
    >>> len(history), history.pending_tool_calls()
    (3, ())
    >>> history.append(cb.Message(role="tool", content=[attrs.evolve(sunny, tool_call_id="c9")]))
    Traceback (most recent call last):
    contentblocks.ValidationError: $[3].content[0].tool_call_id: tool result answers no earlier tool call
    """

    messages: tuple[Message, ...] = attrs.field(default=(), converter=_messages)

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        messages = _tuple_of(problems, "$", self.messages, (Message,), "messages", "a Message")
        _set(self, "messages", messages)
        if not problems:
            pairing = conversation_problems(problems, messages)
            _set(self, "_growth", Growth(list(messages), pairing))
            _set(self, "_size", len(messages))
        _raise(problems)

    if not TYPE_CHECKING:  # mypy would take every misspelt attribute for one of these

        def __getattr__(self, name: str) -> Any:
            if name == "messages":  # grown by extend(): the tuple is made once, when first read
                growth, size = self._growth, self._size
                with growth.lock:
                    messages = tuple(growth.messages[:size])
                _set(self, "messages", messages)
                return messages
            if name == "_size":
                size = len(self.messages)
                _set(self, "_size", size)
                return size
            if name == "_growth":  # built without __init__ (the converter, unpickling): made once
                messages = self.messages
                growth = Growth(list(messages), conversation_problems([], messages))
                _set(self, "_growth", growth)
                return growth
            raise AttributeError(name)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __reversed__(self) -> Iterator[Message]:
        return reversed(self.messages)

    def __contains__(self, value: object) -> bool:
        return value in self.messages

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        if type(index) is int and not _has_tuple(self):  # conversation[-1], what a loop reads, makes no tuple
            size = self._size
            if -size <= index < size:
                return self._growth.messages[index % size]  # type: ignore[no-any-return]
            msg = "conversation index out of range"
            raise IndexError(msg)
        return self.messages[index]

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of the first message equal to ``value`` (``ValueError`` when there is none)."""
        return self.messages.index(value, start, len(self.messages) if stop is None else stop)

    def count(self, value: Any) -> int:
        """How many messages equal ``value``."""
        return self.messages.count(value)

    def extend(self, messages: Iterable[Message]) -> Conversation:
        """A new conversation: these messages after this conversation's; this one is left as it is.

        Only the new messages are checked, against the tool calls already known, with the paths and wording
        a check of the whole result gives (``$[5].content[0].tool_call_id`` for the sixth message).

        Raises:
            ValidationError: when an item is not a ``Message`` or a tool result does not pair up.
        """
        new = tuple(messages)
        start: int = self._size
        problems = [
            (f"$[{start + i}]", f"expected a Message, got {describe_type(m)}")
            for i, m in enumerate(new)
            if not isinstance(m, Message)
        ]
        _raise(problems)
        end = start + len(new)
        growth: Growth = self._growth
        summary = _tool_summary(new, start)
        with growth.lock:
            line = growth if growth.pairing.length == start else growth.branch(start)
            line.pairing.extend(problems, summary, end)
            if not problems:
                line.messages.extend(new)
        _raise(problems)
        grown: Conversation = object.__new__(Conversation)
        _set(grown, "_growth", line)
        _set(grown, "_size", end)
        return grown

    def append(self, message: Message) -> Conversation:
        """A new conversation with ``message`` after this conversation's messages (see :meth:`extend`)."""
        return self.extend((message,))

    def __add__(self, other: Iterable[Message]) -> Conversation:
        return self.extend(other)

    def pending_tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The tool calls that no later tool result answers yet, in order: what an agent loop runs next."""
        growth: Growth = self._growth
        size: int = self._size
        with growth.lock:
            where = growth.pairing.pending(size)
            messages = growth.messages
            return tuple(messages[m].content[b] for m, b in where)


_messages_slot = Conversation.__dict__["messages"]


def _has_tuple(conversation: Conversation) -> bool:
    """Whether the conversation's ``messages`` tuple exists (it does unless ``extend`` made it and none read it)."""
    try:
        _messages_slot.__get__(conversation, Conversation)
    except AttributeError:
        return False
    return True
