"""Cache breakpoints through the adapters: Anthropic and OpenAI read and write theirs, the others report.

Golden payloads are the request bodies of Anthropic's prompt-caching guide
(https://docs.claude.com/en/docs/build-with-claude/prompt-caching: the "Pride and Prejudice" system prompt with
``cache_control: {"type": "ephemeral"}``, the 1-hour ``ttl``, and breakpoints on tool results in a conversation)
with the request type the SDK gives (``anthropic.types.CacheControlEphemeralParam``).
"""

from __future__ import annotations

import copy
import functools
import json

import attrs
import pytest

import contentblocks as cb
from contentblocks.providers import CONTENT_LOSSES, anthropic, gemini, mcp, openai_chat, openai_responses
from provider_checks import assert_documented, documented_reasons, uncached

C = cb.CacheBreakpoint

# https://docs.claude.com/en/docs/build-with-claude/prompt-caching ("How to implement prompt caching")
LITERARY = {
    "system": [
        {"type": "text", "text": "You are an AI assistant tasked with analyzing literary works. Your goal is to "
                                 "provide insightful commentary and analysis on themes, characters, and writing style.\n"},
        {"type": "text", "text": "<the entire contents of 'Pride and Prejudice'>", "cache_control": {"type": "ephemeral"}},
    ],
    "messages": [{"role": "user", "content": "Analyze the major themes in 'Pride and Prejudice'."}],
}
# the same guide, "1-hour cache duration", and its conversation example with breakpoints on the turns
ONE_HOUR = {
    "system": [{"type": "text", "text": "...long system prompt", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Hello, can you tell me more about the solar system?"}]},
        {"role": "assistant", "content": "Certainly! The solar system is the collection of celestial bodies..."},
        {"role": "user", "content": [
            {"type": "text", "text": "Good to know.", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
        ]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"location": "Paris"},
             "cache_control": {"type": "ephemeral"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "15 degrees",
             "cache_control": {"type": "ephemeral"}},
        ]},
    ],
}
# the same guide: a document and an image, the one-hour breakpoint first ("Mixing different TTLs")
DOCUMENT = {
    "messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "url", "url": "https://example.com/report.pdf"},
         "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
         "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "What is in these?"},
    ]}],
}


@pytest.mark.parametrize("payload", [LITERARY, ONE_HOUR, DOCUMENT], ids=["system", "turns", "files"])
def test_documented_breakpoints_read_into_cache_and_go_back_unchanged(payload):
    conversation = anthropic.from_provider(copy.deepcopy(payload))
    text = repr(conversation)
    assert "anthropic/cache_control" not in text  # every one of them is a field now
    converted = anthropic.to_provider(conversation, strict=cb.providers.LOSS_KINDS)
    assert converted.payload == payload


def test_the_fields_hold_what_anthropic_said():
    system, user = anthropic.from_provider(LITERARY)
    assert [b.cache for b in system.content] == [None, C()]
    assert user.content[0].cache is None
    messages = anthropic.from_provider(ONE_HOUR)
    assert messages[0].content[0].cache == C(ttl=3600)
    assert messages[3].content[0].cache == C(ttl=300)
    assert messages[4].content[0].cache == C()
    assert messages[5].content[0].cache == C()  # the tool result
    files = anthropic.from_provider(DOCUMENT)[0].content
    assert [b.cache for b in files] == [C(ttl=3600), C(), None]


def test_a_form_the_field_cannot_hold_stays_as_metadata():
    payload = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "2h"}}]}]}
    block = anthropic.from_provider(payload)[0].content[0]
    assert block.cache is None
    assert dict(block.metadata) == {"anthropic/cache_control": {"type": "ephemeral", "ttl": "2h"}}
    # not a shape the request type has: not sent, and reported as the metadata it is
    losses = anthropic.to_provider([cb.Message(role="user", content=[block])]).losses
    assert [loss.kind for loss in losses] == ["metadata_not_sent"]


def _written(*messages, **kw):
    converted = anthropic.to_provider(list(messages), **kw)
    assert_documented(documented_reasons("anthropic.md"), converted.losses)
    return converted


def test_a_message_breakpoint_goes_on_its_last_block():
    message = cb.Message(role="user", content=[cb.TextBlock(text="a"), cb.TextBlock(text="b")], cache=C(ttl=3600))
    converted = _written(message)
    assert converted.payload["messages"][0]["content"] == [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    assert converted.losses == ()
    back = anthropic.from_provider(converted.payload)[0]
    assert back.cache is None
    assert back.content[1].cache == C(ttl=3600)  # the same place in the prompt
    system = _written(cb.Message(role="system", content="Be brief.", cache=C()))
    assert system.payload["system"] == [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]


def test_a_time_to_live_anthropic_lacks_is_sent_as_the_nearer_one_and_reported():
    short = _written(cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C(ttl=60))]))
    long = _written(cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C(ttl=86_400))]))
    assert short.payload["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert long.payload["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert [(loss.path, loss.kind) for loss in short.losses] == [("$[0].content[0].cache.ttl", "hint_not_sent")]


def test_reasoning_cannot_be_marked_and_a_message_ending_in_it_marks_the_block_before():
    thought = cb.ReasoningBlock(text="t", signature="s", metadata={"contentblocks/issuer": "anthropic"}, cache=C())
    call = cb.ToolCallBlock(tool_call_id="toolu_1", tool_name="f", input={})
    converted = _written(cb.Message(role="assistant", content=[call, thought], cache=C()))
    content = converted.payload["messages"][0]["content"]
    assert "cache_control" not in content[1]
    assert content[0]["cache_control"] == {"type": "ephemeral"}
    assert [loss.path for loss in converted.losses] == ["$[0].content[1].cache", "$[0].cache"]
    assert {loss.kind for loss in converted.losses} == {"hint_not_sent"}


def test_only_the_last_four_breakpoints_are_sent():
    messages = [cb.Message(role="system", content="s", cache=C())]
    messages += [cb.Message(role="user" if n % 2 == 0 else "assistant", content=f"turn {n}", cache=C())
                 for n in range(5)]
    converted = _written(*messages)
    marked = [b for m in converted.payload["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 4
    assert "cache_control" not in converted.payload["system"][0]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].cache", "hint_not_sent"), ("$[1].cache", "hint_not_sent")]


def test_a_dropped_block_reports_its_breakpoint():
    audio = cb.FileBlock(media_type="audio/wav", source=cb.BytesSource(data=b"RIFF"), cache=C())
    converted = _written(cb.Message(role="user", content=[audio, cb.TextBlock(text="hi")]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0]", "content_dropped"), ("$[0].content[0].cache", "hint_not_sent")]


def test_the_breakpoint_wins_over_old_metadata_which_is_reported_and_old_metadata_still_goes():
    old = cb.TextBlock(text="a", metadata={"anthropic/cache_control": {"type": "ephemeral"}})
    both = cb.TextBlock(text="b", cache=C(), metadata={"anthropic/cache_control": {"type": "ephemeral", "ttl": "1h"}})
    converted = _written(cb.Message(role="user", content=[old, both]))
    assert [b["cache_control"] for b in converted.payload["messages"][0]["content"]] == [
        {"type": "ephemeral"}, {"type": "ephemeral"}]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[1].metadata["anthropic/cache_control"]', "metadata_not_sent")]


HISTORY = cb.Conversation(messages=[
    cb.Message(role="system", content="Be brief.", cache=C(ttl=3600)),
    cb.Message(role="user", content=[cb.TextBlock(text="Read this.", cache=C())]),
    cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="call_1", tool_name="f", input={}, cache=C())]),
    cb.Message(role="tool", content=[cb.ToolResultBlock(
        tool_call_id="call_1", tool_name="f", outcome="succeeded", content=[cb.TextBlock(text="r", cache=C())])]),
])
PATHS = ["$[0].cache", "$[1].content[0].cache", "$[2].content[0].cache", "$[3].content[0].content[0].cache"]


@pytest.mark.parametrize(
    ("write", "page"),
    [(functools.partial(openai_chat.to_provider, dialect=dialect), "openai_chat.md")
     for dialect in ("deepseek", "moonshot", "vllm", "ollama")] + [(gemini.to_provider, "gemini.md")],
    ids=["deepseek", "moonshot", "vllm", "ollama", "gemini"],
)  # fmt: skip
def test_targets_without_breakpoints_report_each_one(write, page):
    converted = write(HISTORY, strict=True)  # a hint is no content: strict does not raise
    hints = [loss for loss in converted.losses if loss.kind == "hint_not_sent"]
    assert [loss.path for loss in hints] == PATHS
    assert_documented(documented_reasons(page), hints)
    assert "hint_not_sent" not in CONTENT_LOSSES
    with pytest.raises(cb.providers.LossError):
        write(HISTORY, strict=["hint_not_sent"])
    bare = cb.Conversation(messages=[cb.Message(role=m.role, content=[
        uncached(b) for b in m.content]) for m in HISTORY])
    assert write(bare).payload == converted.payload  # nothing else changes


def test_anthropic_keeps_them_across_a_switch_from_another_provider():
    """Read from nowhere but our own history, the breakpoints reach Anthropic and read back where they were."""
    converted = anthropic.to_provider(HISTORY)
    assert converted.losses == ()
    back = anthropic.from_provider(converted.payload)
    assert back[0].content[0].cache == C(ttl=3600)
    assert back[1].content[0].cache == C()
    assert back[3].content[0].content[0].cache == C()


def test_mcp_reports_them():
    result = cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="succeeded",
                                content=[cb.TextBlock(text="r", cache=C())], cache=C())
    converted = mcp.to_call_tool_result(result)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$.content[0].cache", "hint_not_sent"), ("$.cache", "hint_not_sent")]
    assert_documented(documented_reasons("mcp.md"), converted.losses)


def test_the_openrouter_dialect_marks_the_parts_and_reports_the_call():
    """OpenRouter takes cache_control on content parts (see test_openrouter_cache.py): only the call's is reported."""
    converted = openai_chat.to_provider(HISTORY, dialect="openrouter")
    hints = [loss for loss in converted.losses if loss.kind == "hint_not_sent"]
    assert [loss.path for loss in hints] == ["$[2].content[0].cache"]
    assert_documented(documented_reasons("openai_chat.md"), hints)
    back = openai_chat.from_provider(converted.payload, dialect="openrouter")
    assert [back[0].content[0].cache, back[1].content[0].cache, back[3].content[0].content[0].cache] == [
        C(ttl=3600), C(), C()]


def _search_result(*caches, cache=None):
    parts = [cb.TextBlock(text=f"part {k}", cache=c) for k, c in enumerate(caches)]
    return cb.SearchResultBlock(source=cb.CitedUri(value="https://example.com/a"), title="A", content=parts,
                                cache=cache)


def test_anthropic_marks_the_text_parts_of_a_search_result():
    """A search result's text parts are ``TextBlockParam``s, each of which takes ``cache_control``."""
    converted = _written(cb.Message(role="user", content=[_search_result(C(ttl=3600), None, C(ttl=3600), cache=C())]))
    native = converted.payload["messages"][0]["content"][0]
    assert [part.get("cache_control") for part in native["content"]] == [
        {"type": "ephemeral", "ttl": "1h"}, None, {"type": "ephemeral", "ttl": "1h"}]
    assert native["cache_control"] == {"type": "ephemeral"}
    assert converted.losses == ()
    back = anthropic.from_provider(converted.payload)
    assert back[0].content[0] == _search_result(C(ttl=3600), None, C(ttl=3600), cache=C())


@pytest.mark.parametrize(
    ("adapter", "sent"),
    [(openai_chat, "$[0].cache.ttl"), (openai_responses, "$[0].cache.ttl"), (gemini, "$[0].cache")],
    ids=["chat", "responses", "gemini"],
)
def test_a_search_result_sent_as_text_keeps_one_breakpoint_and_reports_every_one(adapter, sent):
    """The text a search result becomes carries its own breakpoint, else its last part's; none goes unreported.

    OpenAI marks the text with it (a minute's lifetime is sent as 30m, reported); Gemini has none to mark.
    """
    message = cb.Message(role="user", content=[_search_result(C(), C(ttl=60))])
    converted = adapter.to_provider([message])
    hints = sorted(loss.path for loss in converted.losses if loss.kind == "hint_not_sent")
    assert hints == [sent.replace("$[0]", "$[0].content[0]"), "$[0].content[0].content[0].cache"]


def test_a_verbatim_server_result_reports_the_breakpoints_of_its_parts():
    from test_server_tools import CODE_CALL, CODE_RESULT, QUESTION, _anthropic_reply  # noqa: PLC0415 - fixtures

    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    call, result, text = message.content
    cached = attrs.evolve(result, content=[attrs.evolve(part, cache=C()) for part in result.content], cache=C())
    converted = _written(QUESTION, cb.Message(role="assistant", content=[call, cached, text]))
    native = converted.payload["messages"][1]["content"][1]
    assert native["type"] == CODE_RESULT["type"]
    assert native["cache_control"] == {"type": "ephemeral"}
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        (f"$[1].content[1].content[{k}].cache", "hint_not_sent") for k in range(len(result.content))]


def test_every_target_without_breakpoints_reports_those_inside_a_provider_run_tool_result():
    from test_server_tools import CODE_CALL, CODE_RESULT, QUESTION, _anthropic_reply  # noqa: PLC0415 - fixtures

    call, result, text = _anthropic_reply(CODE_CALL, CODE_RESULT).content
    cached = attrs.evolve(result, content=[attrs.evolve(result.content[0], cache=C())])
    history = [QUESTION, cb.Message(role="assistant", content=[call, cached, text])]
    converted = gemini.to_provider(history)
    hints = [loss.path for loss in converted.losses if loss.kind == "hint_not_sent"]
    assert hints == ["$[1].content[1].content[0].cache"]
    # OpenAI marks the text the result becomes: a Chat text part, a Responses input text of the assistant's
    chat = openai_chat.to_provider(history)
    assert [loss for loss in chat.losses if loss.kind == "hint_not_sent"] == []
    parts = chat.payload["messages"][1]["content"]
    assert [part.get("prompt_cache_breakpoint") for part in parts].count({"mode": "explicit"}) == 1
    responses = openai_responses.to_provider(history)
    assert [loss for loss in responses.losses if loss.kind == "hint_not_sent"] == []
    assert '"prompt_cache_breakpoint": {"mode": "explicit"}' in json.dumps(responses.payload)


def test_a_one_hour_breakpoint_after_a_five_minute_one_raises_the_earlier_one():
    """Anthropic refuses a 1h breakpoint after a 5m one; the earlier ones are sent as 1h and reported."""
    converted = _written(
        cb.Message(role="system", content="Be brief.", cache=C()),
        cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C(ttl=300)), cb.TextBlock(text="b")]),
        cb.Message(role="user", content=[cb.TextBlock(text="c", cache=C(ttl=3600)), cb.TextBlock(text="d", cache=C())]),
    )
    payload = converted.payload
    assert payload["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    first, second = payload["messages"][0]["content"], payload["messages"][1]["content"]
    assert [b.get("cache_control") for b in [*first, *second]] == [
        {"type": "ephemeral", "ttl": "1h"}, None, {"type": "ephemeral", "ttl": "1h"}, {"type": "ephemeral"}]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].cache", "hint_not_sent"), ("$[1].content[0].cache", "hint_not_sent")]
    in_order = _written(cb.Message(role="user", content=[cb.TextBlock(text="a", cache=C(ttl=3600)),
                                                         cb.TextBlock(text="b", cache=C())]))
    assert in_order.losses == ()
