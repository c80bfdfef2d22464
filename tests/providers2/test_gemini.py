"""The Gemini adapter: golden fixtures, the SDK's Content type, losses as documented, signatures, offsets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LossError, gemini
from provider_checks import assert_documented, documented_reasons

genai_types = pytest.importorskip("google.genai.types")
pydantic = pytest.importorskip("pydantic")

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "gemini"


def validate(payload: dict[str, Any]) -> None:
    """Every content (and the system instruction) is a valid ``google.genai.types.Content`` in REST JSON form."""
    for content in [*payload["contents"], *([payload["systemInstruction"]] if "systemInstruction" in payload else [])]:
        genai_types.Content.model_validate_json(json.dumps(content))


REASONS = documented_reasons("gemini.md")


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("request_*.json")))
def test_golden_request_round_trips(name):
    """Each request fixture is valid for the SDK and reads and writes back identically, with no loss."""
    payload = fixture(name)
    validate(payload)
    converted = gemini.to_provider(gemini.from_provider(payload), strict=True)
    assert converted.payload == payload


def test_golden_blocks():
    """The full fixture reads into the blocks the reference describes."""
    conversation = gemini.from_provider(fixture("request_full.json"))
    assert [m.role for m in conversation] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    thought, call1, call2 = conversation[2].content
    assert thought.text.startswith("Je dois")
    assert thought.signature == "Q2lRQmpyX3NpZ25hdHVyZQ=="
    assert call1.metadata["gemini/thought_signature"] == "Q2lRQnNpZ19jYWxs"
    assert "gemini/thought_signature" not in call2.metadata
    assert call1.input == {"city": "Zürich"}
    ok, failed = conversation[3].content
    assert (ok.tool_call_id, ok.outcome, ok.content[0].value) == (
        call1.tool_call_id,
        "succeeded",
        {"temp_c": 21, "sky": "clear"},
    )
    assert (failed.tool_call_id, failed.outcome, failed.content[0].text) == (
        call2.tool_call_id,
        "failed",
        "service unavailable",
    )
    text = conversation[4].content[0]
    assert text.metadata["gemini/thought_signature"] == "Q2lRQnRleHRfc2ln"
    assert text.metadata[ISSUER_KEY] == "gemini"
    rendered = conversation[5].content[0]
    assert [type(b).__name__ for b in rendered.content] == ["TextBlock", "FileBlock"]
    assert conversation[6].metadata["gemini/same_content"] is True
    assert conversation[7].content[0].metadata["gemini/part"] == "executableCode"
    user_file = conversation[1].content[2]
    assert user_file.source == cb.ReferenceSource(
        id="https://generativelanguage.googleapis.com/v1beta/files/abc-123", provider="gemini"
    )


def test_parallel_calls_keep_one_content_and_first_signature():
    """Parallel calls stay in one model content, and a signature on a later call is dropped and reported."""
    conversation = gemini.from_provider(fixture("request_full.json"))
    message = conversation[2]
    first, second = message.content[1], message.content[2]
    signed = cb.ToolCallBlock(
        tool_call_id=second.tool_call_id,
        tool_name=second.tool_name,
        input=second.input,
        metadata={**second.metadata, "gemini/thought_signature": "bGF0ZXI=", ISSUER_KEY: "gemini"},
    )
    messages = list(conversation)
    messages[2] = cb.Message(role="assistant", content=(message.content[0], first, signed))
    converted = gemini.to_provider(cb.Conversation(messages=messages))
    parts = converted.payload["contents"][1]["parts"]
    assert [("functionCall" in p, "thoughtSignature" in p) for p in parts] == [
        (False, True),
        (True, True),
        (True, False),
    ]
    assert [loss.path for loss in converted.losses] == ["$[2]"]
    assert_documented(REASONS, converted.losses)


def test_grounding_offsets_are_code_points():
    """Grounding supports and citation metadata (UTF-8 byte offsets) become code-point spans on non-ASCII text."""
    message = gemini.from_response(fixture("response_grounded.json"))
    thought, text = message.content
    assert thought.metadata[ISSUER_KEY] == "gemini/gemini-2.5-pro"
    spans = [(c.source.value, text.text[c.start : c.end]) for c in text.citations]
    assert spans == [
        ("https://de.wikipedia.org/wiki/Z%C3%BCrichsee", "Zürich liegt am Zürichsee."),
        ("https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC%E9%83%BD", "東京は日本の首都です。"),
        ("https://de.wikipedia.org/wiki/Z%C3%BCrichsee", "東京は日本の首都です。"),
        ("https://example.org/tokyo", "東京は日本"),
    ]
    assert message.metadata["gemini/finishReason"] == "STOP"
    converted = gemini.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="?"), message]))
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    assert "$[1].content[1].citations" in {loss.path for loss in converted.losses}


def test_signatures_only_to_their_issuer():
    """A response's signatures go back to its model family and provider, and never elsewhere."""
    message = gemini.from_response(fixture("response_grounded.json"))
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="?"), message])
    for target in (None, "gemini", "gemini/gemini-2.5-pro"):
        assert "c2lnbmF0dXJlLTE=" in json.dumps(gemini.to_provider(conversation, issuer=target).payload)
    other = gemini.to_provider(conversation, issuer="gemini/gemini-2.5-flash")
    assert "c2lnbmF0dXJlLTE=" not in json.dumps(other.payload)
    assert other.payload["contents"][1]["parts"][0] == {"text": "Je réfléchis aux sources.", "thought": True}
    with pytest.raises(LossError):
        gemini.to_provider(conversation, issuer="gemini/gemini-2.5-flash", strict=True)


def test_losses_as_documented():
    """A conversation with what Gemini cannot carry reports exactly the documented losses."""
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="system", content="one"),
            cb.Message(role="developer", content="two"),
            cb.Message(
                role="user",
                content=[
                    cb.TextBlock(text="See", citations=[cb.Citation(source=cb.CitedUri(value="https://a.io"))]),
                    cb.FileBlock(media_type="image/png", source=cb.UrlSource(url="https://a.io/x.png")),
                    cb.FileBlock(
                        media_type="application/pdf", source=cb.ReferenceSource(id="file-1", provider="openai")
                    ),
                    cb.JsonBlock(value=[1]),
                ],
            ),
            cb.Message(
                role="assistant",
                content=[
                    cb.ReasoningBlock(text="hmm", signature="sig", metadata={ISSUER_KEY: "anthropic"}),
                    cb.ReasoningBlock(redacted=b"x", metadata={ISSUER_KEY: "anthropic"}),
                    cb.RefusalBlock(text="No."),
                    cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input=[1, 2], metadata={"app/x": 1}),
                ],
            ),
            cb.Message(
                role="tool",
                content=[
                    cb.ToolResultBlock(
                        tool_call_id="c1",
                        tool_name="f",
                        outcome="denied",
                        content=[
                            cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG")),
                            cb.TextBlock(text="a"),
                            cb.JsonBlock(value={"b": 2}),
                        ],
                    )
                ],
            ),
            cb.Message(role="system", content="late"),
        ]
    )
    converted = gemini.to_provider(conversation)
    assert [(loss.path, loss.reason) for loss in converted.losses] == [
        ("$[1].role", "Gemini has one system instruction; developer text goes into it"),
        ("$[2].content[0].citations", "a Gemini request carries no citations (they exist only in responses); dropped"),
        ("$[2].content[1].source", "a URL is sent as fileData.fileUri; it reads back as a reference source"),
        ("$[2].content[2].source.provider", "a file id issued by 'openai' is sent to Gemini as it is"),
        ("$[2].content[3]", "JSON content is written as JSON text; reads back as text"),
        ("$[3].content[0].signature", "a signature issued by 'anthropic' is not sent to 'gemini'; dropped"),
        ("$[3].content[1].redacted", "redacted reasoning has no place in a Gemini request; dropped"),
        ("$[3].content[2]", "Gemini has no refusal part; written as text, reads back as text"),
        ("$[3].content[3].input", 'functionCall.args is an object; the input is sent as {"input": ...}'),
        ('$[3].content[3].metadata["app/x"]', "metadata has no place in the Gemini request; not sent"),
        ("$[4].content[0].outcome", "Gemini has no denied outcome; written as an error, reads back as failed"),
        (
            "$[4].content[0].content",
            "text and JSON content are written as one response value; they read back differently",
        ),
        ("$[4].content[0].content", "files go in functionResponse.parts after the response; their order changes"),
        ("$[5].role", "Gemini has no system turn after the start; written as a user turn"),
    ]
    assert_documented(REASONS, converted.losses)
    validate(converted.payload)
    assert "sig" not in json.dumps(converted.payload)
    assert converted.payload["contents"][1]["parts"][0] == {"text": "hmm", "thought": True}


def test_sdk_check_rejects_malformed():
    """The SDK validation used here rejects malformed contents (wrong types, unknown fields, bad base64)."""
    for bad in (
        {"contents": [{"role": "user", "parts": [{"text": 5}]}]},
        {"contents": [{"role": "user", "parts": [{"inline_data_typo": {}}]}]},
        {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1]}}]}]},
    ):
        with pytest.raises(pydantic.ValidationError):
            validate(bad)


def test_malformed_payload_raises_validation_error():
    """A response that answers no call, or a bad role, raises ValidationError with a path."""
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_provider(
            {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]}
        )
    assert info.value.errors[0][0] == "$.contents[0].parts[0].functionResponse"
    with pytest.raises(cb.ValidationError):
        gemini.from_provider({"contents": [{"role": "function", "parts": [{"text": "x"}]}]})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_generated_payloads_validate_and_are_stable(conversation):
    """Any conversation gives valid SDK contents, documented losses, and a payload that survives a round trip."""
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    again = gemini.to_provider(gemini.from_provider(converted.payload))
    assert again.payload == converted.payload
