"""A seal is the library's bookkeeping: no adapter sends it, and none reports it as a loss."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses
from strategies import conversations

KEY = cb.SealKey("k1", b"k" * 32)
ADAPTERS = {"anthropic": anthropic, "openai_chat": openai_chat, "openai_responses": openai_responses,
            "gemini": gemini}


def _convert(name: str, conversation: cb.Conversation) -> tuple[str, Any]:
    try:
        converted = ADAPTERS[name].to_provider(conversation)
    except (ValueError, TypeError) as e:  # whatever an adapter refuses, it must refuse sealed or not
        return "raised", type(e).__name__
    return json.dumps(converted.payload, sort_keys=True), converted.losses


@pytest.mark.parametrize("name", ADAPTERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversation=conversations(max_messages=6))
def test_a_sealed_conversation_converts_as_the_unsealed_one(name: str, conversation: cb.Conversation) -> None:
    """to_provider of a sealed conversation sends the same content and reports the same losses as unsealed."""
    sealed = cb.seal(conversation, KEY, context="conv")
    assert _convert(name, sealed) == _convert(name, conversation)


@pytest.mark.parametrize("name", ADAPTERS)
def test_no_adapter_sends_or_reports_the_seal(name: str) -> None:
    """Neither the seal's key nor its MAC reaches a request or a loss, on a message that has other metadata too."""
    conversation = cb.Conversation(messages=[
        cb.Message(role="user", content="Weather in Oslo?", metadata={"app/trace": "t1"}),
        cb.Message(role="assistant", content=[
            cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"})]),
    ])
    sealed = cb.seal(conversation, KEY)
    converted = ADAPTERS[name].to_provider(sealed)
    mac = sealed[0].metadata["contentblocks/seal"].split(".")[1]
    sent = json.dumps(converted.payload)
    assert "contentblocks/seal" not in sent
    assert mac not in sent
    assert [loss for loss in converted.losses if "contentblocks/seal" in loss.path] == []
    assert converted.losses == ADAPTERS[name].to_provider(conversation).losses
