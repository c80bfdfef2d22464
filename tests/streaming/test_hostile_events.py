"""Hostile and foreign events: every reader refuses them with a ``StreamError`` whose path is in the provider stream."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import openai_chat as chat_adapter
from contentblocks.streaming import (
    BlockEnded,
    BlockStarted,
    MessageMetadataAdded,
    ReplyBuilder,
    ReplyStopped,
    StreamError,
    TextAppended,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)
from streaming.checks import load

anthropic_sdk = pytest.importorskip("anthropic")
openai_sdk = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")
from openai.types.chat import ChatCompletionChunk  # noqa: E402 - after the importorskip

_HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**_HEAD, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _refusal(fold: Any, stream: list[Any]) -> StreamError:
    with pytest.raises(StreamError) as info:
        fold(stream)
    return info.value


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("index", [-1, 2**64])
def test_a_chat_tool_call_index_out_of_range_is_refused_at_its_path(index):
    """A negative index, or one no list can hold, is a StreamError at the call's index, not an IndexError."""
    call = {"index": index, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    stream = [ChatCompletionChunk.model_validate(_chunk({"tool_calls": [call]})), _chunk({}, "tool_calls")]
    error = _refusal(openai_chat.fold, stream)
    assert error.errors[0][0] == "$[0].choices[0].delta.tool_calls[0].index"


def test_a_chat_role_that_is_a_list_is_refused_by_the_stream_and_the_adapter():
    """A list-valued role is a ValidationError at the role, streamed or not (it was a TypeError)."""
    stream = [_chunk({"role": ["assistant"], "content": "Hi"}), _chunk({}, "stop")]
    assert _refusal(openai_chat.fold, stream).errors == [("$[0].choices[0].delta.role", "expected a string")]
    completion = {**_HEAD, "object": "chat.completion",
                  "choices": [{"index": 0, "message": {"role": ["assistant"], "content": "Hi"}, "finish_reason": "stop"}]}
    with pytest.raises(cb.ValidationError) as info:
        chat_adapter.from_response(completion)
    assert info.value.errors == [("$.choices[0].message.role", "expected assistant")]


@pytest.mark.parametrize("nested", [_nested(500), _nested(150)])
def test_a_chat_delta_nested_too_deep_is_refused_without_recursion_error(nested):
    """A delta value nested hundreds deep is refused at the delta, never by a RecursionError."""
    stream = [_chunk({"content": "Hi", "extra": nested}), _chunk({}, "stop")]
    error = _refusal(openai_chat.fold, stream)
    assert error.errors[0][0].startswith("$[0].choices[0].delta")


@pytest.mark.parametrize("junk", [5, "a string", {"type": "char_location"}])
def test_anthropic_citations_that_are_not_a_list_are_refused_at_their_path(junk):
    """A text block start whose citations are not an array is a StreamError there (it was a TypeError)."""
    raw = load("anthropic", "citations_web_search")
    k = next(i for i, e in enumerate(raw) if e["type"] == "content_block_start" and e["content_block"]["type"] == "text")
    raw[k]["content_block"]["citations"] = junk
    assert _refusal(anthropic.fold, raw).errors == [(f"$[{k}].content_block.citations", "expected an array")]


def _construct_junk() -> list[tuple[Any, Any, list[Any]]]:
    """SDK objects built with ``model_construct`` around values their dump cannot serialize."""
    t, g = anthropic_sdk.types, genai.types
    start = load("anthropic", "thinking_tool_use")[0]
    return [
        (anthropic.fold, t.RawContentBlockDeltaEvent.model_construct(type="content_block_delta", index=0,
                                                                      delta=object()), [start]),
        (anthropic.fold, t.RawContentBlockDeltaEvent.model_construct(type="content_block_delta", index=0,
                                                                      delta=b"\xff"), [start]),
        (openai_chat.fold, ChatCompletionChunk.model_construct(id="c", object="chat.completion.chunk", created=1,
                                                               model="m", choices=object()), []),
        (gemini.fold, g.GenerateContentResponse.model_construct(candidates=[object()]), []),
    ]


@pytest.mark.parametrize("case", range(4))
def test_sdk_objects_holding_junk_are_refused_at_their_position(case):
    """An SDK object built with model_construct whose dump fails is a StreamError at its event, not a pydantic error."""
    fold, junk, before = _construct_junk()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        error = _refusal(fold, [*before, junk])
    assert error.errors[0][0].split(".")[0] == f"$[{len(before)}]"  # the event, or a field of it


def test_gemini_content_that_is_not_an_object_is_refused_as_from_response_refuses_it():
    """``"content": "x"`` was skipped silently by the stream; it is refused at its path, as the adapter does."""
    stream = [{"candidates": [{"content": "x", "finishReason": "STOP"}]}]
    assert _refusal(gemini.fold, stream).errors == [("$[0].candidates[0].content", "expected an object")]


@pytest.mark.parametrize(("provider", "name", "key"), [
    ("anthropic", "thinking_tool_use", "type"),
    ("openai_chat", "parallel_tool_calls", "object"),
    ("openai_responses", "refusal", "type"),
])
def test_gemini_refuses_the_events_of_other_providers(provider, name, key):
    """Another provider's event is not read as an empty Gemini chunk: it is refused at the key that tells."""
    first = load(provider, name)[0]
    error = _refusal(gemini.fold, [first])
    assert error.errors[0][0] == f"$[0].{key}"


@pytest.mark.parametrize(("fold", "provider", "name", "where", "path"), [
    (anthropic.fold, "anthropic", "citations_web_search", ("content_block_delta", "delta", "text"), ".delta.text"),
    (openai_chat.fold, "openai_chat", "text_annotations", None, ".choices[0].delta.content"),
    (openai_responses.fold, "openai_responses", "refusal", ("response.refusal.delta", "delta"), ".delta"),
])
def test_a_lone_surrogate_in_a_delta_is_refused_at_the_provider_path(fold, provider, name, where, path):
    """The path names the delta's place in the provider stream, not the neutral event's ``$.text``."""
    raw = load(provider, name)
    if where is None:
        k = next(i for i, e in enumerate(raw) if e["choices"] and e["choices"][0]["delta"].get("content"))
        raw[k]["choices"][0]["delta"]["content"] = "\ud800"
    else:
        k = next(i for i, e in enumerate(raw) if e["type"] == where[0] and where[1] in e)
        target = raw[k]
        for key in where[1:-1]:
            target = target[key]
        target[where[-1]] = "\ud800"
    error = _refusal(fold, raw)
    assert error.errors[0] == (f"$[{k}]{path}", "contains a lone surrogate (not a Unicode character)")


def test_an_invalid_tool_call_id_is_refused_at_the_provider_s_key():
    """A tool call id with a space names the Chat call's ``id``, not the neutral ``$.tool_call_id``."""
    call = {"index": 0, "id": "call 1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    error = _refusal(openai_chat.fold, [_chunk({"tool_calls": [call]}), _chunk({}, "tool_calls")])
    assert error.errors == [("$[0].choices[0].delta.tool_calls[0].id", "contains whitespace or a control character")]


def test_an_empty_model_is_refused_at_the_provider_s_key():
    """A Gemini chunk's empty modelVersion is reported there, not at the neutral ``$.model``."""
    error = _refusal(gemini.fold, [{"modelVersion": "", "candidates": []}])
    assert error.errors == [("$[0].modelVersion", "must not be empty")]


def test_reply_never_raises_a_plain_validation_error():
    """Message metadata that merges past a limit is refused as a StreamError at the stop; reply() then says why."""
    half = 600_000
    builder = ReplyBuilder("anthropic")
    builder.feed([BlockStarted(0, "text"), TextAppended(0, "x"), BlockEnded(0),
                  MessageMetadataAdded({f"a{i}": 0 for i in range(half)}),
                  MessageMetadataAdded({f"b{i}": 0 for i in range(half)})])
    with pytest.raises(StreamError) as info:
        builder.add(ReplyStopped("end_turn", "end_turn"))
    message = "the reply's message is not valid: $.metadata: more than 1,000,000 values in one JSON value"
    assert info.value.errors == [("$[5]", message)]
    assert not builder.stopped
    with pytest.raises(StreamError):
        builder.reply()

