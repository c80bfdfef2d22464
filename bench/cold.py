"""Growth with the caches in the same state at both sizes: ten 2,000-block corpora in turn against one of 20,000.

The growth that ``bench/run.py`` reports for the issue's target times each size on one corpus, call after call.
A 2,000-block corpus and everything an operation makes from it fit in this machine's 32 MiB L3 cache, so from
the second call on the small size runs from cache; a 20,000-block one does not, so the large size runs from
memory. That growth therefore measures the cache as well as the cost of the code, and the leaner the code, the
more of its time is the memory's: a library can grow more than 11x while its work per block is the same.

Here the small size cycles through ten different 2,000-block corpora (seeds 0 to 9), 20,000 blocks in all, the
blocks of the large corpus: both sizes touch the same amount of memory per round, and neither stays in cache.
The growth is the time per call on the large corpus over the mean time per call on the small ones. It is
reported beside the issue's figure, not in its place.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import corpus

COPIES = 10
SKIPPED = ("deepcopy",)  # O(1) for contentblocks; the peers' copies are not what this table is about


def measure(
    contestants_of: Callable[[list[dict[str, Any]]], Any],
    large: Any,
    small_size: int,
    repeats: int,
    time_calls: Callable[[Callable[[], Any], int], float],
) -> dict[str, dict[str, float]]:
    """Per operation and contestant, the median over repeats of (time on ``large``) / (mean time on the copies).

    ``contestants_of`` builds a ``Contestants`` for a raw corpus; ``time_calls(fn, n)`` gives seconds per call.
    """
    copies = [contestants_of(corpus.conversation(small_size, seed=seed)) for seed in range(COPIES)]
    out: dict[str, dict[str, float]] = {}
    for op, fns in large.ops.items():
        if op in SKIPPED:
            continue
        out[op] = {}
        for name, fn in fns.items():
            cycle = [c.ops[op][name] for c in copies]

            def one_round(cycle: list[Callable[[], Any]] = cycle) -> None:
                for call in cycle:
                    call()

            one_round()  # warm-up: lazily built hooks, and the allocator's pools at this size
            per_repeat = []
            for r in range(repeats):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                times = {}
                for which in order:
                    times[which] = time_calls(one_round, 1) / COPIES if which == 0 else time_calls(fn, 1)
                per_repeat.append(times[1] / times[0])
            out[op][name] = statistics.median(per_repeat)
    return out
