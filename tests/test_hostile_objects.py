"""Python objects whose own code runs while a value is structured: dict keys with a hostile ``__hash__``/``__eq__``.

Such a key is the only part of a value whose code can run while the library reads it (values are told apart
by their exact type, containers are read through the base classes' C methods). Whatever its code raises, or
whatever change to the dict it makes, ``structure`` and the converters end in a ``ValidationError`` naming the
key, as ``docs/security.md`` promises; the few outcomes outside that promise are pinned here as the page
states them. CI runs this file on both paths (with the C accelerator, then ``CONTENTBLOCKS_PURE_PYTHON=1``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.preconf.json import make_converter


class Armed:
    """Hostile code runs only once armed, so that the values holding the keys can be built first."""

    on = False


class RaisingEq:
    """A key whose hash collides with the wire key it stands beside, and whose ``__eq__`` raises."""

    def __init__(self, collides_with: str) -> None:
        self.hash = hash(collides_with)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if Armed.on:
            raise RuntimeError("__eq__ says no")
        return self is other


class RecursingEq(RaisingEq):
    """``__eq__`` recurses until Python raises RecursionError."""

    __hash__ = RaisingEq.__hash__

    def __eq__(self, other: object) -> bool:
        return Armed.on and self == other


class RaisingEqStr(str):
    """A ``str`` subclass key: equal to the wire key it spells until armed, then its ``__eq__`` raises."""

    __slots__ = ()
    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        if Armed.on:
            raise ValueError("__eq__ says no")
        return str.__eq__(self, other)


class RaisingHash(str):
    """Its ``__hash__`` raises once armed: copying a dict subclass holding it hashes it again."""

    __slots__ = ()

    def __hash__(self) -> int:
        if Armed.on:
            raise KeyError("__hash__ says no")
        return str.__hash__(self)


class Growing:
    """Claims to be the wire key ``"metadata"``, and adds a key to the dict it is in each time it is hashed."""

    def __init__(self, holder: dict[Any, Any]) -> None:
        self.holder = holder

    def __hash__(self) -> int:
        if Armed.on:
            self.holder[f"added{len(self.holder)}"] = 1
        return hash("metadata")

    def __eq__(self, other: object) -> bool:
        return other == "metadata" or other is self


class DictSub(dict):  # type: ignore[type-arg]
    pass


TEXT = {"type": "text", "text": "hi"}
MESSAGE = {"role": "user", "content": "hi"}
# Each hostile key, made from the dict it goes into and the wire key (in that dict) whose hash it takes; the
# others stand for "metadata", which the dicts may hold and do not.
KEYS: dict[str, Callable[[dict[Any, Any], str], Any]] = {
    "__eq__ raises": lambda _d, wire: RaisingEq(wire),
    "__eq__ recurses": lambda _d, wire: RecursingEq(wire),
    "str subclass, __eq__ raises": lambda _d, _wire: RaisingEqStr("metadata"),
    "__hash__ grows the dict": lambda d, _wire: Growing(d),
}
NAMES = {
    "__eq__ raises": "a Python RaisingEq object",
    "__eq__ recurses": "a Python RecursingEq object",
    "str subclass, __eq__ raises": "a string (RaisingEqStr)",
    "__hash__ grows the dict": "a Python Growing object",
}
# Where the hostile dict sits: the dict, the wire key the hostile key stands for, how the dict is wrapped
# into the value to structure, its target, and the path of the dict.
PLACES: dict[str, tuple[dict[str, Any], str, Callable[[dict[Any, Any]], Any], Any, str]] = {
    "a block": (TEXT, "type", lambda d: d, cb.Block, "$"),
    "a block class": (TEXT, "text", lambda d: d, cb.TextBlock, "$"),
    "a message's block": (TEXT, "type", lambda d: {"role": "user", "content": [d]}, cb.Message, "$.content[0]"),
    "a conversation's block": (
        TEXT,
        "text",
        lambda d: [{"role": "user", "content": [d]}],
        cb.Conversation,
        "$[0].content[0]",
    ),
    "a message": (MESSAGE, "role", lambda d: d, cb.Message, "$"),
    "a conversation's message": (MESSAGE, "content", lambda d: [MESSAGE, d], cb.Conversation, "$[1]"),
}


def with_key(obj: dict[str, Any], make: Callable[[dict[Any, Any]], Any], value: object = 1) -> dict[Any, Any]:
    """``obj`` with one more key, made by ``make`` from the dict it goes into."""
    out: dict[Any, Any] = dict(obj)
    out[make(out)] = value
    return out


def refused(value: object, target: Any, structure: Callable[[object, Any], Any] = cb.structure) -> list[Any]:
    """The problems ``structure`` gives for ``value``, with the keys' code armed (it must raise ValidationError)."""
    Armed.on = True
    try:
        with pytest.raises(cb.ValidationError) as info:
            structure(value, target)
    finally:
        Armed.on = False
    return info.value.errors


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("key", KEYS)
def test_a_key_whose_code_raises_or_changes_the_dict_is_refused(key, place):
    """Whatever a key's code raises or changes, the outcome is a ValidationError naming the key and where."""
    obj, wire, wrap, target, path = PLACES[place]
    errors = refused(wrap(with_key(obj, lambda d: KEYS[key](d, wire))), target)
    assert (path, f"object keys must be strings, got {NAMES[key]}") in errors


@pytest.mark.parametrize("key", KEYS)
def test_a_converter_refuses_it_too(key):
    """A preconfigured converter's ``structure`` gives the same refusal."""
    message = {"role": "user", "content": [with_key(TEXT, lambda d: KEYS[key](d, "type"))]}
    errors = refused(message, cb.Message, make_converter().structure)
    assert ("$.content[0]", f"object keys must be strings, got {NAMES[key]}") in errors


@pytest.mark.parametrize(
    ("value", "target", "path"),
    [
        (DictSub({"type": "text", RaisingHash("text"): "hi"}), cb.Block, "$"),
        (
            {"role": "user", "content": [DictSub({"type": "text", RaisingHash("text"): "hi"})]},
            cb.Message,
            "$.content[0]",
        ),
        ({**TEXT, "metadata": DictSub({RaisingHash("k"): 1})}, cb.Block, "$.metadata"),
        ({"type": "json", "value": [1, DictSub({RaisingHash("k"): 1})]}, cb.Block, "$.value[1]"),
        (
            {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": DictSub({RaisingHash("q"): 1})},
            cb.ToolCallBlock,
            "$.input",
        ),
    ],
)
def test_a_key_whose_hash_raises_in_a_dict_subclass_is_refused(value, target, path):
    """A dict subclass is copied through dict's own methods, which hash its keys again: a raising hash is refused."""
    assert refused(value, target) == [(path, "object keys must be strings, got a string (RaisingHash)")]


def test_a_key_in_a_source_or_citation_is_refused():
    """Nested wire objects (a file's source, a citation and its source) are guarded like the outer ones."""
    source = with_key({"type": "url", "url": "https://example.com/a"}, lambda _d: RaisingEq("url"))
    file = {"type": "file", "media_type": "text/plain", "source": source}
    assert refused(file, cb.Block) == [("$.source", "object keys must be strings, got a Python RaisingEq object")]
    cited = with_key({"kind": "uri", "value": "https://example.com/a"}, lambda _d: RaisingEq("kind"))
    text = {"type": "text", "text": "hi", "citations": [{"source": cited, "start": 0, "end": 2}]}
    errors = refused(text, cb.Block)
    assert errors == [("$.citations[0].source", "object keys must be strings, got a Python RaisingEq object")]


class Impostor:
    """Claims to be the wire key ``"text"``: same hash, and equal to it."""

    def __hash__(self) -> int:
        return hash("text")

    def __eq__(self, other: object) -> bool:
        return other == "text" or other is self


class Vanishing(Impostor):
    """An impostor that, when next hashed, removes itself from its dict and adds another key."""

    def __init__(self, holder: dict[Any, Any]) -> None:
        self.holder = holder

    def __hash__(self) -> int:
        if Armed.on:
            Armed.on = False
            del self.holder[self]
            self.holder["added"] = 1
        return hash("text")


def test_a_key_equal_to_a_wire_key_is_read_as_that_key():
    """The library reads a dict as Python does: a key that says it equals ``"text"`` is read as ``"text"``."""
    block = cb.structure(with_key({"type": "text"}, lambda _d: Impostor(), "hi"), cb.Block)
    assert block == cb.TextBlock(text="hi")


def test_a_key_that_removes_itself_while_read_ends_in_pythons_runtime_error():
    """Outside the promise, as the security page says: once the key is gone, nothing is left to blame."""
    value = with_key({"type": "text"}, Vanishing, "hi")
    Armed.on = True
    try:
        with pytest.raises(RuntimeError, match="changed during iteration"):
            cb.structure(value, cb.Block)
    finally:
        Armed.on = False
    assert "added" in value


def test_an_exception_of_the_library_goes_through(monkeypatch):
    """Without a foreign key in the value, an exception raised while structuring it is not turned into a problem."""
    from contentblocks._conversion import _readers  # noqa: PLC0415 - patched for this test only

    converter = cb.make_converter()

    def broken(_value: object) -> None:
        raise LookupError("a bug")

    monkeypatch.setattr(_readers, "as_object", lambda *_args: broken(None))
    with pytest.raises(LookupError, match="a bug"):
        converter.structure([{"role": "user", "content": "hi"}, ()], cb.Conversation)
