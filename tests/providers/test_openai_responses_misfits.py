"""Allow-listed Responses metadata with a value its request type refuses stays local, and is reported as such."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import ISSUER_KEY, openai_responses
from provider_checks import assert_documented, documented_reasons
from providers.test_openai_responses import check_request

REASONS = documented_reasons("openai_responses.md")


def _text(**meta: Any) -> cb.TextBlock:
    return cb.TextBlock(text="a", metadata=meta)


def _call(**meta: Any) -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={}, metadata=meta)


def _image(**meta: Any) -> cb.FileBlock:
    return cb.FileBlock(media_type="image/*", source=cb.UrlSource(url="https://a.io/x"), metadata=meta)


def _file(**meta: Any) -> cb.FileBlock:
    return cb.FileBlock(media_type="application/octet-stream", source=cb.ReferenceSource(id="file-1"), metadata=meta)


def _reasoning(**meta: Any) -> cb.ReasoningBlock:
    return cb.ReasoningBlock(text="t", metadata={"openai/id": "rs_1", ISSUER_KEY: "openai", **meta})


def _result(**meta: Any) -> list[cb.Message]:
    result = cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="succeeded", content=[], metadata=meta)
    return [cb.Message(role="assistant", content=[_call()]), cb.Message(role="tool", content=[result])]


#: An allow-listed field given a value its request type refuses: (id, messages, the block's path or None for the
#: message, the field, the position the loss reason names, where the field would sit in the item it is written to).
MISFITS = [
    (
        "message status",
        [cb.Message(role="user", content=[_text()], metadata={"openai/status": 5})],
        None,
        "status",
        "message",
        (),
    ),
    (
        "easy message phase",
        [cb.Message(role="user", content="a", metadata={"openai/content": "string", "openai/phase": "draft"})],
        None,
        "phase",
        "message",
        (),
    ),
    (
        "output message status",
        [cb.Message(role="assistant", content=[_text(**{"openai/id": "msg_1", "openai/status": "done"})])],
        0,
        "status",
        "message",
        (),
    ),
    (
        "output message phase",
        [cb.Message(role="assistant", content=[_text(**{"openai/id": "msg_1", "openai/phase": 1})])],
        0,
        "phase",
        "message",
        (),
    ),
    (
        "easy assistant phase",
        [cb.Message(role="assistant", content=[_text(**{"openai/phase": ["final_answer"]})])],
        0,
        "phase",
        "message",
        (),
    ),
    (
        "input_text breakpoint",
        [cb.Message(role="user", content=[_text(**{"openai/prompt_cache_breakpoint": {"mode": "implicit"}})])],
        0,
        "prompt_cache_breakpoint",
        "input_text",
        ("content", 0),
    ),
    (
        "input_image detail",
        [cb.Message(role="user", content=[_image(**{"openai/detail": "huge"})])],
        0,
        "detail",
        "input_image",
        ("content", 0),
    ),
    (
        "input_image breakpoint",
        [
            cb.Message(
                role="user", content=[_image(**{"openai/prompt_cache_breakpoint": {"mode": "explicit", "ttl": "1d"}})]
            )
        ],
        0,
        "prompt_cache_breakpoint",
        "input_image",
        ("content", 0),
    ),
    (
        "input_file detail",
        [cb.Message(role="user", content=[_file(**{"openai/detail": "original"})])],
        0,
        "detail",
        "input_file",
        ("content", 0),
    ),
    (
        "input_file filename",
        [cb.Message(role="user", content=[_file(**{"openai/filename": 5})])],
        0,
        "filename",
        "input_file",
        ("content", 0),
    ),
    (
        "output_text logprobs",
        [cb.Message(role="assistant", content=[_text(**{"openai/id": "msg_1", "openai/logprobs": [{"token": "a"}]})])],
        0,
        "logprobs",
        "output_text",
        ("content", 0),
    ),
    (
        "reasoning status",
        [cb.Message(role="assistant", content=[_reasoning(**{"openai/status": None})])],
        0,
        "status",
        "reasoning",
        (),
    ),
    (
        "reasoning encrypted_content",
        [cb.Message(role="assistant", content=[_reasoning(**{"openai/encrypted_content": 5})])],
        0,
        "encrypted_content",
        "reasoning",
        (),
    ),
    (
        "function_call id",
        [cb.Message(role="assistant", content=[_call(**{"openai/id": 7})])],
        0,
        "id",
        "function_call",
        (),
    ),
    (
        "function_call async",
        [cb.Message(role="assistant", content=[_call(**{"openai/async": "yes"})])],
        0,
        "async",
        "function_call",
        (),
    ),
    (
        "function_call caller",
        [cb.Message(role="assistant", content=[_call(**{"openai/caller": {"type": "indirect"}})])],
        0,
        "caller",
        "function_call",
        (),
    ),
    ("function_call_output name", _result(**{"openai/name": 5}), 0, "name", "function_call_output", ()),
    (
        "function_call_output caller",
        _result(**{"openai/caller": {"type": "program"}}),
        0,
        "caller",
        "function_call_output",
        (),
    ),
    ("function_call_output status", _result(**{"openai/status": "done"}), 0, "status", "function_call_output", ()),
]


@pytest.mark.parametrize(
    ("name", "messages", "block", "field", "position", "where"), MISFITS, ids=[m[0] for m in MISFITS]
)
def test_allowed_fields_of_the_wrong_shape_stay_local(name, messages, block, field, position, where):
    """An allow-listed field whose value its request type refuses is not sent, and is reported as not sent."""
    converted = openai_responses.to_provider(cb.Conversation(messages=messages))
    check_request(converted.payload)
    at = f"$[{len(messages) - 1}]" + ("" if block is None else f".content[{block}]")
    stored = (messages[-1].metadata if block is None else messages[-1].content[block].metadata)[f"openai/{field}"]
    item: Any = converted.payload["input"][-1]
    for step in where:
        item = item[step]
    assert (field, stored) not in item.items()
    assert [(loss.path, loss.reason, loss.kind) for loss in converted.losses] == [
        (
            f'{at}.metadata["openai/{field}"]',
            f"not a valid Responses API {field} for a {position}; not sent",
            "metadata_not_sent",
        )
    ]
    assert_documented(REASONS, converted.losses)
