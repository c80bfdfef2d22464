"""Approvals: the two blocks' wire form and rules, their pairing in conversations (whole and grown), what an
agent loop sees pending, sanitize, window, prune and repair, and what every adapter and bridge sends of them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.bridges import vercel_ai
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import openai_responses as stream

CALL = cb.ToolCallBlock(tool_call_id="c1", tool_name="delete_file", input={"path": "a.txt"})
ASK = cb.ApprovalRequestBlock(approval_id="ap_1", tool_call_id="c1")
YES = cb.ApprovalResponseBlock(approval_id="ap_1", approved=True)
NO = cb.ApprovalResponseBlock(approval_id="ap_1", approved=False, reason="Keep it.")


def history(*decisions: cb.ApprovalResponseBlock, role: str = "user") -> list[cb.Message]:
    messages = [cb.Message(role="user", content="Delete a.txt"), cb.Message(role="assistant", content=[CALL, ASK])]
    messages += [cb.Message(role=role, content=[d]) for d in decisions]
    return messages


# ---------------------------------------------------------------------------------------------- wire form


@pytest.mark.parametrize("wire", [
    {"type": "approval_request", "approval_id": "ap_1", "tool_call_id": "c1"},
    {"type": "approval_request", "approval_id": "ap_1", "tool_call_id": "c1", "cache": {}, "metadata": {"a": 1}},
    {"type": "approval_response", "approval_id": "ap_1", "approved": True},
    {"type": "approval_response", "approval_id": "ap_1", "approved": False, "reason": "No."},
])
def test_an_approval_block_round_trips_in_its_canonical_form(wire):
    block = cb.structure(wire, cb.Block)
    assert cb.unstructure(block) == wire
    assert cb.loads(json.dumps(wire), cb.Block) == block
    assert json.loads(cb.dumps(block)) == wire


@pytest.mark.parametrize(("wire", "path", "words"), [
    ({"type": "approval_request", "tool_call_id": "c1"}, "$.approval_id", "required"),
    ({"type": "approval_request", "approval_id": "ap_1"}, "$.tool_call_id", "required"),
    ({"type": "approval_request", "approval_id": "a b", "tool_call_id": "c1"}, "$.approval_id", ""),
    ({"type": "approval_response", "approval_id": "ap_1"}, "$.approved", "required"),
    ({"type": "approval_response", "approval_id": "ap_1", "approved": 1}, "$.approved", "expected a boolean"),
    ({"type": "approval_response", "approval_id": "ap_1", "approved": True, "reason": ""}, "$.reason", "empty"),
    ({"type": "approval_response", "approval_id": "ap_1", "approved": True, "reason": None}, "$.reason", "omit"),
    ({"type": "approval_response", "approval_id": "ap_1", "approved": True, "why": "x"}, "$.why", "unknown key"),
])
def test_each_rule_of_an_approval_block_is_worded(wire, path, words):
    with pytest.raises(cb.ValidationError) as caught:
        cb.structure(wire, cb.Block)
    assert any(p == path and words in message for p, message in caught.value.errors), caught.value.errors


@pytest.mark.parametrize(("role", "block"), [("user", ASK), ("tool", ASK), ("assistant", YES), ("system", YES)])
def test_each_approval_block_sits_in_its_roles_only(role, block):
    with pytest.raises(cb.ValidationError, match="cannot carry approval_"):
        cb.Message(role=role, content=[block])


# ---------------------------------------------------------------------------------------------- pairing


@pytest.mark.parametrize(("messages", "path", "words"), [
    ([cb.Message(role="assistant", content=[ASK])], "$[0].content[0].tool_call_id", "names no tool call of its"),
    ([cb.Message(role="assistant", content=[CALL]), cb.Message(role="assistant", content=[ASK])],
     "$[1].content[0].tool_call_id", "names no tool call of its message"),
    ([*history(YES)[:1], cb.Message(role="user", content=[YES])], "$[1].content[0].approval_id",
     "answers no earlier approval request"),
    (history(YES, NO), "$[3].content[0].approval_id", "already answered"),
    ([cb.Message(role="assistant", content=[CALL, ASK, ASK])], "$[0].content[2].approval_id", "used by an earlier"),
])
def test_each_pairing_rule_is_checked_whole_and_grown(messages, path, words):
    with pytest.raises(cb.ValidationError) as whole:
        cb.Conversation(messages=messages)
    assert any(p == path and words in m for p, m in whole.value.errors), whole.value.errors
    grown = cb.Conversation()
    for message in messages[:-1]:
        grown = grown.append(message)
    with pytest.raises(cb.ValidationError) as step:
        grown.append(messages[-1])
    assert step.value.errors == whole.value.errors


def test_a_request_may_name_a_call_the_provider_would_run():
    call = cb.ServerToolCallBlock(tool_call_id="mcpr_1", tool_name="roll", input={})
    ask = cb.ApprovalRequestBlock(approval_id="mcpr_1", tool_call_id="mcpr_1")
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[call, ask])])
    assert conversation.pending_approvals() == (ask,)
    assert conversation.pending_tool_calls() == ()


def test_what_an_agent_loop_sees_pending_follows_the_decision():
    waiting = cb.Conversation(messages=history())
    assert waiting.pending_tool_calls() == ()
    assert waiting.pending_approvals() == (ASK,)
    approved = waiting.append(cb.Message(role="user", content=[YES]))
    assert approved.pending_tool_calls() == (CALL,)
    assert approved.pending_approvals() == ()
    denied = waiting.append(cb.Message(role="tool", content=[NO]))  # a branch of the same line
    assert denied.pending_tool_calls() == ()
    assert denied.pending_approvals() == ()
    # the older conversations of the line still answer for themselves
    assert waiting.pending_approvals() == (ASK,)
    assert approved.pending_tool_calls() == (CALL,)
    answered = denied.append(cb.Message(role="tool", content=[
        cb.ToolResultBlock(tool_call_id="c1", tool_name="delete_file", outcome="denied")]))
    assert answered.pending_tool_calls() == ()


@settings(max_examples=60, deadline=None)
@given(strategies.conversations(max_messages=10))
def test_no_call_waiting_or_denied_is_ever_pending(conversation):
    decided = {b.approval_id: b.approved for m in conversation for b in m.content
               if isinstance(b, cb.ApprovalResponseBlock)}
    held = {b.tool_call_id for m in conversation for b in m.content
            if isinstance(b, cb.ApprovalRequestBlock) and not decided.get(b.approval_id, False)}
    pending = conversation.pending_tool_calls()
    assert not held & {call.tool_call_id for call in pending}
    asked = [b for m in conversation for b in m.content if isinstance(b, cb.ApprovalRequestBlock)]
    assert conversation.pending_approvals() == tuple(a for a in asked if a.approval_id not in decided)
    grown = cb.Conversation()
    for message in conversation:
        grown = grown.append(message)
    assert grown.pending_tool_calls() == pending
    assert grown.pending_approvals() == conversation.pending_approvals()


# ---------------------------------------------------------------------------------------------- history


def test_window_keeps_a_decision_in_the_turn_that_asked_for_it():
    messages = [*history(YES), cb.Message(role="tool", content=[
        cb.ToolResultBlock(tool_call_id="c1", tool_name="delete_file", outcome="succeeded")]),
        cb.Message(role="user", content="Thanks")]
    kept = cb.window(cb.Conversation(messages=messages), budget=4)
    assert [m.role for m in kept.payload] == ["user"]  # the turn of the request and its decision goes whole
    kept = cb.window(cb.Conversation(messages=messages), budget=5)
    assert kept.payload[1].content == (CALL, ASK)
    assert kept.payload[2].content == (YES,)


def test_repair_takes_out_the_approvals_of_client_calls_with_their_paths():
    messages = [*history(YES), cb.Message(role="user", content="Go on")]
    fixed = cb.repair(messages)
    assert [m.role for m in fixed.payload] == ["user", "assistant", "tool", "user"]
    assert not any(isinstance(b, (cb.ApprovalRequestBlock, cb.ApprovalResponseBlock))
                   for m in fixed.payload for b in m.content)
    assert {(loss.path, loss.kind) for loss in fixed.losses} >= {
        ("$[1].content[1]", "approval_not_sent"), ("$[2].content[0]", "approval_not_sent")}
    assert ("$[1].content[0]", "content_degraded") in {(loss.path, loss.kind) for loss in fixed.losses}


def test_prune_keeps_the_provider_call_a_request_names():
    call = cb.ServerToolCallBlock(tool_call_id="mcpr_1", tool_name="roll", input={})
    ask = cb.ApprovalRequestBlock(approval_id="mcpr_1", tool_call_id="mcpr_1")
    messages = [cb.Message(role="user", content="a"), cb.Message(role="assistant", content=[call, ask]),
                cb.Message(role="user", content="b"), cb.Message(role="assistant", content="c"),
                cb.Message(role="user", content="d")]
    pruned = cb.prune(cb.Conversation(messages=messages), keep_turns=1)
    assert pruned.payload[1].content == (call, ask)


def test_sanitize_believes_only_sealed_requests_and_decisions_on_them():
    policy = cb.SanitizePolicy.internal_service()
    clean = cb.sanitize(history(YES), policy)
    assert not any(isinstance(b, (cb.ApprovalRequestBlock, cb.ApprovalResponseBlock))
                   for m in clean.payload for b in m.content)
    assert ("$[1].content[1]", "content_dropped") in {(loss.path, loss.kind) for loss in clean.losses}
    assert any(loss.path == "$[2].content[0]" and "is in no sealed assistant message" in loss.reason
               for loss in clean.losses)


# ---------------------------------------------------------------------------------------------- adapters


@pytest.mark.parametrize(("module", "name"), [
    (anthropic, "Anthropic"), (openai_chat, "Chat Completions"), (gemini, "Gemini"),
    (openai_responses, "Responses API but for the MCP calls OpenAI proposes"),
])
def test_a_target_without_them_keeps_approvals_local_and_every_path_in_place(module, name):
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="delete_file", outcome="succeeded",
                                content=[cb.TextBlock(text="done")], metadata={"app/trace": "t1"})
    conversation = cb.Conversation(messages=[*history(YES), cb.Message(role="tool", content=[result])])
    converted = module.to_provider(conversation)
    by_path = {loss.path: loss for loss in converted.losses}
    assert by_path["$[1].content[1]"].kind == "approval_not_sent"
    assert by_path["$[1].content[1]"].reason.startswith(name.replace(" but", " has no approvals but")
                                                        if " but" in name else f"{name} has no approvals")
    assert by_path["$[2].content[0]"].kind == "approval_not_sent"
    # a loss past the message taken out still points at the block as given
    assert '$[3].content[0].metadata["app/trace"]' in by_path
    assert module.to_provider(conversation, strict=True).payload == converted.payload
    assert "approval" not in json.dumps(converted.payload)


# OpenAI's remote MCP guide (https://platform.openai.com/docs/guides/tools-remote-mcp), approvals section: the
# request item of a response's output, and the input item that approves it.
MCP_REQUEST = {"id": "mcpr_682d498e3bd4819196a0ce1664f8e77b04ad1e533afccbfa", "type": "mcp_approval_request",
               "arguments": '{"diceRollExpression":"2d4 + 1"}', "name": "roll", "server_label": "dmcp"}
MCP_RESPONSE = {"type": "mcp_approval_response", "approve": True, "approval_request_id": MCP_REQUEST["id"]}


def test_responses_reads_and_writes_mcp_approvals_natively():
    items = [{"role": "user", "content": "Roll 2d4+1"}, MCP_REQUEST, MCP_RESPONSE]
    conversation = openai_responses.from_provider({"input": items})
    call, ask = conversation[1].content
    assert (call.tool_name, call.input, ask.tool_call_id) == ("roll", {"diceRollExpression": "2d4 + 1"}, call.tool_call_id)
    assert conversation[2].content == (cb.ApprovalResponseBlock(approval_id=MCP_REQUEST["id"], approved=True),)
    written = openai_responses.to_provider(conversation)
    assert written.payload["input"] == [{"role": "user", "content": "Roll 2d4+1"}, MCP_REQUEST, MCP_RESPONSE]
    assert written.losses == ()
    # to another issuer the request is provider state: it stays local, with the decision on it
    other = openai_responses.to_provider(conversation, issuer="openai/other-family")
    assert "mcp_approval" not in json.dumps(other.payload)


def test_a_decision_on_a_request_this_read_has_not_seen_stays_verbatim():
    conversation = openai_responses.from_provider({"input": [{"role": "user", "content": "Go"}, MCP_RESPONSE]})
    kept = conversation[-1].content[-1]
    assert isinstance(kept, cb.JsonBlock)
    assert kept.value["type"] == "mcp_approval_response"


def test_the_responses_stream_folds_a_request_as_the_reply_reads_it():
    done = {"type": "response.output_item.done", "output_index": 0, "item": MCP_REQUEST}
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": "completed",
                "output": [MCP_REQUEST]}
    created = {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}}
    completed = {"type": "response.completed", "response": response}
    added = {"type": "response.output_item.added", "output_index": 0, "item": MCP_REQUEST}
    events = list(stream.events([created, added, done, completed]))
    assert [type(e).__name__ for e in events if "Added" in type(e).__name__ or "Requested" in type(e).__name__] == [
        "ServerToolAdded", "ApprovalRequested"]
    reply = stream.fold([created, added, done, completed])
    assert reply.message == openai_responses.from_response(response).message


# The Vercel AI SDK's ModelMessage parts (ai v6, packages/provider-utils/src/types/content-part.ts):
# ToolApprovalRequest {type, approvalId, toolCallId} and ToolApprovalResponse {type, approvalId, approved, reason?}.
VERCEL = [
    {"role": "user", "content": [{"type": "text", "text": "Delete a.txt"}]},
    {"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "delete_file", "input": {"path": "a.txt"}},
        {"type": "tool-approval-request", "approvalId": "ap_1", "toolCallId": "c1"}]},
    {"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "ap_1", "approved": False,
                                  "reason": "Keep it."}]},
    {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "delete_file",
                                  "output": {"type": "execution-denied", "reason": "Keep it."}}]},
]


def test_vercel_model_messages_carry_approvals_natively():
    conversation = vercel_ai.from_model_messages(VERCEL)
    assert conversation[1].content[1] == ASK
    assert conversation[2].content == (NO,)
    assert conversation.pending_tool_calls() == ()
    written = vercel_ai.to_model_messages(conversation)
    assert written.payload == VERCEL
    assert written.losses == ()


def test_vercel_writes_a_users_decision_in_a_tool_message_and_says_so():
    written = vercel_ai.to_model_messages(cb.Conversation(messages=history(YES)))
    assert written.payload[-1] == {"role": "tool", "content": [
        {"type": "tool-approval-response", "approvalId": "ap_1", "approved": True}]}
    assert [(loss.path, loss.kind) for loss in written.losses] == [("$[2].content[0]", "order_changed")]


def test_a_bridge_refusal_after_a_message_of_decisions_points_at_the_message_as_given():
    """LangChain refuses a kept field: its path is in the conversation given, not in what was written."""
    from contentblocks.bridges import langchain  # noqa: PLC0415 - LangChain is an optional extra

    broken = cb.Message(role="user", content="x", metadata={"langchain/id": [1]})
    with pytest.raises(cb.ValidationError) as error:
        langchain.to_messages([*history(YES), broken])
    assert error.value.errors[0][0] == "$[3]"
