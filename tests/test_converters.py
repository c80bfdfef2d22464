"""Plugging in (SPEC §8.3): the hooks on every kind of cattrs converter, in every format, without side effects."""

# No `from __future__ import annotations` here: cattrs reads the attrs classes' annotations below as real types.

import importlib
import importlib.util
import json
import math
from collections.abc import Callable
from functools import cache
from typing import Any

import attrs
import cattrs
import pytest
from hypothesis import given, settings

import contentblocks as cb
import strategies


@attrs.frozen
class Spec:
    """One converter of the matrix: how to build it configured and unconfigured, and its format."""

    name: str
    module: str | None  # a module to import first (skip when absent)
    fresh: Callable[[], Any]  # an unconfigured converter of the same kind
    configured: Callable[[], Any]
    binary: str  # "base64" or "native"
    has_format: bool  # whether the converter has its own dumps/loads


def _cattrs_preconf(fmt):
    return importlib.import_module(f"cattrs.preconf.{fmt}").make_converter()


def _configured_cattrs_preconf(fmt, binary):
    def build():
        conv = _cattrs_preconf(fmt)
        cb.configure_converter(conv, binary=binary)
        return conv

    return build


def _configured(cls, binary):
    def build():
        conv = cls()
        cb.configure_converter(conv, binary=binary)
        return conv

    return build


def _ours(fmt):
    return importlib.import_module(f"contentblocks.preconf.{fmt}").make_converter()


def _ours_on_cattrs(fmt):
    def build():
        conv = _cattrs_preconf(fmt)
        importlib.import_module(f"contentblocks.preconf.{fmt}").configure_converter(conv)
        return conv

    return build


_BINARY = {"json": "base64", "orjson": "base64", "msgpack": "native", "cbor2": "native"}
_DEPENDENCY = {"json": None, "orjson": "orjson", "msgpack": "msgpack", "cbor2": "cbor2"}

SPECS = [
    Spec("Converter", None, cattrs.Converter, _configured(cattrs.Converter, "base64"), "base64", False),
    Spec("BaseConverter", None, cattrs.BaseConverter, _configured(cattrs.BaseConverter, "base64"), "base64", False),
    Spec("Converter-native", None, cattrs.Converter, _configured(cattrs.Converter, "native"), "native", False),
    Spec("BaseConverter-native", None, cattrs.BaseConverter, _configured(cattrs.BaseConverter, "native"), "native", False),
    *[
        Spec(f"cattrs.preconf.{fmt}", _DEPENDENCY[fmt], lambda fmt=fmt: _cattrs_preconf(fmt),
             _configured_cattrs_preconf(fmt, _BINARY[fmt]), _BINARY[fmt], True)
        for fmt in _BINARY
    ],
    *[
        Spec(f"contentblocks.preconf.{fmt}", _DEPENDENCY[fmt], lambda fmt=fmt: _cattrs_preconf(fmt),
             lambda fmt=fmt: _ours(fmt), _BINARY[fmt], True)
        for fmt in _BINARY
    ],
    *[
        Spec(f"contentblocks.preconf.{fmt}.configure_converter", _DEPENDENCY[fmt], lambda fmt=fmt: _cattrs_preconf(fmt),
             _ours_on_cattrs(fmt), _BINARY[fmt], True)
        for fmt in _BINARY
    ],
]
NAMES = [s.name for s in SPECS]
_BY_NAME = {s.name: s for s in SPECS}


def spec(name):
    """The spec of that name, skipping the test when its optional dependency is missing."""
    found = _BY_NAME[name]
    if found.module is not None:
        pytest.importorskip(found.module)
    if found.name.startswith("contentblocks.preconf"):
        pytest.importorskip(".".join(found.name.split(".")[:3]))
    return found


@cache
def converter(name):
    """One configured converter per spec, shared by the examples of a Hypothesis test."""
    return _BY_NAME[name].configured()


def round_trip(name, obj, target):
    """obj through the spec's format (dumps/loads) or, without one, through unstructure and JSON or memory."""
    conv = converter(name)
    if _BY_NAME[name].has_format:
        return conv.loads(conv.dumps(obj), target)
    raw = conv.unstructure(obj)
    if _BY_NAME[name].binary == "base64":
        raw = json.loads(json.dumps(raw, allow_nan=False))
    return conv.structure(raw, target)


# ---------------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=max(5, settings().max_examples // 2))
@given(block=strategies.blocks())
def test_blocks_round_trip_through_every_format(name, block):
    """Every block survives each format's dumps and loads (or unstructure and structure) unchanged."""
    spec(name)
    assert round_trip(name, block, cb.Block) == block


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=5)
@given(conversation=strategies.conversations(max_messages=4))
def test_conversations_round_trip_through_every_format(name, conversation):
    """Conversations survive each format's dumps and loads unchanged."""
    spec(name)
    assert round_trip(name, conversation, cb.Conversation) == conversation


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=max(5, settings().max_examples // 2))
@given(block=strategies.blocks())
def test_unstructure_matches_the_canonical_form(name, block):
    """Each converter writes the canonical wire form (with raw bytes in native mode)."""
    found = spec(name)
    expected = cb.make_converter(binary=found.binary).unstructure(block)
    assert strategies.same_json(expected, converter(name).unstructure(block))


class _MyText(cb.TextBlock):
    pass


class _MyUri(cb.CitedUri):
    pass


class _MyBytes(cb.BytesSource):
    pass


def test_subclasses_of_blocks_unstructure_as_their_base_at_any_depth():
    """A subclass of a block class (a user's own, with methods) comes out as its base class would."""
    text = _MyText(text="hi", citations=(cb.Citation(source=_MyUri(value="https://e.x")),))
    file = cb.FileBlock(media_type="image/png", source=_MyBytes(data=b"ab"))
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded", content=(text, file))
    message = cb.Message(role="tool", content=(result,))
    out = cb.unstructure(message)
    plain = cb.Message(role="tool", content=(cb.ToolResultBlock(
        tool_call_id="c1", tool_name="f", outcome="succeeded",
        content=(cb.TextBlock(text="hi", citations=(cb.Citation(source=cb.CitedUri(value="https://e.x")),)),
                 cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"ab"))),
    ),))  # fmt: skip
    assert out == cb.unstructure(plain)
    assert out["content"][0]["content"][0]["citations"][0]["source"]["kind"] == "uri"
    assert cb.dumps(message) == cb.dumps(plain)


@pytest.mark.parametrize("name", NAMES)
def test_validation_errors_come_through_every_converter(name):
    """Invalid input raises ValidationError from every configured converter, for every union and class."""
    spec(name)
    conv = converter(name)
    bad = {"type": "text", "text": None}
    for target in (cb.Block, cb.TextBlock, cb.ToolResultContent):
        with pytest.raises(cb.ValidationError):
            conv.structure(bad, target)
    with pytest.raises(cb.ValidationError):
        conv.structure({"type": "url", "url": "ftp://x"}, cb.FileSource)
    with pytest.raises(cb.ValidationError):
        conv.structure({"kind": "uri", "value": "nope"}, cb.CitationSource)
    with pytest.raises(cb.ValidationError):
        conv.structure({"role": "user", "content": []}, cb.Message)
    with pytest.raises(cb.ValidationError):
        conv.structure([{"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c", "tool_name": "f",
                                                       "outcome": "failed", "content": []}]}], cb.Conversation)


# ---------------------------------------------------------------------------------------------- binary modes


@pytest.mark.parametrize("name", NAMES)
def test_binary_mode(name):
    """native leaves bytes raw; base64 writes canonical base64 text even where the converter uses base85."""
    found = spec(name)
    conv = converter(name)
    block = cb.FileBlock(media_type="application/octet-stream", source=cb.BytesSource(data=b"\x00\xffhi"))
    reasoning = cb.ReasoningBlock(redacted=b"\x01\x02")
    data = conv.unstructure(block)["source"]["data"]
    redacted = conv.unstructure(reasoning)["redacted"]
    if found.binary == "native":
        assert data == b"\x00\xffhi"
        assert type(data) is bytes
        assert redacted == b"\x01\x02"
        raw = {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": b"\x00"}}
        assert conv.structure(raw, cb.Block).source.data == b"\x00"
        with pytest.raises(cb.ValidationError):
            conv.structure({**raw, "source": {"type": "base64", "data": "AA=="}}, cb.Block)
    else:
        assert data == "AP9oaQ=="
        assert redacted == "AQI="
        raw = {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": "AA=="}}
        assert conv.structure(raw, cb.Block).source.data == b"\x00"
        with pytest.raises(cb.ValidationError):
            conv.structure({**raw, "source": {"type": "base64", "data": b"\x00"}}, cb.Block)


# ---------------------------------------------------------------------------------------------- user types


@attrs.define
class UserThing:
    """A user's own class, with fields of the shared types the hooks must leave alone."""

    data: bytes
    name: str
    extra: dict
    anything: Any
    numbers: list[int]


def _outcome(call):
    try:
        value = call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return ("raised", type(e).__name__)
    return ("returned", _comparable(value))


def _comparable(value):
    """Something == can compare, with floats compared by repr (NaN) and types kept."""
    if isinstance(value, float):
        return ("float", repr(value))
    if attrs.has(type(value)):
        return (type(value).__name__, _comparable(attrs.asdict(value, recurse=False)))
    if isinstance(value, dict):
        return ("dict", tuple((_comparable(k), _comparable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_comparable(v) for v in value))
    return (type(value).__name__, value)


_THING = UserThing(data=b"\x00\xff", name="n", extra={"a": b"x", "b": [1]}, anything=b"y", numbers=[1, 2])
_USER_CALLS = {
    "unstructure-thing": lambda c: c.unstructure(_THING),
    "round-trip-thing": lambda c: c.structure(c.unstructure(_THING), UserThing),
    "coerce-thing": lambda c: c.structure({"data": b"a", "name": 123, "extra": {1: 2}, "anything": [math.nan], "numbers": ["1", True]}, UserThing),
    "str-from-None": lambda c: c.structure(None, str),
    "str-from-int": lambda c: c.structure(123, str),
    "int-from-bool": lambda c: c.structure(True, int),
    "int-from-float": lambda c: c.structure(3.9, int),
    "bool-from-str": lambda c: c.structure("false", bool),
    "list-from-str": lambda c: c.structure("abc", list[str]),
    "dict-int-keys": lambda c: c.structure({1: 2}, dict[str, int]),
    "bytes-unstructure": lambda c: c.unstructure(b"abc"),
    "bytes-unstructure-as": lambda c: c.unstructure(b"abc", unstructure_as=bytes),
    "bytes-structure": lambda c: c.structure(c.unstructure(b"abc", unstructure_as=bytes), bytes),
    "dict-unstructure": lambda c: c.unstructure({"k": b"v", "n": [1.5]}),
    "any-structure": lambda c: c.structure({"deep": [[math.inf]]}, Any),
    "any-unstructure": lambda c: c.unstructure({"b": b"x"}, unstructure_as=Any),
    "str-unstructure": lambda c: c.unstructure("s"),
    "tuple-unstructure": lambda c: c.unstructure((1, b"2")),
}


@pytest.mark.parametrize("call", list(_USER_CALLS))
@pytest.mark.parametrize("name", NAMES)
def test_user_types_behave_as_on_an_unconfigured_converter(name, call):
    """Configuring changes nothing for the user's own bytes, str, dict, Any and attrs fields."""
    found = spec(name)
    fresh, configured = found.fresh(), found.configured()
    assert _outcome(lambda: _USER_CALLS[call](configured)) == _outcome(lambda: _USER_CALLS[call](fresh))


@pytest.mark.parametrize("name", NAMES)
def test_user_types_survive_the_format(name):
    """A user's class with bytes goes through the format exactly as on an unconfigured converter."""
    found = spec(name)
    if not found.has_format:
        pytest.skip("no format of its own")
    fresh, configured = found.fresh(), found.configured()
    thing = UserThing(data=b"\x00\xff", name="n", extra={"a": 1}, anything="y", numbers=[1])
    assert configured.dumps(thing) == fresh.dumps(thing)
    assert configured.loads(fresh.dumps(thing), UserThing) == thing


# ---------------------------------------------------------------------------------------------- copying converters


@pytest.mark.parametrize("name", NAMES)
def test_hooks_survive_copy(name):
    """Converter.copy() keeps every hook: unions, classes, messages, conversations, validation, binary mode."""
    found = spec(name)
    original = converter(name)
    if not hasattr(original, "copy"):
        pytest.skip("this converter has no copy()")
    copied = original.copy()
    raw = {"type": "file", "media_type": "image/*", "source": {"type": "url", "url": "https://a.com/x"}}
    assert copied.structure(raw, cb.Block) == cb.structure(raw, cb.Block)
    content = {"type": "json", "value": [1, 1.0, True]}
    assert copied.structure(content, cb.ToolResultContent) == cb.structure(content, cb.Block)
    assert copied.structure({"type": "reference", "id": "f"}, cb.FileSource) == cb.ReferenceSource(id="f")
    assert copied.structure({"kind": "reference", "value": "r"}, cb.CitationSource) == cb.CitedReference(value="r")
    conversation = [{"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c", "tool_name": "f", "input": None}]}]
    assert copied.unstructure(copied.structure(conversation, cb.Conversation)) == conversation
    with pytest.raises(cb.ValidationError):
        copied.structure({"type": "text", "text": "ok", "extra": 1}, cb.Block)
    block = cb.FileBlock(media_type="a/b", source=cb.BytesSource(data=b"hi"))
    expected = b"hi" if found.binary == "native" else "aGk="
    assert copied.unstructure(block)["source"]["data"] == expected
    assert copied.unstructure(block, unstructure_as=cb.Block)["source"]["data"] == expected


# ---------------------------------------------------------------------------------------------- global converter


def test_global_converter_is_untouched():
    """Configuring converters never registers anything on cattrs.global_converter."""
    glob = cattrs.global_converter
    before = {call: _outcome(lambda call=call: _USER_CALLS[call](glob)) for call in _USER_CALLS}
    block_before = _outcome(lambda: glob.unstructure(cb.TextBlock(text="hi")))
    union_before = _outcome(lambda: glob.structure({"type": "text", "text": "hi"}, cb.Block))
    for found in SPECS:
        if found.module is None or importlib.util.find_spec(found.module) is not None:
            configured = found.configured()
            if hasattr(configured, "copy"):
                configured.copy()
    cb.make_converter()
    cb.make_converter(binary="native")
    assert {call: _outcome(lambda call=call: _USER_CALLS[call](glob)) for call in _USER_CALLS} == before
    assert _outcome(lambda: glob.unstructure(cb.TextBlock(text="hi"))) == block_before
    assert _outcome(lambda: glob.structure({"type": "text", "text": "hi"}, cb.Block)) == union_before
    assert "type" not in glob.unstructure(cb.TextBlock(text="hi"))


# ---------------------------------------------------------------------------------------------- blocks inside user classes


@attrs.frozen
class Envelope:
    """A user's class holding a block, a list of messages and its own bytes."""

    block: cb.Block
    history: list[cb.Message]
    results: tuple[cb.ToolResultContent, ...]
    note: str


_ENVELOPE = Envelope(
    block=cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG")),
    history=[
        cb.Message(role="user", content="hi", metadata={"app/id": 1}),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"a": [1.0]})]),
    ],
    results=(cb.JsonBlock(value=None), cb.TextBlock(text="t")),
    note="n",
)


@pytest.mark.parametrize("name", NAMES)
def test_blocks_inside_user_classes(name):
    """A user's attrs class with a Block field and a list[Message] field round-trips through the converter."""
    found = spec(name)
    conv = converter(name)
    raw = conv.unstructure(_ENVELOPE)
    wire = cb.make_converter(binary=found.binary)
    assert strategies.same_json(wire.unstructure(_ENVELOPE.block), raw["block"])
    assert strategies.same_json([wire.unstructure(m) for m in _ENVELOPE.history], list(raw["history"]))
    assert conv.structure(raw, Envelope) == _ENVELOPE
    if found.has_format:
        assert conv.loads(conv.dumps(_ENVELOPE), Envelope) == _ENVELOPE


def _contains_validation_error(error):
    if isinstance(error, cb.ValidationError):
        return True
    return isinstance(error, BaseExceptionGroup) and any(_contains_validation_error(e) for e in error.exceptions)


@pytest.mark.parametrize("name", NAMES)
def test_invalid_blocks_inside_user_classes(name):
    """An invalid block inside a user's class raises a ValidationError (alone or inside cattrs' error group)."""
    spec(name)
    conv = converter(name)
    raw = conv.unstructure(_ENVELOPE)
    raw["block"] = {"type": "text", "text": ""}
    with pytest.raises(Exception) as info:
        conv.structure(raw, Envelope)
    assert _contains_validation_error(info.value)
