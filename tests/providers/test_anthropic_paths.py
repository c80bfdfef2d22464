"""A bad tool id or name in an Anthropic block is reported at the block's own key, not the neutral field."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import anthropic

BAD = ["", "toolu 1", "a\x00b"]
USE = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}


def _reply(block: dict[str, Any]) -> Any:
    return anthropic.from_response(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [block],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


def _request(block: dict[str, Any]) -> Any:
    if block["type"] == "tool_result":
        return anthropic.from_provider(
            {"messages": [{"role": "assistant", "content": [USE]}, {"role": "user", "content": [block]}]}
        )
    return anthropic.from_provider({"messages": [{"role": "assistant", "content": [block]}]})


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(
    ("read", "block", "key", "path"),
    [
        (_reply, USE, "id", "$.content[0].id"),
        (_reply, USE, "name", "$.content[0].name"),
        (_request, USE, "id", "$.messages[0].content[0].id"),
        (_request, USE, "name", "$.messages[0].content[0].name"),
        (
            _request,
            {"type": "tool_result", "tool_use_id": "toolu_1"},
            "tool_use_id",
            "$.messages[1].content[0].tool_use_id",
        ),
    ],
    ids=["reply id", "reply name", "request id", "request name", "request tool_use_id"],
)
def test_bad_tool_ids_are_reported_at_the_provider_key(read, block, key, path, bad):
    """A tool_use id or name, or a tool_result tool_use_id, that is no valid identifier is reported at that key."""
    with pytest.raises(cb.ValidationError) as caught:
        read({**block, key: bad})
    assert [where for where, _ in caught.value.errors] == [path]
