"""The Anthropic Messages adapter: golden round trips, SDK request types, losses and issuers."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LossError, anthropic
from provider_checks import consume

sdk = pytest.importorskip("anthropic")
pydantic = pytest.importorskip("pydantic")

FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"
REQUESTS = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("response_"))
RESPONSES = sorted(FIXTURES.glob("response_*.json"))

MESSAGES = pydantic.TypeAdapter(list[sdk.types.MessageParam])
SYSTEM = pydantic.TypeAdapter(str | list[sdk.types.TextBlockParam])


def validate(payload: dict[str, Any]) -> None:
    consume(MESSAGES.validate_python(payload["messages"]))
    if "system" in payload:
        consume(SYSTEM.validate_python(payload["system"]))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_round_trip(path):
    """Anthropic JSON -> blocks -> Anthropic JSON is the identity, with no loss, for every fixture."""
    raw = load(path)
    converted = anthropic.to_provider(anthropic.from_provider(raw), strict=True)
    assert converted.payload == raw
    assert converted.losses == ()
    validate(converted.payload)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_survives_neutral_json(path):
    """The blocks read from a fixture survive the neutral wire format and still give the same JSON."""
    conversation = anthropic.from_provider(load(path))
    again = cb.loads(cb.dumps(conversation), cb.Conversation)
    assert anthropic.to_provider(again).payload == load(path)


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.stem)
def test_response_content_goes_back_unchanged(path):
    """A response's content blocks are sent back exactly as received, and its bookkeeping is not reported."""
    raw = load(path)
    message = anthropic.from_response(raw)
    assert message.role == "assistant"
    assert message.metadata["anthropic/id"] == raw["id"]
    assert message.metadata["anthropic/model"] == raw["model"]
    assert message.metadata["anthropic/stop_reason"] == raw["stop_reason"]
    assert message.metadata["anthropic/usage"] == raw["usage"]
    assert "anthropic/stop_sequence" not in message.metadata
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"), message])
    converted = anthropic.to_provider(conversation, strict=True)
    assert converted.payload["messages"][1] == {"role": "assistant", "content": raw["content"]}
    validate(converted.payload)


def test_response_reasoning_is_marked_as_anthropic():
    """Thinking and redacted thinking read from a response record Anthropic as their issuer."""
    message = anthropic.from_response(load(FIXTURES / "response_citations.json"))
    redacted = message.content[2]
    assert isinstance(redacted, cb.ReasoningBlock)
    assert redacted.metadata[ISSUER_KEY] == "anthropic"
    assert redacted.redacted == load(FIXTURES / "response_citations.json")["content"][2]["data"].encode()


def test_citations_map_onto_neutral_fields():
    """Every citation kind gives a neutral source, title and quote, and keeps its native form in metadata."""
    conversation = anthropic.from_provider(load(FIXTURES / "citations.json"))
    blocks = conversation[1].content
    char = blocks[1].citations[0]
    assert char == cb.Citation(
        source=cb.CitedReference(value="document:0"), title="My Document", quote="The grass is green."
    )
    assert blocks[2].citations[0].title is None
    assert blocks[3].citations[0].source == cb.CitedUri(value="https://example.com/lawns")
    assert blocks[3].citations[1].source == cb.CitedReference(value="Botany notes")
    web = blocks[4].citations[0]
    assert web.source == cb.CitedUri(value="https://en.wikipedia.org/wiki/Poaceae")
    assert blocks[4].metadata["anthropic/citations"][0]["encrypted_index"] == "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm"


def test_edited_citations_are_reported_not_invented():
    """A citation with no native coordinates is dropped with a loss; the text is kept."""
    text = cb.TextBlock(text="Paris", citations=[cb.Citation(source=cb.CitedUri(value="https://example.com"))])
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[text])]))
    assert converted.payload["messages"][0]["content"] == [{"type": "text", "text": "Paris"}]
    assert [loss.path for loss in converted.losses] == ["$[0].content[0].citations[0]"]


def test_tool_messages_become_user_tool_results():
    """Failed results set is_error; denied results do too and are reported; tool names come back from the call."""
    call = cb.ToolCallBlock(tool_call_id="t1", tool_name="rm", input={"path": "/"})
    denied = cb.ToolResultBlock(
        tool_call_id="t1", tool_name="rm", outcome="denied", content=[cb.TextBlock(text="not allowed")]
    )
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="user", content="clean up"),
            cb.Message(role="assistant", content=[call]),
            cb.Message(role="tool", content=[denied]),
        ]
    )
    converted = anthropic.to_provider(conversation)
    assert converted.payload["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "not allowed"}],
                "is_error": True,
            }
        ],
    }
    assert [loss.path for loss in converted.losses] == ["$[2].content[0].outcome"]
    back = anthropic.from_provider(converted.payload)
    assert back[2].content[0].outcome == "failed"
    assert back[2].content[0].tool_name == "rm"


def test_system_and_developer_go_to_the_top():
    """Instructions go to the top-level system prompt; a developer role and a late system message are reported."""
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="developer", content="Be terse."),
            cb.Message(role="user", content="Hi"),
            cb.Message(role="system", content="Late rule."),
        ]
    )
    converted = anthropic.to_provider(conversation)
    assert converted.payload["system"] == [
        {"type": "text", "text": "Be terse."},
        {"type": "text", "text": "Late rule."},
    ]
    assert [loss.path for loss in converted.losses] == ["$[0].role", "$[2]"]
    with pytest.raises(LossError):
        anthropic.to_provider(conversation, strict=True)


def test_reasoning_goes_only_to_its_issuer():
    """Signed reasoning reaches Anthropic only when Anthropic issued it; otherwise it is dropped and reported."""
    anthropic_thought = cb.ReasoningBlock(text="t", signature="s1", metadata={ISSUER_KEY: "anthropic"})
    foreign = cb.ReasoningBlock(signature="s2", metadata={ISSUER_KEY: "gemini/gemini-2.5-pro"})
    unsigned = cb.ReasoningBlock(text="thinking aloud")
    redacted = cb.ReasoningBlock(redacted=b"opaque", metadata={ISSUER_KEY: "openai"})
    message = cb.Message(
        role="assistant", content=[anthropic_thought, foreign, unsigned, redacted, cb.TextBlock(text="ok")]
    )
    converted = anthropic.to_provider(cb.Conversation(messages=[message]))
    assert converted.payload["messages"][0]["content"] == [
        {"type": "thinking", "thinking": "t", "signature": "s1"},
        {"type": "text", "text": "ok"},
    ]
    assert [loss.path for loss in converted.losses] == ["$[0].content[1]", "$[0].content[2]", "$[0].content[3]"]
    for_other = anthropic.to_provider(cb.Conversation(messages=[message]), issuer="bedrock")
    assert all(b["type"] == "text" for b in for_other.payload["messages"][0]["content"])
    assert "thinking aloud" not in json.dumps(converted.payload)


def test_other_degradations_are_reported():
    """JSON blocks, refusals, non-object tool input, unsupported files and foreign metadata are all reported."""
    conversation = cb.Conversation(
        messages=[
            cb.Message(
                role="user",
                content=[
                    cb.JsonBlock(value={"a": 1}),
                    cb.FileBlock(media_type="audio/wav", source=cb.BytesSource(data=b"RIFF")),
                    cb.FileBlock(media_type="image/png", source=cb.ReferenceSource(id="file-1", provider="openai")),
                    cb.FileBlock(media_type="text/csv", source=cb.BytesSource(data=b"a,b"), filename="t.csv"),
                ],
                metadata={"app/trace": "x"},
            ),
            cb.Message(
                role="assistant",
                content=[
                    cb.RefusalBlock(text="no"),
                    cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=[1, 2]),
                ],
            ),
        ]
    )
    converted = anthropic.to_provider(conversation)
    user, assistant = converted.payload["messages"]
    assert user["content"] == [
        {"type": "text", "text": '{"a":1}'},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "a,b"}, "title": "t.csv"},
    ]
    assert assistant["content"][1]["input"] == {"value": [1, 2]}
    assert [loss.path for loss in converted.losses] == [
        "$[0].content[0]",
        "$[0].content[1]",
        "$[0].content[2]",
        "$[0].content[3].media_type",
        "$[0].content[3].filename",
        '$[0].metadata["app/trace"]',
        "$[1].content[0]",
        "$[1].content[1].input",
    ]
    validate(converted.payload)


@pytest.mark.parametrize(
    ("media_type", "source", "lost"),
    [
        ("image/png", cb.UrlSource(url="https://example.com/a.png"), True),
        ("image/*", cb.UrlSource(url="https://example.com/a.png"), False),
        ("image/webp", cb.ReferenceSource(id="file-1"), True),
        ("image/*", cb.ReferenceSource(id="file-1", provider="anthropic"), False),
        ("application/pdf", cb.UrlSource(url="https://example.com/a.pdf"), False),
        ("application/pdf", cb.ReferenceSource(id="file-1"), True),
        ("application/octet-stream", cb.ReferenceSource(id="file-1"), False),
    ],
)
def test_media_types_without_a_place_are_reported(media_type, source, lost):
    """URL and file-id sources carry no media type: one that would not read back the same is a loss."""
    block = cb.FileBlock(media_type=media_type, source=source)
    conversation = cb.Conversation(messages=[cb.Message(role="user", content=[block])])
    converted = anthropic.to_provider(conversation)
    assert [loss.path for loss in converted.losses] == (["$[0].content[0].media_type"] if lost else [])
    (read_back,) = anthropic.from_provider(converted.payload)[0].content
    assert (read_back.media_type == media_type) is not lost


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"messages": [{"role": "model", "content": "x"}]}, "$.messages[0].role"),
        ({"messages": [{"role": "user", "content": [{"type": "text"}]}]}, "$.messages[0].content[0].text"),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope"}]}]},
            "$.messages[0].content[0].tool_use_id",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "a b="}}
                        ],
                    }
                ]
            },
            "$.messages[0].content[0].source.data",
        ),
        ({"system": 3, "messages": []}, "$.system"),
    ],
)
def test_invalid_payloads_are_validation_errors(payload, path):
    """Malformed Anthropic JSON raises ValidationError naming the path into the payload."""
    with pytest.raises(cb.ValidationError) as info:
        anthropic.from_provider(payload)
    assert info.value.errors[0][0] == path


def test_sdk_check_rejects_a_malformed_payload():
    """The SDK check fails on a bad nested block, which pydantic alone would only find once iterated."""
    bad = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "x",
                        "content": [
                            {"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": "AA=="}},
                        ],
                    }
                ],
            }
        ]
    }
    MESSAGES.validate_python(bad["messages"])  # lazy: passes without looking inside
    with pytest.raises(pydantic.ValidationError):
        validate(bad)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.conversations(max_messages=6))
def test_every_payload_validates_and_reads_back(conversation):
    """Payloads validate against the SDK, strict raises exactly on losses, and lossless payloads read back equal."""
    converted = anthropic.to_provider(conversation)
    validate(converted.payload)
    json.dumps(converted.payload, allow_nan=False)
    with pytest.raises(LossError) if converted.losses else contextlib.nullcontext():
        anthropic.to_provider(conversation, strict=True)
    back = anthropic.from_provider(converted.payload)
    assert anthropic.to_provider(back).payload == converted.payload
    if not converted.losses:
        assert [b for m in back for b in m.content] == [b for m in conversation for b in m.content]
