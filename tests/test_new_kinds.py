"""The design's test: a new field of an existing kind, and a new kind of value, need only their declarations.

The experiment of issue 32, repeated on a copy of the package that the test throws away: a citation gains
``page_number`` (an optional int with a rule of its own, of the ``scalar`` kind) and ``language`` (an
optional string of a new kind, declared here as one object). Nothing else in the copy changes, and
structure, unstructure, the classes' own check and the schema all handle both fields, with the accelerator
and without it. The edits touch two library files for the field (the rule, the declaration) and three for
the kind (the kind object, the rule, the declaration).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import contentblocks
from package_copies import copy_package, edit, run_in_copy

_KIND = '''

@attrs.frozen
class _Lowercase(Kind):
    """A new string-valued kind: lowercase ASCII letters, with no C kernel and a schema pattern of its own."""

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        if type(value) is str and value.isascii() and value.isalpha() and value.islower():
            return None
        return "expected lowercase letters"

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        return {"type": "string", "pattern": "^[a-z]+$"}


LOWERCASE = _Lowercase("lowercase")
'''

_RULES = '''

def _page(value: Any, _max_chars: int) -> str | None:
    """A page number: an int, 1 or more."""
    if type(value) is not int:
        return _not_an_integer(value)
    return "must be 1 or more" if value < 1 else None


from ._kinds import LOWERCASE  # noqa: E402

PAGE = Rule(kind=SCALAR, problem=_page)
LANGUAGE = Rule(kind=LOWERCASE)
'''

_FIELDS = """    end: int | None = attrs.field(metadata=ruled(OFFSET), default=None)
    page_number: int | None = attrs.field(metadata=ruled(_rules.PAGE), default=None)
    language: str | None = attrs.field(metadata=ruled(_rules.LANGUAGE), default=None)
"""

_CHECKS = r"""
import json
import contentblocks as cb

source = {"kind": "uri", "value": "https://example.com/report"}
raw = {"type": "text", "text": "Revenue grew.",
       "citations": [{"source": source, "page_number": 12, "language": "en"}]}
block = cb.structure(raw, cb.Block)
citation = block.citations[0]
assert (citation.page_number, citation.language) == (12, "en"), citation
assert cb.unstructure(block) == raw, cb.unstructure(block)
plain = cb.unstructure(cb.Citation(source=citation.source))
assert "page_number" not in plain and "language" not in plain, plain

def problems(call):
    try:
        call()
    except cb.ValidationError as error:
        return sorted(error.errors)
    raise AssertionError("accepted")

bad = {**raw, "citations": [{"source": source, "page_number": 0, "language": "EN"}]}
structured = problems(lambda: cb.structure(bad, cb.Block))
built = problems(lambda: cb.Citation(source=citation.source, page_number=0, language="EN"))
assert structured == [("$.citations[0].language", "expected lowercase letters"),
                      ("$.citations[0].page_number", "must be 1 or more")], structured
assert built == [("$.language", "expected lowercase letters"), ("$.page_number", "must be 1 or more")], built
nulls = problems(lambda: cb.structure({"source": source, "page_number": None}, cb.Citation))
assert nulls == [("$.page_number", "null is not allowed; omit the key instead")], nulls

schema = cb.json_schema(cb.Citation)["$defs"]["Citation"]
assert schema["properties"]["language"] == {"type": "string", "pattern": "^[a-z]+$"}, schema
assert "page_number" in schema["properties"] and "page_number" not in schema["required"], schema
from contentblocks._conversion import _structure_table
left = [[f.key, f.reason] for f in _structure_table.fallbacks() if f.cls is cb.Citation]
print(json.dumps({"speedups": cb.speedups_enabled(), "citation_left_to_python": left}))
"""


@pytest.fixture(scope="module")
def extended(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with the two new fields and the new kind: the only edits, in three files."""
    root = tmp_path_factory.mktemp("extended")
    package = copy_package(root)
    checks = package / "_checks"
    kinds, rules, model = checks / "_kinds.py", checks / "_rules.py", package / "_model" / "_values.py"
    kinds.write_text(kinds.read_text() + _KIND)
    rules.write_text(rules.read_text() + _RULES)
    edit(model, "from .._checks._instances import", "from .._checks import _rules\nfrom .._checks._instances import")
    edit(model, "    end: int | None = attrs.field(metadata=ruled(OFFSET), default=None)\n", _FIELDS)
    return root


@pytest.mark.parametrize("pure", [False, True], ids=["speedups", "pure-python"])
def test_a_new_field_and_a_new_kind_need_only_their_declarations(extended, pure):
    """Structure, unstructure, the model check and the schema handle both fields; nothing else was changed."""
    printed, expected = run_in_copy(extended, _CHECKS, pure=pure)
    # The new kind has no C kernel: the citation leaves the C walk, and says so.
    reason = "C has no kernel for the kind of field page_number (scalar), language (lowercase)"
    left = [[None, reason if expected else "the C accelerator is not in use"]]
    assert printed == {"speedups": expected, "citation_left_to_python": left}


_BACKENDS = ("_conversion/_gen", "_conversion/_structure_table", "_schema/_document", "_checks/_instances",
             "_checks/_rules", "_conversion/_plan", "_conversion/_structure", "_conversion/_unstructure")


@pytest.mark.parametrize("module", _BACKENDS)
def test_no_backend_switches_on_a_kind(module):
    """The backends ask a field's kind object; none compares a kind (or its name) with a kind's name."""
    import ast  # noqa: PLC0415

    names = {"text", "choice", "scalar", "offset", "binary", "json", "metadata", "one", "many"}
    tree = ast.parse((Path(contentblocks.__file__).parent / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            constants = {n.value for side in sides for n in ast.walk(side) if isinstance(n, ast.Constant)}
            kinds = [s for side in sides for s in ast.walk(side) if "kind" in (getattr(s, "attr", ""), getattr(s, "id", ""))]
            assert not (kinds and constants & names), f"{module}.py:{node.lineno} switches on a kind"
