"""Payloads handed to the official SDKs as users write it: mypy --strict, seeing the SDKs, must accept it.

``tests/test_typing.py`` runs mypy on this file with the SDKs installed; nothing here runs (no client is made).
Each call must type-check without a cast and give the SDK's own response type, not ``Any``.
"""

from __future__ import annotations

from typing import assert_type

import anthropic as anthropic_sdk
import openai
from google import genai
from google.genai import types as genai_types

import contentblocks as cb
from contentblocks.providers import Converted, anthropic, gemini, mcp, openai_chat, openai_responses


def anthropic_turn(client: anthropic_sdk.Anthropic, history: cb.Conversation) -> cb.Message:
    """One Messages API call: the payload unpacks into ``messages.create``."""
    converted = assert_type(anthropic.to_provider(history), Converted[anthropic.AnthropicRequest])
    response = client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, **converted.payload)
    assert_type(response, anthropic_sdk.types.Message)
    return anthropic.from_response(response).require_message()


def openai_chat_turn(client: openai.OpenAI, history: cb.Conversation) -> cb.Message:
    """One Chat Completions call: the payload unpacks into ``chat.completions.create``."""
    converted = assert_type(openai_chat.to_provider(history), Converted[openai_chat.OpenAIChatRequest])
    completion = client.chat.completions.create(model="gpt-4o", **converted.payload)
    assert_type(completion, openai.types.chat.ChatCompletion)
    return openai_chat.from_response(completion).require_message()


def openai_responses_turn(client: openai.OpenAI, history: cb.Conversation) -> cb.Message:
    """One Responses API call: the payload unpacks into ``responses.create``."""
    converted = assert_type(openai_responses.to_provider(history), Converted[openai_responses.OpenAIResponsesRequest])
    response = client.responses.create(model="gpt-5", **converted.payload)
    assert_type(response, openai.types.responses.Response)
    return openai_responses.from_response(response).require_message()


def gemini_turn(client: genai.Client, history: cb.Conversation) -> cb.Message:
    """One generateContent call: the REST payload's fields go to ``contents`` and the config by name."""
    converted = assert_type(gemini.to_provider(history), Converted[gemini.GeminiRequest])
    config = genai_types.GenerateContentConfig(system_instruction=converted.payload.get("systemInstruction"))
    response = client.models.generate_content(
        model="gemini-2.5-flash", contents=converted.payload["contents"], config=config
    )
    assert_type(response, genai_types.GenerateContentResponse)
    return gemini.from_response(response).require_message()


def mcp_result(block: cb.ToolResultBlock) -> bool:
    """A tool result written for MCP: its payload names its fields."""
    converted = assert_type(mcp.to_call_tool_result(block), Converted[mcp.McpCallToolResult])
    return converted.payload.get("isError", False)
