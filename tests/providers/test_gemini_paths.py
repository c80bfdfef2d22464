"""Errors in Gemini function calls and responses name their own place in the Gemini payload."""

from __future__ import annotations

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
    ("response", "path"),
    [
        ({"output": _deep(150)}, f"{RESPONSE}.output{'.a' * 100}"),
        ({"error": _deep(150)}, f"{RESPONSE}.error{'.a' * 100}"),
        ({"output": _deep(150), "extra": 1}, f"{RESPONSE}.output{'.a' * 99}"),
        ({"output": float("nan")}, f"{RESPONSE}.output"),
        ({"output": {"n": float("nan")}}, f"{RESPONSE}.output.n"),
        ({"error": ["fine", float("inf")]}, f"{RESPONSE}.error[1]"),
        ({"output": ["fine", "bad \ud800"]}, f"{RESPONSE}.output[1]"),
    ],
    ids=["deep output", "deep error", "deep object", "nan output", "nan member", "inf item", "surrogate text"],
)
def test_bad_response_values_are_reported_in_the_response(response, path):
    """A functionResponse value too deep or not JSON is reported at its path in the response, not at $.value."""
    with pytest.raises(cb.ValidationError) as caught:
        _answer({"id": "call_1", "name": "lookup", "response": response})
    assert [where for where, _ in caught.value.errors] == [path]
