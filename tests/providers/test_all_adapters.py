"""One conversation carried through all five adapters in turn loses only what their tables say."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, anthropic, gemini, mcp, openai_chat, openai_responses
from contentblocks.providers._extras import FORMAT_FLAGS
from provider_checks import assert_documented, documented_reasons, examples
from providers import test_anthropic, test_gemini, test_openai_chat, test_openai_responses

mcp_types = pytest.importorskip("mcp.types")

CHAIN = (anthropic, openai_chat, openai_responses, gemini)
REASONS = {
    anthropic: documented_reasons("anthropic.md"),
    openai_chat: documented_reasons("openai_chat.md"),
    openai_responses: documented_reasons("openai_responses.md"),
    gemini: documented_reasons("gemini.md"),
    mcp: documented_reasons("mcp.md"),
}


def _anthropic_request(payload: dict[str, Any]) -> None:
    assert test_anthropic.request_problems(payload) == []


#: Each adapter's own check that a payload fits its SDK's request types exactly.
VALIDATE: dict[Any, Callable[[dict[str, Any]], None]] = {
    anthropic: _anthropic_request,
    openai_chat: test_openai_chat.check_payload,
    openai_responses: test_openai_responses.check_request,
    gemini: test_gemini.validate,
}


def plain(conversation: cb.Conversation) -> list[Any]:
    """The conversation's content without metadata: what a reader of it sees."""
    raw = cb.unstructure(conversation)
    for message in raw:
        message.pop("metadata", None)
        for block in message["content"]:
            block.pop("metadata", None)
            for part in block.get("content", []):
                part.pop("metadata", None)
    return raw


def carry(conversation: cb.Conversation) -> tuple[cb.Conversation, dict[str, list[str]]]:
    """The conversation after each adapter in turn (to its payload and back), and each one's losses."""
    losses: dict[str, list[str]] = {}
    for module in CHAIN:
        converted = module.to_provider(conversation)
        losses[module.__name__.rsplit(".", 1)[-1]] = [str(loss) for loss in converted.losses]
        assert_documented(REASONS[module], converted.losses)
        VALIDATE[module](converted.payload)
        conversation = module.from_provider(converted.payload)
    return conversation, losses


CONVERSATION = cb.Conversation(
    messages=[
        cb.Message(role="system", content="Be brief."),
        cb.Message(
            role="user",
            content=[
                cb.TextBlock(text="Wie ist das Wetter in Zürich? 東京も"),
                cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG\r\n\x1a\n")),
            ],
        ),
        cb.Message(
            role="assistant",
            content=[
                cb.ReasoningBlock(
                    text="Need the tool.", signature="anthropic-signature", metadata={ISSUER_KEY: "anthropic"}
                ),
                cb.TextBlock(text="Let me check."),
                cb.ToolCallBlock(
                    tool_call_id="toolu_01", tool_name="get_weather", input={"city": "Zürich", "days": [1, 2.5]}
                ),
            ],
        ),
        cb.Message(
            role="tool",
            content=[
                cb.ToolResultBlock(
                    tool_call_id="toolu_01",
                    tool_name="get_weather",
                    outcome="succeeded",
                    content=[cb.TextBlock(text="21 °C, sunny")],
                )
            ],
        ),
        cb.Message(role="assistant", content="It is 21 °C and sunny in Zürich."),
    ]
)


def test_chain_loses_only_what_the_tables_say():
    """Through all four conversation adapters, only the documented losses occur, and the rest arrives intact."""
    final, losses = carry(CONVERSATION)
    chat_reasoning_loss = losses["openai_chat"][0] if losses["openai_chat"] else ""
    assert losses == {
        "anthropic": [],
        "openai_chat": [chat_reasoning_loss],
        "openai_responses": [],
        "gemini": ['$[1].content[1].metadata["openai/detail"]: metadata has no place in the Gemini request; not sent'],
    }
    assert chat_reasoning_loss.startswith("$[2].content[0]: ")  # the reasoning block, and nothing else
    expected = plain(CONVERSATION)
    del expected[2]["content"][0]  # the reasoning block, dropped by Chat Completions as its table says
    assert plain(final) == expected
    assert "anthropic-signature" not in json.dumps(cb.unstructure(final))


def test_tool_result_through_mcp():
    """The tool result that survived the chain goes through MCP and back unchanged."""
    final, _ = carry(CONVERSATION)
    result = final[3].content[0]
    converted = mcp.to_call_tool_result(result, strict=True)
    mcp_types.CallToolResult.model_validate(converted.payload)
    assert (
        mcp.from_call_tool_result(converted.payload, tool_call_id=result.tool_call_id, tool_name=result.tool_name)
        == result
    )


def test_signatures_never_cross_providers():
    """Gemini signatures and OpenAI encrypted reasoning never reach another provider's payload."""
    fixtures = Path(__file__).parent / "fixtures"
    from_gemini = gemini.from_provider(
        json.loads((fixtures / "gemini" / "request_full.json").read_text(encoding="utf-8"))
    )
    from_openai = openai_responses.from_provider(
        json.loads((fixtures / "openai_responses" / "request_full.json").read_text(encoding="utf-8"))
    )
    secrets = {"Q2lRQmpyX3NpZ25hdHVyZQ==", "Q2lRQnNpZ19jYWxs", "Q2lRQnRleHRfc2ln", "gAAAAABo-encrypted-blob"}
    for conversation in (from_gemini, from_openai):
        for module in (anthropic, openai_chat, openai_responses, gemini):
            own = (module is gemini and conversation is from_gemini) or (
                module is openai_responses and conversation is from_openai
            )
            if own:
                continue
            text = json.dumps(module.to_provider(conversation).payload)
            assert not any(secret in text for secret in secrets), module.__name__


@examples(20)
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_generated_conversations_through_the_chain(conversation):
    """Any conversation goes through the chain with documented losses and valid payloads, and MCP takes its results."""
    final, _ = carry(conversation)
    for message in final:
        for block in message.content:
            if isinstance(block, cb.ToolResultBlock):
                converted = mcp.to_call_tool_result(block)
                assert_documented(REASONS[mcp], converted.losses)
                mcp_types.CallToolResult.model_validate(converted.payload)


@examples(25)
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_switching_providers_reports_each_loss_once(conversation):
    """A conversation read from one provider and sent to another reports each loss once, and no format flag."""
    for source in CHAIN:
        read = source.from_provider(source.to_provider(conversation).payload)
        for target in CHAIN:
            losses = target.to_provider(read).losses
            seen = [(loss.path, loss.kind) for loss in losses]
            assert len(seen) == len(set(seen)), (source.__name__, target.__name__, losses)
            flagged = [loss for loss in losses if any(f'"{flag}"' in loss.path for flag in FORMAT_FLAGS)]
            assert flagged == [], (source.__name__, target.__name__)
            if target is source:
                assert target.to_provider(read, strict=LOSS_KINDS).losses == ()
