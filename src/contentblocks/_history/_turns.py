"""Where a history may be cut: turns that start with a user message and split no tool call from its result.

``window`` keeps the newest turns and ``prune`` shrinks the older ones; both need the same boundaries. A cut
may only fall before a user message (every provider accepts a history that starts with one, and several
refuse any other start), and never between a tool call and a later result answering it, which a
``Conversation`` allows across a user message (a late answer), nor between an approval request and the user's
decision on it. One pass finds them all.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import compress, islice
from operator import attrgetter

from .._conversion._unchecked import unchecked
from .._model._classes import ApprovalRequestBlock, Message
from .._model._conversation import Conversation, tool_summary
from .._model._growth import ApprovalSummary, Growth, ToolBlockSummary, ToolPairing

__all__ = ["ROLE", "conversation_argument", "conversation_turn_starts", "paired", "trusted", "turn_starts"]


def conversation_argument(value: object, call: str) -> Conversation:
    """``value`` as a ``Conversation``; a sequence of messages is checked into one (``ValidationError`` if broken)."""
    if isinstance(value, Conversation):
        return value
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Sequence):
        msg = f"{call}() takes a Conversation or a sequence of messages, got {type(value).__name__}"
        raise TypeError(msg)
    return Conversation(messages=value)


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """The indexes where a turn may start: 0, then each user message that no call before it is answered after.

    The turns are the slices between consecutive starts (the first, before any user message, may hold only
    system messages or nothing). Linear: each call's message is remembered by id, and each answer makes a
    span from the call's message to the answer's; a user message inside a span cannot start a turn.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    >>> late = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded")
    >>> turn_starts([cb.Message(role="system", content="Be brief."), cb.Message(role="user", content="a"),
    ...              cb.Message(role="assistant", content=[call]), cb.Message(role="user", content="b"),
    ...              cb.Message(role="tool", content=[late]), cb.Message(role="user", content="c")])
    [0, 1, 5]
    """
    spans: list[tuple[int, int]] = []  # (message of a call, message of its answer)
    where: dict[str, int] = {}  # call id -> index of the message that made the call
    approvals: list[ApprovalSummary] = []
    for m, tools in tool_summary(messages, 0, approvals):  # the messages with tool blocks only
        for is_call, call_id, _, _ in tools:
            if is_call:
                where[call_id] = m
            elif call_id in where:
                spans.append((where[call_id], m))
    asked: dict[str, int] = {}  # a decision belongs to the turn that asked for it, as an answer does
    for m, blocks, _ in approvals:
        for block, _ in blocks:
            if type(block) is ApprovalRequestBlock:
                asked[block.approval_id] = m
            elif block.approval_id in asked:
                spans.append((asked[block.approval_id], m))
    return _starts(list(map(ROLE, messages)), spans)


#: A message's role, read by C code over a whole history (``map(ROLE, messages)``).
ROLE = attrgetter("role")


def _starts(roles: list[str], spans: list[tuple[int, int]]) -> list[int]:
    """0 and the user messages that no span ``(call, answer)`` holds (``call < i <= answer``), in order.

    The user messages are found at C speed; only the spans that hold a user message (rare: a late answer)
    cost a step each, and the user messages they hold are cut out by bisection.
    """
    users = list(compress(range(1, len(roles)), map("user".__eq__, islice(roles, 1, None))))
    blocking = sorted((call, answer) for call, answer in spans if answer > call + 1 or roles[answer] == "user")
    if not blocking:
        return [0, *users]
    starts = [0]
    done = 0  # users[:done] are placed or cut out
    for call, answer in blocking:  # by call: no later span holds a user message at or before this call
        first = bisect_right(users, call)
        starts.extend(users[done:first])
        done = max(done, first, bisect_right(users, answer))
    starts.extend(users[done:])
    return starts


def conversation_turn_starts(conversation: Conversation, roles: list[str] | None = None) -> list[int]:
    """``turn_starts`` of a conversation's messages, from the pairing its own check recorded (no block is read).

    ``roles`` is the messages' roles when the caller has them already.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    >>> late = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded")
    >>> history = cb.Conversation(messages=[cb.Message(role="user", content="a"),
    ...     cb.Message(role="assistant", content=[call]), cb.Message(role="user", content="b"),
    ...     cb.Message(role="tool", content=[late]), cb.Message(role="user", content="c")])
    >>> conversation_turn_starts(history) == turn_starts(history.messages) == [0, 4]
    True
    """
    messages = conversation.messages
    size = len(messages)
    growth: Growth = conversation._growth
    with growth.lock:
        pairing = growth.pairing
        calls, answers = pairing.calls, pairing.answers
        spans = [(calls[call_id][1], m) for call_id, m in answers.items() if m < size]
        if pairing.decisions:  # a decision belongs to the turn that asked for it
            asked = pairing.approvals
            spans += [(asked[a][1], m) for a, (_, m) in pairing.decisions.items() if m < size]
    return _starts(list(map(ROLE, messages)) if roles is None else roles, spans)


def paired(messages: Sequence[Message], summary: list[ToolBlockSummary]) -> Conversation:
    """A conversation of valid messages whose tool blocks ``summary`` lists, checked from that list alone.

    ``repair`` writes each message's tool blocks as it writes the message, so the check of what it wrote
    need not read every message again to find them (the larger part of a ``Conversation`` check); the
    pairing is checked all the same, and a problem raises ``ValidationError`` as the full check would.
    """
    problems: list[tuple[str, str]] = []
    pairing = ToolPairing()
    pairing.extend(problems, summary, len(messages))
    if problems:
        return Conversation(messages=messages)  # raises, with the full check's paths and wording
    conversation: Conversation = unchecked(Conversation)(tuple(messages))
    object.__setattr__(conversation, "_growth", Growth(list(messages), pairing))
    object.__setattr__(conversation, "_size", len(messages))
    return conversation


def trusted(messages: Sequence[Message]) -> Conversation:
    """A conversation of messages taken from a valid one with their pairing kept, built without a check.

    ``window`` keeps whole turns, and ``prune`` keeps every tool block where it was: what they build pairs as
    the conversation they read did, so checking it again would only repeat that check. The properties in
    ``tests/test_history_properties.py`` check every result again.
    """
    return unchecked(Conversation)(tuple(messages))  # type: ignore[no-any-return]
