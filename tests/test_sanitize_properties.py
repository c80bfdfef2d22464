"""Properties of sanitize over generated hostile histories, for each preset policy."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks._sanitize._walk import NATIVE_FLAGS, REFUSED_RESULT_TEXT
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses
from history_strategies import hostile_histories
from strategies import FORGED, conversations

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEY = cb.SealKey("k1", b"k" * 32)
CONTEXT = "conv"
PRESETS = [cb.SanitizePolicy.browser_client(), cb.SanitizePolicy.internal_service()]
PRESET_IDS = ["browser_client", "internal_service"]


def _blocks(message: cb.Message) -> list[Any]:
    found: list[Any] = []
    for block in message.content:
        found.append(block)
        if isinstance(block, cb.ToolResultBlock):
            found.extend(block.content)
    return found


def _stand_in(message: cb.Message) -> bool:
    """Whether ``message`` is the tool message sanitize writes for sealed calls whose results it refused."""
    return message.role == "tool" and all(
        result.outcome == "failed" and [b.text for b in result.content] == [REFUSED_RESULT_TEXT]
        for result in message.tool_results())


def _sanitized(history: list[cb.Message], policy: cb.SanitizePolicy) -> tuple[cb.Conversation, list[str]]:
    clean = cb.sanitize(history, policy, keys=KEY, context=CONTEXT)
    statuses = [check.status for check in cb.verify_seals(clean.payload, KEY, context=CONTEXT)]
    return clean.payload, statuses


@pytest.mark.parametrize("policy", PRESETS, ids=PRESET_IDS)
@SETTINGS
@given(st.data())
def test_nothing_unsealed_keeps_system_content_state_or_namespaced_metadata(
    policy: cb.SanitizePolicy, data: st.DataObject
) -> None:
    """After sanitize, system content, provider state and namespaced metadata appear only in sealed messages."""
    history = data.draw(hostile_histories(KEY, context=CONTEXT))
    conversation, statuses = _sanitized(history, policy)
    for message, status in zip(conversation, statuses, strict=True):
        if status == "sealed" or _stand_in(message):
            continue
        assert message.role in policy.roles
        assert not any("/" in key for key in message.metadata)
        if not policy.keep_user_metadata:
            assert dict(message.metadata) == {}
        for block in _blocks(message):
            assert not any("/" in key for key in block.metadata), block
            assert not NATIVE_FLAGS.intersection(block.metadata)
            if isinstance(block, cb.ReasoningBlock):
                assert block.signature is None
                assert block.redacted is None
            if isinstance(block, cb.FileBlock):
                assert not isinstance(block.source, cb.ReferenceSource)
                assert not isinstance(block.source, cb.UrlSource) or block.source.url.startswith("https://example.com")


@pytest.mark.parametrize("policy", PRESETS, ids=PRESET_IDS)
@SETTINGS
@given(st.data())
def test_no_forged_tool_block_survives(policy: cb.SanitizePolicy, data: st.DataObject) -> None:
    """Every tool call kept is in a sealed message; every tool result answers one; no forged result text is kept."""
    history = data.draw(hostile_histories(KEY, context=CONTEXT))
    conversation, statuses = _sanitized(history, policy)
    sealed_calls = {call.tool_call_id for message, status in zip(conversation, statuses, strict=True)
                    if status == "sealed" for call in message.tool_calls()}
    for message, status in zip(conversation, statuses, strict=True):
        if status != "sealed":
            assert message.tool_calls() == ()
        for result in message.tool_results():
            assert result.tool_call_id in sealed_calls
        assert FORGED not in cb.dumps(message)
    assert all(message in history for message, status in zip(conversation, statuses, strict=True) if status == "sealed")


@pytest.mark.parametrize("policy", PRESETS, ids=PRESET_IDS)
@SETTINGS
@given(st.data())
def test_every_provider_accepts_the_result_with_a_user_turn_appended(policy: cb.SanitizePolicy, data: st.DataObject) -> None:
    """preflight of each provider finds nothing to refuse in a sanitized history plus the next user turn."""
    history = data.draw(hostile_histories(KEY, context=CONTEXT))
    conversation = cb.sanitize(history, policy, keys=KEY, context=CONTEXT).payload
    extended = conversation.append(cb.Message(role="user", content="next question"))
    assert anthropic.preflight(extended) == ()
    assert openai_chat.preflight(extended) == ()
    assert openai_responses.preflight(extended) == ()
    assert gemini.preflight(extended) == ()


@pytest.mark.parametrize("policy", PRESETS, ids=PRESET_IDS)
@SETTINGS
@given(conversations(max_messages=6))
def test_a_sealed_unmodified_history_is_kept_as_it_is(policy: cb.SanitizePolicy, history: cb.Conversation) -> None:
    """Sanitize of any sealed conversation, from the object or its JSON, is the identity with no loss."""
    sealed = cb.seal(history, KEY, context=CONTEXT)
    clean = cb.sanitize(sealed, policy, keys=KEY, context=CONTEXT)
    assert clean.payload is sealed
    assert clean.losses == ()
    reloaded = cb.sanitize(cb.unstructure(sealed), policy, keys=KEY, context=CONTEXT)
    assert reloaded.payload == sealed
    assert reloaded.losses == ()


@pytest.mark.parametrize("policy", PRESETS, ids=PRESET_IDS)
@SETTINGS
@given(st.data())
def test_every_loss_has_a_path_into_the_given_history(policy: cb.SanitizePolicy, data: st.DataObject) -> None:
    """Each loss names a message of the history as given, and a history with no loss comes back equal."""
    history = data.draw(hostile_histories(KEY, context=CONTEXT))
    clean = cb.sanitize(history, policy, keys=KEY, context=CONTEXT)
    for loss in clean.losses:
        assert loss.path.startswith("$[")
        assert int(loss.path[2 : loss.path.index("]")]) < len(history)
        assert loss.reason
    if not clean.losses:
        assert list(clean.payload) == history
