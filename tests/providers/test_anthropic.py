"""The Anthropic Messages adapter, request side: golden round trips, the SDK request types, losses and issuers."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import CONTENT_LOSSES, ISSUER_KEY, LOSS_KINDS, LossError, anthropic
from provider_checks import assert_documented, documented_reasons
from providers.request_walk import walk

sdk = pytest.importorskip("anthropic")
create_params = pytest.importorskip("anthropic.types.message_create_params")

FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"
REQUESTS = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("response_"))
REASONS = documented_reasons("anthropic.md")


def request_problems(payload: dict[str, Any]) -> list[str]:
    """What the SDK's request type refuses in a payload: undeclared keys, missing keys, wrong types."""
    request = {"model": "claude-sonnet-4-5", "max_tokens": 1024, **payload}
    return walk(request, create_params.MessageCreateParamsNonStreaming)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def kinds(converted: cb.providers.Converted) -> list[tuple[str, str]]:
    return [(loss.path, loss.kind) for loss in converted.losses]


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_round_trip(path):
    """Anthropic JSON -> blocks -> Anthropic JSON is the identity, with no loss of any kind, for every fixture."""
    raw = load(path)
    converted = anthropic.to_provider(anthropic.from_provider(raw), strict=LOSS_KINDS)
    assert converted.payload == raw
    assert converted.losses == ()
    assert request_problems(converted.payload) == []


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_survives_neutral_json(path):
    """The blocks read from a fixture survive the neutral wire format and still give the same JSON."""
    conversation = anthropic.from_provider(load(path))
    again = cb.loads(cb.dumps(conversation), cb.Conversation)
    assert anthropic.to_provider(again).payload == load(path)


def test_explicit_nulls_are_absent_fields():
    """``null`` for an optional field (as SDK dumps write it) reads as if the field were not there."""
    with_nulls = {
        "system": None,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": None, "citations": None}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": None}, "caller": None}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": None}]},
        ],
    }
    without = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": None}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
        ]
    }
    assert anthropic.from_provider(with_nulls) == anthropic.from_provider(without)
    assert anthropic.to_provider(anthropic.from_provider(with_nulls), strict=LOSS_KINDS).payload == without


def test_system_messages_inside_messages_stay_in_place():
    """A ``"role": "system"`` message in ``messages`` reads as a system message and goes back where it was."""
    raw = {
        "system": "You review code.",
        "messages": [
            {"role": "user", "content": "Review auth.py."},
            {"role": "assistant", "content": "Three issues found."},
            {"role": "system", "content": [{"type": "text", "text": "Now look at performance only."}]},
            {"role": "user", "content": "What do you see?"},
        ],
    }
    conversation = anthropic.from_provider(raw)
    assert [m.role for m in conversation] == ["system", "user", "assistant", "system", "user"]
    assert conversation[3].metadata == {"anthropic/in_messages": True}
    assert anthropic.to_provider(conversation, strict=LOSS_KINDS).payload == raw


def test_citations_map_onto_neutral_fields():
    """Every citation kind gives a neutral source, title and quote, and keeps its native form in metadata."""
    conversation = anthropic.from_provider(load(FIXTURES / "citations.json"))
    blocks = conversation[1].content
    char = blocks[1].citations[0]
    assert char == cb.Citation(
        source=cb.CitedReference(value="document:0"),
        title="My Document",
        quote="The grass is green.",
        location=cb.CharacterRange(start=0, end=20),
    )
    assert blocks[2].citations[0].title is None
    assert [c.location for c in blocks[2].citations] == [cb.PageRange(start=2, end=3), cb.BlockRange(start=1, end=2)]
    assert [c.location for c in blocks[3].citations] == [cb.BlockRange(start=0, end=1)] * 2
    assert blocks[4].citations[0].location is None  # a web search result has no place inside it
    assert blocks[3].citations[0].source == cb.CitedUri(value="https://example.com/lawns")
    assert blocks[3].citations[1].source == cb.CitedReference(value="Botany notes")
    web = blocks[4].citations[0]
    assert web.source == cb.CitedUri(value="https://en.wikipedia.org/wiki/Poaceae")
    assert blocks[4].metadata["anthropic/citations"][0]["encrypted_index"] == "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm"


@pytest.mark.parametrize(
    ("start", "end"),
    [(3, 3), (4, 2), (0, 1), (-1, 2), (1.5, 2), (None, 2)],
)
def test_a_page_location_no_range_holds_stays_native(start: object, end: object) -> None:
    """An empty, reversed or ill-typed range (or page 0) is no neutral location; the native citation keeps it."""
    citation = {"type": "page_location", "cited_text": "x", "document_index": 0, "document_title": None,
                "start_page_number": start, "end_page_number": end}  # fmt: skip
    raw = [{"role": "assistant", "content": [{"type": "text", "text": "Green.", "citations": [citation]}]}]
    block = anthropic.from_provider({"messages": raw})[0].content[0]
    assert block.citations[0].location is None
    assert block.metadata["anthropic/citations"][0].get("start_page_number") == start


def test_a_page_past_the_largest_json_integer_is_refused_at_its_native_path() -> None:
    """No JSON value here holds it, so the reply is refused, naming the native field (not the neutral range)."""
    citation = {"type": "page_location", "cited_text": "x", "document_index": 0, "document_title": None,
                "start_page_number": 1, "end_page_number": 2**70}  # fmt: skip
    raw = [{"role": "assistant", "content": [{"type": "text", "text": "Green.", "citations": [citation]}]}]
    with pytest.raises(cb.ValidationError) as info:
        anthropic.from_provider({"messages": raw})
    assert [path for path, _ in info.value.errors] == [
        '$.messages[0].content[0].metadata["anthropic/citations"][0].end_page_number']


def test_a_document_keeps_its_title_context_and_citations_switch():
    """A document's title, context and ``citations.enabled`` are neutral fields; they go back as they came."""
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "Grass is green."},
        "title": "Botany",
        "context": "Notes from the field trip",
        "citations": {"enabled": True},
    }
    payload = {"messages": [{"role": "user", "content": [document, {"type": "text", "text": "What colour?"}]}]}
    file = anthropic.from_provider(payload)[0].content[0]
    assert (file.title, file.context, file.citable, dict(file.metadata)) == (
        "Botany", "Notes from the field trip", True, {}
    )
    assert anthropic.to_provider(anthropic.from_provider(payload), strict=LOSS_KINDS).payload == payload


def test_a_document_field_no_neutral_field_holds_stays_metadata():
    """A padded title and a citations object with more than ``enabled`` stay ``anthropic/`` metadata, sent back."""
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "Grass."},
        "title": " padded ",
        "citations": {"enabled": False, "mode": "strict"},
    }
    payload = {"messages": [{"role": "user", "content": [document]}]}
    file = anthropic.from_provider(payload)[0].content[0]
    assert (file.title, file.citable) == (None, None)
    assert file.metadata == {"anthropic/title": " padded ", "anthropic/citations": {"enabled": False, "mode": "strict"}}


def test_document_fields_on_an_image_or_beside_a_title_are_reported():
    """An image has no title, context or citations switch; a document's file name is sent as a title only without one."""
    image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), title="Chart", citable=True)
    pdf = cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF"), filename="q3.pdf", title="Q3")
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="user", content=[image, pdf])]))
    document = converted.payload["messages"][0]["content"][1]
    assert document["title"] == "Q3"
    assert kinds(converted) == [
        ("$[0].content[0].title", "content_dropped"),
        ("$[0].content[0].citable", "content_dropped"),
        ("$[0].content[1].filename", "content_dropped"),
    ]


def test_edited_citations_are_reported_not_invented():
    """A citation with no native coordinates is dropped as content; its text is kept."""
    text = cb.TextBlock(text="Paris", citations=[cb.Citation(source=cb.CitedUri(value="https://example.com"))])
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[text])]))
    assert converted.payload["messages"][0]["content"] == [{"type": "text", "text": "Paris"}]
    assert kinds(converted) == [("$[0].content[0].citations[0]", "content_dropped")]


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
    assert kinds(converted) == [("$[2].content[0].outcome", "content_degraded")]
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
    assert kinds(converted) == [("$[0].role", "content_degraded"), ("$[2]", "order_changed")]
    with pytest.raises(LossError) as info:
        anthropic.to_provider(conversation, strict=True)
    assert [loss.path for loss in info.value.losses] == ["$[0].role"]
    assert anthropic.to_provider(conversation, strict=["metadata_not_sent"]).losses == converted.losses


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
    assert kinds(converted) == [
        ("$[0].content[1]", "state_not_replayed"),
        ("$[0].content[2]", "content_dropped"),
        ("$[0].content[3]", "state_not_replayed"),
    ]
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
    assert kinds(converted) == [
        ("$[0].content[0]", "content_degraded"),
        ("$[0].content[1]", "content_dropped"),
        ("$[0].content[2]", "content_dropped"),
        ("$[0].content[3].media_type", "content_degraded"),
        ("$[0].content[3].filename", "content_degraded"),
        ('$[0].metadata["app/trace"]', "metadata_not_sent"),
        ("$[1].content[0]", "content_degraded"),
        ("$[1].content[1].input", "content_degraded"),
    ]
    assert_documented(REASONS, converted.losses)
    assert request_problems(converted.payload) == []


def test_a_message_with_nothing_to_send_is_left_out():
    """A message whose every block is dropped is not sent; each block's loss is reported once, and its metadata."""
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="user", content="Hi"),
            cb.Message(role="assistant", content=[cb.ReasoningBlock(text="private")], metadata={"app/x": 1}),
        ]
    )
    converted = anthropic.to_provider(conversation)
    assert converted.payload["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]
    assert kinds(converted) == [("$[1].content[0]", "content_dropped"), ('$[1].metadata["app/x"]', "metadata_not_sent")]


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
    """URL and file-id sources carry no media type: one that would not read back the same is a degradation."""
    block = cb.FileBlock(media_type=media_type, source=source)
    conversation = cb.Conversation(messages=[cb.Message(role="user", content=[block])])
    converted = anthropic.to_provider(conversation)
    assert kinds(converted) == ([("$[0].content[0].media_type", "content_degraded")] if lost else [])
    (read_back,) = anthropic.from_provider(converted.payload)[0].content
    assert (read_back.media_type == media_type) is not lost


@pytest.mark.parametrize(
    ("payload", "path", "message"),
    [
        ({"messages": [{"role": "model", "content": "x"}]}, "$.messages[0].role", "expected user, assistant or system"),
        ({"messages": [{"role": "user", "content": [{"type": "text"}]}]}, "$.messages[0].content[0].text", None),
        ({"messages": [{"role": "user"}]}, "$.messages[0].content", "required field missing"),
        ({"system": "x"}, "$.messages", "required field missing"),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope"}]}]},
            "$.messages[0].content[0].tool_use_id",
            "answers no earlier tool_use block",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": "AA=="}}]}
                ]
            },
            "$.messages[0].content[0].source.media_type",
            "required field missing",
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
            None,
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}]},
            "$.messages[0].content[0].input",
            "required field missing",
        ),
        ({"messages": [{"role": "user", "content": []}]}, "$.messages[0].content", None),
        ({"system": 3, "messages": []}, "$.system", "expected a string or an array"),
        ({"system": [{"type": "image"}], "messages": []}, "$.system[0].type", "expected a text block"),
        ("not a payload", "$", "expected an object"),
    ],
)
def test_invalid_payloads_are_validation_errors(payload, path, message):
    """Malformed Anthropic JSON raises ValidationError naming the path into the payload, and a missing key as such."""
    with pytest.raises(cb.ValidationError) as info:
        anthropic.from_provider(payload)
    assert info.value.errors[0][0] == path
    if message is not None:
        assert info.value.errors[0][1] == message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.conversations(max_messages=6))
def test_every_payload_fits_the_request_type_and_replays_without_loss(conversation):
    """Payloads fit the SDK request type, strict raises exactly on content losses, and a replay loses nothing."""
    converted = anthropic.to_provider(conversation)
    assert request_problems(converted.payload) == []
    json.dumps(converted.payload, allow_nan=False)
    assert_documented(REASONS, converted.losses)
    content_lost = any(loss.kind in CONTENT_LOSSES for loss in converted.losses)
    with pytest.raises(LossError) if content_lost else contextlib.nullcontext():
        anthropic.to_provider(conversation, strict=True)
    back = anthropic.from_provider(converted.payload)
    replayed = anthropic.to_provider(back, strict=LOSS_KINDS)
    assert replayed.payload == converted.payload
    if not converted.losses:  # a message's cache breakpoint reads back on its last block
        assert [b for m in back for b in m.content] == [b for m in conversation for b in _marked(m)]


def _marked(message: cb.Message) -> tuple[Any, ...]:
    last = message.content[-1]
    if message.cache is None or last.cache is not None:
        return message.content
    return (*message.content[:-1], attrs.evolve(last, cache=message.cache))


@pytest.mark.parametrize("outcome", ["denied", "interrupted"])
def test_an_outcome_anthropic_lacks_is_sent_as_an_error(outcome: str) -> None:
    """Denied and interrupted results go as ``is_error`` results, reported: they read back as failed."""
    call = cb.ToolCallBlock(tool_call_id="t1", tool_name="export", input={})
    result = cb.ToolResultBlock(tool_call_id="t1", tool_name="export", outcome=outcome, content=[])
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Export it."),
                                             cb.Message(role="assistant", content=[call]),
                                             cb.Message(role="tool", content=[result])])
    converted = anthropic.to_provider(conversation)
    assert converted.payload["messages"][2]["content"][0]["is_error"] is True
    assert kinds(converted) == [("$[2].content[0].outcome", "content_degraded")]
    assert anthropic.from_provider(converted.payload)[2].content[0].outcome == "failed"
