"""The OpenAI Responses adapter on request payloads: golden fixtures, losses as documented, issuers, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, LossError, gemini, openai_responses
from provider_checks import assert_documented, documented_reasons
from provider_checks import consume as materialize
from providers.request_walk import walk

pydantic = pytest.importorskip("pydantic")
responses_types = pytest.importorskip("openai.types.responses")

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
ADAPTER = pydantic.TypeAdapter(responses_types.ResponseInputParam)
REASONS = documented_reasons("openai_responses.md")


def check_request(payload: dict[str, Any]) -> None:
    """The payload holds only ``instructions`` and ``input``, and every item fits the SDK's request types exactly."""
    assert set(payload) <= {"instructions", "input"}
    assert walk(payload.get("instructions", ""), str) == []
    problems = [
        p
        for i, item in enumerate(payload["input"])
        for p in walk(item, responses_types.ResponseInputItemParam, f"$.input[{i}]")
    ]
    assert problems == []
    assert materialize(ADAPTER.validate_python(payload["input"])) == payload["input"], "pydantic dropped keys"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("request_*.json")))
def test_golden_request_round_trips(name):
    """Each request fixture fits the request types, and reads and writes back identically with no loss of any kind."""
    payload = fixture(name)
    check_request(payload)
    converted = openai_responses.to_provider(openai_responses.from_provider(payload), strict=LOSS_KINDS)
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
    assert (user[6].filename, user[6].media_type) == ("notes.pdf", "application/pdf")
    summary1, summary2, text, ref, call, broken, spaced = conversation[4].content
    assert (summary1.signature, summary2.signature) == ("gAAAAABo-encrypted-blob", None)
    assert summary1.metadata[ISSUER_KEY] == "openai"
    assert summary2.metadata["openai/id"] == "rs_001"
    assert (ref.signature, ref.text) == ("rs_002", None)
    assert [c.source.value for c in text.citations] == ["https://example.com/report", "file-abc123"]
    assert text.text[text.citations[0].start : text.citations[0].end] == "Revenue grew 12% in 2025"
    assert call.input == {"city": "Zürich"}
    assert "openai/arguments" not in call.metadata
    assert (broken.input, broken.metadata["openai/invalid_arguments"]) == ('{"city": "Par', True)
    assert (spaced.input, spaced.metadata["openai/arguments"]) == ({"q": "x", "n": 3}, '{"q": "x", "n": 3}')
    results = conversation[5].content
    assert [r.tool_name for r in results] == ["get_weather", "get_weather", "lookup"]
    assert [type(b).__name__ for b in results[1].content] == ["TextBlock", "FileBlock", "FileBlock"]
    assert results[2].content == ()
    assert isinstance(conversation[6].content[0], cb.RefusalBlock)


def test_reasoning_written_before_its_item():
    """A reasoning item stays immediately before the item it produced, after a trip through blocks."""
    items = openai_responses.to_provider(openai_responses.from_provider(fixture("request_full.json"))).payload["input"]
    ids = [item.get("id") for item in items]
    assert ids[ids.index("rs_001") + 1] == "msg_001"
    assert ids[ids.index("rs_002") + 1] == "fc_001"


def test_edited_input_is_serialised_again():
    """Kept raw arguments (invalid JSON here) are dropped once the input no longer says the same."""
    conversation = openai_responses.from_provider(fixture("request_full.json"))
    call = conversation[4].content[5]
    fixed = cb.ToolCallBlock(
        tool_call_id=call.tool_call_id, tool_name=call.tool_name, input={"city": "Paris"}, metadata=call.metadata
    )
    content = (*conversation[4].content[:5], fixed, conversation[4].content[6])
    messages = [*conversation[:4], cb.Message(role="assistant", content=content), *conversation[5:]]
    items = openai_responses.to_provider(cb.Conversation(messages=messages)).payload["input"]
    sent = next(i for i in items if i.get("call_id") == "call_broken" and i["type"] == "function_call")
    assert sent["arguments"] == '{"city":"Paris"}'


def test_other_item_types_are_kept_in_place():
    """An item type with no neutral block is a flagged JSON block where it was, and goes back as the same item."""
    search = {"type": "mcp_list_tools", "id": "ws_1", "server_label": "deepwiki", "tools": []}
    reference = {"id": "msg_9"}  # (the tools OpenAI runs are blocks of their own: test_responses_server_tools.py)
    payload = {
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Find it."}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"},
            search,
            reference,
        ]
    }
    check_request(payload)
    conversation = openai_responses.from_provider(payload)
    kept = conversation[1].content[1:]
    assert [(b.value, b.metadata) for b in kept] == [
        (search, {"openai/input_item": True}),
        (reference, {"openai/input_item": True}),
    ]
    assert openai_responses.to_provider(conversation, strict=LOSS_KINDS).payload == payload
    to_gemini = gemini.to_provider(conversation)  # OpenAI's state: dropped, never pasted in as text
    assert "ws_1" not in json.dumps(to_gemini.payload)
    assert {loss.kind for loss in to_gemini.losses if loss.path.startswith("$[1].content[1]")} == {"state_not_replayed"}


def test_sdk_check_rejects_malformed():
    """The request checks used here reject an item missing a required field or holding an undeclared one."""
    text = {"type": "output_text", "text": "hi", "annotations": [{"type": "url_citation", "url": "https://x.io"}]}
    bad = {"input": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [text]}]}
    with pytest.raises(AssertionError):  # the strict walk refuses it before pydantic sees it
        check_request(bad)
    with pytest.raises(AssertionError):
        check_request(
            {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "latency_ms": 3}]}
        )


def test_losses_as_documented():
    """A conversation with what the API cannot carry reports exactly the documented losses, each with its kind."""
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
                    cb.ReasoningBlock(signature="sig2", metadata={ISSUER_KEY: "anthropic"}),
                    cb.RefusalBlock(text="No."),
                    cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"x")),
                    cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input=None),
                ],
            ),
            cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="denied")]),
        ]
    )
    converted = openai_responses.to_provider(conversation)
    foreign = (
        "reasoning from another provider has no place in a Responses API request (it needs an OpenAI item id); dropped"
    )
    assert [(loss.path, loss.reason, loss.kind) for loss in converted.losses] == [
        (
            "$[0].content[0].citations[0]",
            "citations have no place here in a Responses API request (only output_text with an item id)",
            "content_dropped",
        ),
        (
            "$[0].content[1].media_type",
            "a URL or file id part carries no media type; reads back as image/*",
            "content_degraded",
        ),
        ("$[0].content[1].filename", "input_image has no filename; dropped", "content_dropped"),
        (
            "$[0].content[2]",
            "JSON content is written as JSON text (input_text); reads back as text",
            "content_degraded",
        ),
        (
            '$[0].metadata["app/trace"]',
            "metadata has no place in the Responses API request; not sent",
            "metadata_not_sent",
        ),
        ("$[1].content[0]", foreign, "content_dropped"),
        ("$[1].content[1]", foreign, "state_not_replayed"),
        ("$[1].content[2]", "a refusal needs an output message item id; written as assistant text", "content_degraded"),
        (
            "$[1].content[3]",
            "an assistant FileBlock has no place in a Responses API request; dropped",
            "content_dropped",
        ),
        (
            "$[2].content[0].outcome",
            "function_call_output has no error flag; the denied outcome reads back as succeeded",
            "content_degraded",
        ),
    ]
    assert_documented(REASONS, converted.losses)
    check_request(converted.payload)
    assert "sig" not in json.dumps(converted.payload)
    assert "thinking" not in json.dumps(converted.payload)
    with pytest.raises(LossError) as info:
        openai_responses.to_provider(conversation, strict=True)
    assert {loss.kind for loss in info.value.losses} == {"content_dropped", "content_degraded"}
    with pytest.raises(LossError) as info:
        openai_responses.to_provider(conversation, strict=["state_not_replayed"])
    assert [loss.path for loss in info.value.losses] == ["$[1].content[1]"]


def test_citation_details_lost_on_rebuilt_annotations():
    """Citations rebuilt into annotations report the quote, the missing span and a file citation's end."""
    citations = [
        cb.Citation(source=cb.CitedUri(value="https://a.io"), quote="Hello"),
        cb.Citation(source=cb.CitedReference(value="file-1"), start=0, end=3),
    ]
    block = cb.TextBlock(text="Hello", citations=citations, metadata={"openai/id": "msg_1"})
    converted = openai_responses.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[block])]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0].citations[0].quote", "content_dropped"),
        ("$[0].content[0].citations[0]", "content_degraded"),
        ("$[0].content[0].citations[1].end", "content_degraded"),
    ]
    assert_documented(REASONS, converted.losses)
    assert converted.payload["input"][0]["content"][0]["annotations"] == [
        {"type": "url_citation", "url": "https://a.io", "title": "", "start_index": 0, "end_index": 5},
        {"type": "file_citation", "file_id": "file-1", "filename": "", "index": 0},
    ]


def test_encrypted_reasoning_only_to_its_issuer():
    """Encrypted reasoning goes back to OpenAI, and to nobody else (nor to a mismatched OpenAI target)."""
    conversation = openai_responses.from_provider(fixture("request_full.json"))
    assert "gAAAAABo-encrypted-blob" in json.dumps(openai_responses.to_provider(conversation, issuer="openai").payload)
    other = openai_responses.to_provider(conversation, issuer="openai/other-family")
    assert "gAAAAABo-encrypted-blob" not in json.dumps(other.payload)
    dropped = [(loss.path, loss.kind) for loss in other.losses]
    assert dropped == [
        ("$[4].content[0]", "content_dropped"),
        ("$[4].content[1]", "content_dropped"),
        ("$[4].content[3]", "state_not_replayed"),
    ]
    assert_documented(REASONS, other.losses)
    assert "gAAAAABo-encrypted-blob" not in json.dumps(gemini.to_provider(conversation).payload)


@pytest.mark.parametrize(
    ("item", "path", "message"),
    [
        (
            {"type": "function_call_output", "call_id": "nope", "output": "x"},
            "$.input[0].call_id",
            "answers no earlier function_call",
        ),
        (
            {"type": "function_call_output", "output": "x"},
            "$.input[0].call_id",
            "required field missing (a result must name the call it answers)",
        ),
        ({"type": "function_call", "call_id": "c", "name": "f"}, "$.input[0].arguments", "required field missing"),
        (
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": None},
            "$.input[0].arguments",
            "required field missing",
        ),
        (
            {"type": "function_call", "call_id": 3, "name": "f", "arguments": "{}"},
            "$.input[0].call_id",
            "expected a string",
        ),
        ({"type": "reasoning", "summary": []}, "$.input[0].id", "required field missing"),
        (
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "reasoning_text", "text": "x"}]},
            "$.input[0].summary[0].type",
            "not a part type this adapter reads (summary_text)",
        ),
        (
            {"role": "user", "content": [{"type": "input_audio", "data": "x"}]},
            "$.input[0].content[0].type",
            "not a part type this adapter reads (input_text, input_image, input_file)",
        ),
        ({"role": "user", "content": []}, "$.input[0].content", "must not be empty"),
        ({"role": "critic", "content": "x"}, "$.input[0].role", "expected user, system, developer or assistant"),
        ({"type": 7}, "$.input[0].type", "expected a string"),
        ({}, "$.input[0].id", "required field missing (an item with no type and no role is an item reference)"),
        ("text", "$.input[0]", "expected an object"),
    ],
)
def test_malformed_items_name_their_path(item, path, message):
    """A malformed input item raises ValidationError at the item's own path, saying what is wrong."""
    with pytest.raises(cb.ValidationError) as info:
        openai_responses.from_provider({"input": [item]})
    assert info.value.errors == [(path, message)]


def test_duplicate_calls_and_answers_name_their_item():
    """A call id used twice, or a call answered twice, is refused at the second item's call_id."""
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c", "output": "x"}
    for items, path in (([call, call], "$.input[1].call_id"), ([call, output, output], "$.input[2].call_id")):
        with pytest.raises(cb.ValidationError) as info:
            openai_responses.from_provider({"input": items})
        assert info.value.errors[0][0] == path


def test_explicit_null_is_an_absent_field():
    """``null`` where the API has an optional field reads as its absence, and is not written back."""
    payload = {
        "input": [
            {
                "type": "message",
                "role": "user",
                "status": None,
                "content": [{"type": "input_text", "text": "Hi", "prompt_cache_breakpoint": None}],
            },
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "caller": None, "id": None},
            {"type": "function_call_output", "call_id": "c", "output": "ok", "status": None},
        ]
    }
    conversation = openai_responses.from_provider(payload)
    assert all(not block.metadata for message in conversation for block in message.content)
    written = openai_responses.to_provider(conversation, strict=LOSS_KINDS).payload
    check_request(written)
    assert "null" not in json.dumps(written)


def test_empty_instructions_are_no_system_message():
    """pydantic-ai sends ``instructions: ""``: it instructs nothing, so it reads as no message (not an error)."""
    conversation = openai_responses.from_provider({"instructions": "", "input": "Hi"})
    assert [m.role for m in conversation] == ["user"]
