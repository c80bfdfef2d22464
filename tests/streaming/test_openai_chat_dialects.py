"""Chat Completions streams of OpenAI-compatible servers: reasoning deltas fold into the reply read whole."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import openai_chat as adapter
from contentblocks.streaming import ReasoningAppended, StreamError, openai_chat
from streaming.checks import assert_streams_progressively, fixtures, fold, load

NAMES = fixtures("openai_chat_dialects")


def case(name: str) -> tuple[str, list[dict[str, Any]], cb.providers.Reply]:
    """A fixture's dialect, its chunks, and the reply its documented completion reads to."""
    raw = load("openai_chat_dialects", name)
    return raw["dialect"], raw["chunks"], adapter.from_response(raw["completion"], dialect=raw["dialect"])


@pytest.mark.parametrize("name", NAMES)
def test_the_fold_of_reasoning_deltas_is_the_reply_read_whole(name):
    """Each dialect's stream folds into ``from_response`` of the completion it adds up to, reasoning first."""
    dialect, chunks, expected = case(name)
    assert fold(openai_chat.Reader(dialect=dialect), copy.deepcopy(chunks)) == expected
    assert openai_chat.fold(copy.deepcopy(chunks), dialect=dialect) == expected
    assert isinstance(expected.message.content[0], cb.ReasoningBlock)


@pytest.mark.parametrize("name", NAMES)
def test_reasoning_shows_as_it_streams(name):
    """Reasoning text grows delta by delta; end() adds only what the completion alone says (a signature)."""
    dialect, chunks, expected = case(name)
    assert_streams_progressively(lambda: openai_chat.Reader(dialect=dialect), copy.deepcopy(chunks), expected)


def test_reasoning_streams_as_reasoning_deltas_before_the_text():
    """DeepSeek's reasoning_content pieces are reasoning deltas of block 0; the tool call is block 1."""
    _, chunks, _ = case("deepseek_tool_call")
    events = list(openai_chat.events(copy.deepcopy(chunks), dialect="deepseek"))
    pieces = [e.text for e in events if isinstance(e, ReasoningAppended)]
    assert pieces == ["The user asks about tomorrow;", " I need today's date first."]
    assert {e.index for e in events if isinstance(e, ReasoningAppended)} == {0}


def test_openrouter_items_keep_their_signature_and_encrypted_data():
    """The signature that came last and the encrypted item stream into their blocks by the item's index."""
    _, chunks, _ = case("openrouter_details")
    reply = openai_chat.fold(copy.deepcopy(chunks), dialect="openrouter")
    text, encrypted, answer = reply.message.content
    assert (text.text, text.signature) == ("Let me check.", "EqoBCkYIBxgC")
    assert (encrypted.redacted, answer.text) == (b"ErUBCkYICBgC", "All good.")
    sent = adapter.to_provider(cb.Conversation(messages=[reply.message]), dialect="openrouter")
    assert sent.payload["messages"][0]["reasoning_details"][0] == {
        "type": "reasoning.text", "text": "Let me check.", "signature": "EqoBCkYIBxgC",
        "format": "anthropic-claude-v1", "index": 0}
    assert sent.losses == ()


def test_the_default_dialect_streams_no_reasoning():
    """Without a dialect the reasoning field is kept as message metadata, as before (no reasoning block)."""
    _, chunks, _ = case("moonshot_text")
    reply = openai_chat.fold(copy.deepcopy(chunks))
    assert [type(b) for b in reply.message.content] == [cb.TextBlock]
    assert reply.message.metadata["openai/reasoning_content"] == "Define 2 as the successor of 1, then apply +."


def test_reasoning_after_the_text_is_refused_when_the_stream_ends():
    """Reasoning streamed after the text would read first from the completion: the stream is refused."""
    _, chunks, _ = case("moonshot_text")
    late = [chunks[2], chunks[0], chunks[4]]
    with pytest.raises(StreamError):
        openai_chat.fold(copy.deepcopy(late), dialect="moonshot")


def test_a_detail_without_an_index_is_refused_at_its_path():
    """OpenRouter items merge by their index, so an item without one is refused where it came."""
    _, chunks, _ = case("openrouter_details")
    broken = copy.deepcopy(chunks)
    del broken[0]["choices"][0]["delta"]["reasoning_details"][0]["index"]
    with pytest.raises(StreamError) as info:
        openai_chat.fold(broken, dialect="openrouter")
    assert info.value.errors[0][0] == "$[0].choices[0].delta.reasoning_details[0].index"


def test_an_unknown_dialect_is_refused_by_the_reader():
    """The reader checks its dialect as the adapter does."""
    with pytest.raises(ValueError, match="dialect"):
        openai_chat.Reader(dialect="kimi")


@given(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=6), st.sampled_from(["deepseek", "moonshot"]))
def test_any_split_of_reasoning_content_folds_to_the_whole(pieces, dialect):
    """However the reasoning is cut into deltas, the fold is the reply that holds it whole."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"reasoning_content": p}}]} for p in pieces]
    chunks.append({**head, "choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]})
    whole = {**head, "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": "Done.", "reasoning_content": "".join(pieces)}}]}
    assert openai_chat.fold(chunks, dialect=dialect) == adapter.from_response(whole, dialect=dialect)


def test_an_item_no_block_holds_starts_no_block():
    """An empty summary item (kept as metadata by the adapter) streams nothing, and the fold still matches."""
    _, chunks, _ = case("openrouter_details")
    chunks = copy.deepcopy(chunks)
    empty = {"type": "reasoning.summary", "summary": "", "format": "anthropic-claude-v1", "index": 2}
    chunks[3]["choices"][0]["delta"]["reasoning_details"].append(empty)
    raw = load("openai_chat_dialects", "openrouter_details")["completion"]
    raw["choices"][0]["message"]["reasoning_details"].append(empty)
    expected = adapter.from_response(raw, dialect="openrouter")
    assert openai_chat.fold(chunks, dialect="openrouter") == expected
    assert expected.message.metadata["openai/other_reasoning_details"] == [empty]


@pytest.mark.parametrize("name", NAMES)
def test_a_role_repeated_in_every_delta_is_kept_once(name):
    """Ollama sends ``"role": "assistant"`` in every delta (the SDK's accumulator makes it ``assistantassistant``)."""
    dialect, chunks, expected = case(name)
    repeated = copy.deepcopy(chunks)
    for chunk in repeated:
        for choice in chunk.get("choices", []):
            choice.setdefault("delta", {})["role"] = "assistant"
    assert sum(choice["delta"].get("role") == "assistant" for c in repeated for choice in c.get("choices", [])) > 1
    assert openai_chat.fold(repeated, dialect=dialect) == expected
    other = copy.deepcopy(repeated)
    last = [chunk for chunk in other if chunk.get("choices")][-1]
    last["choices"][0]["delta"]["role"] = "tool"  # a role that changes is still merged as the SDK does
    with pytest.raises(StreamError):
        openai_chat.fold(other, dialect=dialect)
