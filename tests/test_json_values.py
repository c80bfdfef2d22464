"""The JSON-value validator (SPEC §5): explicit stack, cycles, sizes, exact types, hostile containers."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given

import contentblocks as cb
import strategies


def _places():
    """Ways to hand a JSON value to the library: constructors and the converter, at the top and nested."""
    return {
        "JsonBlock": lambda v: cb.JsonBlock(value=v),
        "ToolCallBlock": lambda v: cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=v),
        "metadata": lambda v: cb.TextBlock(text="t", metadata={"k": v}),
        "structure-json": lambda v: cb.structure({"type": "json", "value": v}, cb.Block),
        "structure-call": lambda v: cb.structure(
            {"type": "tool_call", "tool_call_id": "c", "tool_name": "f", "input": v}, cb.Block
        ),
        "structure-metadata": lambda v: cb.structure({"type": "text", "text": "t", "metadata": {"k": v}}, cb.Block),
    }


PLACES = list(_places())


def _refused(place, value):
    with pytest.raises(cb.ValidationError) as info:
        _places()[place](value)
    message = str(info.value)
    assert len(message) < 1000
    return info.value


def _nested_list(depth):
    value = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _nested_dict(depth):
    value = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


@pytest.mark.parametrize("place", PLACES)
def test_deep_list_is_refused_without_recursion(place):
    """A 100,000-deep list is refused with ValidationError (an explicit stack, not RecursionError)."""
    error = _refused(place, _nested_list(100_000))
    assert any("deeper" in message for _, message in error.errors)


@pytest.mark.parametrize("place", PLACES)
def test_deep_dict_is_refused_without_recursion(place):
    """A 100,000-deep object is refused with ValidationError."""
    _refused(place, _nested_dict(100_000))


@pytest.mark.parametrize("place", PLACES)
def test_self_referencing_list_is_refused(place):
    """A list that contains itself is refused, not walked forever."""
    loop = [1]
    loop.append(loop)
    _refused(place, loop)


@pytest.mark.parametrize("place", PLACES)
def test_self_referencing_dict_is_refused(place):
    """A dict that contains itself (through a list) is refused."""
    loop = {"a": 1}
    loop["self"] = [loop]
    _refused(place, loop)


def test_huge_array_is_refused_quickly():
    """A 2,000,000-element array is refused by its size before any element is looked at."""
    big = [0] * 2_000_000
    for place in ("JsonBlock", "structure-json"):
        started = time.perf_counter()
        error = _refused(place, big)
        assert time.perf_counter() - started < 1.0
        assert any("values" in message for _, message in error.errors)


def test_node_limit_counts_nested_values():
    """The node limit counts every value of every container, not only the top-level array."""
    conv = cb.make_converter(max_nodes=10)
    ok = [[1, 2, 3], [4, 5, 6], 7]  # the outer array, two inner arrays and seven numbers: 10 values
    assert conv.structure({"type": "json", "value": ok}, cb.Block).value == ok
    with pytest.raises(cb.ValidationError):
        conv.structure({"type": "json", "value": [[1, 2, 3], [4, 5, 6], 7, 8]}, cb.Block)
    with pytest.raises(cb.ValidationError):
        conv.structure({"type": "json", "value": [[1, 2, 3], [4, 5, [6, 7]]]}, cb.Block)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("value", [10**5000, -(10**5000), 2**64, -(2**63) - 1], ids=["5000-digits", "-5000-digits", "2**64", "-2**63-1"])
def test_out_of_range_ints_are_refused_without_formatting(place, value):
    """Ints outside [-2**63, 2**64-1] are refused, and the message never prints them (str() would fail)."""
    error = _refused(place, value)
    assert "0000000000" not in str(error)


@pytest.mark.parametrize("value", [2**64 - 1, -(2**63), 0, 2**63])
def test_boundary_ints_are_kept(value):
    """The integer range ends are accepted and come back exactly."""
    block = cb.structure({"type": "json", "value": value}, cb.Block)
    out = cb.unstructure(block)["value"]
    assert type(out) is int
    assert out == value


def test_tuples_are_arrays_from_python():
    """A tuple from a Python caller counts as an array and comes out as a list."""
    block = cb.JsonBlock(value=(1, (2, 3), {"a": ()}))
    assert type(block.value) is cb.JsonArray
    assert cb.unstructure(block)["value"] == [1, [2, 3], {"a": []}]
    assert type(cb.unstructure(block)["value"][1]) is list
    assert block == cb.JsonBlock(value=[1, [2, 3], {"a": []}])


class _SneakyDict(dict):
    """A dict whose overridden methods would lie about (or blow up on) its contents."""

    def __iter__(self):
        raise AssertionError("__iter__ called")

    def __len__(self):
        raise AssertionError("__len__ called")

    def __getitem__(self, key):
        raise AssertionError("__getitem__ called")

    def __contains__(self, key):
        raise AssertionError("__contains__ called")

    def keys(self):
        raise AssertionError("keys called")

    def items(self):
        raise AssertionError("items called")

    def values(self):
        raise AssertionError("values called")

    def get(self, key, default=None):
        raise AssertionError("get called")

    def copy(self):
        raise AssertionError("copy called")


class _SneakyList(list):
    """A list whose overridden methods would lie about its contents."""

    def __iter__(self):
        raise AssertionError("__iter__ called")

    def __len__(self):
        raise AssertionError("__len__ called")

    def __getitem__(self, index):
        raise AssertionError("__getitem__ called")


@pytest.mark.parametrize("place", PLACES)
def test_dict_subclasses_are_read_without_their_methods(place):
    """A dict subclass is read through dict's own methods: overrides are never called, the value is kept."""
    value = _SneakyDict(a=1, b=_SneakyDict(c=[2]))
    block = _places()[place](value)
    out = cb.unstructure(block)
    held = out.get("value", out.get("input")) if "metadata" not in place else out["metadata"]["k"]
    assert held == {"a": 1, "b": {"c": [2]}}
    assert type(held) is dict


@pytest.mark.parametrize("place", PLACES)
def test_list_subclasses_are_read_without_their_methods(place):
    """A list subclass is read through list's own methods: overrides are never called."""
    value = _SneakyList([1, _SneakyList([2])])
    block = _places()[place](value)
    out = cb.unstructure(block)
    held = out.get("value", out.get("input")) if "metadata" not in place else out["metadata"]["k"]
    assert held == [1, [2]]


def test_dict_subclass_at_the_top_level_is_read_without_its_methods():
    """A whole block given as a dict subclass is read without calling its overridden methods."""
    raw = _SneakyDict(type="json", value=_SneakyDict(a=1), metadata=_SneakyDict(k=1))
    block = cb.structure(raw, cb.Block)
    assert cb.unstructure(block) == {"type": "json", "value": {"a": 1}, "metadata": {"k": 1}}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("key", [1, None, 1.5, True, (1, 2), b"k"], ids=["int", "None", "float", "bool", "tuple", "bytes"])
def test_non_string_keys_are_refused(place, key):
    """Objects with non-string keys are refused, never stringified."""
    _refused(place, {"ok": 1, key: 2})


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(
    "value",
    [
        "\ud800",
        "a\udfffb",
        ["x", "\udc00"],
        {"\ud83d": 1},
        {"ok": {"deep\udbff": []}},
    ],
    ids=["value", "inner", "in-array", "key", "nested-key"],
)
def test_lone_surrogates_are_refused(place, value):
    """Lone surrogates are refused in JSON strings and object keys at any depth."""
    _refused(place, value)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, b"bytes", bytearray(b"x"), {1, 2}, frozenset(), object(), 1j, range(3)],
    ids=["nan", "inf", "-inf", "bytes", "bytearray", "set", "frozenset", "object", "complex", "range"],
)
def test_non_json_values_are_refused(place, value):
    """NaN, infinities, bytes, sets and arbitrary objects are not JSON values."""
    _refused(place, [value])


class _Hostile:
    """An object whose repr and str raise: error messages must not call them."""

    def __repr__(self):
        raise AssertionError("repr called")

    __str__ = __repr__


@pytest.mark.parametrize("place", PLACES)
def test_hostile_objects_are_refused_without_calling_them(place):
    """An arbitrary object is refused and named by its class, without repr() or str()."""
    error = _refused(place, {"a": _Hostile()})
    assert "_Hostile" in str(error) or "object" in str(error)


@pytest.mark.parametrize(
    ("value", "kind"),
    [(True, bool), (False, bool), (1, int), (0, int), (1.0, float), (-0.0, float), (None, type(None)), ("1", str)],
)
def test_exact_types_are_preserved(value, kind):
    """true stays true, 1 stays 1, 1.0 stays 1.0, -0.0 keeps its sign, through structure, unstructure and JSON text."""
    for block in (cb.JsonBlock(value=value), cb.structure({"type": "json", "value": [value]}, cb.Block)):
        out = cb.unstructure(block)["value"]
        out = out[0] if type(out) is list else out
        assert type(out) is kind
        again = cb.unstructure(cb.loads(cb.dumps(block)))["value"]
        again = again[0] if type(again) is list else again
        assert type(again) is kind
        if kind is float:
            assert math.copysign(1.0, again) == math.copysign(1.0, value)


@given(strategies.json_values(max_depth=5, max_leaves=40))
def test_generated_values_survive_exactly(value):
    """Any JSON value comes back type-exactly from a block, through dumps and loads as well."""
    block = cb.JsonBlock(value=value)
    assert strategies.same_json(value, cb.unstructure(block)["value"])
    assert strategies.same_json(value, cb.unstructure(cb.loads(cb.dumps(block)))["value"])


def test_depth_limit_is_exact():
    """100 nested containers are accepted by default and 101 refused; metadata values get the same 100."""
    assert cb.JsonBlock(value=_nested_list(100)).value is not None
    with pytest.raises(cb.ValidationError):
        cb.JsonBlock(value=_nested_list(101))
    assert cb.structure({"type": "json", "value": _nested_dict(100)}, cb.Block)
    with pytest.raises(cb.ValidationError):
        cb.structure({"type": "json", "value": _nested_dict(101)}, cb.Block)
    assert cb.TextBlock(text="t", metadata={"k": _nested_list(100)})
    with pytest.raises(cb.ValidationError):
        cb.TextBlock(text="t", metadata={"k": _nested_list(101)})


def test_errors_inside_a_value_are_all_reported_with_paths():
    """Several bad leaves in one value are each reported at their own path."""
    with pytest.raises(cb.ValidationError) as info:
        cb.structure({"type": "json", "value": {"a": [1, math.nan], "b": {"c": b"x"}, "d": "\ud800"}}, cb.Block)
    paths = {path for path, _ in info.value.errors}
    assert {"$.value.a[1]", "$.value.b.c", "$.value.d"} <= paths
