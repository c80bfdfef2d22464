"""The OpenAI Responses adapter: golden fixtures, SDK request types, losses as documented, issuers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LossError, gemini, openai_responses
from provider_checks import assert_documented, documented_reasons
from provider_checks import consume as materialize

pydantic = pytest.importorskip("pydantic")
responses_types = pytest.importorskip("openai.types.responses")

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
ADAPTER = pydantic.TypeAdapter(responses_types.ResponseInputParam)


def validate(items: list[Any]) -> None:
    """Validate ``input`` items against the SDK's ResponseInputParam; every key must survive validation."""
    validated = materialize(ADAPTER.validate_python(items))
    assert validated == items, "the SDK type dropped keys it does not know"


REASONS = documented_reasons("openai_responses.md")


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("request_*.json")))
def test_golden_request_round_trips(name):
    """Each request fixture reads and writes back identically, with no loss, and is a valid SDK input."""
    payload = fixture(name)
    validate(payload["input"])
    converted = openai_responses.to_provider(openai_responses.from_provider(payload), strict=True)
    assert converted.payload == payload


def test_golden_blocks():
    """The full fixture reads into the blocks the reference describes."""
    conversation = openai_responses.from_provider(fixture("request_full.json"))
    assert [m.role for m in conversation] == [
        "system",
        "developer",
        "user",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    user = conversation[3].content
    assert user[2].source == cb.BytesSource(data=b"\x89PNG\r\n\x1a\n")
    assert user[2].media_type == "image/png"
    assert user[3].source == cb.ReferenceSource(id="file-img123", provider="openai")
    assert user[6].filename == "notes.pdf"
    assert user[6].media_type == "application/pdf"
    summary1, summary2, text, ref, call, broken, spaced = conversation[4].content
    assert summary1.signature == "gAAAAABo-encrypted-blob"
    assert summary2.signature is None
    assert summary1.metadata[ISSUER_KEY] == "openai"
    assert summary2.metadata["openai/id"] == "rs_001"
    assert ref.signature == "rs_002"
    assert ref.text is None
    assert [c.source.value for c in text.citations] == ["https://example.com/report", "file-abc123"]
    assert text.text[text.citations[0].start : text.citations[0].end] == "Revenue grew 12% in 2025"
    assert call.input == {"city": "Zürich"}
    assert "openai/arguments" not in call.metadata
    assert broken.input == '{"city": "Par'
    assert broken.metadata["openai/invalid_arguments"] is True
    assert spaced.input == {"q": "x", "n": 3}
    assert spaced.metadata["openai/arguments"] == '{"q": "x", "n": 3}'
    results = conversation[5].content
    assert [r.tool_name for r in results] == ["get_weather", "get_weather", "lookup"]
    assert [type(b).__name__ for b in results[1].content] == ["TextBlock", "FileBlock", "FileBlock"]
    assert results[2].content == ()
    assert isinstance(conversation[6].content[0], cb.RefusalBlock)


def test_reasoning_written_before_its_item():
    """A reasoning item stays immediately before the item it produced, after a trip through blocks."""
    payload = fixture("request_full.json")
    items = openai_responses.to_provider(openai_responses.from_provider(payload)).payload["input"]
    ids = [item.get("id") for item in items]
    assert ids[ids.index("rs_001") + 1] == "msg_001"
    assert ids[ids.index("rs_002") + 1] == "fc_001"


def test_invalid_arguments_edited_input_is_serialised():
    """Kept raw arguments are dropped once the input no longer says the same."""
    payload = fixture("request_full.json")
    conversation = openai_responses.from_provider(payload)
    call = conversation[4].content[5]
    fixed = cb.ToolCallBlock(
        tool_call_id=call.tool_call_id, tool_name=call.tool_name, input={"city": "Paris"}, metadata=call.metadata
    )
    messages = list(conversation)
    messages[4] = cb.Message(
        role="assistant", content=(*conversation[4].content[:5], fixed, conversation[4].content[6])
    )
    items = openai_responses.to_provider(cb.Conversation(messages=messages)).payload["input"]
    assert (
        next(i for i in items if i.get("call_id") == "call_broken" and i["type"] == "function_call")["arguments"]
        == '{"city":"Paris"}'
    )


def test_response_reads_output_items():
    """from_response reads reasoning, message and call items, and keeps other output items in metadata."""
    response = fixture("response.json")
    message = openai_responses.from_response(response)
    kinds = [type(b).__name__ for b in message.content]
    assert kinds == ["ReasoningBlock", "TextBlock", "ToolCallBlock"]
    assert message.metadata["openai/response_id"] == response["id"]
    assert message.metadata["openai/output"][0]["type"] == "web_search_call"
    text = message.content[1]
    cite = text.citations[0]
    assert text.text[cite.start : cite.end] == "Zürich"
    converted = openai_responses.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="hi"), message]))
    validate(converted.payload["input"])
    assert converted.payload["input"][1:] == [i for i in response["output"] if i["type"] != "web_search_call"]
    assert {loss.path for loss in converted.losses} == {
        '$[1].metadata["openai/response_id"]',
        '$[1].metadata["openai/model"]',
        '$[1].metadata["openai/output"]',
    }


def test_sdk_check_rejects_malformed():
    """The SDK validation used here rejects a malformed payload, even deep inside a lazy iterable."""
    bad = [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "hi", "annotations": [{"type": "url_citation", "url": "https://x.io"}]}
            ],
        }
    ]
    with pytest.raises(pydantic.ValidationError):
        validate(bad)
    with pytest.raises(pydantic.ValidationError):
        validate([{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"not": "a string"}}])


def test_losses_as_documented():
    """A conversation with what the API cannot carry reports exactly the documented losses."""
    conversation = cb.Conversation(
        messages=[
            cb.Message(
                role="user",
                content=[
                    cb.TextBlock(text="See", citations=[cb.Citation(source=cb.CitedUri(value="https://a.io"))]),
                    cb.FileBlock(
                        media_type="image/png", source=cb.UrlSource(url="https://a.io/x.png"), filename="x.png"
                    ),
                    cb.JsonBlock(value={"a": 1}),
                ],
                metadata={"app/trace": "t1"},
            ),
            cb.Message(
                role="assistant",
                content=[
                    cb.ReasoningBlock(text="thinking", signature="sig", metadata={ISSUER_KEY: "anthropic"}),
                    cb.RefusalBlock(text="No."),
                    cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"x")),
                    cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input=None),
                ],
            ),
            cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="denied")]),
        ]
    )
    converted = openai_responses.to_provider(conversation)
    assert [(loss.path, loss.reason) for loss in converted.losses] == [
        (
            "$[0].content[0].citations[0]",
            "citations have no place here in a Responses API request (only output_text with an item id)",
        ),
        ("$[0].content[1].media_type", "a URL or file id part carries no media type; reads back as image/*"),
        ("$[0].content[1].filename", "input_image has no filename; dropped"),
        ("$[0].content[2]", "JSON content is written as JSON text (input_text); reads back as text"),
        ('$[0].metadata["app/trace"]', "metadata has no place in the Responses API request; not sent"),
        (
            "$[1].content[0]",
            (
                "reasoning from another provider has no place in a Responses API request"
                " (it needs an OpenAI item id); dropped"
            ),
        ),
        ("$[1].content[1]", "a refusal needs an output message item id; written as assistant text"),
        ("$[1].content[2]", "an assistant FileBlock has no place in a Responses API request; dropped"),
        (
            "$[2].content[0].outcome",
            "function_call_output has no error flag; the denied outcome reads back as succeeded",
        ),
    ]
    assert_documented(REASONS, converted.losses)
    validate(converted.payload["input"])
    assert "sig" not in json.dumps(converted.payload)
    assert "thinking" not in json.dumps(converted.payload)
    with pytest.raises(LossError):
        openai_responses.to_provider(conversation, strict=True)


def test_encrypted_reasoning_only_to_its_issuer():
    """Encrypted reasoning goes back to OpenAI, and to nobody else (nor to a mismatched OpenAI target)."""
    conversation = openai_responses.from_provider(fixture("request_full.json"))
    assert "gAAAAABo-encrypted-blob" in json.dumps(openai_responses.to_provider(conversation, issuer="openai").payload)
    other = openai_responses.to_provider(conversation, issuer="openai/other-family")
    assert "gAAAAABo-encrypted-blob" not in json.dumps(other.payload)
    assert "reasoning issued by 'openai' is not sent to 'openai/other-family'; dropped" in {
        loss.reason for loss in other.losses
    }
    to_gemini = gemini.to_provider(conversation)
    assert "gAAAAABo-encrypted-blob" not in json.dumps(to_gemini.payload)


def test_malformed_payload_raises_validation_error():
    """Malformed input items raise ValidationError with a path."""
    with pytest.raises(cb.ValidationError) as info:
        openai_responses.from_provider({"input": [{"type": "function_call_output", "call_id": "nope", "output": "x"}]})
    assert info.value.errors[0][0] == "$.input[0].call_id"
    with pytest.raises(cb.ValidationError):
        openai_responses.from_provider({"input": [{"type": "computer_call"}]})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_generated_payloads_validate_and_are_stable(conversation):
    """Any conversation gives a valid SDK input, documented losses, and a payload that survives a round trip."""
    converted = openai_responses.to_provider(conversation)
    validate(converted.payload["input"])
    assert_documented(REASONS, converted.losses)
    again = openai_responses.to_provider(openai_responses.from_provider(converted.payload))
    assert again.payload == converted.payload
