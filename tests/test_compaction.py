"""The compaction block: its wire form and rules, both conversion paths, the schema, preconf, the checker, the
token estimate, sanitize, and how window and prune treat it (the start of the kept history)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.preconf import cbor2 as cbor2_preconf
from contentblocks.preconf import msgpack as msgpack_preconf

ISSUER = "contentblocks/issuer"
STATE = {ISSUER: "openai", "openai/id": "cmp_1", "openai/encrypted_content": "gAAAA"}


# ---------------------------------------------------------------------------------------------- wire form


@pytest.mark.parametrize("wire", [
    {"type": "compaction"},
    {"type": "compaction", "summary": "We agreed on Oslo in May."},
    {"type": "compaction", "summary": " ", "metadata": {"app/x": 1}},
    {"type": "compaction", "metadata": STATE},
])
def test_a_compaction_round_trips_in_its_canonical_form(wire):
    block = cb.structure(wire, cb.Block)
    assert type(block) is cb.CompactionBlock
    assert cb.unstructure(block) == wire
    assert cb.loads(json.dumps(wire), cb.Block) == block
    assert json.loads(cb.dumps(block)) == wire


@pytest.mark.parametrize(("wire", "problem"), [
    ({"type": "compaction", "summary": ""}, ("$.summary", "must not be empty")),
    ({"type": "compaction", "summary": None}, ("$.summary", "omit the key")),
    ({"type": "compaction", "summary": 5}, ("$.summary", "expected a string")),
    ({"type": "compaction", "summary": "\ud800"}, ("$.summary", "lone surrogate")),
    ({"type": "compaction", "content": "x"}, ("$.content", "unknown key")),
    ({"type": "compaction", "metadata": {"": 1}}, ("$.metadata", "")),
])
def test_each_rule_of_a_compaction_is_worded(wire, problem):
    with pytest.raises(cb.ValidationError) as caught:
        cb.structure(wire, cb.Block)
    path, words = problem
    assert any(p == path or p.startswith(path) for p, _ in caught.value.errors)
    assert any(words in message for _, message in caught.value.errors)


def test_python_builds_check_the_same_rules():
    with pytest.raises(cb.ValidationError, match="must not be empty"):
        cb.CompactionBlock(summary="")
    assert cb.CompactionBlock() == cb.CompactionBlock(summary=None)


@pytest.mark.parametrize("role", ["user", "system", "developer", "tool"])
def test_only_the_assistant_carries_a_compaction(role):
    with pytest.raises(cb.ValidationError, match="cannot carry compaction blocks"):
        cb.structure({"role": role, "content": [{"type": "compaction", "summary": "s"}]}, cb.Message)
    assert cb.structure({"role": "assistant", "content": [{"type": "compaction"}]}, cb.Message)


def test_a_tool_result_cannot_hold_a_compaction():
    wire = {"type": "tool_result", "tool_call_id": "c", "tool_name": "f", "outcome": "succeeded",
            "content": [{"type": "compaction", "summary": "s"}]}
    with pytest.raises(cb.ValidationError, match="compaction"):
        cb.structure(wire, cb.Block)


def test_the_tag_is_written_first():
    block = cb.CompactionBlock(summary="s", metadata={"k": 1})
    assert list(cb.unstructure(block)) == ["type", "summary", "metadata"]
    assert list(cb.make_converter().unstructure(block)) == ["type", "summary", "metadata"]


@settings(max_examples=50, deadline=None)
@given(strategies.compaction_blocks())
def test_drawn_compactions_round_trip_through_every_converter(block):
    assert cb.structure(cb.unstructure(block), cb.Block) == block
    assert cb.loads(cb.dumps(block), cb.Block) == block
    for preconf in (msgpack_preconf, cbor2_preconf):
        converter = preconf.make_converter()
        assert converter.loads(converter.dumps(block), cb.Block) == block


def test_the_schema_describes_a_compaction():
    schema = cb.json_schema()
    text = json.dumps(schema)
    assert '"compaction"' in text
    definitions = schema.get("$defs", schema.get("definitions", {}))
    compaction = next(d for d in definitions.values() if '"compaction"' in json.dumps(d.get("properties", {})))
    assert set(compaction["properties"]) == {"type", "summary", "cache", "metadata"}
    assert compaction.get("additionalProperties") is False


def test_the_checker_reads_a_history_with_compactions():
    history = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": [{"type": "compaction", "metadata": STATE}, {"type": "text", "text": "ok"}]}]
    assert cb.check_conversation(history) == ()
    history[0] = {"role": "user", "content": [{"type": "compaction", "summary": "s"}]}
    assert [p.path for p in cb.check_conversation(history)] == ["$[0].content[0]"]


# ---------------------------------------------------------------------------------------------- estimate, sanitize


def test_the_estimate_counts_the_summary_and_not_the_state():
    estimate = cb.TokenEstimator()
    bare = estimate(cb.Message(role="assistant", content=[cb.CompactionBlock(metadata=STATE)]))
    summed = estimate(cb.Message(role="assistant", content=[cb.CompactionBlock(summary="word " * 400)]))
    text = estimate(cb.Message(role="assistant", content=[cb.TextBlock(text="word " * 400)]))
    assert summed == text
    assert bare == estimate(cb.Message(role="assistant", content=[cb.CompactionBlock()]))


def test_sanitize_keeps_an_unsealed_summary_and_drops_unsealed_state():
    history = cb.Conversation(messages=[
        cb.Message(role="user", content="hi"),
        cb.Message(role="assistant", content=[cb.CompactionBlock(metadata=STATE),
                                              cb.CompactionBlock(summary="s", metadata=STATE),
                                              cb.TextBlock(text="ok")]),
    ])
    policy = cb.SanitizePolicy(roles=("user", "assistant"))
    cleaned = cb.sanitize(history, policy, keys=cb.SealKey("k", b"k" * 32))
    assert cleaned.payload[1].content[:1] == (cb.CompactionBlock(summary="s"),)
    assert ("$[1].content[0]", "state_not_replayed") in [(loss.path, loss.kind) for loss in cleaned.losses]


# ---------------------------------------------------------------------------------------------- window, prune


def _latest_compaction(messages: list[cb.Message]) -> int | None:
    found = [i for i, m in enumerate(messages) if any(type(b) is cb.CompactionBlock for b in m.content)]
    return found[-1] if found else None


@settings(max_examples=150, deadline=None)
@given(strategies.conversations(max_messages=14), st.integers(0, 14), st.data())
def test_window_never_keeps_history_before_a_compaction_it_drops(history, budget, data):
    """Whatever is pinned: if the latest compaction is left out, so is every turn before it (but instructions)."""
    pins = data.draw(st.lists(st.booleans(), min_size=len(history), max_size=len(history)))
    pinned = {id(m) for m, pin in zip(history, pins, strict=True) if pin}
    cut = cb.window(history, budget=budget, keep=lambda m: id(m) in pinned)
    latest = _latest_compaction(list(history))
    kept = {id(m) for m in cut.payload}
    if latest is None or id(history[latest]) in kept:
        return
    before = [m for m in history.messages[:latest] if id(m) in kept]
    assert all(m.role in ("system", "developer") for m in before)


def test_window_lets_go_of_pins_older_than_the_latest_compaction():
    messages = [cb.Message(role="system", content="Be brief."), cb.Message(role="user", content="pinned"),
                cb.Message(role="assistant", content="a"), cb.Message(role="user", content="b"),
                cb.Message(role="assistant", content=[cb.CompactionBlock(summary="s"), cb.TextBlock(text="c")]),
                cb.Message(role="user", content="d"), cb.Message(role="assistant", content="e"),
                cb.Message(role="user", content="f")]
    keep = lambda m: m.text() == "pinned"  # noqa: E731
    assert [m.text() for m in cb.window(messages, budget=3, keep=keep).payload] == ["Be brief.", "f"]
    without = [m for m in messages if not any(type(b) is cb.CompactionBlock for b in m.content)]
    assert "pinned" in [m.text() for m in cb.window(without, budget=3, keep=keep).payload]


@settings(max_examples=100, deadline=None)
@given(strategies.conversations(max_messages=12), st.integers(0, 4))
def test_prune_never_drops_a_compaction(history, turns):
    """Prune makes old content small; a compaction is the start of the kept history and stays where it was."""
    pruned = cb.prune(history, keep_turns=turns)
    before = [b for m in history for b in m.content if type(b) is cb.CompactionBlock]
    after = [b for m in pruned.payload for b in m.content if type(b) is cb.CompactionBlock]
    assert before == after
    assert not any(type(b) is cb.CompactionBlock for loss in pruned.losses for b in _at(history, loss.path))


def _at(history: cb.Conversation, path: str) -> list[object]:
    """The block a loss's path names, when it names a whole block (``$[i].content[j]``), else nothing."""
    head, _, rest = path.partition("].content[")
    if not rest.endswith("]") or "." in rest:
        return []
    return [history[int(head[2:])].content[int(rest[:-1])]]


def test_the_command_line_checker_counts_and_checks_compactions(tmp_path, capsys):
    from contentblocks import cli  # noqa: PLC0415 - the command line is loaded where it is tested

    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "compaction", "summary": "s"}, {"type": "text", "text": "ok"}]}]), encoding="utf-8")
    assert cli.main(["check", "--no-progress", str(good)]) == 0
    assert "compaction 1" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "user", "content": [{"type": "compaction", "summary": ""}]}]), encoding="utf-8")
    assert cli.main(["check", "--no-progress", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "$[0].content[0].summary: must not be empty" in out
    assert "cannot carry compaction blocks" in out
