"""Round trips, copies, pickling, equality and hashing of blocks, messages and conversations (SPEC §8.1-2)."""

from __future__ import annotations

import copy
import json
import pickle

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
import strategies
from contentblocks._conversion import _gen

# ---------------------------------------------------------------------------------------------- round trips


@given(strategies.blocks())
def test_block_round_trip(block):
    """structure(unstructure(b)) == b for every kind of block, through the union and the block's own class."""
    raw = cb.unstructure(block)
    assert cb.structure(raw, cb.Block) == block
    assert cb.structure(raw, type(block)) == block
    assert type(cb.structure(raw, cb.Block)) is type(block)


@given(strategies.messages())
def test_message_round_trip(message):
    """structure(unstructure(m)) == m for every message."""
    assert cb.structure(cb.unstructure(message), cb.Message) == message


@settings(max_examples=max(10, settings().max_examples // 2))
@given(strategies.conversations())
def test_conversation_round_trip(conversation):
    """structure(unstructure(c)) == c for every conversation, and its wire form is a list of message objects."""
    raw = cb.unstructure(conversation)
    assert type(raw) is list
    assert len(raw) == len(conversation)
    assert cb.structure(raw, cb.Conversation) == conversation


@given(strategies.wire_blocks())
def test_canonical_block_input_comes_back_exactly(raw):
    """unstructure(structure(x)) == x, type-exactly, for every canonical block input."""
    expected = json.loads(json.dumps(raw))  # a fresh copy the library never saw
    out = cb.unstructure(cb.structure(raw, cb.Block))
    assert strategies.first_difference(expected, out) is None


@given(strategies.wire_messages())
def test_canonical_message_input_comes_back_exactly(raw):
    """unstructure(structure(x)) == x, type-exactly, for every canonical message input."""
    out = cb.unstructure(cb.structure(raw, cb.Message))
    assert strategies.first_difference(raw, out) is None


@settings(max_examples=max(10, settings().max_examples // 2))
@given(strategies.wire_conversations())
def test_canonical_conversation_input_comes_back_exactly(raw):
    """unstructure(structure(x)) == x, type-exactly, for every canonical conversation input."""
    out = cb.unstructure(cb.structure(raw, cb.Conversation))
    assert strategies.first_difference(raw, out) is None


@given(strategies.noncanonical_wire_blocks())
def test_noncanonical_input_comes_out_canonical(pair):
    """Empty optional collections and tuples are accepted on input and written canonically on output."""
    raw, canonical = pair
    assert strategies.first_difference(canonical, cb.unstructure(cb.structure(raw, cb.Block))) is None


def test_string_content_comes_out_as_a_list():
    """A message's string shorthand is written back as one text block in a list."""
    out = cb.unstructure(cb.structure({"role": "user", "content": "hi"}, cb.Message))
    assert out == {"role": "user", "content": [{"type": "text", "text": "hi"}]}


@given(strategies.blocks())
def test_block_json_text_round_trip(block):
    """loads(dumps(b)) == b, and dumps writes exactly the canonical form."""
    text = cb.dumps(block)
    assert type(text) is str
    assert cb.loads(text) == block
    assert cb.loads(text.encode("utf-8"), cb.Block) == block
    assert strategies.first_difference(cb.unstructure(block), json.loads(text)) is None


@given(strategies.messages())
def test_message_json_text_round_trip(message):
    """loads(dumps(m), Message) == m."""
    assert cb.loads(cb.dumps(message), cb.Message) == message


@settings(max_examples=max(10, settings().max_examples // 2))
@given(strategies.conversations())
def test_conversation_json_text_round_trip(conversation):
    """loads(dumps(c), Conversation) == c."""
    assert cb.loads(cb.dumps(conversation), cb.Conversation) == conversation


@given(strategies.blocks())
def test_python_built_blocks_equal_their_structured_twins(block):
    """A block rebuilt by its class from its own fields equals the original (the two paths agree)."""
    import attrs  # noqa: PLC0415

    fields = {a.name: getattr(block, a.name) for a in attrs.fields(type(block))}
    assert type(block)(**fields) == block


# ---------------------------------------------------------------------------------------------- copies and pickles


@given(strategies.blocks())
def test_copies_and_pickles_are_equal(block):
    """copy.copy, copy.deepcopy and pickle (every protocol) give equal blocks with equal hashes."""
    assert copy.copy(block) == block
    assert copy.deepcopy(block) is block
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(block, protocol=protocol))  # noqa: S301 - our own data
        assert again == block
        assert hash(again) == hash(block)
        assert cb.unstructure(again) == cb.unstructure(block)


@settings(max_examples=max(10, settings().max_examples // 2))
@given(strategies.conversations(max_messages=4))
def test_conversations_copy_and_pickle(conversation):
    """Conversations and their messages survive deepcopy and pickle equal, with equal hashes."""
    assert copy.deepcopy(conversation) is conversation
    again = pickle.loads(pickle.dumps(conversation))  # noqa: S301 - our own data
    assert again == conversation
    assert hash(again) == hash(conversation)


def test_pickled_json_values_stay_read_only():
    """A JSON value unpickled from a block is still read-only and still hashes the same."""
    block = cb.JsonBlock(value={"a": [1, {"b": 2}]})
    again = pickle.loads(pickle.dumps(block))  # noqa: S301 - our own data
    assert type(again.value) is cb.JsonObject
    assert type(again.value["a"]) is cb.JsonArray
    with pytest.raises(TypeError):
        again.value["a"].append(3)
    assert hash(again) == hash(block)


# ---------------------------------------------------------------------------------------------- equality and hashing


@given(strategies.blocks())
def test_equal_blocks_hash_equal(block):
    """A block and its structured copy are equal and hash equal; a block equals itself."""
    twin = cb.structure(cb.unstructure(block), cb.Block)
    assert twin is not block
    assert twin == block
    assert hash(twin) == hash(block)
    assert not twin.__ne__(block)


_DISTINCT_SCALARS = [1, 1.0, True, 0, 0.0, -0.0, False, None, "1", 2**64 - 1, float(2**64 - 1)]


def _places(value):
    """The same JSON value put in every place a block holds one."""
    return [
        lambda: cb.JsonBlock(value=value),
        lambda: cb.JsonBlock(value=[value]),
        lambda: cb.JsonBlock(value={"k": value}),
        lambda: cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"x": [value]}),
        lambda: cb.TextBlock(text="t", metadata={"app/v": value}),
        lambda: cb.Message(role="user", content="hi", metadata={"app/v": value}),
    ]


@pytest.mark.parametrize("place", range(6))
def test_json_types_keep_blocks_apart(place):
    """1, 1.0, True (and 0, 0.0, -0.0, False...) inside JSON values make unequal blocks with unequal hashes."""
    built = [_places(v)[place]() for v in _DISTINCT_SCALARS]
    for i, a in enumerate(built):
        for j, b in enumerate(built):
            if i == j:
                assert a == b
            else:
                assert a != b, (_DISTINCT_SCALARS[i], _DISTINCT_SCALARS[j])
    assert len({hash(b) for b in built}) == len(built)


def test_negative_zero_survives():
    """-0.0 and 0.0 make different blocks and -0.0 comes back out as -0.0."""
    neg, pos = cb.JsonBlock(value=-0.0), cb.JsonBlock(value=0.0)
    assert neg != pos
    assert hash(neg) != hash(pos)
    assert cb.dumps(neg) == '{"type":"json","value":-0.0}'
    assert str(cb.unstructure(cb.loads(cb.dumps(neg)))["value"]) == "-0.0"


@given(st.dictionaries(st.text(max_size=4), strategies.json_values(max_depth=2), min_size=2, max_size=6), st.randoms())
def test_object_key_order_does_not_matter(value, rnd):
    """Two JSON objects with the same items in another order make equal blocks with equal hashes."""
    items = list(value.items())
    rnd.shuffle(items)
    shuffled = dict(items)
    a, b = cb.JsonBlock(value=value), cb.JsonBlock(value=shuffled)
    assert a == b
    assert hash(a) == hash(b)
    call_a = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"nested": value}, metadata=value if "" not in value else {})
    call_b = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"nested": shuffled}, metadata=shuffled if "" not in shuffled else {})
    assert call_a == call_b
    assert hash(call_a) == hash(call_b)


def test_different_blocks_are_unequal():
    """Blocks differing in any one field are unequal."""
    base = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"a": 1})
    assert base != cb.ToolCallBlock(tool_call_id="d", tool_name="f", input={"a": 1})
    assert base != cb.ToolCallBlock(tool_call_id="c", tool_name="g", input={"a": 1})
    assert base != cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"a": 2})
    assert base != cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"a": 1}, metadata={"m": 1})
    assert cb.TextBlock(text="a") != cb.RefusalBlock(text="a")


# The strategy that draws each wire class: a class the declarations gain must be given one here.
_STRATEGY_OF = {
    cb.Message: strategies.messages(),
    cb.TextBlock: strategies.text_blocks(),
    cb.Citation: strategies.citations("Paris is the capital of France."),  # with a text, spans too
    cb.CitedUri: strategies.citations(),
    cb.CitedReference: strategies.citations(),
    cb.PageRange: strategies.citation_locations(),
    cb.CharacterRange: strategies.citation_locations(),
    cb.BlockRange: strategies.citation_locations(),
    cb.RefusalBlock: strategies.refusal_blocks(),
    cb.FileBlock: strategies.file_blocks(),
    cb.BytesSource: strategies.file_sources(),
    cb.UrlSource: strategies.file_sources(),
    cb.ReferenceSource: strategies.file_sources(),
    cb.ReasoningBlock: strategies.reasoning_blocks(),
    cb.ToolCallBlock: strategies.tool_call_blocks(),
    cb.ToolResultBlock: strategies.tool_result_blocks(),
    cb.JsonBlock: strategies.json_blocks(),
    cb.ServerToolCallBlock: strategies.server_tool_call_blocks(),
    cb.ServerToolResultBlock: strategies.server_tool_result_blocks(),
    cb.CompactionBlock: strategies.compaction_blocks(),
    cb.CacheBreakpoint: strategies.cache_breakpoints(),
    cb.SearchResultBlock: strategies.search_result_blocks(),
    cb.ApprovalRequestBlock: strategies.approval_request_blocks(),
    cb.ApprovalResponseBlock: strategies.approval_response_blocks(),
}


def _fields_set(obj: object, seen: set[tuple[type, str]]) -> None:
    """Add to ``seen`` every (class, field) of ``obj``, and of the objects inside it, whose value is not its default."""
    if isinstance(obj, tuple):
        for item in obj:
            _fields_set(item, seen)
    elif attrs.has(type(obj)):
        for field in attrs.fields(type(obj)):
            value = getattr(obj, field.name)
            default = field.default.factory() if isinstance(field.default, attrs.Factory) else field.default
            if field.default is attrs.NOTHING or value != default:
                seen.add((type(obj), field.name))
            _fields_set(value, seen)


def test_every_wire_class_has_a_strategy():
    """A class the declarations gain fails here until the strategies draw it (and the round trips test it)."""
    assert set(_STRATEGY_OF) == set(_gen.CLASSES)


@pytest.mark.parametrize("cls", list(_STRATEGY_OF), ids=lambda cls: cls.__name__)
def test_the_strategies_draw_every_field_of_every_class(cls):
    """Every declared field takes a value other than its default in what the strategies draw.

    Declaring a field is all its conversion needs, but the round-trip properties above only test what the
    strategies draw: a field they never set would be declared and converted, yet never tested.
    """
    seen: set[tuple[type, str]] = set()

    @settings(max_examples=150, database=None, derandomize=True, deadline=None)
    @given(_STRATEGY_OF[cls])
    def draw(obj):
        _fields_set(obj, seen)

    draw()
    assert [field.name for field in attrs.fields(cls) if (cls, field.name) not in seen] == []
