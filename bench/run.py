"""Benchmark contentblocks against pydantic v2 and msgspec models of the same wire format.

Usage (from the repository root)::

    python bench/run.py                                 # 200, 2,000 and 20,000 blocks, 11 repeats
    python bench/run.py --quick                         # a smoke run: small sizes, 3 short repeats
    python bench/run.py --render docs/benchmarks.md     # also write the results table into the docs page
    python bench/run.py --sizes 2000 --repeats 21 --json results.json
    python bench/run.py --sizes 2000,20000 --ops unstructure  # one operation, with its growth

Each corpus (``bench/corpus.py``) is a conversation: a list of message dicts in canonical wire form.
First every library must round-trip it exactly (dicts and JSON); then every operation is timed, the
contestants interleaved within each repeat (their order rotating from one repeat to the next), so that a
slow spell of the machine hits all of them. Reported: the median time per call, and for each target the
median over repeats of the per-repeat ratio ours / peer. Garbage collection is off while a sample runs (as in
``timeit``) and collected before each sample. The clock is the process's CPU time by default (``--clock cpu``,
``time.process_time``): every contestant is single-threaded, so on an idle machine it equals wall time, and on a
busy one the other processes' load does not count (``--clock wall`` measures ``time.perf_counter`` instead).
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import math
import statistics
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
# Not a library: the cheapest way CPython has to make unstructure's output afresh (see output_floor).
FLOOR = "floor (the output copied)"
PYDANTIC = "pydantic"
MSGSPEC = "msgspec"

# (operation, our contestant, peer, maximum ratio ours / peer) on the 2,000-block corpus (issue 3).
TARGETS: list[tuple[str, str, str, float]] = [
    ("structure", OURS_STRUCT, PYDANTIC, 0.8),
    ("structure", OURS_STRUCT, MSGSPEC, 3.0),
    ("unstructure", OURS_STRUCT, PYDANTIC, 0.35),
    ("unstructure", OURS_STRUCT, MSGSPEC, 0.7),
    ("loads", OURS_ORJSON, PYDANTIC, 0.8),
    ("loads", OURS_JSON, PYDANTIC, 1.5),
    ("dumps", OURS_ORJSON, PYDANTIC, 0.5),
    ("dumps", OURS_JSON, PYDANTIC, 1.0),
]
TARGET_SIZE = 2_000
GROWTH_LIMIT = 11.0
DEEPCOPY_LIMIT = 2.0  # O(1): the whole conversation may not take twice as long as one block
OPERATIONS = ("structure", "unstructure", "loads", "dumps", "deepcopy")


class Contestants:
    """The three libraries' functions for one corpus, built once (converters, adapters, decoders)."""

    def __init__(self, raw: list[dict[str, Any]], ops: tuple[str, ...] = OPERATIONS) -> None:
        from peers import msgspec_model as mm  # noqa: PLC0415 - benchmark dependencies, loaded on use
        from peers import pydantic_model as pm  # noqa: PLC0415

        self.raw = raw
        self.data = orjson.dumps(raw)
        adapter = pm.adapter
        dump_options = pm.DUMP_OPTIONS
        target = cb.Conversation
        self.ours = cb.structure(raw, target)
        self.pyd = adapter.validate_python(raw)
        self.msg = mm.convert(raw)
        ours, pyd, msg, data = self.ours, self.pyd, self.msg, self.data
        validate_python, validate_json = adapter.validate_python, adapter.validate_json
        dump_python, dump_json = adapter.dump_python, adapter.dump_json
        structure, unstructure, loads, dumps = cb.structure, cb.unstructure, cb.loads, cb.dumps
        deepcopy = copy.deepcopy
        one = ours.messages[0].content[0]

        self.ops: dict[str, dict[str, Callable[[], Any]]] = {
            "structure": {
                OURS_STRUCT: lambda: structure(raw, target),
                PYDANTIC: lambda: validate_python(raw),
                MSGSPEC: lambda: mm.convert(raw),
            },
            "unstructure": {
                OURS_STRUCT: lambda: unstructure(ours),
                PYDANTIC: lambda: dump_python(pyd, **dump_options),
                MSGSPEC: lambda: mm.to_builtins(msg),
            },
            "loads": {
                OURS_JSON: lambda: loads(data, target),
                PYDANTIC: lambda: validate_json(data),
                MSGSPEC: lambda: mm.decode_json(data),
            },
            "dumps": {
                OURS_JSON: lambda: dumps(ours),
                PYDANTIC: lambda: dump_json(pyd, **dump_options),
                MSGSPEC: lambda: mm.encode_json(msg),
            },
            "deepcopy": {
                OURS_STRUCT: lambda: deepcopy(ours),
                OURS_ONE: lambda: deepcopy(one),
                PYDANTIC: lambda: deepcopy(pyd),
                MSGSPEC: lambda: deepcopy(msg),
            },
        }
        floor = output_floor(raw) if "unstructure" in ops else None  # raw is the output (check() proves it)
        if floor is not None:
            self.ops["unstructure"][FLOOR] = floor
        if cb_orjson is not None:
            converter = cb_orjson.make_converter()
            self.ops["loads"][OURS_ORJSON] = lambda: converter.loads(data, target)
            self.ops["dumps"][OURS_ORJSON] = lambda: converter.dumps(ours)
            self.orjson_converter = converter
        self.ours_loads = self.ops["loads"].get(OURS_ORJSON) or self.ops["loads"][OURS_JSON]
        self.ops = {op: fns for op, fns in self.ops.items() if op in ops}

    def check(self) -> list[str]:
        """Every library round-trips the corpus exactly; returns the failures (empty when all is well)."""
        from peers import msgspec_model as mm  # noqa: PLC0415
        from peers import pydantic_model as pm  # noqa: PLC0415

        raw, data = self.raw, self.data
        failures = []
        checks: list[tuple[str, Callable[[], bool]]] = [
            ("contentblocks: unstructure(structure(x)) == x", lambda: cb.unstructure(self.ours) == raw),
            ("contentblocks: loads(x) == structure(x)", lambda: cb.loads(data, cb.Conversation) == self.ours),
            ("contentblocks: json.loads(dumps(b)) == x", lambda: json.loads(cb.dumps(self.ours)) == raw),
            ("contentblocks: deepcopy(b) is b", lambda: copy.deepcopy(self.ours) is self.ours),
            ("pydantic: dump_python(validate_python(x)) == x",
             lambda: pm.adapter.dump_python(self.pyd, **pm.DUMP_OPTIONS) == raw),
            ("pydantic: validate_json(x) == validate_python(x)", lambda: pm.adapter.validate_json(data) == self.pyd),
            ("pydantic: json.loads(dump_json(m)) == x",
             lambda: json.loads(pm.adapter.dump_json(self.pyd, **pm.DUMP_OPTIONS)) == raw),
            ("msgspec: to_builtins(convert(x)) == x", lambda: mm.to_builtins(self.msg) == raw),
            ("msgspec: decode(x) == convert(x)", lambda: mm.decode_json(data) == self.msg),
            ("msgspec: json.loads(encode(s)) == x", lambda: json.loads(mm.encode_json(self.msg)) == raw),
        ]
        if FLOOR in self.ops.get("unstructure", {}):
            checks.append(("floor: the copy == x", lambda: self.ops["unstructure"][FLOOR]() == raw))
        if cb_orjson is not None:
            conv = self.orjson_converter
            checks += [
                ("contentblocks orjson: loads(x) == structure(x)",
                 lambda: conv.loads(data, cb.Conversation) == self.ours),
                ("contentblocks orjson: orjson.loads(dumps(b)) == x", lambda: orjson.loads(conv.dumps(self.ours)) == raw),
            ]
        for name, check in checks:
            try:
                ok = check()
            except Exception as e:  # noqa: BLE001 - a failed check is reported, not raised
                failures.append(f"{name}: raised {type(e).__name__}: {str(e)[:300]}")
            else:
                if not ok:
                    failures.append(f"{name}: not equal")
        return failures

    def memory(self) -> dict[str, int]:
        """Bytes the structured corpus holds, loaded from JSON bytes (so nothing is shared with the input)."""
        from peers import msgspec_model as mm  # noqa: PLC0415
        from peers import pydantic_model as pm  # noqa: PLC0415

        data = self.data
        loaders = {
            "plain dicts (orjson.loads)": lambda: orjson.loads(data),
            OURS_STRUCT: self.ours_loads,
            PYDANTIC: lambda: pm.adapter.validate_json(data),
            MSGSPEC: lambda: mm.decode_json(data),
        }
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


def output_floor(output: Any) -> Callable[[], Any] | None:
    """A call that makes ``output`` (plain dicts and lists) afresh in the fewest steps CPython has.

    The output is frozen once into the read-only containers that hold JSON values in blocks; the call then
    copies it back with the accelerator's C thaw: ``PyDict_Copy`` (one copy of each dict's table) and list
    slices, every string shared, nothing read from a block, no base64 encoded. Any unstructure that returns the
    same exact dicts and lists does at least this work: allocating, filling and, when the result is dropped,
    freeing the same containers. Its time is a lower bound, and its growth is what a faster unstructure would
    approach. None without the accelerator (a Python copy would be no lower bound).
    """
    from contentblocks._accel import speedups  # noqa: PLC0415 - the package's own C copy, private on purpose
    if speedups is None:
        return None
    miss = object()
    frozen = speedups.freeze(output, sys.maxsize, 1_000, sys.maxsize, miss)
    if frozen is miss:
        return None
    thaw = speedups.thaw
    return lambda: thaw(frozen, miss)


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


def measure(contestants: Contestants, repeats: int, min_time: float) -> dict[str, dict[str, list[float]]]:
    """Per operation and contestant, ``repeats`` samples of seconds per call, interleaved."""
    numbers: dict[tuple[str, str], int] = {}
    for op, fns in contestants.ops.items():
        for name, fn in fns.items():
            numbers[op, name] = _calls_per_sample(fn, min_time)
    samples: dict[str, dict[str, list[float]]] = {op: {name: [] for name in fns} for op, fns in contestants.ops.items()}
    for r in range(repeats):
        for op, fns in contestants.ops.items():
            names = list(fns)
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                samples[op][name].append(_time(fns[name], numbers[op, name]))
    return samples


def measure_growth(
    small: Contestants, large: Contestants, repeats: int, min_time: float
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, list[Any]]]]]:
    """Per operation and contestant, the median over repeats of (time on ``large``) / (time on ``small``).

    Both sizes are timed back to back in every repeat (the order alternates), so that a slower spell of a
    shared machine weighs on both samples of a ratio, not on one size's whole phase. Also returned, per
    operation and contestant: ``seconds``, each repeat's ``[small, large]`` seconds per call, and ``faults``,
    the median minor page faults per call at each size, ``[small, large]``.
    """
    numbers: dict[tuple[str, str, int], int] = {}
    for which, contestants in enumerate((small, large)):
        for op, fns in contestants.ops.items():
            for name, fn in fns.items():
                numbers[op, name, which] = _calls_per_sample(fn, min_time)
    out: dict[str, dict[str, float]] = {}
    details: dict[str, dict[str, dict[str, list[Any]]]] = {}
    for op, fns in large.ops.items():
        out[op] = {}
        details[op] = {}
        for name in fns:
            seconds = []
            per_size: dict[int, list[float]] = {0: [], 1: []}
            for r in range(repeats):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                times = {}
                for which in order:
                    times[which], faulted = _sample((small, large)[which].ops[op][name], numbers[op, name, which])
                    per_size[which].append(faulted)
                seconds.append([times[0], times[1]])
            out[op][name] = statistics.median(t_large / t_small for t_small, t_large in seconds)
            details[op][name] = {"seconds": seconds,
                                 "faults": [statistics.median(per_size[0]), statistics.median(per_size[1])]}
    return out, details


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
    for dist in ("contentblocks", "attrs", "cattrs", "orjson", "pydantic", "pydantic-core", "msgspec"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = "not installed"
    return {
        "cpu": cpu,
        "cores": os_cpu_count(),
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
        "accelerator": cb.speedups_enabled(),
    }


def os_cpu_count() -> int | None:
    import os  # noqa: PLC0415

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count()


def run(
    sizes: list[int], repeats: int, min_time: float, *, large_repeats: int, ops: tuple[str, ...] = OPERATIONS
) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": machine(), "repeats": repeats, "min_time": min_time,
                               "clock": next(name for name, c in CLOCKS.items() if c is _clock),
                               "orjson_preconf": cb_orjson is not None, "sizes": {}}
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
        results["sizes"][str(size)] = {
            "corpus": {**corpus.describe(raw), "json bytes": len(contestants.data)},
            "repeats": n,
            "samples": samples,
            "medians": {op: {name: statistics.median(s) for name, s in by.items()} for op, by in samples.items()},
            "ratios": {op: {ours: {peer: ratios(samples, ours, peer, op) for peer in (PYDANTIC, MSGSPEC, OURS_ONE)
                                   if peer in by} for ours in by if ours.startswith("contentblocks") or ours == FLOOR}
                       for op, by in samples.items()},
            "memory": contestants.memory(),
        }
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


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of the issue with the measured value and whether it holds."""
    rows: list[dict[str, Any]] = []
    at = results["sizes"].get(str(TARGET_SIZE))
    for op, ours, peer, limit in TARGETS:
        value = ratios(at["samples"], ours, peer, op) if at else None
        rows.append({"what": f"{op}: {ours} / {peer}", "limit": limit, "value": value,
                     "ok": None if value is None else value <= limit})
    if at:
        ratio = ratios(at["samples"], OURS_STRUCT, OURS_ONE, "deepcopy")
        rows.append({"what": "deepcopy is O(1): the whole conversation / one block", "limit": DEEPCOPY_LIMIT,
                     "value": ratio, "ok": None if ratio is None else ratio <= DEEPCOPY_LIMIT})
    grow = results.get("growth", {})
    sizes = grow.get("_sizes")
    if sizes:
        limit = GROWTH_LIMIT / 10 * sizes["large"] / sizes["small"]  # 11x for ten times the blocks
        for op, by in grow.items():
            if op.startswith("_") or op == "deepcopy":
                continue
            for name, value in by.items():
                if name.startswith("contentblocks"):
                    rows.append({"what": f"linear growth, {op}: {name}, {sizes['large']:,} / {sizes['small']:,} blocks",
                                                 "limit": limit, "value": value, "ok": value <= limit})
    return rows


def _print_size(result: dict[str, Any]) -> None:
    for op, by in result["medians"].items():
        line = ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in by.items())
        print(f"  {op:<12} {line}", file=sys.stderr)
    for op, by in result["ratios"].items():
        for ours, peers in by.items():
            shown = ", ".join(f"/{p} {v:.2f}" for p, v in peers.items() if v is not None)
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
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every sample and ratio to OUT as JSON")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the results table into PAGE (markdown)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats, args.min_time = [200, 2_000], 3, 0.005
    global _clock  # noqa: PLW0603 - set once, before any measurement
    _clock = CLOCKS[args.clock]
    results = run(args.sizes, args.repeats, args.min_time, large_repeats=args.large_repeats, ops=args.ops)
    results["command"] = "python bench/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
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
