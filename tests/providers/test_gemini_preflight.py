"""Gemini's pre-send checks: each documented rule finds what Gemini refuses, and nothing in a valid history."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, Rejection, gemini
from contentblocks.providers.gemini._checks import RULES
from provider_checks import examples

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "gemini"


def call(call_id: str, **metadata: object) -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=call_id, tool_name="weather", input={"city": call_id}, metadata=metadata)


def result(*call_ids: str) -> cb.Message:
    blocks = [
        cb.ToolResultBlock(
            tool_call_id=c, tool_name="weather", outcome="succeeded", content=[cb.TextBlock(text="21 °C")]
        )
        for c in call_ids
    ]
    return cb.Message(role="tool", content=blocks)


def user(text: str = "Wetter?") -> cb.Message:
    return cb.Message(role="user", content=text)


def assistant(*blocks: cb.Block) -> cb.Message:
    return cb.Message(role="assistant", content=list(blocks))


def rules(*messages: cb.Message, **options: object) -> list[tuple[str, str]]:
    return [(r.path, r.rule) for r in gemini.preflight(cb.Conversation(messages=list(messages)), **options)]


def test_histories_read_from_gemini_pass():
    """The golden requests have nothing Gemini would refuse, their thought signatures checked too."""
    for path in sorted(FIXTURES.glob("request_*.json")):
        conversation = gemini.from_provider(json.loads(path.read_text(encoding="utf-8")))
        assert gemini.preflight(conversation, require_signatures=True) == (), path.name


def test_an_empty_message_is_refused():
    """A message none of whose blocks can be sent would be an empty content."""
    redacted = cb.ReasoningBlock(redacted=b"x", metadata={ISSUER_KEY: "anthropic"})
    assert rules(user(), assistant(redacted)) == [("$[1]", "gemini/content-has-parts")]


def test_responses_must_follow_the_call_turn():
    """A function response after a user turn, not right after the calls, is refused."""
    assert rules(user(), assistant(call("a")), user("wait"), result("a")) == [("$[3]", "gemini/response-follows-call")]


def test_every_call_of_a_turn_is_answered_in_the_next():
    """Calls of one model turn answered across two turns, or a turn answering a call too few, are refused."""
    assert rules(user(), assistant(call("a"), call("b")), result("a"), user("und?"), result("b")) == [
        ("$[2]", "gemini/answer-every-call"),
        ("$[4]", "gemini/response-follows-call"),
    ]
    assert rules(user(), assistant(call("a"), call("b")), result("b", "a")) == []
    assert rules(user(), assistant(call("a"), call("b")), result("a"), result("b")) == []  # sent as one content
    late = gemini.preflight(
        cb.Conversation(messages=[user(), assistant(call("a")), user(), assistant(call("b")), result("a", "b")])
    )
    assert [(r.path, r.rule) for r in late] == [("$[4].content[0]", "gemini/answer-every-call")]
    assert late[0].message.startswith("answers call 'a', which the model turn right before did not make")


def test_calls_follow_a_user_turn():
    """A model turn with calls that opens the contents, or follows another model turn, is refused."""
    assert rules(assistant(call("a")), result("a")) == [("$[0]", "gemini/call-follows-user")]
    text = cb.TextBlock(text="Je regarde.")
    assert rules(user(), assistant(text), assistant(call("a")), result("a")) == [("$[2]", "gemini/call-follows-user")]


def test_signatures_are_checked_in_the_current_turn_only():
    """With require_signatures, each step's first call of the current turn needs a signature its target gets."""
    signed = {"gemini/thought_signature": "c2ln", ISSUER_KEY: "gemini/gemini-3-pro"}
    history = [
        user(),
        assistant(call("a", **signed)),
        result("a"),
        assistant(call("b"), call("c", **signed)),
        result("b", "c"),
    ]
    assert rules(*history) == []
    assert rules(*history, require_signatures=True) == [("$[3].content[0]", "gemini/thought-signature")]
    earlier = [
        user(),
        assistant(call("x")),
        result("x"),
        user("Und Paris?"),
        assistant(call("a", **signed)),
        result("a"),
    ]
    assert rules(*earlier, require_signatures=True) == []
    elsewhere = rules(*earlier, require_signatures=True, issuer="gemini/gemini-2.5-flash")
    assert elsewhere == [("$[4].content[0]", "gemini/thought-signature")]  # that signature is not sent there


def test_the_docs_list_every_rule_with_a_source():
    """The docs page's rule table names exactly the rules the check applies, each with a source."""
    text = (ROOT / "docs" / "providers" / "gemini.md").read_text(encoding="utf-8")
    table = text.split("## Checking before you send", 1)[1]
    rows = [row for row in table.splitlines() if row.startswith("| `gemini/")]
    assert [re.match(r"\| `([^`]+)`", row).group(1) for row in rows] == list(RULES)
    assert all(row.rstrip(" |").rsplit("|", 1)[-1].strip() for row in rows)


@examples(40)
@given(strategies.conversations(max_messages=6, max_text_size=8, max_binary_size=4))
def test_any_conversation_gets_rejections_of_known_rules(conversation):
    """Any conversation is checked without error; each rejection names a known rule and a message of it."""
    for rejection in gemini.preflight(conversation, require_signatures=True):
        assert isinstance(rejection, Rejection)
        assert rejection.rule in RULES
        index = int(re.match(r"\$\[(\d+)\]", rejection.path).group(1))
        assert index < len(conversation)
