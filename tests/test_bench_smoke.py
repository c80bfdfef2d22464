"""Smoke tests of the benchmark suite: the corpus is valid and deterministic, every peer round-trips it, runs work."""

from __future__ import annotations

import copy
import doctest
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import contentblocks as cb
from bench_modules import BENCH, bench_corpus, load_bench_module
from contentblocks._conversion._kernels import speedups

corpus = bench_corpus()
RENDER = load_bench_module("_contentblocks_bench_render", BENCH / "render.py")
ACCELERATED = speedups is not None
PEERS = ("pydantic", "msgspec", "pydantic-ai", "langchain-core")


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
    assert pm.peer(conversation).failures() == []


def test_msgspec_peer_round_trips(conversation: list[dict]) -> None:
    """The msgspec structs convert the corpus and give it back, from dicts and from JSON."""
    mm = _peer("msgspec", "msgspec_model")
    structs = mm.convert(conversation)
    assert mm.to_builtins(structs) == conversation
    assert mm.decode_json(json.dumps(conversation).encode()) == structs
    assert json.loads(mm.encode_json(structs)) == conversation
    assert mm.peer(conversation).failures() == []


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


@pytest.mark.parametrize("size", [50, 200])
def test_pydantic_ai_peer_round_trips_its_form_of_the_corpus(size: int) -> None:
    """pydantic-ai validates and dumps its form of the corpus exactly, from dicts and from JSON, keeping the calls."""
    pai = _peer("pydantic_ai", "pydantic_ai_messages")
    raw = corpus.conversation(size)
    peer = pai.peer(raw)
    assert peer.failures() == []
    assert [m["kind"] for m in peer.form] == ["response" if m["role"] == "assistant" else "request" for m in raw]
    calls = [(b["tool_call_id"], b["tool_name"], b["input"]) for b in corpus.blocks(raw) if b["type"] == "tool_call"]
    held = [(p["tool_call_id"], p["tool_name"], p["args"]) for m in peer.form for p in m["parts"]
            if p["part_kind"] == "tool-call"]
    assert held == calls
    outcomes = {"succeeded": "success", "failed": "failed", "denied": "denied"}
    results = [outcomes[b["outcome"]] for b in corpus.blocks(raw) if b["type"] == "tool_result"]
    assert [p["outcome"] for m in peer.form for p in m["parts"] if p["part_kind"] == "tool-return"] == results


def test_pydantic_ai_peer_keeps_citations_images_and_redacted_reasoning() -> None:
    """Citations become pydantic-ai's, inline images its binary content and redacted bytes a redacted thinking part."""
    pai = _peer("pydantic_ai", "pydantic_ai_messages")
    raw = [
        {"role": "user", "content": [{"type": "file", "media_type": "image/png", "filename": "a.png",
                                      "source": {"type": "base64", "data": "iVBORw0KGgo="}}]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "redacted": "AAEC"},
            {"type": "text", "text": "Paris", "citations": [
                {"source": {"kind": "uri", "value": "https://example.com/p"}, "quote": "Par", "start": 0, "end": 3},
                {"source": {"kind": "reference", "value": "doc:7"}, "title": "Atlas", "start": 2, "end": 2}]}]},
        {"role": "assistant", "content": [{"type": "refusal", "text": "No."}]},
    ]
    image, response, refusal = pai.history(raw)
    binary = image.parts[0].content[0]
    assert (binary.data, binary.media_type, binary.identifier) == (b"\x89PNG\r\n\x1a\n", "image/png", "a.png")
    redacted, text = response.parts
    assert (redacted.id, redacted.content, redacted.signature) == ("redacted_thinking", "", "AAEC")
    web, document = text.citations
    assert (web.sources[0].url, web.sources[0].excerpts, web.anchor.start, web.anchor.end) == (
        "https://example.com/p", ["Par"], 0, 3)
    assert (document.sources[0].document_id, document.sources[0].title, document.anchor) == ("doc:7", "Atlas", None)
    assert (refusal.parts, refusal.finish_reason, refusal.provider_details) == ([], "content_filter", {"refusal": "No."})
    assert pai.peer(raw).failures() == []


@pytest.mark.parametrize("size", [50, 200])
def test_langchain_peer_round_trips_its_form_of_the_corpus(size: int) -> None:
    """langchain-core loads and dumps its form of the corpus exactly, one ToolMessage per tool result."""
    lc = _peer("langchain_core", "langchain_messages")
    raw = corpus.conversation(size)
    peer = lc.peer(raw)
    assert peer.failures() == []
    results = [b for b in corpus.blocks(raw) if b["type"] == "tool_result"]
    tool_messages = [m["data"] for m in peer.form if m["type"] == "tool"]
    assert [(m["tool_call_id"], m["name"]) for m in tool_messages] == [(b["tool_call_id"], b["tool_name"])
                                                                        for b in results]
    assert [m["status"] for m in tool_messages] == ["success" if b["outcome"] == "succeeded" else "error"
                                                    for b in results]
    assert len(peer.form) == len(raw) - sum(m["role"] == "tool" for m in raw) + len(results)


def test_langchain_peer_writes_langchain_s_standard_blocks() -> None:
    """Citations become annotations, signatures and file names extras, references file ids, JSON non-standard."""
    lc = _peer("langchain_core", "langchain_messages")
    raw = [
        {"role": "user", "content": [
            {"type": "file", "media_type": "text/csv", "filename": "q.csv",
             "source": {"type": "reference", "id": "file-1", "provider": "openai"}},
            {"type": "json", "value": {"k": [1, 2]}}]},
        {"role": "assistant", "metadata": {"app/run": "r1"}, "content": [
            {"type": "reasoning", "text": "hm", "signature": "c2ln"},
            {"type": "text", "text": "Paris", "citations": [
                {"source": {"kind": "reference", "value": "doc:7"}, "quote": "Par", "start": 0, "end": 3}]},
            {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"a": 1}}]},
    ]
    user, assistant = lc.messages(raw)
    assert user.content == [
        {"type": "file", "mime_type": "text/csv", "file_id": "file-1",
         "extras": {"filename": "q.csv", "provider": "openai"}},
        {"type": "non_standard", "value": {"k": [1, 2]}},
    ]
    assert assistant.content == [
        {"type": "reasoning", "reasoning": "hm", "extras": {"signature": "c2ln"}},
        {"type": "text", "text": "Paris", "annotations": [
            {"type": "citation", "cited_text": "Par", "start_index": 0, "end_index": 3,
             "extras": {"document_id": "doc:7"}}]},
    ]
    assert assistant.tool_calls == [{"type": "tool_call", "name": "f", "args": {"a": 1}, "id": "c1"}]
    assert assistant.additional_kwargs == {"metadata": {"app/run": "r1"}}
    assert lc.peer(raw).failures() == []


def test_a_peer_that_loses_content_fails_its_round_trip_checks(conversation: list[dict]) -> None:
    """A peer whose dump drops a message, or whose load differs from its validation, is reported, not timed."""
    peers = load_bench_module("_contentblocks_bench_peers", BENCH / "peers" / "__init__.py", package=True)
    assert doctest.testmod(peers).failed == 0
    lossy = peers.Peer(name="lossy", form=conversation, text=json.dumps(conversation), structure=list,
                       unstructure=lambda held: held[1:], loads=lambda text: json.loads(text)[:-1],
                       dumps=json.dumps)
    assert lossy.failures() == [
        "lossy: unstructure(structure(form)) == form: not equal",
        "lossy: loads(text) == structure(form): not equal",
        "lossy: json.loads(dumps(loads(text))) == form: not equal",
    ]
    mutating = peers.Peer(name="mutating", form=[{"a": 1}], text="[]", structure=lambda form: form.pop(),
                          unstructure=lambda held: [held], loads=json.loads, dumps=json.dumps)
    assert "mutating: structure leaves its input unchanged: not equal" in mutating.failures()


def test_floors_make_what_they_stand_for(conversation: list[dict]) -> None:
    """Each floor makes its operation's output (or reads its input) exactly, and is left out only without C."""
    floors = _peer("orjson", "floors")
    data = json.dumps(conversation).encode()
    made = floors.floors(conversation, data)
    expected = {"loads", "dumps"} | ({"structure", "unstructure"} if ACCELERATED else set())
    assert set(made) <= set(floors.NAMES)
    assert expected <= set(made)
    assert all(floor.name == floors.NAMES[op] and floor.check() for op, floor in made.items())
    assert made["loads"].call() == conversation
    assert json.loads(made["dumps"].call()) == conversation
    if "unstructure" in made:
        copied = made["unstructure"].call()
        assert copied == conversation
        assert copied is not made["unstructure"].call()
        assert type(copied[0]) is dict


def test_growth_over_the_floor_is_a_median_of_per_repeat_quotients() -> None:
    """Each repeat's growth is divided by the floor's growth in the same repeat; operations without a floor are left out."""
    floors = _peer("orjson", "floors")
    assert doctest.testmod(floors).failed == 0
    seconds = {
        "dumps": {"ours": [[1.0, 11.0], [2.0, 30.0]], floors.NAMES["dumps"]: [[1.0, 10.0], [1.0, 10.0]]},
        "deepcopy": {"ours": [[1.0, 1.0]]},
    }
    assert floors.growth_over_floor(seconds) == {"dumps": {"ours": pytest.approx(1.3)}}


def _run_bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / "run.py"), *args], cwd=cwd, capture_output=True, text=True,  # noqa: S603
                          timeout=300, check=False)


def _needs_every_peer() -> None:
    for library in ("pydantic", "msgspec", "pydantic_ai", "langchain_core", "orjson"):
        pytest.importorskip(library)


def test_run_times_the_chosen_operations_and_judges_growth_against_the_floor(tmp_path: Path) -> None:
    """--ops limits the run; the rest are "not measured"; growth is judged over the floor's, with page faults."""
    _needs_every_peer()
    page = tmp_path / "page.md"
    page.write_text("# Before\n\nkept prose\n", encoding="utf-8")
    done = _run_bench("--sizes", "20,50", "--repeats", "1", "--min-time", "0.001", "--ops", "unstructure,loads",
                      "--render", str(page), "--json", str(tmp_path / "results.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert set(results["sizes"]["50"]["samples"]) == {"unstructure", "loads"}
    assert set(results["growth"]) - {"_sizes", "_repeats"} == {"unstructure", "loads"}
    samples = results["growth_samples"]
    for by in samples.values():
        for seconds in by.values():
            assert len(seconds) == 1
            assert all(t > 0 for t in seconds[0])
    ours, floor = "contentblocks (cb.loads/cb.dumps)", "floor: orjson.loads"
    (small, large), ((floor_small, floor_large),) = samples["loads"][ours][0], samples["loads"][floor]
    assert results["growth"]["loads"][ours] == large / small
    assert results["growth_over_floor"]["loads"][ours] == pytest.approx((large / small) / (floor_large / floor_small))
    # The C floors are timed where the accelerator is in use; the run has already checked that each makes its
    # output exactly (a failed round trip exits 1).
    c_floor = ["floor: the output copied (C)"] if ACCELERATED else []
    assert set(results["growth"]["unstructure"]) == {"contentblocks", *PEERS, *c_floor}
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Before\n\nkept prose\n")
    assert "| unstructure (objects → dicts) | contentblocks |" in text
    assert "| dumps (objects → JSON) |" not in text
    assert ("| unstructure (objects → dicts) | floor: the output copied (C) |" in text) == ACCELERATED
    if ACCELERATED:
        assert "| structure: contentblocks / pydantic | ≤ 0.5 | not measured | — |" in text
        assert f"| growth over the floor's, loads: {ours}, 50 / 20 blocks | ≤ 1.1 |" in text
        assert "Results without the accelerator" not in text
    else:
        assert "## Results without the accelerator" in text
        assert "| structure: contentblocks / pydantic-ai | ≤ 0.6 | not measured | — |" in text
        assert "growth over the floor's" not in text.split("### Targets", 1)[1].split("###", 1)[0]
    if sys.platform.startswith("linux"):
        faults = results["growth_faults"]["unstructure"]
        assert set(faults) == {"contentblocks", *PEERS, *c_floor}
        assert all(len(pair) == 2 and min(pair) >= 0 for pair in faults.values())
        assert "page faults per call, 20 → 50 |" in text


def test_pure_run_writes_its_own_section_with_its_one_target(tmp_path: Path) -> None:
    """--pure runs without the accelerator, judges structure against pydantic-ai, and rewrites only its section."""
    _needs_every_peer()
    page = tmp_path / "page.md"
    page.write_text(f"# B\n\n{RENDER.BEGIN}\nold accelerated\n{RENDER.END}\n\nprose\n\n"
                    f"{RENDER.PURE_BEGIN}\nold pure\n{RENDER.PURE_END}\n\nend\n", encoding="utf-8")
    done = _run_bench("--pure", "--sizes", "2000", "--repeats", "1", "--min-time", "0.001", "--ops", "structure",
                      "--render", str(page), "--json", str(tmp_path / "results.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["machine"]["accelerator"] is False
    assert [row["what"] for row in results["targets"]] == ["structure: contentblocks / pydantic-ai"]
    assert results["targets"][0]["value"] > 0
    assert "PASS  structure: contentblocks / pydantic-ai" in done.stdout or "FAIL  structure" in done.stdout
    text = page.read_text(encoding="utf-8")
    assert f"{RENDER.BEGIN}\nold accelerated\n{RENDER.END}\n\nprose\n\n{RENDER.PURE_BEGIN}\n\n" in text
    assert "old pure" not in text
    assert "- contentblocks' C accelerator: not in use (pure Python)" in text
    assert "### Targets without the accelerator (2,000-block corpus)" in text
    assert text.endswith(f"{RENDER.PURE_END}\n\nend\n")


def test_run_refuses_an_unknown_operation(tmp_path: Path) -> None:
    """A misspelt operation is a usage error (exit 2) that names the operations, before anything is measured."""
    done = _run_bench("--ops", "unstructure,dump", cwd=tmp_path)
    assert done.returncode == 2
    assert "expected some of structure, unstructure, loads, dumps, deepcopy; got 'unstructure,dump'" in done.stderr


def test_profile_s_json_operation_structures_each_json_value_of_the_corpus_once() -> None:
    """``structure-json`` (bench/profile.py, counted by bench/instructions.py) takes every JSON value once."""
    profile = load_bench_module("_contentblocks_bench_profile", BENCH / "profile.py")
    raw = corpus.conversation(200)
    expected = []
    for block in corpus.blocks(raw):
        if block["type"] == "tool_call":
            expected.append(block["input"])
        elif block["type"] == "json":
            expected.append(block["value"])
        elif block["type"] == "tool_result":
            expected += [part["value"] for part in block["content"] if part["type"] == "json"]
    made = profile.operations(200)["structure-json"]()
    assert len(expected) > 20
    assert all(type(block) is cb.JsonBlock for block in made)
    assert sorted(json.dumps(block.value, sort_keys=True) for block in made) == sorted(
        json.dumps(value, sort_keys=True) for value in expected
    )


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
