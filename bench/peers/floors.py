"""Floors: for each operation, the least work its input or output needs, timed beside the libraries.

A floor is not a library. It makes what an operation must make (or reads what it must read) by the cheapest
means CPython has, checking and converting nothing, so that no implementation of the operation does less:

- structure: the input (plain dicts and lists) frozen, by the C kernel that holds JSON values in blocks, into
  read-only containers: one walk that reads every dict, list and scalar of the input, as a structure must,
  and allocates one container for each, sharing every string. A structure also checks the rules, decodes
  base64 and builds instances; the floor does none of it.
- unstructure: the output (the same dicts and lists) made afresh by the C thaw from a frozen copy made once:
  ``PyDict_Copy`` of each dict and a slice of each list, every string shared, no block read, no base64
  encoded. Any unstructure that returns these dicts allocates, fills and (when the result is dropped) frees
  the same containers.
- loads: ``orjson.loads`` of the JSON text, the fastest parser CPython has, giving plain dicts. Every load
  parses the text; ``json.loads``, which ``cb.loads`` parses with, is no floor, since it takes about as long
  as ``cb.loads`` itself (which parses one message at a time, keeping the decoded text small).
- dumps: ``orjson.dumps`` of the plain dicts, the fastest writer: the same text, byte for byte, as the orjson
  converter writes (``cb.dumps`` writes non-ASCII characters as ``\\u`` escapes, otherwise the same). It reads
  no block and encodes no base64; ``json.dumps``, three times as slow as ``cb.dumps``, would be no floor.

What a floor's time grows by from 2,000 to 20,000 blocks is what memory, caches and the allocator make the
same work cost at ten times the size: an operation's growth is judged against its floor's growth in the same
run. The structure and unstructure floors use contentblocks' C kernel as the library has loaded it, so they are
left out where it is not built and in a pure-Python run (``CONTENTBLOCKS_PURE_PYTHON``), where a copy in Python
would be no floor.
"""

from __future__ import annotations

import importlib
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["NAMES", "Floor", "floors", "growth_over_floor"]

NAMES = {
    "structure": "floor: the input frozen (C)",
    "unstructure": "floor: the output copied (C)",
    "loads": "floor: orjson.loads",
    "dumps": "floor: orjson.dumps",
}
"""The floor's name in each operation's results."""


@dataclass(frozen=True)
class Floor:
    """A floor's call and the check that it makes what it stands for (run before it is timed)."""

    name: str
    call: Callable[[], Any]
    check: Callable[[], bool]


def _kernel() -> Any:
    """contentblocks' C kernel as the library loaded it (private, on purpose: a measuring instrument), or None."""
    return importlib.import_module("contentblocks._conversion._kernels").speedups


def floors(raw: list[dict[str, Any]], text: bytes) -> dict[str, Floor]:
    """Each operation's floor for the corpus ``raw`` (canonical wire dicts) and its JSON ``text``."""
    out = {
        "loads": Floor(NAMES["loads"], lambda: orjson.loads(text), lambda: orjson.loads(text) == raw),
        "dumps": Floor(NAMES["dumps"], lambda: orjson.dumps(raw), lambda: orjson.loads(orjson.dumps(raw)) == raw),
    }
    kernel = _kernel()
    if kernel is None:
        return out
    miss = object()
    freeze, thaw = kernel.freeze, kernel.thaw

    def frozen() -> Any:
        return freeze(raw, sys.maxsize, 1_000, sys.maxsize, miss)

    once = frozen()
    if once is miss:
        return out
    out["structure"] = Floor(NAMES["structure"], frozen, lambda: thaw(frozen(), miss) == raw)
    out["unstructure"] = Floor(NAMES["unstructure"], lambda: thaw(once, miss), lambda: thaw(once, miss) == raw)
    return out


def growth_over_floor(seconds: dict[str, dict[str, list[list[float]]]]) -> dict[str, dict[str, float]]:
    """Per operation that has a floor, each other contestant's growth over the floor's, as a median over repeats.

    ``seconds[op][name]`` holds each repeat's ``[small, large]`` seconds per call; the quotient of the two
    growths is taken within each repeat, where the contestant and its floor ran in the same spell.

    >>> growth_over_floor({"loads": {"ours": [[1, 10], [1, 12], [1, 30]], NAMES["loads"]: [[2, 20], [1, 10], [1, 10]]}})
    {'loads': {'ours': 1.2}}
    """
    out: dict[str, dict[str, float]] = {}
    for op, by in seconds.items():
        floor = by.get(NAMES.get(op, ""))
        if floor is None:
            continue
        out[op] = {name: statistics.median((large / small) / (f_large / f_small)
                                           for (small, large), (f_small, f_large) in zip(pairs, floor, strict=True))
                   for name, pairs in by.items() if name != NAMES[op]}
    return out
