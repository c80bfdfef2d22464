"""Errors people can act on: every problem listed with its path and rule, short messages, no foreign text.

Also the foreign-object contract: an object the library did not make is only ever looked at through its
type; its ``__repr__``, ``__str__``, ``__format__``, ``__eq__``, ``__class__`` and overridden container methods
are never called, so nothing it does can escape as anything but a ``ValidationError``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb

sys.path.insert(0, str(Path(__file__).resolve().parent))
hs = importlib.import_module("hostile_strategies")


def problems(raw: Any, target: Any = cb.Block, conv: Any = None) -> cb.ValidationError:
    with pytest.raises(cb.ValidationError) as info:
        (conv or cb).structure(raw, target)
    hs.check_error(info.value)
    return info.value


def test_one_error_lists_every_problem_with_its_path_and_rule() -> None:
    """A value with several problems gets one ValidationError naming each, at its path, with the rule broken."""
    raw = {"type": "file", "media_type": "*/*", "filename": "../x", "extra": 1, "metadata": None,
           "source": {"type": "base64", "data": "aGVsbG9="}}
    error = problems(raw)
    found = dict(error.errors)
    assert set(found) == {"$.media_type", "$.filename", "$.extra", "$.metadata", "$.source.data"}
    assert found["$.source.data"] == "not canonical base64: non-zero pad bits"
    assert "base name" in found["$.filename"]
    assert "unknown key" in found["$.extra"]
    assert "null" in found["$.metadata"]
    assert error.omitted == 0


def test_problems_in_nested_blocks_carry_full_paths() -> None:
    """Problems deep inside a conversation are reported with their whole JSON path."""
    raw = [{"role": "user", "content": "hi"},
           {"role": "assistant", "content": [{"type": "text", "text": ""},
                                             {"type": "file", "media_type": "a/b",
                                              "source": {"type": "url", "url": "data:text/plain,hi"}}]}]
    found = dict(problems(raw, cb.Conversation).errors)
    assert set(found) == {"$[1].content[0].text", "$[1].content[1].source.url"}
    assert "base64 source" in found["$[1].content[1].source.url"]


@pytest.mark.parametrize("data", ["data:image/png;base64,iVBORw0KGgo=", " iVBORw0KGgo=", "iVBORw0K\nGgo=",
                                  "iVBORw0KGgo", "_-_-", "iVBORw0KGgo=\u202e"])
def test_base64_refusals_say_which_rule(data: str) -> None:
    """Each flavour of non-canonical base64 is refused with a message naming base64 and what is wrong."""
    raw = {"type": "file", "media_type": "image/png", "source": {"type": "base64", "data": data}}
    (path, message), = problems(raw).errors
    assert path == "$.source.data"
    assert message.startswith("not canonical base64")


HUGE = "\u202e<script>" + "A" * 100_000


@pytest.mark.parametrize("raw", [
    {"type": HUGE}, {"type": "text", "text": "x", HUGE: 1}, {"type": "text", "text": "x", "metadata": {HUGE: float("nan")}},
    {"type": "file", "media_type": HUGE, "source": {"type": "url", "url": HUGE}, "filename": HUGE},
    {"type": "tool_call", "tool_call_id": HUGE, "tool_name": HUGE, "input": {HUGE: [HUGE]}},
    {"type": "tool_result", "tool_call_id": "a", "tool_name": "b", "outcome": HUGE, "content": [{"type": HUGE}]},
    {"type": "text", "text": "x", "citations": [{"source": {"kind": HUGE, "value": HUGE}}]},
])
def test_messages_never_echo_more_than_a_short_preview(raw: Any) -> None:
    """A huge, hostile string is never printed back beyond a short escaped preview."""
    for conv in (None, cb.make_converter(max_text_chars=50)):
        error = problems(raw, conv=conv)
        assert "A" * 40 not in str(error)
        assert "\u202e" not in str(error)


def test_message_role_problem_is_short() -> None:
    """A hostile role is named as invalid without being quoted at length."""
    error = problems({"role": HUGE, "content": "x"}, cb.Message)
    assert len(str(error)) < 300


FOREIGN_SLOTS = [
    lambda f: f, lambda f: {"type": f}, lambda f: {"type": "text", "text": f}, lambda f: {"type": "json", "value": f},
    lambda f: {"type": "json", "value": [1, {"a": f}]}, lambda f: {"type": "json", "value": 1, "metadata": {"k": f}},
    lambda f: {"type": "json", "value": 1, "metadata": f}, lambda f: {"type": "json", "value": {f: 1}},
    lambda f: {"type": "text", "text": "x", f: 1},
    lambda f: {"type": "file", "media_type": f, "source": f, "filename": f},
    lambda f: {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": f}},
    lambda f: {"type": "file", "media_type": "a/b", "source": {"type": "url", "url": f}},
    lambda f: {"type": "file", "media_type": "a/b", "source": {"type": "reference", "id": f, "provider": f}},
    lambda f: {"type": "reasoning", "text": f, "signature": f, "redacted": f},
    lambda f: {"type": "tool_call", "tool_call_id": f, "tool_name": f, "input": f},
    lambda f: {"type": "tool_result", "tool_call_id": "a", "tool_name": "b", "outcome": f, "content": f},
    lambda f: {"type": "tool_result", "tool_call_id": "a", "tool_name": "b", "outcome": "failed", "content": [f]},
    lambda f: {"type": "text", "text": "abc", "citations": f},
    lambda f: {"type": "text", "text": "abc", "citations": [f]},
    lambda f: {"type": "text", "text": "abc", "citations": [{"source": f, "title": f, "quote": f, "start": f, "end": f}]},
    lambda f: {"type": "text", "text": "abc", "citations": [{"source": {"kind": f, "value": f}}]},
    lambda f: {"type": "text", "text": "abc", "citations": [{"source": {"kind": "uri", "value": f}}]},
]
MESSAGE_SLOTS = [lambda f: f, lambda f: {"role": f, "content": f, "metadata": f}, lambda f: {"role": "user", "content": [f]}]
CONVERSATION_SLOTS = [lambda f: f, lambda f: [f], lambda f: (f,), lambda f: [{"role": "user", "content": "x"}, f]]
SLOTS = ([(s, cb.Block) for s in FOREIGN_SLOTS] + [(s, cb.Message) for s in MESSAGE_SLOTS]
         + [(s, cb.Conversation) for s in CONVERSATION_SLOTS])


@pytest.mark.parametrize(("slot", "target"), SLOTS)
@pytest.mark.parametrize("make", [hs.Foreign, hs.HugeRepr])
def test_foreign_objects_are_never_printed(slot, target, make) -> None:
    """A foreign object anywhere is refused by type alone: its repr, str and format are never called."""
    hs.FOREIGN_CALLS.clear()
    problems(slot(make()), target)
    assert hs.FOREIGN_CALLS == []


class LoudClass:
    """An object that lies about its class: reading ``__class__`` raises."""

    @property
    def __class__(self):  # type: ignore[override]
        raise RuntimeError("__class__ was read")


class LoudEq:
    """An object whose comparisons raise; hashable, so it can sit anywhere in a dict."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ was called")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("__ne__ was called")

    __hash__ = object.__hash__


class LoudList(list):
    """A list subclass whose overridden protocol methods raise: read through the base class, it is fine."""

    def __len__(self) -> int:
        raise RuntimeError("__len__ was called")

    def __iter__(self):
        raise RuntimeError("__iter__ was called")


class LoudDict(dict):
    """A dict subclass whose overridden methods raise."""

    def keys(self):
        raise RuntimeError("keys was called")

    def __iter__(self):
        raise RuntimeError("__iter__ was called")

    def items(self):
        raise RuntimeError("items was called")

    def get(self, *args: object):
        raise RuntimeError("get was called")


def structure_or_refuse(raw: Any, target: Any) -> None:
    try:
        cb.structure(raw, target)
    except cb.ValidationError as e:
        hs.check_error(e)


LYING_SLOTS = [
    (lambda o: o, cb.Block), (lambda o: {"type": "text", "text": o}, cb.Block),
    (lambda o: {"type": "json", "value": [o]}, cb.Block), (lambda o: {"type": "json", "value": 1, "metadata": o}, cb.Block),
    (lambda o: [o], cb.Conversation), (lambda o: {"role": "user", "content": o}, cb.Message),
]


@pytest.mark.parametrize(("slot", "target"), LYING_SLOTS)
def test_a_lying_class_attribute_is_never_read(slot: Any, target: Any) -> None:
    """Type checks use type(), not isinstance(), so an object whose __class__ raises cannot escape."""
    structure_or_refuse(slot(LoudClass()), target)


def test_normalize_never_reads_a_lying_class_attribute() -> None:
    """cb.normalize refuses an object whose __class__ raises with a ValidationError, by its type alone."""
    with pytest.raises(cb.ValidationError):
        cb.normalize(LoudClass())


@pytest.mark.parametrize("cls", [cb.TextBlock, cb.FileBlock, cb.UrlSource, cb.CitedUri, cb.Message])
def test_a_foreign_tag_is_never_compared(cls: type) -> None:
    """Structuring into one class checks the tag by type first, never calling a foreign __eq__ or __ne__."""
    structure_or_refuse({"type": LoudEq(), "kind": LoudEq(), "role": LoudEq()}, cls)


@pytest.mark.parametrize(("raw", "target"), [
    ({"type": "json", "value": LoudList([1])}, cb.Block), ({"role": "user", "content": LoudList([1])}, cb.Message),
    (LoudList([1]), cb.Conversation), ({"type": "text", "text": "x", "citations": LoudList([])}, cb.Block),
    (LoudDict(type="text", text="x"), cb.Block), ({"type": "json", "value": LoudDict(a=1)}, cb.Block),
    ({"role": "user", "content": [LoudDict(type="text", text="x")]}, cb.Message),
])
def test_overridden_container_methods_are_never_called(raw: Any, target: Any) -> None:
    """Subclasses of dict and list are read through the base class, so their overrides never run."""
    structure_or_refuse(raw, target)
