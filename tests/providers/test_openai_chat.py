"""The OpenAI Chat Completions adapter: golden round trips, SDK request types, losses and tool results."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LossError, openai_chat
from provider_checks import consume

sdk = pytest.importorskip("openai")
pydantic = pytest.importorskip("pydantic")

FIXTURES = Path(__file__).parent / "fixtures" / "openai_chat"
REQUESTS = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("response_"))

MESSAGES = pydantic.TypeAdapter(list[sdk.types.chat.ChatCompletionMessageParam])


def validate(payload: dict[str, Any]) -> None:
    consume(MESSAGES.validate_python(payload["messages"]))


def load(name: str | Path) -> Any:
    path = name if isinstance(name, Path) else FIXTURES / name
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_round_trip(path):
    """Chat Completions JSON -> blocks -> Chat Completions JSON is the identity, with no loss."""
    raw = load(path)
    converted = openai_chat.to_provider(openai_chat.from_provider(raw), strict=True)
    assert converted.payload == raw
    validate(converted.payload)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_survives_neutral_json(path):
    """The blocks read from a fixture survive the neutral wire format and still give the same JSON."""
    conversation = openai_chat.from_provider(load(path))
    again = cb.loads(cb.dumps(conversation), cb.Conversation)
    assert openai_chat.to_provider(again).payload == load(path)


def test_user_parts_map_onto_files():
    """Image URLs, data URLs, audio and files become file blocks with the right sources and media types."""
    blocks = openai_chat.from_provider(load("user_parts.json"))[0].content
    assert blocks[1].source == cb.UrlSource(
        url=load("user_parts.json")["messages"][0]["content"][1]["image_url"]["url"]
    )
    assert blocks[1].metadata["openai/detail"] == "high"
    assert (blocks[2].media_type, blocks[2].source.data[:4]) == ("image/png", b"\x89PNG")
    assert [blocks[3].media_type, blocks[4].media_type] == ["audio/wav", "audio/mpeg"]
    assert blocks[5].source == cb.ReferenceSource(id="file-6F2ksmvXxt4VdoqmHRw6kL", provider="openai")
    assert (blocks[6].media_type, blocks[6].filename) == ("application/pdf", "draconomicon.pdf")


def test_tool_call_arguments():
    """Arguments are parsed; their exact text is kept when it differs; invalid JSON is kept verbatim and flagged."""
    calls = openai_chat.from_provider(load("tool_calls.json"))[1].content
    assert calls[0].input == {"location": "Boston, MA"}
    assert calls[0].metadata["openai/arguments"] == '{\n"location": "Boston, MA"\n}'
    assert "openai/arguments" not in calls[1].metadata
    assert calls[2].input == '{"location": "Lon'
    assert calls[2].metadata["openai/invalid_arguments"] is True
    assert (calls[3].input, calls[3].metadata["openai/custom_tool"]) == ("print('hello')", True)
    edited = cb.ToolCallBlock(tool_call_id="x", tool_name="f", input={"location": "Rome"}, metadata=calls[0].metadata)
    converted = openai_chat.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[edited])]))
    assert converted.payload["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{"location":"Rome"}'


def test_response_with_annotations():
    """url_citation annotations become citations with code-point spans; response fields go to metadata."""
    message = openai_chat.from_response(load("response_annotations.json"))
    (text,) = message.content
    (citation,) = text.citations
    assert text.text[citation.start : citation.end] == "(lemonde.fr)"
    assert citation.source == cb.CitedUri(value="https://www.lemonde.fr/cafes")
    assert message.metadata["openai/finish_reason"] == "stop"
    converted = openai_chat.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="?"), message]))
    assert [loss.path for loss in converted.losses] == ["$[1].content[0].citations[0]"]
    validate(converted.payload)


def test_response_tool_calls_go_back_verbatim():
    """A response's tool calls are sent back exactly, and its bookkeeping is neither sent nor reported."""
    raw = load("response_tool_calls.json")
    message = openai_chat.from_response(raw)
    assert message.metadata["openai/id"] == "chatcmpl-abc123"
    assert message.metadata["openai/usage"] == raw["usage"]
    converted = openai_chat.to_provider(
        cb.Conversation(messages=[cb.Message(role="user", content="?"), message]), strict=True
    )
    assert converted.payload["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": raw["choices"][0]["message"]["tool_calls"],
        "refusal": None,
    }


def _tool_conversation(outcome: str = "succeeded") -> cb.Conversation:
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="shot", input={})
    result = cb.ToolResultBlock(
        tool_call_id="c1",
        tool_name="shot",
        outcome=outcome,
        content=[
            cb.TextBlock(text="done"),
            cb.JsonBlock(value={"w": 1}),
            cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG")),
        ],
    )
    return cb.Conversation(
        messages=[
            cb.Message(role="user", content="go"),
            cb.Message(role="assistant", content=[call]),
            cb.Message(role="tool", content=[result]),
            cb.Message(role="user", content="thanks"),
        ]
    )


def test_tool_results_are_text_only():
    """JSON is written as JSON text, files are dropped and reported, and a failed outcome is reported."""
    converted = openai_chat.to_provider(_tool_conversation("failed"))
    assert converted.payload["messages"][2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "done"}, {"type": "text", "text": '{"w":1}'}],
    }
    assert [loss.path for loss in converted.losses] == [
        "$[2].content[0].outcome",
        "$[2].content[0].content[1]",
        "$[2].content[0].content[2]",
    ]


def test_tool_result_files_can_move_to_a_user_message():
    """With tool_result_files="user_message", files follow the tool messages in a user message."""
    converted = openai_chat.to_provider(_tool_conversation(), tool_result_files="user_message")
    roles = [m["role"] for m in converted.payload["messages"]]
    assert roles == ["user", "assistant", "tool", "user", "user"]
    moved = converted.payload["messages"][3]["content"]
    assert moved[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}
    assert "moved" in converted.losses[-1].reason
    validate(converted.payload)


def test_reasoning_is_never_sent():
    """Chat Completions takes no reasoning back, whoever issued it; it never becomes visible text."""
    thought = cb.ReasoningBlock(text="secret plan", signature="sig", metadata={ISSUER_KEY: "openai"})
    message = cb.Message(role="assistant", content=[thought, cb.TextBlock(text="Hi")])
    converted = openai_chat.to_provider(cb.Conversation(messages=[message]), issuer="openai")
    assert converted.payload["messages"] == [{"role": "assistant", "content": "Hi"}]
    assert "secret plan" not in json.dumps(converted.payload)
    with pytest.raises(LossError):
        openai_chat.to_provider(cb.Conversation(messages=[message]), strict=True)


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"messages": [{"role": "function", "name": "f", "content": "x"}]}, "$.messages[0].role"),
        ({"messages": [{"role": "tool", "tool_call_id": "nope", "content": "x"}]}, "$.messages[0].tool_call_id"),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,a b"}}],
                    }
                ]
            },
            "$.messages[0].content[0].image_url.url",
        ),
        (
            {
                "messages": [
                    {"role": "system", "content": [{"type": "image_url", "image_url": {"url": "https://x.org/a.png"}}]}
                ]
            },
            "$.messages[0].content[0].type",
        ),
        ({"messages": [{"role": "assistant", "content": None}]}, "$.messages[0]"),
    ],
)
def test_invalid_payloads_are_validation_errors(payload, path):
    """Malformed Chat Completions JSON raises ValidationError naming the path into the payload."""
    with pytest.raises(cb.ValidationError) as info:
        openai_chat.from_provider(payload)
    assert info.value.errors[0][0] == path


def test_sdk_check_rejects_a_malformed_payload():
    """The SDK check fails on a bad nested part, which pydantic alone would only find once iterated."""
    bad = {
        "messages": [
            {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA==", "format": "ogg"}}]}
        ]
    }
    MESSAGES.validate_python(bad["messages"])  # lazy: passes without looking inside
    with pytest.raises(pydantic.ValidationError):
        validate(bad)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.conversations(max_messages=6))
def test_every_payload_validates_and_reads_back(conversation):
    """Payloads validate against the SDK, strict raises exactly on losses, and lossless payloads read back equal."""
    converted = openai_chat.to_provider(conversation, tool_result_files="user_message")
    validate(converted.payload)
    json.dumps(converted.payload, allow_nan=False)
    with pytest.raises(LossError) if converted.losses else contextlib.nullcontext():
        openai_chat.to_provider(conversation, strict=True, tool_result_files="user_message")
    back = openai_chat.from_provider(converted.payload)
    assert openai_chat.to_provider(back).payload == converted.payload
    if not converted.losses:
        assert [b for m in back for b in m.content] == [b for m in conversation for b in m.content]
