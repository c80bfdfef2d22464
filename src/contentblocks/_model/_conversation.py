"""Conversations: messages in order, with every tool result answering an earlier call, grown turn by turn."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs

from .._checks._instances import FieldPlan, check_items, resolve_annotations
from .._checks._rules import many
from .._errors import ValidationError, describe_type
from ._classes import (
    ROLE_BLOCKS,
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Message,
    ServerToolCallBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ._growth import ApprovalSummary, Growth, ToolBlockSummary, ToolPairing
from ._values import Value, as_tuple, ruled

__all__ = ["Conversation", "conversation_problems", "tool_summary"]


def _messages(value: Sequence[Message]) -> tuple[Message, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


_TOOL_BLOCKS = (ToolCallBlock, ToolResultBlock)
_APPROVAL_BLOCKS = (ApprovalRequestBlock, ApprovalResponseBlock)
_OTHER_BLOCKS = frozenset(c for classes in ROLE_BLOCKS.values() for c in classes) - frozenset(
    _TOOL_BLOCKS + _APPROVAL_BLOCKS
)
_CALLS = (ToolCallBlock, ServerToolCallBlock)


def tool_summary(
    messages: Sequence[Message], offset: int, approvals: list[ApprovalSummary] | None = None
) -> list[ToolBlockSummary]:
    """The tool blocks of ``messages`` (message indexes counted from ``offset``), for ``ToolPairing``.

    With an ``approvals`` list, the approval blocks of each message that holds some are added to it.
    """
    other_blocks = _OTHER_BLOCKS
    summary: list[ToolBlockSummary] = []
    for m, message in enumerate(messages, offset):
        content = message.content
        # Most messages hold no tool block: a C-speed test of exact types passes over them.
        if other_blocks.issuperset(map(type, content)):
            continue
        tools = []
        asked = []
        for i, block in enumerate(content):
            if isinstance(block, _TOOL_BLOCKS):
                tools.append((isinstance(block, ToolCallBlock), block.tool_call_id, block.tool_name, i))
            elif isinstance(block, _APPROVAL_BLOCKS):
                asked.append((block, i))
        if tools:
            summary.append((m, tools))
        if asked and approvals is not None:
            call_ids = frozenset(b.tool_call_id for b in content if isinstance(b, _CALLS))
            approvals.append((m, asked, call_ids))
    return summary


def conversation_problems(problems: list[tuple[str, str]], messages: Sequence[Message]) -> ToolPairing:
    """Tool-call and approval pairing over valid messages; paths are ``$[i].content[j]...``. Returns the pairing."""
    pairing = ToolPairing()
    approvals: list[ApprovalSummary] = []
    pairing.extend(problems, tool_summary(messages, 0, approvals), len(messages), approvals)
    return pairing


class _Growable(Value):
    """Slots for a conversation's growth, which are no fields: not compared, copied, shown or pickled.

    ``_growth`` is the line of conversations this one grows along and ``_size`` its own length in it. A
    conversation made by ``extend`` leaves its ``messages`` slot empty until it is first read (building that
    tuple is the one cost that grows with the conversation, and an agent loop often never asks for it).
    """

    __slots__ = ("_growth", "_size")
    _growth: Growth
    _size: int


_MESSAGES = many("messages", "a Message")
_MESSAGES_PLAN = FieldPlan(key="messages", rule=_MESSAGES, optional=False, accepts=(Message,), default=())


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

    messages: tuple[Message, ...] = attrs.field(metadata=ruled(_MESSAGES), default=(), converter=_messages)

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        # On the wire a conversation is the array of its messages: paths start at the array ($[2]).
        messages = check_items(problems, "$", self.messages, _MESSAGES_PLAN)
        object.__setattr__(self, "messages", messages)
        if not problems:
            pairing = conversation_problems(problems, messages)
            object.__setattr__(self, "_growth", Growth(list(messages), pairing))
            object.__setattr__(self, "_size", len(messages))
        if problems:
            raise ValidationError(problems)

    if not TYPE_CHECKING:  # mypy would take every misspelt attribute for one of these

        def __getattr__(self, name: str) -> Any:
            if name == "messages":  # grown by extend(): the tuple is made once, when first read
                growth, size = self._growth, self._size
                with growth.lock:
                    messages = tuple(growth.messages[:size])
                object.__setattr__(self, "messages", messages)
                return messages
            if name == "_size":
                size = len(self.messages)
                object.__setattr__(self, "_size", size)
                return size
            if name == "_growth":  # built without __init__ (the converter, unpickling): made once
                messages = self.messages
                growth = Growth(list(messages), conversation_problems([], messages))
                object.__setattr__(self, "_growth", growth)
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
        if problems:
            raise ValidationError(problems)
        end = start + len(new)
        growth: Growth = self._growth
        approvals: list[ApprovalSummary] = []
        summary = tool_summary(new, start, approvals)
        with growth.lock:
            line = growth if growth.pairing.length == start else growth.branch(start)
            line.pairing.extend(problems, summary, end, approvals)
            if not problems:
                line.messages.extend(new)
        if problems:
            raise ValidationError(problems)
        grown: Conversation = object.__new__(Conversation)
        object.__setattr__(grown, "_growth", line)
        object.__setattr__(grown, "_size", end)
        return grown

    def append(self, message: Message) -> Conversation:
        """A new conversation with ``message`` after this conversation's messages (see :meth:`extend`)."""
        return self.extend((message,))

    def __add__(self, other: Iterable[Message]) -> Conversation:
        return self.extend(other)

    def pending_tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The tool calls that no later tool result answers yet, in order: what an agent loop runs next.

        A call whose approval is awaited or was denied is left out: it must not run (answer a denied call with a
        ``denied`` result). See :meth:`pending_approvals`.
        """
        growth: Growth = self._growth
        size: int = self._size
        with growth.lock:
            where = growth.pairing.pending(size)
            held = growth.pairing.held(size)
            messages = growth.messages
            calls = tuple(messages[m].content[b] for m, b in where)
        return tuple(call for call in calls if call.tool_call_id not in held) if held else calls

    def pending_approvals(self) -> tuple[ApprovalRequestBlock, ...]:
        """The approval requests that no later response answers yet, in order: what waits for a decision.

        >>> import contentblocks as cb
        >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="send_mail", input={"to": "a@example.com"})
        >>> ask = cb.ApprovalRequestBlock(approval_id="ap_1", tool_call_id="c1")
        >>> history = cb.Conversation(messages=[cb.Message(role="assistant", content=[call, ask])])
        >>> [request.tool_call_id for request in history.pending_approvals()]
        ['c1']
        >>> no = cb.ApprovalResponseBlock(approval_id="ap_1", approved=False, reason="Not to strangers.")
        >>> history = history.append(cb.Message(role="user", content=[no]))
        >>> history.pending_approvals(), history.pending_tool_calls()
        ((), ())
        """
        growth: Growth = self._growth
        size: int = self._size
        with growth.lock:
            where = growth.pairing.awaiting(size)
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


resolve_annotations(globals())
