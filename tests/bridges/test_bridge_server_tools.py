"""Tools a provider ran, through every framework bridge: the frameworks' documented shapes read as server blocks,
written back equal, and server blocks of any issuer written as the frameworks' own provider-run forms."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.bridges import langchain, pydantic_ai, vercel_ai
from contentblocks.providers import LOSS_KINDS, anthropic

T = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

#: An Anthropic web search, as Anthropic's Messages API documents it
#: (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool): read by the Anthropic adapter.
ANTHROPIC_TURN = {"role": "assistant", "content": [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "Oslo weather"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
        {"type": "web_search_result", "url": "https://example.com/oslo", "title": "Oslo", "encrypted_content": "E1",
         "page_age": "1 day"}]},
    {"type": "text", "text": "It is 4 C in Oslo."}]}


def _anthropic_conversation() -> cb.Conversation:
    return anthropic.from_provider({"messages": [{"role": "user", "content": "Weather in Oslo?"}, ANTHROPIC_TURN]})


# --- pydantic-ai ----------------------------------------------------------------------------------------------


def test_pydantic_ai_native_tool_parts_read_as_server_blocks_and_back():
    """``NativeToolCallPart`` / ``NativeToolReturnPart`` as pydantic-ai's Anthropic model builds them
    (pydantic_ai/messages.py; https://ai.pydantic.dev/builtin-tools/): server blocks issued by ``anthropic``."""
    m = pytest.importorskip("pydantic_ai.messages")
    history = [
        m.ModelRequest(parts=[m.UserPromptPart("Weather in Oslo?", timestamp=T)]),
        m.ModelResponse(parts=[
            m.NativeToolCallPart("web_search", {"query": "Oslo weather"}, tool_call_id="srvtoolu_01",
                                 provider_name="anthropic"),
            m.NativeToolReturnPart("web_search", [{"url": "https://example.com/oslo", "title": "Oslo"}],
                                   tool_call_id="srvtoolu_01", provider_name="anthropic", timestamp=T),
            m.NativeToolCallPart("code_execution", '{"code": "print(1)"}', tool_call_id="c1",
                                 provider_name="google-gla"),
            m.NativeToolReturnPart("code_execution", "1", tool_call_id="c1", provider_name="google-gla", timestamp=T,
                                   outcome="failed"),
            m.TextPart("It is 4 C in Oslo."),
        ], timestamp=T),
    ]
    conversation = pydantic_ai.from_messages(history)
    call, result, code, output = conversation[1].content[:4]
    assert (type(call), call.metadata["contentblocks/issuer"]) == (cb.ServerToolCallBlock, "anthropic")
    assert (type(result), result.outcome, result.content[0].value["title"]) == (cb.ServerToolResultBlock, "succeeded",
                                                                                "Oslo")
    assert (code.input, code.metadata["contentblocks/issuer"], code.metadata["pydantic_ai/args"]) == (
        {"code": "print(1)"}, "gemini", '{"code": "print(1)"}')
    assert (output.outcome, output.content) == ("failed", (cb.TextBlock(text="1"),))
    written = pydantic_ai.to_messages(conversation, strict=set(LOSS_KINDS))
    adapter = m.ModelMessagesTypeAdapter
    assert adapter.dump_python(written.payload, mode="json") == adapter.dump_python(history, mode="json")


def test_an_anthropic_run_goes_to_pydantic_ai_as_native_parts():
    """An Anthropic web search goes as pydantic-ai's native parts naming ``anthropic``; its encrypted results
    (Anthropic's own form) stay behind, reported ``state_not_replayed``."""
    m = pytest.importorskip("pydantic_ai.messages")
    written = pydantic_ai.to_messages(_anthropic_conversation())
    parts = written.payload[1].parts
    assert [type(part).__name__ for part in parts] == ["NativeToolCallPart", "NativeToolReturnPart", "TextPart"]
    assert {part.provider_name for part in parts[:2]} == {"anthropic"}
    assert "E1" not in repr(written.payload)
    assert ('$[1].content[1].metadata["anthropic/server_result"]', "state_not_replayed") in [
        (loss.path, loss.kind) for loss in written.losses]
    assert isinstance(parts[0], m.NativeToolCallPart)


# --- LangChain -----------------------------------------------------------------------------------------------

#: v1 standard content blocks (https://reference.langchain.com/python/langchain-core/messages/content/ServerToolCall,
#: .../ServerToolResult, .../ServerToolCallChunk): id, name, args; tool_call_id, status, output.
LANGCHAIN_BLOCKS: list[dict[str, Any]] = [
    {"type": "server_tool_call", "id": "srvtoolu_01", "name": "web_search", "args": {"query": "Oslo weather"}},
    {"type": "server_tool_result", "tool_call_id": "srvtoolu_01", "status": "success",
     "output": [{"url": "https://example.com/oslo", "title": "Oslo"}, {"url": "https://example.com/yr"}]},
    {"type": "server_tool_call_chunk", "id": "ci_1", "name": "code_interpreter", "args": '{"code": "1+1"}',
     "index": 1},
    {"type": "server_tool_result", "tool_call_id": "ci_1", "status": "error", "output": "Timed out", "id": "r_1"},
    {"type": "text", "text": "It is 4 C in Oslo."},
]


def test_langchain_server_blocks_read_as_server_blocks_and_back():
    lc = pytest.importorskip("langchain_core.messages")
    history = [lc.HumanMessage("Weather in Oslo?"),
               lc.AIMessage(content=copy.deepcopy(LANGCHAIN_BLOCKS), response_metadata={"model_provider": "openai"})]
    conversation = langchain.from_messages(history)
    call, result, chunk, error = conversation[1].content[:4]
    assert (type(call), call.metadata["contentblocks/issuer"]) == (cb.ServerToolCallBlock, "openai")
    assert (result.tool_name, len(result.content)) == ("web_search", 2)  # the name is its call's
    assert (chunk.input, chunk.metadata["langchain/type"]) == ({"code": "1+1"}, "server_tool_call_chunk")
    assert (error.tool_name, error.outcome, error.content) == ("code_interpreter", "failed",
                                                               (cb.TextBlock(text="Timed out"),))
    written = langchain.to_messages(conversation, strict=set(LOSS_KINDS))
    assert [message.model_dump() for message in written.payload] == [message.model_dump() for message in history]


def test_an_anthropic_run_goes_to_langchain_as_server_blocks():
    """Another provider's run keeps its issuer in the block's extras, where the message names no provider."""
    lc = pytest.importorskip("langchain_core.messages")
    written = langchain.to_messages(_anthropic_conversation())
    blocks = written.payload[1].content
    assert blocks[0] == {"type": "server_tool_call", "id": "srvtoolu_01", "name": "web_search",
                         "args": {"query": "Oslo weather"}, "extras": {"contentblocks/issuer": "anthropic"}}
    assert (blocks[1]["type"], blocks[1]["status"]) == ("server_tool_result", "success")
    assert "E1" not in repr(written.payload)
    assert lc.messages_from_dict(lc.messages_to_dict(written.payload)) == written.payload
    back = langchain.from_messages(written.payload)
    assert back[1].content[0].metadata["contentblocks/issuer"] == "anthropic"


# --- Vercel AI SDK -------------------------------------------------------------------------------------------

#: A provider-executed tool in a UIMessage (ai@6 src/ui/ui-messages.ts, https://app.unpkg.com/ai@6.0.99/files/src/ui/
#: ui-messages.ts: a ToolUIPart's ``providerExecuted``) and in ModelMessages (an assistant ``tool-call`` with
#: ``providerExecuted`` and its ``tool-result`` in the same message: https://ai-sdk.dev/docs/reference/ai-sdk-core/
#: model-message).
UI_RUN = [
    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather in Oslo?"}]},
    {"id": "a1", "role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "tool-web_search", "toolCallId": "srvtoolu_01", "state": "output-available",
         "input": {"query": "Oslo weather"}, "output": [{"url": "https://example.com/oslo"}], "providerExecuted": True},
        {"type": "text", "text": "It is 4 C in Oslo."}]},
]
MODEL_RUN = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
    {"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "srvtoolu_01", "toolName": "web_search", "input": {"query": "Oslo weather"},
         "providerExecuted": True},
        {"type": "tool-result", "toolCallId": "srvtoolu_01", "toolName": "web_search",
         "output": {"type": "json", "value": [{"url": "https://example.com/oslo"}]}},
        {"type": "text", "text": "It is 4 C in Oslo."}]},
]


@pytest.mark.parametrize("form", ["ui", "model"])
def test_vercel_provider_executed_tools_read_as_server_blocks_and_back(form):
    read, write, payload = ((vercel_ai.from_ui_messages, vercel_ai.to_ui_messages, UI_RUN) if form == "ui" else
                            (vercel_ai.from_model_messages, vercel_ai.to_model_messages, MODEL_RUN))
    conversation = read(copy.deepcopy(payload))
    assert [m.role for m in conversation] == ["user", "assistant"]  # no tool message: nothing waits on the client
    call, result = conversation[1].content[:2]
    assert (type(call), call.input, type(result), result.outcome) == (
        cb.ServerToolCallBlock, {"query": "Oslo weather"}, cb.ServerToolResultBlock, "succeeded")
    assert conversation.pending_tool_calls() == ()
    written = write(conversation, strict=set(LOSS_KINDS))
    assert written.payload == payload


@pytest.mark.parametrize("form", ["ui", "model"])
def test_an_anthropic_run_goes_to_vercel_as_provider_executed_parts(form):
    """The SDK's parts name no provider: the issuer is reported not sent, and the state never leaks."""
    write = vercel_ai.to_ui_messages if form == "ui" else vercel_ai.to_model_messages
    written = write(_anthropic_conversation())
    assert "E1" not in repr(written.payload)
    kinds = {(loss.path, loss.kind) for loss in written.losses}
    assert ('$[1].content[0].metadata["contentblocks/issuer"]', "metadata_not_sent") in kinds
    assert ('$[1].content[1].metadata["anthropic/server_result"]', "state_not_replayed") in kinds
    parts = written.payload[1]["parts" if form == "ui" else "content"]
    assert any(part.get("providerExecuted") is True for part in parts)
