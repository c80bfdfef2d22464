"""The C unstructurer (``unstructure.c``) against the generated unstructure functions of ``_gen``.

The generated functions are the reference. For every block, message and conversation the C walk of the table
``_gen.shapes()`` must give exactly what they give, key order included, in all four modes (JSON values copied
or kept, binary as base64 or raw); for anything its table does not describe exactly it must hand the object
back (a miss), and the converter's hook then runs the generated function.
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
from contentblocks import strategies
from contentblocks._conversion import _gen, _unstructure
from contentblocks._conversion._kernels import MISS, speedups
from contentblocks._json import _values as _json
from contentblocks._model import _wire

needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

MODES = [(plain_json, base64) for plain_json in (True, False) for base64 in (True, False)]
SHAPES = _gen.shapes()


def _kind(cls: type, key: str) -> str:
    """The table's kind for one key of a class, so that hand-made tables use the kinds the generator emits."""
    return next(kind for kind, name, _ in SHAPES[cls] if name == key)


VALUE = _kind(cb.TextBlock, "text")  # a field written as it is
OPTIONAL = _kind(cb.ReasoningBlock, "text")  # the same, left out when None


def _ordered(value: Any) -> Any:
    """The value with every dict as a list of its items, so that comparing also compares key order and types."""
    if isinstance(value, dict):
        return (type(value), [(k, _ordered(v)) for k, v in value.items()])
    if isinstance(value, list):
        return (type(value), [_ordered(v) for v in value])
    return (type(value), value)


def _reference(obj: Any, *, plain_json: bool, base64: bool) -> Any:
    """What the generated function of ``obj``'s class gives in one mode."""
    return _gen.unstructure_functions(native_binary=not base64, plain_json=plain_json)[type(obj)](obj)


def _walker(*, plain_json: bool = True, base64: bool = True) -> Any:
    """The C walk the converters use in one mode."""
    return _unstructure._walker(plain_json=plain_json, native_binary=not base64)


def _assert_same(obj: Any, *, plain_json: bool, base64: bool) -> None:
    out = _walker(plain_json=plain_json, base64=base64)(obj)
    assert out is not MISS
    assert _ordered(out) == _ordered(_reference(obj, plain_json=plain_json, base64=base64))


def _parts(block: Any) -> list[Any]:
    """A block and the objects nested in it that have a wire form of their own."""
    parts = [block]
    for citation in getattr(block, "citations", ()):
        parts += [citation, citation.source]
    source = getattr(block, "source", None)
    return parts if source is None else [*parts, source]


@needs_speedups
@pytest.mark.parametrize(("plain_json", "base64"), MODES)
@given(conversation=strategies.conversations(max_messages=6, max_binary_size=80))
def test_conversations_come_out_as_the_generated_functions_give_them(conversation, plain_json, base64):
    """A conversation and each of its messages: the C walk's dicts are the generated functions', in key order."""
    _assert_same(conversation, plain_json=plain_json, base64=base64)
    for message in conversation.messages:
        _assert_same(message, plain_json=plain_json, base64=base64)


@needs_speedups
@pytest.mark.parametrize(("plain_json", "base64"), MODES)
@given(block=strategies.blocks(max_binary_size=200))
def test_blocks_come_out_as_the_generated_functions_give_them(block, plain_json, base64):
    """A block, its citations and their sources, and its file source: the C walk gives what the functions give."""
    for part in _parts(block):
        _assert_same(part, plain_json=plain_json, base64=base64)


@pytest.mark.parametrize(("plain_json", "base64"), MODES)
@given(conversation=strategies.conversations(max_messages=4, max_binary_size=40))
def test_the_converters_hooks_give_what_the_generated_functions_give(conversation, plain_json, base64):
    """``unstructure_hooks`` (C walk first, where built) returns the generated functions' output, in key order."""
    hooks = _unstructure.unstructure_hooks(native_binary=not base64, plain_json=plain_json)
    objects = [conversation, *conversation.messages]
    objects += [part for message in conversation.messages for block in message.content for part in _parts(block)]
    for obj in objects:
        assert _ordered(hooks[type(obj)](obj)) == _ordered(_reference(obj, plain_json=plain_json, base64=base64))


@needs_speedups
@given(block=st.one_of(strategies.tool_call_blocks(), strategies.json_blocks(), strategies.text_blocks()))
def test_json_values_are_fresh_plain_copies_or_the_blocks_own(block):
    """Copied, a JSON value is a new plain dict or list equal to the block's; kept, it is the block's own."""
    out = _walker(plain_json=True)(block)
    kept = _walker(plain_json=False)(block)
    for key in ("input", "value", "metadata"):
        if key not in out:
            continue
        value = getattr(block, key)
        assert kept[key] is value
        if isinstance(value, dict | list):
            assert out[key] is not value
            assert type(out[key]) in (dict, list)
            assert out[key] == value


@needs_speedups
def test_binary_is_base64_text_or_the_blocks_own_bytes():
    """Binary comes out as canonical base64 text, or, in the native mode, as the very bytes the block holds."""
    block = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x00\xffab"))
    assert _walker(base64=True)(block)["source"] == {"type": "base64", "data": "AP9hYg=="}
    assert _walker(base64=False)(block)["source"]["data"] is block.source.data


def test_the_table_has_every_wire_key_in_order_and_every_tag():
    """The table holds each class's wire keys in order, its tag as a constant, and the classes the functions know."""
    for cls in _gen.CLASSES:
        shape = SHAPES[cls]
        assert tuple(key for _, key, _ in shape) == _wire.keys_of(cls)
        consts = {key: arg for kind, key, arg in shape if kind == "const"}
        tag = _wire.TAGGED.get(cls)
        assert consts == ({} if tag is None else {tag[0]: tag[1]})
    for cls, field in _wire.ARRAYS.items():
        assert SHAPES[cls] == (("list", None, field),)
    functions = _gen.unstructure_functions(native_binary=False, plain_json=True)
    assert set(SHAPES) == {*_gen.CLASSES, *_wire.ARRAYS} == set(functions)


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


@needs_speedups
@pytest.mark.parametrize("make", MISSES.values(), ids=list(MISSES))
def test_what_the_table_does_not_describe_is_handed_back(make):
    """Subclasses, unknown objects, unset slots, slots holding other types and values too deep are misses."""
    obj = make()
    for plain_json, base64 in MODES:
        if isinstance(obj, cb.JsonBlock) and not plain_json:
            continue  # a kept JSON value is not walked, so nothing nests too deep for the C code
        assert _walker(plain_json=plain_json, base64=base64)(obj) is MISS


def test_the_hooks_run_the_generated_function_on_a_miss():
    """Through the converter, a miss costs time, not correctness: a subclass and a deep value come out whole."""
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


@needs_speedups
def test_the_table_is_checked_when_the_unstructurer_is_made():
    """A malformed table (shape, kinds, keys, attributes, slots, array classes) is refused when the walk is made."""
    text = (("const", "type", "text"), (VALUE, "text", "text"))
    with pytest.raises(TypeError, match="dict of shapes"):
        speedups.unstructurer(list({cb.TextBlock: text}.items()), True, True, MISS)
    with pytest.raises(TypeError, match="non-empty tuple"):
        speedups.unstructurer({cb.TextBlock: ()}, True, True, MISS)
    with pytest.raises(TypeError, match="non-empty tuple"):
        speedups.unstructurer({"TextBlock": text}, True, True, MISS)
    with pytest.raises(ValueError, match="unknown field kind"):
        speedups.unstructurer({cb.TextBlock: (("nope", "text", "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="kind, key, attribute"):
        speedups.unstructurer({cb.TextBlock: ((VALUE, "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="keys of TextBlock are str"):
        speedups.unstructurer({cb.TextBlock: ((VALUE, 1, "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="names no attribute"):
        speedups.unstructurer({cb.TextBlock: ((VALUE, "text", 1),)}, True, True, MISS)
    with pytest.raises(AttributeError):
        speedups.unstructurer({cb.TextBlock: ((VALUE, "text", "nope"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="not an object slot"):
        speedups.unstructurer({cb.TextBlock: ((VALUE, "text", "__init__"),)}, True, True, MISS)
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
        speedups.unstructurer({Unrelated: ((VALUE, "text", "text"),)}, True, True, MISS)
    with pytest.raises(TypeError, match="exactly one positional"):
        _walker()()
    with pytest.raises(TypeError, match="exactly one positional"):
        _walker()(obj=1)


@needs_speedups
def test_the_kinds_the_docstring_lists_are_the_ones_the_table_takes():
    """Every kind ``unstructurer.__doc__`` lists is taken, near misses are not, and the generator uses only those."""
    doc = " ".join(speedups.unstructurer.__doc__.split())
    listed = doc.split("Kinds: ", 1)[1].split(" (", 1)[0].replace(", and ", ", ").split(", ")

    @attrs.frozen
    class Holder:
        value: Any

    for kind in listed:
        key = None if kind == "list" else "value"
        speedups.unstructurer({Holder: ((kind, key, "value"),)}, True, True, MISS)
    for near_miss in ("value", "optional", "json", "metadata", "attrs", "List"):
        with pytest.raises(ValueError, match="unknown field kind"):
            speedups.unstructurer({Holder: ((near_miss, "value", "value"),)}, True, True, MISS)
    assert {kind for shape in SHAPES.values() for kind, _, _ in shape} <= set(listed)


@needs_speedups
def test_a_table_class_of_ones_own_is_walked():
    """The table is data: any slotted class can be described, constants and optional keys included."""

    @attrs.frozen
    class Point:
        x: int
        label: str | None = None

    walk = speedups.unstructurer(
        {Point: (("const", "kind", "point"), (VALUE, "x", "x"), (OPTIONAL, "label", "label"))}, True, True, MISS
    )
    assert walk(Point(1)) == {"kind": "point", "x": 1}
    assert walk(Point(2, "b")) == {"kind": "point", "x": 2, "label": "b"}


@needs_speedups
def test_walking_leaks_nothing():
    """Walking valid objects and misses in every mode, many times over, leaves no allocated block behind."""
    conversation = cb.structure(
        [{"role": "user", "content": [{"type": "text", "text": "hi", "metadata": {"a": [1, {"b": None}]}},
                                      {"type": "file", "media_type": "image/png",
                                       "source": {"type": "base64", "data": "AP9hYg=="}}]},
         {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c1", "tool_name": "f",
                                            "input": {"q": [1, 2.5, "x"]}}]}],
        cb.Conversation,
    )  # fmt: skip
    misses = [make() for make in MISSES.values()]
    walkers = [_walker(plain_json=c, base64=b) for c, b in MODES]

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
