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
from hypothesis import strategies as st

import contentblocks as cb
import hostile_strategies as hs
from contentblocks import _json
from contentblocks._api import parse_json
from contentblocks._hooks import structure_parsed

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
    parsed = copy.deepcopy(VALID)
    conversation = structure_parsed(cb.make_converter(), parsed, cb.Conversation)
    assert parsed == [None, None, None]
    assert conversation == cb.structure(VALID, cb.Conversation)


def test_the_callers_data_is_never_emptied():
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


# ------------------------------------------------------------------------------------------ split texts

speedups = _json.speedups
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)
needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")
MISS = object()


def _whole_outcome(text):
    """What loads gave before texts were split: parse the whole text, then structure it."""
    return _outcome(lambda t: structure_parsed(cb.make_converter(), parse_json(t), cb.Conversation), text)


@settings(max_examples=150)
@given(hs.text_mutants("conversation"))
def test_loads_of_split_texts_gives_what_the_whole_parse_gives(text):
    """Valid or damaged at the text level, a conversation's text loads as it did when parsed whole."""
    assert _outcome(cb.loads, text, cb.Conversation) == _whole_outcome(text)


@needs_speedups
@given(st.lists(JSON_VALUES, max_size=6), st.sampled_from(["", " ", "\n\t ", "\r\n"]), st.booleans())
def test_split_array_gives_each_element_of_an_array(items, space, compact):
    separators = (",", ":") if compact else (", ", ": ")
    text = space + "[" + space + f"{space},{space}".join(json.dumps(i, separators=separators) for i in items)
    text += space + "]" + space
    parts = speedups.split_array(text.encode(), 600, MISS)
    assert [json.loads(p) for p in parts] == [[item] for item in items]
    assert all(p.startswith(b"[") and p.endswith(b"]") and p[1:-1] == p[1:-1].strip() for p in parts)


@needs_speedups
@given(st.binary(max_size=60) | hs.text_mutants("conversation").map(lambda t: t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass")))
def test_split_array_never_splits_a_text_the_whole_parse_refuses(data):
    """Soundness: when every part parses, the whole text parses, to the list of the parts."""
    parts = speedups.split_array(data, 600, MISS)
    if parts is MISS:
        return
    try:
        values = [json.loads(p.decode("utf-8")) for p in parts]
    except ValueError:
        return  # a part is refused: loads then parses the whole text, which refuses it too
    assert all(len(value) == 1 for value in values)
    assert json.loads(data.decode("utf-8")) == [value[0] for value in values]


@needs_speedups
@pytest.mark.parametrize(
    "text",
    [b"", b" ", b"{}", b"1", b"[", b"[1", b"[1,", b"[1,]", b"[,1]", b"[1,,2]", b"[1 2", b"[1}", b"[{]",
     b'["a]', b'["a\\"]', b"[1] x", b"\xef\xbb\xbf[1]", b"[[[1]]]"],
)  # fmt: skip
def test_split_array_misses_what_it_cannot_split_plainly(text):
    assert speedups.split_array(text, 2, MISS) is MISS


@needs_speedups
def test_split_array_edge_cases():
    assert speedups.split_array(b" [ ] ", 1, MISS) == []
    assert speedups.split_array(b'["a\\\\",  "b\\"c", {"d":[1,2]}]', 3, MISS) == [b'["a\\\\"]', b'["b\\"c"]', b'[{"d":[1,2]}]']
    assert speedups.split_array(b'["\xf0\x9f\x99\x82,]"]', 1, MISS) == [b'["\xf0\x9f\x99\x82,]"]']
    with pytest.raises(TypeError):
        speedups.split_array("[1]", 3, MISS)
