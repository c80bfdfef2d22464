"""Errors in Gemini function calls and responses name their own place in the Gemini payload."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import gemini

BAD = ["", "call 1", "a\x00b"]
CALL = {"id": "call_1", "name": "lookup", "args": {}}
MODEL = {"role": "model", "parts": [{"functionCall": CALL}]}


def _answer(response: dict[str, Any]) -> Any:
    return gemini.from_provider({"contents": [MODEL, {"role": "user", "parts": [{"functionResponse": response}]}]})


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(
    ("read", "key", "path"),
    [
        (
            lambda c: gemini.from_response(
                {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": c}]}}]}
            ),
            "id",
            "$.candidates[0].content.parts[0].functionCall.id",
        ),
        (
            lambda c: gemini.from_response(
                {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": c}]}}]}
            ),
            "name",
            "$.candidates[0].content.parts[0].functionCall.name",
        ),
        (
            lambda c: gemini.from_provider({"contents": [{"role": "model", "parts": [{"functionCall": c}]}]}),
            "id",
            "$.contents[0].parts[0].functionCall.id",
        ),
        (
            lambda c: gemini.from_provider({"contents": [{"role": "model", "parts": [{"functionCall": c}]}]}),
            "name",
            "$.contents[0].parts[0].functionCall.name",
        ),
        (
            lambda r: _answer({"id": r["id"], "name": r["name"], "response": {"output": "x"}}),
            "id",
            "$.contents[1].parts[0].functionResponse.id",
        ),
        (
            lambda r: _answer({"id": r["id"], "name": r["name"], "response": {"output": "x"}}),
            "name",
            "$.contents[1].parts[0].functionResponse.name",
        ),
    ],
    ids=["reply call id", "reply call name", "request call id", "request call name", "response id", "response name"],
)
def test_bad_tool_ids_are_reported_at_the_provider_key(read, key, path, bad):
    """A functionCall or functionResponse id or name that is no valid identifier is reported at that key."""
    with pytest.raises(cb.ValidationError) as caught:
        read({**CALL, key: bad})
    assert [where for where, _ in caught.value.errors] == [path]


RESPONSE = "$.contents[1].parts[0].functionResponse.response"


@pytest.mark.parametrize(
    "response",
    [
        {"output": _deep(150)},
        {"error": _deep(150)},
        {"output": _deep(150), "extra": 1},
        {"output": {"order": 123456789012345678901234567890}},
        {"output": float("nan")},
        {"output": {"n": float("nan")}},
        {"error": ["fine", float("inf")]},
    ],
    ids=["deep output", "deep error", "deep object", "huge member", "nan output", "nan member", "inf item"],
)
def test_response_values_no_block_holds_are_kept_as_their_json_text(response):
    """A functionResponse value no block holds (too deep, a 30-digit integer, NaN) is kept as flagged JSON text,
    and goes back to Gemini as the value it was."""
    conversation = _answer({"id": "call_1", "name": "lookup", "response": response})
    (result,) = conversation.messages[1].content
    kept = [b for b in result.content if b.metadata.get("contentblocks/json_text") is True]
    assert len(kept) == 1
    assert isinstance(kept[0], cb.JsonBlock)
    assert type(kept[0].value) is str
    sent = gemini.to_provider(conversation)
    assert sent.losses == ()
    sent_response = sent.payload["contents"][1]["parts"][0]["functionResponse"]["response"]
    assert json.dumps(sent_response, sort_keys=True) == json.dumps(response, sort_keys=True)  # NaN != NaN: as text
    assert gemini.from_provider(sent.payload) == conversation


def test_a_response_value_with_a_lone_surrogate_is_refused_at_its_path():
    """A functionResponse string no text holds (a lone surrogate) is reported at its path in the response."""
    with pytest.raises(cb.ValidationError) as caught:
        _answer({"id": "call_1", "name": "lookup", "response": {"output": ["fine", "bad \ud800"]}})
    assert [where for where, _ in caught.value.errors] == [f"{RESPONSE}.output[1]"]
    with pytest.raises(cb.ValidationError) as caught:
        _answer({"id": "call_1", "name": "lookup", "response": {"output": {"q": "\ud800", "n": 10**30}}})
    assert sorted(where for where, _ in caught.value.errors) == [f"{RESPONSE}.output.n", f"{RESPONSE}.output.q"]


def test_an_empty_string_output_reads_and_goes_back_as_it_came():
    """A functionResponse whose output is ``""`` (a tool that printed nothing) reads as a JSON block, and back."""
    conversation = _answer({"id": "call_1", "name": "lookup", "response": {"output": ""}})
    (result,) = conversation.messages[1].content
    assert result.content == (cb.JsonBlock(value=""),)
    sent = gemini.to_provider(conversation)
    assert sent.losses == ()
    assert sent.payload["contents"][1]["parts"][0]["functionResponse"]["response"] == {"output": ""}
