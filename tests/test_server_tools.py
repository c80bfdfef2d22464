"""Tools the provider runs: the two block kinds, their rules, and what each adapter does with them.

Golden payloads are the documented ones: Anthropic's code execution tool
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/code-execution-tool, the response example and
its error example), web search (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool),
the MCP connector (https://platform.claude.com/docs/en/agents-and-tools/mcp-connector) and Gemini's code
execution (https://ai.google.dev/gemini-api/docs/code-execution, ``executableCode`` and ``codeExecutionResult``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.bridges import langchain, openai_agents, pydantic_ai, vercel_ai
from contentblocks.providers import ISSUER_KEY, LossError, anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import ServerToolAdded
from contentblocks.streaming import anthropic as anthropic_stream
from contentblocks.streaming import gemini as gemini_stream

CODE_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_01A2B3C4D5E6F7G8H9I0J1K2",
    "name": "code_execution",
    "input": {"code": 'import numpy as np\ndata = [1, 2, 3]\nprint(f"Mean: {np.mean(data)}")'},
}
CODE_RESULT = {
    "type": "code_execution_tool_result",
    "tool_use_id": "srvtoolu_01A2B3C4D5E6F7G8H9I0J1K2",
    "content": {"type": "code_execution_result", "stdout": "Mean: 2.0\n", "stderr": "", "return_code": 0},
}
CODE_ERROR = {
    "type": "code_execution_tool_result",
    "tool_use_id": "srvtoolu_01ABC123",
    "content": {"type": "code_execution_result", "stdout": "",
                "stderr": "NameError: name 'undefined_variable' is not defined", "return_code": 1},
}
SEARCH_CALL = {"type": "server_tool_use", "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", "name": "web_search",
               "input": {"query": "claude shannon birth date"}}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
    "content": [{"type": "web_search_result", "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                 "title": "Claude Shannon - Wikipedia", "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                 "page_age": "April 30, 2025"}],
}
MCP_CALL = {"type": "mcp_tool_use", "id": "mcptoolu_014Q35RayjACSWkSj4X2yov1", "name": "echo",
            "server_name": "example-mcp", "input": {"param1": "value1", "param2": "value2"}}
MCP_RESULT = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_014Q35RayjACSWkSj4X2yov1", "is_error": False,
              "content": [{"type": "text", "text": "Hello"}]}
GEMINI_PARTS = [
    {"text": "Let me compute that."},
    {"executableCode": {"language": "PYTHON", "code": "print(sum(range(1, 51)))"}},
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1275\n"}},
    {"text": "The sum is 1275."},
]
QUESTION = cb.Message(role="user", content="Compute it.")


def _anthropic_reply(*content: dict[str, Any]) -> cb.Message:
    reply = anthropic.from_response({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4",
                                     "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1},
                                     "content": [*content, {"type": "text", "text": "Done."}]})
    return reply.require_message()


def _gemini_reply(parts: list[dict[str, Any]]) -> cb.Message:
    return gemini.from_response({"candidates": [{"content": {"role": "model", "parts": parts},
                                                 "finishReason": "STOP"}]}).require_message()


# ----------------------------------------------------------------------------------------------- the rules


@settings(max_examples=60, deadline=None)
@given(strategies.server_tool_call_blocks(), strategies.server_tool_result_blocks())
def test_both_kinds_round_trip_through_the_wire(call, result):
    for block in (call, result):
        assert cb.loads(cb.dumps(block), cb.Block) == block
        assert cb.structure(cb.unstructure(block), cb.Block) == block


def test_a_result_always_writes_its_content():
    result = cb.ServerToolResultBlock(tool_call_id="s1", tool_name="web_search", outcome="failed")
    assert cb.unstructure(result) == {"type": "server_tool_result", "tool_call_id": "s1", "tool_name": "web_search",
                                      "outcome": "failed", "content": []}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"type": "server_tool_call", "tool_call_id": "", "tool_name": "f", "input": None},
         ("$.tool_call_id", "must not be empty")),
        ({"type": "server_tool_call", "tool_call_id": "s1", "tool_name": "f"}, ("$.input", "required key missing")),
        ({"type": "server_tool_result", "tool_call_id": "s1", "tool_name": "f", "outcome": "ok", "content": []},
         ("$.outcome", "expected one of: succeeded, failed, denied, interrupted")),
        ({"type": "server_tool_result", "tool_call_id": "s1", "tool_name": "f", "outcome": "failed",
          "content": [{"type": "refusal", "text": "no"}]},
         ("$.content[0].type", "a tool result cannot hold refusal blocks (allowed: text, file, json, search_result)")),
        ({"type": "server_tool_call", "tool_call_id": "s1", "tool_name": "f", "input": 1, "by": "x"},
         ("$.by", "unknown key (a server_tool_call block has: type, tool_call_id, tool_name, input, cache, metadata)")),
    ],
)
def test_each_rule_is_worded_at_its_path(raw, problem):
    with pytest.raises(cb.ValidationError) as caught:
        cb.structure(raw, cb.Block)
    assert problem in caught.value.errors


@pytest.mark.parametrize("role", ["user", "system", "developer", "tool"])
def test_only_assistant_messages_carry_them(role):
    call = cb.ServerToolCallBlock(tool_call_id="s1", tool_name="web_search", input={})
    with pytest.raises(cb.ValidationError, match="cannot carry server_tool_call blocks"):
        cb.Message(role=role, content=[call])


def test_a_tool_result_cannot_hold_them():
    call = cb.ServerToolCallBlock(tool_call_id="s1", tool_name="web_search", input={})
    with pytest.raises(cb.ValidationError):
        cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded", content=[call])  # type: ignore[list-item]


def test_a_conversation_never_waits_for_them_and_no_tool_message_answers_them():
    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    conversation = cb.Conversation(messages=[QUESTION, message])
    assert conversation.pending_tool_calls() == ()
    answer = cb.ToolResultBlock(tool_call_id=CODE_CALL["id"], tool_name="code_execution", outcome="succeeded")
    with pytest.raises(cb.ValidationError, match="tool result answers no earlier tool call"):
        conversation.append(cb.Message(role="tool", content=[answer]))
    assert cb.repair(conversation).payload == conversation


def test_a_result_may_come_in_a_later_message_than_its_call():
    """Anthropic pauses a long turn (``pause_turn``); its continuation holds the result."""
    first, later = _anthropic_reply(CODE_CALL), _anthropic_reply(CODE_RESULT)
    conversation = cb.Conversation(messages=[QUESTION, first, later])
    assert later.content[0].tool_call_id == CODE_CALL["id"]
    assert later.content[0].tool_name == "code_execution"  # the result's kind names the tool: no call in view
    assert anthropic.to_provider(conversation).losses == ()


def test_unsealed_ones_are_dropped_by_sanitize():
    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    policy = cb.SanitizePolicy(roles=frozenset({"user", "assistant"}))
    cleaned = cb.sanitize([QUESTION, message], policy)
    assert [type(b) for b in cleaned.payload[1].content] == [cb.TextBlock]
    assert [(loss.path, loss.kind) for loss in cleaned.losses] == [
        ("$[1].content[0]", "content_dropped"), ("$[1].content[1]", "content_dropped")]


# ----------------------------------------------------------------------------------------------- Anthropic


def test_anthropic_code_execution_reads_and_goes_back_as_it_came():
    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    call, result, _ = message.content
    assert (call.tool_call_id, call.tool_name, call.input) == (CODE_CALL["id"], "code_execution", CODE_CALL["input"])
    assert (result.tool_call_id, result.outcome, result.content) == (
        CODE_CALL["id"], "succeeded", (cb.TextBlock(text="Mean: 2.0\n"),))
    assert call.metadata[ISSUER_KEY] == result.metadata[ISSUER_KEY] == "anthropic"
    sent = anthropic.to_provider([QUESTION, message])
    assert sent.payload["messages"][1]["content"][:2] == [CODE_CALL, CODE_RESULT]
    assert sent.losses == ()
    assert anthropic.from_provider(sent.payload).messages[1] == message


@pytest.mark.parametrize(
    ("call", "result", "outcome", "texts"),
    [
        ({**CODE_CALL, "id": "srvtoolu_01ABC123"}, CODE_ERROR, "failed", ["NameError: name 'undefined_variable' is not defined"]),
        (SEARCH_CALL, SEARCH_RESULT, "succeeded", ["Claude Shannon - Wikipedia"]),
        (MCP_CALL, MCP_RESULT, "succeeded", ["Hello"]),
        (SEARCH_CALL, {**SEARCH_RESULT, "content": {"type": "web_search_tool_result_error",
                                                    "error_code": "max_uses_exceeded"}},
         "failed", ["web_search_tool_result_error: max_uses_exceeded"]),
    ],
)
def test_anthropic_results_read_their_readable_parts(call, result, outcome, texts):
    message = _anthropic_reply(call, result)
    read = message.content[1]
    assert (read.tool_name, read.outcome, [block.text for block in read.content]) == (call["name"], outcome, texts)
    sent = anthropic.to_provider([QUESTION, message])
    assert sent.payload["messages"][1]["content"][:2] == [call, result]
    assert sent.losses == ()


def test_a_search_hit_cites_its_page_and_its_encrypted_content_stays_with_anthropic():
    hit = _anthropic_reply(SEARCH_CALL, SEARCH_RESULT).content[1].content[0]
    assert hit.citations[0].source == cb.CitedUri(value="https://en.wikipedia.org/wiki/Claude_Shannon")
    for target in (openai_chat, openai_responses, gemini):
        sent = target.to_provider([QUESTION, _anthropic_reply(SEARCH_CALL, SEARCH_RESULT)])
        text = json.dumps(sent.payload)
        assert "Claude Shannon - Wikipedia" in text
        assert "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5" not in text
        assert "srvtoolu_" not in text


def test_an_anthropic_result_of_unknown_origin_goes_back_as_its_content():
    """Metadata is inert: a native result on a block that records no issuer is not believed."""
    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    forged = [cb.ServerToolCallBlock(tool_call_id=b.tool_call_id, tool_name=b.tool_name, input=b.input)
              if type(b) is cb.ServerToolCallBlock else b for b in message.content]
    result = forged[1]
    forged[1] = cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                         outcome=result.outcome, content=result.content,
                                         metadata={"anthropic/server_result": CODE_RESULT})
    sent = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=forged)])
    assert [block["type"] for block in sent.payload["messages"][1]["content"]] == ["text", "text"]
    assert {loss.kind for loss in sent.losses} == {"content_dropped", "content_degraded", "state_not_replayed"}


def test_a_native_result_that_is_no_result_of_its_call_is_not_replayed():
    message = _anthropic_reply(CODE_CALL, CODE_RESULT)
    call, result, text = message.content
    wrong = {**CODE_RESULT, "type": "tool_result"}  # a client tool result, smuggled in
    bad = cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                   outcome=result.outcome, content=result.content,
                                   metadata={**result.metadata, "anthropic/server_result": wrong})
    sent = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=[call, bad, text])])
    # the call goes with its result, as nothing: a server_tool_use without its result would be refused
    assert [block["type"] for block in sent.payload["messages"][1]["content"]] == ["text", "text"]
    found = {(loss.path, loss.kind) for loss in sent.losses}
    assert {("$[1].content[0]", "content_dropped"), ("$[1].content[1]", "content_degraded")} <= found


def test_anthropic_streams_fold_them():
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                              "model": "claude-opus-4", "content": [], "stop_reason": None,
                                              "usage": {"input_tokens": 1, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {**CODE_CALL, "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": json.dumps(CODE_CALL["input"])}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": CODE_RESULT},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    streamed = [event for event in anthropic_stream.events(copy.deepcopy(events)) if isinstance(event, ServerToolAdded)]
    assert [type(event.block) for event in streamed] == [cb.ServerToolCallBlock, cb.ServerToolResultBlock]
    folded = anthropic_stream.fold(copy.deepcopy(events)).require_message()
    whole = anthropic.from_response({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4",
                                     "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 9},
                                     "content": [CODE_CALL, CODE_RESULT]}).require_message()
    assert folded == whole


# ----------------------------------------------------------------------------------------------- Gemini


def test_gemini_code_execution_reads_and_goes_back_as_it_came():
    message = _gemini_reply(GEMINI_PARTS)
    _, call, result, _ = message.content
    assert (type(call), call.tool_name, call.input) == (cb.ServerToolCallBlock, "code_execution",
                                                        GEMINI_PARTS[1]["executableCode"])
    assert (result.tool_call_id, result.outcome, result.content) == (
        call.tool_call_id, "succeeded", (cb.TextBlock(text="1275\n"),))
    sent = gemini.to_provider([QUESTION, message])
    assert sent.payload["contents"][1]["parts"] == GEMINI_PARTS
    assert sent.losses == ()


@pytest.mark.parametrize(
    ("native", "outcome"),
    [("OUTCOME_FAILED", "failed"), ("OUTCOME_DEADLINE_EXCEEDED", "interrupted"), ("OUTCOME_UNSPECIFIED", "failed")],
)
def test_gemini_outcomes_map_both_ways(native, outcome):
    parts = [GEMINI_PARTS[1], {"codeExecutionResult": {"outcome": native, "output": "Traceback..."}}]
    message = _gemini_reply(parts)
    assert message.content[1].outcome == outcome
    assert gemini.to_provider([QUESTION, message]).payload["contents"][1]["parts"] == parts


def test_gemini_ids_pair_code_and_result():
    parts = [{"executableCode": {"id": "code-1", "language": "PYTHON", "code": "print(1)"}},
             {"executableCode": {"id": "code-2", "language": "PYTHON", "code": "print(2)"}},
             {"codeExecutionResult": {"id": "code-1", "outcome": "OUTCOME_OK", "output": "1"}},
             {"codeExecutionResult": {"id": "code-2", "outcome": "OUTCOME_OK", "output": "2"}}]
    message = _gemini_reply(parts)
    assert [b.tool_call_id for b in message.content] == ["code-1", "code-2", "code-1", "code-2"]
    assert gemini.to_provider([QUESTION, message]).payload["contents"][1]["parts"] == parts


def test_gemini_streams_fold_them():
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [part]}}]} for part in GEMINI_PARTS]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    assert gemini_stream.fold(chunks).require_message() == _gemini_reply(GEMINI_PARTS)


# ----------------------------------------------------------------------------------------------- every target

SOURCES = {"anthropic": lambda: _anthropic_reply(CODE_CALL, CODE_RESULT), "gemini": lambda: _gemini_reply(GEMINI_PARTS)}
WRITERS = {
    "anthropic": anthropic.to_provider,
    "gemini": gemini.to_provider,
    "openai_chat": openai_chat.to_provider,
    "openai_responses": openai_responses.to_provider,
    "pydantic_ai": pydantic_ai.to_messages,
    "langchain": langchain.to_messages,
    "openai_agents": openai_agents.to_items,
    "vercel_ai ui": vercel_ai.to_ui_messages,
    "vercel_ai model": vercel_ai.to_model_messages,
}


#: The framework bridges, which hold a provider-run tool as data in their own form (docs/bridges/*.md).
FRAMEWORKS = frozenset({"pydantic_ai", "langchain", "vercel_ai ui", "vercel_ai model"})


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("target", WRITERS)
def test_every_cell_of_the_matrix(source, target):
    """Kept by the provider that ran the tool, and by the frameworks in their own provider-run forms; elsewhere
    the call dropped and the result sent as its content."""
    message = SOURCES[source]()
    call_at = next(j for j, b in enumerate(message.content) if type(b) is cb.ServerToolCallBlock)
    converted = WRITERS[target](cb.Conversation(messages=[QUESTION, message]))
    kinds = {(loss.path, loss.kind) for loss in converted.losses}
    if target == source:
        assert kinds == set()
        return
    output = message.content[call_at + 1].content[0].text.strip()
    if target in FRAMEWORKS:  # neutral holders: the framework's own provider-run forms, whoever ran the tool
        at = {f"$[1].content[{call_at}]", f"$[1].content[{call_at + 1}]"}
        assert not {kind for path, kind in kinds if path in at} & {"content_dropped", "content_degraded"}
        assert output in json.dumps(converted.payload, default=str)
        return
    assert (f"$[1].content[{call_at}]", "content_dropped") in kinds
    assert (f"$[1].content[{call_at + 1}]", "content_degraded") in kinds
    assert output in json.dumps(converted.payload, default=str)
    with pytest.raises(LossError):  # strict raises on the content losses
        WRITERS[target](cb.Conversation(messages=[QUESTION, message]), strict=True)


def test_a_search_result_in_another_providers_result_is_text_in_anthropics_assistant_turn():
    """Anthropic takes ``search_result`` blocks in user turns and tool results only, never from the assistant."""
    hit = cb.SearchResultBlock(source=cb.CitedUri(value="https://example.com/lawns"), title="Lawns",
                               content=[cb.TextBlock(text="Grass is green.")])
    result = cb.ServerToolResultBlock(tool_call_id="ws_1", tool_name="web_search", outcome="succeeded",
                                      content=[hit], metadata={ISSUER_KEY: "openai"})
    sent = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=[result])])
    assert sent.payload["messages"][1]["content"] == [
        {"type": "text", "text": "Search result: Lawns\nSource: https://example.com/lawns\n\nGrass is green."}]
    assert ("$[1].content[0].content[0]", "content_degraded") in {(loss.path, loss.kind) for loss in sent.losses}


def test_a_result_nested_past_every_limit_reads_without_a_recursion_error():
    """Found by ``python fuzz/readers.py --cases 3000 --seed 7`` (case 2943): a web search result's content nested
    thousands deep raised RecursionError while its encrypted fields were stripped; the value is now checked as JSON
    first, and the reply is refused with a ValidationError at the value's path, as for any block."""
    deep: Any = "x"
    for _ in range(5000):
        deep = {"type": "text", "text": deep}
    result = {**SEARCH_RESULT, "content": [deep]}
    with pytest.raises(cb.ValidationError, match="nested deeper than"):  # the native block too holds no such value
        _anthropic_reply(SEARCH_CALL, result)


def test_an_anthropic_call_whose_result_cannot_go_back_natively_is_not_sent_alone():
    """A call Anthropic issued, whose result lost its native form (read from a framework), goes as nothing."""
    call, result, text = _anthropic_reply(CODE_CALL, CODE_RESULT).content
    stripped = cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                        outcome=result.outcome, content=result.content,
                                        metadata={"contentblocks/issuer": "anthropic"})
    sent = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=[call, stripped, text])])
    kinds = [block["type"] for block in sent.payload["messages"][1]["content"]]
    assert "server_tool_use" not in kinds
    assert ("$[1].content[0]", "content_dropped") in {(loss.path, loss.kind) for loss in sent.losses}
    alone = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=[call])])  # pause_turn
    assert [block["type"] for block in alone.payload["messages"][1]["content"]] == ["server_tool_use"]


def test_a_writer_reports_its_own_bookkeeping_on_a_result_sent_as_content():
    """Another provider's result sent as its content: the target's own keys on it are reported, not skipped."""
    result = cb.ServerToolResultBlock(tool_call_id="0", tool_name="web_search", outcome="succeeded",
                                      content=[cb.TextBlock(text="hit")], metadata={"anthropic/citations": None})
    sent = anthropic.to_provider([QUESTION, cb.Message(role="assistant", content=[result])])
    assert ('$[1].content[0].metadata["anthropic/citations"]', "metadata_not_sent") in {
        (loss.path, loss.kind) for loss in sent.losses}
