"""The C JSON-value kernels (``json_values.c``) against the pure-Python code they stand in for.

The kernels are ``freeze``, ``thaw``, the duplicate-key hook ``unique_pairs`` and the surrogate scan; the
pure functions are the reference: ``_freeze.freeze``, ``_json.thaw``, ``_api._python_pairs`` and
``_patterns.find_surrogate``. For every input, valid or not, the C ``freeze`` must either return exactly what
the Python walk returns (same values, same types, ``JsonObject``/``JsonArray`` at every level, no aliasing)
when the Python walk finds no problem, or hand the value back as a miss; it may miss a valid value only when
that value holds a subclass, which the Python walk reads safely. ``thaw`` must give the Python copy exactly.
The C-first wrappers of ``_kernels`` must give what the pure functions give, problems included.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import _api, strategies
from contentblocks._checks import _patterns
from contentblocks._checks._rules import Limits
from contentblocks._conversion import _kernels
from contentblocks._conversion._kernels import speedups
from contentblocks._json import _values as _json
from speedups_checks import ANY_VALUES, MISS, DictSub, IntSub, ListSub, StrKey, needs_speedups, python_freeze

LIMITS = Limits(max_text_chars=6, max_depth=4, max_nodes=40)

SUBCLASSES = (StrKey, IntSub, DictSub, ListSub)


def holds_subclass(value: Any, seen: int = 0) -> bool:
    if type(value) in SUBCLASSES:
        return True
    if type(value) is dict:
        return any(holds_subclass(k) or holds_subclass(v) for k, v in value.items())
    if type(value) in (list, tuple):
        return any(holds_subclass(v) for v in value)
    return False


def same_frozen(a: Any, b: Any) -> bool:
    """Type-exact equality that also tells JsonObject from dict and -0.0 from 0.0."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return (a == b or (math.isnan(a) and math.isnan(b))) and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_frozen(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(type(k) is str and same_frozen(a[k], b[k]) for k in a)
    return a is b or bool(a == b)


def c_freeze(value: Any, limits: Limits, extra_depth: int = 0) -> Any:
    return speedups.freeze(value, limits.max_text_chars, limits.max_depth + extra_depth, limits.max_nodes, MISS)


def no_shared_containers(frozen: Any, original: Any) -> bool:
    if isinstance(frozen, (dict, list)):
        if frozen is original:
            return False
        if isinstance(frozen, dict):
            pairs = zip(frozen.values(), dict.values(original), strict=True)
        else:
            pairs = zip(frozen, original, strict=True)
        return all(no_shared_containers(f, o) for f, o in pairs)
    return True


# ------------------------------------------------------------------------------------------ freeze


def check_freeze(value: Any, limits: Limits, extra_depth: int = 0) -> None:
    expected, problems = python_freeze(value, limits, extra_depth)
    got = c_freeze(value, limits, extra_depth)
    if got is MISS:
        assert problems or holds_subclass(value), "C refused a valid value of exact types"
        return
    assert not problems, f"C accepted a value the Python walk refuses: {problems[:2]}"
    assert same_frozen(got, expected)
    assert no_shared_containers(got, value)


@needs_speedups
@given(ANY_VALUES)
def test_freeze_agrees_with_python_on_any_value(value):
    """On any value, the C copy is the Python copy, or a miss where the Python walk finds a problem or a subclass."""
    check_freeze(value, LIMITS)
    check_freeze(value, Limits())


@given(ANY_VALUES, st.integers(0, 1))
def test_the_converters_freeze_gives_what_the_pure_walk_gives(value, extra_depth):
    """``_kernels.freeze`` (C first, where built) returns the pure walk's copy and finds the same problems, in order."""
    for limits in (LIMITS, Limits()):
        expected, expected_problems = python_freeze(value, limits, extra_depth)
        problems: list[tuple[str, str]] = []
        got = _kernels.freeze(value, "$", limits, problems, extra_depth=extra_depth)
        assert problems == expected_problems
        if not problems:
            assert same_frozen(got, expected)


@needs_speedups
@given(strategies.json_values(max_depth=6, max_leaves=60))
def test_freeze_copies_every_valid_value(value):
    """Every valid JSON value of exact built-in types is copied in C: none misses."""
    got = c_freeze(value, Limits())
    assert got is not MISS
    expected, problems = python_freeze(value, Limits())
    assert not problems
    assert same_frozen(got, expected)


BOUNDARIES = [
    # (value, valid under LIMITS)
    (-(2**63), True),
    (-(2**63) - 1, False),
    (2**64 - 1, True),
    (2**64, False),
    (-(2**200), False),
    (2**200, False),
    (0.0, True),
    (-0.0, True),
    (1.7976931348623157e308, True),
    (math.inf, False),
    (-math.inf, False),
    (math.nan, False),
    ("abcdef", True),  # max_text_chars is 6
    ("abcdefg", False),
    ("\xe9" * 6, True),  # Latin-1: one byte per character, no surrogate possible
    ("\u0100" * 6, True),  # two bytes per character
    ("\U0001f600" * 6, True),  # four bytes per character
    ("\u0100" * 7, False),
    ("\ud7ff\ue000", True),  # just outside the surrogate range, on both sides
    ("\ud800", False),
    ("a\udbff", False),
    ("\udc00", False),
    ("\u0100\udfff", False),
    ("\U0001f600\ud800", False),
    ("\U0001f600\udfff", False),
    (True, True),
    (None, True),
    (b"", False),
    (1j, False),
    (frozenset(), False),
]


@needs_speedups
@pytest.mark.parametrize(("value", "valid"), BOUNDARIES, ids=lambda v: repr(v)[:24])
@pytest.mark.parametrize("place", ["root", "array", "object", "key"])
def test_freeze_scalar_rules_at_their_boundaries(value, valid, place):
    """Every leaf rule of the walk, at the value on each side of its boundary, alone and inside containers."""
    if place == "key":
        valid = valid and type(value) is str  # keys must be strings, and obey the string rules
        value = {value: 1}
    elif place == "array":
        value = [1, value]
    elif place == "object":
        value = {"a": 1, "b": value}
    check_freeze(value, LIMITS)
    assert (c_freeze(value, LIMITS) is not MISS) is valid


@needs_speedups
@pytest.mark.parametrize("depth", [3, 4, 5])
@pytest.mark.parametrize("extra_depth", [0, 1])
def test_freeze_depth_limit_matches(depth, extra_depth):
    """The C walk's depth limit, metadata's extra level included, is the Python walk's, on both sides of it."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    check_freeze(value, LIMITS, extra_depth)
    accepted = depth <= LIMITS.max_depth + extra_depth
    assert (c_freeze(value, LIMITS, extra_depth) is not MISS) is accepted


@needs_speedups
@pytest.mark.parametrize("size", [38, 39, 40])
def test_freeze_node_limit_matches(size):
    """Nodes count the root and every member of every container: 1 + 1 + size here."""
    value = {"a": list(range(size))}
    check_freeze(value, LIMITS)
    assert (c_freeze(value, LIMITS) is not MISS) is (size <= 38)


@needs_speedups
def test_freeze_gives_up_on_cycles_and_hostile_depth():
    """A cycle, a value nested past the limit and a limit past what C recurses are all handed back."""
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    assert c_freeze(cyclic, Limits()) is MISS
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    assert c_freeze(deep, Limits(max_depth=500)) is MISS
    # A depth beyond what the C walk recurses is handed back at once, whatever the value.
    assert speedups.freeze([[1]], 10, 5000, 100, MISS) is MISS


@needs_speedups
def test_limits_beyond_a_c_size_are_no_limit():
    """A converter's limits may be any positive int: one too large for Py_ssize_t is taken as no limit at all.

    (A negative limit is an error: see ``tests/test_speedups_audit.py``.)
    """
    huge = 10**30
    assert speedups.freeze({"a": ["x" * 100]}, huge, 100, huge, MISS) == {"a": ["x" * 100]}
    converter = cb.make_converter(max_text_chars=huge, max_uri_chars=huge, max_nodes=huge, max_binary_bytes=huge)
    raw = {"role": "user", "content": [{"type": "json", "value": {"a": [1, "x"]}, "metadata": {"k": "v"}}]}
    assert converter.structure(raw, cb.Message) == cb.structure(raw, cb.Message)


@needs_speedups
def test_freeze_recopies_frozen_values():
    """A value already frozen is copied again, to an equal value, never returned as it is."""
    frozen = c_freeze({"a": [1, {"b": None}]}, Limits())
    again = c_freeze(frozen, Limits())
    assert again is not frozen
    assert same_frozen(again, frozen)


@needs_speedups
def test_freeze_survives_a_finalizer_that_mutates_the_input():
    """A collection during the walk can run a finalizer that shrinks the list being read."""
    victim: list[Any] = [[i] for i in range(50)]

    class Shrinker:
        def __del__(self):
            victim.clear()

    import gc  # noqa: PLC0415

    for _ in range(20):
        junk: list[Any] = [Shrinker()]
        junk.append(junk)
        del junk
        gc.collect()  # nothing to assert but a clean result or a miss: no crash, no stale reference
    out = c_freeze(victim, Limits())
    assert out is MISS or same_frozen(out, python_freeze(victim, Limits())[0]) or out == []


# ------------------------------------------------------------------------------------------ thaw


def only_plain(value: Any) -> bool:
    if type(value) is dict:
        return all(only_plain(v) for v in value.values())
    if type(value) is list:
        return all(only_plain(v) for v in value)
    return type(value) not in (_json.JsonObject, _json.JsonArray)


@needs_speedups
@given(strategies.json_values(max_depth=6, max_leaves=60))
def test_thaw_agrees_with_python(value):
    """The C thaw gives the pure walk's plain copy exactly, sharing no container with the frozen value."""
    frozen, _ = python_freeze(value, Limits())
    got = speedups.thaw(frozen, MISS)
    assert same_frozen(got, _json.thaw(frozen))
    assert only_plain(got)
    assert no_shared_containers(got, frozen)


@given(strategies.json_values(max_depth=6, max_leaves=60))
def test_the_converters_thaw_gives_what_the_pure_walk_gives(value):
    """``_kernels.thaw`` (C first, where built) returns the pure walk's plain copy."""
    frozen, _ = python_freeze(value, Limits())
    got = _kernels.thaw(frozen)
    assert same_frozen(got, _json.thaw(frozen))
    assert only_plain(got)


@needs_speedups
def test_thaw_hands_back_what_it_does_not_recurse_into():
    """A frozen value nested deeper than the C thaw recurses is a miss, and the converter's thaw copies it all."""
    deep = _json._array_from_items([1])
    for _ in range(1_500):  # only unpickling builds a frozen value this deep
        deep = _json._array_from_items([deep])
    assert speedups.thaw(deep, MISS) is MISS
    copy = _kernels.thaw(deep)  # the Python walk takes over
    assert type(copy) is list
    for _ in range(1_500):
        copy = copy[0]
    assert copy == [1]


# ------------------------------------------------------------------------------------------ unique_pairs


def refuse(pairs):
    """The refusal callback: says how many pairs it was handed."""
    raise ValueError(f"duplicate in {len(pairs)} pairs")


@needs_speedups
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.integers()), max_size=8))
def test_unique_pairs_is_dict_or_refusal(pairs):
    """Pairs with distinct keys become a dict in their order; a repeated key calls the refusal."""
    hook = functools.partial(speedups.unique_pairs, refuse)
    if len({k for k, _ in pairs}) == len(pairs):
        out = hook(pairs)
        assert type(out) is dict
        assert list(out.items()) == pairs
    else:
        with pytest.raises(ValueError, match="duplicate"):
            hook(pairs)


@needs_speedups
def test_unique_pairs_refuses_what_json_never_passes():
    """A tuple of pairs, a triple or a list pair is a TypeError: json only ever passes a list of 2-tuples."""
    with pytest.raises(TypeError):
        speedups.unique_pairs(refuse, (("a", 1),))
    with pytest.raises(TypeError):
        speedups.unique_pairs(refuse, [("a", 1, 2)])
    with pytest.raises(TypeError):
        speedups.unique_pairs(refuse, [["a", 1]])


@needs_speedups
def test_unique_pairs_survives_keys_that_change_the_pairs():
    """A key whose __hash__ empties the list being read: no stale item is touched."""
    pairs: list[Any] = []

    class Shrinking:
        def __hash__(self):
            pairs.clear()
            return 1

    pairs.extend([(Shrinking(), 1), ("b", 2), ("c", 3)])
    with pytest.raises(ValueError, match="duplicate in 0 pairs"):  # one key kept, and no pair left to count
        speedups.unique_pairs(refuse, pairs)


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "\u00e9", "\U0001f600"]), st.integers()), max_size=6))
def test_the_pair_hook_in_use_is_the_python_one(pairs):
    """The hook loads parses with (C where built) gives the Python hook's dict, or its refusal word for word."""

    def outcome(hook):
        try:
            return "ok", list(hook(list(pairs)).items())
        except ValueError as e:
            return "refused", str(e)

    assert outcome(_api._pairs) == outcome(_api._python_pairs)


@pytest.mark.parametrize("text", [
    '{"type": "text", "text": "a", "text": "b"}',
    '{"type": "json", "value": [{"k": 1, "j": 2, "k": 3}]}',
    '{"type": "json", "value": 1, "metadata": {"x": {"y": {"z": 1, "z": 1}}}}',
])  # fmt: skip
def test_loads_refuses_duplicate_keys_at_any_depth(text):
    """A key repeated in any object of the text is refused, and named, before anything is structured."""
    with pytest.raises(cb.ValidationError, match="invalid JSON: duplicate key") as info:
        cb.loads(text)
    assert [path for path, _ in info.value.errors] == ["$"]


# ------------------------------------------------------------------------------------------ has_surrogate

ANY_CODE_POINTS = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()))


@needs_speedups
@given(ANY_CODE_POINTS)
def test_has_surrogate_is_the_regex(text):
    """The C scan finds a surrogate exactly where the regex does."""
    assert speedups.has_surrogate(text) is (re.search("[\ud800-\udfff]", text) is not None)


@given(ANY_CODE_POINTS)
def test_the_converters_surrogate_scan_is_the_pure_one(text):
    """``_kernels.find_surrogate`` (C first, where built) is truthy exactly when ``_patterns.find_surrogate`` is."""
    assert bool(_kernels.find_surrogate(text)) is bool(_patterns.find_surrogate(text))


@needs_speedups
@pytest.mark.parametrize(
    ("text", "found"),
    [("", False), ("abc", False), ("\xe9", False), ("\ud7ff\ue000", False), ("\ud800", True), ("a\udfff", True),
     ("\u0100\udbff", True), ("\U0001f600\udc00", True), ("\U0001f600", False), (StrKey("\ud800"), True)],
)  # fmt: skip
def test_has_surrogate_at_the_edges(text, found):
    """Just outside the surrogate range, inside it after wide characters, and in a str subclass."""
    assert speedups.has_surrogate(text) is found
