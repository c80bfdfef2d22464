"""Mutation fuzzing: whatever arrives, the only outcomes are a valid block or a ValidationError.

Mutants of valid wire values (see ``hostile_strategies``) go through ``cb.structure``, ``cb.loads`` and the
preconf converters. Every rejection must be a ``ValidationError`` with short, located messages; every
acceptance must round-trip exactly and agree across converters; no foreign object is ever asked for its text.

Budget: ``CB_FUZZ_EXAMPLES`` examples per property run (60 by default, 500 when ``HYPOTHESIS_PROFILE=long``);
``CB_FUZZ_SECONDS`` keeps re-running the properties, with fresh randomness, until that many seconds have been
spent in total (``nox -s fuzz``). The number of mutants run is printed at the end of the module.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies as cbst

sys.path.insert(0, str(Path(__file__).resolve().parent))
hs = importlib.import_module("hostile_strategies")

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
EXAMPLES = int(os.environ.get("CB_FUZZ_EXAMPLES") or (500 if LONG else 60))
SECONDS = float(os.environ.get("CB_FUZZ_SECONDS") or 0)
PROPERTIES = 7  # the parametrized property runs below share SECONDS equally
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)

TALLY: Counter[str] = Counter()
TARGET_NAMES = ("block", "message", "conversation")


def _preconf(name: str) -> Any:
    try:
        module = importlib.import_module(f"contentblocks.preconf.{name}")
    except ImportError:  # the format's package is an optional dependency
        return None
    return module.make_converter()


CONVERTERS = {name: conv for name in ("json", "orjson", "msgpack", "cbor2") if (conv := _preconf(name)) is not None}
TEXT_CONVERTERS = {name: CONVERTERS[name] for name in ("json", "orjson") if name in CONVERTERS}


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest) -> Any:
    yield
    total = TALLY["structure"] + TALLY["loads"] + TALLY["json value"]
    line = (f"hostile mutants: {total:,} ({TALLY['structure']:,} values, {TALLY['loads']:,} JSON texts, "
            f"{TALLY['json value']:,} JSON values); accepted {TALLY['accepted']:,}, rejected {TALLY['rejected']:,}")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.ensure_newline()
            reporter.write_line(line)
    out = os.environ.get("CB_FUZZ_REPORT")
    if out:
        with Path(out).open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def budgeted(prop: Any) -> None:
    """Run a Hypothesis property once, then again (fresh randomness) while the fuzz budget lasts."""
    prop()
    stop = time.monotonic() + SECONDS / PROPERTIES
    while time.monotonic() < stop:
        prop()


def outcome(call: Any, *args: Any) -> tuple[bool, Any]:
    """(True, result) or (False, error); anything but a ValidationError propagates and fails the test."""
    hs.FOREIGN_CALLS.clear()
    try:
        result = call(*args)
    except cb.ValidationError as e:
        assert not hs.FOREIGN_CALLS, f"the library called {hs.FOREIGN_CALLS} on a foreign object"
        hs.check_error(e)
        return False, e
    assert not hs.FOREIGN_CALLS, f"the library called {hs.FOREIGN_CALLS} on a foreign object"
    return True, result


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_structure_mutants(target: str) -> None:
    """A mutated value is refused with a ValidationError or accepted as a block that round-trips exactly."""
    cls = hs.TARGETS[target]

    @FUZZ
    @given(hs.mutants(target))
    def prop(raw: Any) -> None:
        TALLY["structure"] += 1
        ok, result = outcome(cb.structure, raw, cls)
        TALLY["accepted" if ok else "rejected"] += 1
        if ok:
            hs.check_accepted(result, raw, target)
        for name, conv in CONVERTERS.items():
            same, other = outcome(conv.structure, raw, cls)
            if name in TEXT_CONVERTERS:  # the same base64 mode: the same verdict and the same block
                assert same == ok, f"preconf.{name} disagrees with cb.structure"
                assert not ok or other == result

    budgeted(prop)


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_loads_mutants(target: str) -> None:
    """Damaged JSON text is refused with a ValidationError by cb.loads and the JSON preconf converters, or agrees."""
    cls = hs.TARGETS[target]

    @FUZZ
    @given(hs.text_mutants(target))
    def prop(text: str | bytes) -> None:
        TALLY["loads"] += 1
        ok, result = outcome(cb.loads, text, cls)
        TALLY["accepted" if ok else "rejected"] += 1
        if ok:
            import json  # noqa: PLC0415 - the permissive parser, as the reference for accepted text

            raw = json.loads(text)
            assert cb.structure(raw, cls) == result
            hs.check_accepted(result, raw, target)
        for name, conv in TEXT_CONVERTERS.items():
            same, other = outcome(conv.loads, text, cls)
            if name == "json":
                assert same == ok, "preconf.json loads disagrees with cb.loads"
            if ok and same:
                assert other == result

    budgeted(prop)


JSON_LEAVES = st.one_of(cbst.json_values(), hs.hostile_values(), st.floats(), st.integers(-(2**70), 2**70),
                        st.text(st.characters(codec=None, categories=None), max_size=5))


@FUZZ
@given(st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(st.one_of(st.text(max_size=4), st.sampled_from(hs.ODD_KEYS)), inner, max_size=4)),
    max_leaves=12))
def _json_value_prop(value: Any) -> None:
    TALLY["json value"] += 1
    ok, block = outcome(cb.structure, {"type": "json", "value": value}, cb.Block)
    TALLY["accepted" if ok else "rejected"] += 1
    if ok:
        import json  # noqa: PLC0415

        import orjson  # noqa: PLC0415

        expected = hs.plain_json(value)
        assert hs.exact(cb.unstructure(block)["value"], expected)
        assert hs.exact(json.loads(json.dumps(expected, allow_nan=False)), expected)
        assert hs.exact(orjson.loads(orjson.dumps(expected)), expected)
        assert hs.exact(cb.unstructure(cb.loads(cb.dumps(block)))["value"], expected)


def test_accepted_json_values_survive_json_and_orjson() -> None:
    """Every JSON value the validator accepts survives json (allow_nan=False) and orjson exactly, types included."""
    pytest.importorskip("orjson")
    budgeted(_json_value_prop)
