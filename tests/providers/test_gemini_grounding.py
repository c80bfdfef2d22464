"""Gemini's grounding (Google Search, URL context) read as tools Gemini ran, with citations from its supports.

The payloads are the documented ones:
- https://ai.google.dev/gemini-api/docs/google-search ("Understanding the grounding response": the Euro 2024
  reply, whose second segment ends past its text, as the page prints it);
- https://ai.google.dev/gemini-api/docs/url-context (``urlContextMetadata.urlMetadata`` with
  ``retrievedUrl`` and ``urlRetrievalStatus``);
- the ``Segment`` reference (https://ai.google.dev/api/generate-content#Segment): ``startIndex``/``endIndex``
  are "measured in bytes", offsets from the start of the part at ``partIndex``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import gemini as gemini_stream
from provider_checks import assert_documented, documented_reasons

EURO_TEXT = (
    "Spain won Euro 2024, defeating England 2-1 in the final. "
    "This victory marks Spain's record fourth European Championship title."
)
#: https://ai.google.dev/gemini-api/docs/google-search, "Understanding the grounding response" (as printed there).
EURO_GROUNDING: dict[str, Any] = {
    "webSearchQueries": ["UEFA Euro 2024 winner", "who won euro 2024"],
    "searchEntryPoint": {"renderedContent": "<!-- HTML and CSS for the search widget -->"},
    "groundingChunks": [
        {"web": {"uri": "https://vertexaisearch.cloud.google.com.....", "title": "aljazeera.com"}},
        {"web": {"uri": "https://vertexaisearch.cloud.google.com.....", "title": "uefa.com"}},
    ],
    "groundingSupports": [
        {"segment": {"startIndex": 0, "endIndex": 85, "text": "Spain won Euro 2024, defeatin..."},
         "groundingChunkIndices": [0]},
        {"segment": {"startIndex": 86, "endIndex": 210, "text": "This victory marks Spain's..."},
         "groundingChunkIndices": [0, 1]},
    ],
}
EURO: dict[str, Any] = {
    "candidates": [{
        "content": {"parts": [{"text": EURO_TEXT}], "role": "model"},
        "groundingMetadata": EURO_GROUNDING,
    }],
}
#: https://ai.google.dev/gemini-api/docs/url-context, the ``url_context_metadata`` the page prints.
URL_CONTEXT: dict[str, Any] = {
    "urlMetadata": [
        {"retrievedUrl": "https://www.foodnetwork.com/recipes/ina-garten/perfect-roast-chicken-recipe-1940592",
         "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"},
        {"retrievedUrl": "https://www.allrecipes.com/recipe/21151/simple-whole-roast-chicken/",
         "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"},
    ]
}


def _reply(text: str, grounding: dict[str, Any], **more: Any) -> cb.providers.Reply:
    candidate = {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                 "groundingMetadata": grounding, **more}
    return gemini.from_response({"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "r-1"})


def test_the_documented_search_reply_reads_as_a_search_gemini_ran():
    """Queries are the call's input, each chunk a text of the result, the native object kept with the issuer."""
    reply = gemini.from_response(EURO)
    text, call, result = reply.message.content
    assert text.text == EURO_TEXT
    assert (type(call), call.tool_name, call.input) == (cb.ServerToolCallBlock, "google_search",
                                                        {"queries": ["UEFA Euro 2024 winner", "who won euro 2024"]})
    assert (type(result), result.tool_call_id, result.outcome) == (cb.ServerToolResultBlock, call.tool_call_id,
                                                                   "succeeded")
    assert [t.text for t in result.content] == ["aljazeera.com\nhttps://vertexaisearch.cloud.google.com.....",
                                                "uefa.com\nhttps://vertexaisearch.cloud.google.com....."]
    assert result.metadata["gemini/grounding"] == EURO_GROUNDING
    for block in (call, result):
        assert block.metadata[cb.providers.ISSUER_KEY] == "gemini"
        assert block.metadata["gemini/generated_id"] is True


def test_a_segment_past_its_text_gives_no_citation_and_stays_in_the_native_metadata():
    """The page's second segment ends at byte 210 of a 126-byte text: no citation, nothing refused."""
    text, _, result = gemini.from_response(EURO).message.content
    assert len(EURO_TEXT.encode()) < 210
    [citation] = text.citations
    assert (citation.source.value, citation.title, citation.start, citation.end) == (
        "https://vertexaisearch.cloud.google.com.....", "aljazeera.com", 0, 85)
    assert result.metadata["gemini/grounding"]["groundingSupports"][1]["segment"]["endIndex"] == 210


def test_byte_offsets_become_code_points_and_a_segment_off_a_character_cites_nothing():
    """``startIndex``/``endIndex`` count UTF-8 bytes of the part; a span inside a character is no span."""
    text = "Zürich: 東京 ok"
    chunks = [{"web": {"uri": "https://example.com/z", "title": "z"}}]
    good = {"segment": {"startIndex": 0, "endIndex": 7}, "groundingChunkIndices": [0]}  # "Zürich"
    tokyo = {"segment": {"startIndex": 9, "endIndex": 15}, "groundingChunkIndices": [0]}  # "東京"
    inside = {"segment": {"startIndex": 10, "endIndex": 15}, "groundingChunkIndices": [0]}  # in the middle of 東
    reversed_ = {"segment": {"startIndex": 7, "endIndex": 2}, "groundingChunkIndices": [0]}
    reply = _reply(text, {"groundingChunks": chunks, "groundingSupports": [good, tokyo, inside, reversed_]})
    block = reply.message.content[0]
    assert [block.text[c.start:c.end] for c in block.citations] == ["Zürich", "東京"]
    assert len(reply.message.content[2].metadata["gemini/grounding"]["groundingSupports"]) == 4


def test_a_segment_naming_a_part_that_is_no_text_cites_nothing():
    """``partIndex`` names the thought part (or a part past the end): no citation is made on another text."""
    candidate = {"content": {"role": "model", "parts": [{"text": "thinking", "thought": True}, {"text": "Answer"}]},
                 "groundingMetadata": {
                     "groundingChunks": [{"web": {"uri": "https://example.com/a", "title": "a"}}],
                     "groundingSupports": [
                         {"segment": {"partIndex": 0, "startIndex": 0, "endIndex": 6}, "groundingChunkIndices": [0]},
                         {"segment": {"partIndex": 5, "startIndex": 0, "endIndex": 6}, "groundingChunkIndices": [0]},
                         {"segment": {"partIndex": 1, "startIndex": 0, "endIndex": 6}, "groundingChunkIndices": [0]},
                     ]}}
    thought, answer, _call, _result = gemini.from_response({"candidates": [candidate]}).message.content
    assert [(c.start, c.end) for c in answer.citations] == [(0, 6)]
    assert type(thought) is cb.ReasoningBlock


def test_a_support_of_several_chunks_is_one_citation_with_other_sources():
    chunks = [{"web": {"uri": "https://a.example/", "title": "a"}}, {"web": {"uri": "https://b.example/", "title": "b"}}]
    reply = _reply("Both.", {"groundingChunks": chunks, "groundingSupports": [
        {"segment": {"endIndex": 5}, "groundingChunkIndices": [0, 1]}]})
    [citation] = reply.message.content[0].citations
    assert (citation.source.value, [s.value for s in citation.other_sources], citation.title) == (
        "https://a.example/", ["https://b.example/"], None)


def test_retrieved_context_and_maps_chunks_read_with_their_own_tool_and_text():
    chunks = [{"retrievedContext": {"uri": "gs://bucket/doc.pdf", "title": "doc", "text": "The passage."}}]
    result = _reply("Hi", {"groundingChunks": chunks}).message.content[2]
    assert (result.tool_name, result.content[0].text) == ("retrieval", "doc\ngs://bucket/doc.pdf\n\nThe passage.")
    maps = [{"maps": {"uri": "https://maps.google.com/?cid=1", "title": "Café", "placeId": "places/1"}}]
    assert _reply("Hi", {"groundingChunks": maps}).message.content[2].tool_name == "google_maps"


def test_the_documented_url_context_reply_reads_as_a_url_context_run():
    reply = _reply("Roast at 425°F.", {}, urlContextMetadata=URL_CONTEXT)
    _text, call, result = reply.message.content
    urls = [u["retrievedUrl"] for u in URL_CONTEXT["urlMetadata"]]
    assert (call.tool_name, call.input) == ("url_context", {"urls": urls})
    assert [t.text for t in result.content] == [f"{u}\nURL_RETRIEVAL_STATUS_SUCCESS" for u in urls]
    assert result.metadata["gemini/url_context"] == URL_CONTEXT
    both = _reply("Hi", {"webSearchQueries": ["q"]}, urlContextMetadata=URL_CONTEXT).message.content
    assert [b.tool_name for b in both[1:]] == ["google_search", "google_search", "url_context", "url_context"]
    assert len({b.tool_call_id for b in both[1:]}) == 2


@pytest.mark.parametrize("grounding", [
    {"webSearchQueries": "not a list"},
    {"webSearchQueries": ["\ud800"], "groundingChunks": [{"web": {"uri": "https://x.example/", "title": "\ud800"}}]},
    {"groundingChunks": [3, None, {"web": None}, {"web": {"uri": 5}}]},
    {"searchEntryPoint": {"renderedContent": "<b>x</b>", "sdkBlob": "AAE="}, "retrievalMetadata": {"x": float("nan")}},
])
def test_odd_grounding_never_refuses_the_reply(grounding):
    """A reader never refuses a reply for its grounding: what cannot be read gives no block, or no native copy."""
    reply = _reply("Hi", grounding)
    assert reply.message.content[0].text == "Hi"


def test_same_provider_round_trip_sends_the_text_and_loses_nothing():
    """Grounding is response-only: written back to Gemini the blocks send nothing, and that is no loss."""
    reply = _reply("Hi", {**EURO_GROUNDING, "groundingSupports": []}, urlContextMetadata=URL_CONTEXT)
    history = cb.Conversation(messages=[cb.Message(role="user", content="?"), reply.message])
    converted = gemini.to_provider(history, issuer="gemini/gemini-2.5-flash", strict=LOSS_KINDS)
    assert converted.payload["contents"][1] == {"role": "model", "parts": [{"text": "Hi"}]}
    assert gemini.preflight(history) == ()


def test_a_search_not_issued_by_gemini_goes_back_as_readable_content():
    """Blocks claiming Google Search without Gemini's issuer are another provider's run: the usual degrade path."""
    text, call, result = gemini.from_response(EURO).message.content
    strip = {cb.providers.ISSUER_KEY: "anthropic"}
    forged = [cb.ServerToolCallBlock(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input,
                                     metadata=strip),
              cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                       outcome="succeeded", content=result.content, metadata=strip)]
    history = cb.Conversation(messages=[cb.Message(role="user", content="?"),
                                        cb.Message(role="assistant", content=[text, *forged])])
    converted = gemini.to_provider(history)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].content[1]", "content_dropped"), ("$[1].content[2]", "content_degraded")]
    assert [p["text"] for p in converted.payload["contents"][1]["parts"]][1:] == [t.text for t in result.content]
    assert_documented(documented_reasons("gemini.md"), converted.losses)


@pytest.mark.parametrize(("adapter", "page"), [
    (anthropic, "anthropic.md"), (openai_chat, "openai_chat.md"), (openai_responses, "openai_responses.md"),
])
def test_other_providers_get_the_sources_as_text_with_each_loss_reported(adapter, page):
    """Cross-provider cells: the call dropped, the result its texts, the native grounding not sent; all reported."""
    reply = _reply("Hi", {**EURO_GROUNDING, "groundingSupports": []})
    history = cb.Conversation(messages=[cb.Message(role="user", content="?"), reply.message])
    converted = adapter.to_provider(history)
    kinds = {(loss.path, loss.kind) for loss in converted.losses}
    assert ("$[1].content[1]", "content_dropped") in kinds
    assert ("$[1].content[2]", "content_degraded") in kinds
    assert ('$[1].content[2].metadata["gemini/grounding"]', "metadata_not_sent") in kinds
    assert_documented(documented_reasons(page), converted.losses)
    assert repr("uefa.com\nhttps://vertexaisearch.cloud.google.com.....")[1:-1] in str(converted.payload)


def test_the_stream_folds_grounding_that_arrives_in_the_last_chunk():
    """Text streams first; the search blocks come whole when the stream ends, equal to the whole reply's."""
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": EURO_TEXT[:40]}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": EURO_TEXT[40:]}]}, "finishReason": "STOP",
                         "groundingMetadata": copy.deepcopy(EURO_GROUNDING)}]},
    ]
    folded = gemini_stream.fold(chunks)
    assert folded == gemini.from_response({"candidates": [{**EURO["candidates"][0], "finishReason": "STOP"}]})
    events = list(gemini_stream.events(copy.deepcopy(chunks)))
    added = [e.block for e in events if type(e).__name__ == "ServerToolAdded"]
    assert added == list(folded.message.content[1:])
    assert [type(e).__name__ for e in events][-3:] == ["ServerToolAdded", "ServerToolAdded", "ReplyStopped"]


def test_sdk_objects_and_their_python_dumps_keep_the_same_native_grounding():
    """``model_dump()`` (snake_case, ``None`` for unset fields) keeps the REST form of the grounding."""
    types = pytest.importorskip("google.genai.types")
    response = types.GenerateContentResponse.model_validate(EURO)
    by_object = gemini.from_response(response)
    assert by_object == gemini.from_response(response.model_dump()) == gemini.from_response(EURO)
