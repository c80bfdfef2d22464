"""Where a history may be cut: turns that start with a user message and split no tool call from its result.

``window`` keeps the newest turns and ``prune`` shrinks the older ones; both need the same boundaries. A cut
may only fall before a user message (every provider accepts a history that starts with one, and several
refuse any other start), and never between a tool call and a later result answering it, which a
``Conversation`` allows across a user message (a late answer). One pass finds them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._conversion._unchecked import unchecked
from .._model._classes import Message
from .._model._conversation import Conversation, tool_summary
from .._model._growth import Growth

__all__ = ["conversation_argument", "conversation_turn_starts", "trusted", "turn_starts"]


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
    system messages or nothing). Linear: each call's message is remembered by id, and each result pushes the
    reach of the call it answers; a user message at or before the reach cannot start a turn.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    >>> late = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded")
    >>> turn_starts([cb.Message(role="system", content="Be brief."), cb.Message(role="user", content="a"),
    ...              cb.Message(role="assistant", content=[call]), cb.Message(role="user", content="b"),
    ...              cb.Message(role="tool", content=[late]), cb.Message(role="user", content="c")])
    [0, 1, 5]
    """
    reach = [-1] * len(messages)  # reach[m]: the last message answering a call of message m
    where: dict[str, int] = {}  # call id -> index of the message that made the call
    for m, tools in tool_summary(messages, 0):  # the messages with tool blocks only
        for is_call, call_id, _, _ in tools:
            if is_call:
                where[call_id] = m
            elif call_id in where:
                reach[where[call_id]] = m
    return _starts(messages, reach)


def _starts(messages: Sequence[Message], reach: list[int]) -> list[int]:
    starts = [0]
    furthest = -1  # the last message answering a call made before the current message
    for i, message in enumerate(messages):
        if i and message.role == "user" and furthest < i:
            starts.append(i)
        furthest = max(furthest, reach[i])
    return starts


def conversation_turn_starts(conversation: Conversation) -> list[int]:
    """``turn_starts`` of a conversation's messages, from the pairing its own check recorded (no block is read).

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
        calls, answers = growth.pairing.calls, growth.pairing.answers
        pairs = [(calls[call_id][1], m) for call_id, m in answers.items() if m < size]
    reach = [-1] * size
    for m, answered in pairs:
        reach[m] = max(reach[m], answered)
    return _starts(messages, reach)


def trusted(messages: Sequence[Message]) -> Conversation:
    """A conversation of messages taken from a valid one with their pairing kept, built without a check.

    ``window`` keeps whole turns, and ``prune`` keeps every tool block where it was: what they build pairs as
    the conversation they read did, so checking it again would only repeat that check. The properties in
    ``tests/test_history_properties.py`` check every result again.
    """
    return unchecked(Conversation)(tuple(messages))  # type: ignore[no-any-return]
