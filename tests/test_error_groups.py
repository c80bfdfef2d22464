"""cattrs' exception groups around our ValidationError read with our paths: transform_error, format_exception."""

from __future__ import annotations

import attrs
import cattrs
import pytest

import contentblocks as cb


@attrs.frozen
class Turn:
    message: cb.Message
    scores: list[int]


@attrs.frozen
class Session:
    turns: list[Turn]
    history: cb.Conversation
    by_name: dict[str, cb.Message]


def failure(converter: cattrs.BaseConverter, data: object, cls: type) -> BaseException:
    with pytest.raises(Exception) as e:
        converter.structure(data, cls)
    return e.value


def configured(cls: type[cattrs.BaseConverter] = cattrs.Converter) -> cattrs.BaseConverter:
    converter = cls()
    cb.configure_converter(converter)
    return converter


def test_nested_groups_give_full_paths():
    """Problems of blocks deep in a user's classes get paths from the user's root, beside cattrs' own lines."""
    bad_message = {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "nope"}]}
    data = {
        "turns": [{"message": {"role": "user", "content": "hi"}, "scores": [1]}, {"message": bad_message, "scores": ["x"]}],
        "history": [{"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c", "tool_name": "f", "outcome": "failed", "content": []}]}],
        "by_name": {"a": {"role": "robot", "content": "x"}},
    }
    lines = cb.transform_error(failure(configured(), data, Session))
    assert lines == [
        "must not be empty @ $.turns[1].message.content[0].text",
        (
            'unknown block type "nope"; expected one of: text, refusal, file, reasoning, tool_call, tool_result,'
            " json, server_tool_call, server_tool_result, compaction, search_result, approval_request, approval_response @ $.turns[1].message.content[1].type"
        ),
        "invalid value for type, expected int @ $.turns[1].scores[0]",
        "tool result answers no earlier tool call @ $.history[0].content[0].tool_call_id",
        "expected one of: system, developer, user, assistant, tool @ $.by_name.a.role",
    ]


def test_our_own_error_alone():
    """A ValidationError raised directly (BaseConverter, or structuring a block) gives one line a problem."""
    error = failure(configured(cattrs.BaseConverter), {"role": "user", "content": ""}, cb.Message)
    assert isinstance(error, cb.ValidationError)
    assert cb.transform_error(error) == ["must not be empty @ $.content"]
    assert cb.transform_error(error, path="$.request") == ["must not be empty @ $.request.content"]


def test_omitted_problems_are_counted():
    """Problems past the error cap are counted in a last line rather than lost silently."""
    error = cb.ValidationError([("$.a", "bad"), ("$.b", "bad")], max_errors=1)
    assert cb.transform_error(error) == ["bad @ $.a", "1 more problems @ $"]


def test_format_exception_plugs_into_cattrs():
    """cattrs.transform_error with cb.format_exception words our problems with their paths inside the field."""
    data = {"message": {"role": "user", "content": [{"type": "text", "text": ""}]}, "scores": ["x"]}
    lines = cattrs.transform_error(failure(configured(), data, Turn), format_exception=cb.format_exception)
    assert lines == ["$.content[0].text: must not be empty @ $.message", "invalid value for type, expected int @ $.scores[0]"]


def test_other_exceptions_use_the_given_formatter():
    """Failures that are not ours go through the format_exception passed in, as in cattrs."""
    lines = cb.transform_error(failure(configured(), {"message": {"role": "user", "content": "x"}}, Turn),
                               format_exception=lambda exc, _type: type(exc).__name__)
    assert lines == ["KeyError @ $.scores"]
