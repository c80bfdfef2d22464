"""The Anthropic adapter meets the SDK's own objects: every dump form reads the same, and replies go back intact."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, STOP_REASONS, Reply, anthropic
from providers.test_anthropic import request_problems

t = pytest.importorskip("anthropic.types")


def dump_forms(message: Any) -> dict[str, Any]:
    """Every form a user reaches for: the object, its pydantic dumps (with and without aliases) and its JSON."""
    return {
        "object": message,
        "model_dump": message.model_dump(),
        "model_dump_alias": message.model_dump(by_alias=True),
        "model_dump_json_mode": message.model_dump(mode="json"),
        "to_dict": message.to_dict(),
        "to_dict_json_mode": message.to_dict(mode="json"),
        "to_json": json.loads(message.to_json()),
    }


def response(content: list[Any], stop_reason: str | None = "end_turn", **usage: Any) -> Any:
    counts = {"input_tokens": 12, "output_tokens": 3, **usage}
    return t.Message(
        id="msg_01XFDUDYJgAACzvnptvVoYEL",
        type="message",
        role="assistant",
        model="claude-opus-4-1",
        content=content,
        stop_reason=stop_reason,
        usage=t.Usage(**counts),
    )


def every_kind() -> list[Any]:
    """One block of every kind a response carries, each optional field either left unset or given a value."""
    return [
        t.ThinkingBlock(type="thinking", thinking="The user wants the weather.", signature="EqQBCgIYAhIM1gbcDa9G"),
        t.RedactedThinkingBlock(type="redacted_thinking", data="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"),
        t.TextBlock(type="text", text="I'll check."),
        t.TextBlock(
            type="text",
            text="The grass is green",
            citations=[
                t.CitationCharLocation(
                    type="char_location",
                    cited_text="The grass is green.",
                    document_index=0,
                    document_title="My Document",
                    start_char_index=0,
                    end_char_index=20,
                ),
                t.CitationPageLocation(
                    type="page_location",
                    cited_text="Grass: green",
                    document_index=1,
                    document_title=None,
                    start_page_number=2,
                    end_page_number=3,
                ),
                t.CitationContentBlockLocation(
                    type="content_block_location",
                    cited_text="Second chunk",
                    document_index=2,
                    document_title="Chunks",
                    start_block_index=1,
                    end_block_index=2,
                ),
                t.CitationsSearchResultLocation(
                    type="search_result_location",
                    cited_text="Lawns are green.",
                    source="https://example.com/lawns",
                    title=None,
                    search_result_index=0,
                    start_block_index=0,
                    end_block_index=1,
                ),
                t.CitationsWebSearchResultLocation(
                    type="web_search_result_location",
                    cited_text="Chlorophyll.",
                    url="https://en.wikipedia.org/wiki/Poaceae",
                    title="Poaceae - Wikipedia",
                    encrypted_index="Eo8BCioIAhgBIiQy",
                ),
            ],
        ),
        t.ServerToolUseBlock(
            type="server_tool_use", id="srvtoolu_01", name="web_search", input={"query": "grass colour"}
        ),
        t.WebSearchToolResultBlock(
            type="web_search_tool_result",
            tool_use_id="srvtoolu_01",
            content=[
                t.WebSearchResultBlock(
                    type="web_search_result",
                    url="https://www.python.org/downloads/",
                    title="Download Python",
                    encrypted_content="EqgfCioIARgBIiQ3",
                    page_age="April 30, 2025",
                ),
                t.WebSearchResultBlock(
                    type="web_search_result", url="https://example.com/", title="Example", encrypted_content="Eqgf"
                ),
            ],
        ),
        t.WebFetchToolResultBlock(
            type="web_fetch_tool_result",
            tool_use_id="srvtoolu_02",
            content=t.WebFetchBlock(
                type="web_fetch_result",
                url="https://example.com/spec",
                content=t.DocumentBlock(
                    type="document", source=t.PlainTextSource(type="text", media_type="text/plain", data="Spec")
                ),
            ),
        ),
        t.CodeExecutionToolResultBlock(
            type="code_execution_tool_result",
            tool_use_id="srvtoolu_03",
            content=t.CodeExecutionResultBlock(
                type="code_execution_result",
                stdout="4\n",
                stderr="",
                return_code=0,
                content=[t.CodeExecutionOutputBlock(type="code_execution_output", file_id="file_011")],
            ),
        ),
        t.TextEditorCodeExecutionToolResultBlock(
            type="text_editor_code_execution_tool_result",
            tool_use_id="srvtoolu_04",
            content=t.TextEditorCodeExecutionViewResultBlock(
                type="text_editor_code_execution_view_result", content="print(1)", file_type="text", num_lines=1
            ),
        ),
        t.ContainerUploadBlock(type="container_upload", file_id="file_012"),
        t.ToolUseBlock(
            type="tool_use",
            id="toolu_01A09q90qw90lq917835lq9",
            name="get_weather",
            input={"location": "Paris", "unit": None},
            caller=t.DirectCaller(type="direct"),
        ),
        t.ToolUseBlock(type="tool_use", id="toolu_02", name="get_time", input={}),
    ]


def replay(message: cb.Message | None) -> cb.providers.Converted:
    """The reply's message sent back after a user turn, raising on a loss of any kind."""
    assert message is not None
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"), message])
    return anthropic.to_provider(conversation, strict=LOSS_KINDS)


@pytest.mark.parametrize("form", list(dump_forms(response(every_kind()))))
def test_every_dump_form_reads_the_same(form):
    """The SDK object and each of its dump forms give the same reply, block for block."""
    message = response(every_kind(), stop_reason="tool_use", cache_read_input_tokens=4)
    assert anthropic.from_response(dump_forms(message)[form]) == anthropic.from_response(message)


def test_a_reply_goes_back_exactly_as_the_sdk_sends_it():
    """Every block of a reply goes back as the SDK's own request form of it, with no loss of any kind."""
    message = response(every_kind(), stop_reason="tool_use")
    reply = anthropic.from_response(message)
    assert reply.message is not None
    assert reply.message.metadata == {}
    converted = replay(reply.message)
    assert converted.losses == ()
    assert converted.payload["messages"][1] == {"role": "assistant", "content": [b.to_dict() for b in message.content]}
    assert request_problems(converted.payload) == []


def test_the_reply_says_what_the_response_was():
    """Stop reason, usage, model and id are on the reply, with the SDK's usage object kept whole as raw."""
    usage = {
        "cache_read_input_tokens": 128,
        "cache_creation_input_tokens": 64,
        "cache_creation": t.CacheCreation(ephemeral_1h_input_tokens=24, ephemeral_5m_input_tokens=40),
        "server_tool_use": t.ServerToolUsage(web_search_requests=2, web_fetch_requests=0),
        "output_tokens_details": t.OutputTokensDetails(thinking_tokens=2),
        "service_tier": "standard",
    }
    message = response([t.TextBlock(type="text", text="Hello!")], **usage)
    reply = anthropic.from_response(message)
    assert isinstance(reply, Reply)
    assert (reply.stop_reason, reply.provider_stop_reason) == ("end_turn", "end_turn")
    assert (reply.model, reply.response_id, reply.provider) == (
        "claude-opus-4-1",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "anthropic",
    )
    assert reply.usage == cb.providers.Usage(
        input_tokens=12,
        output_tokens=3,
        cache_read_tokens=128,
        cache_write_tokens=64,
        reasoning_tokens=2,
        raw=message.usage.to_dict(),
    )
    assert reply.usage.raw["cache_creation"] == {"ephemeral_1h_input_tokens": 24, "ephemeral_5m_input_tokens": 40}
    assert reply.usage.raw["server_tool_use"]["web_search_requests"] == 2


def test_an_empty_reply_has_no_message():
    """``content: []`` (an empty end_turn) reads as a reply with no message, its stop reason and usage kept."""
    for form in dump_forms(response([])).values():
        reply = anthropic.from_response(form)
        assert reply.message is None
        assert reply.stop_reason == "end_turn"
        assert reply.usage is not None
        assert reply.usage.output_tokens == 3


@pytest.mark.parametrize("value", get_args(t.StopReason))
def test_every_stop_reason_of_the_sdk_has_a_neutral_word(value):
    """Each stop reason the installed SDK declares maps to a word of the neutral vocabulary other than ``other``."""
    reply = anthropic.from_response(response([t.TextBlock(type="text", text="x")], stop_reason=value))
    assert reply.stop_reason in STOP_REASONS
    assert reply.stop_reason != "other"
    assert reply.provider_stop_reason == value


@pytest.mark.parametrize(
    ("value", "neutral"),
    [
        ("pause_turn", "pause"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "max_tokens"),
        ("a_reason_from_later", "other"),
        (None, None),
    ],
)
def test_stop_reasons_map_to_the_neutral_vocabulary(value, neutral):
    """Anthropic's own words map onto the neutral ones; one this adapter does not know is ``other``."""
    raw = response([t.TextBlock(type="text", text="x")]).to_dict()
    raw["stop_reason"] = value
    reply = anthropic.from_response(raw)
    assert (reply.stop_reason, reply.provider_stop_reason) == (neutral, value)


def test_a_citation_goes_back_in_its_request_form():
    """A response citation's ``file_id`` stays in metadata only, and a title left unset is sent as ``null``."""
    cited = t.TextBlock(
        type="text",
        text="Green.",
        citations=[
            t.CitationCharLocation(
                type="char_location",
                cited_text="Green.",
                document_index=0,
                start_char_index=0,
                end_char_index=6,
                file_id="file_011CNvxoj286",
            )
        ],
    )
    message = response([cited])
    for form in dump_forms(message).values():
        reply = anthropic.from_response(form)
        assert reply.message is not None
        assert reply.message.content[0].metadata["anthropic/citations"][0]["file_id"] == "file_011CNvxoj286"
        converted = replay(reply.message)
        assert converted.payload["messages"][1]["content"][0]["citations"] == [
            {
                "type": "char_location",
                "cited_text": "Green.",
                "document_index": 0,
                "document_title": None,
                "start_char_index": 0,
                "end_char_index": 6,
            }
        ]
        assert request_problems(converted.payload) == []


def test_sdk_blocks_inside_a_request_are_read():
    """A history holding ``response.content`` or ``response.to_param()`` reads like its JSON, and goes back so."""
    message = response(every_kind(), stop_reason="tool_use")
    as_json = {
        "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": message.to_dict()["content"]}]
    }
    for assistant in (message.to_param(), {"role": "assistant", "content": message.content}):
        conversation = anthropic.from_provider({"messages": [{"role": "user", "content": "Hi"}, assistant]})
        assert conversation == anthropic.from_provider(as_json)
        assert anthropic.to_provider(conversation, strict=LOSS_KINDS).payload == as_json


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"type": "message", "role": "assistant"}, "$.content", "required field missing"),
        ({"type": "error", "error": {"type": "overloaded_error"}, "content": []}, "$.type", None),
        ({"role": "user", "content": []}, "$.role", "expected assistant"),
        ({"content": [{"text": "x"}]}, "$.content[0].type", "required field missing"),
        ({"content": [{"type": ["text"], "text": "x", "title": None}]}, "$.content[0].type", "expected a string"),
        ({"content": [{"type": "tool_use", "id": "t", "name": "f"}]}, "$.content[0].input", "required field missing"),
        ({"content": [], "usage": {"input_tokens": -1}}, "$.usage.input_tokens", "expected a non-negative integer"),
        ({"content": [], "usage": {"input_tokens": True}}, "$.usage.input_tokens", "expected an integer"),
        (
            {"content": [], "usage": {"output_tokens_details": {"thinking_tokens": "2"}}},
            "$.usage.output_tokens_details.thinking_tokens",
            "expected an integer",
        ),
        ({"content": [], "usage": {"input_tokens": 1, "extra": float("nan")}}, "$.usage.extra", None),
        (
            {"content": [{"type": "text", "text": "x", "citations": [
                {"type": "char_location", "cited_text": "x", "document_index": True, "document_title": None,
                 "start_char_index": 0, "end_char_index": 1}]}]},
            "$.content[0].citations[0].document_index",
            "expected an integer, not a bool or a string",
        ),
        (
            {"content": [], "usage": {"server_tool_use": {"web_fetch_requests": False}}},
            "$.usage.server_tool_use.web_fetch_requests",
            "expected an integer",
        ),
        ({"content": [], "stop_reason": 3}, "$.stop_reason", "expected a string"),
        (
            {"content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "\ud800"}}]},
            "$.content[0].input.q",
            None,
        ),
        ([], "$", "expected an object"),
    ],
)
def test_a_malformed_response_is_refused_at_its_path(raw, path, message):
    """A response that is not a Messages reply raises ValidationError naming the response's own path."""
    with pytest.raises(cb.ValidationError) as info:
        anthropic.from_response(raw)
    assert info.value.errors[0][0] == path
    if message is not None:
        assert info.value.errors[0][1] == message


_TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12)


@settings(max_examples=30, deadline=None)
@given(
    texts=st.lists(_TEXT, min_size=0, max_size=3),
    inputs=st.lists(
        st.dictionaries(_TEXT, st.one_of(st.none(), st.integers(-(2**63), 2**64 - 1), _TEXT), max_size=3), max_size=3
    ),
    thinking=st.booleans(),
)
def test_generated_replies_go_back_without_loss(texts, inputs, thinking):
    """Any reply built with the SDK's types reads the same from every form and goes back whole, with no loss."""
    content: list[Any] = [t.ThinkingBlock(type="thinking", thinking="Plan.", signature="EqQB")] if thinking else []
    content += [t.TextBlock(type="text", text=text) for text in texts]
    content += [
        t.ToolUseBlock(type="tool_use", id=f"toolu_{n}", name="f", input=value) for n, value in enumerate(inputs)
    ]
    message = response(content, stop_reason="tool_use" if inputs else "end_turn")
    replies = [anthropic.from_response(form) for form in dump_forms(message).values()]
    assert all(reply == replies[0] for reply in replies)
    if not content:
        assert replies[0].message is None
        return
    converted = replay(replies[0].message)
    assert converted.payload["messages"][1]["content"] == [block.to_dict() for block in content]
    assert request_problems(converted.payload) == []


@pytest.mark.parametrize("kind", ["char_location", "page_location", "content_block_location"])
def test_a_citation_without_its_title_reads_as_one_whose_title_is_null(kind):
    """A document citation lacking ``document_title`` (its indices given as whole floats) reads as the SDK's
    dump of it (``null``; the integers they equal), stored alike."""
    places = {"char_location": ("start_char_index", "end_char_index"),
              "page_location": ("start_page_number", "end_page_number"),
              "content_block_location": ("start_block_index", "end_block_index")}[kind]
    citation = {"type": kind, "cited_text": "Blue.", "document_index": 0, places[0]: 1, places[1]: 2}
    text = {"type": "text", "text": "The sky is blue.", "citations": [citation]}
    sdk = response([t.TextBlock.model_validate(text)])
    plain = sdk.model_dump(mode="json", exclude_none=True)
    plain["content"][0]["citations"][0][places[0]] = 1.0
    assert "document_title" not in plain["content"][0]["citations"][0]
    assert anthropic.from_response(plain) == anthropic.from_response(sdk)
