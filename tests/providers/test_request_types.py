"""Each adapter's request TypedDict declares exactly what its writer emits: a strict walk of generated payloads."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contentblocks import strategies
from contentblocks.providers import anthropic, gemini, mcp, openai_chat, openai_responses
from provider_checks import examples, stamp, stamped
from providers.request_walk import walk

SETTINGS = examples(60)

#: Metadata that changes the shape of a message or a request: flags the readers set and fields written back.
SHAPING = {
    "anthropic/in_messages": True,
    "anthropic/string": True,
    "anthropic/same_message": True,
    "anthropic/cache_control": {"type": "ephemeral"},
    "openai/name": "alice",
    "openai/refusal": "No.",
    "openai/audio": {"id": "audio_1"},
    "openai/function_call": {"name": "f", "arguments": "{}"},
    "openai/content": "",
    "openai/content_list": True,
    "gemini/role": None,
    "gemini/same_content": True,
    "mcp/_meta": {"k": 1},
    "mcp/is_error": False,
}
EXTRAS = st.dictionaries(st.sampled_from(sorted(SHAPING)), st.just(None), max_size=3).map(
    lambda keys: {key: SHAPING[key] for key in keys}
)
CONVERSATIONS = stamped(strategies.conversations(max_messages=6, max_text_size=12, max_binary_size=8), EXTRAS)


@SETTINGS
@given(CONVERSATIONS)
def test_anthropic_payloads_fit_anthropic_request(conversation):
    """Every Anthropic payload has only the keys AnthropicRequest declares, required ones included, of its types."""
    assert walk(anthropic.to_provider(conversation).payload, anthropic.AnthropicRequest) == []


@SETTINGS
@given(CONVERSATIONS, st.sampled_from(["drop", "user_message"]))
def test_openai_chat_payloads_fit_openai_chat_request(conversation, files):
    """Every Chat payload, each message of each role, fits OpenAIChatRequest exactly."""
    converted = openai_chat.to_provider(conversation, tool_result_files=files)
    assert walk(converted.payload, openai_chat.OpenAIChatRequest) == []


@SETTINGS
@given(CONVERSATIONS)
def test_openai_responses_payloads_fit_openai_responses_request(conversation):
    """Every Responses payload fits OpenAIResponsesRequest exactly."""
    assert walk(openai_responses.to_provider(conversation).payload, openai_responses.OpenAIResponsesRequest) == []


@SETTINGS
@given(CONVERSATIONS)
def test_gemini_payloads_fit_gemini_request(conversation):
    """Every Gemini payload fits GeminiRequest exactly."""
    assert walk(gemini.to_provider(conversation).payload, gemini.GeminiRequest) == []


@SETTINGS
@given(strategies.tool_result_blocks(), st.data())
def test_mcp_payloads_fit_call_tool_result(block, data):
    """Every CallToolResult written for MCP fits McpCallToolResult exactly."""
    block = stamp(block, data.draw, EXTRAS)
    assert walk(mcp.to_call_tool_result(block).payload, mcp.McpCallToolResult) == []


def test_a_key_the_type_does_not_declare_is_refused():
    """The walk would see a key the writer added without declaring it: the check can fail."""
    assert walk({"messages": [], "stream": True}, anthropic.AnthropicRequest) == [
        "$.stream: AnthropicRequest has no field 'stream'"
    ]
    assert walk({"messages": [{"role": "tool", "content": "x"}]}, anthropic.AnthropicRequest) != []
