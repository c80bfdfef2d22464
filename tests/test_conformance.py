"""The shared conformance vectors (``../shared/conformance/cases.json``), one pytest case per vector id.

Does what the conformance runner does: an accept case must structure, unstructure to its canonical form
type-exactly, and structure back to an equal object; a reject case must raise ValidationError. Case inputs
are never repr()'d (some are megabytes long or 10,000 levels deep): tests are named by id and failures
describe the first difference by path.
The module is skipped when the vectors are not next to the repository (a fresh clone).
"""

from __future__ import annotations

import builtins
import copy
import json
from pathlib import Path

import pytest

import contentblocks as cb
import strategies

CASES_PATH = Path(__file__).parents[1].parent / "shared" / "conformance" / "cases.json"
if not CASES_PATH.is_file():
    pytest.skip(f"conformance vectors not found at {CASES_PATH}", allow_module_level=True)

CASES = {case["id"]: case for case in json.loads(CASES_PATH.read_text(encoding="utf-8"))}
TARGETS = {"block": cb.Block, "message": cb.Message, "conversation": cb.Conversation}


def build_input(case):
    """The case's raw input: its JSON value, or its Python expression evaluated."""
    if "python" in case:
        return eval(case["python"], {"__builtins__": builtins})  # noqa: S307 - trusted case data
    return copy.deepcopy(case["input"])


@pytest.mark.parametrize("case_id", [i for i, c in CASES.items() if c["expect"] == "accept"])
def test_accepted(case_id):
    """A valid input structures, unstructures to its canonical form type-exactly, and round-trips equal."""
    case = CASES[case_id]
    target = TARGETS[case["target"]]
    raw = build_input(case)
    try:
        obj = cb.structure(raw, target)
    except cb.ValidationError as e:
        pytest.fail(f"rejected a valid input: {e.errors[:3]}")
    del raw
    expected = case["canonical"] if "canonical" in case else build_input(case)
    out = cb.unstructure(obj)
    difference = strategies.first_difference(expected, out)
    if difference is not None:
        pytest.fail(f"unstructure output is not the canonical form: {difference}")
    if cb.structure(out, target) != obj:
        pytest.fail("structure(unstructure(obj)) != obj")


@pytest.mark.parametrize("case_id", [i for i, c in CASES.items() if c["expect"] == "reject"])
def test_rejected(case_id):
    """An invalid input raises ValidationError (and nothing else)."""
    case = CASES[case_id]
    raw = build_input(case)
    try:
        cb.structure(raw, TARGETS[case["target"]])
    except cb.ValidationError as e:
        if not e.errors:
            pytest.fail("ValidationError without problems")
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure being tested
        pytest.fail(f"raised {type(e).__name__} instead of ValidationError")
    pytest.fail("accepted an invalid input")
