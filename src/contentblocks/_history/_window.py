"""Window: the newest turns of a history that fit a budget, cut where every provider accepts the cut."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._model._classes import Message
from .._model._conversation import Conversation
from ..providers._contract import Converted, Loss
from ._turns import conversation_argument, conversation_turn_starts, trusted

__all__ = ["window"]

_PINNED_ROLES = frozenset({"system", "developer"})


def _budget(value: object) -> int:
    if type(value) is not int or value < 0:
        msg = f"budget must be a non-negative int, got {value!r}"
        raise ValueError(msg)
    return value


class _Costs:
    """Each message's cost, asked of the estimator once, and only for the messages the window needs.

    The newest messages are costed first: once they are over the budget, the older ones that are not
    pinned can only be left out, and are never estimated.
    """

    def __init__(self, messages: Sequence[Message], estimator: Callable[[Message], int] | None) -> None:
        self.messages = messages
        self.estimator = estimator
        self.known: list[int | None] = [None] * len(messages)

    def __getitem__(self, i: int) -> int:
        cost = self.known[i]
        if cost is None:
            cost = 1 if self.estimator is None else self.estimator(self.messages[i])
            if type(cost) is not int or cost < 0:
                msg = f"the estimator must return a non-negative int for each message, got {cost!r}"
                raise ValueError(msg)
            self.known[i] = cost
        return cost

    def fits(self, limit: int) -> bool:
        """Whether the whole history's cost is within ``limit``, costing from the newest message on."""
        if self.estimator is None:
            return len(self.messages) <= limit
        spent = 0
        for i in range(len(self.messages) - 1, -1, -1):
            spent += self[i]
            if spent > limit:
                return False
        return True


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
      that its calls keep their results);
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
    starts = conversation_turn_starts(conversation)
    turns = list(zip(starts, [*starts[1:], len(messages)], strict=True))
    pinned = [keep is not None and any(keep(messages[i]) for i in range(start, end)) for start, end in turns]
    first = _first_kept(messages, costs, turns, pinned, limit)
    kept: list[Message] = []
    losses: list[Loss] = []
    for t, (start, end) in enumerate(turns):
        whole = t >= first or pinned[t]
        for i in range(start, end):
            message = messages[i]
            if whole or message.role in _PINNED_ROLES:
                kept.append(message)
            else:
                losses.append(Loss(f"$[{i}]", "an older message outside the window's budget", "content_dropped"))
    if not losses:
        return Converted(conversation)
    return Converted(trusted(kept), tuple(losses))


def _first_kept(
    messages: Sequence[Message], costs: _Costs, turns: list[tuple[int, int]], pinned: list[bool], limit: int
) -> int:
    """The oldest turn of the kept tail: the newest turn, then older ones while they fit beside what is kept."""

    def cost(start: int, end: int, *, pinned_roles: bool) -> int:
        return sum(costs[i] for i in range(start, end) if (messages[i].role in _PINNED_ROLES) is pinned_roles)

    last = len(turns) - 1
    spent = sum(cost(start, end, pinned_roles=True) for start, end in turns)  # system and developer messages
    spent += sum(cost(start, end, pinned_roles=False) for t, (start, end) in enumerate(turns) if pinned[t] or t == last)
    first = last
    while first > 0:
        t = first - 1
        if not pinned[t]:
            extra = cost(*turns[t], pinned_roles=False)
            if spent + extra > limit:
                break
            spent += extra
        first = t
    return first
