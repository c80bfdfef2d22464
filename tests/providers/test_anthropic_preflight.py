"""The Anthropic pre-send checks: each documented rule refuses what the API would, at the neutral path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, Rejection, anthropic
from contentblocks.providers._contract import LossRecorder
from contentblocks.providers.anthropic._checks import MAX_MESSAGES, check
from contentblocks.providers.anthropic._write import Written

DOCS = (Path(__file__).parents[2] / "docs" / "providers" / "anthropic.md").read_text(encoding="utf-8")
FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"


def user(text: str = "Weather in Paris and London?") -> cb.Message:
    return cb.Message(role="user", content=text)


def call(call_id: str = "toolu_1", name: str = "get_weather") -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=call_id, tool_name=name, input={"city": "Paris"})


def result(call_id: str = "toolu_1", name: str = "get_weather") -> cb.ToolResultBlock:
    return cb.ToolResultBlock(
        tool_call_id=call_id, tool_name=name, outcome="succeeded", content=[cb.TextBlock(text="15 C")]
    )


def thought(issuer: str = "anthropic") -> cb.ReasoningBlock:
    return cb.ReasoningBlock(text="Use the tool.", signature="EqQBCgIYAh", metadata={ISSUER_KEY: issuer})


def rules(*messages: cb.Message, **options: object) -> list[tuple[str, str]]:
    found = anthropic.preflight(cb.Conversation(messages=list(messages)), **options)
    assert all(isinstance(r, Rejection) for r in found)
    return [(r.path, r.rule) for r in found]


def test_every_rule_has_a_row_with_its_source():
    """Each rule id is in the docs page's rule table, with a link to the Anthropic page that states it."""
    for rule in anthropic.RULES:
        row = next(line for line in DOCS.splitlines() if line.startswith(f"| `{rule}` |"))
        assert re.search(r"\(https://platform\.claude\.com/docs/en/[\w/.-]+\)", row), rule


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_valid_requests_pass(path):
    """Conversations read from valid requests (and the response fixtures after a user turn) pass, thinking or not."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    thinking = '"type": "thinking"' in path.read_text(encoding="utf-8")  # the fixtures that call tools after thinking
    if path.name.startswith("response_"):
        reply = anthropic.from_response(raw)
        assert reply.message is not None
        conversation = cb.Conversation(messages=[user(), reply.message])
    else:
        conversation = anthropic.from_provider(raw)
    assert anthropic.preflight(conversation, thinking=thinking) == ()


def test_a_result_must_answer_the_turn_just_before():
    """A tool result two turns after its call, with a user turn between, is refused at the result."""
    assert rules(
        user(),
        cb.Message(role="assistant", content=[call()]),
        user("And?"),
        cb.Message(role="assistant", content="Hm."),
        cb.Message(role="tool", content=[result()]),
    ) == [
        ("$[1].content[0]", "anthropic/tool-use-answered"),
        ("$[4].content[0]", "anthropic/tool-result-after-call"),
    ]


def test_results_come_first_in_their_turn():
    """A user turn joined before a tool message puts text before the result: the result is refused."""
    assert rules(
        user(),
        cb.Message(role="assistant", content=[call()]),
        user("Quick!"),
        cb.Message(role="tool", content=[result()]),
    ) == [
        ("$[3].content[0]", "anthropic/tool-results-first"),
    ]
    assert (
        rules(
            user(),
            cb.Message(role="assistant", content=[call()]),
            cb.Message(role="tool", content=[result()]),
            user("Thanks."),
        )
        == []
    )


def test_every_call_is_answered_in_the_next_turn():
    """Calls left unanswered when the conversation goes on are refused; a call in the last turn waits for its result."""
    calls = cb.Message(role="assistant", content=[call("toolu_1"), call("toolu_2")])
    one_answer = cb.Message(role="tool", content=[result("toolu_1")])
    assert rules(user(), calls, one_answer) == [("$[1].content[1]", "anthropic/tool-use-answered")]
    assert rules(user(), calls) == []
    system_between = cb.Message(role="system", content="Be quick.", metadata={"anthropic/in_messages": True})
    assert rules(
        user(), calls, system_between, cb.Message(role="tool", content=[result("toolu_1"), result("toolu_2")])
    ) == [
        ("$[1].content[0]", "anthropic/tool-use-answered"),
        ("$[1].content[1]", "anthropic/tool-use-answered"),
        ("$[3].content[0]", "anthropic/tool-result-after-call"),
        ("$[3].content[1]", "anthropic/tool-result-after-call"),
    ]


def test_consecutive_turns_of_one_role_count_as_one():
    """Two assistant messages in a row are one turn: results after them answer calls of either."""
    first = cb.Message(role="assistant", content=[call("toolu_1")])
    second = cb.Message(role="assistant", content=[call("toolu_2")])
    answers = cb.Message(role="tool", content=[result("toolu_1"), result("toolu_2")])
    assert rules(user(), first, second, answers) == []


def test_with_thinking_the_last_tool_turn_starts_with_its_thinking():
    """With thinking on, the last assistant turn that calls a tool must open with thinking Anthropic issued."""
    answered = cb.Message(role="tool", content=[result()])
    signed = cb.Message(role="assistant", content=[thought(), call()])
    assert rules(user(), signed, answered, thinking=True) == []
    bare = cb.Message(role="assistant", content=[cb.TextBlock(text="Checking."), call()])
    assert rules(user(), bare, answered, thinking=True) == [("$[1].content[0]", "anthropic/thinking-before-tool-use")]
    assert rules(user(), bare, answered) == []
    foreign = cb.Message(role="assistant", content=[thought("openai"), call()])
    assert rules(user(), foreign, answered, thinking=True) == [
        ("$[1].content[1]", "anthropic/thinking-before-tool-use")
    ]
    assert rules(user(), foreign, answered, thinking=True, issuer="openai") == []
    earlier = [user(), bare, answered, cb.Message(role="assistant", content="Done."), user("Again?")]
    assert rules(*earlier, thinking=True) == []  # only the last assistant turn is checked


def test_a_prefill_does_not_end_with_whitespace():
    """A final assistant turn whose last text ends with whitespace is refused; anywhere else it is fine."""
    assert rules(user(), cb.Message(role="assistant", content="The answer is ")) == [
        ("$[1].content[0]", "anthropic/prefill-trailing-whitespace")
    ]
    assert rules(user(), cb.Message(role="assistant", content="The answer is")) == []
    assert rules(user(), cb.Message(role="assistant", content="Sure.\n"), user()) == []


def test_a_request_holds_at_most_the_documented_number_of_messages():
    """More payload messages than the documented limit are refused as a whole."""
    messages = [{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1)
    written = Written({"messages": messages}, LossRecorder(), [["$[0].content[0]"]] * len(messages))
    assert [(r.path, r.rule) for r in check(written, thinking=False)] == [("$", "anthropic/message-limit")]
    written = Written({"messages": messages[:MAX_MESSAGES]}, written.losses, written.origins[:MAX_MESSAGES])
    assert check(written, thinking=False) == ()


def test_rejections_print_their_path_rule_and_reason():
    """A rejection reads as the path, what is wrong and the rule id."""
    (rejection,) = anthropic.preflight(cb.Conversation(messages=[user(), cb.Message(role="assistant", content="x ")]))
    assert (
        str(rejection)
        == "$[1].content[0]: a final assistant turn must not end with whitespace (anthropic/prefill-trailing-whitespace)"
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.conversations(max_messages=5))
def test_rejections_name_rules_and_blocks_of_the_conversation(conversation):
    """Over any conversation, every rejection names a documented rule and a path into the conversation."""
    paths = {"$"} | {f"$[{i}].content[{j}]" for i, m in enumerate(conversation) for j, _ in enumerate(m.content)}
    for rejection in anthropic.preflight(conversation, thinking=True):
        assert rejection.rule in anthropic.RULES
        assert rejection.path in paths
