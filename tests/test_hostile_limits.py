"""Every limit of SPEC §5-§6 is a converter option, enforced at exactly N, and checked before expensive work."""

from __future__ import annotations

import base64
import binascii
import sys
import tracemalloc

import pytest

import contentblocks as cb
from contentblocks._checks import _patterns
from contentblocks._conversion import _kernels


def accepts(conv, raw, target=cb.Block) -> bool:
    try:
        conv.structure(raw, target)
    except cb.ValidationError:
        return False
    return True


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


N = 5
TEXT_FIELDS = [
    lambda s: {"type": "text", "text": s},
    lambda s: {"type": "refusal", "text": s},
    lambda s: {"type": "reasoning", "text": s},
    lambda s: {"type": "reasoning", "signature": s},
    lambda s: {"type": "json", "value": s},
    lambda s: {"type": "json", "value": {s: 1}},
    lambda s: {"type": "json", "value": 1, "metadata": {"k": s}},
    lambda s: {"type": "text", "text": "abc", "citations": [{"source": {"kind": "uri", "value": "urn:x"}, "quote": s}]},
    lambda s: {"type": "text", "text": "abc", "citations": [{"source": {"kind": "uri", "value": "urn:x"}, "title": s}]},
]


@pytest.mark.parametrize("build", TEXT_FIELDS)
def test_max_text_chars_at_n_and_n_plus_one(build) -> None:
    """max_text_chars=N accepts a string of N characters and refuses N+1, in every free-text position."""
    conv = cb.make_converter(max_text_chars=N)
    assert accepts(conv, build("a" * N))
    assert not accepts(conv, build("a" * (N + 1)))


def test_max_text_chars_applies_to_message_shorthand() -> None:
    """The string shorthand of a message's content obeys max_text_chars too."""
    conv = cb.make_converter(max_text_chars=N)
    assert accepts(conv, {"role": "user", "content": "a" * N}, cb.Message)
    assert not accepts(conv, {"role": "user", "content": "a" * (N + 1)}, cb.Message)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_max_binary_bytes_at_n_and_n_plus_one(n: int) -> None:
    """max_binary_bytes=N accepts N decoded bytes and refuses N+1, for file data and redacted reasoning."""
    conv = cb.make_converter(max_binary_bytes=n)

    def file(size: int) -> dict:
        data = base64.b64encode(b"\x01" * size).decode()
        return {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": data}}

    def redacted(size: int) -> dict:
        return {"type": "reasoning", "redacted": base64.b64encode(b"\x01" * size).decode()}

    for build in (file, redacted):
        assert accepts(conv, build(n))
        assert not accepts(conv, build(n + 1))


def test_max_binary_bytes_native_mode() -> None:
    """In the native binary mode (msgpack, CBOR) the limit applies to the bytes as given."""
    conv = cb.make_converter(binary="native", max_binary_bytes=N)
    raw = {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": b"x" * N}}
    assert accepts(conv, raw)
    raw["source"]["data"] = b"x" * (N + 1)
    assert not accepts(conv, raw)


def test_base64_length_is_checked_before_decoding(monkeypatch) -> None:
    """An oversized base64 string is refused without ever being decoded, by the converter and both decoders."""
    calls = []
    real = binascii.a2b_base64

    def spy(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(binascii, "a2b_base64", spy)
    if _kernels.speedups is not None:
        real_c = _kernels.speedups.b64decode

        def spy_c(text, miss):
            calls.append(len(text))
            return real_c(text, miss)

        monkeypatch.setattr(_kernels, "_c_b64decode", spy_c)
    conv = cb.make_converter(max_binary_bytes=3)
    assert accepts(conv, {"type": "reasoning", "redacted": "AAAA"})
    # The C structurer, where built, decodes the valid one itself, out of the spies' sight.
    decoded = [] if _kernels.speedups is not None else [4]
    assert calls == decoded
    for data in ("AAAAAA==", "A" * 4_000_000):
        with pytest.raises(cb.ValidationError, match="bytes once decoded"):
            conv.structure({"type": "reasoning", "redacted": data}, cb.Block)
        assert _patterns.check_base64(data, 3) == "more than 3 bytes once decoded"
    assert calls == decoded


@pytest.mark.parametrize("where", ["file", "reasoning"])
def test_oversized_base64_is_refused_by_length_alone(where: str) -> None:
    """The length check comes first on every path, the C structurer included, which no spy can watch.

    An oversized string whose last quantum is not base64 is refused for its size, not its characters; and
    refusing a valid oversized string allocates nothing near the size of its decoded bytes (tracemalloc sees
    the C extension's allocations too).
    """
    conv = cb.make_converter(max_binary_bytes=3)

    def build(data: str) -> dict:
        if where == "file":
            return {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": data}}
        return {"type": "reasoning", "redacted": data}

    bad_tail = build("A" * 3_999_996 + "!!!!")
    with pytest.raises(cb.ValidationError) as info:
        conv.structure(bad_tail, cb.Block)
    assert [message for _, message in info.value.errors] == ["more than 3 bytes once decoded"]
    valid = build("A" * 4_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(cb.ValidationError, match="bytes once decoded"):
            conv.structure(valid, cb.Block)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300_000  # decoding first would hold 3,000,000 bytes


URI_FIELDS = [
    ("https://", lambda s: {"type": "file", "media_type": "a/b", "source": {"type": "url", "url": s}}),
    ("f", lambda s: {"type": "file", "media_type": "a/b", "source": {"type": "reference", "id": s}}),
    ("urn:", lambda s: {"type": "text", "text": "t", "citations": [{"source": {"kind": "uri", "value": s}}]}),
    ("r", lambda s: {"type": "text", "text": "t", "citations": [{"source": {"kind": "reference", "value": s}}]}),
]


@pytest.mark.parametrize(("prefix", "build"), URI_FIELDS, ids=["url", "reference-id", "cited-uri", "cited-reference"])
def test_max_uri_chars_at_n_and_n_plus_one(prefix: str, build) -> None:
    """max_uri_chars=N accepts a URL, URI or reference of N characters and refuses N+1."""
    n = 20
    conv = cb.make_converter(max_uri_chars=n)
    assert accepts(conv, build(prefix + "a" * (n - len(prefix))))
    assert not accepts(conv, build(prefix + "a" * (n + 1 - len(prefix))))


@pytest.mark.parametrize("key", ["value", "input", "metadata"])
@pytest.mark.parametrize("n", [1, 3, 7])
def test_max_depth_at_n_and_n_plus_one(key: str, n: int) -> None:
    """max_depth=N accepts N nested containers in a JSON value and refuses N+1 (a metadata value, inside its object)."""
    conv = cb.make_converter(max_depth=n)

    def build(depth: int) -> dict:
        value = nested(depth)
        if key == "metadata":
            return {"type": "json", "value": 1, "metadata": {"k": value}}
        if key == "input":
            return {"type": "tool_call", "tool_call_id": "c", "tool_name": "f", "input": value}
        return {"type": "json", "value": value}

    assert accepts(conv, build(n))
    assert not accepts(conv, build(n + 1))


def test_max_depth_is_bounded() -> None:
    """max_depth cannot be set beyond what the standard json module can write back; non-positive limits are refused."""
    with pytest.raises(ValueError, match="at most"):
        cb.make_converter(max_depth=10_000)
    for option in ("max_text_chars", "max_binary_bytes", "max_uri_chars", "max_depth", "max_nodes", "max_errors"):
        with pytest.raises(ValueError, match="positive"):
            cb.make_converter(**{option: 0})


@pytest.mark.parametrize("n", [2, 5, 10])
def test_max_nodes_at_n_and_n_plus_one_flat(n: int) -> None:
    """max_nodes=N accepts a flat array holding N-1 scalars (N values with the array) and refuses one more."""
    conv = cb.make_converter(max_nodes=n)
    assert accepts(conv, {"type": "json", "value": [0] * (n - 1)})
    assert not accepts(conv, {"type": "json", "value": [0] * n})


@pytest.mark.parametrize("shape", [[[1, 2], 3], {"a": [1, 2]}, [[1], [2]], [[[[]]]], {"a": {"b": {}}}])
def test_max_nodes_counts_each_value_once(shape) -> None:
    """Nested containers count once each: a value of exactly N nodes is accepted at max_nodes=N, refused at N-1."""

    def count(v) -> int:
        if isinstance(v, dict):
            return 1 + sum(count(x) for x in v.values())
        if isinstance(v, list):
            return 1 + sum(count(x) for x in v)
        return 1

    n = count(shape)
    assert accepts(cb.make_converter(max_nodes=n), {"type": "json", "value": shape})
    assert not accepts(cb.make_converter(max_nodes=n - 1), {"type": "json", "value": shape})


def test_max_errors_caps_and_counts_separate_problems() -> None:
    """max_errors=N keeps N problems and counts the rest in omitted."""
    conv = cb.make_converter(max_errors=3)
    with pytest.raises(cb.ValidationError) as info:
        conv.structure([{"role": "nobody", "content": "x"}] * 10, cb.Conversation)
    assert len(info.value.errors) == 3
    assert info.value.omitted == 7
    assert "10 problems" in str(info.value)


def test_max_errors_counts_problems_inside_one_json_value() -> None:
    """Problems beyond max_errors inside one JSON value are counted in omitted, not silently dropped."""
    conv = cb.make_converter(max_errors=3)
    with pytest.raises(cb.ValidationError) as info:
        conv.structure({"type": "json", "value": [float("nan")] * 10}, cb.Block)
    assert len(info.value.errors) == 3
    assert info.value.omitted == 7


def test_ints_are_range_checked_without_formatting(monkeypatch) -> None:
    """A huge int is refused without being turned into text (which could raise past 640 digits here)."""
    monkeypatch.setattr(sys, "get_int_max_str_digits", sys.get_int_max_str_digits)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        uri = {"kind": "uri", "value": "urn:x"}
        for raw in (
            {"type": "json", "value": 10**700},
            {"type": "json", "value": [-(10**700)]},
            {"type": "json", "value": 1, "metadata": {"n": 10**700}},
            {"type": "text", "text": "abc", "citations": [{"source": uri, "start": 10**700, "end": 10**701}]},
            {"type": "text", "text": "abc", "citations": [{"source": uri, "start": 0, "end": 10**700}]},
        ):
            with pytest.raises(cb.ValidationError):
                cb.structure(raw, cb.Block)
    finally:
        sys.set_int_max_str_digits(old)


def test_limits_reach_the_preconf_converters() -> None:
    """The preconf converters take the same limit options as make_converter."""
    from contentblocks.preconf import json as preconf_json  # noqa: PLC0415

    conv = preconf_json.make_converter(max_text_chars=N)
    assert conv.loads('{"type":"text","text":"aaaaa"}', cb.Block).text == "aaaaa"
    with pytest.raises(cb.ValidationError, match="longer than 5"):
        conv.loads('{"type":"text","text":"aaaaaa"}', cb.Block)


def _python_lines(call) -> int:
    """How many lines of Python code running ``call`` executes (a measure of work that the clock does not blur)."""
    lines = 0

    def trace(_frame, event, _arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    except cb.ValidationError:
        pass
    finally:
        sys.settrace(previous)
    return lines


NODE_LIMIT = 8_000
# Raw values holding a JSON value of ``n`` nodes (``n`` a multiple of 4): a list of three-item lists.
NODE_LIMIT_PLACES = {
    "json block": (cb.Block, lambda n: {"type": "json", "value": [[0, 0, 0]] * (n // 4 - 1) + [[0, 0]]}),
    "tool call in a message": (cb.Message, lambda n: {"role": "assistant", "content": [
        {"type": "text", "text": "calling"},
        {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"a": [[0, 0, 0]] * (n // 4 - 1)}},
    ]}),
    "message metadata": (cb.Message, lambda n: {"role": "user", "content": "hi",
                                                 "metadata": {"a": [[0, 0, 0]] * (n // 4 - 1)}}),
}


@pytest.mark.parametrize("place", NODE_LIMIT_PLACES)
def test_refusal_at_max_nodes_walks_the_value_no_more_than_acceptance(place: str) -> None:
    """A value just over max_nodes is refused with no more Python work than one just under it is accepted with."""
    target, build = NODE_LIMIT_PLACES[place]
    conv = cb.make_converter(max_nodes=NODE_LIMIT)
    under, over = build(NODE_LIMIT - 4), build(NODE_LIMIT + 4)
    assert accepts(conv, under, target)
    assert not accepts(conv, over, target)
    accepted = _python_lines(lambda: conv.structure(under, target))
    refused = _python_lines(lambda: conv.structure(over, target))
    assert refused <= accepted + 1_000, (accepted, refused)
