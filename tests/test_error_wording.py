"""Error messages read well: articles, what content may be, lists named by what they hold, a byte-order mark."""

from __future__ import annotations

import pytest

import contentblocks as cb
from contentblocks.preconf import json as preconf_json
from contentblocks.preconf import orjson as preconf_orjson

TOOL_RESULT = {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "failed", "content": []}


def errors(call) -> list[tuple[str, str]]:
    with pytest.raises(cb.ValidationError) as e:
        call()
    return e.value.errors


@pytest.mark.parametrize(
    ("role", "article"), [("assistant", "an"), ("user", "a"), ("system", "a"), ("developer", "a")]
)
def test_roles_take_their_article(role, article):
    """A role table error says 'an assistant message' and 'a user message', on the wire and in Python."""
    expected = f"{article} {role} message cannot carry tool_result blocks"
    [(_, wire)] = errors(lambda: cb.structure({"role": role, "content": [TOOL_RESULT]}, cb.Message))
    assert wire.startswith(expected)
    block = cb.structure(TOOL_RESULT, cb.Block)
    [(_, python)] = errors(lambda: cb.Message(role=role, content=[block]))
    assert python.startswith(expected)


def test_string_content_on_a_tool_message_takes_its_article():
    """String content on a tool message names the role with its article."""
    assert errors(lambda: cb.structure({"role": "tool", "content": "hi"}, cb.Message)) == [
        ("$.content", "a tool message cannot carry text (string content is a text block)")
    ]


@pytest.mark.parametrize(("content", "got"), [(5, "an integer"), (None, "null"), ({}, "an object"), (True, "a boolean")])
def test_content_that_is_neither_says_both_are_allowed(content, got):
    """Content that is neither a string nor an array says that both are allowed, on the wire and in Python."""
    assert errors(lambda: cb.structure({"role": "user", "content": content}, cb.Message)) == [
        ("$.content", f"expected a string or an array of blocks, got {got}")
    ]
    assert errors(lambda: cb.Message(role="user", content=content)) == [
        ("$.content", f"expected a string or a list of blocks, got {got}")
    ]


def test_lists_are_named_by_what_they_hold():
    """A non-list where a list belongs says 'a list of messages', 'a list of citations', 'a list of blocks'."""
    assert errors(lambda: cb.Conversation(messages=5)) == [("$", "expected a list of messages, got an integer")]
    assert errors(lambda: cb.TextBlock(text="a", citations=5)) == [
        ("$.citations", "expected a list of citations, got an integer")
    ]
    assert errors(lambda: cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="failed", content=5)) == [
        ("$.content", "expected a list of blocks, got an integer")
    ]


BOM_TEXT = '\ufeff{"type": "text", "text": "hi"}'


@pytest.mark.parametrize("text", [BOM_TEXT, BOM_TEXT.encode(), bytearray(BOM_TEXT.encode())])
@pytest.mark.parametrize("target", [cb.Block, cb.Message, cb.Conversation])
def test_a_byte_order_mark_is_named(text, target):
    """JSON text starting with a byte-order mark is refused, saying so, by loads and both JSON converters."""
    bom = "the text starts with a byte-order mark (U+FEFF)"
    assert errors(lambda: cb.loads(text, target)) == [("$", f"invalid JSON: {bom}")]
    assert errors(lambda: preconf_json.make_converter().loads(text, target)) == [("$", f"invalid JSON: {bom}")]
    if not isinstance(text, bytearray):
        assert errors(lambda: preconf_orjson.make_converter().loads(text, target)) == [
            ("$", f"not valid JSON: {bom}")
        ]


def test_a_byte_order_mark_inside_the_text_is_no_byte_order_mark():
    """U+FEFF after the start is an ordinary parse error, or text inside a string."""
    assert cb.loads('{"type": "text", "text": "\ufeff"}').text == "\ufeff"
    assert "byte-order mark" not in errors(lambda: cb.loads(' \ufeff{"type": "text", "text": "hi"}'))[0][1]
