"""OpenAI-compatible reasoning dialects of the Chat Completions adapter: reading, writing back, and what is lost."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import ISSUER_KEY, openai_chat
from provider_checks import assert_documented, documented_reasons

REASONS = documented_reasons("openai_chat.md")


def completion(message: dict[str, Any], model: str, finish: str = "stop") -> dict[str, Any]:
    """A ChatCompletion around ``message``."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}]}


WEATHER_CALL = {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Hangzhou"}'}}

#: DeepSeek thinking mode with a tool call: ``reasoning_content`` beside ``content`` and ``tool_calls``
#: (https://api-docs.deepseek.com/guides/thinking_mode, "Tool Calls").
DEEPSEEK = completion({"role": "assistant", "content": "",
                       "reasoning_content": "The user asks about tomorrow's weather; I should call get_weather.",
                       "tool_calls": [WEATHER_CALL]}, "deepseek-v4-pro", "tool_calls")

#: Kimi's thinking models: ``reasoning_content`` beside ``content``
#: (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model).
MOONSHOT = completion({"role": "assistant", "content": "1+1=2 follows from the Peano axioms.",
                       "reasoning_content": "Define 2 as the successor of 1, then apply the definition of +."},
                      "kimi-k2-thinking")

#: OpenRouter's ``reasoning_details``: a summary, encrypted data and a signed text, each with id, format and
#: index, beside the ``reasoning`` string they derive (https://openrouter.ai/docs/use-cases/reasoning-tokens).
OPENROUTER_DETAILS = [
    {"type": "reasoning.summary", "summary": "Weighed the constraints first.", "id": "reasoning-summary-1",
     "format": "anthropic-claude-v1", "index": 0},
    {"type": "reasoning.encrypted", "data": "eyJlbmNyeXB0ZWQiOiJ0cnVlIn0=", "id": "reasoning-encrypted-1",
     "format": "anthropic-claude-v1", "index": 1},
    {"type": "reasoning.text", "text": "Step 1: read the question.", "signature": "sha256:abc123",
     "id": "reasoning-text-1", "format": "anthropic-claude-v1", "index": 2},
]
OPENROUTER = completion({"role": "assistant", "content": "Done.",
                         "reasoning": "Weighed the constraints first.Step 1: read the question.",
                         "reasoning_details": copy.deepcopy(OPENROUTER_DETAILS)}, "anthropic/claude-sonnet-4")

#: vLLM's ``reasoning`` (https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/), and the same reply from a
#: vLLM before 0.11, which named it ``reasoning_content`` (https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html).
VLLM = completion({"role": "assistant", "content": "9.8 is greater.", "reasoning": "Compare 9.11 and 9.80."},
                  "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B")
VLLM_OLD = completion({"role": "assistant", "content": "9.8 is greater.",
                       "reasoning_content": "Compare 9.11 and 9.80."}, "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B")

#: Ollama's OpenAI compatibility: ``reasoning`` on the message (its ``openai.Message`` type,
#: https://github.com/ollama/ollama/blob/main/openai/openai.go; https://docs.ollama.com/api/openai-compatibility).
OLLAMA = completion({"role": "assistant", "content": "Fideism holds that faith is independent of reason.",
                     "reasoning": "Word: fideism; root: fides."}, "gemma4:12b")

GOLDEN = {"deepseek": DEEPSEEK, "moonshot": MOONSHOT, "openrouter": OPENROUTER, "vllm": VLLM, "ollama": OLLAMA}
REPLAYING = ("deepseek", "moonshot", "openrouter")


def history(reply: cb.Message) -> cb.Conversation:
    """A turn around ``reply``: the question, the reply, and the answer to each of its tool calls."""
    messages = [cb.Message(role="user", content="Question?"), reply]
    for block in reply.content:
        if isinstance(block, cb.ToolCallBlock):
            result = cb.ToolResultBlock(tool_call_id=block.tool_call_id, tool_name=block.tool_name,
                                        outcome="succeeded", content=[cb.TextBlock(text="24 C")])
            messages.append(cb.Message(role="tool", content=[result]))
    return cb.Conversation(messages=messages)


@pytest.mark.parametrize("dialect", GOLDEN)
def test_the_documented_reasoning_is_a_block_before_the_text_and_calls(dialect):
    """Each dialect's documented field becomes one reasoning block per item, first, issued by the dialect."""
    message = openai_chat.from_response(GOLDEN[dialect], dialect=dialect).message
    reasoning = [b for b in message.content if isinstance(b, cb.ReasoningBlock)]
    assert reasoning
    assert message.content[: len(reasoning)] == tuple(reasoning)
    assert {b.metadata[ISSUER_KEY] for b in reasoning} == {dialect}
    assert not any(key.startswith("openai/reasoning") for key in message.metadata)


def test_the_golden_replies_read_as_documented():
    """DeepSeek's text and call; OpenRouter's summary, encrypted data (its UTF-8 bytes) and signed text."""
    deepseek = openai_chat.from_response(DEEPSEEK, dialect="deepseek").message
    assert deepseek.content[0].text.startswith("The user asks")
    assert deepseek.content[1].tool_name == "get_weather"
    summary, encrypted, text, answer = openai_chat.from_response(OPENROUTER, dialect="openrouter").message.content
    assert (summary.text, summary.signature) == ("Weighed the constraints first.", None)
    assert (encrypted.redacted, encrypted.text) == (b"eyJlbmNyeXB0ZWQiOiJ0cnVlIn0=", None)
    assert (text.text, text.signature) == ("Step 1: read the question.", "sha256:abc123")
    assert text.metadata["openai/reasoning_detail"] == {"type": "reasoning.text", "id": "reasoning-text-1",
                                                        "format": "anthropic-claude-v1", "index": 2}
    assert answer.text == "Done."


def test_vllm_reads_both_names_of_its_field():
    """vLLM's ``reasoning`` and its older ``reasoning_content`` read alike; both at once (the same text) too."""
    both = copy.deepcopy(VLLM)
    both["choices"][0]["message"]["reasoning_content"] = "Compare 9.11 and 9.80."
    replies = [openai_chat.from_response(raw, dialect="vllm") for raw in (VLLM, VLLM_OLD, both)]
    assert replies[0] == replies[1] == replies[2]


def test_the_default_dialect_keeps_today_s_reading():
    """Without a dialect the reasoning fields stay verbatim message metadata, as before dialects existed."""
    message = openai_chat.from_response(DEEPSEEK).message
    assert message.metadata["openai/reasoning_content"].startswith("The user asks")
    assert not any(isinstance(b, cb.ReasoningBlock) for b in message.content)


@pytest.mark.parametrize("dialect", REPLAYING)
def test_a_same_dialect_round_trip_loses_nothing(dialect):
    """Reply -> history -> request -> history: the same history, and no loss of any kind."""
    conversation = history(openai_chat.from_response(GOLDEN[dialect], dialect=dialect).message)
    converted = openai_chat.to_provider(conversation, dialect=dialect)
    assert converted.losses == ()
    assert openai_chat.from_provider(converted.payload, dialect=dialect) == conversation


def test_openrouter_details_go_back_unmodified():
    """The items, with their signatures and encrypted data, are sent back as they came."""
    conversation = history(openai_chat.from_response(OPENROUTER, dialect="openrouter").message)
    sent = openai_chat.to_provider(conversation, dialect="openrouter").payload["messages"][1]
    assert sent["reasoning_details"] == OPENROUTER_DETAILS
    assert "reasoning" not in sent


@pytest.mark.parametrize("dialect", ["deepseek", "moonshot"])
def test_reasoning_content_goes_back_in_its_field(dialect):
    """DeepSeek and Moonshot get the text back as ``reasoning_content`` on the assistant message."""
    conversation = history(openai_chat.from_response(GOLDEN[dialect], dialect=dialect).message)
    sent = openai_chat.to_provider(conversation, dialect=dialect).payload["messages"][1]
    assert sent["reasoning_content"] == GOLDEN[dialect]["choices"][0]["message"]["reasoning_content"]


@pytest.mark.parametrize("source", GOLDEN)
@pytest.mark.parametrize("target", openai_chat.DIALECTS)
def test_reasoning_goes_only_to_the_dialect_that_issued_and_takes_it(source, target):
    """Every cell of source x target: kept for a replaying dialect's own reasoning, else dropped and reported."""
    conversation = history(openai_chat.from_response(GOLDEN[source], dialect=source).message)
    converted = openai_chat.to_provider(conversation, dialect=target)
    sent = converted.payload["messages"][1]
    kept = source == target and target in REPLAYING
    assert bool({"reasoning_content", "reasoning", "reasoning_details"} & sent.keys()) == kept
    reasoning = [j for j, b in enumerate(conversation[1].content) if isinstance(b, cb.ReasoningBlock)]
    lost = [(loss.path, loss.kind) for loss in converted.losses]
    if kept:
        assert lost == []
    else:
        expected = [(f"$[1].content[{j}]", "content_dropped" if conversation[1].content[j].text
                     else "state_not_replayed") for j in reasoning]
        assert lost == expected
    assert_documented(REASONS, converted.losses)


def test_another_provider_s_reasoning_is_not_sent_to_a_dialect():
    """Anthropic's signed thinking is dropped for DeepSeek: text as content_dropped, never sent."""
    thought = cb.ReasoningBlock(text="Plan.", signature="sig", metadata={ISSUER_KEY: "anthropic"})
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"),
                                             cb.Message(role="assistant", content=[thought, cb.TextBlock(text="Hello")])])
    converted = openai_chat.to_provider(conversation, dialect="deepseek")
    assert converted.payload["messages"][1] == {"role": "assistant", "content": "Hello"}
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[1].content[0]", "content_dropped")]
    assert_documented(REASONS, converted.losses)


def test_with_keys_an_unsealed_message_s_reasoning_is_not_replayed():
    """A sealed reply's reasoning goes back to DeepSeek; the same message unsealed (or forged) does not."""
    key = cb.SealKey("k1", b"k" * 32)
    reply = openai_chat.from_response(DEEPSEEK, dialect="deepseek").message
    sealed = history(cb.seal(reply, key))
    assert openai_chat.to_provider(sealed, dialect="deepseek", keys=key).losses == ()
    forged = openai_chat.to_provider(history(reply), dialect="deepseek", keys=key)
    assert "reasoning_content" not in forged.payload["messages"][1]
    assert [(loss.path, loss.kind) for loss in forged.losses] == [("$[1].content[0]", "content_dropped")]


def test_a_narrower_issuer_takes_only_its_own():
    """``issuer=`` narrows the target: reasoning recorded for the dialect alone does not match a model family."""
    conversation = history(openai_chat.from_response(MOONSHOT, dialect="moonshot").message)
    converted = openai_chat.to_provider(conversation, dialect="moonshot", issuer="moonshot/kimi-k2")
    assert [loss.kind for loss in converted.losses] == ["content_dropped"]


def test_signatures_and_redacted_bytes_have_no_string_field():
    """A signed block sent to DeepSeek goes as its text, its signature reported; redacted bytes are dropped."""
    signed = cb.ReasoningBlock(text="Plan.", signature="sig", metadata={ISSUER_KEY: "deepseek"})
    hidden = cb.ReasoningBlock(redacted=b"x", metadata={ISSUER_KEY: "deepseek"})
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"), cb.Message(
        role="assistant", content=[signed, hidden, cb.TextBlock(text="Hello")])])
    converted = openai_chat.to_provider(conversation, dialect="deepseek")
    assert converted.payload["messages"][1]["reasoning_content"] == "Plan."
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].content[0].signature", "state_not_replayed"), ("$[1].content[1]", "state_not_replayed")]
    assert_documented(REASONS, converted.losses)


def test_reasoning_after_the_text_is_moved_ahead_of_it_and_several_are_joined():
    """The field comes before the content when read back: a later block is moved, a second one joined."""
    first, second = (cb.ReasoningBlock(text=t, metadata={ISSUER_KEY: "moonshot"}) for t in ("A. ", "B."))
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"), cb.Message(
        role="assistant", content=[first, cb.TextBlock(text="Hello"), second])])
    converted = openai_chat.to_provider(conversation, dialect="moonshot")
    assert converted.payload["messages"][1]["reasoning_content"] == "A. B."
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].content[2]", "order_changed"), ("$[1].content[2]", "content_degraded")]
    assert_documented(REASONS, converted.losses)


def test_a_dialect_is_checked_like_any_option():
    """An unknown dialect is a ValueError naming the values, a non-string a TypeError, before any work."""
    with pytest.raises(ValueError, match="'openai', 'deepseek'"):
        openai_chat.to_provider(cb.Conversation(messages=[]), dialect="kimi")
    with pytest.raises(TypeError):
        openai_chat.from_response(DEEPSEEK, dialect=None)
    with pytest.raises(ValueError, match="dialect"):
        openai_chat.preflight(cb.Conversation(messages=[]), dialect="grok")


def test_an_item_no_block_holds_is_kept_verbatim_and_reported_when_sent():
    """An item of an unknown type, or an empty one, is kept in the message metadata; not sent, it is reported."""
    odd = [{"type": "reasoning.video", "index": 0}, {"type": "reasoning.summary", "summary": "", "index": 1}]
    raw = completion({"role": "assistant", "content": "x", "reasoning_details": [*odd, OPENROUTER_DETAILS[0]]}, "m")
    message = openai_chat.from_response(raw, dialect="openrouter").message
    assert message.metadata["openai/other_reasoning_details"] == odd
    assert [type(b) for b in message.content] == [cb.ReasoningBlock, cb.TextBlock]
    losses = openai_chat.to_provider(cb.Conversation(messages=[message]), dialect="openrouter").losses
    assert [(loss.path, loss.kind) for loss in losses] == [
        ('$[0].metadata["openai/other_reasoning_details"]', "metadata_not_sent")]


def test_a_malformed_detail_is_refused_at_its_path():
    """An item that is not an object, or whose type is not a string, is a ValidationError at its path."""
    for item, where in (("reasoning", ""), ({"type": 7, "index": 0}, ".type")):
        raw = completion({"role": "assistant", "content": "x", "reasoning_details": [item]}, "m")
        with pytest.raises(cb.ValidationError) as info:
            openai_chat.from_response(raw, dialect="openrouter")
        assert info.value.errors[0][0] == f"$.choices[0].message.reasoning_details[0]{where}"


def test_a_reasoning_string_that_is_not_the_details_text_is_kept_verbatim():
    """OpenRouter's ``reasoning`` string is dropped as derived only when it is the items' text."""
    raw = copy.deepcopy(OPENROUTER)
    raw["choices"][0]["message"]["reasoning"] = "Something else."
    message = openai_chat.from_response(raw, dialect="openrouter").message
    assert message.metadata["openai/reasoning"] == "Something else."


# ---------------------------------------------------------------------------------------- DeepSeek's turns


def _call(k: int) -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=f"call_{k}", tool_name="lookup", input={})


@st.composite
def deepseek_histories(draw: st.DrawFn) -> cb.Conversation:
    """Histories of user turns, each with assistant messages that may call tools (answered by tool messages)."""
    messages: list[cb.Message] = []
    calls = 0
    for _ in range(draw(st.integers(1, 4))):
        messages.append(cb.Message(role="user", content="Question?"))
        for _ in range(draw(st.integers(0, 3))):
            thought = cb.ReasoningBlock(text=f"Thought {len(messages)}.", metadata={ISSUER_KEY: "deepseek"})
            if draw(st.booleans()):
                calls += 1
                messages.append(cb.Message(role="assistant", content=[thought, _call(calls)]))
                result = cb.ToolResultBlock(tool_call_id=f"call_{calls}", tool_name="lookup", outcome="succeeded",
                                            content=[cb.TextBlock(text="ok")])
                messages.append(cb.Message(role="tool", content=[result]))
            else:
                messages.append(cb.Message(role="assistant", content=[thought, cb.TextBlock(text="Answer.")]))
    return cb.Conversation(messages=messages)


@given(deepseek_histories())
def test_deepseek_takes_reasoning_back_from_the_current_turn_and_turns_that_called_tools(conversation):
    """Reasoning is sent exactly on the assistant messages after the last user message and on those of an earlier
    turn that called a tool; every other one is dropped and reported at its block."""
    converted = openai_chat.to_provider(conversation, dialect="deepseek")
    last_user = max(i for i, m in enumerate(conversation) if m.role == "user")
    turns: list[list[int]] = []
    for i, message in enumerate(conversation):
        if message.role == "user":
            turns.append([])
        elif message.role == "assistant":
            turns[-1].append(i)
    expected = {i for turn in turns for i in turn
                if i > last_user or any(isinstance(b, cb.ToolCallBlock) for j in turn for b in conversation[j].content)}
    assistants = [i for i, m in enumerate(conversation) if m.role == "assistant"]
    sent = [m for m in converted.payload["messages"] if m["role"] == "assistant"]
    assert {i for i, m in zip(assistants, sent, strict=True) if "reasoning_content" in m} == expected
    assert [loss.path for loss in converted.losses] == [f"$[{i}].content[0]" for i in assistants if i not in expected]
    assert {loss.kind for loss in converted.losses} <= {"content_dropped"}
    assert_documented(REASONS, converted.losses)


def test_preflight_judges_the_request_of_the_dialect():
    """preflight takes to_provider's dialect and issuer: a reasoning-only message is judged as it would be sent."""
    thought = cb.ReasoningBlock(text="Plan.", metadata={ISSUER_KEY: "moonshot"})
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Hi"),
                                             cb.Message(role="assistant", content=[thought])])
    rules = [r.rule for r in openai_chat.preflight(conversation, dialect="moonshot")]
    assert rules == ["openai_chat/assistant-content"]  # sent with reasoning_content and no content
    assert [r.rule for r in openai_chat.preflight(conversation)] == []  # not sent at all
    with pytest.raises(TypeError, match="issuer"):
        openai_chat.preflight(conversation, dialect="moonshot", issuer=7)
