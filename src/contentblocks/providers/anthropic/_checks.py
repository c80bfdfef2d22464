"""The pre-send checks: what the Messages API would refuse in the request ``to_provider`` writes.

The checks read the payload itself, so they see what is really sent (a reasoning block dropped for its issuer,
a tool message joined to the user message after it), and report each problem at the neutral path of the block
that causes it. Consecutive messages of the same role count as one turn, because the API combines them.
Each rule is stated in Anthropic's documentation; the docs page lists the source of each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from .._contract import Rejection
from ._write import Written

__all__ = ["MAX_MESSAGES", "RULES", "check"]

#: "There is a limit of 100,000 messages in a single request." (the Messages API reference, ``messages``)
MAX_MESSAGES = 100_000

#: Every rule ``preflight`` checks, by id.
RULES = (
    "anthropic/tool-result-after-call",
    "anthropic/tool-results-first",
    "anthropic/tool-use-answered",
    "anthropic/thinking-before-tool-use",
    "anthropic/prefill-trailing-whitespace",
    "anthropic/message-limit",
    "anthropic/native-block-replayable",
)

_THINKING = frozenset({"thinking", "redacted_thinking"})


class _Turn(NamedTuple):
    """Consecutive payload messages of one role, as the API sees them: their blocks and where each came from."""

    role: str
    blocks: list[dict[str, Any]]
    origins: list[str]


def _turns(written: Written) -> list[_Turn]:
    turns: list[_Turn] = []
    for message, origins in zip(written.payload["messages"], written.origins, strict=True):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if type(content) is str else content
        if turns and turns[-1].role == message["role"]:
            turns[-1].blocks.extend(blocks)
            turns[-1].origins.extend(origins)
        else:
            turns.append(_Turn(message["role"], list(blocks), list(origins)))
    return turns


def _of_type(turn: _Turn, kind: str) -> Iterator[tuple[dict[str, Any], str]]:
    return ((block, at) for block, at in zip(turn.blocks, turn.origins, strict=True) if block.get("type") == kind)


def _tool_results(turns: list[_Turn], n: int) -> Iterator[Rejection]:
    """Results answer the calls of the turn just before, and come before anything else in their turn."""
    turn = turns[n]
    before = turns[n - 1] if n and turns[n - 1].role == "assistant" else None
    calls = {block.get("id") for block, _ in _of_type(before, "tool_use")} if before else set()
    for block, at in _of_type(turn, "tool_result"):
        if block.get("tool_use_id") not in calls:
            yield Rejection(
                at,
                "anthropic/tool-result-after-call",
                "a tool result must come in the user turn right after the assistant turn that made its call",
            )
    seen_other = False
    for block, at in zip(turn.blocks, turn.origins, strict=True):
        if block.get("type") != "tool_result":
            seen_other = True
        elif seen_other:
            yield Rejection(
                at, "anthropic/tool-results-first", "tool results must come first in their turn, before any other block"
            )


def _answered(turns: list[_Turn], n: int) -> Iterator[Rejection]:
    """Every call of an assistant turn is answered by the turn right after it (when there is one)."""
    after = turns[n + 1] if n + 1 < len(turns) else None
    if after is None:
        return
    answers = (
        {block.get("tool_use_id") for block, _ in _of_type(after, "tool_result")} if after.role == "user" else set()
    )
    for block, at in _of_type(turns[n], "tool_use"):
        if block.get("id") not in answers:
            yield Rejection(
                at, "anthropic/tool-use-answered", "a tool call must be answered by a tool result in the next turn"
            )


def _thinking_first(turns: list[_Turn]) -> Iterator[Rejection]:
    """With thinking on, the last assistant turn, when it calls a tool, starts with its thinking."""
    last = next((turn for turn in reversed(turns) if turn.role == "assistant"), None)
    if last is None or not any(True for _ in _of_type(last, "tool_use")):
        return
    if last.blocks[0].get("type") not in _THINKING:
        yield Rejection(
            last.origins[0],
            "anthropic/thinking-before-tool-use",
            "with thinking on, the last assistant turn must start with its thinking block, sent back unchanged",
        )


def _prefill(turns: list[_Turn]) -> Iterator[Rejection]:
    """A final assistant turn (a prefill) must not end with whitespace."""
    if not turns or turns[-1].role != "assistant":
        return
    block, at = turns[-1].blocks[-1], turns[-1].origins[-1]
    text = block.get("text") if block.get("type") == "text" else None
    if type(text) is str and text != text.rstrip():
        yield Rejection(
            at, "anthropic/prefill-trailing-whitespace", "a final assistant turn must not end with whitespace"
        )


def check(written: Written, *, thinking: bool) -> tuple[Rejection, ...]:
    """Every rule's rejections for a written request: turn by turn, then those about the last turns and the size."""
    turns = _turns(written)
    found: list[Rejection] = []
    for n, turn in enumerate(turns):
        if turn.role == "user":
            found.extend(_tool_results(turns, n))
        elif turn.role == "assistant":
            found.extend(_answered(turns, n))
    if thinking:
        found.extend(_thinking_first(turns))
    found.extend(_prefill(turns))
    if len(written.payload["messages"]) > MAX_MESSAGES:
        found.append(Rejection("$", "anthropic/message-limit", f"a request holds at most {MAX_MESSAGES:,} messages"))
    found.extend(_native_refused(written))
    return tuple(found)


def _native_refused(written: Written) -> Iterator[Rejection]:
    """JSON blocks flagged ``anthropic/native_block`` that are not sent as blocks (see ``providers._native``)."""
    for at, reason in written.refused:
        yield Rejection(at, "anthropic/native-block-replayable", f"not sent as an Anthropic block: {reason}")
