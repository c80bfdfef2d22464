"""What a conversation grows along: its messages so far and their tool-call pairing (SPEC §4).

Call ids are unique across a conversation; each tool result answers an earlier call with the same id and
name that no earlier result answered. ``ToolPairing`` holds, for the first ``length`` messages of a
conversation, every call (its tool name and where it is), every answer (the message that holds it) and the
calls still open.

A conversation and the conversations grown from it share one ``Growth`` while they grow in a line: the
newest one extends its message list and pairing in place, and an older one still reads them correctly, since
it knows its own length and every pairing entry records the message it came from. Growing an older
conversation a second way (a branch) copies what it can see into a ``Growth`` of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["Growth", "ToolBlockSummary", "ToolPairing"]

ToolBlockSummary = tuple[int, Sequence[tuple[bool, str, str, int]]]
"""One message's tool blocks: its index and, per tool block, ``(is_call, tool_call_id, tool_name, index)``."""


class ToolPairing:
    """The tool calls and answers of a conversation's first ``length`` messages.

    >>> pairing = ToolPairing()
    >>> problems = []
    >>> pairing.extend(problems, [(0, [(True, "c1", "f", 0)]), (1, [(False, "c1", "g", 0)])], 2)
    >>> problems
    [('$[1].content[0].tool_name', 'tool result names another tool than its call')]
    >>> pairing.length
    0
    """

    __slots__ = ("answers", "calls", "length", "open")

    def __init__(self) -> None:
        #: call id -> (tool name, message index, block index)
        self.calls: dict[str, tuple[str, int, int]] = {}
        #: call id -> index of the message whose result answered it
        self.answers: dict[str, int] = {}
        #: the calls of the first ``length`` messages not answered among them, in order (a dict as ordered set)
        self.open: dict[str, None] = {}
        self.length = 0

    def extend(self, problems: list[tuple[str, str]], summary: Iterable[ToolBlockSummary], length: int) -> None:
        """Check the tool blocks of the messages from ``self.length`` on, then record them unless a problem arose.

        ``summary`` lists those messages' tool blocks, with message indexes counted from the conversation's
        start; ``length`` is the conversation's length once they are in. Problems are worded and placed as a
        check of the whole conversation places them.
        """
        calls, answers = self.calls, self.answers
        new_calls: dict[str, tuple[str, int, int]] = {}
        new_answers: dict[str, int] = {}
        before = len(problems)
        for m, items in summary:
            for is_call, call_id, name, b in items:
                if is_call:
                    if call_id in calls or call_id in new_calls:
                        message = "tool call id is used by an earlier tool call"
                        problems.append((f"$[{m}].content[{b}].tool_call_id", message))
                    else:
                        new_calls[call_id] = (name, m, b)
                    continue
                call = calls.get(call_id) or new_calls.get(call_id)
                if call is None:
                    problems.append((f"$[{m}].content[{b}].tool_call_id", "tool result answers no earlier tool call"))
                elif call_id in answers or call_id in new_answers:
                    message = "tool call was already answered by an earlier result"
                    problems.append((f"$[{m}].content[{b}].tool_call_id", message))
                else:
                    new_answers[call_id] = m
                    if call[0] != name:
                        message = "tool result names another tool than its call"
                        problems.append((f"$[{m}].content[{b}].tool_name", message))
        if len(problems) == before:
            calls.update(new_calls)
            answers.update(new_answers)
            self.open.update(dict.fromkeys(new_calls))
            for call_id in new_answers:
                del self.open[call_id]
            self.length = length

    def prefix(self, length: int) -> ToolPairing:
        """A new pairing holding only what the first ``length`` messages hold (for growing a branch)."""
        copy = ToolPairing()
        copy.calls = {k: v for k, v in self.calls.items() if v[1] < length}
        copy.answers = {k: m for k, m in self.answers.items() if m < length}
        copy.open = dict.fromkeys(k for k in copy.calls if k not in copy.answers)
        copy.length = length
        return copy

    def pending(self, length: int) -> list[tuple[int, int]]:
        """Where the calls of the first ``length`` messages that no result among them answers are, in order.

        For the newest conversation of a line (``length`` is the pairing's own) this costs the open calls only.
        """
        calls, answers = self.calls, self.answers
        if length == self.length:
            return [calls[call_id][1:] for call_id in self.open]
        return [
            (m, b)
            for call_id, (_, m, b) in calls.items()
            if m < length and (call_id not in answers or answers[call_id] >= length)
        ]


class Growth:
    """A line of conversations grown one from another: the messages of the newest, and their pairing.

    The conversations of the line share it; ``lock`` is held while one of them grows it or reads its pairing.
    """

    __slots__ = ("lock", "messages", "pairing")

    def __init__(self, messages: list[Any], pairing: ToolPairing) -> None:
        self.messages = messages
        self.pairing = pairing
        self.lock = threading.Lock()

    def branch(self, length: int) -> Growth:
        """A new line holding the first ``length`` messages, for growing an older conversation another way."""
        return Growth(self.messages[:length], self.pairing.prefix(length))
