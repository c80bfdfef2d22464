"""What ``openai_responses.preflight`` finds before a request: each documented rule, and its source in the docs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, Rejection, openai_responses
from contentblocks.providers.openai_responses._checks import RULES
from provider_checks import examples

DOCS = (Path(__file__).parents[2] / "docs" / "providers" / "openai_responses.md").read_text(encoding="utf-8")
QUESTION = cb.Message(role="user", content="Weather in Paris?")
CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "weather",
    "arguments": "{}",
    "status": "completed",
}


def turn(*reasoning: dict[str, Any], answered: bool = True) -> cb.Conversation:
    """A question, a reply holding ``reasoning`` items then a call, and (when ``answered``) the call's result."""
    reply = openai_responses.from_response({"status": "completed", "output": [*reasoning, CALL]})
    messages = [QUESTION, reply.message]
    if answered:
        result = cb.ToolResultBlock(
            tool_call_id="call_1", tool_name="weather", outcome="succeeded", content=[cb.TextBlock(text="21 °C")]
        )
        messages.append(cb.Message(role="tool", content=[result]))
    return cb.Conversation(messages=messages)


ENCRYPTED = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Call it."}],
    "encrypted_content": "gAAAA",
}
STORED = {
    "type": "reasoning",
    "id": "rs_2",
    "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}],
}


def test_a_call_needs_its_output():
    """A function call with no function_call_output is refused at the call; answered, nothing is."""
    assert openai_responses.preflight(turn(ENCRYPTED, answered=False)) == (
        Rejection(
            "$[1].content[1]",
            "openai_responses/call-needs-output",
            "this function_call has no function_call_output: the API needs the result of every call",
        ),
    )
    assert openai_responses.preflight(turn(ENCRYPTED)) == ()


def test_an_output_needs_its_call():
    """In a trimmed history a result whose call is gone is refused, unless the call is in the previous response."""
    trimmed = list(turn(ENCRYPTED))[2:]
    with pytest.raises(cb.ValidationError):
        cb.Conversation(messages=trimmed)
    assert [(r.path, r.rule) for r in openai_responses.preflight(trimmed)] == [
        ("$[0].content[0]", "openai_responses/output-answers-call")
    ]
    assert openai_responses.preflight(trimmed, previous_response_id="resp_1") == ()


def test_reasoning_goes_back_with_tool_outputs():
    """OpenAI reasoning that came with answered tool calls, and would not be sent to the target, is refused."""
    conversation = turn(ENCRYPTED)
    assert openai_responses.preflight(conversation) == ()
    assert openai_responses.preflight(conversation, issuer="openai/o3") == (
        Rejection(
            "$[1].content[0]",
            "openai_responses/reasoning-with-tool-calls",
            "reasoning returned with these tool calls is not sent back to 'openai/o3'",
        ),
    )
    assert openai_responses.preflight(turn(ENCRYPTED, answered=False), issuer="openai/o3")[0].rule == (
        "openai_responses/call-needs-output"
    )


def test_other_providers_reasoning_is_not_this_rule():
    """Reasoning another provider issued is a loss when sent, never a refusal of the OpenAI rule."""
    conversation = turn(ENCRYPTED)
    foreign = cb.ReasoningBlock(text="Let me look.", signature="EqQB", metadata={ISSUER_KEY: "anthropic"})
    answer = cb.Message(role="assistant", content=[foreign, *conversation[1].content[1:]])
    assert openai_responses.preflight([QUESTION, answer, conversation[2]]) == ()


def test_stateless_reasoning_needs_its_encrypted_content():
    """With store=false a reasoning item known only by its id is refused once, at its first block."""
    stored = turn(STORED)
    assert openai_responses.preflight(stored) == ()
    assert [(r.path, r.rule) for r in openai_responses.preflight(stored, store=False)] == [
        ("$[1].content[0]", "openai_responses/stateless-reasoning-needs-encrypted-content")
    ]
    assert openai_responses.preflight(turn(ENCRYPTED), store=False) == ()


def test_rejections_come_in_rule_order():
    """Tool pairing is listed first, then reasoning, each in conversation order."""
    found = openai_responses.preflight(turn(STORED, answered=False), store=False)
    assert [r.rule for r in found] == [
        "openai_responses/call-needs-output",
        "openai_responses/stateless-reasoning-needs-encrypted-content",
    ]


def _rule_table() -> dict[str, str]:
    section = DOCS.split("## Pre-send rules", 1)[1].split("\n## ", 1)[0]
    rows = [row.split("|") for row in section.splitlines() if row.startswith("| `openai_responses/")]
    return {row[1].strip().strip("`"): row[-2].strip() for row in rows}


def test_every_rule_has_a_documented_source():
    """Each rule preflight checks has a row in the docs page's rule table, with a link to its source."""
    table = _rule_table()
    assert set(table) == set(RULES)
    assert all(re.search(r"\(https://[^)]+\)", source) for source in table.values())


@examples(40)
@given(strategies.conversations(max_messages=6, max_text_size=12, max_binary_size=8))
def test_preflight_on_generated_conversations(conversation):
    """Preflight names only its own rules: one refusal per unanswered call, none for results (a Conversation pairs them)."""
    found = openai_responses.preflight(conversation)
    assert {r.rule for r in found} <= set(RULES)
    # every call without a result, whether it waits for approval or not: the API needs an output for each
    answered = {r.tool_call_id for m in conversation for r in m.tool_results()}
    pending = {c.tool_call_id for m in conversation for c in m.tool_calls()} - answered
    assert len([r for r in found if r.rule == "openai_responses/call-needs-output"]) == len(pending)
    assert not [r for r in found if r.rule == "openai_responses/output-answers-call"]
