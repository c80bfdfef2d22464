"""The history transforms on a long history, each against one ``Conversation`` check of the same history.

    python bench/history.py            # 10,000 messages
    python bench/history.py --quick    # 2,000 messages
    python bench/history.py --messages 50000 --repeats 3

The history is an agent's: each turn of four messages is a user question, an assistant message with reasoning
and a tool call, the tool's result and the answer; every tenth question carries an image. The check is
``Conversation(messages=...)`` of that list, what any code holding the history already pays. Each transform
runs on the checked conversation (its result is checked again when it changes: that is in its time):

- ``repair``: a history that needs nothing (one pass to pair, one to write, no new conversation);
- ``repair, broken``: the same list with every 50th tool message moved after the next user message and
  every 100th call left unanswered (results moved, stand-ins written, a new conversation checked);
- ``window``: a budget of half the messages; ``window, tokens``: half the estimated tokens, with the estimate
  (one estimator across the repeats, as an agent loop keeps one); ``window, new estimator``: the same with a
  new estimator each run, so no message's cost is known beforehand;
- ``prune``: everything older than the last ten turns pruned.

Times are the median and the best of the repeats, after one warm-up run, the operations taken in turn in each
repeat so that a busy machine slows them alike; each ratio is over the check's. On a shared machine the best is
the steadier figure (as ``timeit`` advises: slower runs come from other processes, not from the code).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import contentblocks as cb

_PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x02\x00\x00\x00\x01\x80\x08\x02\x00\x00\x00" + bytes(64))


def history(turns: int) -> list[cb.Message]:
    messages: list[cb.Message] = [cb.Message(role="system", content="You look things up.")]
    for i in range(turns):
        question: list[Any] = [cb.TextBlock(text=f"Question {i}: what is item {i}?")]
        if i % 10 == 0:
            question.append(cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=_PNG)))
        call = cb.ToolCallBlock(tool_call_id=f"call_{i}", tool_name="lookup", input={"item": i})
        found = cb.ToolResultBlock(tool_call_id=f"call_{i}", tool_name="lookup", outcome="succeeded",
                                   content=[cb.TextBlock(text=f"Item {i} is described here at some length.")])
        messages += [
            cb.Message(role="user", content=question),
            cb.Message(role="assistant", content=[cb.ReasoningBlock(text="Look it up."), call]),
            cb.Message(role="tool", content=[found]),
            cb.Message(role="assistant", content=f"Item {i} is described."),
        ]
    return messages


def broken(messages: list[cb.Message]) -> list[cb.Message]:
    """Every 50th turn's result after the next question, every 100th turn's result gone."""
    out = list(messages)
    turns = (len(out) - 1) // 4
    for t in range(turns - 2, 0, -1):
        tool_at = 1 + 4 * t + 2
        if t % 100 == 0:
            del out[tool_at]
        elif t % 50 == 0:
            out.insert(tool_at + 3, out.pop(tool_at))  # after the answer and the next question
    return out


def timings(runs: list[Callable[[], object]], repeats: int) -> list[list[float]]:
    """Each run's times, the runs taken in turn in every repeat (a busy machine slows them alike)."""
    for run in runs:
        run()
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, spent in zip(runs, times, strict=True):
            gc.collect()
            start = time.perf_counter()
            run()
            spent.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="2,000 messages")
    args = parser.parse_args()
    size = 2_000 if args.quick else args.messages
    messages = history(size // 4)
    conversation = cb.Conversation(messages=messages)
    damaged = broken(messages)
    estimator = cb.TokenEstimator("anthropic")
    tokens = sum(map(estimator, conversation))
    cases: list[tuple[str, Callable[[], object]]] = [
        ("Conversation check", lambda: cb.Conversation(messages=messages)),
        ("repair", lambda: cb.repair(conversation)),
        ("repair, broken", lambda: cb.repair(damaged)),
        ("window", lambda: cb.window(conversation, budget=len(messages) // 2)),
        ("window, tokens", lambda: cb.window(conversation, budget=tokens // 2, estimator=estimator)),
        ("window, new estimator", lambda: cb.window(conversation, budget=tokens // 2,
                                                    estimator=cb.TokenEstimator("anthropic"))),
        ("prune", lambda: cb.prune(conversation, keep_turns=10)),
    ]
    print(f"{len(messages):,} messages ({len(damaged):,} broken), {args.repeats} repeats, "
          f"speedups {'on' if cb.speedups_enabled() else 'off'}")
    print(f"{'operation':<24}{'median ms':>10}{'x check':>9}{'best ms':>10}{'x check':>9}")
    times = timings([run for _, run in cases], args.repeats)
    medians, bests = [statistics.median(t) for t in times], [min(t) for t in times]
    for (name, _), median, best in zip(cases, medians, bests, strict=True):
        print(f"{name:<24}{median * 1000:>10.2f}{median / medians[0]:>9.2f}{best * 1000:>10.2f}{best / bests[0]:>9.2f}")


if __name__ == "__main__":
    main()
