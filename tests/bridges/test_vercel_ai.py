"""The Vercel AI SDK bridge: the SDK's JSON comes back equal, losses say exactly what is not kept, hostile input
is a ValidationError only.

The payloads are shaped as the SDK's own validators and docs build them (AI SDK 6: ``validate-ui-messages.ts``,
``convert-to-model-messages.test.ts``, the ``UIMessage`` and ``ModelMessage`` reference pages).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.bridges import vercel_ai as bridge
from contentblocks.providers import LOSS_KINDS, LossError, anthropic
from contentblocks.strategies import conversations, server_tool_call_blocks, server_tool_result_blocks
from provider_checks import approvals_left_local, compactions_as_text, search_results_as_text, under

PNG = "iVBORw0KGgo="
SIGNED = {"anthropic": {"signature": "EqQBCkYIBxgCKkB"}}

UI: dict[str, list[dict[str, Any]]] = {
    "chat": [
        {"id": "u1", "role": "user", "parts": [
            {"type": "text", "text": "What is in this image?"},
            {"type": "file", "mediaType": "image/png", "url": f"data:image/png;base64,{PNG}", "filename": "a.png"},
            {"type": "file", "mediaType": "application/pdf", "url": "https://example.com/report.pdf"},
        ]},
        {"id": "a1", "role": "assistant", "metadata": {"createdAt": 1735689600000, "model": "claude-sonnet-4-5"},
         "parts": [
             {"type": "step-start"},
             {"type": "reasoning", "text": "A small PNG.", "state": "done", "providerMetadata": SIGNED},
             {"type": "text", "text": "A tiny image.", "state": "done",
              "providerMetadata": {"openai": {"itemId": "msg_1"}}},
         ]},
    ],
    "system and data": [
        {"id": "s1", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
        {"id": "u1", "role": "user", "metadata": {"sessionId": "abc"}, "parts": [
            {"type": "text", "text": "Weather?"}, {"type": "data-location", "id": "d1", "data": {"city": "Paris"}}]},
    ],
    "tools in every state": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-getWeather", "toolCallId": "c1", "state": "output-available",
             "input": {"city": "Paris"}, "output": {"temperature": 18}},
            {"type": "tool-getWeather", "toolCallId": "c2", "state": "output-error", "input": {"city": "Rome"},
             "errorText": "Station offline."},
            {"type": "dynamic-tool", "toolName": "clock", "toolCallId": "c3", "state": "output-available",
             "input": {}, "output": "12:00", "callProviderMetadata": {"openai": {"itemId": "fc_1"}}},
            {"type": "tool-search", "toolCallId": "c4", "state": "output-available", "input": {"q": "x"},
             "output": [{"url": "https://example.com"}], "providerExecuted": True},
            {"type": "step-start"},
            {"type": "text", "text": "Paris is 18 C; Rome's station is offline.", "state": "done"},
            {"type": "source-url", "sourceId": "src-1", "url": "https://example.com/paris", "title": "Paris"},
            {"type": "source-document", "sourceId": "src-2", "mediaType": "application/pdf", "title": "Q3",
             "filename": "q3.pdf"},
            {"type": "tool-getWeather", "toolCallId": "c5", "state": "input-streaming", "input": {"ci": None}},
            {"type": "tool-getWeather", "toolCallId": "c6", "state": "input-available", "input": {"city": "Oslo"}},
        ]},
    ],
    "approvals": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Delete the temp files."}]},
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-deleteFile", "toolCallId": "c1", "state": "output-denied", "input": {"path": "/scratch"},
             "approval": {"id": "ap1", "approved": False, "reason": "Not that folder."}},
            {"type": "tool-deleteFile", "toolCallId": "c2", "state": "approval-requested",
             "input": {"path": "/scratch/a"}, "approval": {"id": "ap2"}},
            {"type": "tool-deleteFile", "toolCallId": "c3", "state": "approval-responded",
             "input": {"path": "/scratch/b"}, "approval": {"id": "ap3", "approved": True}},
            {"type": "tool-deleteFile", "toolCallId": "c4", "state": "output-available", "input": {"path": "/t"},
             "output": "done", "approval": {"id": "ap4", "approved": True, "reason": "ok"}},
            {"type": "tool-deleteFile", "toolCallId": "c5", "state": "output-denied", "input": {"path": "/"},
             "approval": {"id": "approval-c5", "approved": False}},
        ]},
    ],
    "no step-start, newer fields": [
        {"id": "a0", "role": "assistant", "parts": [
            {"type": "text", "text": "Hello!", "futureField": {"x": 1}},
            {"type": "reasoning", "text": "", "providerMetadata": {"anthropic": {"redactedData": "EmwKAhgB"}}},
            {"type": "step-start"}, {"type": "step-start"}, {"type": "text", "text": "Again."}, {"type": "step-start"},
        ]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}]},
    ],
}

MODEL: dict[str, list[dict[str, Any]]] = {
    "chat": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hi!"},
        {"role": "user", "content": [
            {"type": "text", "text": "Describe these."},
            {"type": "image", "image": "https://example.com/cat.png"},
            {"type": "image", "image": PNG, "mediaType": "image/png"},
            {"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "a.pdf"},
            {"type": "file", "data": "https://example.com/b.pdf", "mediaType": "application/pdf",
             "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
        ]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Two files.", "providerOptions": SIGNED},
            {"type": "text", "text": "A cat and a PDF."},
        ], "providerOptions": {"openai": {"store": False}}},
        {"role": "assistant", "content": "Anything else?"},
    ],
    "tools": [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "weather", "input": {"city": "Rome"}},
            {"type": "tool-call", "toolCallId": "c3", "toolName": "weather", "input": {"city": "Oslo"}},
            {"type": "tool-call", "toolCallId": "c4", "toolName": "shot", "input": {}},
            {"type": "tool-call", "toolCallId": "c5", "toolName": "rm", "input": {"path": "/"}},
            {"type": "tool-call", "toolCallId": "c6", "toolName": "rm", "input": {"path": "/a"}},
            {"type": "tool-call", "toolCallId": "c7", "toolName": "note", "input": None},
            {"type": "tool-call", "toolCallId": "s1", "toolName": "web_search", "input": {"q": "x"},
             "providerExecuted": True},
            {"type": "tool-result", "toolCallId": "s1", "toolName": "web_search",
             "output": {"type": "json", "value": [{"url": "https://example.com"}]}},
            {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c6"},
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "weather",
             "output": {"type": "json", "value": {"temperature": 18}}},
            {"type": "tool-result", "toolCallId": "c2", "toolName": "weather",
             "output": {"type": "error-text", "value": "Station offline."}},
            {"type": "tool-result", "toolCallId": "c3", "toolName": "weather",
             "output": {"type": "error-json", "value": {"code": 503}}},
            {"type": "tool-result", "toolCallId": "c4", "toolName": "shot", "output": {"type": "content", "value": [
                {"type": "text", "text": "Screenshot:"}, {"type": "image-data", "data": PNG, "mediaType": "image/png"},
                {"type": "media", "data": PNG, "mediaType": "image/png"},
                {"type": "file-url", "url": "https://example.com/s.png"},
                {"type": "file-id", "fileId": {"openai": "file-1"}}]}},
            {"type": "tool-result", "toolCallId": "c5", "toolName": "rm",
             "output": {"type": "execution-denied", "reason": "Not root."}},
            {"type": "tool-approval-response", "approvalId": "ap1", "approved": True},
            {"type": "tool-result", "toolCallId": "c7", "toolName": "note", "output": {"type": "text", "value": "ok"},
             "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
        ]},
        {"role": "assistant", "content": [{"type": "tool-approval-request", "approvalId": "ap2", "toolCallId": "c8"},
                                          {"type": "tool-call", "toolCallId": "c8", "toolName": "rm", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "ap2", "approved": False,
                                      "reason": "No."}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c8", "toolName": "rm",
                                      "output": {"type": "execution-denied"}}]},
    ],
}


# --- theirs -> ours -> theirs -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(UI))
def test_ui_messages_come_back_equal(name):
    """A ``UIMessage`` list read and written again is the same JSON, with no loss."""
    payload = UI[name]
    result = bridge.to_ui_messages(bridge.from_ui_messages(copy.deepcopy(payload)), strict=set(LOSS_KINDS))
    assert result.payload == payload
    assert result.losses == ()


@pytest.mark.parametrize("name", sorted(MODEL))
def test_model_messages_come_back_equal(name):
    """A ``ModelMessage`` list read and written again is the same JSON, with no loss."""
    payload = MODEL[name]
    result = bridge.to_model_messages(bridge.from_model_messages(copy.deepcopy(payload)), strict=set(LOSS_KINDS))
    assert result.payload == payload
    assert result.losses == ()


def test_a_tool_part_becomes_a_call_and_a_result_after_it():
    """Each step is an assistant message; the results its tool parts hold follow it, with their outcomes."""
    conversation = bridge.from_ui_messages(UI["tools in every state"])
    assert [m.role for m in conversation] == ["user", "assistant", "tool", "assistant"]
    step, results, after = conversation[1], conversation[2], conversation[3]
    assert [b.tool_call_id for b in step.content] == ["c1", "c2", "c3", "c4", "c4"]
    assert [(r.tool_call_id, r.outcome) for r in results.content] == [
        ("c1", "succeeded"), ("c2", "failed"), ("c3", "succeeded")]
    assert results.content[1].content[0].text == "Station offline."
    server_call, server_result = step.content[3:]  # providerExecuted: the provider ran it, both in the step
    assert (type(server_call).__name__, server_call.input, dict(server_call.metadata)) == (
        "ServerToolCallBlock", {"q": "x"}, {})
    assert (server_result.outcome, server_result.content[0].value) == ("succeeded", [{"url": "https://example.com"}])
    assert after.content[1].metadata["vercel_ai/native_part"] is True  # a source has no span: kept whole
    assert after.content[3].metadata["vercel_ai/state"] == "input-streaming"


def test_each_approval_state_reads_as_its_blocks():
    """A tool part's approval is a request right after its call and a decision first in the step's tool message;
    a denial is a denied result with its reason; an agent loop sees only the approved call without a result."""
    conversation = bridge.from_ui_messages(UI["approvals"])
    step, answers = conversation[1], conversation[2]
    asks = [(b.approval_id, b.tool_call_id) for b in step.content if isinstance(b, cb.ApprovalRequestBlock)]
    assert asks == [("ap1", "c1"), ("ap2", "c2"), ("ap3", "c3"), ("ap4", "c4")]
    decided = [(b.approval_id, b.approved, b.reason) for b in answers.content if isinstance(b, cb.ApprovalResponseBlock)]
    assert decided == [("ap1", False, "Not that folder."), ("ap3", True, None), ("ap4", True, "ok")]
    denied = answers.tool_results()[0]
    assert (denied.outcome, denied.content[0].text) == ("denied", "Not that folder.")
    assert [call.tool_call_id for call in conversation.pending_tool_calls()] == ["c3"]
    assert [ask.approval_id for ask in conversation.pending_approvals()] == ["ap2"]
    assert "vercel_ai/approval" not in step.content[1].metadata


def test_a_signature_in_provider_metadata_is_the_reasoning_signature():
    """``providerMetadata.anthropic.signature`` becomes the block's signature, issued by Anthropic, and goes on."""
    conversation = bridge.from_ui_messages(UI["chat"])
    thought = conversation[1].content[0]
    assert (thought.signature, thought.metadata["contentblocks/issuer"]) == ("EqQBCkYIBxgCKkB", "anthropic")
    assert "vercel_ai/providerMetadata" not in thought.metadata
    redacted = bridge.from_ui_messages(UI["no step-start, newer fields"])[0].content[1]
    assert redacted.redacted == b"EmwKAhgB"


def test_posted_ui_messages_go_to_anthropic_in_one_line():
    """What a front end posts is sent with ``anthropic.to_provider``; the signature goes back to its issuer."""
    payload = anthropic.to_provider(bridge.from_ui_messages(UI["chat"])).payload
    assert payload["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "A small PNG.", "signature": "EqQBCkYIBxgCKkB"}


def test_both_forms_say_the_same_of_one_conversation():
    """UI messages written as model messages keep every block but the sources, which are reported dropped."""
    conversation = bridge.from_ui_messages(UI["tools in every state"])
    result = bridge.to_model_messages(conversation)
    assert [(loss.path, loss.kind) for loss in result.losses if loss.kind != "metadata_not_sent"] == [
        ("$[3].content[1]", "content_dropped"), ("$[3].content[2]", "content_dropped")]
    again = bridge.from_model_messages(result.payload)
    assert [[type(b).__name__ for b in m.content] for m in again] == [
        [type(b).__name__ for b in m.content if not isinstance(b, cb.JsonBlock)] for m in conversation]
    assert [r.outcome for r in again[2].content] == [r.outcome for r in conversation[2].content]


# --- hostile input ------------------------------------------------------------------------------------------

HOSTILE = [
    None, "messages", {"id": "x"}, [1], [{"id": 1, "role": "user", "parts": []}],
    [{"id": "x", "role": "robot", "parts": [{"type": "text", "text": "hi"}]}],
    [{"id": "x", "role": "user", "parts": []}],
    [{"id": "x", "role": "user", "parts": [{"type": "sparkle"}]}],
    [{"id": "x", "role": "user", "parts": [{"type": "text", "text": None}]}],
    [{"id": "x", "role": "system", "parts": [{"type": "file", "mediaType": "a/b", "url": "https://x"}]}],
    [{"id": "x", "role": "assistant", "parts": [{"type": "tool-x", "toolCallId": "c", "state": "done"}]}],
    [{"id": "x", "role": "assistant", "parts": [{"type": "tool-x", "toolCallId": "c c", "state": "input-available",
                                                  "input": {}}]}],
    [{"id": "x", "role": "assistant", "parts": [{"type": "tool-x", "toolCallId": "c", "state": "output-denied",
                                                  "input": {}}]}],
    [{"id": "x", "role": "user", "parts": [{"type": "data-x", "data": float("nan")}]}],
    [{"id": "x", "role": "user", "parts": [{"type": "data-x", "data": {1: 2}}]}],
    [{"id": "x", "role": "user", "parts": [{"type": "data-x", "data": object()}]}],
]


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": [value]}
    return value


@pytest.mark.parametrize("payload", [*HOSTILE, [{"id": "x", "role": "user", "parts": [
    {"type": "data-x", "data": _deep(5000)}]}]])
def test_what_is_not_the_sdks_shape_is_a_validation_error(payload):
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_ui_messages(payload)
    assert all(path.startswith("$") for path, _ in error.value.errors)


@pytest.mark.parametrize("payload", [
    None, [{"role": "user"}], [{"role": "user", "content": [{"type": "image"}]}],
    [{"role": "user", "content": [{"type": "file", "data": "%%%", "mediaType": "a/b"}]}],
    [{"role": "user", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "t", "input": {}}]}],
    [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t",
                                   "output": {"type": "nope"}}]}],
    [{"role": "system", "content": [{"type": "text", "text": "x"}]}],
    [{"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "a", "approved": True}]}],
])
def test_what_is_not_a_model_message_is_a_validation_error(payload):
    with pytest.raises(cb.ValidationError):
        bridge.from_model_messages(payload)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                  max_size=3), max_leaves=12)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [path] + [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [path] + [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=300)
@given(st.sampled_from(sorted(UI) + [f"model:{name}" for name in MODEL]), st.data(), _JSON)
def test_any_value_anywhere_is_read_or_refused_with_a_validation_error(name, data, replacement):
    """Each value of a golden payload replaced by any JSON-like value: read, or a ValidationError, nothing else."""
    payload = copy.deepcopy(MODEL[name[6:]] if name.startswith("model:") else UI[name])
    path = data.draw(st.sampled_from(_leaves(payload)[1:]))
    node = payload
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = replacement
    read = bridge.from_model_messages if name.startswith("model:") else bridge.from_ui_messages
    write = bridge.to_model_messages if name.startswith("model:") else bridge.to_ui_messages
    try:
        conversation = read(payload)
    except cb.ValidationError:
        return
    json.dumps(write(conversation).payload)  # and what is read is written as JSON


# --- ours -> theirs -> ours ---------------------------------------------------------------------------------

_STEP = re.compile(r'\.metadata\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]|\.(\w+)')


def _locate(root: Any, path: str) -> tuple[Any, Any]:
    """The container holding the value at a loss's JSON path, and its key there."""
    steps: list[Any] = []
    for m in _STEP.finditer(path[1:]):
        steps.extend(["metadata", json.loads(m[1])] if m[1] else [int(m[2])] if m[2] else [m[3]])
    node = root
    for step in steps[:-1]:
        node = node[step]
    return node, steps[-1]


def _unmarked(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A read-back conversation without what the SDK's JSON adds: a message id, an approval id for a denial."""
    for message in raw:
        metadata = message.get("metadata", {})
        metadata.pop("vercel_ai/id", None)
        if not metadata:
            message.pop("metadata", None)
    return raw


_RESULT_PART = re.compile(r"^\$\[(\d+)\]\.content\[(\d+)\]\.content\[\d+\]$")


def _text_of(part: dict[str, Any]) -> str:
    return part["text"] if part["type"] == "text" else json.dumps(part["value"])


def _degrade(raw: list[Any], loss: cb.providers.Loss, node: Any, key: Any, marks: dict[str, set[int]]) -> None:
    """Record or apply what a ``content_degraded`` loss says comes back."""
    reason, result = loss.reason, _RESULT_PART.match(loss.path)
    owner = raw[int(result[1])]["content"][int(result[2])] if result else None
    if "output null" in reason:  # a succeeded result with no part an output holds
        marks["null"].add(id(node[key]))
    elif "refusal" in reason or "JSON string" in reason:
        node[key] = {"type": "text", "text": node[key]["text" if "refusal" in reason else "value"], **_cache_of(node[key])}
    elif "system message is one text" in reason:
        marks["system"].add(id(node[key]))
    elif "one array" in reason:
        marks["array"].add(id(owner))
    elif owner is not None and owner["outcome"] != "succeeded":  # an error's or a denial's one text
        marks["joined"].add(id(owner))
    else:  # JSON in a message or a content output: its JSON text
        node[key] = {"type": "text", "text": json.dumps(node[key]["value"]), **_cache_of(node[key])}


def _moved_hint(raw: list[Any], loss: cb.providers.Loss, node: Any, key: Any) -> bool:
    """Apply a ``hint_not_sent`` loss that says where the breakpoint went (a ``ModelMessage``'s), if it is one."""
    if loss.kind == "hint_not_sent" and key == "ttl":  # written as the nearer of 5 minutes and 1 hour
        node[key] = 300 if node[key] <= 1950 else 3600
        return True
    if loss.kind == "hint_not_sent" and "reads back there" in loss.reason:  # a system text's, on its message
        raw[int(loss.path[2:].split("]", 1)[0])]["cache"] = node.pop(key)
        return True
    return False


def _given_reason(raw: list[Any], loss: cb.providers.Loss, node: Any, key: Any) -> bool:
    """Apply a decision's loss saying it reads back with its denied result's reason (the SDK holds one), if it is."""
    if "reads back with it" not in loss.reason:
        return False
    blocks = [block for message in raw for block in message["content"]]
    call = next(b["tool_call_id"] for b in blocks
                if b["type"] == "approval_request" and b["approval_id"] == node[key]["approval_id"])
    result = next(b for b in blocks if b["type"] in ("tool_result", "server_tool_result") and b["tool_call_id"] == call)
    node[key]["reason"] = "\n".join(_text_of(part) for part in result["content"] if part["type"] != "file")
    return True


def _sent(cache: dict[str, Any]) -> dict[str, Any]:
    """A breakpoint as the SDK's providers keep it: a time to live of 5 minutes or 1 hour."""
    ttl = cache.get("ttl")
    return cache if ttl in (None, 300, 3600) else {"ttl": 300 if ttl <= 1950 else 3600}


def _cache_of(block: dict[str, Any]) -> dict[str, Any]:
    """A block's breakpoint, which the text part written for it carries."""
    return {"cache": block["cache"]} if "cache" in block else {}


def _result_content(block: dict[str, Any], dropped: set[int], marks: dict[str, set[int]]) -> list[Any]:
    parts = [part for part in block["content"] if id(part) not in dropped]
    kept = [part for part in parts if part["type"] != "file"]
    if id(block) in marks["null"]:
        return [{"type": "json", "value": None}]
    if id(block) in marks["joined"]:
        text = "\n".join(_text_of(part) for part in kept)
        return [{"type": "text", "text": text}] if text else []
    if id(block) in marks["array"]:
        return [{"type": "json", "value": [part.get("text", part.get("value")) for part in kept]}]
    return parts


#: The calls a tool part holds: a client tool's and a provider-run one's.
_CALLS = ("tool_call", "server_tool_call")


def _placed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the UI form reads them back: each request right after its call, and each step's decisions,
    then its results, in a tool message right after it (the SDK keeps all of them in the call's part)."""
    tools = [block for m in messages if m["role"] in ("tool", "user") for block in m["content"]]
    results = {block["tool_call_id"]: block for block in tools if block["type"] == "tool_result"}
    decisions = {block["approval_id"]: block for block in tools if block["type"] == "approval_response"}
    out = []
    for message in messages:
        if message["role"] == "tool":
            continue
        if message["role"] == "user":
            content = [block for block in message["content"] if block["type"] != "approval_response"]
            if content:
                out.append({**message, "content": content})
            continue
        if message["role"] != "assistant":
            out.append(message)
            continue
        asks = {block["tool_call_id"]: block for block in message["content"] if block["type"] == "approval_request"}
        # a request goes to the part of its id's last call: a provider-run one when the id has one, as the writer
        # looks a provider-run call up first (a client call may share its id)
        ran = {block["tool_call_id"] for block in message["content"] if block["type"] == "server_tool_call"}
        last = {block["tool_call_id"]: at for at, block in enumerate(message["content"]) if block["type"] in _CALLS
                and (block["type"] == "server_tool_call" or block["tool_call_id"] not in ran)}
        content = []
        for at, block in enumerate(message["content"]):
            if block["type"] != "approval_request":
                content.append(block)
            if block["type"] in _CALLS and block["tool_call_id"] in asks and last[block["tool_call_id"]] == at:
                content.append(asks[block["tool_call_id"]])  # in the part of its call
        out.append({**message, "content": content})
        ids = list(dict.fromkeys(block["tool_call_id"] for block in content if block["type"] in _CALLS))
        decided = [decisions[asks[i]["approval_id"]] for i in ids if i in asks and asks[i]["approval_id"] in decisions]
        if answered := decided + [results[i] for i in ids if i in results]:
            out.append({"role": "tool", "content": answered})
    return out


def _expected(conversation: cb.Conversation, losses: tuple[cb.providers.Loss, ...], form: str) -> list[Any]:
    """``conversation`` as each loss says it comes back (JSON as its text, an error's parts joined...)."""
    raw = cb.unstructure(conversation)
    # the UI form has no approvals apart from its tool parts' states: they stay local there
    losses, dropped, gone = approvals_left_local(raw, losses) if form == "ui" else (list(losses), set(), set())
    losses = tuple(search_results_as_text(raw, losses, _locate))
    marks: dict[str, set[int]] = {"system": set(), "array": set(), "joined": set(), "null": set()}
    kept_caches = {(i, j): _sent(block["cache"]) for i, message in enumerate(raw)
                   for j, block in enumerate(message["content"])
                   if form == "model" and block["type"] == "compaction" and "summary" in block and "cache" in block}
    compacted = compactions_as_text(raw, dropped)
    for (i, j), cache in kept_caches.items():  # a ModelMessage text part carries a breakpoint
        raw[i]["content"][j]["cache"] = cache
    # a provider-run result apart from its call reads back right after it (the UI form keeps it in the call's part)
    moved = {id(node[key]) for loss in losses if loss.kind == "order_changed" and form == "ui"
             for node, key in [_locate(raw, loss.path)] if node[key].get("type") == "server_tool_result"}
    for loss in sorted(losses, key=lambda loss: loss.kind not in ("metadata_not_sent", "state_not_replayed")):
        if loss.kind == "order_changed" or under(compacted, loss.path):
            continue
        node, key = _locate(raw, loss.path)  # keys before their blocks
        if key == "approved":  # a decision on a denied call reads back as a denial
            node[key] = False
            continue
        if _moved_hint(raw, loss, node, key) or _given_reason(raw, loss, node, key):
            continue
        if loss.kind in ("metadata_not_sent", "hint_not_sent", "state_not_replayed") or key in {
                "citations", "filename", "signature", "redacted", "title", "context", "citable", "location", "reason"}:
            del node[key]
            if loss.kind != "hint_not_sent" and key not in {"citations", "filename", "signature", "redacted", "title",
                                                             "context", "citable", "location", "reason"} and node == {}:
                holder, name = _locate(raw, loss.path.rsplit(".metadata[", 1)[0] + ".metadata")
                del holder[name]
            if key in {"signature", "redacted"} and not any(node.get(k) for k in ("text", "signature", "redacted")):
                dropped.add(id(node))
        elif loss.kind == "content_dropped":
            dropped.add(id(node[key]))
        elif key == "role":
            node[key] = "system"
        elif key == "outcome":  # interrupted, written as an error
            node[key] = "failed"
        else:
            _degrade(raw, loss, node, key, marks)
    out = [{**message, "content": _after_calls(content, moved)} for i, message in enumerate(raw)
           if i not in gone and (content := _kept(message, dropped, marks))]
    return _placed(out) if form == "ui" else _decisions_in_tool_messages(out)


def _decisions_in_tool_messages(raw: list[Any]) -> list[Any]:
    """A user's approval decisions as the SDK holds them: in a tool message right after the rest of the turn."""
    out = []
    for message in raw:
        decisions = [b for b in message["content"] if b["type"] == "approval_response"]
        if message["role"] != "user" or not decisions:
            out.append(message)
            continue
        if rest := [b for b in message["content"] if b["type"] != "approval_response"]:
            out.append({**message, "content": rest})
        out.append({"role": "tool", "content": decisions})
    return out


def _after_calls(content: list[Any], moved: set[int]) -> list[Any]:
    """``content`` with each moved result right after the server call it answers."""
    if not moved:
        return content
    out = [block for block in content if id(block) not in moved]
    for block in (block for block in content if id(block) in moved):
        at = next(i for i, b in enumerate(out) if b["type"] == "server_tool_call"
                  and b["tool_call_id"] == block["tool_call_id"])
        out.insert(at + 1, block)
    return out


def _kept(message: dict[str, Any], dropped: set[int], marks: dict[str, set[int]]) -> list[Any]:
    """A message's blocks that come back: none dropped, a system message's joined, results as they read back."""
    content: list[Any] = []
    for block in message["content"]:
        if id(block) in dropped:
            continue
        if block["type"] in ("tool_result", "server_tool_result"):
            block["content"] = _result_content(block, dropped, marks)
        if id(block) in marks["system"]:
            content[-1]["text"] += "\n" + block["text"]
        else:
            content.append(block)
    return content


@settings(max_examples=150)
@given(conversations())
def test_our_conversation_comes_back_from_model_messages_as_the_losses_say(conversation):
    result = bridge.to_model_messages(conversation)
    json.dumps(result.payload)
    back = bridge.from_model_messages(result.payload)
    assert _unmarked(cb.unstructure(back)) == _expected(conversation, result.losses, "model")
    assert bridge.to_model_messages(back).payload == result.payload


@pytest.mark.parametrize(("kept", "text"), [(cb.TextBlock(text="0"), "0"), (cb.JsonBlock(value=None), "null")])
def test_a_result_whose_files_all_drop_is_written_as_the_text_output_it_reads_back_as(kept, text):
    """A provider's file drops (reported), and the one text left (a JSON value as its text) is a ``text`` output.

    Written as a ``content`` output of one text, it read back with a ``vercel_ai/output`` key it never had
    (found by the property above).
    """
    call = cb.ToolCallBlock(tool_call_id="0", tool_name="0", input=None)
    image = cb.FileBlock(media_type="image/png", source=cb.ReferenceSource(id="file_011CNha8iCJcU1wXNR6q4V8w"))
    result = cb.ToolResultBlock(tool_call_id="0", tool_name="0", outcome="succeeded", content=[image, kept])
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[call]),
                                             cb.Message(role="tool", content=[result])])
    written = bridge.to_model_messages(conversation)
    assert written.payload[1]["content"][0]["output"] == {"type": "text", "value": text}
    assert ("$[1].content[0].content[0]", "content_dropped") in [(loss.path, loss.kind) for loss in written.losses]
    back = bridge.from_model_messages(written.payload)
    assert back.messages[1].content[0] == attrs.evolve(result, content=[cb.TextBlock(text=text)])


@pytest.mark.parametrize("content", [[], [cb.FileBlock(media_type="image/png", source=cb.ReferenceSource(id="f1"))]],
                         ids=["no part", "a file id only"])
def test_a_succeeded_result_with_nothing_an_output_holds_is_written_as_output_null(content):
    """The SDK refuses an ``output-available`` part without ``output``: ``null`` is written, and reported degraded."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="shot", input={})
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="shot", outcome="succeeded", content=content)
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[call]),
                                             cb.Message(role="tool", content=[result])])
    written = bridge.to_ui_messages(conversation)
    part = written.payload[0]["parts"][1]
    assert (part["state"], part["output"]) == ("output-available", None)
    losses = [(loss.path, loss.kind) for loss in written.losses]
    assert ("$[1].content[0]", "content_degraded") in losses
    assert (("$[1].content[0].content[0]", "content_dropped") in losses) == bool(content)
    back = bridge.from_ui_messages(written.payload)
    assert back[1].content[0].content == (cb.JsonBlock(value=None),)


def test_an_output_available_part_without_output_is_refused_as_the_sdk_refuses_it():
    part = {"type": "tool-x", "toolCallId": "c1", "state": "output-available", "input": {}}
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_ui_messages([{"id": "a1", "role": "assistant", "parts": [part]}])
    assert error.value.errors == [("$[0].parts[0].output", "required")]


@settings(max_examples=150)
@given(conversations())
def test_our_conversation_comes_back_from_ui_messages_as_the_losses_say(conversation):
    result = bridge.to_ui_messages(conversation)
    json.dumps(result.payload)
    back = bridge.from_ui_messages(result.payload)
    assert _unmarked(cb.unstructure(back)) == _expected(conversation, result.losses, "ui")
    assert bridge.to_ui_messages(back).payload == result.payload


def _server_tools(paired: bool) -> st.SearchStrategy[list[Any]]:
    """Server calls and results: drawn apart, or each result right after its call (as the SDK keeps them)."""
    calls = st.tuples(st.integers(0, 9), server_tool_call_blocks()).map(
        lambda drawn: attrs.evolve(drawn[1], tool_call_id=f"srvtoolu_{drawn[0]}"))
    if not paired:
        return st.lists(st.one_of(calls, server_tool_result_blocks()), min_size=1, max_size=3)
    run = st.tuples(calls, st.none() | server_tool_result_blocks()).map(lambda pair: [pair[0]] if pair[1] is None else [
        pair[0], attrs.evolve(pair[1], tool_call_id=pair[0].tool_call_id, tool_name=pair[0].tool_name)])
    runs = st.lists(run, min_size=1, max_size=2, unique_by=lambda blocks: blocks[0].tool_call_id)
    return runs.map(lambda drawn: [block for blocks in drawn for block in blocks])


def with_server_tools(paired: bool) -> st.SearchStrategy[cb.Conversation]:
    """Conversations that end with an assistant message of server calls and results."""
    return st.tuples(conversations(max_messages=3), _server_tools(paired)).map(lambda pair: cb.Conversation(
        messages=[*pair[0], cb.Message(role="assistant", content=pair[1])]))


@given(with_server_tools(paired=False))
def test_tools_the_provider_ran_come_back_from_model_messages_as_the_losses_say(conversation):
    """Server blocks of any issuer are ``tool-call`` parts with ``providerExecuted`` and ``tool-result`` parts in the
    assistant message, and come back as the losses say."""
    result = bridge.to_model_messages(conversation)
    back = bridge.from_model_messages(result.payload)
    assert _unmarked(cb.unstructure(back)) == _expected(conversation, result.losses, "model")
    assert bridge.to_model_messages(back).payload == result.payload


@given(with_server_tools(paired=True))
def test_tools_the_provider_ran_come_back_from_ui_messages_as_the_losses_say(conversation):
    """Each server call is a tool part with ``providerExecuted``, holding its result; they come back in place."""
    result = bridge.to_ui_messages(conversation)
    back = bridge.from_ui_messages(result.payload)
    assert _unmarked(cb.unstructure(back)) == _expected(conversation, result.losses, "ui")
    assert bridge.to_ui_messages(back).payload == result.payload


def test_a_provider_run_result_apart_from_its_call_is_moved_or_dropped():
    """A result after other blocks reads back right after its call (``order_changed``); one with no call in its
    ``UIMessage`` has no part to go in (``content_dropped``)."""
    call = cb.ServerToolCallBlock(tool_call_id="s1", tool_name="web_search", input={"q": "x"})
    result = cb.ServerToolResultBlock(tool_call_id="s1", tool_name="web_search", outcome="succeeded",
                                      content=[cb.TextBlock(text="hit")])
    stray = attrs.evolve(result, tool_call_id="s2")
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[
        call, cb.TextBlock(text="Searching."), result, stray])])
    written = bridge.to_ui_messages(conversation)
    assert [(loss.path, loss.kind) for loss in written.losses] == [
        ("$[0].content[2]", "order_changed"), ("$[0].content[3]", "content_dropped")]
    assert written.payload[0]["parts"][1] == {"type": "tool-web_search", "toolCallId": "s1", "state": "output-available",
                                              "input": {"q": "x"}, "providerExecuted": True, "output": "hit"}
    assert bridge.from_ui_messages(written.payload)[0].content == (call, result, cb.TextBlock(text="Searching."))


def test_strict_raises_on_content_losses():
    refusal = cb.Conversation(messages=[cb.Message(role="assistant", content=[cb.RefusalBlock(text="No.")])])
    with pytest.raises(LossError) as error:
        bridge.to_ui_messages(refusal, strict=True)
    assert [loss.kind for loss in error.value.losses] == ["content_degraded"]
    with pytest.raises(LossError):
        bridge.to_model_messages(refusal, strict=True)


def test_our_own_objects_are_refused_as_input():
    with pytest.raises(TypeError, match=r"vercel_ai\.from_ui_messages"):
        bridge.from_ui_messages(cb.Conversation(messages=[]))
    with pytest.raises(TypeError, match=r"vercel_ai\.to_model_messages"):
        bridge.to_model_messages([{"role": "user", "content": "Hi"}])


def test_a_files_document_fields_in_a_tool_output_are_reported() -> None:
    """A tool output's file parts hold no title, context or citable flag: each is reported where it was dropped."""
    document = cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF"), title="Q3",
                            context="Draft", citable=True)
    conversation = cb.Conversation(messages=[
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="fetch", input={})]),
        cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c1", tool_name="fetch",
                                                             outcome="succeeded", content=[document])]),
    ])
    losses = bridge.to_model_messages(conversation).losses
    assert [(loss.path, loss.kind) for loss in losses] == [
        (f"$[1].content[0].content[0].{name}", "content_dropped") for name in ("title", "context", "citable")]


def test_a_client_result_goes_to_the_client_call_when_a_server_call_shares_its_id():
    """A provider's call ids need not differ from the client's: each result goes to the part of its own kind."""
    call = cb.ToolCallBlock(tool_call_id="0", tool_name="f", input=None)
    server = cb.ServerToolCallBlock(tool_call_id="0", tool_name="web_search", input=None)
    result = cb.ToolResultBlock(tool_call_id="0", tool_name="f", outcome="succeeded", content=[cb.TextBlock(text="r")])
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[call]),
                                             cb.Message(role="assistant", content=[server]),
                                             cb.Message(role="tool", content=[result])])
    written = bridge.to_ui_messages(conversation)
    parts = [part for part in written.payload[0]["parts"] if "toolCallId" in part]
    assert [(part.get("providerExecuted", False), part["state"]) for part in parts] == [
        (False, "output-available"), (True, "input-available")]
    assert [(loss.path, loss.kind) for loss in written.losses] == [("$[2]", "order_changed")]
    assert [type(block) for m in bridge.from_ui_messages(written.payload) for block in m.content] == [
        cb.ToolCallBlock, cb.ToolResultBlock, cb.ServerToolCallBlock]
