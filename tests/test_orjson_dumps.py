"""The orjson converter's dumps: a conversation written message by message, with orjson's own options."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings

import contentblocks as cb
import strategies

orjson = pytest.importorskip("orjson")
preconf = pytest.importorskip("contentblocks.preconf.orjson")

CONVERTER = preconf.make_converter()


def canonical(obj, **kwargs):
    """The orjson text of the canonical form, from the plain dicts of cb.unstructure."""
    return orjson.dumps(cb.unstructure(obj), **kwargs)


class _Stamp:
    """A type neither orjson nor contentblocks writes."""


class _MyMessage(cb.Message):
    pass


class _MyText(cb.TextBlock):
    pass


@settings(max_examples=25)
@given(conversation=strategies.conversations(max_messages=4))
def test_conversations_are_written_in_canonical_form(conversation):
    """Message by message or not, the bytes are those of the canonical form, with and without orjson options."""
    assert CONVERTER.dumps(conversation) == canonical(conversation)
    for option in (orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2, orjson.OPT_PASSTHROUGH_SUBCLASS):
        assert CONVERTER.dumps(conversation, option=option) == canonical(conversation, option=option)


@settings(max_examples=25)
@given(block=strategies.blocks(), message=strategies.messages())
def test_blocks_and_messages_are_written_in_canonical_form(block, message):
    for obj in (block, message):
        assert CONVERTER.dumps(obj) == canonical(obj)
        assert CONVERTER.dumps(obj, option=orjson.OPT_PASSTHROUGH_SUBCLASS) == canonical(obj)


def test_read_only_json_values_are_copied_for_a_serialiser_that_passes_subclasses_through():
    """With OPT_PASSTHROUGH_SUBCLASS orjson hands JsonObject and JsonArray to the callback, which copies them."""
    block = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={"a": [1, {"b": [True, None]}], "c": {}})
    expected = b'{"type":"tool_call","tool_call_id":"c1","tool_name":"f","input":{"a":[1,{"b":[true,null]}],"c":{}}}'
    assert CONVERTER.dumps(block, option=orjson.OPT_PASSTHROUGH_SUBCLASS) == expected
    assert CONVERTER.dumps(cb.Conversation(messages=(cb.Message(role="assistant", content=(block,)),)),
                           option=orjson.OPT_PASSTHROUGH_SUBCLASS) == b'[{"role":"assistant","content":[' + expected + b"]}]"  # fmt: skip


def test_subclasses_inside_a_conversation_are_written_as_their_base():
    plain = cb.Conversation(messages=(cb.Message(role="user", content=(cb.TextBlock(text="hi"),)),))
    mine = cb.Conversation(messages=(_MyMessage(role="user", content=(_MyText(text="hi"),)),))
    assert (
        CONVERTER.dumps(mine) == CONVERTER.dumps(plain) == b'[{"role":"user","content":[{"type":"text","text":"hi"}]}]'
    )


def test_a_default_of_the_callers_sees_only_what_contentblocks_cannot_write():
    """A caller's ``default`` is chained after ours: it is called for its own types, never for blocks."""
    seen = []

    def default(obj):
        seen.append(type(obj))
        return "stamp"

    conversation = cb.Conversation(messages=(cb.Message(role="user", content=(cb.TextBlock(text="hi"),)),))
    assert CONVERTER.dumps(conversation, default=default) == canonical(conversation)
    assert seen == []
    # Objects that are not ours go through the converter, and orjson calls the caller's default for the rest.
    assert CONVERTER.dumps({"at": _Stamp()}, default=default) == b'{"at":"stamp"}'
    assert seen == [_Stamp]


def test_the_callback_refuses_what_it_does_not_know():
    from contentblocks._conversion._unstructure import dump_default  # noqa: PLC0415 - the private callback itself

    default = dump_default(native_binary=False)
    with pytest.raises(TypeError, match="Type is not JSON serializable: _Stamp"):
        default(_Stamp())
    chained = dump_default(native_binary=False, fallback=lambda obj: "stamp")
    assert chained(_Stamp()) == "stamp"
    assert chained(cb.TextBlock(text="hi")) == {"type": "text", "text": "hi"}
    # orjson turns the callback's TypeError into its own JSONEncodeError, as for any unsupported type
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps([_Stamp()], default=default)


def _peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_dicts_of_a_whole_conversation_never_exist_at_once():
    """Each message's dicts are freed once written: the peak is the output, not the tree of the conversation.

    Built as a whole, the dict tree of these 400 short messages takes about ten times the memory of their text.
    """
    message = cb.Message(role="user", content=(cb.TextBlock(text="hi", metadata={"k": 1}), cb.TextBlock(text="yo")))
    conversation = cb.Conversation(messages=(message,) * 400)
    hook = CONVERTER.get_unstructure_hook(cb.Conversation)
    output = len(CONVERTER.dumps(conversation))
    tree = _peak(lambda: hook(conversation))
    assert tree > 5 * output  # the tree this test is about really is the larger
    # orjson's buffer may hold up to twice the output while it grows; the tree would add more than twice that
    assert _peak(lambda: CONVERTER.dumps(conversation)) < 3 * output + (tree - output) // 4
