"""The OpenAI Chat Completions adapter: golden round trips, mapping, losses, and errors naming the payload's path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, LossError, openai_chat
from provider_checks import assert_documented, documented_reasons
from providers.request_walk import walk

sdk = pytest.importorskip("openai")

FIXTURES = Path(__file__).parent / "fixtures" / "openai_chat"
REQUESTS = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("response_"))
REASONS = documented_reasons("openai_chat.md")


def check_payload(payload: dict[str, Any]) -> None:
    """The payload fits the SDK's request type exactly (no undeclared key anywhere)."""
    assert walk(payload["messages"], list[sdk.types.chat.ChatCompletionMessageParam]) == []


def load(name: str | Path) -> Any:
    path = name if isinstance(name, Path) else FIXTURES / name
    return json.loads(path.read_text(encoding="utf-8"))


def without_nulls(payload: dict[str, Any]) -> dict[str, Any]:
    """The fixture as the adapter writes it: an explicit null in an optional message field is absent."""
    return {"messages": [{k: v for k, v in m.items() if v is not None} for m in payload["messages"]]}


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_round_trip(path):
    """Chat Completions JSON -> blocks -> JSON gives the same messages (nulls absent), with no loss of any kind."""
    raw = load(path)
    converted = openai_chat.to_provider(openai_chat.from_provider(raw), strict=LOSS_KINDS)
    assert converted.payload == without_nulls(raw)
    assert converted.losses == ()
    check_payload(converted.payload)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_golden_survives_neutral_json(path):
    """The blocks read from a fixture survive the neutral wire format and still give the same JSON."""
    conversation = openai_chat.from_provider(load(path))
    again = cb.loads(cb.dumps(conversation), cb.Conversation)
    assert openai_chat.to_provider(again).payload == without_nulls(load(path))


def test_user_parts_map_onto_files():
    """Image URLs, data URLs, audio and files become file blocks with the right sources and media types."""
    raw = load("user_parts.json")
    blocks = openai_chat.from_provider(raw)[0].content
    assert blocks[1].source == cb.UrlSource(url=raw["messages"][0]["content"][1]["image_url"]["url"])
    assert blocks[1].metadata["openai/detail"] == "high"
    assert (blocks[2].media_type, blocks[2].source.data[:4]) == ("image/png", b"\x89PNG")
    assert [blocks[3].media_type, blocks[4].media_type] == ["audio/wav", "audio/mpeg"]
    assert blocks[5].source == cb.ReferenceSource(id="file-6F2ksmvXxt4VdoqmHRw6kL", provider="openai")
    assert (blocks[6].media_type, blocks[6].filename) == ("application/pdf", "draconomicon.pdf")
    assert blocks[7].metadata["openai/file_data_base64"] is True


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
    """JSON is written as JSON text, files are dropped, and a failed outcome is lost: each with its kind."""
    converted = openai_chat.to_provider(_tool_conversation("failed"))
    assert converted.payload["messages"][2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "done"}, {"type": "text", "text": '{"w":1}'}],
    }
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[2].content[0].outcome", "content_degraded"),
        ("$[2].content[0].content[1]", "content_degraded"),
        ("$[2].content[0].content[2]", "content_dropped"),
    ]
    assert_documented(REASONS, converted.losses)


def test_tool_result_files_can_move_to_a_user_message():
    """With tool_result_files="user_message", files follow the tool messages in a user message: order changed."""
    converted = openai_chat.to_provider(_tool_conversation(), tool_result_files="user_message")
    roles = [m["role"] for m in converted.payload["messages"]]
    assert roles == ["user", "assistant", "tool", "user", "user"]
    moved = converted.payload["messages"][3]["content"]
    assert moved[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}
    assert (converted.losses[-1].path, converted.losses[-1].kind) == ("$[2].content[0].content[2]", "order_changed")
    check_payload(converted.payload)
    assert openai_chat.preflight(_tool_conversation(), tool_result_files="user_message") == ()


def test_reasoning_is_never_sent():
    """Chat Completions takes no reasoning back, whoever issued it; text is content, a bare signature is state."""
    thought = cb.ReasoningBlock(text="secret plan", signature="sig", metadata={ISSUER_KEY: "openai"})
    sealed = cb.ReasoningBlock(signature="sig-only")
    message = cb.Message(role="assistant", content=[thought, sealed, cb.TextBlock(text="Hi")])
    converted = openai_chat.to_provider(cb.Conversation(messages=[message]), issuer="openai")
    assert converted.payload["messages"] == [{"role": "assistant", "content": "Hi"}]
    assert "secret plan" not in json.dumps(converted.payload)
    assert [loss.kind for loss in converted.losses] == ["content_dropped", "state_not_replayed"]
    with pytest.raises(LossError) as info:
        openai_chat.to_provider(cb.Conversation(messages=[message]), strict=True)
    assert [loss.path for loss in info.value.losses] == ["$[0].content[0]"]


def test_refusals_keep_their_place():
    """A refusal that comes last goes in the refusal field; one followed by text is a part, so order survives."""
    first = cb.Message(role="assistant", content=[cb.TextBlock(text="Sure."), cb.RefusalBlock(text="But not that.")])
    second = cb.Message(role="assistant", content=[cb.RefusalBlock(text="No."), cb.TextBlock(text="Ask else.")])
    converted = openai_chat.to_provider(cb.Conversation(messages=[first, second]), strict=LOSS_KINDS)
    assert converted.payload["messages"] == [
        {"role": "assistant", "content": "Sure.", "refusal": "But not that."},
        {
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "No."}, {"type": "text", "text": "Ask else."}],
        },
    ]
    back = openai_chat.from_provider(converted.payload)
    assert [type(b).__name__ for b in back[1].content] == ["RefusalBlock", "TextBlock"]


def test_content_after_tool_calls_is_moved_ahead():
    """Text after a tool call is sent before the tool calls and reported as an order change."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    message = cb.Message(role="assistant", content=[call, cb.TextBlock(text="Calling f.")])
    converted = openai_chat.to_provider(cb.Conversation(messages=[message]))
    assert list(converted.payload["messages"][0]) == ["role", "content", "tool_calls"]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].content[1]", "order_changed")]


def test_files_that_cannot_be_sent_are_reported_with_their_kind():
    """Files Chat Completions cannot carry are dropped, or sent in a form that reads back differently."""
    pdf_url = cb.FileBlock(media_type="application/pdf", source=cb.UrlSource(url="https://example.com/a.pdf"))
    ogg = cb.FileBlock(media_type="audio/ogg", source=cb.BytesSource(data=b"OggS"))
    foreign = cb.FileBlock(media_type="image/png", source=cb.ReferenceSource(id="file_1", provider="anthropic"))
    unnamed = cb.FileBlock(media_type="application/pdf", source=cb.ReferenceSource(id="file-2"))
    named_image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), filename="a.png")
    user = cb.Message(role="user", content=[pdf_url, ogg, foreign, unnamed, named_image])
    assistant = cb.Message(role="assistant", content=[named_image, cb.TextBlock(text="ok")])
    converted = openai_chat.to_provider(cb.Conversation(messages=[user, assistant]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0]", "content_dropped"),
        ("$[0].content[1]", "content_dropped"),
        ("$[0].content[2]", "content_dropped"),
        ("$[0].content[3]", "content_degraded"),
        ("$[0].content[3]", "content_degraded"),
        ("$[0].content[4].filename", "content_degraded"),
        ("$[1].content[0]", "content_dropped"),
    ]
    assert converted.payload["messages"][0]["content"][0] == {"type": "file", "file": {"file_id": "file-2"}}
    assert_documented(REASONS, converted.losses)
    check_payload(converted.payload)


def test_foreign_citations_are_dropped_but_a_replies_own_are_not_reported():
    """Citations from elsewhere are a content loss; the annotations of a Chat reply go back with no loss."""
    cite = cb.Citation(source=cb.CitedUri(value="https://example.com/"), start=0, end=2)
    foreign = cb.TextBlock(text="Hi there", citations=[cite])
    own = cb.TextBlock(text="Hi there", citations=[cite], metadata={"openai/annotated": True})
    for block, kinds in ((foreign, ["content_dropped"]), (own, [])):
        converted = openai_chat.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[block])]))
        assert converted.payload["messages"] == [{"role": "assistant", "content": "Hi there"}]
        assert [loss.kind for loss in converted.losses] == kinds


def test_metadata_goes_out_only_where_the_request_type_has_it():
    """Allow-listed fields of the right shape are sent; any other key, or a wrong shape, stays local and is reported."""
    metadata = {
        "openai/name": "alice",
        "openai/latency_ms": 12,
        "openai/index": 0,
        "openai/caller": None,
        "app/trace": "t1",
    }
    breakpoint_ = {"openai/prompt_cache_breakpoint": {"mode": "explicit", "ttl": "30m"}, "openai/detail": "sideways"}
    image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), metadata=breakpoint_)
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={}, metadata={"openai/index": 3})
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="user", content=[cb.TextBlock(text="hi"), image], metadata=metadata),
            cb.Message(role="assistant", content=[call], metadata={"openai/name": 5, "openai/audio": {"id": "a_1"}}),
        ]
    )
    converted = openai_chat.to_provider(conversation)
    user, assistant = converted.payload["messages"]
    assert user["name"] == "alice"
    assert user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBORw=="},
        "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "30m"},
    }
    assert assistant["audio"] == {"id": "a_1"}
    assert "name" not in assistant
    assert "index" not in json.dumps(converted.payload)
    assert {loss.path for loss in converted.losses} == {
        '$[0].metadata["openai/latency_ms"]',
        '$[0].metadata["openai/index"]',
        '$[0].metadata["openai/caller"]',
        '$[0].metadata["app/trace"]',
        '$[0].content[1].metadata["openai/detail"]',
        '$[1].metadata["openai/name"]',
        '$[1].content[0].metadata["openai/index"]',
    }
    assert {loss.kind for loss in converted.losses} == {"metadata_not_sent"}
    check_payload(converted.payload)


@pytest.mark.parametrize(
    ("payload", "path", "message"),
    [
        ({"messages": [{"role": "function", "name": "f", "content": "x"}]}, "$.messages[0].role", "expected system"),
        (
            {"messages": [{"role": "tool", "tool_call_id": "nope", "content": "x"}]},
            "$.messages[0].tool_call_id",
            "answers",
        ),
        ({"messages": [{"role": "user"}]}, "$.messages[0].content", "required field missing"),
        ({"messages": [{"content": "hi"}]}, "$.messages[0].role", "required field missing"),
        ({}, "$.messages", "required field missing"),
        ({"messages": [{"role": "user", "content": None}]}, "$.messages[0].content", "expected a string or an array"),
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
            "",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": "https://x.org/a.png", "zoom": 2}}],
                    }
                ]
            },
            "$.messages[0].content[0].image_url.zoom",
            "unknown field",
        ),
        (
            {
                "messages": [
                    {"role": "system", "content": [{"type": "image_url", "image_url": {"url": "https://x.org/a.png"}}]}
                ]
            },
            "$.messages[0].content[0].type",
            "expected one of: text",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "video", "video": {}}]}]},
            "$.messages[0].content[0].type",
            "expected one of",
        ),
        ({"messages": [{"role": "assistant", "content": None}]}, "$.messages[0]", "carries no content"),
        (
            {"messages": [{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}]},
            "$.messages[0].function_call",
            "deprecated function_call",
        ),
        (
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}]}
                ]
            },
            "$.messages[0].tool_calls[0].function.arguments",
            "required field missing",
        ),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "type": "mcp", "mcp": {}}]}]},
            "$.messages[0].tool_calls[0].type",
            "expected function or custom",
        ),
    ],
)
def test_invalid_payloads_are_validation_errors(payload, path, message):
    """Malformed Chat Completions JSON raises ValidationError naming the path into the payload and the problem."""
    with pytest.raises(cb.ValidationError) as info:
        openai_chat.from_provider(payload)
    assert info.value.errors[0][0] == path
    assert message in info.value.errors[0][1]


def test_unknown_message_fields_are_kept_and_reported_when_sent():
    """A field the adapter does not know stays in metadata, is never sent, and its loss is reported."""
    conversation = openai_chat.from_provider({"messages": [{"role": "user", "content": "hi", "mood": "curious"}]})
    assert conversation[0].metadata["openai/mood"] == "curious"
    converted = openai_chat.to_provider(conversation)
    assert converted.payload == {"messages": [{"role": "user", "content": "hi"}]}
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].metadata["openai/mood"]', "metadata_not_sent")
    ]


@pytest.mark.parametrize(
    ("response", "path", "message"),
    [
        ({"id": "x"}, "$.choices", "required field missing"),
        ({"choices": []}, "$.choices", "no choice 0"),
        ({"choices": [{"finish_reason": "stop"}]}, "$.choices[0].message", "required field missing"),
        (
            {"choices": [{"message": {"role": "user", "content": "x"}}]},
            "$.choices[0].message.role",
            "expected assistant",
        ),
        ({"choices": [{"message": {"content": 5}}]}, "$.choices[0].message.content", "expected a string or an array"),
        (
            {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": -1}},
            "$.usage.prompt_tokens",
            "non-negative",
        ),
        (
            {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens_details": {"cached_tokens": "4"}}},
            "$.usage.prompt_tokens_details.cached_tokens",
            "expected an integer",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "tool_calls": [
                                {
                                    "id": "c",
                                    "type": "function",
                                    "function": {"name": "f", "arguments": "{}", "strict": True},
                                }
                            ]
                        }
                    }
                ]
            },
            "$.choices[0].message.tool_calls[0].function.strict",
            "unknown field",
        ),
        (
            {"choices": [{"message": {"audio": {"transcript": "x"}}}]},
            "$.choices[0].message.audio.id",
            "required field missing",
        ),
        (
            {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 1, "extra": float("nan")}},
            "$.usage.extra",
            "NaN",
        ),
        ("chatcmpl", "$", "expected an object"),
    ],
)
def test_malformed_replies_name_the_response_path(response, path, message):
    """Errors in a reply name the ChatCompletion's own path and say what is wrong ("required field missing")."""
    with pytest.raises(cb.ValidationError) as info:
        openai_chat.from_response(response)
    assert (info.value.errors[0][0], message in info.value.errors[0][1]) == (path, True)


def test_an_assistant_message_left_with_only_its_audio_reference_is_not_sent():
    """A message whose blocks Chat cannot take, holding only an audio id, is not sent: no reader could hold it."""
    reasoning = cb.Message(role="assistant", content=[cb.ReasoningBlock(text="r")], metadata={"openai/audio": {"id": "a1"}})
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="hi"), reasoning])
    converted = openai_chat.to_provider(conversation)
    assert converted.payload == {"messages": [{"role": "user", "content": "hi"}]}
    assert {(loss.path, loss.kind) for loss in converted.losses} == {
        ("$[1].content[0]", "content_dropped"),
        ('$[1].metadata["openai/audio"]', "metadata_not_sent"),
    }
    assert openai_chat.from_provider(converted.payload) == cb.Conversation(messages=conversation[:1])
