"""Window: the newest turns of a history that fit a budget, cut where every provider accepts the cut."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import not_

from .._conversion._unchecked import unchecked
from .._model._classes import CompactionBlock, Message
from .._model._conversation import Conversation
from ..providers._contract import Converted, Loss
from ._turns import ROLE, conversation_argument, conversation_turn_starts, trusted

__all__ = ["window"]

_PINNED_ROLES = frozenset({"system", "developer"})
_DROPPED = "an older message outside the window's budget"
_new_loss = unchecked(Loss)  # each loss is of a valid kind: no check again


def _budget(value: object) -> int:
    if type(value) is not int or value < 0:
        msg = f"budget must be a non-negative int, got {value!r}"
        raise ValueError(msg)
    return value


class _Costs:
    """Each message's cost, asked of the estimator once, and only for the messages the window needs.

    The newest messages are costed first: once they are over the budget, the older ones that are not
    pinned can only be left out, and are never estimated. What is costed is a run from the newest message
    back (``known[start:]``), grown a turn at a time, and the few system and developer messages before it.
    """

    def __init__(self, messages: Sequence[Message], estimator: Callable[[Message], int] | None) -> None:
        self.messages = messages
        self.estimator = estimator
        self.known: list[int] = [1] * len(messages)  # every message costs 1 when the budget counts messages
        self.start = 0 if estimator is None else len(messages)  # known[start:] is costed
        self.alone: dict[int, int] = {}  # the cost of a message before ``start``, costed on its own
        self.waiting: list[int] = []  # the messages of ``alone`` that the run has not reached, in order

    def __getitem__(self, i: int) -> int:
        if i >= self.start:
            return self.known[i]
        cost = self.alone.get(i)
        if cost is None:
            cost = self.alone[i] = _checked([self.estimator(self.messages[i])])[0]  # type: ignore[misc]
            insort(self.waiting, i)
        return cost

    def run(self, start: int, end: int, *, apart: bool = False) -> int:
        """The cost of messages ``start`` to ``end``: the run grown back to ``start``, or each alone (``apart``)."""
        if apart and end < self.start:  # a pinned turn before the run: the messages between need no cost
            return sum(self[i] for i in range(start, end))
        if start < self.start:
            part = self.messages[start : self.start]
            alone, waiting = self.alone, self.waiting
            if waiting and waiting[-1] >= start:  # the run reaches messages costed alone: not costed again
                costs = [alone[i] if i in alone else self.estimator(m)  # type: ignore[misc]
                         for i, m in enumerate(part, start)]
                del waiting[bisect_left(waiting, start) :]
            else:
                costs = list(map(self.estimator, part))  # type: ignore[arg-type]
            self.known[start : self.start] = _checked(costs)
            self.start = start
        return sum(self.known[start:end])

    def fits(self, limit: int) -> bool:
        """Whether the whole history's cost is within ``limit``, costing from the newest message on."""
        if self.estimator is None:
            return len(self.messages) <= limit
        spent = 0
        costs: list[int] = []
        for cost in map(self.estimator, reversed(self.messages)):
            if type(cost) is not int or cost < 0:
                _checked([cost])
            costs.append(cost)
            spent += cost
            if spent > limit:
                break
        costs.reverse()
        self.start -= len(costs)
        self.known[self.start :] = costs
        return spent <= limit


def _checked(costs: list[int]) -> list[int]:
    """``costs``, once each is a non-negative int (``ValueError`` otherwise)."""
    if costs and (not {int}.issuperset(map(type, costs)) or min(costs) < 0):
        bad = next(c for c in costs if type(c) is not int or c < 0)
        msg = f"the estimator must return a non-negative int for each message, got {bad!r}"
        raise ValueError(msg)
    return costs


def window(
    conversation: Conversation | Sequence[Message],
    *,
    budget: int,
    estimator: Callable[[Message], int] | None = None,
    keep: Callable[[Message], bool] | None = None,
) -> Converted[Conversation]:
    """The newest turns of a history that fit ``budget``, and a loss for each message left out.

    The budget counts messages, or tokens when ``estimator`` (a callable from a message to its cost, such
    as :class:`~contentblocks.TokenEstimator`) is given; it is called once for each message the window
    needs, newest first, and not for the older messages it leaves out once the newest are over the budget.
    The history is cut into turns, each starting at a user message (every provider accepts a history that
    starts with one) and never between a tool call and its result (nor, since they share a message, between
    reasoning and the calls it signed); the newest turns are kept, as many as fit with what is always kept:

    - ``system`` and ``developer`` messages, wherever they are;
    - every turn holding a message ``keep`` returns true for (a pinned message keeps its whole turn, so
      that its calls keep their results), unless it is older than the latest compaction, which stands for
      everything before it: no turn before a compaction is kept while the compaction is left out;
    - the newest turn, even when it alone is over the budget: a history without its last question is of no
      use (the result is then over the budget; a caller that must not exceed it checks the estimate).

    The messages keep their order. A history that fits comes back as it is, so a second window with the
    same budget changes nothing. Each message left out is a ``content_dropped`` loss at its path. A history
    that ``repair`` made acceptable to a provider stays acceptable to it.

    >>> import contentblocks as cb
    >>> history = cb.Conversation(messages=[cb.Message(role="system", content="Be brief."),
    ...     *[cb.Message(role=role, content=f"{role} {n}") for n in range(3) for role in ("user", "assistant")]])
    >>> cut = cb.window(history, budget=3)
    >>> [m.text() for m in cut.payload]
    ['Be brief.', 'user 2', 'assistant 2']
    >>> [loss.path for loss in cut.losses]
    ['$[1]', '$[2]', '$[3]', '$[4]']

    .. versionadded:: 2026.12.0
    """
    conversation = conversation_argument(conversation, "window")
    limit = _budget(budget)
    messages = conversation.messages
    costs = _Costs(messages, estimator)
    if costs.fits(limit):
        return Converted(conversation)
    roles = list(map(ROLE, messages))
    starts = conversation_turn_starts(conversation, roles)
    ends = [*starts[1:], len(messages)]
    always = list(compress(range(len(roles)), map(_PINNED_ROLES.__contains__, roles)))  # system, developer
    pinned: set[int] = set()  # the turns holding a message ``keep`` returns true for
    if keep is not None:
        marks = list(map(keep, messages))
        pinned = {t for t, (start, end) in enumerate(zip(starts, ends, strict=True)) if any(marks[start:end])}
        pinned = _after_compaction(messages, starts, pinned)
    first = _first_kept(costs, starts, ends, always, pinned, limit)
    cut = starts[first]
    kept_before = bytearray(cut)  # which of the messages before the kept tail stay
    for i in always:
        if i >= cut:
            break
        kept_before[i] = 1
    for t in pinned:
        if t < first:
            kept_before[starts[t] : ends[t]] = b"\x01" * (ends[t] - starts[t])
    dropped = list(compress(range(cut), map(not_, kept_before)))
    if not dropped:
        return Converted(conversation)
    kept = [*compress(messages[:cut], kept_before), *messages[cut:]]
    losses = tuple(map(_new_loss, map("$[{}]".format, dropped), repeat(_DROPPED), repeat("content_dropped")))
    return Converted(trusted(kept), losses)


def _after_compaction(messages: Sequence[Message], starts: list[int], pinned: set[int]) -> set[int]:
    """The pinned turns that are not older than the turn of the latest compaction.

    A compaction stands for everything before it (the provider that made it ignores what precedes it), so a
    turn before it is never kept while the compaction's own turn is left out: older pins are let go. The
    history is scanned from the newest message back, and only when something is pinned.
    """
    if not pinned:
        return pinned
    for i in range(len(messages) - 1, starts[min(pinned)], -1):
        if any(type(block) is CompactionBlock for block in messages[i].content):
            turn = bisect_left(starts, i + 1) - 1  # the turn holding message i
            return {t for t in pinned if t >= turn}
    return pinned


def _first_kept(costs: _Costs, starts: list[int], ends: list[int], always: list[int], pinned: set[int],
                limit: int) -> int:
    """The oldest turn of the kept tail: the newest turn, then older ones while they fit beside what is kept."""

    def cost(t: int) -> int:  # a turn's messages but its system and developer ones, counted in ``spent``
        start, end = starts[t], ends[t]
        total = costs.run(start, end, apart=t in pinned)
        for k in range(bisect_left(always, start), bisect_left(always, end)):
            total -= costs[always[k]]
        return total

    last = len(starts) - 1
    spent = sum(costs[i] for i in always)  # system and developer messages
    spent += sum(cost(t) for t in sorted(pinned | {last}, reverse=True))
    first = last
    while first > 0:
        t = first - 1
        if t not in pinned:
            extra = cost(t)
            if spent + extra > limit:
                break
            spent += extra
        first = t
    return first
