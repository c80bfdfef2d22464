"""A bad tool call id or name in a Responses item is reported at the item's own key, not the neutral field."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import openai_responses

BAD = ["", "call 1", "a\x00b"]
CALL = {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{}"}


def _reply(items: list[Any]) -> Any:
    return openai_responses.from_response({"status": "completed", "output": items})


def _request(items: list[Any]) -> Any:
    return openai_responses.from_provider({"input": items})


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(
    ("read", "root", "items", "key"),
    [
        (_reply, "$.output", [{**CALL, "call_id": None}], "call_id"),
        (_reply, "$.output", [{**CALL, "name": None}], "name"),
        (_request, "$.input", [{**CALL, "call_id": None}], "call_id"),
        (_request, "$.input", [{**CALL, "name": None}], "name"),
        (_request, "$.input", [CALL, {"type": "function_call_output", "call_id": None, "output": "x"}], "call_id"),
    ],
    ids=["reply call_id", "reply name", "request call_id", "request name", "request output call_id"],
)
def test_bad_tool_ids_are_reported_at_the_provider_key(read, root, items, key, bad):
    """A call_id or name that is no valid identifier is reported at that key of its item."""
    items = [dict(item) for item in items]
    items[-1][key] = bad
    with pytest.raises(cb.ValidationError) as caught:
        read(items)
    assert [path for path, _ in caught.value.errors] == [f"{root}[{len(items) - 1}].{key}"]
