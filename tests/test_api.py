"""The module-level API: loads, dumps, normalize, file_from_data_url and ValidationError itself."""

from __future__ import annotations

import json
import pickle

import pytest

import contentblocks as cb


def test_loads_refuses_duplicate_keys_nan_and_infinity() -> None:
    """cb.loads parses strictly: duplicate keys, NaN and Infinity are ValidationErrors."""
    for text in ('{"type": "text", "text": "a", "text": "b"}', '{"type": "json", "value": NaN}',
                 '{"type": "json", "value": -Infinity}', '{"type": "json", "value": 1e400}'):
        with pytest.raises(cb.ValidationError):
            cb.loads(text)


def test_loads_turns_parser_failures_into_validation_errors() -> None:
    """Truncated text, invalid UTF-8, deep nesting and huge numbers raise ValidationError only."""
    cases = ['{"type": "text"', b'{"type": "text", "text": "\xff"}', "[" * 100_000, "1" * 5000]
    for case in cases:
        with pytest.raises(cb.ValidationError):
            cb.loads(case)  # type: ignore[arg-type]


def test_loads_bytes_and_targets() -> None:
    """cb.loads takes str or bytes, and any target."""
    assert cb.loads(b'{"type": "text", "text": "hi"}') == cb.TextBlock(text="hi")
    assert cb.loads('[{"role": "user", "content": "hi"}]', cb.Conversation)[0].content[0].text == "hi"


def test_dumps_is_compact_canonical_and_ascii() -> None:
    """cb.dumps writes compact, ASCII-only JSON (escapes for the rest), and loads reads it back equal."""
    block = cb.TextBlock(text="天气 ☀ \U0001f600", metadata={"b": 1.0, "a": True})
    text = cb.dumps(block)
    assert text == '{"type":"text","text":"\\u5929\\u6c14 \\u2600 \\ud83d\\ude00","metadata":{"b":1.0,"a":true}}'
    assert text.isascii()
    assert cb.loads(text) == block


def test_dumps_of_lists_and_messages() -> None:
    """Lists of messages and single messages dump through the converter too."""
    message = cb.Message(role="user", content="hi")
    assert json.loads(cb.dumps([message])) == [cb.unstructure(message)]


def test_normalize() -> None:
    """Strings become text blocks, dicts are structured, blocks are kept, anything else is refused."""
    block = cb.TextBlock(text="x")
    assert cb.normalize(block) is block
    assert cb.normalize("x") == block
    assert cb.normalize({"type": "text", "text": "x"}) == block
    for bad in ("", 5, None, [block]):
        with pytest.raises(cb.ValidationError):
            cb.normalize(bad)


def test_file_from_data_url() -> None:
    """Data URLs become inline files; base64 must be canonical; plain payloads are percent-decoded."""
    block = cb.file_from_data_url("data:image/png;base64,iVBORw0KGgo=", filename="a.png")
    assert block.media_type == "image/png"
    assert block.filename == "a.png"
    assert isinstance(block.source, cb.BytesSource)
    assert block.source.data == b"\x89PNG\r\n\x1a\n"
    plain = cb.file_from_data_url("data:,Hello%2C%20World")
    assert plain.media_type == "text/plain;charset=US-ASCII"
    assert plain.source.data == b"Hello, World"  # type: ignore[union-attr]
    for bad in ("https://example.com/a.png", "data:image/png;base64,iVBORw0KGgo", "data:*/*;base64,AA==", 5):
        with pytest.raises(cb.ValidationError):
            cb.file_from_data_url(bad)  # type: ignore[arg-type]


def test_url_source_rejects_data_urls_with_a_hint() -> None:
    """A data: URL in a url source is refused, and the message names the helper."""
    with pytest.raises(cb.ValidationError) as info:
        cb.structure({"type": "file", "media_type": "image/png", "source": {"type": "url", "url": "data:,x"}}, cb.Block)
    assert "file_from_data_url" in info.value.errors[0][1]


def test_validation_error_is_a_value_error_and_pickles() -> None:
    """ValidationError is a ValueError with .errors and .omitted, and survives pickling."""
    with pytest.raises(ValueError) as info:
        cb.structure({"type": "text"}, cb.Block)
    error = info.value
    assert isinstance(error, cb.ValidationError)
    assert error.errors == [("$.text", "required key missing")]
    again = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own object
    assert again.errors == error.errors
    assert str(again) == str(error)


def test_validation_error_caps_problems() -> None:
    """At most max_errors problems are kept; the rest are counted in omitted and in the message."""
    converter = cb.make_converter(max_errors=3)
    with pytest.raises(cb.ValidationError) as info:
        converter.structure({"type": "json", "value": [float("nan")] * 10}, cb.Block)
    assert [path for path, _ in info.value.errors] == ["$.value[0]", "$.value[1]", "$.value[2]"]
    assert info.value.omitted == 7
    assert str(info.value).startswith("10 problems:")
    assert str(info.value).endswith("... and 7 more")
    error = cb.ValidationError([("$", "x")] * 5, max_errors=2)
    assert (len(error.errors), error.omitted) == (2, 3)


def test_make_converter_rejects_unknown_options() -> None:
    """Unknown options, a bad binary mode and a non-converter are refused at configure time."""
    with pytest.raises(ValueError, match="unknown option"):
        cb.make_converter(max_txt=1)
    with pytest.raises(ValueError, match="binary"):
        cb.make_converter(binary="hex")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_depth"):
        cb.make_converter(max_depth=10_000)
    with pytest.raises(TypeError):
        cb.configure_converter(object())  # type: ignore[arg-type]


def test_version() -> None:
    """The version comes from the installed metadata."""
    assert cb.__version__.count(".") == 2
