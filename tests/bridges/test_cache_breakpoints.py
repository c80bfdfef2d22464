"""Cache breakpoints through the bridges: pydantic-ai's ``CachePoint`` maps both ways, the others report.

pydantic-ai documents ``CachePoint`` as a marker in a ``UserPromptPart``'s content, with a ``ttl`` of ``"5m"``
(its default) or ``"1h"`` (https://ai.pydantic.dev/api/messages/#pydantic_ai.messages.CachePoint).
"""

from __future__ import annotations

import pytest

import contentblocks as cb
from contentblocks.bridges import langchain, openai_agents, vercel_ai
from contentblocks.bridges import pydantic_ai as bridge

messages = pytest.importorskip("pydantic_ai.messages")
C = cb.CacheBreakpoint


def test_a_cache_point_is_the_breakpoint_of_the_block_before_it():
    history = [messages.ModelRequest(parts=[messages.UserPromptPart(
        content=["A long document.", messages.CachePoint(ttl="1h"), "A question.", messages.CachePoint()])])]
    conversation = bridge.from_messages(history)
    (user,) = conversation
    assert [(b.text, b.cache) for b in user.content] == [("A long document.", C(ttl=3600)), ("A question.", C(ttl=300))]
    back = bridge.to_messages(conversation, strict=cb.providers.LOSS_KINDS)
    assert back.payload[0].parts[0].content == history[0].parts[0].content


def test_a_leading_cache_point_stays_a_native_part():
    history = [messages.ModelRequest(parts=[messages.UserPromptPart(content=[messages.CachePoint(), "Hi"])])]
    (user,) = bridge.from_messages(history)
    assert isinstance(user.content[0], cb.JsonBlock)
    assert bridge.to_messages([user]).payload[0].parts[0].content == history[0].parts[0].content


def test_breakpoints_are_written_as_cache_points_in_user_prompts_and_reported_elsewhere():
    conversation = cb.Conversation(messages=[
        cb.Message(role="system", content="Be brief.", cache=C()),
        cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C(ttl=60)), cb.TextBlock(text="b")],
                   cache=C(ttl=3600)),
        cb.Message(role="assistant", content=[cb.TextBlock(text="c", cache=C())]),
    ])
    converted = bridge.to_messages(conversation)
    user = converted.payload[0].parts[1]
    assert user.content == ["a", messages.CachePoint(ttl="5m"), "b", messages.CachePoint(ttl="1h")]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].cache", "hint_not_sent"), ("$[1].content[0].cache.ttl", "hint_not_sent"),
        ("$[2].content[0].cache", "hint_not_sent")]


CONVERSATION = cb.Conversation(messages=[
    cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C())], cache=C(ttl=3600)),
])


@pytest.mark.parametrize(
    "write",
    [langchain.to_messages, vercel_ai.to_ui_messages],
    ids=["langchain", "vercel_ui"],
)
def test_other_bridges_report_each_breakpoint(write):
    try:
        converted = write(CONVERSATION)
    except ImportError as error:  # the framework is not installed
        pytest.skip(str(error))
    hints = [(loss.path, loss.kind) for loss in converted.losses]
    assert hints == [("$[0].content[0].cache", "hint_not_sent"), ("$[0].cache", "hint_not_sent")]


def test_the_agents_sdk_items_carry_openais_own_breakpoints():
    """Its items are the Responses API's input items: a breakpoint is a part's ``prompt_cache_breakpoint``."""
    try:
        converted = openai_agents.to_items(CONVERSATION)
    except ImportError as error:  # the framework is not installed
        pytest.skip(str(error))
    (item,) = converted.payload
    assert item["content"] == [{"type": "input_text", "text": "a", "prompt_cache_breakpoint": {"mode": "explicit"}}]
    # the message's breakpoint falls on the same part, which carries its block's own
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].cache", "hint_not_sent")]
    assert openai_agents.from_items(converted.payload)[0].content[0].cache == C()
