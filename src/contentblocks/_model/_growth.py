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

__all__ = ["ApprovalSummary", "Growth", "ToolBlockSummary", "ToolPairing"]

ToolBlockSummary = tuple[int, Sequence[tuple[bool, str, str, int]]]
"""One message's tool blocks: its index and, per tool block, ``(is_call, tool_call_id, tool_name, index)``."""

ApprovalSummary = tuple[int, Sequence[tuple[Any, int]], frozenset[str]]
"""One message's approval blocks: its index, each block with its index, and the ids of the message's calls."""


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

    __slots__ = ("answers", "approvals", "calls", "decisions", "length", "open")

    def __init__(self) -> None:
        #: call id -> (tool name, message index, block index)
        self.calls: dict[str, tuple[str, int, int]] = {}
        #: call id -> index of the message whose result answered it
        self.answers: dict[str, int] = {}
        #: the calls of the first ``length`` messages not answered among them, in order (a dict as ordered set)
        self.open: dict[str, None] = {}
        #: approval id -> (the call it names, message index, block index) of each approval request
        self.approvals: dict[str, tuple[str, int, int]] = {}
        #: approval id -> (approved, message index) of each response
        self.decisions: dict[str, tuple[bool, int]] = {}
        self.length = 0

    def extend(
        self,
        problems: list[tuple[str, str]],
        summary: Iterable[ToolBlockSummary],
        length: int,
        approvals: Iterable[ApprovalSummary] = (),
    ) -> None:
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
        new_approvals, new_decisions = self._approvals(problems, approvals)
        if len(problems) == before:
            self.approvals.update(new_approvals)
            self.decisions.update(new_decisions)
            calls.update(new_calls)
            answers.update(new_answers)
            self.open.update(dict.fromkeys(new_calls))
            for call_id in new_answers:
                del self.open[call_id]
            self.length = length

    def _approvals(
        self, problems: list[tuple[str, str]], summary: Iterable[ApprovalSummary]
    ) -> tuple[dict[str, tuple[str, int, int]], dict[str, tuple[bool, int]]]:
        """Check the approval blocks of new messages; the new requests and decisions, to record if all is well.

        Each request names a call of its own message by an id no earlier request took; each response answers an
        earlier request that no response answered.
        """
        approvals, decisions = self.approvals, self.decisions
        new_approvals: dict[str, tuple[str, int, int]] = {}
        new_decisions: dict[str, tuple[bool, int]] = {}
        for m, blocks, call_ids in summary:
            for block, b in blocks:
                approval_id = block.approval_id
                where = f"$[{m}].content[{b}]"
                if hasattr(block, "tool_call_id"):  # a request
                    if approval_id in approvals or approval_id in new_approvals:
                        problems.append((f"{where}.approval_id", "approval id is used by an earlier approval request"))
                    elif block.tool_call_id not in call_ids:
                        problems.append((f"{where}.tool_call_id", "approval request names no tool call of its message"))
                    else:
                        new_approvals[approval_id] = (block.tool_call_id, m, b)
                elif approval_id not in approvals and approval_id not in new_approvals:
                    problems.append((f"{where}.approval_id", "approval response answers no earlier approval request"))
                elif approval_id in decisions or approval_id in new_decisions:
                    message = "approval request was already answered by an earlier response"
                    problems.append((f"{where}.approval_id", message))
                else:
                    new_decisions[approval_id] = (block.approved, m)
        return new_approvals, new_decisions

    def awaiting(self, length: int) -> list[tuple[int, int]]:
        """Where the approval requests of the first ``length`` messages that no response among them answers are."""
        decisions = self.decisions
        return [
            (m, b)
            for approval_id, (_, m, b) in self.approvals.items()
            if m < length and (approval_id not in decisions or decisions[approval_id][1] >= length)
        ]

    def held(self, length: int) -> frozenset[str]:
        """The calls of the first ``length`` messages that must not run: their approval is awaited, or was denied."""
        if not self.approvals:
            return frozenset()
        decisions = self.decisions
        held = set()
        for approval_id, (call_id, m, _) in self.approvals.items():
            if m < length:
                decision = decisions.get(approval_id)
                if decision is None or decision[1] >= length or not decision[0]:
                    held.add(call_id)
        return frozenset(held)

    def prefix(self, length: int) -> ToolPairing:
        """A new pairing holding only what the first ``length`` messages hold (for growing a branch)."""
        copy = ToolPairing()
        copy.calls = {k: v for k, v in self.calls.items() if v[1] < length}
        copy.answers = {k: m for k, m in self.answers.items() if m < length}
        copy.open = dict.fromkeys(k for k in copy.calls if k not in copy.answers)
        copy.approvals = {k: v for k, v in self.approvals.items() if v[1] < length}
        copy.decisions = {k: v for k, v in self.decisions.items() if v[1] < length}
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
