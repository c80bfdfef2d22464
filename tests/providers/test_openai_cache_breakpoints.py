"""OpenAI's own cache breakpoints: ``prompt_cache_breakpoint`` on Chat Completions and Responses input parts.

The shapes are the openai SDK's request types (``ChatCompletionContentPartTextParam.prompt_cache_breakpoint`` and
``ResponseInputTextParam.prompt_cache_breakpoint``: ``{"mode": "explicit", "ttl"?: "30m" | "12h"}``, gpt-5.6 and
later), and every payload written here is validated against them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import openai_chat, openai_responses
from provider_checks import assert_documented, documented_reasons, examples
from providers.request_walk import walk

chat_types = pytest.importorskip("openai.types.chat")
responses_types = pytest.importorskip("openai.types.responses")

C = cb.CacheBreakpoint
EXPLICIT = {"mode": "explicit"}
CHAT_MESSAGE = chat_types.ChatCompletionMessageParam
RESPONSES_ITEM = responses_types.ResponseInputItemParam


def problems(items: list[Any], item_type: Any) -> list[str]:
    """What the SDK's request type refuses in ``items`` (every key declared, every value of its type)."""
    return [problem for k, item in enumerate(items) for problem in walk(item, item_type, f"$[{k}]")]


# A long shared prefix marked for the cache, as OpenAI's prompt-caching guide lays a request out: the stable
# instructions, then a document, each ending in a breakpoint; the question after them changes per request.
CHAT = {
    "messages": [
        {"role": "developer", "content": [
            {"type": "text", "text": "You answer questions about the attached annual report.",
             "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"}},
        ]},
        {"role": "user", "content": [
            {"type": "file", "file": {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}, "prompt_cache_breakpoint": EXPLICIT},
            {"type": "image_url", "image_url": {"url": "https://example.com/revenue.png"},
             "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "30m"}},
            {"type": "text", "text": "What was the revenue in 2025?"},
        ]},
    ]
}  # fmt: skip
RESPONSES = {
    "input": [
        {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "You answer questions about the attached annual report.",
             "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"}},
        ]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_file", "file_id": "file-6F2ksmvXxt4VdoqmHRw6kL", "prompt_cache_breakpoint": EXPLICIT},
            {"type": "input_text", "text": "What was the revenue in 2025?"},
        ]},
        {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": '{"year":2025}'},
        {"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "Revenue 2025: 4.2 bn", "prompt_cache_breakpoint": EXPLICIT},
        ]},
    ]
}  # fmt: skip


def _caches(conversation: cb.Conversation) -> list[Any]:
    found = []
    for message in conversation:
        for block in message.content:
            found.append(block.cache)
            found.extend(part.cache for part in getattr(block, "content", ()) if isinstance(block, cb.ToolResultBlock))
    return found


def test_chat_breakpoints_read_into_cache_and_go_back_unchanged():
    conversation = openai_chat.from_provider(copy.deepcopy(CHAT))
    assert _caches(conversation) == [C(ttl=43200), C(), C(ttl=1800), None]
    assert not any("openai/prompt_cache_breakpoint" in b.metadata for m in conversation for b in m.content)
    converted = openai_chat.to_provider(conversation, strict=True)
    assert converted.payload == CHAT
    assert problems(converted.payload["messages"], CHAT_MESSAGE) == []


def test_responses_breakpoints_read_into_cache_and_go_back_unchanged():
    conversation = openai_responses.from_provider(copy.deepcopy(RESPONSES))
    assert _caches(conversation) == [C(ttl=43200), C(), None, None, None, C()]
    converted = openai_responses.to_provider(conversation, strict=True)
    assert converted.payload == RESPONSES
    assert problems(converted.payload["input"], RESPONSES_ITEM) == []


def test_a_marked_system_prompt_goes_as_a_system_item_not_as_instructions():
    """``instructions`` take no breakpoint; the system message as an input item does, and reads back the same."""
    history = cb.Conversation(messages=[
        cb.Message(role="system", content="Be brief.", cache=C()),
        cb.Message(role="user", content="Hi"),
    ])  # fmt: skip
    converted = openai_responses.to_provider(history, strict=True)
    assert "instructions" not in converted.payload
    assert converted.payload["input"][0] == {"type": "message", "role": "system", "content": [
        {"type": "input_text", "text": "Be brief.", "prompt_cache_breakpoint": EXPLICIT}]}  # fmt: skip
    (system, _) = openai_responses.from_provider(converted.payload)
    assert (system.role, system.content[0].text, system.content[0].cache) == ("system", "Be brief.", C())
    unmarked = cb.Conversation(messages=[cb.Message(role="system", content="Be brief."), history[1]])
    assert openai_responses.to_provider(unmarked).payload["instructions"] == "Be brief."


@pytest.mark.parametrize(
    ("adapter", "page"), [(openai_chat, "openai_chat.md"), (openai_responses, "openai_responses.md")]
)
def test_what_takes_no_breakpoint_is_reported(adapter, page):
    """A call, reasoning and a refusal carry none; a lifetime OpenAI lacks is sent as the nearer one."""
    history = cb.Conversation(messages=[
        cb.Message(role="user", content=[cb.TextBlock(text="Read this.", cache=C(ttl=3600))]),
        cb.Message(role="assistant", content=[
            cb.ReasoningBlock(text="Thinking.", cache=C()),
            cb.ToolCallBlock(tool_call_id="call_1", tool_name="f", input={}, cache=C()),
        ]),
        cb.Message(role="tool", content=[cb.ToolResultBlock(
            tool_call_id="call_1", tool_name="f", outcome="succeeded", content=[cb.TextBlock(text="r")], cache=C())]),
    ])  # fmt: skip
    converted = adapter.to_provider(history, strict=["metadata_not_sent"])  # a hint is not a loss strict names
    hints = [(loss.path, loss.kind) for loss in converted.losses if loss.kind == "hint_not_sent"]
    assert hints == [
        ("$[0].content[0].cache.ttl", "hint_not_sent"),
        ("$[1].content[0].cache", "hint_not_sent"),
        ("$[1].content[1].cache", "hint_not_sent"),
    ]
    assert_documented(documented_reasons(page), converted.losses)


def test_a_value_of_another_form_stays_metadata_and_is_sent_only_where_it_fits():
    odd = {"mode": "implicit"}
    payload = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a", "prompt_cache_breakpoint": odd}]}]
    }
    (message,) = openai_chat.from_provider(payload)
    block = message.content[0]
    assert (block.cache, block.metadata["openai/prompt_cache_breakpoint"]) == (None, odd)
    converted = openai_chat.to_provider([message])
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[0].metadata["openai/prompt_cache_breakpoint"]', "metadata_not_sent")
    ]


@examples(30)
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_every_breakpoint_is_sent_or_reported_and_reads_back_where_it_was_sent(conversation):
    for adapter, item_type in ((openai_chat, CHAT_MESSAGE), (openai_responses, RESPONSES_ITEM)):
        converted = adapter.to_provider(conversation)
        hints = {loss.path for loss in converted.losses if loss.kind == "hint_not_sent"}
        payload = converted.payload
        items = payload["messages"] if adapter is openai_chat else payload["input"]
        assert problems(items, item_type) == []
        sent = str(payload).count("'prompt_cache_breakpoint'")
        marked = sum(1 for m in conversation for _ in cb.providers._cache.breakpoints(m, "$"))
        assert sent <= marked
        assert sent + len({h.removesuffix(".ttl") for h in hints}) >= marked
        again = adapter.to_provider(adapter.from_provider(payload))
        assert str(again.payload).count("'prompt_cache_breakpoint'") == sent
