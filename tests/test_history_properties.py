"""Properties of the history transforms over generated histories, for every provider with a ``preflight``.

Histories come from the shipped strategies (tool pairs, late answers, unanswered calls, reasoning of every
shape), broken the way trimmed and replayed histories are: messages dropped (orphan results, unanswered calls)
and the history repeated (duplicate call ids). For each provider:

- ``repair`` gives a valid ``Conversation`` that the provider's ``preflight`` accepts once a user turn is
  appended, but for the content rules below (no transform of the history's shape can help them);
- ``window`` and ``prune`` keep a repaired history acceptable, keep its newest user turn, and report nothing
  lost that is still there;
- each changes nothing more when applied twice.

The content rules left out are about blocks a provider cannot carry, whatever the history's shape: an
assistant message whose only content Chat Completions does not take as content (a refusal, reasoning), an
image type it does not read, and a message nothing of which Gemini can send (reasoning state another issuer
signed). ``preflight`` still names
them, at their paths.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks._history._turns import turn_starts
from contentblocks.providers import Converted, anthropic, gemini, openai_chat, openai_responses

PREFLIGHT: dict[str, Callable[..., tuple[Any, ...]]] = {
    "anthropic": anthropic.preflight,
    "gemini": gemini.preflight,
    "openai_chat": openai_chat.preflight,
    "openai_responses": openai_responses.preflight,
}
CONTENT_RULES = frozenset({"openai_chat/assistant-content", "openai_chat/image-type", "gemini/content-has-parts"})
PROVIDERS = st.sampled_from(sorted(PREFLIGHT))
NEXT = cb.Message(role="user", content="And now?")


@st.composite
def broken_histories(draw: st.DrawFn) -> list[cb.Message]:
    """A generated history after a careless trim, replay or reorder: messages dropped, repeated or swapped.

    It starts with a user message, as every real history does (Gemini refuses a first model turn with calls).
    """
    messages = list(draw(strategies.conversations(max_messages=10)).messages)
    if draw(st.booleans()):
        messages += messages  # every call id used twice
    kept = draw(st.lists(st.booleans(), min_size=len(messages), max_size=len(messages)))
    messages = [m for m, k in zip(messages, kept, strict=True) if k]
    if len(messages) > 1:  # a result after a later message, or before its call
        for i in draw(st.lists(st.integers(0, len(messages) - 2), max_size=3)):
            messages[i], messages[i + 1] = messages[i + 1], messages[i]
    return [cb.Message(role="user", content="Start."), *messages]


def _shape_rejections(provider: str, history: cb.Conversation) -> list[str]:
    found = PREFLIGHT[provider](cb.Conversation(messages=[*history, NEXT]))
    return [str(r) for r in found if r.rule not in CONTENT_RULES]


def _lost_blocks_gone(before: cb.Conversation | list[cb.Message], after: Converted[cb.Conversation]) -> None:
    """No block or message reported dropped is in the result.

    Objects are counted by identity (an equal copy elsewhere is another block), and a history may hold one
    object twice (a replayed one): each dropped one must leave one fewer in the result.
    """
    def count(items: Any) -> Counter[int]:
        return Counter(map(id, items))

    messages, blocks = count(before), count(b for m in before for b in m.content)
    present_messages, present_blocks = count(after.payload), count(b for m in after.payload for b in m.content)
    for loss in after.losses:
        if loss.kind != "content_dropped":
            continue
        head, _, tail = loss.path.partition(".")
        i = int(head[2:-1])
        if not tail:
            messages[id(before[i])] -= 1
        elif tail.startswith("content[") and tail.endswith("]") and "." not in tail:
            blocks[id(before[i].content[int(tail[8:-1])])] -= 1
    assert all(present_messages[k] <= n for k, n in messages.items()), "a dropped message is still there"
    assert all(present_blocks[k] <= n for k, n in blocks.items()), "a dropped block is still there"


def _valid(result: Converted[cb.Conversation]) -> None:
    """The result is what a check of its messages builds (window and prune build it without one)."""
    assert cb.Conversation(messages=list(result.payload.messages)) == result.payload


def _user_texts(history: Any) -> list[str]:
    """The texts of the user's turns (a turn of approval decisions alone is none: repair may take it out)."""
    return [m.text() for m in history
            if m.role == "user" and not all(isinstance(b, cb.ApprovalResponseBlock) for b in m.content)]


@settings(max_examples=100)
@given(broken_histories(), PROVIDERS, st.sampled_from(["failed", "denied", "drop"]))
def test_repair_makes_a_history_the_provider_accepts(messages: list[cb.Message], provider: str, how: Any) -> None:
    repaired = cb.repair(messages, unanswered=how, provider=provider)  # type: ignore[arg-type]
    assert isinstance(repaired.payload, cb.Conversation)
    assert _shape_rejections(provider, repaired.payload) == []
    assert repaired.payload.pending_tool_calls() == ()
    assert _user_texts(repaired.payload) == _user_texts(messages)
    _lost_blocks_gone(messages, repaired)
    again = cb.repair(repaired.payload, unanswered=how, provider=provider)  # type: ignore[arg-type]
    assert again.losses == ()
    assert again.payload is repaired.payload
    assert cb.repair(list(repaired.payload), unanswered=how, provider=provider).losses == ()  # type: ignore[arg-type]


@given(broken_histories(), PROVIDERS, st.integers(0, 40), st.booleans(), st.booleans())
def test_window_keeps_a_repaired_history_acceptable(
    messages: list[cb.Message], provider: str, budget: int, tokens: bool, pin: bool
) -> None:
    history = cb.repair(messages, provider=provider).payload  # type: ignore[arg-type]
    estimator = cb.TokenEstimator(provider) if tokens else None
    budget = budget * 40 if tokens else budget
    keep = (lambda m: m.role == "assistant" and len(m.content) > 2) if pin else None
    cut = cb.window(history, budget=budget, estimator=estimator, keep=keep)
    _valid(cut)
    assert _shape_rejections(provider, cut.payload) == []
    users = [m for m in history if m.role == "user"]
    assert users[-1] in cut.payload.messages, "the newest user turn is kept"
    assert cut.payload[-1] is history[-1]
    assert [m for m in history if m.role in ("system", "developer")] == [
        m for m in cut.payload if m.role in ("system", "developer")
    ]
    first = next(m for m in cut.payload if m.role not in ("system", "developer"))
    assert first.role == "user" or not cut.losses, "a cut history starts with a user turn"
    _lost_blocks_gone(history, cut)
    assert {loss.kind for loss in cut.losses} <= {"content_dropped"}
    again = cb.window(cut.payload, budget=budget, estimator=estimator, keep=keep)
    assert again.losses == ()
    assert again.payload is cut.payload


@given(broken_histories(), PROVIDERS, st.integers(0, 4))
def test_prune_keeps_a_repaired_history_acceptable(messages: list[cb.Message], provider: str, turns: int) -> None:
    history = cb.repair(messages, provider=provider).payload  # type: ignore[arg-type]
    pruned = cb.prune(history, keep_turns=turns)
    _valid(pruned)
    assert _shape_rejections(provider, pruned.payload) == []
    assert len(_user_texts(pruned.payload)) == len(_user_texts(history)), "no user message is dropped"
    if turns:
        newest = [m for m in history if m.role == "user"][-1]
        assert any(m is newest for m in pruned.payload), "the newest user turn is kept as it is"
    _lost_blocks_gone(history, pruned)
    assert {loss.kind for loss in pruned.losses} <= {"content_dropped", "state_not_replayed"}
    again = cb.prune(pruned.payload, keep_turns=turns)
    assert again.losses == ()
    assert again.payload is pruned.payload


@given(broken_histories(), PROVIDERS, st.integers(1, 30), st.integers(0, 3))
def test_the_transforms_compose(messages: list[cb.Message], provider: str, budget: int, turns: int) -> None:
    """An agent loop's order: repair what came in, prune the old, keep a window; the provider accepts it."""
    history = cb.repair(messages, provider=provider).payload  # type: ignore[arg-type]
    result = cb.window(cb.prune(history, keep_turns=turns).payload, budget=budget).payload
    assert _shape_rejections(provider, result) == []
    assert len(_user_texts(result)) >= 1


@settings(max_examples=100)
@given(strategies.conversations(max_messages=12), st.integers(0, 12), st.integers(0, 4))
def test_window_and_prune_never_split_a_call_from_a_late_result(
    history: cb.Conversation, budget: int, turns: int
) -> None:
    """A ``Conversation`` may answer a call after a user message: no cut falls between them."""
    cut = cb.window(history, budget=budget)
    _valid(cut)  # no result lost its call
    if cut.losses:
        assert len(history) > budget
        newest = history[turn_starts(history.messages)[-1] :]
        assert len(cut.payload) <= budget or [m for m in cut.payload if m.role not in ("system", "developer")] == [
            m for m in newest if m.role not in ("system", "developer")
        ], "over the budget only when the newest turn alone is"
    _lost_blocks_gone(history, cut)
    assert cb.window(cut.payload, budget=budget).losses == ()
    pruned = cb.prune(history, keep_turns=turns)
    _valid(pruned)
    assert [len(m.tool_results()) for m in pruned.payload if m.role == "tool"] == [
        len(m.tool_results()) for m in history if m.role == "tool"
    ]
    assert cb.prune(pruned.payload, keep_turns=turns).losses == ()
