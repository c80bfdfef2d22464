"""Sealing and verifying a 2,000-message history, as a ratio to ``cb.loads`` of the same history.

    python bench/seal.py                              # 2,000 messages, 11 repeats, with and without the accelerator
    python bench/seal.py --render docs/benchmarks.md  # also write the table between the markers in that page
    python bench/seal.py --quick                      # 200 messages, 3 repeats (a smoke run)

The history is the first N messages of the benchmark corpus (``bench/corpus.py``: text with citations,
reasoning with signatures, tool calls and results, inline images, metadata), held as JSON text. Each repeat
times ``cb.loads`` of the text, ``cb.seal`` of the loaded conversation and ``cb.verify_seals`` of the sealed
one (each call on a conversation just loaded, outside the clock, so nothing is cached), in an order that rotates from one repeat to the next, on the process's CPU clock with garbage collection
off; reported are the median times and the medians of the per-repeat ratios to ``cb.loads``. The issue's
target: verifying costs less than loading (ratio below 1). The pure-Python row is the same script run again
with ``CONTENTBLOCKS_PURE_PYTHON=1``, whose ``cb.loads`` is the pure-Python one too.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from markers import write_between

import contentblocks as cb

START = "<!-- seal-benchmark:start -->"
END = "<!-- seal-benchmark:end -->"
VERIFY_TARGET = 1.0  # verify_seals / cb.loads


def history(messages: int) -> list[dict[str, Any]]:
    """The first ``messages`` messages of the corpus (cutting it leaves some calls unanswered, which is valid)."""
    blocks = 2 * messages
    raw = corpus.conversation(blocks)
    while len(raw) < messages:
        blocks *= 2
        raw = corpus.conversation(blocks)
    return raw[:messages]


def _sample(fn: Callable[[Any], Any], setup: Callable[[], Any], number: int) -> float:
    """Seconds per call of ``fn`` on what ``setup`` makes (made before the clock starts, one per call)."""
    arguments = [setup() for _ in range(number)]
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        for argument in arguments:
            fn(argument)
        return (time.process_time() - start) / number
    finally:
        gc.enable()


def measure(messages: int, repeats: int, number: int) -> dict[str, Any]:
    """Median seconds per call and median ratios to loads, in this process (with the accelerator or without)."""
    text = json.dumps(history(messages)).encode()
    key = cb.SealKey("bench", b"k" * 32)
    sealed = cb.seal(cb.loads(text, cb.Conversation), key, context="conversation-1")
    if {c.status for c in cb.verify_seals(sealed, key, context="conversation-1")} != {"sealed"}:
        sys.exit("verify_seals does not say sealed for every message sealed")
    sealed_text = cb.dumps(sealed).encode()
    # Each call gets a conversation just loaded, as a server verifies a history it has just read: nothing of
    # it has been computed before (a JSON value's cached canonical text included).
    ops: dict[str, tuple[Callable[[Any], Any], Callable[[], Any]]] = {
        "loads": (lambda data: cb.loads(data, cb.Conversation), lambda: text),
        "seal": (lambda held: cb.seal(held, key, context="conversation-1"),
                 lambda: cb.loads(text, cb.Conversation)),
        "verify_seals": (lambda held: cb.verify_seals(held, key, context="conversation-1"),
                         lambda: cb.loads(sealed_text, cb.Conversation)),
    }
    names = list(ops)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            fn, setup = ops[name]
            seconds[name].append(_sample(fn, setup, number))
    ratios = {name: [s / base for s, base in zip(seconds[name], seconds["loads"], strict=True)]
              for name in ("seal", "verify_seals")}
    return {
        "accelerator": cb.speedups_enabled(),
        "messages": messages,
        "bytes": len(text),
        "seconds": {name: statistics.median(values) for name, values in seconds.items()},
        "ratio": {name: statistics.median(values) for name, values in ratios.items()},
    }


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    command = [sys.executable, __file__, "--one", "--messages", str(args.messages), "--repeats", str(args.repeats),
               "--number", str(args.number)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)  # noqa: S603 - ourselves
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| path | messages | JSON | `cb.loads` | `cb.seal` | `cb.verify_seals` | seal / loads | verify / loads |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        s, ratio = row["seconds"], row["ratio"]
        path = "C accelerator" if row["accelerator"] else "pure Python"
        lines.append(
            f"| {path} | {row['messages']:,} | {row['bytes'] / 1e6:.1f} MB | {s['loads'] * 1e3:.1f} ms "
            f"| {s['seal'] * 1e3:.1f} ms | {s['verify_seals'] * 1e3:.1f} ms | {ratio['seal']:.2f} "
            f"| {ratio['verify_seals']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="messages in the history (default 2,000)")
    parser.add_argument("--repeats", type=int, default=11, help="samples of each operation (default 11)")
    parser.add_argument("--number", type=int, default=3, help="calls per sample (default 3)")
    parser.add_argument("--quick", action="store_true", help="200 messages, 3 repeats of 1 call")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the table between the markers in PAGE")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # one mode, as JSON
    args = parser.parse_args()
    if args.quick:
        args.messages, args.repeats, args.number = 200, 3, 1
    if args.one:
        print(json.dumps(measure(args.messages, args.repeats, args.number)))
        return
    rows = [measure(args.messages, args.repeats, args.number)] if cb.speedups_enabled() else []
    rows.append(_pure(args))
    text = table(rows)
    print(text)
    failed = False
    for row in rows:
        verdict = "PASS" if row["ratio"]["verify_seals"] < VERIFY_TARGET else "FAIL"
        failed |= verdict == "FAIL"
        path = "C accelerator" if row["accelerator"] else "pure Python"
        print(f"{verdict}  verify_seals / cb.loads ({path}): {row['ratio']['verify_seals']:.2f} < {VERIFY_TARGET}")
    if args.render:
        write_between(args.render, START, END, text)
        print(f"wrote {args.render}", file=sys.stderr)
    if failed and not args.quick:
        sys.exit(1)


if __name__ == "__main__":
    main()
