"""Count the instructions one operation takes on the 2,000-block corpus, with callgrind.

Times on a shared machine move by 5-10 % from run to run; instruction counts do not, so they show whether a
change to the code did less work. Usage (from the repository root; needs valgrind)::

    python bench/instructions.py structure           # also: unstructure, loads, dumps, loads-orjson, dumps-orjson
    python bench/instructions.py structure --size 200

It runs this file under ``valgrind --tool=callgrind`` twice, once with no call and once with three calls of
the operation after a warm-up (the garbage collector off, as in the timings), and prints the difference
divided by three. Set ``CONTENTBLOCKS_PURE_PYTHON=1`` to count the pure-Python path.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

CALLS = 3
OPERATIONS = ("structure", "unstructure", "loads", "dumps", "loads-orjson", "dumps-orjson")  # as bench/profile.py


def _operation(name: str, size: int) -> Callable[[], Any]:
    """The operation as ``bench/profile.py`` defines it (loaded by path: the file shadows the stdlib's)."""
    spec = importlib.util.spec_from_file_location("_bench_profile", Path(__file__).resolve().parent / "profile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.operations(size)[name]  # type: ignore[no-any-return]


def _child(name: str, size: int, calls: int) -> None:
    operation = _operation(name, size)
    gc.disable()
    operation()  # warm-up: caches, lazily built hooks
    for _ in range(calls):
        operation()


def _collected(name: str, size: int, calls: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               name, "--size", str(size), "--child", str(calls)]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603 - our own command
    match = re.search(r"Collected : (\d+)", run.stderr)
    if match is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(match.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("operation", choices=OPERATIONS)
    parser.add_argument("--size", type=int, default=2_000, help="corpus size in blocks (default: 2,000)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(args.operation, args.size, args.child)
        return 0
    per_call = (_collected(args.operation, args.size, CALLS) - _collected(args.operation, args.size, 0)) / CALLS
    print(f"{args.operation}, {args.size:,} blocks: {per_call / 1e6:.1f} million instructions per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
