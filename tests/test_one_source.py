"""A fact of the format stated once: changing its one declaration changes every backend, and nothing else.

Like ``test_new_kinds``, on a throw-away copy of the package: the copy's ``_checks/_grammar.py`` asks for
metadata keys of at least two characters, the only edit. The classes' own check, the generated structure
functions, the C walk, the schema and the strategies all follow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from package_copies import copy_package, edit, run_in_copy

_CHECKS = r"""
import json
from hypothesis import given, settings
import contentblocks as cb
from contentblocks import strategies
from contentblocks._conversion import _structure_table
from contentblocks._conversion._kernels import MISS

def problems(call):
    try:
        call()
    except cb.ValidationError as error:
        return sorted(error.errors)
    raise AssertionError("accepted")

short = [("$.metadata.k", "metadata keys must hold at least 2 characters")]
raw = {"type": "text", "text": "x", "metadata": {"k": 1}}
assert problems(lambda: cb.structure(raw, cb.Block)) == short
assert problems(lambda: cb.TextBlock(text="x", metadata={"k": 1})) == short
assert cb.structure({**raw, "metadata": {"kk": 1}}, cb.Block).metadata == {"kk": 1}
schema = cb.json_schema(cb.Block)["$defs"]["Metadata"]
assert schema["propertyNames"]["minLength"] == 2, schema
from contentblocks._checks._rules import DEFAULT_LIMITS
walk = _structure_table.structurer(DEFAULT_LIMITS, native_binary=False)
taken = None if walk is None else walk.object({"text": "x", "metadata": {"k": 1}}, 0) is not MISS

@settings(max_examples=50, database=None)
@given(strategies.metadata())
def keys_are_long_enough(value):
    assert all(len(key) >= 2 for key in value), value

keys_are_long_enough()
print(json.dumps({"speedups": cb.speedups_enabled(), "c_took_a_short_key": taken}))
"""


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package whose metadata keys hold two characters or more: one line of one file changed."""
    root = tmp_path_factory.mktemp("one_source")
    edit(copy_package(root) / "_checks" / "_grammar.py", "METADATA_KEY_MIN_CHARS = 1\n", "METADATA_KEY_MIN_CHARS = 2\n")
    return root


@pytest.mark.parametrize("pure", [False, True], ids=["speedups", "pure-python"])
def test_the_metadata_key_rule_is_declared_once(edited, pure):
    """Both paths, the model check, the schema, the C walk and the strategies take the edited minimum."""
    printed, expected = run_in_copy(edited, _CHECKS, pure=pure)
    assert printed == {"speedups": expected, "c_took_a_short_key": False if expected else None}
