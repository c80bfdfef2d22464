"""Immutability all the way down (SPEC §8.2): frozen fields, tuples, read-only JSON values, no aliasing."""

from __future__ import annotations

import threading

import attrs
import pytest
from hypothesis import given

import contentblocks as cb
import strategies

ALL_CLASSES = [
    cb.TextBlock, cb.RefusalBlock, cb.FileBlock, cb.ReasoningBlock, cb.ToolCallBlock, cb.ToolResultBlock,
    cb.JsonBlock, cb.Citation, cb.CitedUri, cb.CitedReference, cb.BytesSource, cb.UrlSource, cb.ReferenceSource,
    cb.Message, cb.Conversation,
]


def _walk(obj):
    """Every attrs instance reachable from ``obj`` (itself included)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if attrs.has(type(item)):
            yield item
            stack.extend(getattr(item, a.name) for a in attrs.fields(type(item)))
        elif type(item) is tuple:
            stack.extend(item)


def _json_containers(value):
    """Every container inside a JSON value held by a block (the value itself included)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(dict.values(item))
        elif isinstance(item, list):
            yield item
            stack.extend(list.__iter__(item))


def _held_json(block):
    for obj in _walk(block):
        for name in ("input", "value", "metadata"):
            if hasattr(obj, name) and name in attrs.fields_dict(type(obj)):
                yield getattr(obj, name)


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_classes_are_frozen_and_slotted(cls):
    """Every class is frozen and slotted, so no instance has a __dict__ to grow."""
    assert "__slots__" in cls.__dict__
    assert cls.__setattr__ is not object.__setattr__


@given(strategies.messages())
def test_no_attribute_can_be_reassigned_or_added(message):
    """Setting, deleting or adding any attribute of anything in a message raises."""
    for obj in _walk(message):
        for field in attrs.fields(type(obj)):
            with pytest.raises(AttributeError):
                setattr(obj, field.name, getattr(obj, field.name))
            with pytest.raises(AttributeError):
                delattr(obj, field.name)
        with pytest.raises(AttributeError):
            obj.brand_new_attribute = 1


@given(strategies.messages())
def test_sequences_are_tuples(message):
    """content, citations and messages are tuples, even when lists were passed in."""
    assert type(message.content) is tuple
    for obj in _walk(message):
        for name in ("content", "citations", "messages"):
            if name in attrs.fields_dict(type(obj)):
                assert type(getattr(obj, name)) is tuple


def test_lists_passed_in_become_tuples():
    """Lists given to the constructors are copied into tuples."""
    citation = cb.Citation(source=cb.CitedUri(value="https://a.example"))
    text = cb.TextBlock(text="a", citations=[citation])
    result = cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="failed", content=[text])
    message = cb.Message(role="user", content=[text])
    conversation = cb.Conversation(messages=[message])
    assert type(text.citations) is tuple
    assert type(result.content) is tuple
    assert type(message.content) is tuple
    assert type(conversation.messages) is tuple


_DICT_MUTATIONS = [
    ("setitem", lambda d: d.__setitem__("k", 1)),
    ("delitem", lambda d: d.__delitem__(next(iter(d), "k"))),
    ("clear", lambda d: d.clear()),
    ("pop", lambda d: d.pop(next(iter(d), "k"), None)),
    ("popitem", lambda d: d.popitem()),
    ("setdefault", lambda d: d.setdefault("k", 1)),
    ("update", lambda d: d.update({"k": 1})),
    ("update-kwargs", lambda d: d.update(k=1)),
    ("ior", lambda d: d.__ior__({"k": 1})),
]
_LIST_MUTATIONS = [
    ("setitem", lambda a: a.__setitem__(0, 1)),
    ("setslice", lambda a: a.__setitem__(slice(0, 0), [1])),
    ("delitem", lambda a: a.__delitem__(0)),
    ("delslice", lambda a: a.__delitem__(slice(None))),
    ("append", lambda a: a.append(1)),
    ("extend", lambda a: a.extend([1])),
    ("insert", lambda a: a.insert(0, 1)),
    ("pop", lambda a: a.pop()),
    ("remove", lambda a: a.remove(a[0] if a else 1)),
    ("clear", lambda a: a.clear()),
    ("sort", lambda a: a.sort()),
    ("reverse", lambda a: a.reverse()),
    ("iadd", lambda a: a.__iadd__([1])),
    ("imul", lambda a: a.__imul__(2)),
]


@pytest.mark.parametrize(("name", "mutate"), _DICT_MUTATIONS, ids=[n for n, _ in _DICT_MUTATIONS])
def test_json_objects_cannot_be_mutated(name, mutate):
    """Every mutating method of a JsonObject inside a block raises TypeError and changes nothing."""
    block = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={"a": {"b": 1}}, metadata={"m": {"n": 2}})
    before = cb.unstructure(block)
    for target in (block.input, block.input["a"], block.metadata, block.metadata["m"]):
        with pytest.raises(TypeError):
            mutate(target)
    assert cb.unstructure(block) == before


@pytest.mark.parametrize(("name", "mutate"), _LIST_MUTATIONS, ids=[n for n, _ in _LIST_MUTATIONS])
def test_json_arrays_cannot_be_mutated(name, mutate):
    """Every mutating method of a JsonArray inside a block raises TypeError and changes nothing."""
    block = cb.JsonBlock(value=[[3, 1, 2], {"x": [5, 4]}], metadata={"m": [1, 2]})
    before = cb.unstructure(block)
    for target in (block.value, block.value[0], block.value[1]["x"], block.metadata["m"]):
        with pytest.raises(TypeError):
            mutate(target)
    assert cb.unstructure(block) == before


def test_in_place_operators_do_not_rebind_inside_blocks():
    """`+=` and `|=` on a held value raise instead of mutating (the block keeps its value)."""
    block = cb.JsonBlock(value={"a": [1]})
    arr = block.value["a"]
    with pytest.raises(TypeError):
        arr += [2]
    obj = block.value
    with pytest.raises(TypeError):
        obj |= {"b": 2}
    assert cb.unstructure(block) == {"type": "json", "value": {"a": [1]}}


def test_read_only_containers_cannot_be_built_directly():
    """JsonObject and JsonArray are built by the library only."""
    with pytest.raises(TypeError):
        cb.JsonObject({"a": 1})
    with pytest.raises(TypeError):
        cb.JsonArray([1])


def test_copy_method_gives_a_plain_mutable_copy():
    """JsonObject.copy() returns a plain dict; changing it leaves the block alone."""
    block = cb.JsonBlock(value={"a": 1})
    plain = block.value.copy()
    assert type(plain) is dict
    plain["a"] = 2
    assert block.value["a"] == 1


@given(strategies.blocks())
def test_every_held_json_container_is_read_only(block):
    """Every container of every JSON value in a generated block is a JsonObject or JsonArray."""
    for value in _held_json(block):
        for container in _json_containers(value):
            assert type(container) in (cb.JsonObject, cb.JsonArray)
            with pytest.raises(TypeError):
                container.clear()


# ---------------------------------------------------------------------------------------------- aliasing


def test_constructor_does_not_alias_caller_containers():
    """Changing the dicts and lists passed to a constructor afterwards does not change the block."""
    value = {"a": [1, {"b": 2}], "c": {}}
    meta = {"app/x": [1]}
    block = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=value, metadata=meta)
    value["a"][1]["b"] = 99
    value["a"].append(3)
    value["c"]["new"] = 1
    value["z"] = 0
    meta["app/x"].append(2)
    meta["app/y"] = 1
    assert cb.unstructure(block) == {
        "type": "tool_call", "tool_call_id": "c", "tool_name": "f",
        "input": {"a": [1, {"b": 2}], "c": {}}, "metadata": {"app/x": [1]},
    }


def test_constructor_does_not_alias_caller_sequences():
    """Changing the lists of citations, content or messages after construction does not change the block."""
    text = cb.TextBlock(text="a")
    content = [text]
    message = cb.Message(role="user", content=content)
    content.append(cb.TextBlock(text="b"))
    messages = [message]
    conversation = cb.Conversation(messages=messages)
    messages.clear()
    assert len(message.content) == 1
    assert len(conversation) == 1


def test_bytes_are_copied_from_mutable_buffers():
    """A bytearray given as file data is copied: changing it later does not change the block."""
    buffer = bytearray(b"abc")
    source = cb.BytesSource(data=buffer)
    redacted = bytearray(b"xyz")
    reasoning = cb.ReasoningBlock(redacted=redacted)
    buffer[0] = ord("Z")
    redacted[0] = ord("Z")
    assert source.data == b"abc"
    assert type(source.data) is bytes
    assert reasoning.redacted == b"xyz"


def test_structure_does_not_alias_raw_input():
    """Changing the raw dict after structuring does not change the block."""
    raw = {
        "role": "assistant",
        "content": [
            {"type": "tool_call", "tool_call_id": "c", "tool_name": "f", "input": {"a": [1]}, "metadata": {"k": {"v": 1}}},
            {"type": "json", "value": [{"x": 1}]},
        ],
        "metadata": {"m": [1]},
    }
    message = cb.structure(raw, cb.Message)
    expected = cb.unstructure(message)
    raw["content"][0]["input"]["a"].append(2)
    raw["content"][0]["metadata"]["k"]["v"] = 2
    raw["content"][1]["value"][0]["x"] = 2
    raw["content"].append({"type": "text", "text": "later"})
    raw["metadata"]["m"].clear()
    assert cb.unstructure(message) == expected
    assert len(message.content) == 2


@given(strategies.blocks())
def test_unstructure_output_is_a_fresh_copy(block):
    """Mutating everything unstructure returned does not change the block, and each call returns new containers."""
    before = cb.dumps(block)
    out = cb.unstructure(block)
    second = cb.unstructure(block)
    for container in _json_containers(out):
        assert type(container) in (dict, list)
        assert all(container is not other for other in _json_containers(second))
        if type(container) is dict:
            container["mutated"] = True
        else:
            container.append("mutated")
    assert cb.dumps(block) == before


def test_unstructured_json_values_are_plain():
    """JSON values come out as plain dicts and lists, never the block's read-only containers."""
    block = cb.JsonBlock(value={"a": [{"b": []}]}, metadata={"m": {}})
    out = cb.unstructure(block)
    assert type(out["value"]) is dict
    assert type(out["value"]["a"]) is list
    assert type(out["value"]["a"][0]) is dict
    assert out["value"] is not block.value
    out["value"]["a"][0]["b"].append(1)
    assert block.value["a"][0]["b"] == []


# ---------------------------------------------------------------------------------------------- threads


def test_threads_reading_one_block_see_the_same_thing():
    """Many threads hashing, comparing and unstructuring one freshly built block all get the same answers."""
    for _ in range(20):
        value = {"k": list(range(200)), "nested": {"a": [{"b": i} for i in range(50)]}}
        block = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=value, metadata={"m": value})
        twin = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=value, metadata={"m": value})
        barrier = threading.Barrier(8)
        results = []
        lock = threading.Lock()

        def read(block=block, twin=twin, barrier=barrier, results=results, lock=lock):
            barrier.wait()
            answer = (hash(block), block == twin, cb.dumps(block))
            with lock:
                results.append(answer)

        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 8
        assert len(set(results)) == 1
        assert results[0][1] is True
        assert results[0][0] == hash(twin)
