"""Every kind of reply the providers document reads, built with the SDKs' own types: never refused whole."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import anthropic, mcp, openai_chat, openai_responses
from provider_checks import anthropic_message

pytest.importorskip("anthropic")
pytest.importorskip("openai")
from anthropic.types import Message as AnthropicMessage
from openai.types.chat import ChatCompletion
from openai.types.responses import Response


def _anthropic(content: list[Any], stop: str | None) -> AnthropicMessage:
    return AnthropicMessage.model_validate(anthropic_message(content, stop, output_tokens=0))


def _chat(message: dict[str, Any], finish: str) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}, "logprobs": None}
            ],
        }
    )


def _responses(output: list[Any], status: str = "completed", **fields: Any) -> Response:
    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-5",
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            **fields,
        }
    )


TEXT = {"type": "text", "text": "Par"}
SERVER_TOOL = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
SEARCH_ERROR = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
}


@pytest.mark.parametrize(
    ("content", "stop", "blocks", "reason"),
    [
        ([], "refusal", None, "refusal"),
        ([TEXT], "refusal", ["TextBlock"], "refusal"),
        ([SERVER_TOOL], "pause_turn", ["ServerToolCallBlock"], "pause"),
        ([TEXT], "model_context_window_exceeded", ["TextBlock"], "max_tokens"),
        (
            [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
            "max_tokens",
            ["ToolCallBlock"],
            "max_tokens",
        ),
        ([], None, None, None),
        ([{"type": "text", "text": ""}], "end_turn", None, "end_turn"),
        ([{"type": "thinking", "thinking": "", "signature": "EqQB"}], "end_turn", ["ReasoningBlock"], "end_turn"),
        ([SERVER_TOOL, SEARCH_ERROR], "end_turn", ["ServerToolCallBlock", "ServerToolResultBlock"], "end_turn"),
    ],
)
def test_documented_anthropic_replies_read(content, stop, blocks, reason):
    """Refusals, pauses, cut-offs, empty and empty-text content, empty thinking, server tool errors all read."""
    reply = anthropic.from_response(_anthropic(content, stop))
    assert (reply.message and [type(b).__name__ for b in reply.message.content], reply.stop_reason) == (blocks, reason)


@pytest.mark.parametrize(
    ("message", "finish", "blocks", "reason"),
    [
        ({"content": None}, "content_filter", None, "content_filter"),
        ({"content": ""}, "length", None, "max_tokens"),
        ({"content": "Par"}, "length", ["TextBlock"], "max_tokens"),
        ({"content": None, "refusal": "I can't help with that."}, "stop", ["RefusalBlock"], "refusal"),
        ({"content": "", "refusal": ""}, "stop", None, "end_turn"),
        ({"content": "", "annotations": []}, "content_filter", None, "content_filter"),
        ({"content": None, "refusal": None, "annotations": None, "audio": None}, "stop", None, "end_turn"),
        (
            {"content": None, "audio": {"id": "audio_1", "data": "UklGRg==", "expires_at": 1, "transcript": "Hi"}},
            "stop",
            ["TextBlock"],
            "end_turn",
        ),
        (
            {
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"q": "the lo'}}
                ],
            },
            "length",
            ["ToolCallBlock"],
            "max_tokens",
        ),
    ],
)
def test_documented_chat_replies_read(message, finish, blocks, reason):
    """Content filters, length cut-offs, refusals only, empty content and refusal, audio, cut arguments all read."""
    reply = openai_chat.from_response(_chat(message, finish))
    assert (reply.message and [type(b).__name__ for b in reply.message.content], reply.stop_reason) == (blocks, reason)


def _item(*parts: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": status, "content": list(parts)}


PARTIAL = {"type": "output_text", "text": "Par", "annotations": []}


@pytest.mark.parametrize(
    ("output", "status", "fields", "blocks", "reason"),
    [
        ([], "completed", {}, None, "end_turn"),
        ([], "incomplete", {"incomplete_details": {"reason": "max_output_tokens"}}, None, "max_tokens"),
        (
            [_item(PARTIAL, status="incomplete")],
            "incomplete",
            {"incomplete_details": {"reason": "content_filter"}},
            ["TextBlock"],
            "content_filter",
        ),
        ([], "failed", {"error": {"code": "server_error", "message": "The server had an error."}}, None, "error"),
        ([_item({"type": "refusal", "refusal": "No."})], "completed", {}, ["RefusalBlock"], "refusal"),
        ([_item({"type": "output_text", "text": "", "annotations": []})], "completed", {}, None, "end_turn"),
        ([_item()], "completed", {}, None, "end_turn"),
        (
            [{"type": "reasoning", "id": "rs_1", "summary": []}],
            "incomplete",
            {"incomplete_details": {"reason": "max_output_tokens"}},
            ["ReasoningBlock"],
            "max_tokens",
        ),
        ([], "cancelled", {}, None, "other"),
        ([], "incomplete", {}, None, "other"),
        (
            [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "f",
                    "arguments": "",
                    "status": "incomplete",
                }
            ],
            "incomplete",
            {"incomplete_details": {"reason": "max_output_tokens"}},
            ["ToolCallBlock"],
            "max_tokens",
        ),
    ],
)
def test_documented_responses_replies_read(output, status, fields, blocks, reason):
    """Empty output, incomplete and failed responses, refusals only, empty text and bare reasoning all read."""
    reply = openai_responses.from_response(_responses(output, status, **fields))
    assert (reply.message and [type(b).__name__ for b in reply.message.content], reply.stop_reason) == (blocks, reason)


def test_a_failed_response_reports_its_status():
    """A failed response reads as no message, stop reason error, its status as the provider's reason."""
    reply = openai_responses.from_response(_responses([], "failed", error={"code": "server_error", "message": "x"}))
    assert (reply.message, reply.stop_reason, reply.provider_stop_reason) == (None, "error", "failed")


def test_an_mcp_result_whose_structured_content_no_block_holds_reads():
    """structuredContent with a 30-digit integer is kept as its JSON text, flagged; the other content reads."""
    result = {
        "content": [{"type": "text", "text": "ordered"}],
        "structuredContent": {"order": 123456789012345678901234567890},
    }
    block = mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="order")
    text, kept = block.content
    assert text == cb.TextBlock(text="ordered")
    assert kept == cb.TextBlock(
        text='{"order":123456789012345678901234567890}', metadata={"mcp/invalid_structured": True}
    )


@pytest.mark.parametrize(
    "result",
    [
        {"content": []},
        {"content": [{"type": "text", "text": "boom"}], "isError": True},
        {"content": [{"type": "text", "text": ""}]},
        {"content": [], "structuredContent": {"a": 1}},
    ],
)
def test_documented_mcp_results_read(result):
    """Empty content, errors, empty text and structured content alone all read as a tool result."""
    block = mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="t")
    assert block.outcome == ("failed" if result.get("isError") else "succeeded")
