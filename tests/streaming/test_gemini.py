"""Gemini streams: our fold equals ``from_response`` of the chunks' concatenation, built here with the SDK's types."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import gemini as adapter
from contentblocks.streaming import (
    BlockStarted,
    ReasoningAppended,
    ReplyBuilder,
    SignatureSet,
    StreamError,
    TextAppended,
    gemini,
)
from streaming.checks import assert_streams_progressively, dump_forms, fixtures, fold, load

genai = pytest.importorskip("google.genai")
types = genai.types

NAMES = fixtures("gemini")
_TEXT_FIELDS = {"text", "thought", "thought_signature"}


def sdk_chunks(raw: list[dict[str, Any]]) -> list[Any]:
    return [types.GenerateContentResponse.model_validate(copy.deepcopy(chunk)) for chunk in raw]


def _set(part: Any) -> set[str]:
    return set(part.model_dump(exclude_none=True))


def concatenation(chunks: list[Any]) -> Any:
    """The documented concatenation, written on the SDK's objects: parts in order, a text part continuing the
    text part before it (same ``thought``, nothing but text, no signature yet before), every other field the
    last value a chunk gave it."""
    parts: list[Any] = []
    last_candidate: dict[str, Any] = {}
    last: dict[str, Any] = {}
    for chunk in chunks:
        last.update(chunk.model_dump(exclude_none=True, exclude={"candidates", "sdk_http_response"}))
        if not chunk.candidates:
            continue
        candidate = chunk.candidates[0]
        last_candidate.update(candidate.model_dump(exclude_none=True, exclude={"content"}))
        for part in (candidate.content.parts or []) if candidate.content else []:
            previous = parts[-1] if parts else None
            if (previous is not None and previous.text is not None and part.text is not None
                    and _set(previous) <= _TEXT_FIELDS and _set(part) <= _TEXT_FIELDS
                    and previous.thought_signature is None and bool(previous.thought) == bool(part.thought)):
                parts[-1] = previous.model_copy(update={
                    "text": previous.text + part.text,
                    "thought_signature": part.thought_signature,
                })
            else:
                parts.append(part)
    candidates = None
    if parts or last_candidate:
        content = types.Content(role="model", parts=parts) if parts else None
        candidates = [types.Candidate(**last_candidate, content=content)]
    return types.GenerateContentResponse(**last, candidates=candidates)


FORMS = dump_forms(sdk_chunks, "to_json_dict")


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", NAMES)
def test_the_fold_equals_from_response_of_the_concatenated_chunks(name, form):
    """Thoughts and their signatures, parallel calls, grounding citations, inline images, cut and blocked replies."""
    raw = load("gemini", name)
    expected = adapter.from_response(concatenation(sdk_chunks(raw)))
    assert fold(gemini.Reader(), FORMS[form](raw)) == expected
    assert gemini.fold(FORMS[form](raw)) == expected


@pytest.mark.parametrize("name", NAMES)
def test_snapshots_grow_into_the_reply(name):
    """Text and thoughts show as they stream; calls and files show whole as they arrive."""
    raw = load("gemini", name)
    expected = adapter.from_response(concatenation(sdk_chunks(raw)))
    assert_streams_progressively(gemini.Reader, raw, expected)


def test_what_the_fixtures_carry_survives():
    """The thought, the first call's signature, both calls, the grounded citations and the Gemini 3 signature."""
    reply = gemini.fold(load("gemini", "thinking_parallel_calls"))
    thought, paris, london = reply.message.content
    assert thought.text.startswith("**Checking the weather**")
    assert thought.text.endswith("at once.")
    assert paris.metadata["gemini/thought_signature"]
    assert "gemini/thought_signature" not in london.metadata
    assert (paris.input["location"], london.input["location"], reply.stop_reason) == ("Paris", "London", "tool_use")
    grounded = gemini.fold(load("gemini", "grounded_text_signature"))
    text, search, results = grounded.message.content  # the Google Search run follows the text
    assert (search.tool_name, results.tool_name) == ("google_search", "google_search")
    assert text.text == "The 2024 Olympics were held in Paris, France, from 26 July to 11 August."
    # the second support names two chunks: one citation naming both sources
    assert [[s.value for s in (c.source, *c.other_sources)] for c in text.citations] == [
        ["https://olympics.com/en/paris-2024"],
        ["https://olympics.com/en/paris-2024", "https://en.wikipedia.org/wiki/2024_Summer_Olympics"]]
    assert text.metadata["gemini/thought_signature"]
    image = gemini.fold(load("gemini", "inline_image")).message.content
    assert [type(b) for b in image] == [cb.TextBlock, cb.FileBlock, cb.TextBlock]
    assert image[1].source.data.startswith(b"\x89PNG")
    blocked = gemini.fold(load("gemini", "blocked_prompt"))
    assert (blocked.message, blocked.stop_reason, blocked.provider_stop_reason) == (None, "content_filter", "SAFETY")


def test_text_parts_of_successive_chunks_stream_into_one_block():
    """Each chunk's text is a delta of the one open block; a thought chunk streams as reasoning."""
    raw = load("gemini", "inline_image")
    reader = gemini.Reader()
    assert reader.read(raw[0])[-2:] == (BlockStarted(0, "text"), TextAppended(0, "Here is a tiny "))
    assert reader.read(raw[1]) == (TextAppended(0, "red square:"),)
    thoughts = load("gemini", "thinking_parallel_calls")
    reader = gemini.Reader()
    reader.read(thoughts[0])
    assert reader.read(thoughts[1]) == (ReasoningAppended(0, thoughts[1]["candidates"][0]["content"]["parts"][0]["text"]),)


def test_a_stream_without_a_finish_reason_has_no_reply():
    """A stream cut before its finishReason keeps its snapshot; reply() raises."""
    raw = load("gemini", "max_tokens")[:1]
    builder = ReplyBuilder(gemini.PROVIDER)
    builder.feed(gemini.events(raw))
    assert builder.snapshot() == (cb.TextBlock(text="Step one: gather the "),)
    with pytest.raises(StreamError, match="the stream ended before the reply stopped"):
        builder.reply()


@pytest.mark.parametrize(
    ("chunk", "error"),
    [
        ({"candidates": [{"content": {"parts": [{"text": "a", "sparkle": True}]}}]},
         ("$[1].candidates[0].content.parts[0].sparkle", "unknown key (a Part has: text, inlineData, fileData")),
        ({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]},
         ("$[1].candidates[0].content.parts[0].functionCall",
          "streamed function call arguments (partialArgs) are not read")),
        ({"candidates": [{"content": {"parts": [{"inlineData": {"mimeType": "image/png", "data": "a b"}}]}}]},
         ("$[1].candidates[0].content.parts[0].inlineData.data", "not canonical base64")),
        ({"candidates": "many"}, ("$[1].candidates", "expected an array")),
    ],
)
def test_a_malformed_chunk_is_refused_with_its_path(chunk, error):
    """An unknown part field, streamed arguments, bad base64 or a malformed candidate list name their path."""
    raw = load("gemini", "inline_image")
    reader = gemini.Reader()
    reader.read(raw[0])
    with pytest.raises(StreamError) as info:
        reader.read(chunk)
    [(path, message)] = info.value.errors
    assert path == error[0]
    assert message.startswith(error[1])


def test_another_candidate_is_read_when_asked_for():
    """With candidateCount > 1, Reader(candidate=1) reads the second candidate of each chunk."""
    stream = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "zero"}]}},
                        {"content": {"role": "model", "parts": [{"text": "one"}]}}], "modelVersion": "gemini-2.5-flash"},
        {"candidates": [{"finishReason": "STOP"}, {"content": {"role": "model", "parts": [{"text": "!"}]},
                                                   "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash"},
    ]
    reply = gemini.fold(stream, candidate=1)
    assert reply.message.content == (cb.TextBlock(text="one!"),)
    assert reply.model == "gemini-2.5-flash"


def test_an_empty_text_part_before_a_call_is_read_whole_in_its_place():
    """A text part that stayed empty ends when a part that does not continue it arrives, before that part."""
    raw = load("gemini", "thinking_parallel_calls")
    raw.insert(2, {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}],
                   "modelVersion": "gemini-2.5-flash", "responseId": raw[0]["responseId"]})
    expected = adapter.from_response(concatenation(sdk_chunks(raw)))
    assert [type(b) for b in expected.message.content] == [cb.ReasoningBlock, cb.JsonBlock, cb.ToolCallBlock,
                                                           cb.ToolCallBlock]
    assert gemini.fold(raw) == expected
    assert_streams_progressively(gemini.Reader, raw, expected)


def test_a_thought_signed_in_its_own_chunk_is_signed_at_once():
    """A thought part carrying its signature sets the reasoning block's signature when it arrives."""
    raw = load("gemini", "thinking_parallel_calls")
    raw[1]["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "c2lnbmVk"
    reader = gemini.Reader()
    reader.read(raw[0])
    assert reader.read(raw[1])[-1] == SignatureSet(0, "c2lnbmVk")
    assert gemini.fold(raw) == adapter.from_response(concatenation(sdk_chunks(raw)))


def test_parts_that_are_not_a_list_are_refused():
    """A candidate whose parts are not an array names the field."""
    with pytest.raises(StreamError) as info:
        gemini.Reader().read({"candidates": [{"content": {"parts": {"text": "a"}}}]})
    assert info.value.errors == [("$[0].candidates[0].content.parts", "expected an array")]


def _grounded(index: Any) -> list[dict[str, Any]]:
    grounding = {"groundingChunks": [{"web": {"uri": "https://a.example/", "title": "A"}}],
                 "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 2}, "groundingChunkIndices": [index]}]}
    return [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}]},
            {"candidates": [{"groundingMetadata": grounding, "finishReason": "STOP"}]}]


def test_a_grounding_chunk_index_that_is_a_bool_is_refused_streamed_or_not():
    """``groundingChunkIndices: [true]`` is no index (google-genai reads it as 1): refused by both readers."""
    where = "$[1].candidates[0].groundingMetadata.groundingSupports[0].groundingChunkIndices[0]"
    with pytest.raises(StreamError) as info:
        gemini.fold(_grounded(True))
    assert info.value.errors == [(where, "expected an integer, not a bool or a string")]
    with pytest.raises(cb.ValidationError) as refused:
        adapter.from_response({**_grounded(True)[1], "candidates": [
            {**_grounded(True)[1]["candidates"][0], "content": _grounded(True)[0]["candidates"][0]["content"]}]})
    assert refused.value.errors == [(where.replace("$[1]", "$"), "expected an integer, not a bool or a string")]


def test_a_grounding_index_without_a_fraction_is_the_integer_it_equals():
    """``-0.0`` is chunk 0, as google-genai reads it: the dicts fold as the SDK's chunks do."""
    reply = gemini.fold(_grounded(-0.0))
    assert reply.message.content[0].citations[0].source.value == "https://a.example/"
    assert reply == adapter.from_response(concatenation(sdk_chunks(_grounded(-0.0)))) == gemini.fold(_grounded(0))
