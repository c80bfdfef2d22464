"""Citations naming several sources: the wire form, and each target's nearest form with its reported loss."""

from __future__ import annotations

import pytest

import contentblocks as cb
from contentblocks.bridges import langchain, pydantic_ai
from contentblocks.providers import anthropic, gemini, openai_responses
from provider_checks import assert_documented, documented_reasons

WEB = cb.CitedUri(value="https://a.example/1")
KB = cb.CitedReference(value="kb-7")
BOTH = cb.Citation(source=WEB, other_sources=[KB], title="Lawns", start=0, end=5)
ANSWER = cb.Conversation(messages=[cb.Message(role="assistant", content=[cb.TextBlock(text="Grass is green.",
                                                                                      citations=[BOTH])])])


def test_a_one_source_citation_is_written_as_before():
    one = cb.Citation(source=WEB)
    assert cb.unstructure(one) == {"source": {"kind": "uri", "value": "https://a.example/1"}}
    assert cb.structure({"source": {"kind": "uri", "value": "https://a.example/1"}, "other_sources": []},
                        cb.Citation) == one


def test_other_sources_follow_the_sources_rules():
    raw = cb.unstructure(BOTH)
    assert raw["other_sources"] == [{"kind": "reference", "value": "kb-7"}]
    assert list(raw) == ["source", "other_sources", "title", "start", "end"]
    assert cb.structure(raw, cb.Citation) == BOTH == cb.loads(cb.dumps(BOTH), cb.Citation)
    with pytest.raises(cb.ValidationError) as info:
        cb.structure({**raw, "other_sources": [{"kind": "uri", "value": "no scheme"}, {"kind": "x"}, None]},
                     cb.Citation)
    assert [path for path, _ in info.value.errors] == [
        "$.other_sources[0].value", "$.other_sources[1].kind", "$.other_sources[2]"]
    with pytest.raises(cb.ValidationError, match="null is not allowed"):
        cb.structure({**raw, "other_sources": None}, cb.Citation)


def test_gemini_reads_a_support_of_several_chunks_as_one_citation():
    """A grounding support listing two chunks (the generateContent response's groundingMetadata, as documented at
    https://ai.google.dev/gemini-api/docs/google-search) is one citation naming both."""
    response = {"candidates": [{
        "content": {"role": "model", "parts": [{"text": "Spain won Euro 2024."}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": "https://www.uefa.com/euro2024/", "title": "uefa.com"}},
                                {"web": {"uri": "https://www.aljazeera.com/sports", "title": "aljazeera.com"}}],
            "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 20, "text": "Spain won Euro 2024."},
                                   "groundingChunkIndices": [0, 1]}],
        },
    }]}
    text = gemini.from_response(response).message.content[0]  # the Google Search run follows it
    [citation] = text.citations
    assert (citation.source.value, [s.value for s in citation.other_sources]) == (
        "https://www.uefa.com/euro2024/", ["https://www.aljazeera.com/sports"])
    assert citation.title is None  # the chunks' titles differ; a citation's title names every source
    assert (citation.start, citation.end) == (0, 20)


def test_pydantic_ai_keeps_several_sources_natively():
    converted = pydantic_ai.to_messages(ANSWER)
    assert converted.losses == ()
    [part] = converted.payload[0].parts
    assert [type(s).__name__ for s in part.citations[0].sources] == ["WebCitationSource", "DocumentCitationSource"]
    back = pydantic_ai.from_messages(converted.payload)
    assert back[0].content[0].citations == (BOTH,)


@pytest.mark.parametrize("write", [langchain.to_messages, openai_responses.to_provider])
def test_one_source_targets_write_one_citation_per_source_and_say_so(write):
    reply = openai_responses.from_provider({"input": [{
        "type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
        "content": [{"type": "output_text", "text": "Grass is green.", "annotations": []}]}]})
    text = reply[0].content[0]
    conversation = ANSWER if write is langchain.to_messages else cb.Conversation(messages=[cb.Message(
        role="assistant", content=[cb.TextBlock(text=text.text, citations=[BOTH], metadata=text.metadata)],
        metadata=reply[0].metadata)])
    converted = write(conversation)
    found = [(loss.path, loss.kind) for loss in converted.losses if "other_sources" in loss.path]
    assert found == [("$[0].content[0].citations[0].other_sources", "content_degraded")]
    if write is openai_responses.to_provider:
        annotations = converted.payload["input"][0]["content"][0]["annotations"]
        assert [a.get("url", a.get("file_id")) for a in annotations] == ["https://a.example/1", "kb-7"]
        assert_documented(documented_reasons("openai_responses.md"), converted.losses)
    else:
        annotations = converted.payload[0].content[0]["annotations"]
        assert [(a.get("url"), a["start_index"]) for a in annotations] == [("https://a.example/1", 0), (None, 0)]


def test_anthropic_drops_a_citation_of_several_sources_as_any_it_did_not_issue():
    converted = anthropic.to_provider(ANSWER)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].content[0].citations[0]", "content_dropped")]
