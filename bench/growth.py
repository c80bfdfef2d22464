"""Growing a conversation turn by turn, as an agent loop does: each turn costs its own messages only.

    python bench/growth.py                              # 1,000 and 10,000 turns; prints the table
    python bench/growth.py --render docs/benchmarks.md  # also write it between the markers in that page
    python bench/growth.py --quick                      # 200 and 2,000 turns

A turn is three messages: the user asks, the assistant calls a tool, the tool answers. ``append`` grows the
conversation by one message at a time (three appends a turn); the reference rebuilds the whole conversation
every turn, as code had to before ``append`` existed, and is run at the smaller size only (it is quadratic).
The growth column is the time for the larger size over the time for the smaller: linear growth is the ratio
of the sizes (10x).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

from markers import write_between

import contentblocks as cb

START = "<!-- growth-benchmark:start -->"
END = "<!-- growth-benchmark:end -->"


def turn(i: int) -> tuple[cb.Message, cb.Message, cb.Message]:
    call_id = f"call_{i}"
    return (
        cb.Message(role="user", content=f"Question {i}: what is the weather in city {i}?"),
        cb.Message(
            role="assistant",
            content=[cb.ToolCallBlock(tool_call_id=call_id, tool_name="weather", input={"city": i})],
        ),
        cb.Message(
            role="tool",
            content=[
                cb.ToolResultBlock(
                    tool_call_id=call_id,
                    tool_name="weather",
                    outcome="succeeded",
                    content=[cb.TextBlock(text=f"Sunny in city {i}")],
                )
            ],
        ),
    )


def grow(turns: list[tuple[cb.Message, ...]]) -> cb.Conversation:
    conversation = cb.Conversation()
    for messages in turns:
        for message in messages:
            conversation = conversation.append(message)
            conversation.pending_tool_calls()  # what the loop asks every step
    return conversation


def rebuild(turns: list[tuple[cb.Message, ...]]) -> cb.Conversation:
    messages: list[cb.Message] = []
    conversation = cb.Conversation()
    for step in turns:
        messages.extend(step)
        conversation = cb.Conversation(messages=messages)
    return conversation


def timed(function, turns, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            function(turns)
            samples.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(samples)


def run(small: int, large: int, repeats: int) -> str:
    turns_large = [turn(i) for i in range(large)]
    turns_small = turns_large[:small]
    assert grow(turns_small) == rebuild(turns_small)
    grown_small = timed(grow, turns_small, repeats)
    grown_large = timed(grow, turns_large, repeats)
    rebuilt_small = timed(rebuild, turns_small, max(1, repeats // 3))
    rows = [
        "| how | turns | total | per turn | growth |",
        "| --- | ---: | ---: | ---: | ---: |",
        f"| `append` | {small:,} | {grown_small * 1e3:.1f} ms | {grown_small / small * 1e6:.1f} µs | |",
        (
            f"| `append` | {large:,} | {grown_large * 1e3:.1f} ms | {grown_large / large * 1e6:.1f} µs "
            f"| {grown_large / grown_small:.1f}x for {large // small}x the turns |"
        ),
        f"| rebuild every turn | {small:,} | {rebuilt_small * 1e3:.1f} ms | {rebuilt_small / small * 1e6:.1f} µs | |",
    ]
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 and 2,000 turns, fewer repeats")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the table between the markers in PAGE")
    args = parser.parse_args()
    small, large, repeats = (200, 2_000, 3) if args.quick else (1_000, 10_000, 7)
    table = run(small, large, repeats)
    print(table)
    if args.render:
        write_between(args.render, START, END, table)
        print(f"wrote {args.render}", file=sys.stderr)


if __name__ == "__main__":
    main()
