"""A conversation rule broken across messages is reported at the framework's own path, not the neutral one.

The readers split and join the framework's messages (an assistant ``UIMessage`` is a message per step, a
pydantic-ai request a message per run of parts), so the neutral ``$[4].content[0].tool_call_id`` names no place in
what the user holds; the problem is placed at the part or entry the block was read from, by its own field name.
"""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.bridges import vercel_ai


def _problems(read: Any, history: Any) -> list[tuple[str, str]]:
    with pytest.raises(cb.ValidationError) as error:
        read(history)
    return error.value.errors


def _tool(call_id: str, output: Any) -> dict[str, Any]:
    return {"type": "tool-weather", "toolCallId": call_id, "state": "output-available", "input": {}, "output": output}


def test_ui_messages_a_call_id_used_twice_is_placed_at_its_part():
    """The second step's part is neutral message 3; it is reported at ``[1].parts[3]`` of the UIMessages."""
    history = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]},
               {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}, _tool("c1", 18),
                                                           {"type": "step-start"}, _tool("c1", 19)]}]
    assert _problems(vercel_ai.from_ui_messages, history) == [
        ("$[1].parts[3].toolCallId", "tool call id is used by an earlier tool call"),
        ("$[1].parts[3].toolCallId", "tool call was already answered by an earlier result"),
    ]


def test_ui_messages_a_dynamic_tool_is_placed_at_its_own_field_names():
    part = {"type": "dynamic-tool", "toolName": "clock", "toolCallId": "c1", "state": "input-available", "input": {}}
    history = [{"id": "a1", "role": "assistant", "parts": [_tool("c1", 18)]},
               {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Again"}]},
               {"id": "a2", "role": "assistant", "parts": [{"type": "text", "text": "Sure."}, part]}]
    assert _problems(vercel_ai.from_ui_messages, history) == [
        ("$[2].parts[1].toolCallId", "tool call id is used by an earlier tool call")]


def test_model_messages_a_result_is_placed_at_its_part():
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {}}
    answered = {"type": "tool-result", "toolCallId": "c1", "toolName": "weather",
                "output": {"type": "text", "value": "18"}}
    history = [{"role": "assistant", "content": [{"type": "text", "text": "Checking."}, call]},
               {"role": "tool", "content": [answered, {**answered, "toolCallId": "c9"}]}]
    assert _problems(vercel_ai.from_model_messages, history) == [
        ("$[1].content[1].toolCallId", "tool result answers no earlier tool call")]
    history[1]["content"] = [{**answered, "toolName": "clock"}]
    assert _problems(vercel_ai.from_model_messages, history) == [
        ("$[1].content[0].toolName", "tool result names another tool than its call")]


def test_pydantic_ai_a_result_in_a_request_with_a_prompt_is_placed_at_its_part():
    """The request is split into a user message and a tool message; the result is ``[0].parts[1]`` of the history."""
    pytest.importorskip("pydantic_ai")
    from contentblocks.bridges import pydantic_ai  # noqa: PLC0415

    history = [{"kind": "request", "parts": [
        {"part_kind": "user-prompt", "content": "Weather?"},
        {"part_kind": "tool-return", "tool_name": "weather", "content": "18", "tool_call_id": "c9"}]}]
    assert _problems(pydantic_ai.from_messages, history) == [
        ("$[0].parts[1].tool_call_id", "tool result answers no earlier tool call")]


def test_pydantic_ai_a_call_id_used_twice_is_placed_at_its_part():
    pytest.importorskip("pydantic_ai")
    from contentblocks.bridges import pydantic_ai  # noqa: PLC0415

    call = {"part_kind": "tool-call", "tool_name": "weather", "args": {}, "tool_call_id": "c1"}
    history = [{"kind": "response", "parts": [call]},
               {"kind": "response", "parts": [{"part_kind": "text", "content": "Again."}, call]}]
    assert _problems(pydantic_ai.from_messages, history) == [
        ("$[1].parts[1].tool_call_id", "tool call id is used by an earlier tool call")]


def test_langchain_calls_and_results_are_placed_at_their_entries_and_messages():
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: PLC0415

    from contentblocks.bridges import langchain  # noqa: PLC0415

    call = {"id": "c1", "name": "weather", "args": {}}
    twice = [HumanMessage("Weather?"), AIMessage("", tool_calls=[call]),
             AIMessage("", tool_calls=[{**call, "id": "c0"}, call])]
    assert _problems(langchain.from_messages, twice) == [
        ("$[2].tool_calls[1].id", "tool call id is used by an earlier tool call")]
    in_content = [AIMessage([{"type": "tool_call", **call}]), AIMessage([{"type": "text", "text": "Again."},
                                                                        {"type": "tool_call", **call}])]
    assert _problems(langchain.from_messages, in_content) == [
        ("$[1].content[1].id", "tool call id is used by an earlier tool call")]
    other_tool = [AIMessage("", tool_calls=[call]), ToolMessage("18", tool_call_id="c1", name="clock")]
    assert _problems(langchain.from_messages, other_tool) == [
        ("$[1].name", "tool result names another tool than its call")]
    unanswered = [HumanMessage("Weather?"), ToolMessage("18", tool_call_id="c9", name="weather")]
    assert _problems(langchain.from_messages, unanswered) == [
        ("$[1].tool_call_id", "tool result answers no earlier tool call")]


def test_openai_agents_items_are_placed_at_their_own_paths():
    pytest.importorskip("agents")
    from contentblocks.bridges import openai_agents  # noqa: PLC0415

    call = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"}
    items = [{"role": "user", "content": "Weather?"}, call, {"role": "user", "content": "Again"}, call]
    assert _problems(openai_agents.from_items, items) == [("$[3].call_id", "a call id an earlier function_call has")]
