"""The Gemini adapter, request side: golden fixtures, the SDK's request types, losses and their kinds, issuers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, LossError, gemini
from provider_checks import assert_documented, documented_reasons, examples
from providers.request_walk import walk

genai_types = pytest.importorskip("google.genai.types")
pydantic = pytest.importorskip("pydantic")

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
REASONS = documented_reasons("gemini.md")


def python_name(key: str) -> str:
    """The key google-genai's TypedDicts declare for a REST key: ``inlineData`` -> ``inline_data``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def validate(payload: dict[str, Any]) -> None:
    """The payload has only Gemini's request fields, each content fits the SDK's ``Content`` model (which forbids
    unknown keys) and its ``ContentDict`` request type under the strict walk."""
    assert set(payload) <= {"contents", "systemInstruction"}
    for content in [*payload["contents"], *([payload["systemInstruction"]] if "systemInstruction" in payload else [])]:
        genai_types.Content.model_validate_json(json.dumps(content))
        assert walk(content, genai_types.ContentDict, name=python_name) == []


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def reasons(converted: cb.providers.Converted) -> list[tuple[str, str, str]]:
    return [(loss.path, loss.reason, loss.kind) for loss in converted.losses]


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("request_*.json")))
def test_golden_request_round_trips(name):
    """Each request fixture is valid for the SDK and reads and writes back identically, with no loss of any kind."""
    payload = fixture(name)
    validate(payload)
    converted = gemini.to_provider(gemini.from_provider(payload), strict=LOSS_KINDS)
    assert converted.payload == payload
    assert converted.losses == ()


def test_golden_blocks():
    """The full fixture reads into the blocks the reference describes."""
    conversation = gemini.from_provider(fixture("request_full.json"))
    roles = ["system", "user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
    assert [m.role for m in conversation] == roles
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
    code, result = conversation[7].content[:2]
    assert (type(code), code.tool_name, code.input["code"]) == (cb.ServerToolCallBlock, "code_execution", "print(21 * 9 / 5 + 32)")
    assert (type(result), result.tool_call_id, result.outcome) == (cb.ServerToolResultBlock, code.tool_call_id, "succeeded")
    assert result.content == (cb.TextBlock(text="69.8\n"),)
    user_file = conversation[1].content[2]
    assert user_file.source == cb.ReferenceSource(
        id="https://generativelanguage.googleapis.com/v1beta/files/abc-123", provider="gemini"
    )


def test_every_call_keeps_the_signature_it_came_with():
    """Parallel calls stay in one model content, and a signature goes back on the very part that carried it."""
    conversation = gemini.from_provider(fixture("request_full.json"))
    message = conversation[2]
    second = message.content[2]
    signed = cb.ToolCallBlock(
        tool_call_id=second.tool_call_id,
        tool_name=second.tool_name,
        input=second.input,
        metadata={**second.metadata, "gemini/thought_signature": "bGF0ZXI=", ISSUER_KEY: "gemini"},
    )
    messages = list(conversation)
    messages[2] = cb.Message(role="assistant", content=(*message.content[:2], signed))
    converted = gemini.to_provider(cb.Conversation(messages=messages), strict=LOSS_KINDS)
    parts = converted.payload["contents"][1]["parts"]
    assert [p.get("thoughtSignature") for p in parts] == ["Q2lRQmpyX3NpZ25hdHVyZQ==", "Q2lRQnNpZ19jYWxs", "bGF0ZXI="]


def test_grounding_offsets_are_code_points():
    """Grounding supports and citation metadata (UTF-8 byte offsets) become code-point spans on non-ASCII text."""
    reply = gemini.from_response(fixture("response_grounded.json"))
    thought, text, *search = reply.message.content  # the Google Search run follows the parts
    assert [type(b) for b in search] == [cb.ServerToolCallBlock, cb.ServerToolResultBlock]
    assert thought.metadata[ISSUER_KEY] == "gemini/gemini-2.5-pro"
    spans = [([s.value for s in (c.source, *c.other_sources)], text.text[c.start : c.end]) for c in text.citations]
    assert spans == [  # a support naming two chunks is one citation naming both
        (["https://de.wikipedia.org/wiki/Z%C3%BCrichsee"], "Zürich liegt am Zürichsee."),
        (["https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC%E9%83%BD", "https://de.wikipedia.org/wiki/Z%C3%BCrichsee"],
         "東京は日本の首都です。"),
        (["https://example.org/tokyo"], "東京は日本"),
    ]
    assert (reply.stop_reason, reply.provider_stop_reason) == ("end_turn", "STOP")


def test_gemini_citations_go_back_without_a_loss_and_others_are_reported():
    """Citations Gemini issued are not a loss when the text goes back to Gemini; anyone else's are dropped and reported."""
    reply = gemini.from_response(fixture("response_grounded.json"))
    history = cb.Conversation(messages=[cb.Message(role="user", content="?"), reply.message])
    converted = gemini.to_provider(history, strict=LOSS_KINDS)
    validate(converted.payload)
    text = reply.message.content[1]
    foreign = cb.TextBlock(text=text.text, citations=text.citations)
    other = cb.Conversation(
        messages=[cb.Message(role="user", content="?"), cb.Message(role="assistant", content=[foreign])]
    )
    assert reasons(gemini.to_provider(other)) == [
        (
            "$[1].content[0].citations",
            "a Gemini request carries no citations (they exist only in responses); dropped",
            "content_dropped",
        )
    ]


def test_signatures_only_to_their_issuer():
    """A response's signatures go back to its model family and provider, and never elsewhere."""
    reply = gemini.from_response(fixture("response_grounded.json"))
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="?"), reply.message])
    for target in (None, "gemini", "gemini/gemini-2.5-pro"):
        assert "c2lnbmF0dXJlLTE=" in json.dumps(gemini.to_provider(conversation, issuer=target).payload)
    other = gemini.to_provider(conversation, issuer="gemini/gemini-2.5-flash")
    assert "c2lnbmF0dXJlLTE=" not in json.dumps(other.payload)
    assert other.payload["contents"][1]["parts"][0] == {"text": "Je réfléchis aux sources.", "thought": True}
    assert [loss.kind for loss in other.losses] == ["state_not_replayed"]
    gemini.to_provider(conversation, issuer="gemini/gemini-2.5-flash", strict=True)  # state is not content
    with pytest.raises(LossError):
        gemini.to_provider(conversation, issuer="gemini/gemini-2.5-flash", strict=["state_not_replayed"])


def test_losses_as_documented():
    """A conversation with what Gemini cannot carry reports exactly the documented losses, each with its kind."""
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
    assert reasons(converted) == [
        ("$[1].role", "Gemini has one system instruction; developer text goes into it", "content_degraded"),
        (
            "$[2].content[0].citations",
            "a Gemini request carries no citations (they exist only in responses); dropped",
            "content_dropped",
        ),
        (
            "$[2].content[1].source",
            "a URL is sent as fileData.fileUri; it reads back as a reference source",
            "content_degraded",
        ),
        (
            "$[2].content[2].source.provider",
            "a file id issued by 'openai' is sent to Gemini as it is",
            "content_degraded",
        ),
        ("$[2].content[3]", "JSON content is written as JSON text; reads back as text", "content_degraded"),
        (
            "$[3].content[0].signature",
            "a signature issued by 'anthropic' is not sent to 'gemini'; dropped",
            "state_not_replayed",
        ),
        (
            "$[3].content[1].redacted",
            "redacted reasoning has no place in a Gemini request; dropped",
            "state_not_replayed",
        ),
        ("$[3].content[2]", "Gemini has no refusal part; written as text, reads back as text", "content_degraded"),
        (
            "$[3].content[3].input",
            'functionCall.args is an object; the input is sent as {"input": ...}',
            "content_degraded",
        ),
        (
            '$[3].content[3].metadata["app/x"]',
            "metadata has no place in the Gemini request; not sent",
            "metadata_not_sent",
        ),
        (
            "$[4].content[0].outcome",
            "Gemini has no denied outcome; written as an error, reads back as failed",
            "content_degraded",
        ),
        (
            "$[4].content[0].content",
            "text and JSON content are written as one response value; they read back differently",
            "content_degraded",
        ),
        (
            "$[4].content[0].content",
            "files go in functionResponse.parts after the response; their order changes",
            "order_changed",
        ),
        ("$[5].role", "Gemini has no system turn after the start; written as a user turn", "content_degraded"),
    ]
    assert_documented(REASONS, converted.losses)
    validate(converted.payload)
    assert "sig" not in json.dumps(converted.payload)
    assert converted.payload["contents"][1]["parts"][0] == {"text": "hmm", "thought": True}


def test_losses_inside_a_tool_result_name_each_block_by_its_place():
    """A block of a tool result is reported at its own index, equal blocks too, and a file before a value moves."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    stray = {"gemini/latency_ms": 4}
    image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89"), metadata=stray)
    text = cb.TextBlock(text="ok", metadata=stray)
    result = cb.ToolResultBlock(
        tool_call_id="c1", tool_name="f", outcome="succeeded", content=[text, image, text, image]
    )
    conversation = cb.Conversation(
        messages=[cb.Message(role="assistant", content=[call]), cb.Message(role="tool", content=[result])]
    )
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    at = '.metadata["gemini/latency_ms"]'
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        (f"$[1].content[0].content[0]{at}", "metadata_not_sent"),
        (f"$[1].content[0].content[2]{at}", "metadata_not_sent"),
        ("$[1].content[0].content", "order_changed"),
        (f"$[1].content[0].content[1]{at}", "metadata_not_sent"),
        (f"$[1].content[0].content[3]{at}", "metadata_not_sent"),
    ]


def test_a_message_with_nothing_to_send_is_left_out():
    """A message whose only block cannot be sent makes no empty content; its block's loss says why."""
    state = cb.ReasoningBlock(redacted=b"x", metadata={ISSUER_KEY: "anthropic"})
    conversation = cb.Conversation(
        messages=[cb.Message(role="user", content="hi"), cb.Message(role="assistant", content=[state])]
    )
    converted = gemini.to_provider(conversation)
    assert converted.payload == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert [loss.path for loss in converted.losses] == ["$[1].content[0].redacted"]


def test_sdk_check_rejects_malformed():
    """The SDK validation and the strict walk used here reject wrong types, unknown fields and non-object args."""
    for bad in (
        {"contents": [{"role": "user", "parts": [{"text": 5}]}]},
        {"contents": [{"role": "user", "parts": [{"inline_data_typo": {}}]}]},
        {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1]}}]}]},
    ):
        with pytest.raises(pydantic.ValidationError):
            validate(bad)
    bad = {"parts": [{"text": "x", "latencyMs": 3}]}
    assert walk(bad, genai_types.ContentDict, name=python_name) != []


@examples(25)
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_generated_payloads_validate_and_are_stable(conversation):
    """Any conversation gives valid SDK contents, documented losses, and a payload that survives a round trip."""
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    again = gemini.to_provider(gemini.from_provider(converted.payload), strict=LOSS_KINDS)
    assert again.payload == converted.payload
