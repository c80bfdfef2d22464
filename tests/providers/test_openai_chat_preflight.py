"""What OpenAI Chat Completions would refuse, found before sending: one test per documented rule."""

from __future__ import annotations

import re
from pathlib import Path

import contentblocks as cb
from contentblocks.providers import Rejection, openai_chat
from contentblocks.providers.openai_chat._checks import RULES

DOCS = (Path(__file__).parents[2] / "docs" / "providers" / "openai_chat.md").read_text(encoding="utf-8")


def user(text: str = "hi") -> cb.Message:
    return cb.Message(role="user", content=text)


def call(call_id: str, name: str = "lookup") -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=call_id, tool_name=name, input={})


def result(call_id: str, name: str = "lookup", *files: cb.FileBlock) -> cb.ToolResultBlock:
    content = [cb.TextBlock(text="done"), *files]
    return cb.ToolResultBlock(tool_call_id=call_id, tool_name=name, outcome="succeeded", content=content)


def rules(*messages: cb.Message, **options: str) -> list[tuple[str, str]]:
    return [(r.rule, r.path) for r in openai_chat.preflight(cb.Conversation(messages=messages), **options)]


def test_every_rule_has_a_row_with_a_source_in_the_docs():
    """Each rule id appears in the docs page's rule table with a source, and the table lists no other rule."""
    table = DOCS.split("## Rules checked before sending", 1)[1]
    rows = re.findall(r"^\| `(openai_chat/[a-z-]+)` \| [^|]+ \| ([^|]+) \|$", table, re.MULTILINE)
    assert sorted(rule for rule, _ in rows) == sorted(RULES)
    assert all("http" in source or "API" in source for _, source in rows)


def test_a_well_formed_loop_passes():
    """Parallel calls answered by their tool messages, then the next user turn: nothing is refused."""
    assistant = cb.Message(role="assistant", content=[cb.TextBlock(text="Checking."), call("a"), call("b")])
    tool = cb.Message(role="tool", content=[result("a"), result("b")])
    assert rules(user(), assistant, tool, user("thanks")) == []


def test_no_messages():
    """An empty conversation, or one whose every message is left out, would send no message."""
    assert rules() == [("openai_chat/no-messages", "$")]
    thought = cb.Message(role="assistant", content=[cb.ReasoningBlock(text="hmm")])
    assert rules(thought) == [("openai_chat/no-messages", "$")]


def test_a_tool_message_must_answer_the_calls_right_before_it():
    """A tool result after a user turn, or answering a call of an earlier assistant message, is refused."""
    first = cb.Message(role="assistant", content=[call("a")])
    second = cb.Message(role="assistant", content=[call("b")])
    late = cb.Message(role="tool", content=[result("a")])
    answer_b = cb.Message(role="tool", content=[result("b")])
    assert rules(user(), first, second, late, answer_b) == [
        ("openai_chat/calls-answered", "$[1].content[0]"),
        ("openai_chat/tool-answers-previous-calls", "$[3].content[0]"),
    ]
    assert rules(user(), first, user("wait"), late) == [
        ("openai_chat/calls-answered", "$[1].content[0]"),
        ("openai_chat/tool-answers-previous-calls", "$[3].content[0]"),
    ]


def test_the_check_judges_the_request_that_is_sent():
    """A message left out of the request does not come between a call and its answer; a message that is sent does."""
    first = cb.Message(role="assistant", content=[call("a")])
    reasoning = cb.Message(role="assistant", content=[cb.ReasoningBlock(text="thinking")])  # left out
    tool = cb.Message(role="tool", content=[result("a")])
    assert rules(user(), first, reasoning, tool) == []  # the left-out message does not come between
    assert rules(user(), first, cb.Message(role="assistant", content="Hm."), tool) == [
        ("openai_chat/calls-answered", "$[1].content[0]"),
        ("openai_chat/tool-answers-previous-calls", "$[3].content[0]"),
    ]


def test_every_call_must_be_answered_before_the_next_other_message():
    """A call left unanswered, before another message or at the end of the request, is refused at the call."""
    assistant = cb.Message(role="assistant", content=[call("a"), call("b")])
    partial = cb.Message(role="tool", content=[result("a")])
    assert rules(user(), assistant, partial, user("next")) == [("openai_chat/calls-answered", "$[1].content[1]")]
    assert rules(user(), assistant) == [
        ("openai_chat/calls-answered", "$[1].content[0]"),
        ("openai_chat/calls-answered", "$[1].content[1]"),
    ]


def test_moved_tool_files_come_after_the_whole_run_of_tool_messages():
    """With files moved into a user message, the user message follows all the tool messages: no rule broken."""
    shot = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
    assistant = cb.Message(role="assistant", content=[call("a"), call("b")])
    tools = [
        cb.Message(role="tool", content=[result("a", "lookup", shot)]),
        cb.Message(role="tool", content=[result("b")]),
    ]
    assert rules(user(), assistant, *tools, tool_result_files="user_message") == []


def test_an_assistant_message_without_tool_calls_needs_content():
    """A refusal alone is not content: the assistant message would have neither content nor tool calls."""
    refusal = cb.Message(role="assistant", content=[cb.RefusalBlock(text="I can't.")])
    assert rules(user(), refusal, user("ok")) == [("openai_chat/assistant-content", "$[1]")]
    with_text = cb.Message(role="assistant", content=[cb.TextBlock(text="Sorry."), cb.RefusalBlock(text="I can't.")])
    assert rules(user(), with_text) == []
    legacy = cb.Message(
        role="assistant",
        content=[cb.RefusalBlock(text="I can't.")],
        metadata={"openai/function_call": {"name": "f", "arguments": "{}"}},
    )
    assert rules(user(), legacy) == []


def test_image_types_the_api_does_not_read():
    """A BMP or SVG image is refused where it is sent; PNG, JPEG, WEBP, GIF and unknown-type URLs pass."""

    def image(media_type: str, source: object = None) -> cb.FileBlock:
        return cb.FileBlock(media_type=media_type, source=source or cb.BytesSource(data=b"\x00"))

    ok = [image(t) for t in ("image/png", "image/jpeg", "image/webp", "image/gif")]
    ok.append(image("image/*", cb.UrlSource(url="https://example.com/a")))
    bad = [image("image/bmp"), image("image/svg+xml", cb.UrlSource(url="https://example.com/a.svg"))]
    assert rules(cb.Message(role="user", content=[*ok, *bad])) == [
        ("openai_chat/image-type", "$[0].content[5]"),
        ("openai_chat/image-type", "$[0].content[6]"),
    ]
    assistant = cb.Message(role="assistant", content=[call("a")])
    tool = cb.Message(role="tool", content=[result("a", "lookup", image("image/tiff"))])
    assert rules(user(), assistant, tool) == []  # dropped from the tool result, not sent
    assert rules(user(), assistant, tool, tool_result_files="user_message") == [
        ("openai_chat/image-type", "$[2].content[0].content[1]")
    ]


def test_rejections_print_their_rule():
    """A rejection says where, what and which rule."""
    (rejection,) = openai_chat.preflight(cb.Conversation(messages=[]))
    assert isinstance(rejection, Rejection)
    assert str(rejection) == "$: the request would carry no message (openai_chat/no-messages)"
