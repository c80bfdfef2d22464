"""How the streaming fold grows: one-character deltas folded into a reply, at doubling stream lengths.

    python bench/streaming.py                              # the table, up to 200,000 deltas (median of 5 runs)
    python bench/streaming.py --quick                      # small sizes, one run: a smoke test of the script
    python bench/streaming.py --render docs/streaming.md   # also write the table between the markers there

Appending is amortised O(1) (a block's text is a list of pieces, joined once when read), so the time per delta
stays flat as the stream doubles, and the whole fold grows linearly. Events are built before the clock starts;
what is timed is ``ReplyBuilder.feed`` plus ``reply()``, which joins the pieces and builds the blocks. The full
run exits with status 1 when the largest stream costs more than twice as much per delta as the smallest (a
quadratic fold would cost 16 times as much). This is a benchmark, not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from markers import write_between

from contentblocks import speedups_enabled
from contentblocks.streaming import (
    ArgumentsAppended,
    BlockEnded,
    BlockStarted,
    ReasoningAppended,
    ReplyBuilder,
    ReplyStopped,
    SignatureAppended,
    StreamEvent,
    TextAppended,
)

START = "<!-- streaming-benchmark:start -->"
END = "<!-- streaming-benchmark:end -->"
FULL_SIZES = (12_500, 25_000, 50_000, 100_000, 200_000)
QUICK_SIZES = (1_000, 2_000, 4_000)
LINEAR_SLACK = 2.0  # the largest stream may cost at most this many times more per delta than the smallest


def text_stream(n: int) -> list[StreamEvent]:
    """One text block growing by ``n`` one-character deltas."""
    return [BlockStarted(0, "text"), *(TextAppended(0, "a") for _ in range(n)), BlockEnded(0),
            ReplyStopped("end_turn", "end_turn")]


def arguments_stream(n: int) -> list[StreamEvent]:
    """One tool call whose JSON arguments (``n`` characters) arrive one character at a time."""
    text = json.dumps({"query": "x" * (n - 13)})
    assert len(text) == n
    return [BlockStarted(0, "tool_call", tool_call_id="call_1", tool_name="search"),
            *(ArgumentsAppended(0, ch) for ch in text), BlockEnded(0), ReplyStopped("tool_use", "tool_use")]


def reasoning_stream(n: int) -> list[StreamEvent]:
    """Reasoning text and its signature, ``n`` deltas in all, alternating one character each."""
    half = n // 2
    deltas = [e for _ in range(half) for e in (ReasoningAppended(0, "r"), SignatureAppended(0, "s"))]
    return [BlockStarted(0, "reasoning"), *deltas, BlockEnded(0), ReplyStopped("end_turn", "end_turn")]


CASES: dict[str, Callable[[int], list[StreamEvent]]] = {
    "text, one character per delta": text_stream,
    "tool-call arguments, one character per delta": arguments_stream,
    "reasoning and signature, interleaved": reasoning_stream,
}


def fold_seconds(events: list[StreamEvent], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        builder = ReplyBuilder("anthropic")
        builder.feed(events)
        builder.reply()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(sizes: tuple[int, ...], repeat: int) -> dict[str, list[tuple[int, float]]]:
    results: dict[str, list[tuple[int, float]]] = {}
    for name, build in CASES.items():
        rows = []
        for n in sizes:
            events = build(n)
            rows.append((n, fold_seconds(events, repeat)))
            del events
        results[name] = rows
    return results


def growth(rows: list[tuple[int, float]]) -> float:
    """Per-delta cost of the largest stream over that of the smallest (1.0 is perfectly linear)."""
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    return (t1 / n1) / (t0 / n0)


def table(results: dict[str, list[tuple[int, float]]], repeat: int) -> str:
    accelerator = "with" if speedups_enabled() else "without"
    lines = [(f"Median of {repeat} run(s); CPython {platform.python_version()} on {platform.machine()} "
              f"({platform.system()}), {accelerator} the C accelerator. Events are built before timing."), "",
             "| stream | deltas | fold | per delta | per delta vs the smallest |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, rows in results.items():
        n0, t0 = rows[0]
        for n, seconds in rows:
            ratio = (seconds / n) / (t0 / n0)
            lines.append(f"| {name} | {n:,} | {seconds * 1000:,.1f} ms | {seconds / n * 1e9:,.0f} ns | {ratio:.2f}x |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and one run; no verdict on growth")
    parser.add_argument("--repeat", type=int, default=None, help="runs per size (5, or 1 with --quick)")
    parser.add_argument("--render", type=Path, help="write the table between the markers in this Markdown file")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 5)
    results = measure(QUICK_SIZES if args.quick else FULL_SIZES, repeat)
    text = table(results, repeat)
    print(text)
    if args.render:
        write_between(args.render, START, END, text)
    if args.quick:
        return 0
    superlinear = [name for name, rows in results.items() if growth(rows) > LINEAR_SLACK]
    if superlinear:
        print(f"\nper-delta cost grew more than {LINEAR_SLACK}x: " + "; ".join(superlinear), file=sys.stderr)
    return 1 if superlinear else 0


if __name__ == "__main__":
    sys.exit(main())
