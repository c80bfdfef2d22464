"""The OpenAI Agents SDK bridge: the SDK's histories come back equal, what only RunItems hold is reported, and the
SDK's own input-item type validates what the bridge writes.

The histories are built as the SDK's docs and tests build them (``tests/test_responses.py``'s
``get_text_message``, ``get_function_tool_call`` and ``get_handoff_tool_call``; the docs' ``result.to_input_list() +
[{"role": "user", ...}]``), with a dummy ``Agent``: no model, no network, no API key.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.bridges import openai_agents as bridge
from contentblocks.providers import LOSS_KINDS, LossError, anthropic, openai_responses
from contentblocks.strategies import conversations

agents = pytest.importorskip("agents")
from agents import items as run  # noqa: E402 - after the skip
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_output_item import McpApprovalRequest, McpListTools  # noqa: E402
from openai.types.responses.response_reasoning_item import Summary  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

INPUT = TypeAdapter(list[agents.TResponseInputItem])
TRIAGE, BILLING = agents.Agent(name="Triage"), agents.Agent(name="Billing")


def _validated(items: list[Any]) -> Any:
    """``items`` through the SDK's ``TResponseInputItem`` (its iterables are checked lazily: dumping runs them)."""
    return INPUT.dump_python(INPUT.validate_python(items), mode="json", exclude_unset=True)


def _text(content: str, item_id: str = "1") -> ResponseOutputMessage:
    return ResponseOutputMessage(id=item_id, type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(text=content, type="output_text", annotations=[])])  # fmt: skip


def _call(name: str, arguments: str = "", call_id: str = "2") -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id="1", call_id=call_id, type="function_call", name=name, arguments=arguments)


def _output(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _runs() -> dict[str, list[Any]]:
    """``result.new_items`` of runs the SDK's tests stage: a tool turn, a handoff, hosted MCP items."""
    return {
        "message": [run.MessageOutputItem(agent=TRIAGE, raw_item=_text("Hello!"))],
        "tool turn": [
            run.ReasoningItem(agent=TRIAGE, raw_item=ResponseReasoningItem(
                id="rs_1", type="reasoning", summary=[Summary(text="Need the weather.", type="summary_text")])),
            run.ToolCallItem(agent=TRIAGE, raw_item=_call("get_weather", '{"city": "Tokyo"}')),
            run.ToolCallOutputItem(agent=TRIAGE, raw_item=_output("2", "sunny"), output="sunny"),
            run.MessageOutputItem(agent=TRIAGE, raw_item=_text("It is sunny in Tokyo.", "3")),
        ],
        "handoff": [
            run.HandoffCallItem(agent=TRIAGE, raw_item=_call(agents.Handoff.default_tool_name(BILLING), "{}")),
            run.HandoffOutputItem(agent=TRIAGE, raw_item=_output("2", '{"assistant": "Billing"}'),
                                  source_agent=TRIAGE, target_agent=BILLING),
            run.MessageOutputItem(agent=BILLING, raw_item=_text("Your refund is on its way.", "4")),
        ],
        "mcp": [
            run.MCPListToolsItem(agent=TRIAGE, raw_item=McpListTools(
                id="mcpl_1", type="mcp_list_tools", server_label="fs", tools=[])),
            run.MCPApprovalRequestItem(agent=TRIAGE, raw_item=McpApprovalRequest(
                id="mcpr_1", type="mcp_approval_request", arguments="{}", name="delete", server_label="fs")),
        ],
    }


RUNS = _runs()
QUESTION = {"role": "user", "content": "What's the weather in Tokyo?"}


def _input_list(items: list[Any]) -> list[Any]:
    """What ``result.to_input_list()`` gives for a run that started from ``QUESTION`` and made ``items``."""
    return [QUESTION, *(item.to_input_item() for item in items)]


# --- theirs -> ours -> theirs -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RUNS))
def test_their_input_list_comes_back_equal(name):
    """``to_input_list()`` read and written again is the same items, every one valid input, with no loss."""
    items = [*_input_list(RUNS[name]), {"role": "user", "content": "And tomorrow?"}]
    result = bridge.to_items(bridge.from_items(items), strict=LOSS_KINDS)
    assert result.payload == items
    assert result.losses == ()
    assert _validated(result.payload) == result.payload


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_items_read_as_their_input_items_with_the_agents(name):
    """``new_items`` read as their ``to_input_item()``, with only the agents and handoffs added; writing them back
    gives those items again and reports each added key as not sent."""
    items = RUNS[name]
    from_run = bridge.from_items(items)
    from_dicts = bridge.from_items([item.to_input_item() for item in items])
    assert _without_agents(from_run) == from_dicts
    result = bridge.to_items(from_run)
    assert result.payload == [item.to_input_item() for item in items]
    added = [loss for loss in result.losses if "openai_agents/" in loss.path]
    assert added == list(result.losses)
    assert {loss.kind for loss in added} == {"metadata_not_sent"}


def test_pydantic_items_read_as_the_sdk_replays_them():
    """The SDK's pydantic items (``result.new_items[i].raw_item``, a model's output) read as their replayed dicts."""
    raws = [item.raw_item for item in RUNS["tool turn"]]
    assert bridge.from_items(raws) == bridge.from_items([item.to_input_item() for item in RUNS["tool turn"]])


def test_agents_and_handoffs_have_their_homes():
    """The agent lands on its messages, a handoff's ends on its call and result; hosted items stay JSON blocks."""
    conversation = bridge.from_items(_input_list([]) + RUNS["handoff"])
    user, calling, handing, answer = conversation
    assert "openai_agents/agent" not in user.metadata
    assert [m.metadata["openai_agents/agent"] for m in (calling, handing, answer)] == ["Triage", "Triage", "Billing"]
    assert calling.content[0].metadata["openai_agents/handoff"] == {"from": "Triage"}
    assert handing.content[0].metadata["openai_agents/handoff"] == {"from": "Triage", "to": "Billing"}
    assert handing.content[0].tool_name == "transfer_to_billing"
    mcp = bridge.from_items(RUNS["mcp"])
    listed, proposed, asked = mcp[0].content
    assert listed.value["type"] == "mcp_list_tools"
    assert listed.metadata["openai/input_item"] is True
    assert (proposed.tool_name, asked.tool_call_id) == ("delete", proposed.tool_call_id)
    assert mcp.pending_approvals() == (asked,)


def test_an_mcp_approval_goes_back_as_the_sdk_items_it_came_from():
    """The request and the client's ``mcp_approval_response`` are an approval request and its decision (a user
    message, on the agent that ran), and go back as the same items, with no loss but the agents' names."""
    answer = run.MCPApprovalResponseItem(agent=TRIAGE, raw_item={
        "type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True})
    conversation = bridge.from_items([*RUNS["mcp"], answer])
    assert conversation[1].role == "user"
    assert conversation[1].metadata["openai_agents/agent"] == "Triage"
    assert conversation[1].content == (cb.ApprovalResponseBlock(approval_id="mcpr_1", approved=True),)
    result = bridge.to_items(conversation)
    request = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete", "arguments": "{}", "server_label": "fs"}
    assert result.payload[-2:] == [request, answer.raw_item]
    assert [loss for loss in result.losses if "openai_agents/" not in loss.path] == []


def test_a_message_of_several_agents_lists_them_in_order():
    """Two agents' assistant items in a row make one assistant message naming both."""
    items = [run.MessageOutputItem(agent=TRIAGE, raw_item=_text("One moment.")),
             run.MessageOutputItem(agent=BILLING, raw_item=_text("Done.", "2"))]  # fmt: skip
    (message,) = bridge.from_items(items)
    assert message.metadata["openai_agents/agent"] == ["Triage", "Billing"]


def test_an_empty_assistant_item_keeps_the_agents_on_their_messages():
    """An assistant item holding no block makes no message; the agents still land on the right ones."""
    empty = ResponseOutputMessage(id="0", type="message", role="assistant", status="completed", content=[])
    items = [run.MessageOutputItem(agent=TRIAGE, raw_item=empty), {"role": "user", "content": "Hi"},
             run.MessageOutputItem(agent=BILLING, raw_item=_text("Hello."))]  # fmt: skip
    user, answer = bridge.from_items(items)
    assert "openai_agents/agent" not in user.metadata
    assert answer.metadata["openai_agents/agent"] == "Billing"


def test_a_history_goes_to_anthropic_in_one_line():
    """An Agents SDK history is sent with ``anthropic.to_provider``; the handoff is an ordinary tool turn there."""
    payload = anthropic.to_provider(bridge.from_items(_input_list(RUNS["handoff"]))).payload
    assert [m["role"] for m in payload["messages"]] == ["user", "assistant", "user", "assistant"]
    assert payload["messages"][1]["content"][0]["name"] == "transfer_to_billing"


def test_a_pending_approval_is_refused_with_its_path():
    """A ``ToolApprovalItem`` is not history (the SDK will not make it input): a ValidationError at its index."""
    pending = run.ToolApprovalItem(agent=TRIAGE, raw_item=_call("delete_file", "{}"))
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_items([QUESTION, pending])
    assert error.value.errors[0][0] == "$[1]"


def test_a_malformed_item_is_refused_with_its_path():
    """A malformed item's error names its index in the list given, not in the adapter's ``input``."""
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_items([QUESTION, {"type": "function_call_output", "output": "x"}])
    assert error.value.errors[0][0] == "$[1].call_id"
    with pytest.raises(cb.ValidationError):
        bridge.from_items({"role": "user", "content": "Hi"})


def test_our_own_objects_are_refused_as_input():
    """A conversation handed to the reader is a TypeError that names the call."""
    with pytest.raises(TypeError, match=r"openai_agents\.from_items"):
        bridge.from_items(cb.Conversation(messages=[]))


# --- ours -> theirs -> ours ---------------------------------------------------------------------------------


def _unmarked(conversation: cb.Conversation) -> cb.Conversation:
    """Without the mark the reader puts on a leading system message written as an item."""
    if not conversation or conversation[0].role != "system":
        return conversation
    first = conversation[0]
    metadata = {k: v for k, v in first.metadata.items() if k != "openai/input_item"}
    return cb.Conversation(messages=[cb.Message(role="system", content=first.content, metadata=metadata),
                                     *conversation[1:]])  # fmt: skip


def _without_agents(conversation: cb.Conversation) -> cb.Conversation:
    """``conversation`` without the ``openai_agents/`` keys on its messages and blocks."""
    def keep(metadata: Any) -> dict[str, Any]:
        return {k: v for k, v in metadata.items() if not k.startswith("openai_agents/")}

    return cb.Conversation(messages=[
        cb.Message(role=m.role, metadata=keep(m.metadata),
                   content=[attrs.evolve(b, metadata=keep(b.metadata)) for b in m.content])
        for m in conversation])  # fmt: skip


@given(conversations(max_messages=6, max_text_size=12, max_binary_size=8))
def test_our_conversation_comes_back_as_the_responses_adapter_keeps_it(conversation):
    """Ours -> theirs -> ours keeps exactly what the Responses adapter keeps, and reports exactly its losses."""
    result = bridge.to_items(conversation)
    adapter = openai_responses.to_provider(conversation)
    assert _unmarked(bridge.from_items(result.payload)) == _unmarked(openai_responses.from_provider(adapter.payload))
    assert [(loss.path, loss.kind) for loss in result.losses] == [(loss.path, loss.kind) for loss in adapter.losses]


@given(conversations(max_messages=6, max_text_size=12, max_binary_size=8))
def test_the_sdk_validates_what_we_write_and_it_reads_back_without_loss(conversation):
    """``TResponseInputItem`` validates the items unchanged, and reading them back writes them again, no loss."""
    payload = bridge.to_items(conversation).payload
    assert _validated(payload) == payload
    assert bridge.to_items(bridge.from_items(payload), strict=LOSS_KINDS).payload == payload


@given(conversations(max_messages=4, max_text_size=12, max_binary_size=8), st.sampled_from(["Triage", "Billing"]))
def test_what_only_run_items_hold_is_reported_as_not_sent(conversation, agent):
    """An agent name on every message is reported once per message, as metadata not sent, and nothing else moves."""
    named = cb.Conversation(messages=[
        cb.Message(role=m.role, content=m.content, cache=m.cache, metadata={**m.metadata, "openai_agents/agent": agent})
        for m in conversation])  # fmt: skip
    result, plain = bridge.to_items(named), bridge.to_items(conversation)
    assert result.payload == plain.payload
    ours = [loss for loss in result.losses if loss not in plain.losses]
    assert [loss.path for loss in ours] == [f'$[{i}].metadata["openai_agents/agent"]' for i in range(len(named))]
    assert {loss.kind for loss in ours} <= {"metadata_not_sent"}


def test_strict_raises_on_the_losses_it_names():
    """``strict`` raises with the bridge's own wording, as the adapters' ``strict`` does."""
    named = cb.Conversation(messages=[cb.Message(role="user", content="Hi", metadata={"openai_agents/agent": "A"})])
    with pytest.raises(LossError) as error:
        bridge.to_items(named, strict={"metadata_not_sent"})
    assert "Agents SDK" in error.value.losses[0].reason
    assert bridge.to_items(named, strict=True).losses == error.value.losses


def test_importing_contentblocks_imports_no_agents_sdk():
    """Neither ``contentblocks`` nor the bridge's package imports the SDK until the bridge is called."""
    code = ("import sys, contentblocks, contentblocks.bridges, contentblocks.bridges.openai_agents; "
            "print('agents' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: S603 - our code
    assert out.stdout == "False\n"


def test_a_version_outside_the_tested_range_is_a_clear_error(monkeypatch):
    """An installed openai-agents outside ``SUPPORTED`` is an ImportError naming both versions and the extra."""
    bridge._sdk.cache_clear()  # the check runs once, on the first call
    monkeypatch.setattr(bridge.importlib.metadata, "version", lambda name: "0.25.1")
    try:
        with pytest.raises(ImportError, match=r"tested with openai-agents>=0.24,<0.25, and 0.25.1 is installed"):
            bridge.from_items([])
    finally:
        monkeypatch.undo()
        bridge._sdk.cache_clear()
