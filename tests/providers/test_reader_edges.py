"""Readers take odd but legal provider output: numbers a block cannot hold, empty text, long titles."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import anthropic as anthropic_stream
from contentblocks.streaming import openai_chat as chat_stream
from contentblocks.streaming import openai_responses as responses_stream
from provider_checks import anthropic_message
from streaming.checks import load

anthropic_sdk = pytest.importorskip("anthropic")
openai_sdk = pytest.importorskip("openai")
from anthropic.types import Message as AnthropicMessage  # noqa: E402 - after the importorskip
from openai.types.chat import ChatCompletion  # noqa: E402
from openai.types.responses import Response  # noqa: E402

#: Argument texts whose JSON a block cannot hold: a 30-digit order number, a float beyond double range, and a
#: value nested deeper than the JSON depth limit.
UNHOLDABLE = [
    '{"order": 123456789012345678901234567890}',
    '{"amount": 1e400}',
    '{"amount": -1e400, "note": "x"}',
    '{"deep": ' + "[" * 150 + "]" * 150 + "}",
]


def _completion(arguments: str) -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}
    message = {"role": "assistant", "content": "Looking it up.", "tool_calls": [call]}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message, "logprobs": None}],
    }


def _response(arguments: str) -> dict[str, Any]:
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": arguments,
        "status": "completed",
    }
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Looking it up.", "annotations": []}],
    }
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "output": [text, call],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


@pytest.mark.parametrize("arguments", UNHOLDABLE)
@pytest.mark.parametrize("form", ["dict", "sdk", "json"])
def test_chat_arguments_a_block_cannot_hold_are_kept_raw_and_flagged(arguments, form):
    """Chat arguments with a 30-digit integer, 1e400 or deep nesting are the raw text, flagged; the rest reads."""
    raw = _completion(arguments)
    response = {"dict": raw, "sdk": ChatCompletion.model_validate(raw), "json": json.loads(json.dumps(raw))}[form]
    text, call = openai_chat.from_response(response).message.content
    assert text == cb.TextBlock(text="Looking it up.")
    assert (call.input, dict(call.metadata)) == (arguments, {"openai/invalid_arguments": True})


@pytest.mark.parametrize("arguments", UNHOLDABLE)
@pytest.mark.parametrize("form", ["dict", "sdk"])
def test_responses_arguments_a_block_cannot_hold_are_kept_raw_and_flagged(arguments, form):
    """Responses arguments a block cannot hold are the raw text, flagged; the message before the call reads."""
    raw = _response(arguments)
    response = raw if form == "dict" else Response.model_validate(raw)
    reply = openai_responses.from_response(response)
    text, call = reply.message.content
    assert text.text == "Looking it up."
    assert (call.input, call.metadata["openai/invalid_arguments"]) == (arguments, True)
    assert reply.stop_reason == "tool_use"


@pytest.mark.parametrize("arguments", UNHOLDABLE)
def test_unholdable_arguments_go_back_to_openai_verbatim(arguments):
    """A kept raw argument text is written back to Chat and Responses byte for byte."""
    chat = openai_chat.from_response(_completion(arguments)).message
    sent = openai_chat.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="Hi"), chat]))
    assert sent.payload["messages"][1]["tool_calls"][0]["function"]["arguments"] == arguments
    responses = openai_responses.from_response(_response(arguments)).message
    sent = openai_responses.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="Hi"), responses]))
    assert sent.payload["input"][-1]["arguments"] == arguments


@pytest.mark.parametrize(
    "text",
    ['{"order": 123456789012345678901234567890}', '{"amount": 1e400}', '{"deep": ' + "[" * 150 + "]" * 150 + "}"],
)
def test_anthropic_input_a_block_cannot_hold_is_kept_as_its_json_text_flagged(text):
    """A tool_use input holding a 30-digit integer (or 1e400, or deep nesting) reads as its JSON text, flagged."""
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": json.loads(text)}
    response = anthropic_message([{"type": "text", "text": "Looking it up."}, tool_use], "tool_use")
    reply = anthropic.from_response(response)
    said, call = reply.message.content
    assert said == cb.TextBlock(text="Looking it up.")
    assert call.metadata["openai/invalid_arguments"] is True
    assert json.loads(call.input) == json.loads(text)
    assert reply.stop_reason == "tool_use"


def test_anthropic_sdk_message_with_a_huge_integer_reads():
    """An SDK Message whose tool_use input holds a 30-digit integer reads; the integer survives in the text."""
    tool_use = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "lookup",
        "input": {"order": 123456789012345678901234567890},
    }
    message = AnthropicMessage.model_validate(anthropic_message([tool_use], "tool_use"))
    (call,) = anthropic.from_response(message).message.content
    assert call.input == '{"order":123456789012345678901234567890}'


def _chat_chunks(arguments: str) -> list[dict[str, Any]]:
    """The parallel-calls fixture with the first call's arguments replaced by ``arguments``, in two pieces."""
    chunks = copy.deepcopy(load("openai_chat", "parallel_tool_calls"))
    first = [
        c
        for c in chunks
        if c["choices"]
        and (c["choices"][0]["delta"].get("tool_calls") or [{}])[0].get("index") == 0
        and "id" not in c["choices"][0]["delta"]["tool_calls"][0]
    ]
    pieces = [arguments[:9], arguments[9:]] + [""] * (len(first) - 2)
    for chunk, piece in zip(first, pieces, strict=True):
        chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = piece
    return chunks


@pytest.mark.parametrize("arguments", UNHOLDABLE)
def test_the_chat_stream_keeps_unholdable_arguments_as_from_response_does(arguments):
    """A Chat stream whose call streams a 30-digit integer or 1e400 folds to the raw text, flagged."""
    reply = chat_stream.fold(_chat_chunks(arguments))
    first = reply.message.content[0]
    assert (first.input, first.metadata["openai/invalid_arguments"]) == (arguments, True)
    assert reply.message.content[1].input == {"location": "Zürich, CH", "unit": "c"}


def _responses_events(arguments: str) -> list[dict[str, Any]]:
    """The parallel-calls fixture with the first call's arguments replaced by ``arguments``."""
    events = copy.deepcopy(load("openai_responses", "reasoning_parallel_calls"))
    old = '{"location":"Paris, France"}'
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta" and e["output_index"] == 1]
    for event, piece in zip(deltas, [arguments[:9], arguments[9:], ""], strict=True):
        event["delta"] = piece
    for event in events:
        for holder in (event, event.get("item") or {}):
            if holder.get("arguments") == old:
                holder["arguments"] = arguments
        for item in (event.get("response") or {}).get("output") or []:
            if item.get("arguments") == old:
                item["arguments"] = arguments
    return events


@pytest.mark.parametrize("arguments", UNHOLDABLE)
def test_the_responses_stream_keeps_unholdable_arguments_as_from_response_does(arguments):
    """A Responses stream whose call streams a 30-digit integer or 1e400 folds to the raw text, flagged."""
    events = _responses_events(arguments)
    reply = responses_stream.fold(events)
    call = next(b for b in reply.message.content if isinstance(b, cb.ToolCallBlock))
    assert (call.input, call.metadata["openai/invalid_arguments"]) == (arguments, True)


def test_an_anthropic_input_kept_as_text_goes_back_as_the_object_it_was():
    """Sent back to Anthropic, an input kept as text is parsed back into the very object Anthropic sent, no loss."""
    huge = {"n": 123456789012345678901234567890, "deep": [[[1]]], "name": "Zürich"}
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": huge}
    reply = anthropic.from_response(AnthropicMessage.model_validate(anthropic_message([tool_use], "tool_use")))
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="user", content="Hi"), reply.message]))
    assert converted.payload["messages"][1]["content"][0]["input"] == huge
    assert converted.losses == ()
    assert anthropic.from_provider(converted.payload).messages[1] == reply.message


def test_a_raw_input_that_is_not_an_object_is_still_wrapped_and_reported():
    """Flagged raw text that is no JSON object (an OpenAI model's broken arguments) is wrapped and reported."""
    call = cb.ToolCallBlock(
        tool_call_id="call_1", tool_name="lookup", input='{"n": ', metadata={"openai/invalid_arguments": True}
    )
    messages = [cb.Message(role="user", content="Hi"), cb.Message(role="assistant", content=[call])]
    converted = anthropic.to_provider(cb.Conversation(messages=messages))
    assert converted.payload["messages"][1]["content"][0]["input"] == {"value": '{"n": '}
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[1].content[0].input", "content_degraded")]


EMPTY_TEXT = {"type": "text", "text": ""}


@pytest.mark.parametrize("form", ["dict", "sdk", "dump"])
def test_an_empty_anthropic_text_block_is_left_out(form):
    """An empty text block (which the API sends before a tool_use) carries nothing and is left out."""
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}
    raw = anthropic_message([EMPTY_TEXT, tool_use, {"type": "text", "text": "", "citations": None}], "tool_use")
    sdk = AnthropicMessage.model_validate(raw)
    response = {"dict": raw, "sdk": sdk, "dump": sdk.model_dump()}[form]
    reply = anthropic.from_response(response)
    assert reply.message.content == (cb.ToolCallBlock(tool_call_id="toolu_1", tool_name="lookup", input={"q": "x"}),)


def test_a_reply_of_only_empty_text_is_the_empty_reply():
    """A reply whose only content is empty text reads as a reply with no message, like empty content."""
    reply = anthropic.from_response(AnthropicMessage.model_validate(anthropic_message([EMPTY_TEXT])))
    empty = anthropic.from_response(anthropic_message([]))
    assert (reply.message, reply.stop_reason) == (None, "end_turn")
    assert reply == empty


def test_empty_text_in_a_request_is_left_out_where_it_sits():
    """An empty text block in a system prompt, a message or a tool result is left out; the rest reads."""
    payload = {
        "system": [EMPTY_TEXT, {"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Look it up"}, EMPTY_TEXT]},
            {"role": "assistant", "content": [EMPTY_TEXT, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [EMPTY_TEXT]}]},
        ],
    }
    system, user, assistant, tool = anthropic.from_provider(payload)
    assert system.content == (cb.TextBlock(text="Be brief."),)
    assert user.content == (cb.TextBlock(text="Look it up"),)
    assert [type(b).__name__ for b in assistant.content] == ["ToolCallBlock"]
    assert tool.content[0].content == ()


def test_an_empty_text_block_streams_to_what_from_response_reads():
    """A stream whose text block stays empty before a tool_use folds to the reply from_response reads."""
    events = copy.deepcopy(load("anthropic", "thinking_tool_use"))
    events = [e for e in events if not (e["type"] == "content_block_delta" and e.get("index") == 1)]
    reply = anthropic_stream.fold(events)
    assert [type(b).__name__ for b in reply.message.content] == [
        "ReasoningBlock",
        "ToolCallBlock",
        "ToolCallBlock",
        "ToolCallBlock",
    ]


LONG_TITLE = "A report " + "on grass " * 1100 + "colour"  # over 8,192 characters, a valid title


def test_anthropic_citation_titles_longer_than_a_uri_are_kept():
    """A web search citation's title over 8,192 characters is a valid title and is kept."""
    citation = {
        "type": "web_search_result_location",
        "url": "https://example.com/grass",
        "title": LONG_TITLE,
        "encrypted_index": "Eo8B",
        "cited_text": "Grass is green.",
    }
    response = anthropic_message([{"type": "text", "text": "Grass is green.", "citations": [citation]}])
    (text,) = anthropic.from_response(AnthropicMessage.model_validate(response)).message.content
    assert text.citations[0].title == LONG_TITLE
    document = {
        "type": "char_location",
        "document_index": 0,
        "document_title": LONG_TITLE,
        "cited_text": "Grass",
        "start_char_index": 0,
        "end_char_index": 5,
    }
    (text,) = anthropic.from_response(
        anthropic_message([{"type": "text", "text": "Grass", "citations": [document]}])
    ).message.content
    assert text.citations[0].title == LONG_TITLE


def test_chat_citation_titles_longer_than_a_uri_are_kept():
    """A url_citation title over 8,192 characters is kept as the citation's title."""
    raw = _completion("{}")
    note = {
        "type": "url_citation",
        "url_citation": {"url": "https://example.com/grass", "title": LONG_TITLE, "start_index": 0, "end_index": 7},
    }
    raw["choices"][0]["message"] = {"role": "assistant", "content": "Looking", "annotations": [note]}
    (text,) = openai_chat.from_response(ChatCompletion.model_validate(raw)).message.content
    assert text.citations[0].title == LONG_TITLE


def test_responses_citation_titles_longer_than_a_uri_are_kept():
    """A Responses url_citation title over 8,192 characters is kept as the citation's title."""
    raw = _response("{}")
    raw["output"][0]["content"][0]["annotations"] = [
        {
            "type": "url_citation",
            "url": "https://example.com/grass",
            "title": LONG_TITLE,
            "start_index": 0,
            "end_index": 7,
        }
    ]
    text = openai_responses.from_response(Response.model_validate(raw)).message.content[0]
    assert text.citations[0].title == LONG_TITLE


def test_gemini_citations_keep_their_source_when_the_title_is_no_title():
    """A grounding chunk whose title no citation may hold (a lone surrogate) still cites its URI, untitled."""
    text = "Grass is green. Sky is blue."
    chunks = [
        {"web": {"uri": "https://example.com/grass", "title": "Grass \ud800"}},
        {"web": {"uri": "https://example.com/sky", "title": "  Sky  "}},
    ]
    supports = [
        {"segment": {"startIndex": 0, "endIndex": 15}, "groundingChunkIndices": [0]},
        {"segment": {"startIndex": 16, "endIndex": 28}, "groundingChunkIndices": [1]},
    ]
    response = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ],
    }
    block = gemini.from_response(response).message.content[0]  # the Google Search run follows it
    assert [(c.source.value, c.title, c.start, c.end) for c in block.citations] == [
        ("https://example.com/grass", None, 0, 15),
        ("https://example.com/sky", "Sky", 16, 28),
    ]
