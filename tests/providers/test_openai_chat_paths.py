"""A bad tool call id or name in a Chat Completions message is reported at its own key, not the neutral field."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import openai_chat

BAD = ["", "call 1", "a\x00b"]


def _call(key: str, bad: str) -> dict[str, Any]:
    call: dict[str, Any] = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    if key == "id":
        call["id"] = bad
    else:
        call["function"]["name"] = bad
    return call


def _reply(key: str, bad: str) -> Any:
    message = {"role": "assistant", "content": None, "tool_calls": [_call(key, bad)]}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    return openai_chat.from_response(
        {"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [choice]}
    )


def _request(key: str, bad: str) -> Any:
    if key == "tool_call_id":
        tool = {"role": "tool", "tool_call_id": bad, "content": "x"}
        return openai_chat.from_provider(
            {"messages": [{"role": "assistant", "tool_calls": [_call("id", "call_1")]}, tool]}
        )
    return openai_chat.from_provider({"messages": [{"role": "assistant", "tool_calls": [_call(key, bad)]}]})


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(
    ("read", "key", "path"),
    [
        (_reply, "id", "$.choices[0].message.tool_calls[0].id"),
        (_reply, "name", "$.choices[0].message.tool_calls[0].function.name"),
        (_request, "id", "$.messages[0].tool_calls[0].id"),
        (_request, "name", "$.messages[0].tool_calls[0].function.name"),
        (_request, "tool_call_id", "$.messages[1].tool_call_id"),
    ],
    ids=["reply id", "reply name", "request id", "request name", "request tool_call_id"],
)
def test_bad_tool_ids_are_reported_at_the_provider_key(read, key, path, bad):
    """A tool call's id or function name, or a tool message's tool_call_id, that is no valid identifier is reported there."""
    with pytest.raises(cb.ValidationError) as caught:
        read(key, bad)
    assert [where for where, _ in caught.value.errors] == [path]
