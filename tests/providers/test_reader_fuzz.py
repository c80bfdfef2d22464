"""The differential reader fuzz, fast slice: a few hundred mutated cases per reader, and the reproducers.

Every provider reader (``from_response``, ``from_provider``, MCP's ``from_call_tool_result``, and the four
stream readers) takes mutated provider payloads and streams in their dict and SDK forms; only
``ValidationError`` (``StreamError`` from a stream) may leave, with a path into the input, and a stream either
fails or folds to ``from_response`` of what the SDK accumulates. ``fuzz/readers.py`` (``nox -s fuzz_readers``)
runs the same check at 200,000 cases per reader. The failure classes already known are in
``reader_fuzz_readers.KNOWN``, each reproduced by a file in ``tests/fuzz_cases/``; any other class fails here.

``CB_READER_FUZZ_CASES`` (default 150) and ``CB_READER_FUZZ_SEED`` (default 0) set the slice.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

pytest.importorskip("anthropic")
pytest.importorskip("openai")
pytest.importorskip("google.genai")
pytest.importorskip("mcp")

import reader_fuzz
from reader_fuzz_readers import KNOWN, Failure, Reader, readers

READERS = readers()
CASES = int(os.environ.get("CB_READER_FUZZ_CASES", "150"))
SEED = int(os.environ.get("CB_READER_FUZZ_SEED", "0"))
REPRODUCERS = sorted(reader_fuzz.CASES.glob("*.json"))


def _reproducer(path: Path) -> dict[str, object]:
    return json.loads(path.read_text(encoding="utf-8"))


def _quiet(reader: Reader, value: object) -> list[Failure]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic warns when it dumps an SDK object holding junk
        return reader.check(value)


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_seed_reads(name):
    """Each seed, unmutated, reads in every form without a failure (so a mutant's failure is the mutation's)."""
    reader = READERS[name]
    for seed_name, value in reader.seeds.items():
        assert _quiet(reader, value) == [], seed_name
        reader.read(json.loads(json.dumps(value)))


@pytest.mark.parametrize("name", sorted(READERS))
def test_mutated_cases_raise_only_validation_errors_and_fold_as_the_sdk(name):
    """A slice of mutated cases gives no failure of a class not already known."""
    reader = READERS[name]
    new: dict[str, str] = {}
    for index in range(CASES):
        case = reader.case(SEED, index)
        for failure in _quiet(reader, case.value):
            if failure.key not in KNOWN:
                new.setdefault(failure.key, f"python fuzz/readers.py --reader {name} --seed {SEED} --start {index} "
                                            f"--cases 1  # {failure.form}: {failure.detail[:200]}")
    assert not new, "new failure classes:\n" + "\n".join(f"{k}\n    {v}" for k, v in new.items())


@pytest.mark.parametrize("path", REPRODUCERS, ids=[p.stem for p in REPRODUCERS])
def test_reproducer(path):
    """A minimal case of a failure class found by the fuzz reads without failing (xfail while its class is known)."""
    case = _reproducer(path)
    keys = {f.key for f in _quiet(READERS[str(case["reader"])], case["input"])}
    assert keys <= KNOWN, f"new failure classes: {sorted(keys - KNOWN)}"
    if keys:
        pytest.xfail(f"known: {sorted(keys)} (issue 30 item {case['item']})")


def test_every_known_class_has_a_reproducer():
    """KNOWN names only classes reproduced in tests/fuzz_cases, so that emptying it is checked case by case."""
    reproduced = {_reproducer(p)["key"] for p in REPRODUCERS}
    assert sorted(KNOWN - reproduced) == []


def test_a_reader_raising_another_exception_is_a_failure():
    """The check flags an exception other than ValidationError, named by where it left the package."""
    reader = READERS["anthropic.from_response"]
    broken = Reader("broken", "anthropic", False, reader.seeds, lambda value: value["no such key"], reader.words)
    [failure] = broken.check({"id": "msg_1"})[:1]
    assert failure.key.startswith("broken: KeyError at ")


def test_a_fold_unlike_the_sdks_is_a_failure():
    """The check flags a stream that folds to anything but from_response of what the SDK accumulated."""
    reader = READERS["openai_chat.stream"]
    reply = reader.read(reader.seeds["refusal"])
    liar = Reader("liar", "openai_chat", True, reader.seeds, lambda events: reply, reader.words)
    keys = {f.key for f in liar.check(reader.seeds["parallel_tool_calls"])}
    assert keys == {"liar: fold differs from from_response in message"}


def test_cases_are_reproducible_and_leave_their_seed_alone():
    """A case is the same from (seed, reader, index) alone, and mutating never changes the seed it starts from."""
    reader = READERS["anthropic.stream"]
    before = json.dumps(reader.seeds)
    cases = [reader.case(7, i) for i in range(200)]
    assert json.dumps(reader.seeds) == before
    assert [json.dumps(c.value) for c in cases[:20]] == [json.dumps(reader.case(7, i).value) for i in range(20)]
    assert len({json.dumps(c.value) for c in cases}) > 150
