"""The module-level API's arguments: a wrong kind of argument is a TypeError that says what was expected and what
came; wrong data is a ValidationError with paths, never a cattrs exception group or a misleading message."""

from __future__ import annotations

import json

import pytest

import contentblocks as cb

MESSAGE = {"role": "user", "content": "hi"}
BAD_MESSAGE = {"role": "robot", "content": ""}


@pytest.mark.parametrize("data", [{"type": "text", "text": "hi"}, None, [1], memoryview(b"{}"), 1, 1.5, object()])
def test_loads_of_something_not_json_text_is_a_type_error(data: object) -> None:
    """cb.loads(x) of a non-text argument says it expected JSON text and names what came, not a parse problem."""
    with pytest.raises(TypeError, match=r"loads\(\) expected JSON text \(str, bytes or bytearray\), got ") as info:
        cb.loads(data)  # type: ignore[arg-type]
    assert ("None" if data is None else type(data).__name__) in str(info.value)


def test_loads_of_a_dict_hints_at_structure() -> None:
    """A dict given to loads is already parsed: the error points to cb.structure."""
    with pytest.raises(TypeError, match=r"cb\.structure"):
        cb.loads({"type": "text", "text": "hi"})  # type: ignore[arg-type]


@pytest.mark.parametrize("target", [str, int, dict, list, "Message", None, list[str], tuple[cb.Message, ...],
                                    list[list[cb.Message]], dict[str, cb.Message], cb.Message | None])
def test_structure_to_a_type_it_does_not_build_is_a_type_error(target: object) -> None:
    """cb.structure and cb.loads to a type that is not one of the library's refuse it, naming the types they take."""
    with pytest.raises(TypeError, match=r"structure\(\) builds cb\.Block, cb\.Message, cb\.Conversation"):
        cb.structure(MESSAGE, target)
    with pytest.raises(TypeError, match=r"loads\(\) builds cb\.Block, cb\.Message, cb\.Conversation"):
        cb.loads(json.dumps(MESSAGE), target)


@pytest.mark.parametrize("target", [list[cb.Message], list[cb.Block], list[cb.TextBlock]])
def test_structure_to_a_list_of_library_types_builds_a_list(target: object) -> None:
    """list[cb.Message] (or of any type structure builds) gives a list, each item checked alone (no pairing)."""
    raw = [MESSAGE, MESSAGE] if target == list[cb.Message] else [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    built = cb.structure(raw, target)
    assert type(built) is list
    assert [cb.unstructure(item) for item in built] == [cb.unstructure(cb.structure(r, get_item(target))) for r in raw]
    assert cb.loads(json.dumps(raw), target) == built


def get_item(target: object) -> object:
    return target.__args__[0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("call", [
    lambda raw: cb.structure(raw, list[cb.Message]),
    lambda raw: cb.loads(json.dumps(raw), list[cb.Message]),
])
def test_a_list_of_messages_with_problems_is_one_validation_error(call) -> None:
    """Problems of every item of list[cb.Message] come in one ValidationError, each path under its index."""
    with pytest.raises(cb.ValidationError) as info:
        call([MESSAGE, BAD_MESSAGE, 3])
    paths = [path for path, _ in info.value.errors]
    assert paths == ["$[1].role", "$[1].content", "$[2]"]


def test_a_list_target_needs_an_array() -> None:
    """list[cb.Message] of an object is a ValidationError at $, as a conversation's would be."""
    with pytest.raises(cb.ValidationError, match=r"\$: expected an array"):
        cb.structure(MESSAGE, list[cb.Message])


def test_structure_of_a_valid_value_still_works_for_every_public_target() -> None:
    """The types structure builds: the unions, every block, source and citation class, Message, Conversation."""
    assert isinstance(cb.structure(MESSAGE, cb.Message), cb.Message)
    assert isinstance(cb.structure({"type": "text", "text": "a"}, cb.Block), cb.TextBlock)
    assert isinstance(cb.structure({"type": "text", "text": "a"}, cb.TextBlock), cb.TextBlock)
    assert isinstance(cb.structure([MESSAGE], cb.Conversation), cb.Conversation)
    assert isinstance(cb.structure({"type": "base64", "data": "AA=="}, cb.FileSource), cb.BytesSource)
    assert isinstance(cb.structure({"kind": "uri", "value": "urn:x"}, cb.CitationSource), cb.CitedUri)
    assert isinstance(cb.structure({"type": "json", "value": 1}, cb.ToolResultContent), cb.JsonBlock)
