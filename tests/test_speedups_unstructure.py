"""The C unstructurer (``unstructure.c``) against the hand-written hooks of ``_unstructure.py``.

The hooks are the reference. For every block, message and conversation the unstructurer must give exactly
what they give, key order included, in all four modes (JSON values copied or kept, binary as base64 or raw);
for anything its table does not describe exactly it must hand the object back (a miss), and the hook then
runs the Python walk.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import _bodies, _json, _unstructure, strategies
from contentblocks._accel import MISS

speedups = _json.speedups
pytestmark = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

MODES = [(copy_json, base64) for copy_json in (True, False) for base64 in (True, False)]


def _python_hooks(monkeypatch: pytest.MonkeyPatch, *, copy_json: bool, base64: bool) -> dict[type, Any]:
    with monkeypatch.context() as patched:
        patched.setattr(_unstructure, "speedups", None)
        return _unstructure.unstructure_hooks(native_binary=not base64, plain_json=copy_json)


def _ordered(value: Any) -> Any:
    """The value with every dict as a list of its items, so that comparing also compares key order and types."""
    if isinstance(value, dict):
        return (type(value), [(k, _ordered(v)) for k, v in value.items()])
    if isinstance(value, list):
        return (type(value), [_ordered(v) for v in value])
    return (type(value), value)


def _walker(*, copy_json: bool = True, base64: bool = True) -> Any:
    return speedups.unstructurer(_unstructure.SHAPES, copy_json, base64, MISS)


def _assert_same(obj: Any, monkeypatch: pytest.MonkeyPatch, *, copy_json: bool, base64: bool) -> Any:
    out = _walker(copy_json=copy_json, base64=base64)(obj)
    expected = _python_hooks(monkeypatch, copy_json=copy_json, base64=base64)[type(obj)](obj)
    assert out is not MISS
    assert _ordered(out) == _ordered(expected)
    return out


@pytest.mark.parametrize(("copy_json", "base64"), MODES)
@given(conversation=strategies.conversations(max_messages=6, max_binary_size=80))
def test_conversations_come_out_as_the_hooks_give_them(conversation, copy_json, base64):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _assert_same(conversation, monkeypatch, copy_json=copy_json, base64=base64)
        for message in conversation.messages:
            _assert_same(message, monkeypatch, copy_json=copy_json, base64=base64)


@pytest.mark.parametrize(("copy_json", "base64"), MODES)
@given(block=strategies.blocks(max_binary_size=200))
def test_blocks_come_out_as_the_hooks_give_them(block, copy_json, base64):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _assert_same(block, monkeypatch, copy_json=copy_json, base64=base64)
        for citation in getattr(block, "citations", ()):
            _assert_same(citation, monkeypatch, copy_json=copy_json, base64=base64)
            _assert_same(citation.source, monkeypatch, copy_json=copy_json, base64=base64)
        source = getattr(block, "source", None)
        if source is not None:
            _assert_same(source, monkeypatch, copy_json=copy_json, base64=base64)


@given(block=st.one_of(strategies.tool_call_blocks(), strategies.json_blocks(), strategies.text_blocks()))
def test_json_values_are_fresh_plain_copies_or_the_blocks_own(block):
    out = _walker(copy_json=True)(block)
    kept = _walker(copy_json=False)(block)
    for name, key in (("input", "input"), ("value", "value"), ("metadata", "metadata")):
        value = getattr(block, name, None)
        if key not in out:
            continue
        assert kept[key] is value
        if isinstance(value, dict | list):
            assert out[key] is not value
            assert type(out[key]) in (dict, list)
            assert out[key] == value


def test_binary_is_base64_text_or_the_blocks_own_bytes():
    block = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x00\xffab"))
    assert _walker(base64=True)(block)["source"] == {"type": "base64", "data": "AP9hYg=="}
    assert _walker(base64=False)(block)["source"]["data"] is block.source.data


def test_the_table_has_every_wire_key_in_order_and_every_tag():
    """SHAPES holds each class's keys in the order of the structure side's key lists, tags included."""
    for cls, keys in _bodies.KEYS.items():
        shape = _unstructure.SHAPES[cls]
        assert tuple(key for _, key, _ in shape) == keys
        consts = {key: arg for kind, key, arg in shape if kind == "const"}
        assert consts == ({keys[0]: _bodies.TAGS[cls]} if cls in _bodies.TAGS else {})
    assert set(_unstructure.SHAPES) == {*_bodies.KEYS, cb.Conversation}
    assert set(_unstructure.SHAPES) == set(_python_hooks(pytest.MonkeyPatch(), copy_json=True, base64=True))


# ------------------------------------------------------------------------------------------------------ misses


class TextSubclass(cb.TextBlock):
    pass


def _set(obj: Any, name: str, value: Any) -> Any:
    object.__setattr__(obj, name, value)
    return obj


def _unset(obj: Any, name: str) -> Any:
    object.__delattr__(obj, name)
    return obj


def _deep_json_block() -> cb.JsonBlock:
    # Deeper than the C thaw recurses (past any depth limit a converter allows): built by hand.
    value: Any = 1
    for _ in range(1_200):
        array = _json.JsonArray.__new__(_json.JsonArray)
        list.append(array, value)
        value = array
    return _set(cb.JsonBlock(value=[1]), "value", value)


MISSES = {
    "a subclass": lambda: TextSubclass(text="hi"),
    "a subclass inside": lambda: cb.Message(role="user", content=(TextSubclass(text="hi"),)),
    "an unknown object": object,
    "an unset slot": lambda: _unset(cb.TextBlock(text="hi"), "text"),
    "metadata not a JsonObject": lambda: _set(cb.TextBlock(text="hi"), "metadata", {"a": 1}),
    "citations not a tuple": lambda: _set(cb.TextBlock(text="hi"), "citations", []),
    "content not a tuple": lambda: _set(cb.Message(role="user", content="hi"), "content", []),
    "messages not a tuple": lambda: _set(cb.Conversation(messages=()), "messages", []),
    "binary not bytes": lambda: _set(cb.BytesSource(data=b"a"), "data", bytearray(b"a")),
    "a JSON value nested past the C walk": _deep_json_block,
}


@pytest.mark.parametrize("make", MISSES.values(), ids=list(MISSES))
def test_what_the_table_does_not_describe_is_handed_back(make):
    obj = make()
    for copy_json, base64 in MODES:
        walk = _walker(copy_json=copy_json, base64=base64)
        if isinstance(obj, cb.JsonBlock) and not copy_json:
            continue  # a kept JSON value is not walked, so nothing nests too deep for the C code
        assert walk(obj) is MISS


def test_the_hooks_run_the_python_walk_on_a_miss():
    """Through the converter, a miss costs time, not correctness."""
    block = TextSubclass(text="hi", citations=(cb.Citation(source=cb.CitedUri(value="https://e.x")),))
    out = cb.make_converter().unstructure(cb.Message(role="user", content=(block,)))
    assert out == {"role": "user", "content": [{"type": "text", "text": "hi", "citations": [
        {"source": {"kind": "uri", "value": "https://e.x"}}]}]}  # fmt: skip
    value = cb.unstructure(_deep_json_block())["value"]
    for _ in range(1_200):  # compared level by level: == recurses, and would pass the recursion limit
        assert type(value) is list
        assert len(value) == 1
        value = value[0]
    assert value == 1


def test_the_table_is_checked_when_the_unstructurer_is_made():
    text = (("const", "type", "text"), ("value", "text", "text"))
    with pytest.raises(TypeError, match="dict of shapes"):
        speedups.unstructurer(list({cb.TextBlock: text}.items()), True, True, MISS)
    with pytest.raises(TypeError, match="non-empty tuple"):
        speedups.unstructurer({cb.TextBlock: ()}, True, True, MISS)
    with pytest.raises(TypeError, match="non-empty tuple"):
        speedups.unstructurer({"TextBlock": text}, True, True, MISS)
    with pytest.raises(ValueError, match="unknown field kind"):
        speedups.unstructurer({cb.TextBlock: (("nope", "text", "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="kind, key, attribute"):
        speedups.unstructurer({cb.TextBlock: (("value", "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="keys of TextBlock are str"):
        speedups.unstructurer({cb.TextBlock: (("value", 1, "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="names no attribute"):
        speedups.unstructurer({cb.TextBlock: (("value", "text", 1),)}, True, True, MISS)
    with pytest.raises(AttributeError):
        speedups.unstructurer({cb.TextBlock: (("value", "text", "nope"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="not an object slot"):
        speedups.unstructurer({cb.TextBlock: (("value", "text", "__init__"),)}, True, True, MISS)
    with pytest.raises(ValueError, match="one field and no key"):
        speedups.unstructurer({cb.Conversation: (("list", "messages", "messages"),)}, True, True, MISS)
    with pytest.raises(ValueError, match="one field and no key"):
        speedups.unstructurer({cb.Conversation: (("list", None, "messages"), text[0])}, True, True, MISS)

    class Other:
        __slots__ = ("text",)

    class Unrelated:
        __slots__ = ()

    # A slot descriptor of another class, even under the same name, would read outside the instance.
    Unrelated.text = Other.__dict__["text"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="not an object slot"):
        speedups.unstructurer({Unrelated: (("value", "text", "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="exactly one positional"):
        _walker()()
    with pytest.raises(TypeError, match="exactly one positional"):
        _walker()(obj=1)


def test_a_table_class_of_ones_own_is_walked():
    """The table is data: any slotted class can be described, constants and nesting included."""

    @attrs.frozen
    class Point:
        x: int
        label: str | None = None

    walk = speedups.unstructurer(
        {Point: (("const", "kind", "point"), ("value", "x", "x"), ("optional", "label", "label"))}, True, True, MISS
    )
    assert walk(Point(1)) == {"kind": "point", "x": 1}
    assert walk(Point(2, "b")) == {"kind": "point", "x": 2, "label": "b"}


def test_walking_leaks_nothing():
    conversation = cb.structure(
        [{"role": "user", "content": [{"type": "text", "text": "hi", "metadata": {"a": [1, {"b": None}]}},
                                      {"type": "file", "media_type": "image/png",
                                       "source": {"type": "base64", "data": "AP9hYg=="}}]},
         {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c1", "tool_name": "f",
                                            "input": {"q": [1, 2.5, "x"]}}]}],
        cb.Conversation,
    )  # fmt: skip
    misses = [make() for make in MISSES.values()]
    walkers = [_walker(copy_json=c, base64=b) for c, b in MODES]

    def once() -> None:
        for walk in walkers:
            walk(conversation)
            for obj in misses:
                walk(obj)

    once()
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(200):
        once()
    gc.collect()
    assert sys.getallocatedblocks() - before < 50
