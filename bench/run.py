"""Benchmark contentblocks against pydantic, msgspec, pydantic-ai and langchain-core on the same conversations.

Usage (from the repository root)::

    python bench/run.py                                 # 200, 2,000 and 20,000 blocks, 11 repeats
    python bench/run.py --quick                         # a smoke run: small sizes, 3 short repeats
    python bench/run.py --pure --quick                  # the same without the C accelerator
    python bench/run.py --render docs/benchmarks.md     # also write the results into the docs page
    python bench/run.py --sizes 2000 --repeats 21 --json results.json
    python bench/run.py --sizes 2000,20000 --ops unstructure  # one operation, with its growth

Each corpus (``bench/corpus.py``) is a conversation: a list of message dicts in canonical wire form; each peer
(``bench/peers/``) holds it in its own form. First every library must round-trip its form exactly (dicts and
JSON), and every floor (``bench/peers/floors.py``) must make what it stands for; then every operation is timed,
the contestants interleaved within each repeat (their order rotating from one repeat to the next), so that a
slow spell of the machine hits all of them. Reported: the median time per call, and for each target the
median over repeats of the per-repeat ratio ours / peer. Garbage collection is off while a sample runs (as in
``timeit``) and collected before each sample. The clock is the process's CPU time by default (``--clock cpu``,
``time.process_time``): every contestant is single-threaded, so on an idle machine it equals wall time, and on a
busy one the other processes' load does not count (``--clock wall`` measures ``time.perf_counter`` instead).
With the accelerator the issue's targets are judged; without it (``--pure`` runs this script again with
``CONTENTBLOCKS_PURE_PYTHON=1``) the pure-Python target, and ``--render`` writes the page's pure-Python section.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cold
import corpus
import orjson
import peers
from peers import floors

import contentblocks as cb

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows: page faults are then not counted
    resource = None  # type: ignore[assignment]

try:
    from contentblocks.preconf import orjson as cb_orjson
except ImportError:  # the preconf module is optional for a run; its rows are then left out
    cb_orjson = None  # type: ignore[assignment]

OURS_STRUCT = "contentblocks"
OURS_ORJSON = "contentblocks (orjson preconf)"
OURS_JSON = "contentblocks (cb.loads/cb.dumps)"
OURS_ONE = "contentblocks (one block)"
PYDANTIC, MSGSPEC, PYDANTIC_AI, LANGCHAIN = "pydantic", "msgspec", "pydantic-ai", "langchain-core"
PEERS = (PYDANTIC, MSGSPEC, PYDANTIC_AI, LANGCHAIN)
PLAIN_JSON, PLAIN_ORJSON = "plain dicts (json.loads)", "plain dicts (orjson.loads)"

# (operation, our contestant, peer, maximum ratio ours / peer) on the 2,000-block corpus (issue 15; against
# pydantic-ai and langchain-core, issue 32's stricter ones).
TARGETS: list[tuple[str, str, str, float]] = [
    ("structure", OURS_STRUCT, PYDANTIC, 0.5),
    ("structure", OURS_STRUCT, MSGSPEC, 2.0),
    ("unstructure", OURS_STRUCT, PYDANTIC, 0.198),
    ("unstructure", OURS_STRUCT, MSGSPEC, 0.66),
    ("loads", OURS_ORJSON, PYDANTIC, 0.7),
    ("loads", OURS_JSON, PYDANTIC, 1.5),
    ("dumps", OURS_ORJSON, PYDANTIC, 0.176),
    ("dumps", OURS_JSON, PYDANTIC, 0.352),
    ("loads", OURS_JSON, PYDANTIC_AI, 0.35),
    ("loads", OURS_ORJSON, PYDANTIC_AI, 0.35),
    ("dumps", OURS_JSON, PYDANTIC_AI, 0.2),
    ("dumps", OURS_ORJSON, PYDANTIC_AI, 0.2),
    ("loads", OURS_JSON, LANGCHAIN, 0.75),
    ("loads", OURS_ORJSON, LANGCHAIN, 0.75),
]
PURE_TARGETS: list[tuple[str, str, str, float]] = [("structure", OURS_STRUCT, PYDANTIC_AI, 0.6)]
TARGET_SIZE = 2_000
FLOOR_GROWTH_LIMIT = 1.1  # an operation's growth over its floor's growth, from the small size to the large
DEEPCOPY_LIMIT = 2.0  # O(1): the whole conversation may not take twice as long as one block
MEMORY_LIMIT = 1.0  # bytes held per loaded message, over those of the plain json.loads dicts
OPERATIONS = ("structure", "unstructure", "loads", "dumps", "deepcopy")


class Contestants:
    """Every contestant's function for one corpus, built once (converters, adapters, decoders, peers' forms)."""

    def __init__(self, raw: list[dict[str, Any]], ops: tuple[str, ...] = OPERATIONS) -> None:
        # The peers' libraries, loaded on use.
        from peers import langchain_messages, msgspec_model, pydantic_ai_messages, pydantic_model  # noqa: PLC0415

        self.raw = raw
        self.data = data = orjson.dumps(raw)
        self.ours = ours = cb.structure(raw, cb.Conversation)
        self.peers = [m.peer(raw) for m in (pydantic_model, msgspec_model, pydantic_ai_messages, langchain_messages)]
        self.floors = floors.floors(raw, data)
        structure, unstructure, loads, dumps = cb.structure, cb.unstructure, cb.loads, cb.dumps
        target, deepcopy, one = cb.Conversation, copy.deepcopy, ours.messages[0].content[0]
        self.ops: dict[str, dict[str, Callable[[], Any]]] = {
            "structure": {OURS_STRUCT: lambda: structure(raw, target)},
            "unstructure": {OURS_STRUCT: lambda: unstructure(ours)},
            "loads": {OURS_JSON: lambda: loads(data, target)},
            "dumps": {OURS_JSON: lambda: dumps(ours)},
            "deepcopy": {OURS_STRUCT: lambda: deepcopy(ours), OURS_ONE: lambda: deepcopy(one)},
        }
        if cb_orjson is not None:
            self.orjson_converter = converter = cb_orjson.make_converter()
            self.ops["loads"][OURS_ORJSON] = lambda: converter.loads(data, target)
            self.ops["dumps"][OURS_ORJSON] = lambda: converter.dumps(ours)
        for peer in self.peers:
            held = peer.structure(peer.form)
            self.ops["structure"][peer.name] = lambda p=peer: p.structure(p.form)
            self.ops["unstructure"][peer.name] = lambda p=peer, h=held: p.unstructure(h)
            self.ops["loads"][peer.name] = lambda p=peer: p.loads(p.text)
            self.ops["dumps"][peer.name] = lambda p=peer, h=held: p.dumps(h)
            self.ops["deepcopy"][peer.name] = lambda h=held: deepcopy(h)
        for op, floor in self.floors.items():
            self.ops[op][floor.name] = floor.call
        self.ours_loaders = {name: fn for name, fn in self.ops["loads"].items() if name.startswith(OURS_STRUCT)}
        self.ops = {op: fns for op, fns in self.ops.items() if op in ops}

    def check(self) -> list[str]:
        """Every library round-trips its form exactly, every floor makes its output; returns the failures."""
        raw, data, ours = self.raw, self.data, self.ours
        checks: list[tuple[str, Callable[[], bool]]] = [
            ("contentblocks: unstructure(structure(x)) == x", lambda: cb.unstructure(ours) == raw),
            ("contentblocks: loads(x) == structure(x)", lambda: cb.loads(data, cb.Conversation) == ours),
            ("contentblocks: json.loads(dumps(b)) == x", lambda: json.loads(cb.dumps(ours)) == raw),
            ("contentblocks: deepcopy(b) is b", lambda: copy.deepcopy(ours) is ours),
        ]
        if cb_orjson is not None:
            conv = self.orjson_converter
            checks += [
                ("contentblocks orjson: loads(x) == structure(x)", lambda: conv.loads(data, cb.Conversation) == ours),
                ("contentblocks orjson: orjson.loads(dumps(b)) == x", lambda: orjson.loads(conv.dumps(ours)) == raw),
            ]
        checks += [(f"{floor.name}: makes what it stands for", floor.check) for floor in self.floors.values()]
        return [failure for peer in self.peers for failure in peer.failures()] + peers.failed(checks)

    def memory(self) -> dict[str, int]:
        """Bytes each loader's result holds, loaded from JSON text (so nothing is shared with the input)."""
        data = self.data
        loaders = {PLAIN_JSON: lambda: json.loads(data), PLAIN_ORJSON: lambda: orjson.loads(data), **self.ours_loaders}
        loaders.update({peer.name: lambda p=peer: p.loads(p.text) for peer in self.peers})
        out = {}
        for name, load in loaders.items():
            load()  # warm caches (interned names, lazily built hooks) outside the measurement
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            kept = load()
            gc.collect()
            out[name] = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            del kept
        return out


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCKS["cpu"]


def _minor_faults() -> int:
    """Page faults of this process so far that the kernel served without I/O (0 where not counted)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource is not None else 0


def _sample(fn: Callable[[], Any], number: int) -> tuple[float, float]:
    """Seconds per call and minor page faults per call, over ``number`` calls."""
    clock = _clock
    gc.collect()
    gc.disable()
    try:
        faults = _minor_faults()
        start = clock()
        for _ in range(number):
            fn()
        seconds = clock() - start
        return seconds / number, (_minor_faults() - faults) / number
    finally:
        gc.enable()


def _time(fn: Callable[[], Any], number: int) -> float:
    return _sample(fn, number)[0]


def _calls_per_sample(fn: Callable[[], Any], min_time: float) -> int:
    """How many calls make a sample of at least ``min_time`` seconds (one timed call: warm-up and calibration)."""
    return max(1, math.ceil(min_time / max(_time(fn, 1), 1e-9)))


def _rotated(names: list[str], r: int) -> list[str]:
    shift = r % len(names)
    return names[shift:] + names[:shift]


def measure(contestants: Contestants, repeats: int, min_time: float) -> dict[str, dict[str, list[float]]]:
    """Per operation and contestant, ``repeats`` samples of seconds per call, interleaved."""
    numbers = {(op, name): _calls_per_sample(fn, min_time)
               for op, fns in contestants.ops.items() for name, fn in fns.items()}
    samples: dict[str, dict[str, list[float]]] = {op: {name: [] for name in fns} for op, fns in contestants.ops.items()}
    for r in range(repeats):
        for op, fns in contestants.ops.items():
            for name in _rotated(list(fns), r):
                samples[op][name].append(_time(fns[name], numbers[op, name]))
    return samples


def measure_growth(
    small: Contestants, large: Contestants, repeats: int, min_time: float
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, list[Any]]]]]:
    """Per operation and contestant, the median over repeats of (time on ``large``) / (time on ``small``).

    In every repeat each contestant's two sizes are timed back to back (the order alternates), the contestants
    of an operation one after the other (their order rotating), so that a slower spell of a shared machine
    weighs on both samples of a ratio, and on a contestant and its floor alike. Also returned, per operation
    and contestant: ``seconds``, each repeat's ``[small, large]`` seconds per call, and ``faults``, the median
    minor page faults per call at each size, ``[small, large]``.
    """
    both = (small, large)
    numbers = {(op, name, which): _calls_per_sample(fn, min_time)
               for which, contestants in enumerate(both) for op, fns in contestants.ops.items()
               for name, fn in fns.items()}
    seconds: dict[str, dict[str, list[list[float]]]] = {op: {n: [] for n in fns} for op, fns in large.ops.items()}
    faults: dict[str, dict[str, list[list[float]]]] = {op: {n: [[], []] for n in fns} for op, fns in large.ops.items()}
    for r in range(repeats):
        for op, fns in large.ops.items():
            for name in _rotated(list(fns), r):
                times = [0.0, 0.0]
                for which in (0, 1) if r % 2 == 0 else (1, 0):
                    times[which], faulted = _sample(both[which].ops[op][name], numbers[op, name, which])
                    faults[op][name][which].append(faulted)
                seconds[op][name].append(times)
    growth = {op: {name: statistics.median(t_large / t_small for t_small, t_large in pairs)
                   for name, pairs in by.items()} for op, by in seconds.items()}
    details = {op: {name: {"seconds": pairs, "faults": [statistics.median(f) for f in faults[op][name]]}
                    for name, pairs in by.items()} for op, by in seconds.items()}
    return growth, details


def ratios(samples: dict[str, dict[str, list[float]]], ours: str, peer: str, op: str) -> float | None:
    """The median over repeats of the per-repeat ratio ours / peer."""
    if ours not in samples.get(op, {}) or peer not in samples.get(op, {}):
        return None
    return statistics.median(a / b for a, b in zip(samples[op][ours], samples[op][peer], strict=True))


def machine() -> dict[str, Any]:
    import platform  # noqa: PLC0415
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for dist in ("contentblocks", "attrs", "cattrs", "orjson", "pydantic", "pydantic-core", "msgspec",
                 "pydantic-ai-slim", "langchain-core"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = "not installed"
    try:
        cores: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count()
    return {
        "cpu": cpu,
        "cores": cores,
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
        "accelerator": cb.speedups_enabled(),
    }


def _size_results(contestants: Contestants, samples: dict[str, dict[str, list[float]]], n: int) -> dict[str, Any]:
    raw = contestants.raw
    described = {**corpus.describe(raw), "json bytes": len(contestants.data)}
    described.update({f"json bytes, {p.name} form": len(p.text) for p in contestants.peers if p.form is not raw})
    return {
        "corpus": described,
        "repeats": n,
        "samples": samples,
        "medians": {op: {name: statistics.median(s) for name, s in by.items()} for op, by in samples.items()},
        "ratios": {op: {ours: {other: ratios(samples, ours, other, op) for other in by
                               if not other.startswith(OURS_STRUCT)}
                        for ours in by if ours.startswith(OURS_STRUCT)} for op, by in samples.items()},
        "memory": contestants.memory(),
    }


def run(
    sizes: list[int], repeats: int, min_time: float, *, large_repeats: int, ops: tuple[str, ...] = OPERATIONS
) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": machine(), "repeats": repeats, "min_time": min_time,
                               "clock": next(name for name, c in CLOCKS.items() if c is _clock),
                               "orjson_preconf": cb_orjson is not None, "floor_growth_limit": FLOOR_GROWTH_LIMIT,
                               "sizes": {}}
    # Growth compares the largest size with the target size (or the next smaller one).
    ordered = sorted(sizes)
    compared = {ordered[-1], TARGET_SIZE if TARGET_SIZE in ordered[:-1] else ordered[-2]} if len(ordered) > 1 else set()
    kept: dict[int, Contestants] = {}
    for size in sizes:
        started = time.perf_counter()
        raw = corpus.conversation(size)
        contestants = Contestants(raw, ops)
        failures = contestants.check()
        if failures:
            print(f"{size} blocks: round trips failed:", *failures, sep="\n  ", file=sys.stderr)
            raise SystemExit(1)
        n = repeats if size <= TARGET_SIZE else min(repeats, large_repeats)
        samples = measure(contestants, n, min_time)
        if size in compared:
            kept[size] = contestants
        results["sizes"][str(size)] = _size_results(contestants, samples, n)
        print(f"{size:>6} blocks: measured in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        _print_size(results["sizes"][str(size)])
    results["growth"] = {}
    if len(kept) == 2:
        started = time.perf_counter()
        small, large = sorted(kept)
        # As many repeats as at the target size: a ratio of two samples is noisier than either sample.
        growth, details = measure_growth(kept[small], kept[large], repeats, min_time)
        results["growth"] = {"_sizes": {"small": small, "large": large}, "_repeats": repeats, **growth}
        results["growth_samples"] = {op: {name: d["seconds"] for name, d in by.items()} for op, by in details.items()}
        results["growth_over_floor"] = floors.growth_over_floor(results["growth_samples"])
        if resource is not None:
            results["growth_faults"] = {op: {name: d["faults"] for name, d in by.items()} for op, by in details.items()}
        print(f"growth {large:,} / {small:,} blocks: measured in {time.perf_counter() - started:.1f} s",
              file=sys.stderr)
        started = time.perf_counter()
        results["growth_cold"] = {"_copies": cold.COPIES,
                                  **cold.measure(lambda raw: Contestants(raw, ops), kept[large], small, repeats, _time)}
        print(f"growth, caches equally cold: measured in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    results["targets"] = evaluate(results)
    return results


def _row(what: str, limit: float, value: float | None) -> dict[str, Any]:
    return {"what": what, "limit": limit, "value": value, "ok": None if value is None else value <= limit}


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of the issue with the measured value and whether it holds (the pure-Python one without C)."""
    at = results["sizes"].get(str(TARGET_SIZE))
    accelerated = results["machine"]["accelerator"]
    targets = TARGETS if accelerated else PURE_TARGETS
    rows = [_row(f"{op}: {ours} / {peer}", limit, ratios(at["samples"], ours, peer, op) if at else None)
            for op, ours, peer, limit in targets]
    if not accelerated:
        return rows
    if at:
        ratio = ratios(at["samples"], OURS_STRUCT, OURS_ONE, "deepcopy")
        rows.append(_row("deepcopy is O(1): the whole conversation / one block", DEEPCOPY_LIMIT, ratio))
        mem = at["memory"]
        plain = mem[PLAIN_JSON] / at["corpus"]["messages"]
        for name in (OURS_JSON, OURS_ORJSON):
            if name in mem:
                held = mem[name] / at["corpus"]["messages"]
                rows.append(_row(f"memory per loaded message: {name}, {held:,.0f} B / {PLAIN_JSON}, {plain:,.0f} B",
                                 MEMORY_LIMIT, held / plain))
    grow, over = results.get("growth", {}), results.get("growth_over_floor", {})
    sizes = grow.get("_sizes")
    rows += [_row(f"growth over the floor's, {op}: {name}, {sizes['large']:,} / {sizes['small']:,} blocks",
                  FLOOR_GROWTH_LIMIT, over.get(op, {}).get(name))  # "not measured" where the floor is missing
             for op, by in grow.items() if not op.startswith("_") and op != "deepcopy"
             for name in by if name.startswith(OURS_STRUCT)]
    return rows


def _print_size(result: dict[str, Any]) -> None:
    for op, by in result["medians"].items():
        line = ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in by.items())
        print(f"  {op:<12} {line}", file=sys.stderr)
    for op, by in result["ratios"].items():
        for ours, others in by.items():
            shown = ", ".join(f"/{p} {v:.2f}" for p, v in others.items() if v is not None)
            print(f"  {op:<12} {ours}: {shown}", file=sys.stderr)


def _operations(text: str) -> tuple[str, ...]:
    chosen = tuple(op.strip() for op in text.split(",") if op.strip())
    unknown = [op for op in chosen if op not in OPERATIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"expected some of {', '.join(OPERATIONS)}; got {text!r}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=list(corpus.SIZES),
                        help="comma-separated corpus sizes in blocks (default: 200,2000,20000)")
    parser.add_argument("--repeats", type=int, default=11, help="interleaved repeats per size (default: 11)")
    parser.add_argument("--large-repeats", type=int, default=5,
                        help="repeats for sizes above 2,000 blocks (default: 5; at most --repeats)")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds each sample runs at least (default: 0.05)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: process CPU time (default); wall: time.perf_counter")
    parser.add_argument("--ops", type=_operations, default=OPERATIONS,
                        help=f"comma-separated operations to time (default: all: {','.join(OPERATIONS)})")
    parser.add_argument("--quick", action="store_true", help="a smoke run: sizes 200,2000, 3 repeats of 5 ms")
    parser.add_argument("--pure", action="store_true",
                        help="run again with CONTENTBLOCKS_PURE_PYTHON=1: contentblocks without its C accelerator")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every sample and ratio to OUT as JSON")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the results into PAGE (markdown)")
    arguments = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(arguments)
    if args.pure and not os.environ.get("CONTENTBLOCKS_PURE_PYTHON"):
        # The accelerator is chosen when contentblocks is imported, which this process has done.
        rest = [a for a in arguments if a != "--pure"]
        env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
        return subprocess.run([sys.executable, __file__, *rest, "--pure"], env=env, check=False).returncode  # noqa: S603
    if args.quick:
        args.sizes, args.repeats, args.min_time = [200, 2_000], 3, 0.005
    global _clock  # noqa: PLW0603 - set once, before any measurement
    _clock = CLOCKS[args.clock]
    results = run(args.sizes, args.repeats, args.min_time, large_repeats=args.large_repeats, ops=args.ops)
    results["command"] = "python bench/run.py " + " ".join(arguments)
    for row in results["targets"]:
        mark = "n/a" if row["ok"] is None else ("PASS" if row["ok"] else "FAIL")
        value = "not measured" if row["value"] is None else f"{row['value']:.3f}"
        print(f"{mark:>4}  {row['what']}: {value} (target <= {row['limit']:g})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.render:
        import render  # noqa: PLC0415

        render.write(args.render, results)
        print(f"wrote {args.render}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
