"""Anthropic message streams: our fold equals ``from_response`` of what the SDK's ``accumulate_event`` builds."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import ISSUER_KEY
from contentblocks.providers import anthropic as adapter
from contentblocks.streaming import (
    BlockStarted,
    ReasoningAppended,
    ReplyBuilder,
    SignatureSet,
    StreamError,
    TextAppended,
    anthropic,
)
from streaming.checks import assert_streams_progressively, dump_forms, fixtures, fold, load
from streaming.sdk_final import anthropic_final as sdk_final

sdk = pytest.importorskip("anthropic")
pydantic = pytest.importorskip("pydantic")

EVENT = pydantic.TypeAdapter(sdk.types.RawMessageStreamEvent)
NAMES = fixtures("anthropic")


def sdk_events(raw: list[dict[str, Any]]) -> list[Any]:
    """The SDK's event objects (the SDK's stream drops the ``ping`` keep-alives before they become objects)."""
    return [EVENT.validate_python(copy.deepcopy(event)) for event in raw if event["type"] != "ping"]


FORMS = dump_forms(sdk_events)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", NAMES)
def test_the_fold_equals_from_response_of_the_sdk_accumulated_message(name, form):
    """Thinking, signatures, text, citations, parallel tool calls, server tools, redacted thinking and usage."""
    raw = load("anthropic", name)
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert fold(anthropic.Reader(), FORMS[form](raw)) == expected
    assert anthropic.fold(FORMS[form](raw)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_snapshots_grow_into_the_reply(name):
    """Each delta shows at once; a block is final at its content_block_stop."""
    raw = load("anthropic", name)
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert_streams_progressively(anthropic.Reader, raw, expected)


def test_what_the_fixtures_carry_survives():
    """Signatures, both tool calls (one without arguments), citations, the server tool and usage are there."""
    reply = anthropic.fold(load("anthropic", "thinking_tool_use"))
    thinking, _, weather, time, location = reply.message.content
    assert thinking.signature.startswith("EqQB")
    assert thinking.metadata[ISSUER_KEY] == "anthropic"
    assert weather.input == {"city": "Paris", "unit": "celsius", "days": [1, 2.0]}
    assert type(weather.input["days"][1]) is float
    assert (time.input, location.input) == ({"zone": "Europe/Paris"}, {})
    assert (reply.stop_reason, reply.usage.input_tokens, reply.usage.cache_read_tokens) == ("tool_use", 472, 128)
    cited = anthropic.fold(load("anthropic", "citations_web_search")).message.content
    assert isinstance(cited[1], cb.ServerToolCallBlock)
    assert cited[1].input == {"query": "capital of France population"}
    assert (type(cited[2]), cited[2].tool_call_id, cited[2].tool_name) == (
        cb.ServerToolResultBlock, cited[1].tool_call_id, "web_search"
    )
    assert [c.source for c in cited[4].citations] == [cb.CitedReference(value="document:0"),
                                                      cb.CitedReference(value="document:1")]


def test_the_reader_emits_deltas_as_they_come():
    """A thinking delta is a ReasoningAppended, a signature_delta a SignatureSet, a text delta a TextAppended."""
    raw = load("anthropic", "thinking_tool_use")
    reader = anthropic.Reader()
    for event in raw[:3]:
        reader.read(event)
    assert reader.read(raw[3]) == (ReasoningAppended(0, "The user wants the weather in Paris. "),)
    reader.read(raw[4])
    assert reader.read(raw[5]) == (SignatureSet(0, raw[5]["delta"]["signature"]),)
    for event in raw[6:8]:
        reader.read(event)
    assert reader.read(raw[8]) == (BlockStarted(1, "text"), TextAppended(1, "Let me check "))  # started by its text


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda s: s.insert(1, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}),
         ("$[1].index", "content block 0 was never started")),
        (lambda s: s.pop(0), ("$[0]", "content_block_start before message_start")),
        (lambda s: s.insert(7, {"type": "content_block_stop", "index": 0}), ("$[7].index", "content block 0 has already stopped")),
        (lambda s: s.__setitem__(3, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}),
         ("$[3].delta", 'a text_delta for content block 0, a "thinking" block')),
        (lambda s: s.__setitem__(3, {"type": "content_block_delta", "index": 0, "delta": {"type": "sparkle_delta"}}),
         ("$[3].delta.type", 'not a content block delta: "sparkle_delta"')),
        (lambda s: s.__setitem__(2, {"type": "message_sparkle"}), ("$[2].type", 'not a message stream event: "message_sparkle"')),
        (lambda s: s.__setitem__(15, {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"days": [1, 2.0]'}}),
         ("$[11].content_block", "the block's input_json_delta text never parses as JSON")),
        (lambda s: s.insert(9, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
         ("$[9]", 'the stream reports an error: "overloaded_error": "Overloaded"')),
        (lambda s: s.insert(3, {"type": "content_block_start", "index": 4, "content_block": {"type": "text", "text": ""}}),
         ("$[3].index", "content block 4 starts, but block 1 is next")),
        (lambda s: s.append({"type": "message_delta", "delta": {}, "usage": {}}), ("$[25]", "the message has already stopped")),
    ],
)
def test_a_bad_stream_is_refused_at_the_event_at_fault(mutate, error):
    """Out of order, never started, stopped twice, the wrong delta, unknown events, bad JSON, an error event."""
    raw = load("anthropic", "thinking_tool_use")
    mutate(raw)
    reader = anthropic.Reader()
    with pytest.raises(StreamError) as info:
        list(reader.events(raw))
    assert info.value.errors == [error]


def test_after_an_error_the_builder_keeps_its_snapshot_and_the_reader_stops():
    """The events of the failed read are not returned; the reader then refuses to go on."""
    raw = load("anthropic", "thinking_tool_use")
    reader = anthropic.Reader()
    builder = ReplyBuilder("anthropic")
    for event in raw[:10]:
        builder.feed(reader.read(event))
    before = builder.snapshot()
    with pytest.raises(StreamError):
        reader.read({"type": "content_block_delta", "index": 1, "delta": {"type": "thinking_delta", "thinking": "x"}})
    assert builder.snapshot() == before
    with pytest.raises(StreamError, match=r"\$\[11\]: the reader stopped at the error at \$\[10\]"):
        reader.read(raw[10])


def test_a_stream_cut_before_message_stop_gives_snapshots_and_no_reply():
    """Without message_stop the builder has every block so far but no reply."""
    raw = load("anthropic", "thinking_tool_use")[:-1]
    builder = ReplyBuilder("anthropic")
    builder.feed(anthropic.events(raw))
    assert len(builder.snapshot()) == 5
    with pytest.raises(StreamError, match="the stream ended before the reply stopped"):
        builder.reply()


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda s: s.insert(1, s[0]), ("$[1]", "a second message_start")),
        (lambda s: s[0]["message"].__setitem__("content", [{"type": "text", "text": "early"}]),
         ("$[0].message.content", "a message_start with content (content arrives in blocks)")),
        (lambda s: s.insert(24, {"type": "content_block_start", "index": 5, "content_block": {"type": "text", "text": "x"}}),
         ("$[25]", "message_stop while content blocks are open: 5")),
    ],
)
def test_a_malformed_message_frame_is_refused(mutate, error):
    """A second message_start, content in message_start, a message that stops with a block open."""
    raw = load("anthropic", "thinking_tool_use")
    mutate(raw)
    with pytest.raises(StreamError) as info:
        list(anthropic.events(raw))
    assert info.value.errors == [error]


def test_a_block_kept_whole_must_stop_before_the_next_starts():
    """A server tool block is emitted at its stop: a block starting before that would take its place."""
    raw = load("anthropic", "citations_web_search")
    raw.insert(7, {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}})
    with pytest.raises(StreamError) as info:
        list(anthropic.events(raw))
    assert info.value.errors == [("$[7]", "a content block starts before the block kept whole has stopped")]


def test_citations_in_a_block_start_are_citations_at_once():
    """A text block that starts with citations streams them before any delta, and ends as the SDK reads it."""
    raw = load("anthropic", "citations_web_search")
    first_citation = raw[11]["delta"]["citation"]
    raw[10]["content_block"]["citations"] = [first_citation]
    del raw[11]
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert anthropic.fold(raw) == expected
    assert expected.message.content[3].citations[0].source == cb.CitedUri(value="https://en.wikipedia.org/wiki/Paris")
