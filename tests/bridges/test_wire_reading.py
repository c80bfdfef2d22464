"""The readers' one structuring call gives what checking each block as it is built gives, problems included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from bench_modules import bench_corpus
from contentblocks.bridges._wire import checking
from contentblocks.strategies import conversations


def _pydantic_ai() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    pytest.importorskip("pydantic_ai")
    from contentblocks.bridges import pydantic_ai  # noqa: PLC0415 - the framework is optional

    return pydantic_ai.to_messages, pydantic_ai.from_messages


def _langchain() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    pytest.importorskip("langchain_core")
    from contentblocks.bridges import langchain  # noqa: PLC0415 - the framework is optional

    return langchain.to_messages, langchain.from_messages


def _vercel_ui() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    from contentblocks.bridges import vercel_ai  # noqa: PLC0415 - as the others

    return vercel_ai.to_ui_messages, vercel_ai.from_ui_messages


def _vercel_model() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    from contentblocks.bridges import vercel_ai  # noqa: PLC0415 - as the others

    return vercel_ai.to_model_messages, vercel_ai.from_model_messages


BRIDGES: dict[str, Callable[[], tuple[Callable[[Any], Any], Callable[[Any], Any]]]] = {
    "langchain": _langchain,
    "pydantic-ai": _pydantic_ai,
    "vercel-ai model": _vercel_model,
    "vercel-ai ui": _vercel_ui,
}


def _history(messages: int) -> cb.Conversation:
    raw = bench_corpus().conversation(4 * messages)
    return cb.structure(raw[:messages], cb.Conversation)


def _both(read: Callable[[Any], Any], theirs: Any) -> tuple[Any, Any]:
    """What ``read`` gives (or raises) with one structuring call, and checking block by block."""
    results = []
    for check in (False, True):
        try:
            if check:
                with checking():
                    results.append(read(theirs))
            else:
                results.append(read(theirs))
        except cb.ValidationError as e:
            results.append(("refused", e.errors))
    return results[0], results[1]


@pytest.mark.parametrize("name", sorted(BRIDGES))
def test_the_corpus_reads_the_same_at_once_as_block_by_block(name: str) -> None:
    """The benchmark corpus, written into the framework and read back, is equal either way."""
    write, read = BRIDGES[name]()
    theirs = write(_history(400)).payload
    fast, checked = _both(read, theirs)
    assert isinstance(fast, cb.Conversation)
    assert fast == checked


@pytest.mark.parametrize("name", sorted(BRIDGES))
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(conversation=conversations())
def test_any_conversation_reads_the_same_at_once_as_block_by_block(name: str, conversation: cb.Conversation) -> None:
    """Every conversation the strategies build, written into the framework and read back, is equal either way."""
    write, read = BRIDGES[name]()
    fast, checked = _both(read, write(conversation).payload)
    assert fast == checked


@pytest.mark.parametrize("part", [{"part_kind": "text", "content": ""},
                                  {"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": "a b"}])
def test_a_pydantic_ai_part_the_rules_refuse_is_kept_whole_either_way(part: dict[str, Any]) -> None:
    """A part the neutral rules refuse fails the one call; read again block by block, it is kept as pydantic-ai's."""
    _pydantic_ai()
    history = [{"kind": "response", "timestamp": "2026-01-01T00:00:00Z",
                "parts": [{"part_kind": "text", "content": "ok"}, part]}]
    fast, checked = _both(BRIDGES["pydantic-ai"]()[1], history)
    assert fast == checked
    assert fast[0].content[1].metadata == {"pydantic_ai/native_part": True}
    assert {key: fast[0].content[1].value[key] for key in part} == part


def test_langchain_content_the_rules_refuse_is_kept_either_way() -> None:
    """A span outside its text, an empty text, a call with a bad id: each kept as the one-by-one reading keeps it."""
    _langchain()
    from langchain_core.messages import AIMessage  # noqa: PLC0415 - the framework is optional

    history = [AIMessage(content=[
        {"type": "text", "text": "Hi", "annotations": [{"type": "citation", "url": "https://a.example",
                                                          "start_index": 0, "end_index": 9}]},
        {"type": "text", "text": ""},
        {"type": "text", "text": "ok"},
    ], tool_calls=[{"name": "f", "args": {}, "id": "a b"}])]
    fast, checked = _both(BRIDGES["langchain"]()[1], history)
    assert fast == checked
    first, empty, ok = fast[0].content
    assert (first.citations, first.metadata["langchain/annotations"][0]["end_index"]) == ((), 9)
    assert empty.metadata == {"langchain/native_block": True}
    assert ok.text == "ok"
    assert fast[0].metadata["langchain/tool_calls"][0]["id"] == "a b"


def test_a_langchain_problem_is_raised_at_its_path_either_way() -> None:
    """Metadata the rules refuse (a lone surrogate) is the same ValidationError, at the history's path, either way."""
    _langchain()
    from langchain_core.messages import HumanMessage  # noqa: PLC0415 - the framework is optional

    fast, checked = _both(BRIDGES["langchain"]()[1], [HumanMessage("hi"), HumanMessage("x", id="\ud800")])
    assert fast == checked
    assert fast[0] == "refused"
    assert fast[1][0][0].startswith("$[1]")


def test_vercel_parts_the_rules_refuse_are_kept_or_placed_either_way() -> None:
    """An empty text part is kept whole; a tool call id the rules refuse is raised at its part's path."""
    read = BRIDGES["vercel-ai ui"]()[1]
    kept = [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "ok"}, {"type": "text", "text": ""}]}]
    fast, checked = _both(read, kept)
    assert fast == checked
    assert fast[0].content[1].metadata == {"vercel_ai/native_part": True}
    refused = [{"id": "m1", "role": "assistant", "parts": [
        {"type": "tool-f", "toolCallId": "a b", "state": "input-available", "input": {}}]}]
    fast, checked = _both(read, refused)
    assert fast == checked
    assert fast[0] == "refused"
    assert [path for path, _ in fast[1]] == ["$[0].parts[0].tool_call_id"]
