"""loads: a conversation just parsed is structured message by message, its parsed dicts dropped as it goes.

The caller's own data is never touched (``structure`` and ``converter.structure``), and what ``loads`` gives,
result or error, is what structuring the same parsed value gives.
"""

from __future__ import annotations

import copy
import importlib
import json

import pytest
from hypothesis import given, settings

import contentblocks as cb
import hostile_strategies as hs
from contentblocks._api import parse_json
from contentblocks._conversion._converter import structure_parsed

CALL = {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"q": [1, {"r": None}]}}
RESULT = {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "succeeded",
          "content": [{"type": "text", "text": "ok"}]}  # fmt: skip
VALID = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [CALL]},
    {"role": "tool", "content": [RESULT]},
]


def _outcome(function, *args):
    try:
        return "ok", function(*args)
    except cb.ValidationError as e:
        return "error", e.errors


def test_the_parsed_array_is_emptied_as_its_messages_are_structured():
    """structure_parsed drops each message's dicts from the array once the message is built."""
    parsed = copy.deepcopy(VALID)
    conversation = structure_parsed(cb.make_converter(), parsed, cb.Conversation)
    assert parsed == [None, None, None]
    assert conversation == cb.structure(VALID, cb.Conversation)


def test_the_callers_data_is_never_emptied():
    """structure and converter.structure leave the caller's list whole; other targets and tuples are not emptied."""
    raw = copy.deepcopy(VALID)
    cb.structure(raw, cb.Conversation)
    cb.make_converter().structure(raw, cb.Conversation)
    assert raw == VALID
    # Anything but Conversation, or a tuple, goes through the converter unchanged.
    messages = copy.deepcopy(VALID)
    structure_parsed(cb.make_converter(), messages, list[cb.Message])
    as_tuple = tuple(copy.deepcopy(VALID))
    structure_parsed(cb.make_converter(), as_tuple, cb.Conversation)
    assert messages == VALID
    assert list(as_tuple) == VALID


def test_errors_are_those_of_structure_with_paths_past_the_emptied_messages():
    """A problem in a late message and a pairing problem: the same errors as structuring the parsed value."""
    bad = [*VALID, {"role": "assistant", "content": [{**CALL, "tool_call_id": "c1"}, {"type": "text"}]}]
    text = json.dumps(bad)
    expected = _outcome(cb.structure, json.loads(text), cb.Conversation)
    assert expected[0] == "error"
    assert _outcome(cb.loads, text, cb.Conversation) == expected
    assert [path for path, _ in expected[1]] == ["$[3].content[1].text"]
    unpaired = json.dumps([*VALID, {"role": "assistant", "content": [CALL]}])
    assert _outcome(cb.loads, unpaired, cb.Conversation) == _outcome(cb.structure, json.loads(unpaired), cb.Conversation)


@pytest.mark.parametrize("fmt", ["json", "orjson", "msgpack", "cbor2"])
def test_every_preconf_loads_structures_parsed_conversations_the_same(fmt):
    """Each preconf converter's loads of its own dumps gives the conversation back."""
    pytest.importorskip(fmt)
    converter = importlib.import_module(f"contentblocks.preconf.{fmt}").make_converter()
    conversation = cb.structure(VALID, cb.Conversation)
    assert converter.loads(converter.dumps(conversation), cb.Conversation) == conversation


def test_a_conversation_hook_of_the_callers_is_respected():
    """loads goes through the converter when its Conversation hook is not the one contentblocks installed."""
    converter = cb.make_converter()
    seen = []

    def mine(value, _cls):
        seen.append(list(value))
        return "mine"

    converter.register_structure_hook(cb.Conversation, mine)
    parsed = copy.deepcopy(VALID)
    assert structure_parsed(converter, parsed, cb.Conversation) == "mine"
    assert seen == [VALID]
    assert parsed == VALID


def _strict_json(value):
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


@settings(max_examples=60)
@given(hs.mutants("conversation").map(_strict_json).filter(lambda text: text is not None))
def test_loads_of_any_conversation_text_matches_structure(text):
    """On valid and damaged conversations alike, loads gives what structure gives for the parsed text."""
    assert _outcome(cb.loads, text, cb.Conversation) == _outcome(cb.structure, json.loads(text), cb.Conversation)


# ------------------------------------------------------------------------------------------ damaged texts


def _parse_then_structure(text):
    """Parse the text (strictly, as loads does), then structure the value as a caller's own data."""
    return cb.structure(parse_json(text), cb.Conversation)


@settings(max_examples=150)
@given(hs.text_mutants("conversation"))
def test_loads_of_damaged_texts_gives_what_parsing_then_structure_gives(text):
    """Valid or damaged at the text level, a conversation's text loads as parsing it and structuring a copy does."""
    assert _outcome(cb.loads, text, cb.Conversation) == _outcome(_parse_then_structure, text)
