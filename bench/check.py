"""How ``contentblocks check`` scales: peak memory and throughput on a large dataset, and the ``--jobs`` speed-up.

    python bench/check.py                               # a 1 GiB dataset, written to a temporary directory
    python bench/check.py --quick                       # 16 MiB, each case run once: a smoke run of seconds
    python bench/check.py --size-mb 256 --render docs/cli.md   # also write the table between the markers

The dataset is JSON Lines, one conversation a line (``--dataset``): conversations of 10 to 60 blocks from the
benchmark corpus (``bench/corpus.py``), half of them as arrays of messages and half as fine-tuning objects
(``{"messages": [...], "id": N}``), repeated to the size asked for. A second file holds one long transcript
(one message a line, tool-call ids kept unique) for the memory of one big conversation.

Each run is the ``contentblocks check`` command in a process of its own, started by a small wrapper
interpreter that reports ``resource.getrusage(RUSAGE_CHILDREN)`` once the command has ended: the peak
resident memory (``ru_maxrss``) of the largest process, the command or one of its workers, and the CPU time
of them all. Each case runs ``--repeat`` times (3 by default; the one-process and two-process runs of the
dataset alternate) and the fastest run is kept, the one that other work on the machine slowed least; the peak
memory is the largest of all. This is a benchmark, not a test: the figures depend on the machine and on what else runs on it
(the wall times above all; the CPU times say how much work was done).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import corpus
from markers import write_between

import contentblocks as cb

START = "<!-- check-benchmark:start -->"
END = "<!-- check-benchmark:end -->"
MIB = 1024 * 1024


def conversation_lines(count: int = 64) -> list[str]:
    """``count`` distinct dataset lines: conversations of 10-60 blocks, every other one a fine-tuning object."""
    lines = []
    for seed in range(count):
        messages = corpus.conversation(10 + seed * 50 // count, seed=seed)
        value = messages if seed % 2 else {"messages": messages, "id": seed}
        lines.append(json.dumps(value, ensure_ascii=False))
    return lines


def write_dataset(path: Path, size: int, lines: list[str]) -> int:
    """Repeat ``lines`` into ``path`` until it holds ``size`` bytes; return the number of conversations."""
    block = ("\n".join(lines) + "\n").encode()
    count = 0
    with path.open("wb") as f:
        while f.tell() < size:
            f.write(block)
            count += len(lines)
    return count


def write_transcript(path: Path, size: int) -> int:
    """One conversation, one message a line, of ``size`` bytes: the corpus repeated with fresh tool-call ids."""
    messages = [json.dumps(m, ensure_ascii=False, separators=(",", ":")) for m in corpus.conversation(2_000, seed=7)]
    count = 0
    with path.open("w", encoding="utf-8") as f:
        round_ = 0
        while f.tell() < size:
            prefix = f'"tool_call_id":"r{round_}_'
            f.write("\n".join(m.replace('"tool_call_id":"', prefix) for m in messages) + "\n")
            count += len(messages)
            round_ += 1
    return count


# Run in a small interpreter of its own: a child's ru_maxrss counts the memory of the process it was forked
# from, so the command is started from this wrapper rather than from the benchmark, which holds the corpus.
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=False)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"status": done.returncode, "output": done.stdout[-2000:] + done.stderr[-2000:], "wall": wall,
                  "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024}))
"""


def run(*args: str) -> dict[str, float]:
    """Run ``contentblocks check ARGS``: its wall and CPU seconds and peak RSS (MiB); stop if it finds anything."""
    command = [sys.executable, "-m", "contentblocks", "check", "--no-progress", *args]
    done = subprocess.run([sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, check=True)  # noqa: S603
    measured = json.loads(done.stdout)
    if measured["status"] != 0:
        sys.exit(f"{' '.join(command)} exited {measured['status']}:\n{measured['output']}")
    return measured  # type: ignore[no-any-return]


def fastest(repeat: int, *args: str) -> dict[str, float]:
    """The fastest of ``repeat`` runs of ``contentblocks check ARGS`` (see :func:`_fastest`)."""
    return _fastest([run(*args) for _ in range(repeat)])


def _fastest(runs: list[dict[str, float]]) -> dict[str, float]:
    """The fastest run (the one other work on the machine slowed least), with the largest peak RSS of them all."""
    best = min(runs, key=lambda m: m["wall"])
    return {**best, "rss": max(m["rss"] for m in runs)}


def measure(size: int, workdir: Path, repeat: int) -> tuple[list[tuple[str, int, int, dict[str, float]]], float, float]:
    """Rows of (what, bytes, conversations, measures), the --jobs 2 speed-up, and the control's speed-up."""
    lines = conversation_lines()
    small, large, transcript = workdir / "small.jsonl", workdir / "large.jsonl", workdir / "transcript.jsonl"
    small_count = write_dataset(small, size // 32, lines)
    large_count = write_dataset(large, size, lines)
    write_transcript(transcript, min(size // 4, 256 * MIB))
    spin = max(1_000_000, size // 50)  # iterations of the control's busy loop: a second of a core for 1 GiB
    one, two, serial, parallel = [], [], [], []
    for _ in range(repeat):  # alternated, so that a busy spell on the machine weighs on all of them alike
        one.append(run("--dataset", str(large)))
        two.append(run("--dataset", "--jobs", "2", str(large)))
        serial.append(_timed(lambda: [_spin(spin), _spin(spin)]))
        with multiprocessing.Pool(2) as pool:
            parallel.append(_timed(lambda: pool.map(_spin, [spin, spin])))
    rows = [
        ("dataset, 1/32 of the size, --jobs 1", small.stat().st_size, small_count, fastest(repeat, "--dataset", str(small))),
        ("dataset, --jobs 1", large.stat().st_size, large_count, _fastest(one)),
        ("dataset, --jobs 2", large.stat().st_size, large_count, _fastest(two)),
        ("one transcript (one message a line)", transcript.stat().st_size, 1, fastest(repeat, str(transcript))),
    ]
    return rows, rows[1][3]["wall"] / rows[2][3]["wall"], min(serial) / min(parallel)


def _spin(n: int) -> int:
    """Pure CPU work, the same in any process: the control for what two processes can gain on this machine."""
    total = 0
    for i in range(n):
        total += i
    return total


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def table(rows: list[tuple[str, int, int, dict[str, float]]], speedup: float, control: float, repeat: int) -> str:
    accelerated = "with the C accelerator" if cb.speedups_enabled() else "pure Python"
    machine = f"CPython {platform.python_version()} on {platform.machine()} ({platform.system()}), {os.cpu_count()} cores"
    lines = [
        (f"{machine}, {accelerated}; `python bench/check.py --size-mb {rows[1][1] // MIB}`: "
         + (f"the fastest of {repeat} runs of each case." if repeat > 1 else "one run of each case.")),
        "",
        "| run | size | conversations | wall time | CPU time | MB/s | conversations/s | peak RSS |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, size, count, m in rows:
        conversations = f"{count:,}" if count > 1 else "1"
        per_second = f"{count / m['wall']:,.0f}" if count > 1 else "-"
        lines.append(
            f"| {name} | {size / MIB:,.0f} MiB | {conversations} | {m['wall']:,.1f} s | {m['cpu']:,.1f} s | "
            f"{size / 1e6 / m['wall']:,.1f} | {per_second} | {m['rss']:,.0f} MiB |"
        )
    one, two = rows[1][3], rows[2][3]
    cost = 100 * (two["cpu"] / one["cpu"] - 1)
    lines += [
        "",
        (f"Speed-up of `--jobs 2` over `--jobs 1` on the dataset: {speedup:.2f}x in wall time, with {cost:+.0f} % "
         f"of CPU time ({one['cpu']:,.1f} s and {two['cpu']:,.1f} s, all processes counted)."),
        (f"The control, two busy loops of pure Python, had a speed-up of {control:.2f}x in two processes over one "
         "after the other in one process: that is what the machine gave two processes during these runs (2x on "
         f"two free cores), so `--jobs 2` got {100 * speedup / control:.0f} % of the speed-up there was to get."),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the dataset in MiB (default 1024)")
    parser.add_argument("--quick", action="store_true", help="a 16 MiB dataset, each run once")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case, the fastest kept (default 3)")
    parser.add_argument("--render", type=Path, help="write the table between the markers in this Markdown file")
    args = parser.parse_args()
    page = args.render.read_text(encoding="utf-8") if args.render else ""
    if args.render and not (START in page and END in page):  # said before the minutes of measuring, not after
        print(f"{args.render}: no {START} ... {END} markers", file=sys.stderr)
        return 1
    size = (16 if args.quick else args.size_mb) * MIB
    with tempfile.TemporaryDirectory() as workdir:
        rows, speedup, control = measure(size, Path(workdir), 1 if args.quick else args.repeat)
    text = table(rows, speedup, control, 1 if args.quick else args.repeat)
    print(text)
    if args.render:
        write_between(args.render, START, END, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
