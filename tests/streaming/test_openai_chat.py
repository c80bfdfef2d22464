"""Chat Completions streams: our fold equals ``from_response`` of what ``ChatCompletionStreamState`` builds."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import openai_chat as adapter
from contentblocks.streaming import ArgumentsAppended, ReplyBuilder, StreamError, ToolCallIdentified, openai_chat
from contentblocks.streaming._chat_merge import merge as _merge
from contentblocks.streaming._chat_merge import plain as _plain
from streaming.checks import assert_streams_progressively, dump_forms, fixtures, fold, load
from streaming.sdk_final import chat_final as sdk_final

sdk = pytest.importorskip("openai")
from openai._models import construct_type  # noqa: E402 - after the importorskip
from openai.lib.streaming._deltas import accumulate_delta  # noqa: E402
from openai.lib.streaming.chat import ChatCompletionStream  # noqa: E402
from openai.types.chat import ChatCompletionChunk  # noqa: E402

NAMES = fixtures("openai_chat")


def sdk_chunks(raw: list[dict[str, Any]]) -> list[Any]:
    return [ChatCompletionChunk.model_validate(copy.deepcopy(chunk)) for chunk in raw]


FORMS = dump_forms(sdk_chunks)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", NAMES)
def test_the_fold_equals_from_response_of_the_sdk_accumulated_completion(name, form):
    """Parallel tool calls, annotations as citations, refusals, arguments cut by the length limit, usage."""
    raw = load("openai_chat", name)
    expected = adapter.from_response(sdk_final(sdk_chunks(raw)))
    assert fold(openai_chat.Reader(), FORMS[form](raw)) == expected
    assert openai_chat.fold(FORMS[form](raw)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_snapshots_grow_into_the_reply(name):
    """Text, refusals and arguments show as they stream; end() only adds what the completion alone says."""
    raw = load("openai_chat", name)
    expected = adapter.from_response(sdk_final(sdk_chunks(raw)))
    assert_streams_progressively(openai_chat.Reader, raw, expected)


def test_what_the_fixtures_carry_survives():
    """Both parallel calls with their ids, the citation's span, the refusal, the kept invalid arguments, usage."""
    reply = openai_chat.fold(load("openai_chat", "parallel_tool_calls"))
    first, second = reply.message.content
    assert (first.tool_call_id, first.input) == ("call_Dn2RJJSxzDm49vlVTehseJ0k", {"location": "Paris, FR"})
    assert second.input == {"location": "Zürich, CH", "unit": "c"}
    assert (reply.stop_reason, reply.usage.cache_read_tokens, reply.usage.total_tokens) == ("tool_use", 64, 136)
    cited = openai_chat.fold(load("openai_chat", "text_annotations")).message.content[0]
    assert (cited.citations[0].source.value, cited.citations[0].end) == (
        "https://www.nobelprize.org/prizes/physics/2024/summary/", 105)
    refused = openai_chat.fold(load("openai_chat", "refusal"))
    assert refused.message.content == (cb.RefusalBlock(text="I'm sorry, I can't help with that."),)
    assert refused.stop_reason == "refusal"
    cut = openai_chat.fold(load("openai_chat", "length_cut_arguments"))
    assert cut.message.content[1].input == '{"query": "the long and winding'
    assert cut.message.content[1].metadata["openai/invalid_arguments"] is True
    assert cut.stop_reason == "max_tokens"


def test_parallel_calls_stream_into_their_own_blocks():
    """A call's id and name start its block; argument pieces go to the block of their call's index."""
    raw = load("openai_chat", "parallel_tool_calls")
    reader = openai_chat.Reader()
    events = [event for chunk in raw for event in reader.read(chunk)]
    assert [e for e in events if isinstance(e, ArgumentsAppended)] == [
        ArgumentsAppended(0, '{"lo'), ArgumentsAppended(0, 'cation": "Pa'), ArgumentsAppended(0, 'ris, FR"}'),
        ArgumentsAppended(1, '{"location"'), ArgumentsAppended(1, ': "Zürich, CH", "unit": '),
        ArgumentsAppended(1, '"c"}'),
    ]


def test_an_id_and_name_given_late_identify_the_call():
    """A call whose first delta has only arguments is identified when its id and name come."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    reader = openai_chat.Reader()
    reader.read({**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}}]})
    late = reader.read({**head, "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "call_9", "function": {"name": "f", "arguments": "}"}}]}}]})
    assert late == (ToolCallIdentified(0, "call_9", "f"), ArgumentsAppended(0, "}"))


def test_another_choice_is_read_when_asked_for():
    """With n > 1, Reader(choice=1) reads the second choice and ignores the first."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    stream = [
        {**head, "choices": [{"index": 0, "delta": {"content": "zero"}}, {"index": 1, "delta": {"content": "one"}}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"},
                             {"index": 1, "delta": {}, "finish_reason": "stop"}]},
    ]
    assert openai_chat.fold(stream, choice=1).message.content == (cb.TextBlock(text="one"),)
    assert adapter.from_response(sdk_final(sdk_chunks(stream)), choice=1) == openai_chat.fold(stream, choice=1)


def test_a_stream_without_a_finish_reason_has_no_reply():
    """end() without a finish_reason stops nothing: the snapshot shows the text, reply() raises."""
    raw = load("openai_chat", "text_annotations")[:3]
    builder = ReplyBuilder(openai_chat.PROVIDER)
    builder.feed(openai_chat.events(raw))
    assert builder.snapshot()[0].text.startswith("The 2024 Nobel Prize")
    with pytest.raises(StreamError, match="the stream ended before the reply stopped; blocks still open: 0"):
        builder.reply()


@pytest.mark.parametrize(
    ("chunk", "error"),
    [
        ({"object": "chat.completion", "choices": []}, ("$[1].object", 'not a chat completion chunk: "chat.completion"')),
        ({"choices": [{"index": 0, "delta": {"content": 5}}]}, ("$[1].choices[0].delta.content", "expected a string")),
        ({"choices": [{"index": 0, "delta": {"tool_calls": [{"function": {"arguments": "x"}}]}}]},
         ("$[1].choices[0].delta.tool_calls[0].index", "required field missing")),
        ({"choices": "all"}, ("$[1].choices", "expected an array")),
    ],
)
def test_a_malformed_chunk_is_refused_with_its_path(chunk, error):
    """A chunk of the wrong object type, or with a field of the wrong type, names the field at fault."""
    raw = load("openai_chat", "refusal")
    reader = openai_chat.Reader()
    reader.read(raw[0])
    with pytest.raises(StreamError) as info:
        reader.read({**raw[0], **chunk})
    assert info.value.errors == [error]


def test_a_delta_after_the_finish_reason_is_refused():
    """Content after the choice finished would be read by nobody: it is an error, not a silent drop."""
    raw = load("openai_chat", "refusal")
    raw.append({**raw[0], "choices": [{"index": 0, "delta": {"refusal": " Really."}}]})
    with pytest.raises(StreamError) as info:
        list(openai_chat.events(raw))
    assert info.value.errors == [("$[4].choices[0].delta", "a delta after the choice's finish_reason")]


_FILTERS = {"hate": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"}}


def _azure(head: dict[str, Any], deltas: list[dict[str, Any]], finish: str) -> list[dict[str, Any]]:
    """An Azure OpenAI stream: the prompt's filter results first, in a chunk whose ``object`` is ``""`` and which
    has no choices; ``content_filter_results`` on each choice; the asynchronous filter's results after the text
    (``object: ""`` again, a choice with no delta)."""
    empty = {"id": "", "object": "", "created": 0, "model": ""}
    choice = {"index": 0, "finish_reason": None, "logprobs": None, "content_filter_results": {}}
    return [
        {**empty, "choices": [], "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": _FILTERS}]},
        *({**head, "choices": [{**choice, "delta": delta}]} for delta in deltas),
        {**head, "choices": [{**choice, "delta": {}, "finish_reason": finish}]},
        {**empty, "choices": [{"index": 0, "finish_reason": None, "content_filter_results": _FILTERS,
                               "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 9}}]},
    ]


def _constructed(raw: list[dict[str, Any]]) -> list[Any]:
    """The chunks as the SDK's stream yields them: built without validation (``object: ""`` is no chunk type)."""
    return [construct_type(value=copy.deepcopy(chunk), type_=ChatCompletionChunk) for chunk in raw]


class _RawStream(list[Any]):
    """What ``ChatCompletionStream`` wraps: the chunks of ``create(stream=True)`` (no HTTP response here)."""

    response = None


def test_an_azure_stream_folds_as_the_sdk_s_stream_accumulates_it():
    """Azure's filter chunks (``object: ""``, no delta) add nothing: the reply is what ``chat.completions.stream()``
    gives (the SDK's stream state alone fails on a choice without a delta), with the model and id of the reply."""
    head = {"id": "chatcmpl-az", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    raw = _azure(head, [{"role": "assistant", "content": ""}, {"content": "Bonjour"}, {"content": " !"}], "stop")
    stream = ChatCompletionStream(raw_stream=_RawStream(_constructed(raw)), response_format=sdk.omit,
                                  input_tools=sdk.omit)  # type: ignore[arg-type]
    reply = openai_chat.fold(raw)
    assert reply == adapter.from_response(stream.get_final_completion())
    assert (reply.model, reply.response_id) == ("gpt-4o", "chatcmpl-az")
    assert (reply.message.text(), reply.stop_reason) == ("Bonjour !", "end_turn")
    assert openai_chat.fold(_constructed(raw)) == reply


@pytest.mark.parametrize(
    "delta",
    [
        {"content": "Bonjour"},
        {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "f", "arguments": '{"a": 1}'}}]},
        {"content": "Bonjour", "annotations": [{"type": "url_citation", "url_citation": {"url": "https://a.example/"}}]},
    ],
    ids=["text", "arguments", "annotation without indices"],
)
def test_a_chunk_whose_object_is_empty_keeps_its_delta(delta):
    """A delta in a chunk whose ``object`` is ``""`` is read, as the SDK's accumulator reads it, not skipped."""
    head = {"id": "chatcmpl-az", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
    raw = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
           {**head, "object": "", "choices": [{"index": 0, "delta": delta}]},
           {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    reply = openai_chat.fold(raw)
    assert reply == adapter.from_response(sdk_final(_constructed(raw)))
    assert reply.message is not None


_KEYS = st.sampled_from(["content", "refusal", "role", "index", "type", "id", "name", "arguments", "n"])
_LEAVES = st.none() | st.text(max_size=3) | st.integers(0, 3)
_DELTAS = st.recursive(
    st.dictionaries(_KEYS, _LEAVES, max_size=3),
    lambda inner: st.dictionaries(
        _KEYS,
        _LEAVES | inner | st.lists(st.text(max_size=2), max_size=2)
        | st.lists(st.builds(lambda d, i: {**d, "index": i}, inner, st.integers(0, 2)), max_size=2),
        max_size=3,
    ),
    max_leaves=8,
)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


@given(st.lists(_DELTAS, max_size=5))
def test_the_linear_accumulator_merges_as_the_sdk_s_accumulate_delta(deltas):
    """Strings join, numbers add, objects merge, indexed lists merge by index, a mismatched type is ignored;
    a null member is an absent one (the SDK merges ``to_dict()``, which leaves unset fields out)."""
    sdk_acc: dict[str, Any] = {}
    try:
        for delta in deltas:
            sdk_acc = accumulate_delta(sdk_acc, _without_nulls(copy.deepcopy(delta)))
    except (TypeError, RuntimeError):
        return  # a delta the SDK itself refuses (a list entry without an index)
    ours: dict[str, Any] = {}
    for delta in deltas:
        _merge(ours, copy.deepcopy(delta), "$")
    assert _plain(ours) == sdk_acc


def test_parts_out_of_chat_s_order_are_refused_when_the_stream_ends():
    """A call streamed before the content would be read after it: the end refuses rather than reorder blocks."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    stream = [
        {**head, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]},
        {**head, "choices": [{"index": 0, "delta": {"content": "late words"}, "finish_reason": "tool_calls"}]},
    ]
    reader = openai_chat.Reader()
    for chunk in stream:
        reader.read(chunk)
    with pytest.raises(StreamError) as info:
        reader.end()
    assert info.value.errors == [
        ("$[2]", "block 0 streamed as tool_call but the completed part reads as a Python TextBlock object")]


_HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {**_HEAD, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def _error(stream: list[Any]) -> tuple[str, str]:
    with pytest.raises(StreamError) as info:
        openai_chat.fold(stream)
    return info.value.errors[0]


def test_a_negative_choice_index_is_refused_at_its_path():
    """Choice index -1 is no position (the SDK's accumulator takes it for the last choice): refused at the event."""
    stream = [{**_HEAD, "choices": [{"index": -1, "delta": {"content": "x"}}]}, _chunk({}, "stop")]
    assert _error(stream) == ("$[0].choices[0].index", f"must be from 0 to {sys.maxsize}")


def test_a_documented_count_that_is_a_bool_is_refused_streamed_or_not():
    """``audio_tokens: true`` is no count: refused at its path by the stream and by from_response alike."""
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4,
             "completion_tokens_details": {"audio_tokens": True}}
    stream = [_chunk({"content": "Hi"}), _chunk({}, "stop"), {**_HEAD, "choices": [], "usage": usage}]
    assert _error(stream) == ("$[2].usage.completion_tokens_details.audio_tokens", "expected an integer")
    completion = {**_HEAD, "object": "chat.completion", "usage": usage,
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]}
    with pytest.raises(cb.ValidationError) as info:
        adapter.from_response(completion)
    assert info.value.errors == [("$.usage.completion_tokens_details.audio_tokens", "expected an integer")]
    chunks = _constructed(stream)  # the SDK reads true as 1: its chunk folds, as from_response reads its completion
    assert openai_chat.fold(chunks) == adapter.from_response(sdk_final(chunks))


def _cited(start: Any) -> list[dict[str, Any]]:
    note = {"type": "url_citation", "url_citation": {"url": "https://a.example/", "title": "A", "start_index": start,
                                                     "end_index": 2}}
    return [_chunk({"content": "Hi"}), _chunk({"annotations": [note]}), _chunk({}, "stop")]


def test_a_span_index_without_a_fraction_is_the_integer_it_equals():
    """``start_index: -0.0`` is 0, as the SDK reads it: the dict and the SDK chunk fold to the same citation."""
    reply = openai_chat.fold(_cited(-0.0))
    assert (reply.message.content[0].citations[0].start, reply.message.content[0].citations[0].end) == (0, 2)
    assert reply == adapter.from_response(sdk_final(_constructed(_cited(-0.0)))) == openai_chat.fold(_cited(0))


def test_a_span_index_that_is_a_bool_is_refused_streamed_or_not():
    """``start_index: false`` is no index (the SDK would read 0): refused by the stream and by from_response."""
    assert "start_index: expected an integer, not a bool or a string" in _error(_cited(False))[1]
    message = {"role": "assistant", "content": "Hi", "annotations": _cited(False)[1]["choices"][0]["delta"]["annotations"]}
    with pytest.raises(cb.ValidationError) as info:
        adapter.from_response({**_HEAD, "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "finish_reason": "stop"}]})
    assert info.value.errors[0][0] == "$.choices[0].message.annotations[0].url_citation.start_index"


def test_an_annotation_kept_verbatim_reads_alike_as_a_dict_or_an_sdk_chunk():
    """An annotation of no known type loses its nulls, so the SDK's dump of it (``type: None``) reads the same."""
    note = {"url_citation": {"url": "https://a.example/", "title": "A", "start_index": 0, "end_index": 2}}
    stream = [_chunk({"content": "Hi"}), _chunk({"annotations": [note]}), _chunk({}, "stop")]
    reply = openai_chat.fold(stream)
    assert reply.message.content[0].metadata["openai/other_annotations"] == [note]
    assert reply == adapter.from_response(sdk_final(_constructed(stream)))


def test_a_value_nested_too_deep_beside_the_delta_is_refused_at_its_path():
    """A chunk field nested past the limit (the SDK cannot dump it) is refused where it is, not only in deltas."""
    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    assert _error([_chunk({"content": "Hi"}, system_fingerprint=deep), _chunk({}, "stop")]) == (
        "$[0].system_fingerprint", "nested deeper than 101 containers")


def test_an_sdk_chunk_holding_a_number_that_is_not_finite_is_refused():
    """An SDK chunk whose refusal is ``inf`` (its JSON dump says null) is refused, not read as an absent field."""
    chunks = _constructed([_chunk({"refusal": ""}), _chunk({"refusal": "No."}), _chunk({}, "stop")])
    chunks[0].choices[0].delta.refusal = float("inf")
    with pytest.raises(StreamError) as info:
        openai_chat.fold(chunks)
    assert info.value.errors == [("$[0].choices[0].delta", "not a JSON value: a float")]


def test_a_choice_given_twice_in_one_chunk_is_refused():
    """Two deltas for one choice in a chunk (the SDK keeps one in a first chunk, merges both later) are refused."""
    twice = {**_HEAD, "choices": [{"index": 0, "delta": {"content": "a"}}, {"index": 0, "delta": {"content": "b"}}]}
    assert _error([twice, _chunk({}, "stop")]) == ("$[0].choices[1].index", "choice 0 is given twice in the chunk")
