"""OpenRouter's cache breakpoints through the Chat adapter (``dialect="openrouter"``).

Golden payloads are the request bodies of OpenRouter's prompt-caching guide
(https://openrouter.ai/docs/features/prompt-caching, "Anthropic Claude": a system message whose second text part
holds the book with ``"cache_control": {"type": "ephemeral"}``, the same in a user message, and the 1-hour
``"ttl": "1h"``); at most four breakpoints reach an Anthropic model.
"""

from __future__ import annotations

import copy

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, openai_chat
from provider_checks import assert_documented, documented_reasons

C = cb.CacheBreakpoint
REASONS = documented_reasons("openai_chat.md")

# https://openrouter.ai/docs/features/prompt-caching ("System message caching example")
SYSTEM = {"messages": [
    {"role": "system", "content": [
        {"type": "text", "text": "You are a historian studying the fall of the Roman Empire. You know the following "
                                 "book very well:"},
        {"type": "text", "text": "HUGE TEXT BODY", "cache_control": {"type": "ephemeral"}},
    ]},
    {"role": "user", "content": [{"type": "text", "text": "What triggered the collapse?"}]},
]}
# the same guide, "User message caching example"
USER = {"messages": [{"role": "user", "content": [
    {"type": "text", "text": "Given the book below:"},
    {"type": "text", "text": "HUGE TEXT BODY", "cache_control": {"type": "ephemeral"}},
    {"type": "text", "text": "Name all the characters in the above book"},
]}]}
# the same guide, the 1-hour time to live
ONE_HOUR = {"messages": [{"role": "user", "content": [
    {"type": "text", "text": "HUGE TEXT BODY", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    {"type": "text", "text": "Summarise it."},
]}]}


def _send(*messages: cb.Message) -> cb.providers.Converted:
    converted = openai_chat.to_provider(cb.Conversation(messages=list(messages)), dialect="openrouter")
    assert_documented(REASONS, converted.losses)
    return converted


@pytest.mark.parametrize("payload", [SYSTEM, USER, ONE_HOUR], ids=["system", "user", "one_hour"])
def test_documented_breakpoints_read_into_cache_and_go_back_unchanged(payload):
    conversation = openai_chat.from_provider(copy.deepcopy(payload), dialect="openrouter")
    assert "openai/cache_control" not in repr(conversation)
    converted = openai_chat.to_provider(conversation, dialect="openrouter", strict=LOSS_KINDS)
    assert converted.payload == payload


def test_the_fields_hold_what_openrouter_was_told():
    system, _ = openai_chat.from_provider(SYSTEM, dialect="openrouter")
    assert [b.cache for b in system.content] == [None, C()]
    [hour] = openai_chat.from_provider(ONE_HOUR, dialect="openrouter")
    assert [b.cache for b in hour.content] == [C(ttl=3600), None]


def test_other_dialects_keep_the_native_field_as_metadata():
    [message] = openai_chat.from_provider(copy.deepcopy(USER))
    assert message.content[1].cache is None
    assert message.content[1].metadata["openai/cache_control"] == {"type": "ephemeral"}


def test_a_form_the_field_cannot_hold_stays_metadata_and_is_reported():
    odd = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2d"}}]}]}
    [message] = openai_chat.from_provider(odd, dialect="openrouter")
    assert (message.content[0].cache, message.content[0].metadata["openai/cache_control"]["ttl"]) == (None, "2d")
    converted = openai_chat.to_provider(cb.Conversation(messages=[message]), dialect="openrouter")
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[0].metadata["openai/cache_control"]', "metadata_not_sent")]


def test_a_message_breakpoint_goes_on_its_last_part_and_a_string_becomes_parts():
    converted = _send(cb.Message(role="user", content="Long.", cache=C()),
                      cb.Message(role="assistant", content="Noted.", cache=C(ttl=300)))
    assert converted.payload["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Long.", "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Noted.", "cache_control": {"type": "ephemeral", "ttl": "5m"}}]},
    ]
    assert converted.losses == ()


def test_tool_results_take_them_on_their_parts():
    call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="f", input={})
    result = cb.ToolResultBlock(tool_call_id="call_1", tool_name="f", outcome="succeeded",
                                content=[cb.TextBlock(text="a"), cb.TextBlock(text="b")], cache=C())
    converted = _send(cb.Message(role="user", content="?"), cb.Message(role="assistant", content=[call]),
                      cb.Message(role="tool", content=[result]))
    assert converted.payload["messages"][2]["content"] == [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}]
    back = openai_chat.from_provider(converted.payload, dialect="openrouter")
    assert [b.cache for b in back[2].content[0].content] == [None, C()]


def test_what_is_sent_as_no_part_reports_its_breakpoint():
    """A tool call, reasoning and a message with no content carry no cache_control: each is reported."""
    thought = cb.ReasoningBlock(text="hm", metadata={"contentblocks/issuer": "openrouter"}, cache=C())
    call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="f", input={}, cache=C())
    empty = cb.ToolResultBlock(tool_call_id="call_1", tool_name="f", outcome="succeeded", cache=C())
    converted = _send(cb.Message(role="user", content="?"),
                      cb.Message(role="assistant", content=[thought, call], cache=C()),
                      cb.Message(role="tool", content=[empty]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].cache", "hint_not_sent"), ("$[1].content[0].cache", "hint_not_sent"),
        ("$[1].content[1].cache", "hint_not_sent"), ("$[2].content[0].cache", "hint_not_sent")]
    assert "cache_control" not in str(converted.payload)


def test_only_the_last_four_are_sent():
    messages = [cb.Message(role="user" if i % 2 == 0 else "assistant", content=f"turn {i}", cache=C())
                for i in range(6)]
    converted = _send(*messages)
    marked = ["cache_control" in str(m["content"]) for m in converted.payload["messages"]]
    assert marked == [False, False, True, True, True, True]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].cache", "hint_not_sent"), ("$[1].cache", "hint_not_sent")]
    assert not any(loss.kind in cb.providers.CONTENT_LOSSES for loss in converted.losses)


@pytest.mark.parametrize(("ttl", "sent"), [(600, "5m"), (1950, "5m"), (1951, "1h"), (86400, "1h")])
def test_a_time_to_live_openrouter_does_not_have_is_sent_as_the_nearer(ttl, sent):
    converted = _send(cb.Message(role="user", content=[cb.TextBlock(text="x", cache=C(ttl=ttl))]))
    assert converted.payload["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": sent}
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].content[0].cache.ttl", "hint_not_sent")]


def test_a_block_and_its_message_on_the_same_part_are_one_breakpoint():
    same = _send(cb.Message(role="user", content=[cb.TextBlock(text="x", cache=C())], cache=C()))
    assert (same.payload["messages"][0]["content"][0]["cache_control"], same.losses) == ({"type": "ephemeral"}, ())
    other = _send(cb.Message(role="user", content=[cb.TextBlock(text="x", cache=C())], cache=C(ttl=3600)))
    assert [(loss.path, loss.kind) for loss in other.losses] == [("$[0].cache", "hint_not_sent")]


def test_strict_does_not_raise_on_a_hint():
    messages = [cb.Message(role="user", content=f"turn {i}", cache=C()) for i in range(5)]
    converted = openai_chat.to_provider(cb.Conversation(messages=messages), dialect="openrouter", strict=True)
    assert len(converted.losses) == 1


def test_a_five_minute_breakpoint_before_a_one_hour_one_goes_as_one_hour():
    """OpenRouter passes the breakpoints to Anthropic, which takes one-hour ones only before five-minute ones."""
    history = cb.Conversation(messages=[
        cb.Message(role="system", content="Be brief.", cache=cb.CacheBreakpoint()),
        cb.Message(role="user", content="Read this.", cache=cb.CacheBreakpoint(ttl=3600)),
    ])
    converted = openai_chat.to_provider(history, dialect="openrouter")
    controls = [message["content"][0]["cache_control"] for message in converted.payload["messages"]]
    assert controls == [{"type": "ephemeral", "ttl": "1h"}] * 2
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].cache", "hint_not_sent")]
