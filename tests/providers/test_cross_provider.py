"""Moving conversations between providers: the losses match the docs, and signatures stay with their issuer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, anthropic, openai_chat

ROOT = Path(__file__).parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"
DOCS = {
    "openai_chat": (ROOT / "docs" / "providers" / "openai_chat.md").read_text(encoding="utf-8"),
    "anthropic": (ROOT / "docs" / "providers" / "anthropic.md").read_text(encoding="utf-8"),
}
REQUESTS = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("response_"))


def anthropic_fixture(name: str) -> cb.Conversation:
    return anthropic.from_provider(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def stable_part(reason: str) -> str:
    """The part of a loss reason that does not depend on the data: up to the first ';', ',' or quote."""
    return re.split(r"[;,']", reason, maxsplit=1)[0].strip()


def test_anthropic_to_openai_chat_losses():
    """Thinking, signatures, a failed outcome and a tool call's breakpoint are exactly what the trip loses here."""
    converted = openai_chat.to_provider(anthropic_fixture("thinking_and_tools.json"))
    assert [(loss.path, stable_part(loss.reason)) for loss in converted.losses] == [
        ("$[1].content[0]", "Chat Completions takes no reasoning back"),
        ("$[1].content[1]", "Chat Completions takes no reasoning back"),
        ("$[1].content[4].cache", "Chat Completions takes prompt_cache_breakpoint on text"),  # on a tool call
        ("$[2].content[1].outcome", "Chat Completions tool messages have no status"),
    ]
    messages = converted.payload["messages"]
    assert messages[1]["content"] == "Let me check."
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]


def test_anthropic_media_to_openai_chat_losses():
    """Files in tool results, Anthropic-only blocks and Anthropic file ids are reported on the way to OpenAI."""
    converted = openai_chat.to_provider(anthropic_fixture("tool_results_media.json"))
    assert [(loss.path, stable_part(loss.reason)) for loss in converted.losses] == [
        # a search result is text before the writer runs (its losses come first), never a JSON part
        ("$[2].content[1].content[1]", "Chat Completions has no search result block"),
        ("$[2].content[1].content[1].citable", "Chat Completions has no search result block"),
        ("$[2].content[0].content[1]", "Chat Completions tool messages carry text only"),
        ("$[2].content[1].content[0]", "Chat Completions tool messages carry text only"),
        (
            '$[2].content[1].metadata["anthropic/is_error"]',
            "metadata has no place in the OpenAI Chat Completions request",
        ),
    ]


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_every_reported_loss_is_in_the_docs_table(path):
    """Each loss met moving Anthropic fixtures to OpenAI Chat (and back) is worded in the docs tables."""
    conversation = anthropic.from_provider(json.loads(path.read_text(encoding="utf-8")))
    to_openai = openai_chat.to_provider(conversation, tool_result_files="user_message")
    back = anthropic.to_provider(openai_chat.from_provider(to_openai.payload))
    for target, losses in (("openai_chat", to_openai.losses), ("anthropic", back.losses)):
        for loss in losses:
            assert stable_part(loss.reason) in DOCS[target], loss


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.conversations(max_messages=6), st.sampled_from(["openai", "gemini/gemini-2.5-pro", "anthropic"]))
def test_signatures_never_reach_another_issuer(conversation, issuer):
    """Whoever issued a signature or redacted reasoning, no other target's payload ever carries it."""
    marked = []
    for message in conversation:
        content = []
        for original in message.content:
            block = original
            if isinstance(original, cb.ReasoningBlock):
                block = cb.ReasoningBlock(
                    text=original.text,
                    signature=original.signature,
                    redacted=original.redacted,
                    metadata={ISSUER_KEY: issuer},
                )
            content.append(block)
        marked.append(cb.Message(role=message.role, content=content, metadata=message.metadata))
    conversation = cb.Conversation(messages=marked)
    paths = {
        f"$[{i}].content[{j}]"
        for i, m in enumerate(conversation)
        for j, b in enumerate(m.content)
        if isinstance(b, cb.ReasoningBlock)
    }
    to_openai = openai_chat.to_provider(conversation)
    assert paths <= {loss.path for loss in to_openai.losses}
    to_anthropic = anthropic.to_provider(conversation)
    sent = [b for m in to_anthropic.payload["messages"] if isinstance(m["content"], list) for b in m["content"]]
    thinking = [b for b in sent if b.get("type") in {"thinking", "redacted_thinking"}]
    signed = [
        p
        for p in paths
        if (b := conversation[int(p[2 : p.index("]")])].content[int(p[p.rindex("[") + 1 : -1])]).signature or b.redacted
    ]
    if issuer == "anthropic":  # sent back, unless redacted bytes are not Anthropic's (not UTF-8): then reported
        assert len(thinking) + len([loss for loss in to_anthropic.losses if loss.path in signed]) == len(signed)
    else:
        assert thinking == []
        assert set(signed) <= {loss.path for loss in to_anthropic.losses}


def test_anthropic_signature_survives_a_trip_through_openai_only_in_the_neutral_history():
    """A thinking block dropped for OpenAI is still in the neutral history and goes back to Anthropic intact."""
    conversation = anthropic_fixture("thinking_and_tools.json")
    assert not any("thinking" in json.dumps(m) for m in openai_chat.to_provider(conversation).payload["messages"])
    again = anthropic.to_provider(conversation, strict=True).payload
    assert again["messages"][1]["content"][0]["signature"].startswith("EqQB")
