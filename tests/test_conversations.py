"""Conversations that grow in an agent loop: the Sequence protocol, append/extend/+, and the loop helpers."""

from __future__ import annotations

import pickle
import threading
from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from strategies import conversations, messages

USER = cb.Message(role="user", content="Weather in Oslo and Rome?")


def call(call_id: str, name: str = "weather") -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=call_id, tool_name=name, input={"city": call_id})


def result(call_id: str, name: str = "weather") -> cb.ToolResultBlock:
    return cb.ToolResultBlock(
        tool_call_id=call_id, tool_name=name, outcome="succeeded", content=[cb.TextBlock(text="Sunny")]
    )


def assistant(*blocks: cb.Block) -> cb.Message:
    return cb.Message(role="assistant", content=list(blocks))


def tool(*blocks: cb.Block) -> cb.Message:
    return cb.Message(role="tool", content=list(blocks))


def errors_of(build) -> list[tuple[str, str]] | None:
    try:
        build()
    except cb.ValidationError as e:
        return e.errors
    return None


def brute_force_pending(conversation: cb.Conversation) -> tuple[cb.ToolCallBlock, ...]:
    answered = {r.tool_call_id for m in conversation for r in m.tool_results()}
    approved = {b.approval_id: b.approved for m in conversation for b in m.content
                if isinstance(b, cb.ApprovalResponseBlock)}
    held = {b.tool_call_id for m in conversation for b in m.content
            if isinstance(b, cb.ApprovalRequestBlock) and not approved.get(b.approval_id, False)}
    return tuple(c for m in conversation for c in m.tool_calls() if c.tool_call_id not in answered | held)


# Messages whose tool blocks draw ids and names from a tiny pool, so that pairing goes wrong in every way.
_IDS = st.sampled_from(["a", "b", "c"])
_NAMES = st.sampled_from(["f", "g"])
_APPROVAL_IDS = st.sampled_from(["p", "q"])
_TOOL_MESSAGES = st.one_of(
    st.lists(st.builds(call, _IDS, _NAMES), min_size=1, max_size=3).map(lambda b: assistant(*b)),
    st.lists(st.builds(result, _IDS, _NAMES), min_size=1, max_size=3).map(lambda b: tool(*b)),
    st.just(USER),
    # a call asking for approval (of a call of its message, or not), and decisions on requests that may not exist
    st.builds(lambda c, a, asks: assistant(c, cb.ApprovalRequestBlock(approval_id=a, tool_call_id=asks or c.tool_call_id)),
              st.builds(call, _IDS, _NAMES), _APPROVAL_IDS, st.sampled_from([None, "z"])),
    st.lists(st.builds(cb.ApprovalResponseBlock, approval_id=_APPROVAL_IDS, approved=st.booleans()),
             min_size=1, max_size=2).map(lambda b: cb.Message(role="user", content=b)),
)


def test_conversation_is_a_sequence():
    """A conversation is a collections.abc.Sequence with index, count, reversed and in."""
    conversation = cb.Conversation(messages=[USER, assistant(cb.TextBlock(text="Hi")), USER])
    assert isinstance(conversation, Sequence)
    assert conversation.index(USER) == 0
    assert conversation.index(USER, 1) == 2
    assert conversation.count(USER) == 2
    assert list(reversed(conversation)) == list(reversed(conversation.messages))
    assert USER in conversation
    assert cb.Message(role="user", content="other") not in conversation
    with pytest.raises(ValueError):
        conversation.index(cb.Message(role="user", content="other"))


def test_append_extend_and_add_return_new_conversations():
    """append, extend and + return a new conversation equal to one built whole, and leave the original alone."""
    base = cb.Conversation(messages=[USER])
    reply = assistant(call("c1"), call("c2"))
    answer = tool(result("c1"), result("c2"))
    whole = cb.Conversation(messages=[USER, reply, answer])
    assert base.append(reply).append(answer) == whole
    assert base.extend([reply, answer]) == whole
    assert base.extend(m for m in (reply, answer)) == whole
    assert base + [reply, answer] == whole  # noqa: RUF005 - the + of a conversation is under test
    assert base + cb.Conversation(messages=[reply]) == cb.Conversation(messages=[USER, reply])
    assert len(base) == 1


def test_extend_refuses_what_is_not_a_message_with_its_path():
    """An item that is not a Message is refused at its place in the grown conversation."""
    base = cb.Conversation(messages=[USER, USER])
    with pytest.raises(cb.ValidationError) as e:
        base.extend([USER, {"role": "user", "content": "hi"}])
    assert e.value.errors == [("$[3]", "expected a Message, got an object")]


def test_pending_tool_calls_follow_the_answers():
    """pending_tool_calls lists the calls no later result answers, in order."""
    history = cb.Conversation(messages=[USER]).append(assistant(call("c1"), call("c2")))
    assert [c.tool_call_id for c in history.pending_tool_calls()] == ["c1", "c2"]
    history = history.append(tool(result("c2")))
    assert [c.tool_call_id for c in history.pending_tool_calls()] == ["c1"]
    history = history.append(tool(result("c1")))
    assert history.pending_tool_calls() == ()


def test_an_older_conversation_keeps_its_own_view():
    """A conversation grown from keeps its own pending calls and pairing while its successors grow."""
    asked = cb.Conversation(messages=[USER]).append(assistant(call("c1")))
    answered = asked.append(tool(result("c1")))
    assert answered.pending_tool_calls() == ()
    assert [c.tool_call_id for c in asked.pending_tool_calls()] == ["c1"]
    # a branch from the older conversation: the answer in the other branch does not count here
    branch = asked.append(tool(result("c1")))
    assert branch == answered
    with pytest.raises(cb.ValidationError) as e:
        answered.append(tool(result("c1")))
    assert e.value.errors == [("$[3].content[0].tool_call_id", "tool call was already answered by an earlier result")]
    # a call id used in one branch is free in another
    other = asked.append(tool(result("c1"))).append(assistant(call("c2")))
    assert asked.append(tool(result("c1"))).append(assistant(call("c2"))) == other


def test_structured_and_unpickled_conversations_grow():
    """A conversation built by the converter or by unpickling rebuilds its pairing once and grows correctly."""
    raw = cb.unstructure(cb.Conversation(messages=[USER, assistant(call("c1"))]))
    for conversation in (
        cb.structure(raw, cb.Conversation),
        cb.loads(cb.dumps(cb.structure(raw, cb.Conversation)), cb.Conversation),
        pickle.loads(pickle.dumps(cb.structure(raw, cb.Conversation))),  # noqa: S301
    ):
        assert [c.tool_call_id for c in conversation.pending_tool_calls()] == ["c1"]
        with pytest.raises(cb.ValidationError):
            conversation.append(assistant(call("c1")))
        assert conversation.append(tool(result("c1"))).pending_tool_calls() == ()


def test_a_grown_conversation_behaves_as_one_built_whole():
    """Every way of reading a grown conversation (before its tuple is made, and after) gives the whole's answer."""
    messages = [USER, assistant(call("c1")), tool(result("c1")), assistant(cb.TextBlock(text="Sunny."))]
    whole = cb.Conversation(messages=messages)
    for read in (
        len,
        list,
        lambda c: c[-1],
        lambda c: c[0],
        lambda c: c[1:3],
        lambda c: list(reversed(c)),
        cb.unstructure,
        cb.dumps,
        repr,
        hash,
        lambda c: c.messages,
        lambda c: pickle.loads(pickle.dumps(c)),  # noqa: S301
        lambda c: attrs.asdict(c, recurse=False),
    ):
        assert read(cb.Conversation(messages=messages[:1]).extend(messages[1:])) == read(whole)
    grown = cb.Conversation().extend(messages)
    with pytest.raises(IndexError):
        grown[4]
    with pytest.raises(IndexError):
        grown[-5]


def test_pairing_state_is_not_part_of_equality_or_pickles():
    """The pairing state is no field: equality, hashing, repr and pickles see only the messages."""
    grown = cb.Conversation(messages=[USER]).append(assistant(call("c1")))
    whole = cb.Conversation(messages=[USER, assistant(call("c1"))])
    assert grown == whole
    assert hash(grown) == hash(whole)
    assert repr(grown) == repr(whole)
    assert "_growth" not in {a.name for a in attrs.fields(cb.Conversation)}
    assert pickle.loads(pickle.dumps(grown)) == whole  # noqa: S301


def test_concurrent_growth_from_one_conversation():
    """Threads growing the same conversation at once each get a correct conversation of their own."""
    base = cb.Conversation(messages=[USER]).append(assistant(*(call(f"c{i}") for i in range(8))))
    grown: list[cb.Conversation] = []
    barrier = threading.Barrier(8)

    def grow(i: int) -> None:
        barrier.wait()
        conversation = base
        for j in range(50):
            conversation = conversation.append(assistant(call(f"t{i}-{j}")))
        grown.append(conversation.append(tool(result(f"c{i}"))))

    threads = [threading.Thread(target=grow, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(grown) == 8
    for conversation in grown:
        assert cb.Conversation(messages=conversation.messages) == conversation
        assert conversation.pending_tool_calls() == brute_force_pending(conversation)
    assert len(base.pending_tool_calls()) == 8


@settings(max_examples=60, deadline=None)
@given(conversations(max_messages=10), st.data())
def test_growing_piecewise_equals_building_whole(conversation, data):
    """A valid conversation grown in arbitrary pieces equals the whole, with the same pending calls at each step."""
    cuts = [0, *sorted(data.draw(st.lists(st.integers(0, len(conversation)), max_size=4)))]
    grown = cb.Conversation()
    for start, end in zip(cuts, [*cuts[1:], len(conversation)], strict=True):
        grown = grown.extend(conversation.messages[start:end])
        assert grown.pending_tool_calls() == brute_force_pending(grown)
    assert grown == conversation


@settings(max_examples=200, deadline=None)
@given(st.lists(_TOOL_MESSAGES, max_size=6), st.lists(_TOOL_MESSAGES, min_size=1, max_size=4))
def test_growth_errors_equal_whole_conversation_errors(prefix, tail):
    """Extending gives exactly the errors (paths and wording) that checking the whole conversation gives."""
    if errors_of(lambda: cb.Conversation(messages=prefix)) is not None:
        return
    base = cb.Conversation(messages=prefix)
    whole_errors = errors_of(lambda: cb.Conversation(messages=prefix + tail))
    assert errors_of(lambda: base.extend(tail)) == whole_errors
    # the same one message at a time: the first failing append reports what its prefix's whole check reports
    grown = base
    for i, message in enumerate(tail):
        expected = errors_of(lambda i=i: cb.Conversation(messages=prefix + tail[: i + 1]))
        assert errors_of(lambda m=message, g=grown: g.append(m)) == expected
        if expected is not None:
            break
        grown = grown.append(message)


@given(messages(roles=["assistant"]))
def test_message_helpers_agree_with_the_content(message):
    """text(), tool_calls() and tool_results() pick their kind of block from the content, in order."""
    texts = [b.text for b in message.content if isinstance(b, cb.TextBlock)]
    assert message.text() == "".join(texts)
    assert message.text(sep="\n") == "\n".join(texts)
    assert message.tool_calls() == tuple(b for b in message.content if isinstance(b, cb.ToolCallBlock))
    assert message.tool_results() == ()


def test_message_helpers_on_a_tool_message():
    """A tool message has results and no text or calls."""
    message = tool(result("c1"), result("c2"))
    assert [r.tool_call_id for r in message.tool_results()] == ["c1", "c2"]
    assert message.text() == ""
    assert message.tool_calls() == ()


def test_loop_helpers_are_visible_in_dir():
    """The loop helpers are public names a user finds with dir()."""
    assert {"append", "extend", "pending_tool_calls", "index", "count"} <= set(dir(cb.Conversation))
    assert {"text", "tool_calls", "tool_results"} <= set(dir(cb.Message))
