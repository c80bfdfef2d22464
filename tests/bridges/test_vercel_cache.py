"""Cache breakpoints in the Vercel AI SDK's ``ModelMessage``: ``providerOptions`` read into ``cache`` and back.

The payloads are the SDK's documented ones:
- ``@ai-sdk/anthropic`` reads ``providerOptions.anthropic.cacheControl`` on a message or a part, with ``ttl`` ``"1h"``
  for the longer cache (https://ai-sdk.dev/providers/ai-sdk-providers/anthropic#cache-control);
- ``@ai-sdk/amazon-bedrock`` reads ``providerOptions.bedrock.cachePoint`` (``{type: 'default'}``) on a message
  (https://ai-sdk.dev/providers/ai-sdk-providers/amazon-bedrock#cache-points), where the Converse API's
  ``CachePointBlock`` has an optional ``ttl`` of ``5m`` or ``1h``
  (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html).
"""

from __future__ import annotations

import copy

import pytest

import contentblocks as cb
from contentblocks.bridges import vercel_ai as bridge
from contentblocks.providers import LOSS_KINDS, anthropic

C = cb.CacheBreakpoint
EPHEMERAL = {"anthropic": {"cacheControl": {"type": "ephemeral"}}}

# The Anthropic page's examples: a part marked, a part marked for an hour, a system message marked.
ANTHROPIC_DOCS = [
    {"role": "system", "content": "Cached system message part", "providerOptions": EPHEMERAL},
    {"role": "user", "content": [
        {"type": "text", "text": "User prompt"},
        {"type": "text", "text": "Long cached message",
         "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}}}},
    ]},
]
# The Bedrock page's examples: a system message and an assistant message with a cache point.
BEDROCK_DOCS = [
    {"role": "system", "content": "You are an expert on William Gibson's cyberpunk literature and themes.",
     "providerOptions": {"bedrock": {"cachePoint": {"type": "default"}}}},
    {"role": "assistant", "content": [
        {"type": "text", "text": "You are an expert on cyberpunk literature."},
        {"type": "text", "text": "Academic analysis: ..."},
    ], "providerOptions": {"bedrock": {"cachePoint": {"type": "default"}}}},
    {"role": "user", "content": "How does Gibson explore the relationship between humanity and technology?"},
]


@pytest.mark.parametrize("payload", [ANTHROPIC_DOCS, BEDROCK_DOCS], ids=["anthropic", "bedrock"])
def test_documented_breakpoints_round_trip_with_no_loss(payload):
    sent = copy.deepcopy(payload)
    conversation = bridge.from_model_messages(payload)
    back = bridge.to_model_messages(conversation, strict=LOSS_KINDS)
    assert back.payload == sent


def test_cache_control_is_the_neutral_field_and_not_kept_twice():
    system, user = bridge.from_model_messages(ANTHROPIC_DOCS)
    assert system.cache == C()
    assert system.metadata == {"vercel_ai/cache_form": "anthropic"}
    assert [(b.cache, dict(b.metadata)) for b in user.content] == [(None, {}), (C(ttl=3600), {})]
    # so a provider switch keeps it: Anthropic's own cache_control
    payload = anthropic.to_provider(cb.Conversation(messages=[system, user])).payload
    assert payload["system"][0]["cache_control"]["type"] == "ephemeral"  # (raised to 1h: Anthropic's order rule)
    assert payload["messages"][0]["content"][1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_a_cache_point_is_the_message_breakpoint():
    system, assistant, user = bridge.from_model_messages(BEDROCK_DOCS)
    assert (system.cache, assistant.cache, user.cache) == (C(), C(), None)
    assert assistant.metadata == {"vercel_ai/cache_form": "bedrock"}


def test_the_rest_of_provider_options_stays_in_metadata():
    (user,) = bridge.from_model_messages([{"role": "user", "content": [{"type": "text", "text": "Hi", "providerOptions": {
        "anthropic": {"cacheControl": {"type": "ephemeral"}, "other": 1}, "openai": {"x": True}}}]}])
    assert user.content[0].cache == C()
    assert user.content[0].metadata == {"vercel_ai/providerOptions": {"anthropic": {"other": 1}, "openai": {"x": True}}}


@pytest.mark.parametrize("control", [
    {"type": "ephemeral", "ttl": "2h"}, {"type": "persistent"}, {"type": "ephemeral", "scope": "x"}, "ephemeral"])
def test_a_form_the_field_does_not_hold_stays_in_metadata(control):
    payload = [{"role": "user", "content": [{"type": "text", "text": "Hi",
                                             "providerOptions": {"anthropic": {"cacheControl": control}}}]}]
    (user,) = bridge.from_model_messages(copy.deepcopy(payload))
    assert user.content[0].cache is None
    assert bridge.to_model_messages([user], strict=LOSS_KINDS).payload == payload


def test_both_forms_of_one_breakpoint_are_one_and_differing_forms_keep_bedrock_s():
    both = {"anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}},
            "bedrock": {"cachePoint": {"type": "default", "ttl": "1h"}}}
    differ = {"anthropic": {"cacheControl": {"type": "ephemeral"}}, "bedrock": {"cachePoint": {"type": "default",
                                                                                              "ttl": "1h"}}}
    payload = [{"role": "user", "content": "a", "providerOptions": both},
               {"role": "assistant", "content": "b", "providerOptions": differ}]
    user, assistant = bridge.from_model_messages(copy.deepcopy(payload))
    assert (user.cache, user.metadata) == (C(ttl=3600), {"vercel_ai/content_string": True})
    assert assistant.cache == C()
    assert assistant.metadata["vercel_ai/providerOptions"] == {"bedrock": {"cachePoint": {"type": "default",
                                                                                          "ttl": "1h"}}}
    assert bridge.to_model_messages([user, assistant], strict=LOSS_KINDS).payload == payload


def test_neutral_breakpoints_are_written_in_both_forms_on_messages_and_anthropic_s_on_parts():
    conversation = cb.Conversation(messages=[
        cb.Message(role="system", content="Be brief.", cache=C(ttl=3600)),
        cb.Message(role="user", content=[cb.TextBlock(text="doc", cache=C(), metadata={
            "vercel_ai/providerOptions": {"openai": {"x": 1}}}), cb.TextBlock(text="q")], cache=C()),
    ])
    converted = bridge.to_model_messages(conversation, strict=LOSS_KINDS)
    assert converted.payload == [
        {"role": "system", "content": "Be brief.", "providerOptions": {
            "anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}},
            "bedrock": {"cachePoint": {"type": "default", "ttl": "1h"}}}},
        {"role": "user", "content": [
            {"type": "text", "text": "doc", "providerOptions": {"openai": {"x": 1}, **EPHEMERAL}},
            {"type": "text", "text": "q"}],
         "providerOptions": {**EPHEMERAL, "bedrock": {"cachePoint": {"type": "default"}}}},
    ]
    assert bridge.from_model_messages(converted.payload) == conversation


def test_breakpoints_with_no_place_are_reported():
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded",
                                content=[cb.TextBlock(text="r", cache=C())],
                                cache=C(ttl=600))
    conversation = cb.Conversation(messages=[
        cb.Message(role="system", content=[cb.TextBlock(text="a", cache=C()), cb.TextBlock(text="b", cache=C())]),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})]),
        cb.Message(role="tool", content=[result]),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c2", tool_name="f", input={}),
                                              cb.ApprovalRequestBlock(approval_id="a1", tool_call_id="c2", cache=C())]),
    ])
    converted = bridge.to_model_messages(conversation)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[1]", "content_degraded"),  # joined into one string
        ("$[0].content[0].cache", "hint_not_sent"),  # inside the system string
        ("$[0].content[1].cache", "hint_not_sent"),  # the last block's: written as the message's
        ("$[2].content[0].cache.ttl", "hint_not_sent"),  # 600 seconds written as 5m
        ("$[2].content[0].content[0].cache", "hint_not_sent"),  # inside a tool output
        ("$[3].content[1].cache", "hint_not_sent"),  # an approval request has no providerOptions
    ]
    assert converted.payload[0]["providerOptions"]["anthropic"] == {"cacheControl": {"type": "ephemeral"}}
    assert converted.payload[2]["content"][0]["providerOptions"] == {
        "anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "5m"}}}


def test_a_ui_message_still_reports_them():
    converted = bridge.to_ui_messages([cb.Message(role="user", content="Hi", cache=C())])
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].cache", "hint_not_sent")]
