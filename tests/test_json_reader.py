"""The C JSON reader ``cb.loads`` tries first: the standard library's values for what it reads, a miss otherwise.

``read_json`` reads valid text to exactly what ``json.loads`` (with the library's hooks) builds, and hands any
other text back, so that the standard library reads it again and words the problem. The oracle here is that
parser itself: for any text, generated or damaged, the reader gives the parser's value or a miss, and a miss
whenever the parser refuses the text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import _api
from contentblocks._conversion._kernels import MISS, speedups
from contentblocks.strategies import json_values
from hostile_strategies import exact
from strategies import wire_conversations

pytestmark = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

READ_DEPTH = 48  # json_reader.c: deeper text is left to the standard library


def stdlib(text: str | bytes) -> tuple[str, Any]:
    """What the standard library's parser, with the library's hooks, makes of ``text``: a value or a refusal."""
    try:
        return "ok", _api._decode(text.decode("utf-8") if type(text) is bytes else text)
    except (ValueError, RecursionError):  # JSONDecodeError, the hooks' refusals, invalid UTF-8, int() limits
        return "refused", None


def assert_read_as_stdlib(text: str | bytes) -> None:
    """The reader's value is the parser's, type-exact; where the parser refuses, the reader misses."""
    got = speedups.read_json(text, MISS)
    kind, expected = stdlib(text)
    if kind == "refused":
        assert got is MISS
    elif got is not MISS:
        assert exact(expected, got)


def texts_of(value: Any) -> st.SearchStrategy[str]:
    """``value`` written as JSON in the ways people write it: compact, spaced, indented, ASCII-escaped or not."""
    return st.builds(
        lambda ascii_only, indent, spaced: json.dumps(
            value, ensure_ascii=ascii_only, indent=indent, separators=(", ", ": ") if spaced else (",", ":")
        ),
        st.booleans(),
        st.sampled_from([None, 0, 2, "\t"]),
        st.booleans(),
    )


@given(st.data())
def test_valid_text_reads_to_the_standard_librarys_values(data):
    """Any JSON value, written any usual way, as str or bytes, reads to json.loads' value, type-exact."""
    value = data.draw(json_values())
    text = data.draw(texts_of(value))
    for form in (text, text.encode()):
        got = speedups.read_json(form, MISS)
        assert got is not MISS
        assert exact(json.loads(text), got)


@given(wire_conversations())
def test_a_conversation_reads_whole(conversation):
    """A whole conversation in canonical wire form reads in C, to what it was written from."""
    text = json.dumps(conversation, ensure_ascii=False).encode()
    assert exact(json.loads(text), speedups.read_json(text, MISS))


DAMAGE = st.sampled_from(
    [b"", b"\\", b'"', b",", b":", b"{", b"}", b"[", b"]", b"-", b".", b"e", b"0", b"\x00", b"\x1f", b"\x80",
     b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\\u", b"\\ud800", b"\\udc00", b"NaN", b"Infinity", b"1e400",
     b"9" * 30, b" ", b"\t", b"\xa0", b"true", b"nul"]
)  # fmt: skip


@given(st.data())
@example(data=None)
def test_damaged_text_reads_as_the_standard_library_reads_it_or_misses(data):
    """Text cut, spliced or with bytes swapped reads to the parser's value, or misses; never a different value."""
    if data is None:  # the example: a key repeated after a splice
        assert_read_as_stdlib(b'{"a":1,"a":2}')
        return
    text = json.dumps(data.draw(json_values()), ensure_ascii=data.draw(st.booleans())).encode()
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + data.draw(DAMAGE) + text[at + cut :]
    assert_read_as_stdlib(text)
    assert_read_as_stdlib(text.decode("utf-8", "surrogateescape").encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":1,"a":2}',
        b'{"a":{"b":1,"b":1}}',
        b"NaN",
        b"[Infinity]",
        b"[-Infinity]",
        b"\xef\xbb\xbf{}",
        "\ufeff{}",
        b'"\xed\xa0\x80"',
        b'"\xc3"',
        b'"\xff"',
        b"[1,]",
        b'{"a":1,}',
        b"01",
        b"1.",
        b".5",
        b"-",
        b"1e",
        b"+1",
        b'"a\nb"',
        b'"\\x"',
        b'"abc',
        b"[" * 10 + b"]" * 9,
        b"{} {}",
        b"",
        b"   ",
        b"\xa0{}",
        b"9" * 4301,
        b"true false",
        b"nul",
        "\udc80",
    ],
)
def test_text_the_parser_refuses_is_handed_back(text):
    """Duplicate keys, NaN, a byte-order mark, lone surrogates, bad UTF-8 and syntax errors miss; json words them."""
    assert speedups.read_json(text, MISS) is MISS
    assert stdlib(text)[0] == "refused"


@pytest.mark.parametrize(
    "text", [b'"\\ud800"', b'"\\udc00"', b'"\\ud800\\u0041"', b'"\\ud800x"', b'["\\udfff\\ud800"]']
)
def test_lone_surrogate_escapes_are_left_to_the_standard_library(text):
    """json reads a lone surrogate escape into the string, for structure to word; the reader hands it back."""
    assert speedups.read_json(text, MISS) is MISS
    kind, value = stdlib(text)
    assert kind == "ok"
    assert _api.parse_json(text) == value


@pytest.mark.parametrize(
    "text",
    [
        b"1e400",
        b"-1e400",
        b"-0.0",
        b"-0",
        b"0",
        b"1E+2",
        b"1e-2",
        b"123456789012345678",
        b"1234567890123456789",
        b"-9223372036854775809",
        b"18446744073709551616",
        b"9" * 4300,
        b"0.1000000000000000055511151231257827",
        b'"\\ud83d\\ude00 \\u00e9 \\/ \\b\\f\\n\\r\\t \\" \\\\"',
        b'"\\uD83D\\uDE00"',
        '"caf\u00e9 \U0001f600"'.encode(),
        '"caf\u00e9"',
        b' \t\r\n{ "a" : [ 1 , { } , [ ] ] } \n',
        b'{"": ""}',
        b"[]",
        b'"\\u0000"',
    ],
)
def test_numbers_strings_and_space_read_as_the_standard_library_reads_them(text):
    """Edge numbers (inf from 1e400, -0.0, long ints), every escape, surrogate pairs and spacing read as json does."""
    got = speedups.read_json(text, MISS)
    kind, expected = stdlib(text)
    assert kind == "ok"
    assert got is not MISS
    assert exact(expected, got)


def test_equal_keys_share_one_string():
    """Equal keys are one str object, as json's memo makes them, so loaded objects hold each key once."""
    value = speedups.read_json(b'[{"role":1},{"role":2},{"x":{"role":3}}]', MISS)
    first = next(iter(value[0]))
    assert next(iter(value[1])) is first
    assert next(iter(value[2]["x"])) is first


def test_keys_share_one_string_past_the_recent_keys_it_keeps():
    """More keys than the reader keeps at hand (256), escaped spellings and keys too long to keep: still one str
    per key, and the standard library's values."""
    keys = [f"k{i}" for i in range(600)] + ["x" * 32, "y" * 33, "caf\u00e9", "type"]
    spelled = [*keys, *reversed(keys), "\\u0074ype", "\\u0063af\\u00e9"]
    objects = [f'{{"{key}": {n}, "{spelled[-1 - n]}": "v"}}' for n, key in enumerate(spelled)]
    text = "[" + ",".join(objects) + "]"
    value = speedups.read_json(text, MISS)
    assert exact(stdlib(text)[1], value)
    seen: dict[str, str] = {}
    for obj in value:
        for key in obj:
            assert seen.setdefault(key, key) is key


def test_nesting_past_its_depth_is_left_to_the_standard_library():
    """Within READ_DEPTH containers the reader reads; one more and it misses, and loads still reads the text."""
    within = b"[" * READ_DEPTH + b"]" * READ_DEPTH
    deeper = b"[" * (READ_DEPTH + 1) + b"]" * (READ_DEPTH + 1)
    assert speedups.read_json(within, MISS) is not MISS
    assert speedups.read_json(deeper, MISS) is MISS
    assert _api.parse_json(deeper) == json.loads(deeper)


def test_recursion_running_out_is_a_miss_not_an_error():
    """With too few frames left, the reader misses and the standard library's parser decides (and words it)."""
    text = b"[" * 40 + b"]" * 40
    limit = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(depth + 20)
    try:
        got = speedups.read_json(text, MISS)
    finally:
        sys.setrecursionlimit(limit)
    assert got is MISS


@pytest.mark.parametrize("text", [bytearray(b"{}"), memoryview(b"{}"), 1, None, [b"{}"]])
def test_other_inputs_are_handed_back(text):
    """Only exact str and bytes are read; anything else is the caller's to convert or refuse."""
    assert speedups.read_json(text, MISS) is MISS


def test_loads_words_what_the_reader_hands_back():
    """The error of a text the reader misses is the standard library's wording, as on the pure path."""
    with pytest.raises(cb.ValidationError, match='duplicate key "text"'):
        cb.loads(b'{"type":"text","text":"a","text":"b"}')
    with pytest.raises(cb.ValidationError, match="byte-order mark"):
        cb.loads(b"\xef\xbb\xbf{}")
    with pytest.raises(cb.ValidationError, match="NaN is not a JSON number"):
        cb.loads(b'{"type":"json","value":NaN}')


@pytest.mark.parametrize("stop", ['"', "\\n", "\\u00e9", "\x1f", "\x00", "\x7f", "\x80", "é", "\u2028", "😀", "\\"])
@pytest.mark.parametrize("pad", [0, 17, 40])
def test_a_string_ends_its_plain_run_at_every_place_of_a_sixteen_byte_step(stop, pad):
    """Quotes, escapes, control, DEL and non-ASCII bytes at each place of the reader's 16-byte scan, as json reads them."""
    for at in range(33):
        text = '["' + "a" * at + stop + "b" * 3 + '"' + " " * pad + "]"
        assert_read_as_stdlib(text)
        assert_read_as_stdlib(text.encode("utf-8", "surrogatepass"))
        if stdlib(text)[0] == "ok":  # a valid text is read, not handed back
            assert speedups.read_json(text, MISS) is not MISS
