"""Differential fuzz of every provider reader: ``python fuzz/readers.py --cases 200000 --seed 1`` (nox -s fuzz_readers).

Runs ``--cases`` mutated cases through each reader (``tests/reader_fuzz_readers.py`` says what is checked),
prints per reader the cases run, the cases per second and the failures by class, and writes every failure
class's first cases (up to ``--keep`` each) as JSON lines to ``--out``. Exits 1 when a class not in ``KNOWN``
was found. ``--jobs`` spreads the readers' cases over processes; a case is reproduced by ``--seed`` and its index
alone (``--reader NAME --start I --cases 1``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from reader_fuzz import shrink
from reader_fuzz_readers import KNOWN, Reader, readers

_READERS: dict[str, Reader] = {}


def _run(job: tuple[str, int, int, int, int]) -> tuple[str, int, float, Counter[str], list[dict[str, object]]]:
    """Run cases ``start .. start + count`` of one reader; its count, time, classes and kept failures."""
    name, seed, start, count, keep = job
    if not _READERS:
        _READERS.update(readers())
    reader = _READERS[name]
    classes: Counter[str] = Counter()
    kept: list[dict[str, object]] = []
    began = time.perf_counter()
    for index in range(start, start + count):
        case = reader.case(seed, index)
        for failure in reader.check(case.value):
            classes[failure.key] += 1
            if classes[failure.key] <= keep:
                kept.append({"key": failure.key, "known": failure.key in KNOWN, "reader": name, "form": failure.form,
                             "seed": seed, "index": index, "seed_name": case.seed_name, "mutations": case.mutations,
                             "detail": failure.detail, "input": json.dumps(case.value)})
    return name, count, time.perf_counter() - began, classes, kept


def _slug(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")[:90]


def reproduce(failures: Path, into: Path) -> int:
    """Shrink the first case of each failure class in ``failures`` and write it to ``into/<class>.json``."""
    found = readers()
    done: set[str] = set()
    for line in failures.read_text(encoding="utf-8").splitlines():
        failure = json.loads(line)
        key = failure["key"]
        if key in done:
            continue
        done.add(key)
        reader = found[failure["reader"]]

        def fails(value: object, reader: Reader = reader, key: str = key) -> bool:
            return any(f.key == key for f in reader.check(value))

        if not fails(failure["input"]):
            print(f"not reproduced: {key}")
            continue
        small = shrink(failure["input"], fails)
        forms = sorted({f.form for f in reader.check(small) if f.key == key})
        case = {"key": key, "reader": failure["reader"], "forms": forms, "item": None,
                "found": f"seed {failure['seed']} case {failure['index']}: {failure['seed_name']}, "
                         + "; ".join(failure["mutations"]),
                "input": small}
        path = into / f"{_slug(key)}.json"
        lines = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in case.items())  # one key a line
        path.write_text("{\n" + lines + "\n}\n", encoding="utf-8")
        print(f"{path}: {key}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200_000, help="cases per reader (default 200,000)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="the first case's index (default 0)")
    parser.add_argument("--reader", action="append", help="a reader to run (repeatable; default every reader)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--keep", type=int, default=3, help="failing cases kept per class (default 3)")
    parser.add_argument("--out", default="reader-fuzz-failures.jsonl", help="where failing cases go")
    parser.add_argument("--reproduce", type=Path, help="shrink the cases of this --out file into --into, and stop")
    parser.add_argument("--into", type=Path, default=Path("tests/fuzz_cases"), help="where --reproduce writes")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # pydantic warns when it dumps an SDK object holding junk; that is the point
    if args.reproduce:
        return reproduce(args.reproduce, args.into)
    names = args.reader or sorted(readers())
    chunk = max(1, min(5_000, args.cases // max(1, args.jobs)))
    jobs = [(name, args.seed, start, min(chunk, args.start + args.cases - start), args.keep)
            for name in names for start in range(args.start, args.start + args.cases, chunk)]
    totals: dict[str, list[float]] = {name: [0, 0.0] for name in names}
    classes: dict[str, Counter[str]] = {name: Counter() for name in names}
    kept: list[dict[str, object]] = []
    began = time.perf_counter()
    with multiprocessing.Pool(args.jobs, initializer=warnings.simplefilter, initargs=("ignore",)) as pool:
        for name, count, seconds, found, failures in pool.imap_unordered(_run, jobs):
            totals[name][0] += count
            totals[name][1] += seconds
            classes[name].update(found)
            kept += [f for f in failures if sum(k["key"] == f["key"] for k in kept) < args.keep]
    wall = time.perf_counter() - began
    print(f"seed {args.seed}, cases {args.start}..{args.start + args.cases - 1}, {args.jobs} job(s), {wall:.0f} s")
    print(f"{'reader':32} {'cases':>9} {'cases/s':>9} {'failing':>8}")
    for name in names:
        count, seconds = totals[name]
        rate = count / seconds if seconds else 0
        print(f"{name:32} {int(count):>9,} {rate:>9,.0f} {sum(classes[name].values()):>8,}")
    unknown = sorted({key for found in classes.values() for key in found if key not in KNOWN})
    for name in names:
        for key, n in sorted(classes[name].items()):
            print(f"  {'known  ' if key in KNOWN else 'NEW    '}{n:>7,}  {key}")
    with Path(args.out).open("w", encoding="utf-8") as out:
        out.writelines(json.dumps({**failure, "input": json.loads(str(failure["input"]))}) + "\n" for failure in kept)
    print(f"{len(kept)} failing case(s) written to {args.out}; {len(unknown)} class(es) not known")
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
