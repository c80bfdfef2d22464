"""Render benchmark results (from ``bench/run.py``) as markdown into ``docs/benchmarks.md``.

Only the part between the two marker comments is rewritten, so the prose around it (how to read the table,
the profile write-up) is kept. A page without the markers gets a heading and the results appended.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

BEGIN = "<!-- bench results: begin (written by bench/render.py; edit outside these markers) -->"
END = "<!-- bench results: end -->"
_X = "\N{MULTIPLICATION SIGN}"

_OPS = ("structure", "unstructure", "loads", "dumps", "deepcopy")
_OP_NAMES = {
    "structure": "structure (dicts → objects)",
    "unstructure": "unstructure (objects → dicts)",
    "loads": "loads (JSON bytes → objects)",
    "dumps": "dumps (objects → JSON)",
    "deepcopy": "`copy.deepcopy`",
}


def _time(seconds: float) -> str:
    if seconds >= 0.1:
        return f"{seconds * 1e3:,.0f} ms"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


def _mark(ok: bool | None) -> str:
    return "—" if ok is None else ("✅ pass" if ok else "❌ fail")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def results_markdown(results: dict[str, Any]) -> str:
    """The generated section: run details, targets, times, growth, memory and the corpus."""
    m = results["machine"]
    versions = ", ".join(f"{name} {v}" for name, v in m["versions"].items())
    sizes = sorted(results["sizes"], key=int)
    repeats = ", ".join(f"{results['sizes'][s]['repeats']} at {int(s):,} blocks" for s in sizes)
    lines = [
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d} with `{results.get('command', 'python bench/run.py')}`.",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores available ({m['platform']})",
        f"- Python: {m['python']}",
        f"- Libraries: {versions}",
        ("- contentblocks' C accelerator: "
         + {True: "in use", False: "not in use (pure Python)", None: "not recorded"}[m.get("accelerator")]),
        (f"- Method: interleaved repeats ({repeats}), each sample at least {results['min_time'] * 1e3:g} ms, "
         f"clock: {results.get('clock', 'cpu')} time; a ratio is the median over repeats of ours / peer in one repeat."),
        "",
        "### Targets (2,000-block corpus)",
        "",
    ]
    rows = []
    for row in results["targets"]:
        value = "not measured" if row["value"] is None else f"{row['value']:.2f}"
        rows.append([row["what"], f"≤ {row['limit']:g}", value, _mark(row["ok"])])
    lines += _table(["ratio", "target", "measured", ""], rows)
    if not results.get("orjson_preconf"):
        lines += ["", "`contentblocks.preconf.orjson` was not importable: its rows were not measured."]

    for size in sizes:
        at = results["sizes"][size]
        lines += ["", f"### Median time per call, {int(size):,} blocks", ""]
        rows = []
        for op in _OPS:
            by = at["medians"].get(op, {})
            # A row for each contestant that run.py gave ratios to: ours, and the floor.
            for name, ratio in at["ratios"].get(op, {}).items():
                shown = [f"{ratio[p]:.2f}" if ratio.get(p) is not None else "—" for p in ("pydantic", "msgspec")]
                rows.append([_OP_NAMES[op], name, _time(by[name]), _time(by["pydantic"]), _time(by["msgspec"]), *shown])
        lines += _table(["operation", "contentblocks path", "ours", "pydantic", "msgspec", "ours / pydantic",
                         "ours / msgspec"], rows)

    grow = results.get("growth") or {}
    if grow:
        small, large = grow["_sizes"]["small"], grow["_sizes"]["large"]
        json_growth = (results["sizes"][str(large)]["corpus"]["json bytes"]
                       / results["sizes"][str(small)]["corpus"]["json bytes"])
        lines += [
            "",
            f"### Growth: time at {large:,} blocks / time at {small:,} blocks",
            "",
            (f"Linear cost gives about {large / small:g}{_X} (the JSON text grows {json_growth:.1f}{_X}); the target "
             f"is at most {1.1 * large / small:g}{_X} for every operation of ours but deepcopy, which is O(1)."),
            (f"Each of {grow.get('_repeats', 'the')} repeats times both sizes back to back (in alternating order), "
             "and a growth is the median over repeats of the ratio of the two samples, so that a slow spell of "
             "the machine weighs on both sizes."),
            "",
        ]
        faults = results.get("growth_faults") or {}
        if faults:
            lines += [
                (f"Beside each growth, the minor page faults per call at {small:,} and at {large:,} blocks (the median "
                 "over the same samples): memory the process had to ask the kernel for again, page by page."),
                "",
            ]
        rows = []
        for op in _OPS:
            for name, value in grow.get(op, {}).items():
                row = [_OP_NAMES[op], name, f"{value:.2f}{_X}"]
                if faults:
                    at_small, at_large = faults.get(op, {}).get(name, (None, None))
                    row.append("—" if at_small is None else f"{at_small:,.0f} → {at_large:,.0f}")
                rows.append(row)
        header = ["operation", "library", "growth"]
        if faults:
            header.append(f"page faults per call, {small:,} → {large:,}")
        lines += _table(header, rows)
    cold = results.get("growth_cold") or {}
    if cold and grow:
        lines += [
            "",
            f"### Growth with the caches equally cold: {cold['_copies']} different {small:,}-block corpora in turn",
            "",
            (f"The same ratio, with the small size cycling through {cold['_copies']} corpora of {small:,} blocks "
             f"({large:,} blocks in all, as many as the large corpus), so that neither size runs from the "
             "processor's cache (see `bench/cold.py`). It is not the issue's target; it shows how much of the "
             "growth above is the cost of the code and how much is the cache."),
            "",
        ]
        rows = []
        for op in _OPS:
            for name, value in cold.get(op, {}).items():
                rows.append([_OP_NAMES[op], name, f"{value:.2f}{_X}", f"{grow[op][name]:.2f}{_X}"])
        lines += _table(["operation", "library", "growth, caches equally cold", "growth, as targeted"], rows)

    lines += ["", "### Memory held by the structured corpus (tracemalloc, loaded from JSON bytes)", ""]
    names = list(results["sizes"][sizes[0]]["memory"])
    rows = []
    for size in sizes:
        mem = results["sizes"][size]["memory"]
        rows.append([f"{int(size):,}", *(f"{mem[n] / 2**20:.2f} MiB" for n in names)])
    lines += _table(["blocks", *names], rows)

    lines += ["", "### The corpus", ""]
    keys: list[str] = []
    for size in sizes:
        keys += [k for k in results["sizes"][size]["corpus"] if k not in keys]
    rows = [[k, *(f"{results['sizes'][s]['corpus'].get(k, 0):,}" for s in sizes)] for k in keys]
    lines += _table(["", *(f"{int(s):,} blocks" for s in sizes)], rows)
    return "\n".join(lines) + "\n"


_NEW_PAGE = """# Benchmarks

{begin}
{end}
"""


def write(page: Path, results: dict[str, Any]) -> None:
    """Replace the generated section of ``page`` (creating the page if needed) with ``results``."""
    text = page.read_text(encoding="utf-8") if page.exists() else _NEW_PAGE.format(begin=BEGIN, end=END)
    if BEGIN not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"{head}{BEGIN}\n\n{results_markdown(results)}\n{END}{tail}", encoding="utf-8")
