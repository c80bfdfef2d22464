"""Count the instructions one operation takes on the 2,000-block corpus, with callgrind.

Times on a shared machine move by 5-10 % from run to run; instruction counts do not, so they show whether a
change to the code did less work. Usage (from the repository root; needs valgrind)::

    python bench/instructions.py structure           # also: unstructure, loads, dumps, loads-orjson, dumps-orjson
    python bench/instructions.py structure-json      # the JSON values alone (see bench/profile.py)
    python bench/instructions.py structure --size 200
    python bench/instructions.py structure --top 15  # also the functions those instructions are spent in

It runs this file under ``valgrind --tool=callgrind`` twice, once with no call and once with three calls of
the operation after a warm-up (the garbage collector off, as in the timings), and prints the difference
divided by three. Set ``CONTENTBLOCKS_PURE_PYTHON=1`` to count the pure-Python path. The runs share one
hash seed (``PYTHONHASHSEED``, 0 unless set), so that a count repeats exactly.

With ``--top N`` it runs a third time, counting only inside the calls (they run within ``functools.reduce``,
whose C function callgrind is told to collect in), and lists the N functions that spend the most of those
instructions themselves, as ``callgrind_annotate`` reports them.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CALLS = 3
# One hash seed for every run: with random ones, set and dict probes differ, and counts by about 1 %.
_ENV = {**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
# As bench/profile.py defines them.
OPERATIONS = ("structure", "structure-json", "unstructure", "loads", "dumps", "loads-orjson", "dumps-orjson")


def _operation(name: str, size: int) -> Callable[[], Any]:
    """The operation as ``bench/profile.py`` defines it (loaded by path: the file shadows the stdlib's)."""
    spec = importlib.util.spec_from_file_location("_bench_profile", Path(__file__).resolve().parent / "profile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.operations(size)[name]  # type: ignore[no-any-return]


def _child(name: str, size: int, calls: int, *, within_reduce: bool = False) -> None:
    operation = _operation(name, size)
    gc.disable()
    operation()  # warm-up: caches, lazily built hooks
    if within_reduce:  # what --toggle-collect=functools_reduce counts, and nothing else
        functools.reduce(lambda _, __: operation(), range(calls), None)
        return
    for _ in range(calls):
        operation()


def _collected(name: str, size: int, calls: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               name, "--size", str(size), "--child", str(calls)]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, check=True, env=_ENV)  # noqa: S603 - our own command
    match = re.search(r"Collected : (\d+)", run.stderr)
    if match is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(match.group(1))


_ANNOTATED = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+):([^\s']+)", re.MULTILINE)


def _functions(name: str, size: int, calls: int) -> tuple[int, dict[str, int]]:
    """Instructions inside the calls, in all and per function (see parse_annotated)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/callgrind.out"
        command = ["valgrind", "--tool=callgrind", "--toggle-collect=functools_reduce", f"--callgrind-out-file={out}",
                   sys.executable, __file__, name, "--size", str(size), "--child", str(calls), "--within-reduce"]  # fmt: skip
        subprocess.run(command, capture_output=True, text=True, check=True, env=_ENV)  # noqa: S603 - our own command
        annotate = ["callgrind_annotate", "--inclusive=no", "--threshold=100", out]
        text = subprocess.run(annotate, capture_output=True, text=True, check=True).stdout  # noqa: S603
    return parse_annotated(text)


def parse_annotated(text: str) -> tuple[int, dict[str, int]]:
    """The total and the own instructions per function in ``callgrind_annotate``'s report.

    A function's lines are merged: its recursion levels (``f'2``) and the code inlined into it from headers,
    which the report lists under the header's name. It is shown as ``function (file)``, the file being where
    it is defined.
    """
    total = re.search(r"^\s*([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", text, re.MULTILINE)
    if total is None:
        raise SystemExit(f"no total in callgrind_annotate's output:\n{text[:2000]}")
    counts: dict[str, int] = {}
    files: dict[str, str] = {}
    for count, path, function in _ANNOTATED.findall(text):
        counts[function] = counts.get(function, 0) + int(count.replace(",", ""))
        if not path.endswith(".h"):
            files.setdefault(function, path.rsplit("/", 1)[-1])
    functions = {f"{function} ({files[function]})" if function in files else function: count
                 for function, count in counts.items()}
    return int(total.group(1).replace(",", "")), functions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("operation", choices=OPERATIONS)
    parser.add_argument("--size", type=int, default=2_000, help="corpus size in blocks (default: 2,000)")
    parser.add_argument("--top", type=int, default=0, metavar="N",
                        help="also list the N functions that spend the most instructions inside the calls")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--within-reduce", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(args.operation, args.size, args.child, within_reduce=args.within_reduce)
        return 0
    per_call = (_collected(args.operation, args.size, CALLS) - _collected(args.operation, args.size, 0)) / CALLS
    print(f"{args.operation}, {args.size:,} blocks: {per_call / 1e6:.1f} million instructions per call")
    if args.top > 0:
        total, functions = _functions(args.operation, args.size, CALLS)
        print(f"inside the calls: {total / CALLS / 1e6:.1f} million per call; the functions that spend the most:")
        for where, count in sorted(functions.items(), key=lambda item: -item[1])[: args.top]:
            print(f"  {count / total:6.1%}  {count / CALLS / 1e6:6.2f} M  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
