"""The batch-check API: check_conversation, Checker (lines, limits, pickling) and CheckResult."""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from hostile_strategies import mutants, text_mutants, wire_values

EXAMPLE = resources.files("contentblocks") / "examples" / "conversation.jsonl"


def example() -> list[dict[str, Any]]:
    """The shipped example conversation, as a list of message dicts."""
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]


def structure_problems(data: Any) -> tuple[cb.Problem, ...]:
    """What cb.structure says of ``data`` as a conversation, as problems."""
    try:
        cb.structure(data, cb.Conversation)
    except cb.ValidationError as e:
        return tuple(cb.Problem(path, message) for path, message in e.errors)
    return ()


def test_valid_conversation_has_no_problems() -> None:
    """The example conversation, and an empty one, are valid."""
    assert cb.check_conversation(example()) == ()
    assert cb.check_conversation([]) == ()
    assert cb.check_conversation({"messages": []}) == ()


@given(wire_values("conversation"))
def test_valid_wire_conversations_pass(data: Any) -> None:
    """Every canonical wire conversation is valid, as a list and in the fine-tuning object form."""
    assert cb.check_conversation(data) == ()
    assert cb.check_conversation({"messages": data, "tools": [], "id": "x"}) == ()


@given(mutants("conversation").filter(lambda v: not isinstance(v, dict)))
def test_problems_are_what_structure_reports(data: Any) -> None:
    """check_conversation reports exactly the problems cb.structure raises for the same value."""
    assert cb.check_conversation(data) == structure_problems(data)


@given(mutants("conversation").filter(lambda v: not isinstance(v, dict)))
def test_object_form_prefixes_paths_and_ignores_other_keys(data: Any) -> None:
    """In {"messages": [...], ...} the problems are those of the list, under $.messages; other keys are ignored."""
    wrapped = cb.check_conversation({"id": 1, "messages": data, "extra": {"anything": [None]}})
    assert wrapped == tuple(cb.Problem("$.messages" + p[1:], m) for p, m in structure_problems(data))


def test_an_object_without_messages_is_a_problem() -> None:
    """An object with no "messages" key (a message, say) is reported at $.messages."""
    (problem,) = cb.check_conversation({"role": "user", "content": "hi"})
    assert problem.path == "$.messages"
    assert problem.message.startswith("required key missing")


class _Trap(dict):  # type: ignore[type-arg]
    """A dict whose lookups fail: the checker must read it through dict's own methods."""

    def __contains__(self, key: object) -> bool:
        raise AssertionError("an override ran")

    def __getitem__(self, key: object) -> Any:
        raise AssertionError("an override ran")


def test_a_dict_subclass_is_read_without_its_overrides() -> None:
    """An object form given as a dict subclass is read as the dict it holds; its own methods never run."""
    assert cb.check_conversation(_Trap(messages=[{"role": "user", "content": "hi"}])) == ()
    assert cb.check_conversation(_Trap(id=1))[0].path == "$.messages"


@pytest.mark.parametrize(("value", "described"), [(5, "an integer"), ("[]", "a string"), (None, "null")])
def test_other_values_are_not_conversations(value: object, described: str) -> None:
    """A value that is neither an array nor an object is one problem at $."""
    assert cb.check_conversation(value) == (cb.Problem("$", f"expected an array of messages, got {described}"),)


def test_check_leaves_its_input_alone() -> None:
    """Checker.check does not empty or change the list it is given (check_line may consume what it parsed)."""
    data = example()
    before = json.dumps(data)
    assert cb.Checker().check(data).ok
    assert json.dumps(data) == before


def test_result_counts_messages_and_blocks() -> None:
    """A valid result counts messages and blocks by kind, tool results' parts included, in a read-only mapping."""
    result = cb.Checker().check(example())
    assert result.messages == 14
    assert result.blocks == {"approval_request": 1, "approval_response": 1, "compaction": 1, "file": 3, "json": 2,
                             "reasoning": 2, "refusal": 1, "search_result": 1, "server_tool_call": 1,
                             "server_tool_result": 1, "text": 10, "tool_call": 3, "tool_result": 3}
    assert result.ok
    assert not result.unreadable
    with pytest.raises(TypeError, match="read-only"):
        result.blocks["text"] = 0  # type: ignore[index]


def test_invalid_result_counts_nothing() -> None:
    """A conversation with problems counts no messages or blocks: it was not built."""
    result = cb.Checker().check([{"role": "user", "content": "hi"}, {"role": "robot", "content": "hi"}])
    assert not result.ok
    assert (result.messages, dict(result.blocks)) == (0, {})
    assert result.problems == (cb.Problem("$[1].role", "expected one of: system, developer, user, assistant, tool"),)


def test_pairing_is_checked() -> None:
    """A tool result that answers no earlier call is a problem of the conversation."""
    result = cb.Checker().check_line(json.dumps([
        {"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c1", "tool_name": "f",
                                      "outcome": "failed", "content": []}]},
    ]))
    assert result.problems == (cb.Problem("$[0].content[0].tool_call_id", "tool result answers no earlier tool call"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "invalid JSON: Expecting value (line 1, column 1)"),
        ('[{"role": "user"', "invalid JSON: Expecting ',' delimiter (line 1, column 17)"),
        (b'[{"role": "user", "content": "\xff"}]', "invalid JSON: not UTF-8"),
        ('[{"role": "user", "role": "user", "content": "hi"}]', 'invalid JSON: duplicate key "role" in an object'),
        ("[NaN]", "invalid JSON: NaN is not a JSON number"),
        ("[" + "9" * 5000 + "]", "invalid JSON: a number too long to parse"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON: nested too deeply to parse"),
        ("[] []", "invalid JSON: Extra data (line 1, column 4)"),
    ],
)
def test_text_that_is_not_json_is_unreadable(text: str | bytes, message: str) -> None:
    """Text the strict parser refuses gives an unreadable result with one problem at $ saying why."""
    result = cb.Checker().check_line(text)
    assert result.unreadable
    assert result.problems == (cb.Problem("$", message),)
    assert not result.ok


def test_numbers_the_parser_reads_are_checked_as_values() -> None:
    """1e400 parses (to infinity) and is then refused by the JSON value rules: a problem, not unreadable."""
    line = '[{"role": "user", "content": [{"type": "json", "value": 1e400}]}]'
    result = cb.Checker().check_line(line)
    assert not result.unreadable
    assert result.problems == (cb.Problem("$[0].content[0].value", "NaN and infinities are not JSON numbers"),)


@given(text_mutants("conversation"))
def test_check_line_never_raises(text: str | bytes) -> None:
    """Whatever the text, check_line returns a result: unreadable, with problems, or valid."""
    result = cb.Checker().check_line(text)
    assert result.ok or result.problems
    if result.unreadable:
        assert len(result.problems) == 1
        assert result.problems[0].message.startswith("invalid JSON")


@given(wire_values("conversation"))
def test_str_and_bytes_lines_agree(data: Any) -> None:
    """A line gives the same result as text, as UTF-8 bytes, and as the parsed value."""
    text = json.dumps(data, ensure_ascii=False)
    checker = cb.Checker()
    assert checker.check_line(text) == checker.check_line(text.encode()) == checker.check(data)


def test_check_lines_numbers_lines_and_skips_blank_ones() -> None:
    """check_lines gives (line number, result) for each non-blank line, counting from start."""
    lines = ["[]\n", "\n", "  \r\n", b"[{}]\n", "\t", "[\n"]
    found = list(cb.Checker().check_lines(lines, start=10))
    assert [number for number, _ in found] == [10, 13, 15]
    assert [(r.ok, r.unreadable) for _, r in found] == [(True, False), (False, False), (False, True)]


def test_a_line_of_other_whitespace_is_not_blank() -> None:
    """Only JSON whitespace makes a line blank: a line holding U+2028 is checked (and is not JSON)."""
    ((number, result),) = cb.Checker().check_lines(["\u2028"])
    assert number == 1
    assert result.unreadable


def test_limits_apply() -> None:
    """A checker enforces its limits: a longer text is refused, and problems past max_errors are counted."""
    checker = cb.Checker(cb.Limits(max_text_chars=3, max_errors=2))
    assert checker.check([{"role": "user", "content": "abc"}]).ok
    (problem,) = checker.check([{"role": "user", "content": "abcd"}]).problems
    assert problem == cb.Problem("$[0].content", "longer than 3 characters")
    result = checker.check([{"role": "robot", "content": "x"}] * 5)
    assert len(result.problems) == 2
    assert result.omitted == 3
    assert cb.check_conversation([{"role": "user", "content": "abcd"}], limits=cb.Limits(max_text_chars=3))


def test_checker_takes_only_limits() -> None:
    """Checker(limits) wants a cb.Limits; Checker() uses the defaults."""
    assert cb.Checker().limits == cb.Limits()
    with pytest.raises(TypeError, match=r"limits must be a contentblocks\.Limits"):
        cb.Checker({"max_text_chars": 5})  # type: ignore[arg-type]


def test_checker_pickles_as_its_limits() -> None:
    """A pickled checker carries its limits and no converter; the copy checks as the original does."""
    checker = cb.Checker(cb.Limits(max_text_chars=3))
    checker.check([])  # its converter is built now
    payload = pickle.dumps(checker)
    assert b"cattrs" not in payload
    assert len(payload) < 400
    copy = pickle.loads(payload)  # noqa: S301 - our own object
    assert copy == checker
    assert hash(copy) == hash(checker)
    assert copy != cb.Checker()
    assert repr(copy) == f"Checker({cb.Limits(max_text_chars=3)!r})"
    assert copy.check([{"role": "user", "content": "abcd"}]) == checker.check([{"role": "user", "content": "abcd"}])


def test_results_pickle_and_compare() -> None:
    """Results pickle and compare by value, so worker processes can return them."""
    result = cb.Checker().check([{"role": "user", "content": ""}])
    copy = pickle.loads(pickle.dumps(result))  # noqa: S301 - our own object
    assert copy == result
    assert hash(copy) == hash(result)


def _check_in_worker(checker: cb.Checker, lines: list[str | bytes]) -> list[tuple[int, cb.CheckResult]]:
    return list(checker.check_lines(lines))


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(1) as executor:
        yield executor


@settings(max_examples=10)
@given(st.lists(st.one_of(wire_values("conversation").map(json.dumps), text_mutants("conversation")), max_size=4))
def test_lines_check_the_same_in_a_process_pool(pool: ProcessPoolExecutor, mixed: list[str | bytes]) -> None:
    """A checker sent to another process gives the results it gives here."""
    checker = cb.Checker(cb.Limits(max_errors=5))
    assert pool.submit(_check_in_worker, checker, mixed).result() == _check_in_worker(checker, mixed)
