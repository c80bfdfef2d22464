"""The C JSON writer (``json_writer.c``: ``dumps_ascii``) against ``json.dumps``, and ``cb.dumps`` built on it.

For any JSON value, plain or frozen, the C writer must give json's compact ASCII text exactly, or hand the
value back as a miss for json to write or refuse; never another text.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks._checks._rules import Limits
from contentblocks._conversion import _unstructure
from contentblocks._conversion._kernels import speedups
from speedups_checks import ANY_VALUES, MISS, DictSub, IntSub, StrKey, needs_speedups, python_freeze

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
@pytest.mark.parametrize("stop", ['"', "\\", "\n", "\x1f", "\x7f", "\x80", "é", "\u2028", "😀", "~", " "])
def test_dumps_ascii_escapes_at_every_place_of_a_sixteen_byte_step(stop):
    """A character to escape (or not: '~', ' ') at each place of the writer's 16-byte scan, as json writes it."""
    for at in range(40):
        text = "a" * at + stop + "b" * 3
        assert speedups.dumps_ascii([text, text[:at]], MISS) == stdlib_dumps([text, text[:at]])


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
