"""A provider-run call's approval in the Vercel AI SDK's messages: blocks, where ``convertToModelMessages`` puts them.

The UI payloads follow the SDK's tool part schema with its approval states
(https://github.com/vercel/ai/blob/main/packages/ai/src/ui/validate-ui-messages.ts), for a tool the provider runs
(``providerExecuted: true``, as OpenAI's MCP tools ask for approval). ``convertToModelMessages``
(https://github.com/vercel/ai/blob/main/packages/ai/src/ui/convert-to-model-messages.ts) turns such a part into a
``tool-call`` with ``providerExecuted: true``, a ``tool-approval-request`` right after it and, once the tool ran,
its ``tool-result`` in the same assistant message; the decision is a ``tool-approval-response`` with
``providerExecuted: true`` in a tool message after the step, since "only provider-executed tool approval responses
should be sent to the model" (``ToolApprovalResponse`` in ``packages/provider-utils/src/types``).
"""

from __future__ import annotations

import copy

import pytest

import contentblocks as cb
from contentblocks.bridges import vercel_ai as bridge
from contentblocks.providers import LOSS_KINDS

_CALL = {"type": "tool-mcp", "toolCallId": "mcp_1", "input": {"repo": "vercel/ai"}, "providerExecuted": True}


def _ui(part: dict) -> list[dict]:
    return [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Open an issue on vercel/ai."}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}, {**_CALL, **part}]},
    ]


GOLDEN = {
    "requested": _ui({"state": "approval-requested", "approval": {"id": "mcpr_1"}}),
    "approved": _ui({"state": "approval-responded", "approval": {"id": "mcpr_1", "approved": True}}),
    "denied": _ui({"state": "approval-responded",
                   "approval": {"id": "mcpr_1", "approved": False, "reason": "Not that repo."}}),
    "ran": _ui({"state": "output-available", "output": {"issue": 42},
                "approval": {"id": "mcpr_1", "approved": True, "reason": "Go ahead."}}),
    "failed": _ui({"state": "output-error", "errorText": "Rate limited.",
                   "approval": {"id": "mcpr_1", "approved": True}}),
    "denied-output": _ui({"state": "output-denied", "approval": {"id": "mcpr_1", "approved": False,
                                                                 "reason": "Not that repo."}}),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_provider_run_call_s_approval_round_trips_with_no_loss(name):
    posted = copy.deepcopy(GOLDEN[name])
    conversation = bridge.from_ui_messages(GOLDEN[name])
    assert bridge.to_ui_messages(conversation, strict=LOSS_KINDS).payload == posted


def test_the_request_follows_the_call_and_the_decision_opens_the_tool_message():
    _, assistant, tool = bridge.from_ui_messages(GOLDEN["ran"])
    call, request, result = assistant.content
    assert (type(call), call.tool_call_id) == (cb.ServerToolCallBlock, "mcp_1")
    assert (type(request), request.approval_id, request.tool_call_id) == (cb.ApprovalRequestBlock, "mcpr_1", "mcp_1")
    assert (type(result), result.outcome) == (cb.ServerToolResultBlock, "succeeded")
    (decision,) = tool.content
    assert (decision.approval_id, decision.approved, decision.reason) == ("mcpr_1", True, "Go ahead.")


def test_a_pending_approval_is_pending():
    conversation = bridge.from_ui_messages(GOLDEN["requested"])
    assert [a.approval_id for a in conversation.pending_approvals()] == ["mcpr_1"]


def test_the_model_messages_are_what_convert_to_model_messages_gives():
    conversation = bridge.from_ui_messages(GOLDEN["ran"])
    model = bridge.to_model_messages(conversation, strict={"content_dropped", "order_changed", "approval_not_sent"})
    assert model.payload[1:] == [
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "mcp_1", "toolName": "mcp", "input": {"repo": "vercel/ai"},
             "providerExecuted": True},
            {"type": "tool-approval-request", "approvalId": "mcpr_1", "toolCallId": "mcp_1"},
            {"type": "tool-result", "toolCallId": "mcp_1", "toolName": "mcp",
             "output": {"type": "json", "value": {"issue": 42}}}]},
        {"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "mcpr_1", "approved": True,
                                      "reason": "Go ahead.", "providerExecuted": True}]},
    ]
    # and they read back to the same blocks, and write back the same
    back = bridge.from_model_messages(model.payload)
    assert [m.content for m in back] == [m.content for m in conversation]
    assert bridge.to_model_messages(back, strict=LOSS_KINDS).payload == model.payload


def test_a_decision_s_provider_executed_flag_is_kept_where_it_is_not_the_default():
    model = [
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "mcp_1", "toolName": "mcp", "input": {}, "providerExecuted": True},
            {"type": "tool-approval-request", "approvalId": "mcpr_1", "toolCallId": "mcp_1"}]},
        {"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "mcpr_1", "approved": True}]},
    ]
    read = bridge.from_model_messages(copy.deepcopy(model))
    assert read[1].content[0].metadata == {"vercel_ai/providerExecuted": None}
    assert bridge.to_model_messages(read, strict=LOSS_KINDS).payload == model


def test_a_request_between_a_call_and_its_result_is_where_the_part_reads_it():
    conversation = cb.Conversation(messages=[
        cb.Message(role="assistant", content=[
            cb.ServerToolCallBlock(tool_call_id="s1", tool_name="mcp", input={}),
            cb.ApprovalRequestBlock(approval_id="r1", tool_call_id="s1"),
            cb.ServerToolResultBlock(tool_call_id="s1", tool_name="mcp", outcome="succeeded",
                                     content=[cb.TextBlock(text="ok")]),
            cb.TextBlock(text="Done.")]),
        cb.Message(role="tool", content=[cb.ApprovalResponseBlock(approval_id="r1", approved=True)]),
    ])
    converted = bridge.to_ui_messages(conversation, strict=LOSS_KINDS)
    assert [m.content for m in bridge.from_ui_messages(converted.payload)] == [m.content for m in conversation]


def test_a_request_of_a_provider_run_call_elsewhere_is_reported_moved():
    conversation = cb.Conversation(messages=[
        cb.Message(role="assistant", content=[
            cb.ServerToolCallBlock(tool_call_id="s1", tool_name="mcp", input={}), cb.TextBlock(text="Asking."),
            cb.ApprovalRequestBlock(approval_id="r1", tool_call_id="s1")]),
    ])
    converted = bridge.to_ui_messages(conversation)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].content[2]", "order_changed")]
    assert [type(b) for b in bridge.from_ui_messages(converted.payload)[0].content] == [
        cb.ServerToolCallBlock, cb.ApprovalRequestBlock, cb.TextBlock]
