"""The wire plan against every backend that reads it: the generated code, the C table and the schema.

``_plan.wire_plan`` extends each field's plan with its wire facts once (required, left out when, union). Each
backend must do what the plan says; these tests fail when one of them derives a fact of its own differently.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings

import contentblocks as cb
from contentblocks._checks._kinds import FLAG_OPTIONAL, FLAG_REQUIRED
from contentblocks._checks._rules import MISSING_KEY, Limits
from contentblocks._conversion import _structure_table
from contentblocks._conversion._kernels import speedups
from contentblocks._conversion._plan import CLASSES, WireField, wire_plan
from contentblocks._json._values import EMPTY_OBJECT
from contentblocks._model._wire import UNIONS
from contentblocks.strategies import messages

_FIELDS = [(cls, field) for cls in CLASSES for field in wire_plan(cls)[0]]
_IDS = [f"{cls.__name__}.{field.key}" for cls, field in _FIELDS]


def _left_out(field: WireField, value: Any) -> bool:
    """Whether the plan says the key of a field holding ``value`` is left out on the way out."""
    return {"": False, "none": value is None, "empty": not value}[field.omitted]


def _instances(obj: Any) -> list[Any]:
    """``obj`` and every instance of a wire class it holds, at any depth."""
    found = [obj]
    for field in wire_plan(type(obj))[0]:
        value = getattr(obj, field.key)
        for item in value if isinstance(value, tuple) else (value,):
            if type(item) in CLASSES:
                found += _instances(item)
    return found


@settings(max_examples=60, deadline=None)
@given(messages())
def test_unstructure_leaves_out_a_key_exactly_when_the_plan_says(message):
    """Every key of every object is written unless the plan says its value is left out."""
    for obj in _instances(message):
        raw = cb.unstructure(obj)
        for field in wire_plan(type(obj))[0]:
            assert (field.key not in raw) is _left_out(field, getattr(obj, field.key)), (type(obj), field.key)


@pytest.mark.parametrize(("cls", "field"), _FIELDS, ids=_IDS)
def test_structure_and_schema_require_a_key_exactly_when_the_plan_says(cls, field):
    """Without the key, structure reports it missing iff required; the schema lists it as required iff so."""
    raw = {"type": "x"}  # an object that lacks the key: its other problems do not matter here
    try:
        cb.structure(raw, cls)
    except cb.ValidationError as error:
        missing = (f"$.{field.key}", MISSING_KEY) in error.errors
    else:  # pragma: no cover - nothing is valid without its required keys
        missing = False
    assert missing is field.required
    definition = cb.json_schema(cls)["$defs"][cls.__name__]
    assert (field.key in definition["required"]) is field.required
    assert field.key in definition["properties"]


@pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")
@pytest.mark.parametrize(("cls", "field"), _FIELDS, ids=_IDS)
def test_the_c_table_takes_its_flags_from_the_plan(cls, field):
    """The C structurer's entry: optional, required and shorthand are the plan's, and so is the target."""
    assert speedups is not None
    fields = _structure_table._class(cls, Limits(), speedups.STRUCTURER, []).fields
    assert fields is not None
    entry = fields[[f.key for f in wire_plan(cls)[0]].index(field.key)]
    assert entry.key == field.key
    if entry.kernel in ("string", "binary"):
        assert bool(entry.flags & FLAG_OPTIONAL) is (field.omitted == "none")
    if entry.kernel == "many":
        assert bool(entry.flags & FLAG_REQUIRED) is field.required
        short = field.shorthand
        expected = None if short is None else (CLASSES.index(short.cls), short.index, short.defaults)
        assert entry.shorthand == expected
    if entry.kernel in ("one", "many"):
        union = field.union
        assert entry.target == (CLASSES.index(field.accepts[0]) if union is None else -1 - UNIONS.index(union))


@pytest.mark.parametrize(("cls", "field"), _FIELDS, ids=_IDS)
def test_the_plan_follows_the_declaration(cls, field):
    """Required keys have no default (or are always written); an empty default is left out when empty."""
    default = attrs.fields_dict(cls)[field.key].default
    if field.omitted == "none":
        assert default is None
    elif field.omitted == "empty":
        assert default in ((), EMPTY_OBJECT)
    else:
        assert field.required
    # a union tells several classes apart, or checks the tag of the one class a list holds (a search result's text)
    one_class = len(field.accepts) <= 1 and (cls, field.key) != (cb.SearchResultBlock, "content")
    assert (field.union is None) is one_class
