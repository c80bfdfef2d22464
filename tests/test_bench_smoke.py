"""Smoke tests of the benchmark suite: the corpus is valid and deterministic, and both peers round-trip it."""

from __future__ import annotations

import copy
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import contentblocks as cb
from bench_modules import BENCH, bench_corpus, load_bench_module
from contentblocks._accel import speedups

corpus = bench_corpus()
ACCELERATED = speedups is not None


def _peer(library: str, module: str) -> ModuleType:
    pytest.importorskip(library)
    load_bench_module("_contentblocks_bench_peers", BENCH / "peers" / "__init__.py", package=True)
    return importlib.import_module(f"_contentblocks_bench_peers.{module}")


@pytest.fixture(scope="module")
def conversation() -> list[dict]:
    return corpus.conversation(50)


def test_corpus_is_deterministic_and_exactly_sized(conversation: list[dict]) -> None:
    """The same size and seed give the same corpus, with exactly that many top-level blocks."""
    assert corpus.conversation(50) == conversation
    assert len(corpus.blocks(conversation)) == 50
    assert corpus.conversation(50, seed=1) != conversation


@pytest.mark.parametrize("size", [50, 200])
def test_corpus_is_accepted_and_canonical(size: int) -> None:
    """cb.structure accepts every message and block of the corpus, and unstructure gives it back unchanged."""
    raw = corpus.conversation(size)
    conversation = cb.structure(raw, cb.Conversation)
    assert cb.unstructure(conversation) == raw
    for block in corpus.blocks(raw):
        assert cb.unstructure(cb.structure(block, cb.Block)) == block
    kinds = corpus.describe(raw)
    assert {"text", "reasoning", "tool_call", "tool_result", "text with citations"} <= kinds.keys()


def test_corpus_holds_inline_images_at_the_benchmark_sizes() -> None:
    """The 200-block corpus carries inline base64 images of 1-50 KB."""
    raw = corpus.conversation(200)
    sizes = [len(b["source"]["data"]) * 3 // 4 for b in corpus.blocks(raw)
             if b["type"] == "file" and b["source"]["type"] == "base64"]
    assert sizes
    assert all(1000 <= s <= 50 * 1024 + 2 for s in sizes)


def test_pydantic_peer_round_trips(conversation: list[dict]) -> None:
    """The pydantic models validate the corpus and dump it back, from dicts and from JSON."""
    pm = _peer("pydantic", "pydantic_model")
    models = pm.adapter.validate_python(conversation)
    assert pm.adapter.dump_python(models, **pm.DUMP_OPTIONS) == conversation
    assert pm.adapter.validate_json(json.dumps(conversation)) == models
    assert json.loads(pm.adapter.dump_json(models, **pm.DUMP_OPTIONS)) == conversation


def test_msgspec_peer_round_trips(conversation: list[dict]) -> None:
    """The msgspec structs convert the corpus and give it back, from dicts and from JSON."""
    mm = _peer("msgspec", "msgspec_model")
    structs = mm.convert(conversation)
    assert mm.to_builtins(structs) == conversation
    assert mm.decode_json(json.dumps(conversation).encode()) == structs
    assert json.loads(mm.encode_json(structs)) == conversation


_INVALID = [
    [{"role": "user", "content": [{"type": "text", "text": "hi", "extra": 1}]}],
    [{"role": "user", "content": [{"type": "reasoning", "text": "hmm"}]}],
    [{"role": "user", "content": [{"type": "file", "media_type": "image/png",
                                   "source": {"type": "base64", "data": "aGV sbG8="}}]}],
    [{"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c1", "tool_name": "f",
                                   "outcome": "succeeded", "content": []}]}],
    [{"role": "user", "content": []}],
]


@pytest.mark.parametrize("raw", _INVALID)
@pytest.mark.parametrize(("library", "module"), [("pydantic", "pydantic_model"), ("msgspec", "msgspec_model")])
def test_peers_refuse_what_the_spec_refuses(library: str, module: str, raw: list[dict]) -> None:
    """Unknown keys, role violations, base64 with spaces, unpaired results and empty content fail in the peers."""
    peer = _peer(library, module)
    with pytest.raises(cb.ValidationError):
        cb.structure(copy.deepcopy(raw), cb.Conversation)
    validate = peer.adapter.validate_python if module == "pydantic_model" else peer.convert
    with pytest.raises(ValueError):
        validate(raw)


def _run_bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / "run.py"), *args], cwd=cwd, capture_output=True, text=True,  # noqa: S603
                          timeout=300, check=False)


def test_run_times_the_chosen_operations_and_renders_their_growth(tmp_path: Path) -> None:
    """--ops limits the run to some operations; the rest are "not measured"; growth shows its page faults."""
    pytest.importorskip("pydantic")
    pytest.importorskip("msgspec")
    page = tmp_path / "page.md"
    page.write_text("# Before\n\nkept prose\n", encoding="utf-8")
    done = _run_bench("--sizes", "20,50", "--repeats", "1", "--min-time", "0.001", "--ops", "unstructure",
                      "--render", str(page), "--json", str(tmp_path / "results.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert set(results["sizes"]["50"]["samples"]) == {"unstructure"}
    assert set(results["growth"]) - {"_sizes", "_repeats"} == {"unstructure"}
    for name, seconds in results["growth_samples"]["unstructure"].items():
        assert len(seconds) == 1
        assert all(t > 0 for t in seconds[0])
        assert results["growth"]["unstructure"][name] == seconds[0][1] / seconds[0][0]
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Before\n\nkept prose\n")
    assert "| structure: contentblocks / pydantic | ≤ 0.8 | not measured | — |" in text
    assert "| unstructure (objects → dicts) | contentblocks |" in text
    assert "loads (JSON bytes → objects) |" not in text
    # The floor is timed where the accelerator is built; the run has already checked that it copies the
    # corpus's output exactly (a failed round trip exits 1).
    floor = ["floor (the output copied)"] if ACCELERATED else []
    assert set(results["growth"]["unstructure"]) == {"contentblocks", "pydantic", "msgspec", *floor}
    assert ("| unstructure (objects → dicts) | floor (the output copied) |" in text) == ACCELERATED
    if sys.platform.startswith("linux"):
        faults = results["growth_faults"]["unstructure"]
        assert set(faults) == {"contentblocks", "pydantic", "msgspec", *floor}
        assert all(len(pair) == 2 and min(pair) >= 0 for pair in faults.values())
        assert "page faults per call, 20 → 50 |" in text


def test_run_refuses_an_unknown_operation(tmp_path: Path) -> None:
    """A misspelt operation is a usage error (exit 2) that names the operations, before anything is measured."""
    done = _run_bench("--ops", "unstructure,dump", cwd=tmp_path)
    assert done.returncode == 2
    assert "expected some of structure, unstructure, loads, dumps, deepcopy; got 'unstructure,dump'" in done.stderr


def test_instructions_merges_a_function_s_lines_in_callgrind_annotate_s_report() -> None:
    """Recursion levels and code inlined from headers count with their function, defined in its .c file."""
    instructions = load_bench_module("_contentblocks_bench_instructions", BENCH / "instructions.py")
    report = """\
--------------------------------------------------------------------------------
190,179,905 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
67,019,712 (35.24%)  /tmp/build/Python/ceval.c:_PyEval_EvalFrameDefault'2 [/usr/lib/libpython3.11.so.1.0]
10,844,946 ( 5.70%)  /work/src/speedups/base64.c:speedups_b64decode [/work/src/_speedups.so]
 1,948,833 ( 1.02%)  ./Include/object.h:_PyFrame_Clear
 1,732,415 ( 0.91%)  ./Include/object.h:_PyEval_EvalFrameDefault'2
   890,610 ( 0.47%)  ./Include/internal/pycore_frame.h:_PyEval_EvalFrameDefault
"""
    total, functions = instructions.parse_annotated(report)
    assert total == 190_179_905
    assert functions == {
        "_PyEval_EvalFrameDefault (ceval.c)": 67_019_712 + 1_732_415 + 890_610,
        "speedups_b64decode (base64.c)": 10_844_946,
        "_PyFrame_Clear": 1_948_833,
    }
    with pytest.raises(SystemExit, match="no total"):
        instructions.parse_annotated("nothing here")


def test_growth_quick_run_renders_between_its_markers(tmp_path: Path) -> None:
    """bench/growth.py --quick times append at two sizes and the rebuild, and writes only between its markers."""
    page = tmp_path / "page.md"
    page.write_text("a\n<!-- growth-benchmark:start -->\nold\n<!-- growth-benchmark:end -->\nb\n", encoding="utf-8")
    done = subprocess.run(  # noqa: S603 - our own script
        [sys.executable, str(BENCH / "growth.py"), "--quick", "--render", str(page)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert "old" not in text
    assert text.startswith("a\n<!-- growth-benchmark:start -->\n| how | turns |")
    assert "| `append` | 2,000 |" in text
    assert "| rebuild every turn | 200 |" in text
    assert text.endswith("<!-- growth-benchmark:end -->\nb\n")
