"""Responses streams: our fold equals ``from_response`` of what the SDK's ``ResponseStreamState`` completes."""

from __future__ import annotations

import copy
import typing
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import openai_responses as adapter
from contentblocks.streaming import CitationAdded, ReasoningAppended, ReplyBuilder, StreamError, openai_responses
from streaming.checks import assert_streams_progressively, dump_forms, fixtures, fold, load
from streaming.sdk_final import responses_final as sdk_final

sdk = pytest.importorskip("openai")
from openai.types.responses import ResponseStreamEvent  # noqa: E402

NAMES = fixtures("openai_responses")
_CLASSES = {cls.model_fields["type"].annotation.__args__[0]: cls
            for cls in typing.get_args(typing.get_args(ResponseStreamEvent)[0])}


def sdk_events(raw: list[dict[str, Any]]) -> list[Any]:
    return [_CLASSES[event["type"]].model_validate(copy.deepcopy(event)) for event in raw]


FORMS = dump_forms(sdk_events)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", NAMES)
def test_the_fold_equals_from_response_of_the_sdk_completed_response(name, form):
    """Reasoning summaries and encrypted reasoning, parallel calls, web search, citations, refusals, usage."""
    raw = load("openai_responses", name)
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert fold(openai_responses.Reader(), FORMS[form](raw)) == expected
    assert openai_responses.fold(FORMS[form](raw)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_snapshots_grow_into_the_reply(name):
    """Summaries, text, refusals and arguments show as they stream; each item's blocks end at its done."""
    raw = load("openai_responses", name)
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert_streams_progressively(openai_responses.Reader, raw, expected)


def test_what_the_fixtures_carry_survives():
    """Each summary part is a reasoning block, the first signed with the encrypted content; calls; citations."""
    reply = openai_responses.fold(load("openai_responses", "reasoning_parallel_calls"))
    first, second, paris, bogota = reply.message.content
    assert first.signature.startswith("gAAAAAB")
    assert (first.text.startswith("**Planning"), second.signature) == (True, None)
    assert (paris.input, bogota.input) == ({"location": "Paris, France"}, {"location": "Bogotá, Colombia", "unit": "c"})
    assert (reply.stop_reason, reply.usage.reasoning_tokens, reply.usage.cache_read_tokens) == ("tool_use", 320, 256)
    search, searched, text = openai_responses.fold(load("openai_responses", "web_search_citations")).message.content
    assert (type(search), type(searched)) == (cb.ServerToolCallBlock, cb.ServerToolResultBlock)
    assert [c.source.value for c in text.citations] == ["https://apnews.com/article/kenya-solar-farm",
                                                        "https://www.reuters.com/science/reefs-rebound/"]
    cut = openai_responses.fold(load("openai_responses", "incomplete_encrypted_reasoning"))
    assert (cut.stop_reason, cut.provider_stop_reason) == ("max_tokens", "max_output_tokens")
    assert cut.message.content[0].signature.startswith("gAAAAAB")


def test_summary_deltas_and_annotations_stream_at_once():
    """A summary delta is a ReasoningAppended; an annotation that fits the text so far is a citation at once."""
    raw = load("openai_responses", "reasoning_parallel_calls")
    reader = openai_responses.Reader()
    emitted = [event for e in raw[:6] for event in reader.read(e)]
    assert isinstance(emitted[-1], ReasoningAppended)
    assert emitted[-1].text == raw[5]["delta"]
    raw = load("openai_responses", "web_search_citations")
    reader = openai_responses.Reader()
    out = [(k, event) for k, e in enumerate(raw) for event in reader.read(e) if isinstance(event, CitationAdded)]
    annotation_events = [k for k, e in enumerate(raw) if e["type"] == "response.output_text.annotation.added"]
    assert [k for k, _ in out] == annotation_events


def test_an_annotation_that_gives_no_citation_defers_the_rest_to_the_completed_item():
    """A file_path annotation (no citation) stops early citations; the completed item still gives the others."""
    raw = load("openai_responses", "web_search_citations")
    position = next(k for k, e in enumerate(raw) if e["type"] == "response.output_text.annotation.added")
    note = {"type": "file_path", "file_id": "file-1", "index": 0}
    raw.insert(position, {**raw[position], "annotation": note})
    for event in raw:  # the completed part, item and response carry the annotation too, first
        if event["type"] == "response.content_part.done":
            event["part"]["annotations"].insert(0, note)
        elif event["type"] == "response.output_item.done" and event["item"]["type"] == "message":
            event["item"]["content"][0]["annotations"].insert(0, note)
        elif event["type"] == "response.completed":
            event["response"]["output"][1]["content"][0]["annotations"].insert(0, note)
    reader = openai_responses.Reader()
    events = [event for e in raw[:-2] for event in reader.read(e)]
    assert not any(isinstance(e, CitationAdded) for e in events)
    assert openai_responses.fold(raw) == adapter.from_response(sdk_final(sdk_events(raw)))


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda s: s.pop(0), ("$[0]", '"response.in_progress" before response.created')),
        (lambda s: s.__setitem__(4, {**s[4], "output_index": 7}), ("$[4].output_index", "output item 7 was never added")),
        (lambda s: s.__setitem__(4, {**s[4], "type": "response.function_call_arguments.delta"}),
         ("$[4]", "a response.function_call_arguments.delta event for a reasoning item")),
        (lambda s: s.__setitem__(4, {**s[4], "type": "response.reasoning_sparkle"}),
         ("$[4].type", 'not an event of a reasoning item: "response.reasoning_sparkle"')),
        (lambda s: s.insert(2, {"type": "response.audio.delta", "delta": "AAAA", "sequence_number": 2}),
         ("$[2].type", 'not a Responses stream event this reader reads: "response.audio.delta"')),
        (lambda s: s.insert(2, {"type": "error", "code": "server_error", "message": "The server had an error",
                                "param": None, "sequence_number": 2}),
         ("$[2]", 'the stream reports an error: "server_error": "The server had an error"')),
        (lambda s: s.insert(16, {**s[15]}), ("$[16].output_index", "output item 0 is already done")),
        (lambda s: s.__setitem__(15, {**s[15], "item": {**s[15]["item"], "summary": [s[15]["item"]["summary"][1]]}}),
         ("$[15]", "the completed item reads into 1 blocks, but 2 streamed")),
        (lambda s: s.__setitem__(15, {**s[15], "item": {**s[15]["item"], "summary": s[15]["item"]["summary"][::-1]}}),
         ("$[15]", "the completed part's text is not the text block 0 streamed")),
        (lambda s: s.__setitem__(21, {**s[21], "item": {**s[21]["item"], "call_id": "call_other"}}),
         ("$[21]", "the completed part's tool call id is not what block 2 streamed")),
        (lambda s: s.__delitem__(21), ("$[27]", "the response ends while output items are not done: 1")),
        (lambda s: s.__setitem__(21, {**s[21], "item": {**s[21]["item"], "arguments": 5}}),
         ("$[21].item.arguments", "expected a string")),
    ],
)
def test_a_bad_stream_is_refused_at_the_event_at_fault(mutate, error):
    """Order, unknown items and events, error events, items done twice or read otherwise than they streamed."""
    raw = load("openai_responses", "reasoning_parallel_calls")
    mutate(raw)
    with pytest.raises(StreamError) as info:
        list(openai_responses.events(raw))
    assert info.value.errors == [error]


def test_progress_events_of_an_item_read_whole_are_passed_over():
    """A web search's in_progress/searching/completed events emit nothing; its done item is a call and a result."""
    raw = load("openai_responses", "web_search_citations")
    reader = openai_responses.Reader()
    assert [reader.read(e) for e in raw[:5]][2:] == [(), (), ()]
    emitted = reader.read(raw[5])
    assert [type(e).__name__ for e in emitted] == ["ServerToolAdded", "ServerToolAdded"]


def test_a_stream_cut_before_completion_keeps_what_streamed():
    """Without response.completed the snapshot holds the items so far and reply() raises."""
    raw = load("openai_responses", "reasoning_parallel_calls")[:-1]
    builder = ReplyBuilder(openai_responses.PROVIDER)
    builder.feed(openai_responses.events(raw))
    assert len(builder.snapshot()) == 4
    with pytest.raises(StreamError, match="the stream ended before the reply stopped"):
        builder.reply()


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda s: s.append(s[1]), ("$[29]", "the response has already completed")),
        (lambda s: s.insert(1, s[0]), ("$[1]", "a second response.created")),
        (lambda s: s[0]["response"].__setitem__("output", [s[15]["item"]]),
         ("$[0].response.output", "a response.created with output (output arrives in items)")),
        (lambda s: s.insert(3, s[2]), ("$[3].output_index", "output item 0 was already added")),
        (lambda s: s.__setitem__(4, {**s[4], "type": "response.output_text.delta", "content_index": 0}),
         ("$[4]", "a response.output_text.delta event for a reasoning item")),
        (lambda s: s.__setitem__(15, {**s[15], "item": {**s[21]["item"]}}),
         ("$[15].item.type", "output item 0 was added as a reasoning")),
    ],
)
def test_a_malformed_response_frame_is_refused(mutate, error):
    """Events after completion, a second creation, output in the creation, items added twice or done otherwise."""
    raw = load("openai_responses", "reasoning_parallel_calls")
    mutate(raw)
    with pytest.raises(StreamError) as info:
        list(openai_responses.events(raw))
    assert info.value.errors == [error]


def test_a_terminal_response_without_output_takes_the_items_as_they_were_done():
    """As the SDK's stream state recovers them, a completed response with no output holds the done items."""
    raw = load("openai_responses", "reasoning_parallel_calls")
    whole = openai_responses.fold(raw)
    del raw[-1]["response"]["output"]
    assert openai_responses.fold(raw) == whole


def _reasoning_stream(summary_setting: str | None) -> list[dict[str, Any]]:
    """A reasoning item whose reasoning text streams before its summary (the summary is written after it)."""
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-oss-120b", "status": "in_progress",
                "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                "reasoning": {"effort": "high", "summary": summary_setting}}
    item = {"type": "reasoning", "id": "rs_1", "summary": [], "content": []}
    done = {**item, "summary": [{"type": "summary_text", "text": "Weighed it."}],
            "content": [{"type": "reasoning_text", "text": "Think, then weigh."}]}
    at = {"item_id": "rs_1", "output_index": 0}
    raw = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.reasoning_text.delta", **at, "content_index": 0, "delta": "Think, "},
        {"type": "response.reasoning_text.delta", **at, "content_index": 0, "delta": "then weigh."},
        {"type": "response.reasoning_summary_text.delta", **at, "summary_index": 0, "delta": "Weighed it."},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [done]}},
    ]
    return [{**event, "sequence_number": n} for n, event in enumerate(raw)]


@pytest.mark.parametrize("form", FORMS)
def test_reasoning_text_before_its_summary_folds_as_the_sdk_folds_it(form):
    """The adapter numbers summaries before reasoning text; a stream that sends the text first reads the same."""
    raw = _reasoning_stream("auto")
    expected = adapter.from_response(sdk_final(sdk_events(raw)))
    assert [block.text for block in expected.message.content] == ["Weighed it.", "Think, then weigh."]
    assert openai_responses.fold(FORMS[form](raw)) == expected
    assert_streams_progressively(openai_responses.Reader, raw, expected)


def test_reasoning_text_streams_at_once_when_no_summary_was_asked_for():
    """With no summary requested nothing can come before the reasoning text, so it shows as it streams."""
    raw = _reasoning_stream(None)
    done = copy.deepcopy(raw[5]["item"])
    done["summary"] = []
    stream = [*raw[:4], {**raw[5], "item": done}, {**raw[6], "response": {**raw[6]["response"], "output": [done]}}]
    reader, builder = openai_responses.Reader(), ReplyBuilder(openai_responses.PROVIDER)
    for event in stream[:3]:
        builder.feed(reader.read(event))
    assert builder.snapshot()[0].text == "Think, "
    for event in stream[3:]:
        builder.feed(reader.read(event))
    assert builder.reply() == adapter.from_response(sdk_final(sdk_events(stream)))
