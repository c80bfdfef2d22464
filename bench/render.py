"""Render benchmark results (from ``bench/run.py``) as markdown into ``docs/benchmarks.md``.

Only the part between two marker comments is rewritten, so the prose around it (how to read the tables, the
profile write-up) is kept: a run with the C accelerator writes between ``BEGIN`` and ``END``, a pure-Python run
(``--pure``) between ``PURE_BEGIN`` and ``PURE_END``. A page without the markers gets a heading and the results
appended.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

BEGIN = "<!-- bench results: begin (written by bench/render.py; edit outside these markers) -->"
END = "<!-- bench results: end -->"
PURE_BEGIN = "<!-- bench results, pure Python: begin (written by bench/render.py; edit outside these markers) -->"
PURE_END = "<!-- bench results, pure Python: end -->"
_X = "\N{MULTIPLICATION SIGN}"

_OPS = ("structure", "unstructure", "loads", "dumps", "deepcopy")
_OP_NAMES = {
    "structure": "structure (dicts → objects)",
    "unstructure": "unstructure (objects → dicts)",
    "loads": "loads (JSON bytes → objects)",
    "dumps": "dumps (objects → JSON)",
    "deepcopy": "`copy.deepcopy`",
}
_PEERS = ("pydantic", "msgspec", "pydantic-ai", "langchain-core")
_OURS = "contentblocks"
_FLOOR = "floor"


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


def _floor_of(names: Any) -> str | None:
    return next((name for name in names if name.startswith(_FLOOR)), None)


def _details(results: dict[str, Any]) -> list[str]:
    m = results["machine"]
    versions = ", ".join(f"{name} {v}" for name, v in m["versions"].items())
    sizes = sorted(results["sizes"], key=int)
    repeats = ", ".join(f"{results['sizes'][s]['repeats']} at {int(s):,} blocks" for s in sizes)
    return [
        f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d} with `{results.get('command', 'python bench/run.py')}`.",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores available ({m['platform']})",
        f"- Python: {m['python']}",
        f"- Libraries: {versions}",
        ("- contentblocks' C accelerator: "
         + {True: "in use", False: "not in use (pure Python)", None: "not recorded"}[m.get("accelerator")]),
        (f"- Method: interleaved repeats ({repeats}), each sample at least {results['min_time'] * 1e3:g} ms, "
         f"clock: {results.get('clock', 'cpu')} time; a ratio is the median over repeats of ours / peer in one repeat."),
    ]


def _targets(results: dict[str, Any]) -> list[str]:
    pure = "" if results["machine"].get("accelerator") else " without the accelerator"
    lines = ["", f"### Targets{pure} (2,000-block corpus)", ""]
    rows = [[row["what"], f"≤ {row['limit']:g}", "not measured" if row["value"] is None else f"{row['value']:.2f}",
             _mark(row["ok"])] for row in results["targets"]]
    lines += _table(["ratio", "target", "measured", ""], rows)
    if not results.get("orjson_preconf"):
        lines += ["", "`contentblocks.preconf.orjson` was not importable: its rows were not measured."]
    return lines


def _times(at: dict[str, Any], size: str) -> list[str]:
    """Two tables for one size: the median time of every contestant, and our ratios to each of the others."""
    times, shares = [], []
    for op in _OPS:
        by = at["medians"].get(op, {})
        floor = _floor_of(by)
        for ours, ratio in at["ratios"].get(op, {}).items():
            if ours == f"{_OURS} (one block)":
                continue
            times.append([_OP_NAMES[op], ours, _time(by[ours]), *(_time(by[p]) if p in by else "—" for p in _PEERS),
                          _time(by[floor]) if floor else "—"])
            shares.append([_OP_NAMES[op], ours, *(f"{ratio[p]:.2f}" if ratio.get(p) is not None else "—"
                                                  for p in (*_PEERS, floor))])
    lines = ["", f"### Median time per call, {int(size):,} blocks", ""]
    lines += _table(["operation", "contentblocks path", "ours", *_PEERS, "floor"], times)
    lines += ["", f"### Ours / theirs, {int(size):,} blocks", ""]
    lines += _table(["operation", "contentblocks path", *(f"/ {p}" for p in _PEERS), "/ floor"], shares)
    return lines


def _growth(results: dict[str, Any]) -> list[str]:
    grow = results.get("growth") or {}
    if not grow:
        return []
    small, large = grow["_sizes"]["small"], grow["_sizes"]["large"]
    json_growth = (results["sizes"][str(large)]["corpus"]["json bytes"]
                   / results["sizes"][str(small)]["corpus"]["json bytes"])
    over = results.get("growth_over_floor") or {}
    faults = results.get("growth_faults") or {}
    lines = [
        "",
        f"### Growth: time at {large:,} blocks / time at {small:,} blocks",
        "",
        (f"Linear cost gives about {large / small:g}{_X} (the JSON text grows {json_growth:.1f}{_X}). The target "
         f"is an operation's growth over its floor's growth, measured in the same repeats: at most "
         f"{results.get('floor_growth_limit', 1.1):g}{_X} for every operation of ours but deepcopy, which is O(1)."),
        (f"Each of {grow.get('_repeats', 'the')} repeats times both sizes of every contestant back to back (in "
         "alternating order), and a growth is the median over repeats of the ratio of the two samples, so that a "
         "slow spell of the machine weighs on both sizes."),
    ]
    if faults:
        lines += ["", (f"Beside each growth, the minor page faults per call at {small:,} and at {large:,} blocks (the "
                       "median over the same samples): memory the process had to ask the kernel for again, page by "
                       "page.")]
    rows = []
    for op in _OPS:
        for name, value in grow.get(op, {}).items():
            ratio = over.get(op, {}).get(name)
            row = [_OP_NAMES[op], name, f"{value:.2f}{_X}", "—" if ratio is None else f"{ratio:.2f}"]
            if faults:
                at_small, at_large = faults.get(op, {}).get(name, (None, None))
                row.append("—" if at_small is None else f"{at_small:,.0f} → {at_large:,.0f}")
            rows.append(row)
    header = ["operation", "contestant", "growth", "over the floor's growth"]
    if faults:
        header.append(f"page faults per call, {small:,} → {large:,}")
    return [*lines, "", *_table(header, rows)]


def _cold(results: dict[str, Any]) -> list[str]:
    cold, grow = results.get("growth_cold") or {}, results.get("growth") or {}
    if not cold or not grow:
        return []
    small, large = grow["_sizes"]["small"], grow["_sizes"]["large"]
    lines = [
        "",
        f"### Growth with the caches equally cold: {cold['_copies']} different {small:,}-block corpora in turn",
        "",
        (f"The same ratio, with the small size cycling through {cold['_copies']} corpora of {small:,} blocks "
         f"({large:,} blocks in all, as many as the large corpus), so that neither size runs from the "
         "processor's cache (see `bench/cold.py`). It is not the issue's target; it shows how much of the "
         "growth above is the cost of the code and how much is the cache."),
        "",
    ]
    rows = [[_OP_NAMES[op], name, f"{value:.2f}{_X}", f"{grow[op][name]:.2f}{_X}"]
            for op in _OPS for name, value in cold.get(op, {}).items()]
    return lines + _table(["operation", "contestant", "growth, caches equally cold", "growth, as targeted"], rows)


def _memory(results: dict[str, Any]) -> list[str]:
    sizes = sorted(results["sizes"], key=int)
    lines = ["", "### Memory held by the loaded corpus (tracemalloc, loaded from each library's JSON text)", "",
             "Per message: the total over the conversation's messages (the same count for every library).", ""]
    rows = []
    for name in results["sizes"][sizes[0]]["memory"]:
        cells = []
        for size in sizes:
            at = results["sizes"][size]
            held = at["memory"][name]
            cells.append(f"{held / 2**20:.2f} MiB, {held / at['corpus']['messages']:,.0f} B a message")
        rows.append([name, *cells])
    return lines + _table(["loaded by", *(f"{int(s):,} blocks" for s in sizes)], rows)


def _corpus(results: dict[str, Any]) -> list[str]:
    sizes = sorted(results["sizes"], key=int)
    keys: list[str] = []
    for size in sizes:
        keys += [k for k in results["sizes"][size]["corpus"] if k not in keys]
    rows = [[k, *(f"{results['sizes'][s]['corpus'].get(k, 0):,}" for s in sizes)] for k in keys]
    return ["", "### The corpus", "", *_table(["", *(f"{int(s):,} blocks" for s in sizes)], rows)]


def results_markdown(results: dict[str, Any]) -> str:
    """The generated section: run details, targets, times and ratios, growth, memory and the corpus."""
    lines = _details(results) + _targets(results)
    for size in sorted(results["sizes"], key=int):
        lines += _times(results["sizes"][size], size)
    lines += _growth(results) + _cold(results) + _memory(results) + _corpus(results)
    return "\n".join(lines) + "\n"


_NEW_PAGE = """# Benchmarks

{begin}
{end}
"""


def write(page: Path, results: dict[str, Any]) -> None:
    """Replace the generated section of ``page`` (creating the page if needed) for ``results``' kind of run."""
    pure = not results["machine"].get("accelerator")
    begin, end = (PURE_BEGIN, PURE_END) if pure else (BEGIN, END)
    text = page.read_text(encoding="utf-8") if page.exists() else _NEW_PAGE.format(begin=BEGIN, end=END)
    if begin not in text or end not in text:
        heading = "## Results without the accelerator\n\n" if pure else ""
        text = text.rstrip("\n") + f"\n\n{heading}{begin}\n{end}\n"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"{head}{begin}\n\n{results_markdown(results)}\n{end}{tail}", encoding="utf-8")
