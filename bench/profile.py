"""Profile contentblocks' hot paths on the 2,000-block corpus and print where the time goes.

Usage (from the repository root)::

    python bench/profile.py                        # cProfile: top functions by own time, per operation
    python bench/profile.py --ops structure,dumps --top 15 --sort cumulative
    python bench/profile.py --pyinstrument         # a call tree from pyinstrument (if installed)

The operations are the ones ``bench/run.py`` times: ``structure``, ``unstructure``, ``loads`` (``cb.loads``),
``loads-orjson`` and ``dumps-orjson`` (``contentblocks.preconf.orjson``), and ``dumps`` (``cb.dumps``); and one
part of structure alone, ``structure-json``: every JSON value of the corpus (tool inputs, JSON blocks and
tool results' JSON parts) structured as a JSON block, which is mostly the JSON-value walk.
cProfile adds a fixed cost to every Python call, so it overstates code that makes many small calls;
read its numbers as shares, and confirm a change with ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# This file shadows the standard library's ``profile`` module (which cProfile imports) while its folder is on
# sys.path: import cProfile without that folder, then put the folder back for ``corpus``.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
import cProfile  # noqa: E402
import pstats  # noqa: E402

sys.path.insert(0, str(_HERE))

import corpus  # noqa: E402
import orjson  # noqa: E402

import contentblocks as cb  # noqa: E402


def _json_blocks(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every JSON value of ``raw`` (tool inputs, JSON blocks, tool results' JSON parts), each as a JSON block."""
    blocks = corpus.blocks(raw)
    parts = [part for block in blocks if block["type"] == "tool_result" for part in block["content"]]
    values = [block["input"] for block in blocks if block["type"] == "tool_call"]
    values += [block["value"] for block in blocks + parts if block["type"] == "json"]
    return [{"type": "json", "value": value} for value in values]


def operations(size: int) -> dict[str, Callable[[], Any]]:
    raw = corpus.conversation(size)
    data = orjson.dumps(raw)
    obj = cb.structure(raw, cb.Conversation)
    json_blocks = _json_blocks(raw)
    ops: dict[str, Callable[[], Any]] = {
        "structure": lambda: cb.structure(raw, cb.Conversation),
        "structure-json": lambda: [cb.structure(block, cb.JsonBlock) for block in json_blocks],
        "unstructure": lambda: cb.unstructure(obj),
        "loads": lambda: cb.loads(data, cb.Conversation),
        "dumps": lambda: cb.dumps(obj),
    }
    try:
        from contentblocks.preconf.orjson import make_converter  # noqa: PLC0415
    except ImportError:
        return ops
    converter = make_converter()
    ops["loads-orjson"] = lambda: converter.loads(data, cb.Conversation)
    ops["dumps-orjson"] = lambda: converter.dumps(obj)
    return ops


def profile_cprofile(name: str, fn: Callable[[], Any], *, loops: int, top: int, sort: str) -> str:
    fn()  # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(loops):
        fn()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(top)
    total = stats.total_tt / loops  # type: ignore[attr-defined]
    text = out.getvalue()
    body = text[text.index("   ncalls"):] if "   ncalls" in text else text
    return f"== {name}: {total * 1e3:.1f} ms per call under cProfile ({loops} calls)\n{body}"


def profile_pyinstrument(name: str, fn: Callable[[], Any], *, loops: int) -> str:
    from pyinstrument import Profiler  # noqa: PLC0415

    fn()
    profiler = Profiler(interval=0.0002)
    profiler.start()
    for _ in range(loops):
        fn()
    profiler.stop()
    return f"== {name}\n" + profiler.output_text(unicode=True, color=False, show_all=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=2_000, help="corpus size in blocks (default: 2000)")
    parser.add_argument("--ops", default="", help="comma-separated operations (default: all)")
    parser.add_argument("--loops", type=int, default=5, help="calls profiled per operation (default: 5)")
    parser.add_argument("--top", type=int, default=20, help="functions listed per operation (default: 20)")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (default: tottime, i.e. own time)")
    parser.add_argument("--pyinstrument", action="store_true", help="use pyinstrument (a sampling profiler)")
    args = parser.parse_args(argv)
    ops = operations(args.size)
    chosen = [op for op in args.ops.split(",") if op] or list(ops)
    for name in chosen:
        if name not in ops:
            parser.error(f"unknown operation {name!r} (one of: {', '.join(ops)})")
        if args.pyinstrument:
            print(profile_pyinstrument(name, ops[name], loops=args.loops))
        else:
            print(profile_cprofile(name, ops[name], loops=args.loops, top=args.top, sort=args.sort))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
