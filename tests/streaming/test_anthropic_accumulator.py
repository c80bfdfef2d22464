"""Anthropic streams at the edges: the fold follows the SDK's ``accumulate_event`` where odd events meet it.

Each test builds the events as the SDK does (``construct_type``, what its stream decoder runs, or the SDK's own
client over a mock transport), and compares the fold with ``from_response`` of the message the SDK accumulates.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import anthropic as adapter
from contentblocks.streaming import BlockEnded, StreamError, anthropic
from streaming.checks import load
from streaming.sdk_final import anthropic_final

sdk = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx2")
from anthropic._models import construct_type  # noqa: E402 - after the importorskip

# The SDK objects built here hold junk on purpose; pydantic warns when it dumps them.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

START = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                              "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
                                              "usage": {"input_tokens": 9, "output_tokens": 1}}}
STOP = {"type": "message_stop"}


def constructed(raw: list[dict[str, Any]]) -> list[Any]:
    """The events as the SDK's stream decoder builds them: unvalidated, so a field may be missing or junk."""
    return [construct_type(value=copy.deepcopy(e), type_=sdk.types.RawMessageStreamEvent) for e in raw]


def accumulated(raw: list[dict[str, Any]]) -> Any:
    """The message the SDK's own accumulator builds from the events."""
    return anthropic_final(constructed(raw))


def forms(raw: list[dict[str, Any]]) -> list[Any]:
    """The events as the SDK's objects and as the JSON the server sent."""
    return [constructed(raw), copy.deepcopy(raw)]


def block(index: int, content_block: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    """One content block's start, deltas and stop."""
    return [{"type": "content_block_start", "index": index, "content_block": content_block},
            *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
            {"type": "content_block_stop", "index": index}]


def json_delta(text: str) -> dict[str, Any]:
    return {"type": "input_json_delta", "partial_json": text}


def ending(usage: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage}, STOP]


# ---------------------------------------------------------------------------- input_json_delta (item 1)


def test_input_json_delta_for_a_block_the_sdk_keeps_no_input_of_is_refused():
    """An input_json_delta for a block that is no tool use (a junk "refusal" type) is refused at that delta."""
    raw = [START, *block(0, {"type": "refusal", "input": {}}, json_delta('{"q": "x"}')), *ending({"output_tokens": 2})]
    assert accumulated(raw).content[0].input == {}  # the SDK drops the delta: the fold cannot take it
    for events in forms(raw):
        with pytest.raises(StreamError) as info:
            anthropic.fold(events)
        assert info.value.errors == [("$[2].delta", 'a input_json_delta for content block 0, a "refusal" block')]


@pytest.mark.parametrize("kind", ["tool_use", "server_tool_use"])
def test_a_tool_use_start_without_input_takes_its_streamed_input(kind):
    """A tool use that starts without ``input`` gets it from its deltas, as the SDK's accumulator gives it."""
    raw = [START, *block(0, {"type": kind, "id": "toolu_1", "name": "get_time"}, json_delta('{"zone": "UTC"}')),
           *ending({"output_tokens": 2})]
    expected = adapter.from_response(accumulated(raw))
    for events in forms(raw):
        assert anthropic.fold(events) == expected


# ---------------------------------------------------------------------------- message_delta usage (item 2)


@pytest.mark.parametrize(
    "usage",
    [
        {},  # no output_tokens: the SDK sets it to None
        {"output_tokens": None},
        {"output_tokens": 5, "input_tokens": None, "cache_read_input_tokens": 3},
        {"output_tokens": 5, "type": "text", "service_tier": "priority"},  # not counts a message_delta carries
    ],
)
def test_message_delta_usage_replaces_counts_as_the_sdk_accumulator_does(usage):
    """output_tokens is replaced (by nothing when absent), other counts when given, unknown keys are not read."""
    raw = [START, *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Hi"}), *ending(usage)]
    expected = adapter.from_response(accumulated(raw))
    for events in forms(raw):
        assert anthropic.fold(events).usage == expected.usage


def test_a_documented_count_that_is_a_bool_is_refused_streamed_or_not():
    """A bool where the usage documents a count is refused, streamed or not; an SDK object holds it as 0 already."""
    raw = [START, *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Hi"}),
           *ending({"output_tokens": 5, "server_tool_use": {"web_fetch_requests": False}})]
    with pytest.raises(StreamError) as info:
        anthropic.fold(copy.deepcopy(raw))
    assert info.value.errors[0][0] == "$[4]"
    assert anthropic.fold(constructed(raw)).usage == adapter.from_response(accumulated(raw)).usage  # SDK: False is 0
    message = {**START["message"], "content": [{"type": "text", "text": "Hi"}],
               "usage": {"output_tokens": 5, "server_tool_use": {"web_fetch_requests": False}}}
    with pytest.raises(cb.ValidationError) as caught:
        adapter.from_response(message)
    assert caught.value.errors[0][0] == "$.usage.server_tool_use.web_fetch_requests"


# ---------------------------------------------------------------------------- block starts (item 3)


@pytest.mark.parametrize(
    ("content_block", "problem"),
    [
        ({"type": "thinking", "signature": "EqQB"}, ("$[1].content_block.thinking", "required field missing")),
        ({"type": "thinking", "thinking": [], "signature": "EqQB"}, ("$[1].content_block.thinking", "expected a string")),
        ({"type": "text"}, ("$[1].content_block.text", "required field missing")),
    ],
)
def test_a_block_start_without_the_text_its_deltas_extend_is_refused_at_its_start(content_block, problem):
    """A text or thinking start lacking its string is refused there: the SDK's message then does not read either."""
    raw = [START, *block(0, content_block), *ending({"output_tokens": 2})]
    with pytest.raises(cb.ValidationError):
        adapter.from_response(accumulated(raw))
    for events in forms(raw):
        with pytest.raises(StreamError) as info:
            anthropic.fold(events)
        assert info.value.errors == [problem]


# ---------------------------------------------------------------------------- inputs no block holds (item 4)

UNHOLDABLE = {
    "a 30-digit integer": ('{"order": 1234567890', '12345678901234567890, "n": 1}'),
    "1e400": ('{"amount": 1e4', "00}"),
    "nesting past the depth limit": ('{"a": ' * 150 + "1", "}" * 150),
}


def sse(events: list[dict[str, Any]]) -> bytes:
    """The server-sent events the API sends for ``events``."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Order?"}]}


def client(events: list[dict[str, Any]]) -> Any:
    """The SDK's client, over a transport that answers every request with ``events`` streamed."""
    def respond(_request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse(events))

    return sdk.Anthropic(api_key="test", http_client=httpx.Client(transport=httpx.MockTransport(respond)))


def sdk_stream(events: list[dict[str, Any]]) -> tuple[list[Any], Any]:
    """The events ``create(stream=True)`` yields for the API's ``events``, and the message ``stream()`` builds."""
    yielded = list(client(events).messages.create(stream=True, **REQUEST))
    with client(events).messages.stream(**REQUEST) as stream:
        final = stream.get_final_message()
    return yielded, final


@pytest.mark.parametrize("pieces", UNHOLDABLE.values(), ids=UNHOLDABLE)
def test_a_streamed_tool_input_no_block_can_hold_folds_as_from_response_reads_it(pieces):
    """The input is kept as compact JSON text flagged openai/invalid_arguments, as from_response keeps it."""
    raw = [START, *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Ordering."}),
           *block(1, {"type": "tool_use", "id": "toolu_1", "name": "order", "input": {}}, *map(json_delta, pieces)),
           {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}, STOP]
    yielded, final = sdk_stream(raw)
    expected = adapter.from_response(final.model_dump())  # the JSON dump of an SDK object writes inf as null
    call = expected.message.content[1]
    assert type(call.input) is str
    assert call.metadata == {"openai/invalid_arguments": True}
    for events in (yielded, copy.deepcopy(raw)):
        assert anthropic.fold(events) == expected


def test_a_tool_input_no_block_can_hold_ends_with_its_input_text():
    """The block's BlockEnded carries the input text; its arguments stream as they came."""
    raw = [START, *block(0, {"type": "tool_use", "id": "toolu_1", "name": "order", "input": {}},
                         json_delta('{"order": 123456789012345678901234567890}')), *ending({"output_tokens": 2})]
    ended = [e for e in anthropic.events(raw) if isinstance(e, BlockEnded)]
    assert ended == [BlockEnded(0, {"openai/invalid_arguments": True},
                                input_text='{"order":123456789012345678901234567890}')]


def test_the_sdk_message_stream_events_fold_as_the_raw_ones():
    """Iterating client.messages.stream() also yields derived events (text, input_json...): they add nothing."""
    raw = load("anthropic", "thinking_tool_use")
    raw = [e for e in raw if e["type"] != "ping"]
    yielded, final = sdk_stream(raw)
    with client(raw).messages.stream(**REQUEST) as stream:
        client_events = list(stream)
    assert {e.type for e in client_events} > {e.type for e in yielded}
    assert anthropic.fold(client_events) == anthropic.fold(yielded) == adapter.from_response(final)

