"""The optional C accelerator (``_speedups``) against the pure-Python code it stands in for.

The pure functions are the reference: ``_freeze.freeze``, ``_json.thaw``, ``_patterns.check_base64`` and
``_patterns.find_surrogate``. For every input, valid or not, the C ``freeze`` must either return exactly what
the Python walk returns (same values, same types, ``JsonObject``/``JsonArray`` at every level, no aliasing)
when the Python walk finds no problem, or hand the value back as a miss; it may miss a valid value only when
that value holds a subclass, which the Python walk reads safely. ``thaw`` must give the Python copy exactly.
The C-first wrappers of ``_kernels`` must give what the pure functions give, problems included. Both are
called directly, side by side; the whole library runs without the accelerator in CI's second run
(``CONTENTBLOCKS_PURE_PYTHON=1``) and, here, on the conformance vectors in a fresh pure-Python interpreter.
"""

from __future__ import annotations

import base64
import binascii
import functools
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import _api, _freeze, _json, _kernels, _patterns, _unchecked, _unstructure, strategies
from contentblocks._rules import Limits

speedups = _kernels.speedups
needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")
MISS = object()
LIMITS = Limits(max_text_chars=6, max_depth=4, max_nodes=40)


def _compiler_available() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and include.is_file()


@pytest.mark.skipif(bool(os.environ.get("CONTENTBLOCKS_PURE_PYTHON")), reason="turned off on purpose")
def test_built_where_it_can_be():
    """With a C compiler and the Python headers, the install builds the accelerator and the library uses it."""
    if not _compiler_available():
        pytest.skip("no C compiler or Python headers: the pure-Python path is the one in use")
    assert importlib.util.find_spec("contentblocks._speedups") is not None
    assert speedups is not None
    assert cb.speedups_enabled()


def test_turned_off_by_the_environment():
    """CONTENTBLOCKS_PURE_PYTHON=1 makes a fresh interpreter use the Python walks."""
    code = "import contentblocks as cb; print(cb.speedups_enabled())"
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)  # noqa: S603
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------------------ the inputs


class StrKey(str):
    __slots__ = ()


class IntSub(int):
    pass


class DictSub(dict):
    pass


class ListSub(list):
    pass


SUBCLASSES = (StrKey, IntSub, DictSub, ListSub)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.sampled_from([-(2**63), -(2**63) - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 0, -1]),
    st.floats(),  # NaN and the infinities included
    st.sampled_from([0.0, -0.0, 1e308, -5e-324]),
    st.text(max_size=8),  # lone surrogates, astral and Latin-1 characters included
    st.sampled_from(["", "abcdef", "abcdefg", "é" * 6, "é" * 7, "\U0001f600\ud800", "\udfff", "\u0100\ud800"]),
    st.builds(IntSub, st.integers(0, 3)),
    st.builds(StrKey, st.text(max_size=3)),
    st.sampled_from([b"x", {1, 2}, 1j, object]),
)
_KEYS = st.one_of(
    st.text(max_size=7),
    st.sampled_from(["\ud800", "k" * 7, "é\udc00"]),
    st.builds(StrKey, st.text(max_size=3)),
    st.sampled_from([1, 1.5, None, True, (1,), b"k"]),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=6),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=3).map(ListSub),
        st.dictionaries(_KEYS, children, max_size=6),
        st.dictionaries(st.text(max_size=3), children, max_size=3).map(DictSub),
    )


ANY_VALUES = st.recursive(_SCALARS, _containers, max_leaves=40)


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


def python_freeze(value: Any, limits: Limits, extra_depth: int = 0) -> tuple[Any, list[tuple[str, str]]]:
    """The pure walk's copy of ``value`` and the problems it found."""
    problems: list[tuple[str, str]] = []
    out = _freeze.freeze(value, "$", limits, problems, extra_depth=extra_depth)
    return out, problems


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


# ------------------------------------------------------------------------------------------ the whole library, pure


def test_the_example_transcript_round_trips():
    """Each message of the shipped transcript loads, and comes back equal through unstructure and dumps."""
    text = (Path(cb.__file__).parent / "examples" / "conversation.jsonl").read_text(encoding="utf-8")
    for line in text.splitlines():
        message = cb.loads(line, cb.Message)
        assert cb.structure(cb.unstructure(message), cb.Message) == message
        assert json.loads(cb.dumps(message)) == cb.unstructure(message)


# ------------------------------------------------------------------------------------------ base64

_B64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
BASE64_TEXTS = st.one_of(
    st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),
    # canonical text with one character changed: pad bits, a misplaced "=", a character from elsewhere
    st.tuples(
        st.binary(min_size=1, max_size=20),
        st.integers(0, 40),
        st.sampled_from([*_B64_CHARS[:8], "=", "-", "_", "\n", " ", "\xe9", "\u0100", "\U0001f600"]),
    ).map(lambda t: _replace_at(base64.b64encode(t[0]).decode(), t[1], t[2])),
    st.text(alphabet=_B64_CHARS + "=", max_size=16),
    st.text(max_size=8),
    st.sampled_from(["", "=", "==", "====", "A===", "AA==", "AB==", "AAA=", "AAB=", "AAAA", "A", "data:xx",
                     "AAAA====", "QUJD====", "AA==AA=="]),
)


def _replace_at(text: str, index: int, char: str) -> str:
    index %= len(text)
    return text[:index] + char + text[index + 1 :]


@needs_speedups
@given(BASE64_TEXTS)
def test_b64decode_agrees_with_binascii_and_the_pad_bit_rule(text):
    """The C decoder gives the reference decoder's bytes, and misses every text the reference refuses."""
    expected = _patterns.check_base64(text, 10**9)
    got = speedups.b64decode(text, MISS)
    if type(expected) is str:  # a problem: the C decoder hands the text back
        assert got is MISS
    else:
        assert type(got) is bytes
        assert got == expected
    assert speedups.b64decode(StrKey(text), MISS) is MISS  # a subclass is never read in C


@given(BASE64_TEXTS, st.integers(0, 31))
def test_the_converters_decoder_gives_what_the_reference_gives(text, max_bytes):
    """``_kernels.decode_base64`` (C first, where built) gives the reference's bytes or its wording, limit included."""
    assert _kernels.decode_base64(text, max_bytes) == _patterns.check_base64(text, max_bytes)


@needs_speedups
@given(st.binary(max_size=100))
def test_b64encode_is_binascii(data):
    """The C encoder writes binascii's canonical text, which the C decoder reads back."""
    assert speedups.b64encode(data) == binascii.b2a_base64(data, newline=False).decode("ascii")
    assert speedups.b64decode(speedups.b64encode(data), MISS) == data


def _exhaustive_quads():
    """Every final quantum with padding, and every Latin-1 character at every place of a full quantum."""
    for x in _B64_CHARS:
        for y in _B64_CHARS:
            yield f"{x}{y}=="
        yield f"AA{x}="
        yield f"A{x}A="
    for place in range(4):
        for code in range(256):
            yield "QUJD" + _replace_at("AAAA", place, chr(code))


@needs_speedups
def test_b64decode_agrees_on_every_final_quantum():
    """On every padded final quantum and every Latin-1 character anywhere in one, C and the reference agree."""
    for text in _exhaustive_quads():
        expected = _patterns.check_base64(text, 10**9)
        got = speedups.b64decode(text, MISS)
        assert got is MISS if type(expected) is str else got == expected, text


@pytest.mark.parametrize("text", ["AAAA====", "QUJD====", "AAAAAAAA===="])
def test_a_quantum_of_padding_alone_is_a_problem(text):
    """Padding after a whole quantum, which binascii's strict mode lets through, is worded, never an exception."""
    assert type(_patterns.check_base64(text, 100)) is str
    assert type(_kernels.decode_base64(text, 100)) is str
    with pytest.raises(cb.ValidationError):
        cb.structure({"type": "base64", "data": text}, cb.BytesSource)


@needs_speedups
def test_b64_boundaries():
    """Only exact bytes are encoded and only str decoded; the byte limit holds on the C-first path."""
    with pytest.raises(TypeError):
        speedups.b64encode(bytearray(b"x"))
    assert speedups.b64decode(b"AAAA", MISS) is MISS
    assert speedups.b64decode("", MISS) == b""
    assert _kernels.decode_base64("AAAA", 2) == "more than 2 bytes once decoded"
    assert _kernels.decode_base64("AAAA", 3) == b"\x00\x00\x00"
    assert _kernels.decode_base64("AA==", 1) == b"\x00"


# ------------------------------------------------------------------------------------------ dumps_ascii

stdlib_dumps = functools.partial(json.dumps, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
JSON_TEXT_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([-(2**63), -(2**63) - 1, 2**64, 10**30, -(10**30), 0]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([0.0, -0.0, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, 0.1, 100.0]),
        st.text(),  # every code point: controls, DEL, quotes, backslashes, non-ASCII, astral, lone surrogates
        st.sampled_from(["", '"', "\\", "\x7f", "\x00\x1f", "\u2028", "\U0001f600", "\ud800", "a/b"]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=6), children, max_size=5),
    ),
    max_leaves=30,
)


@needs_speedups
@given(JSON_TEXT_VALUES)
def test_dumps_ascii_writes_what_json_writes(value):
    """Any JSON value, plain or frozen, is written as json.dumps writes it (compact, ASCII, no NaN)."""
    assert speedups.dumps_ascii(value, MISS) == stdlib_dumps(value)
    frozen, problems = python_freeze(value, Limits(max_text_chars=10**6, max_depth=500, max_nodes=10**6))
    if not problems:  # the read-only containers are written as the plain ones
        assert speedups.dumps_ascii(frozen, MISS) == stdlib_dumps(value)


@needs_speedups
@given(ANY_VALUES)
def test_dumps_ascii_hands_back_what_json_must_handle(value):
    """On any value, the C writer gives json's text or a miss, never another text."""
    got = speedups.dumps_ascii(value, MISS)
    if got is MISS:
        return  # json writes it, or refuses it, as before
    assert got == stdlib_dumps(value)


@needs_speedups
@pytest.mark.parametrize(
    "value",
    [math.nan, [math.inf], {"a": -math.inf}, {1: 2}, {"a": {None: 1}}, [b"x"], StrKey("a"), [IntSub(1)], DictSub()],
)
def test_dumps_ascii_hands_back_non_json(value):
    """NaN, infinities, non-str keys, bytes and subclasses are left to json, which words or writes them."""
    assert speedups.dumps_ascii(value, MISS) is MISS


@needs_speedups
def test_dumps_ascii_hands_back_deep_values():
    """A value deeper than the C writer recurses is a miss; one just within it is written whole."""
    deep: Any = []
    for _ in range(2_000):
        deep = [deep]
    assert speedups.dumps_ascii(deep, MISS) is MISS
    shallow: Any = []
    for _ in range(900):
        shallow = [shallow]
    assert speedups.dumps_ascii(shallow, MISS) == "[" * 901 + "]" * 901


DUMP_HOOKS = _unstructure.dump_hooks(native_binary=False)


@given(strategies.conversations(max_messages=6))
def test_cb_dumps_is_the_stdlib_text(conversation):
    """cb.dumps of a conversation is json's compact ASCII text of its unstructured form."""
    assert cb.dumps(conversation) == stdlib_dumps(DUMP_HOOKS[cb.Conversation](conversation))


class _Part:
    """An object of no JSON type, written through the ``part`` callback."""

    def __init__(self, value):
        self.value = value


@needs_speedups
@given(JSON_TEXT_VALUES, st.integers(0, 3))
def test_dumps_ascii_writes_parts_at_the_top_and_in_tuples(value, at):
    """``part`` is called for the top-level value and the items of tuples, and its result written in place."""
    def part(obj):
        return obj.value

    wrapped = (
        _Part(value), (_Part(value), 1), ((_Part(value),), [2]), (_Part(_Part(value)),),
    )[at]  # fmt: skip
    plain = (value, (value, 1), ((value,), [2]), None)[at]
    got = speedups.dumps_ascii(wrapped, MISS, part)
    if at == 3:  # what a part returns is written without further calls: another _Part there hands back
        assert got is MISS
    else:
        assert got == stdlib_dumps(plain)


@needs_speedups
def test_dumps_ascii_offers_no_part_inside_lists_and_dicts():
    """Inside a list or a dict no part is offered: the object there makes a miss, the callback is never called."""
    calls = []

    def part(obj):
        calls.append(obj)
        return 1

    for value in ([_Part(1)], {"a": _Part(1)}, [(_Part(1),)]):
        assert speedups.dumps_ascii(value, MISS, part) is MISS
    assert calls == []
    assert speedups.dumps_ascii((_Part(1), [3]), MISS, part) == "[1,[3]]"
    assert speedups.dumps_ascii(_Part(1), MISS, None) is MISS


@needs_speedups
def test_dumps_ascii_parts_miss_raise_and_are_released():
    """What a part returns is released once written; a miss from it is a miss, and its exception goes through."""
    held = ["x"]
    before = sys.getrefcount(held)
    assert speedups.dumps_ascii((_Part(1), _Part(2)), MISS, lambda obj: held) == '[["x"],["x"]]'
    assert sys.getrefcount(held) == before
    assert speedups.dumps_ascii((_Part(1), _Part(2)), MISS, lambda obj: MISS if obj.value == 2 else 0) is MISS

    def boom(obj):
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        speedups.dumps_ascii([1, (_Part(1),)][1], MISS, boom)
    with pytest.raises(TypeError, match="2 or 3 arguments"):
        speedups.dumps_ascii(1)  # type: ignore[call-arg]


@needs_speedups
@given(strategies.conversations(max_messages=6))
def test_a_conversation_is_written_message_by_message(conversation):
    """Handed a conversation's parts, the writer unstructures each message once, and writes cb.dumps' text."""
    calls = []
    default = _unstructure.dump_default(native_binary=False)

    def counting(obj):
        calls.append(type(obj))
        return default(obj)

    parts = _unstructure.serialised_parts(conversation)
    assert parts is conversation.messages
    assert speedups.dumps_ascii(parts, MISS, counting) == cb.dumps(conversation)
    assert calls == [type(m) for m in conversation.messages]


# ------------------------------------------------------------------------------------------ instance_maker


CLASSES = [
    cb.TextBlock, cb.RefusalBlock, cb.FileBlock, cb.ReasoningBlock, cb.ToolCallBlock, cb.ToolResultBlock,
    cb.JsonBlock, cb.BytesSource, cb.UrlSource, cb.ReferenceSource, cb.Citation, cb.CitedUri, cb.CitedReference,
    cb.Message, cb.Conversation,
]  # fmt: skip


@needs_speedups
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_instance_maker_builds_what_the_generated_constructor_builds(cls):
    """The C maker and the Python one put each value in its slot as it is, and the instance stays frozen."""
    names = [a.name for a in attrs.fields(cls)]
    values = [object() for _ in names]  # unchecked: any value goes in its slot as it is
    made = speedups.instance_maker(cls, tuple(names))(*values)
    python = _unchecked.generated(cls, names)(*values)
    assert type(made) is cls
    for name, value in zip(names, values, strict=True):
        assert getattr(made, name) is value
        assert getattr(python, name) is value
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.__setattr__(names[0], 1)


@needs_speedups
def test_instance_maker_refuses_what_it_cannot_build():
    """Wrong arity, keywords, unknown names, non-slots, built-in classes and foreign slots are refused."""
    maker = speedups.instance_maker(cb.CitedUri, ("value",))
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker()
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker("a", "b")
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker(value="a")
    with pytest.raises(AttributeError):
        speedups.instance_maker(cb.CitedUri, ("nope",))
    with pytest.raises(TypeError, match="not a slot"):
        speedups.instance_maker(cb.CitedUri, ("__init__",))
    with pytest.raises(TypeError, match="not a plain class"):
        speedups.instance_maker(int, ())
    with pytest.raises(TypeError, match="not a plain class"):
        speedups.instance_maker(_json.JsonObject, ())

    class Other:
        __slots__ = ("value",)

    assert speedups.instance_maker(Other, ("value",))(1).value == 1

    class Unrelated:
        __slots__ = ()

    # A slot descriptor of another class, even under the same name, would write outside the instance.
    Unrelated.value = Other.__dict__["value"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="not a slot"):
        speedups.instance_maker(Unrelated, ("value",))


# ------------------------------------------------------------------------------------------ the whole library, pure

CONFORMANCE_RUNNER = Path(__file__).parents[1].parent / "shared" / "conformance" / "run.py"


@pytest.mark.skipif(not CONFORMANCE_RUNNER.is_file(), reason="conformance vectors not next to the repository")
def test_conformance_runner_passes_in_pure_python():
    """The shared runner, in a fresh interpreter where the accelerator is off from the start."""
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    run = subprocess.run(  # noqa: S603
        [sys.executable, str(CONFORMANCE_RUNNER), "--json"], env=env, capture_output=True, text=True, check=False
    )
    summary = json.loads(run.stdout)
    assert run.returncode == 0, summary
    assert summary["failed"] == 0
    assert summary["passed"] > 0


def test_cli_checks_the_example_in_pure_python():
    """``python -m contentblocks check`` passes the shipped example in a fresh pure-Python interpreter."""
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "contentblocks", "check"], env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 problems" in run.stdout


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


@needs_speedups
@pytest.mark.parametrize("size", [65_535, 65_536, 65_537, 200_000])
def test_dumps_ascii_spans_chunks(size):
    """Strings and documents longer than the writer's 64 KiB chunks, plain and escaped, come out whole."""
    values = [
        "a" * size,
        ["x" * (size // 3), "é" * (size // 7), "\U0001f600" * (size // 13), "\n" * (size // 5)],
        {str(i): "ab\u2028" * 3 for i in range(size // 40)},
    ]
    for value in values:
        assert speedups.dumps_ascii(value, MISS) == stdlib_dumps(value)
