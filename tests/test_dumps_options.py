"""cb.dumps options: ensure_ascii and indent give text that reads back equal, on every path."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.preconf.json import make_converter as make_json_converter
from strategies import blocks, conversations, messages

VALUES = st.one_of(blocks(), messages(), conversations(max_messages=4))
OPTIONS = st.fixed_dictionaries(
    {}, optional={"ensure_ascii": st.booleans(), "indent": st.one_of(st.none(), st.integers(0, 4), st.just("\t"))}
)


@settings(max_examples=150, deadline=None)
@given(VALUES, OPTIONS)
def test_every_option_reads_back_equal(value, options):
    """loads(dumps(x, **options)) == x for every block, message and conversation and every option."""
    text = cb.dumps(value, **options)
    assert cb.loads(text, type(value) if isinstance(value, (cb.Message, cb.Conversation)) else cb.Block) == value


@settings(max_examples=100, deadline=None)
@given(VALUES, OPTIONS)
def test_options_write_what_json_dumps_writes(value, options):
    """The text is json.dumps of the canonical form with the same options (compact separators without indent)."""
    indent = options.get("indent")
    expected = json.dumps(
        cb.unstructure(value),
        ensure_ascii=options.get("ensure_ascii", True),
        indent=indent,
        separators=(",", ":") if indent is None else (",", ": "),
    )
    assert cb.dumps(value, **options) == expected


def test_ensure_ascii_false_keeps_non_ascii_text():
    """ensure_ascii=False writes CJK and emoji as themselves; the default escapes them."""
    block = cb.TextBlock(text="東京の天気 ☀️")
    assert cb.dumps(block, ensure_ascii=False) == '{"type":"text","text":"東京の天気 ☀️"}'
    assert "\\u6771" in cb.dumps(block)
    assert cb.dumps(block).isascii()


def test_indent_writes_one_key_a_line():
    """indent=2 writes the readable form, with ': ' after keys and no trailing spaces."""
    text = cb.dumps(cb.Conversation(messages=[cb.Message(role="user", content="hi")]), indent=2)
    assert text.splitlines()[:3] == ["[", "  {", '    "role": "user",']
    assert not any(line.endswith(" ") for line in text.splitlines())


def test_options_are_keyword_only():
    """The options cannot be passed by position (a bare True would say nothing at the call site)."""
    with pytest.raises(TypeError):
        cb.dumps(cb.TextBlock(text="hi"), False)  # type: ignore[misc]


@settings(max_examples=50, deadline=None)
@given(conversations(max_messages=4), OPTIONS)
def test_json_converter_takes_the_same_options(conversation, options):
    """The preconf JSON converter's dumps passes the options to json.dumps, and its loads reads them back."""
    converter = make_json_converter()
    assert converter.loads(converter.dumps(conversation, **options), cb.Conversation) == conversation
