"""The rules of citable documents and citation locations (docs/wire-format.md, "Citation locations").

Each test breaks one rule and checks the error names it at its path, through the classes and through the
converter alike; the round trips of drawn values are in test_properties.py.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

import contentblocks as cb

URI = {"kind": "uri", "value": "https://example.com/report"}
FILE = {"type": "file", "media_type": "text/plain", "source": {"type": "base64", "data": ""}}


def cited(location: Any) -> dict[str, Any]:
    return {"type": "text", "text": "Grass is green.", "citations": [{"source": URI, "location": location}]}


def problems(value: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(cb.ValidationError) as info:
        cb.structure(value, cb.Block)
    return [(path, message) for path, message in info.value.errors]


def schema_accepts(value: dict[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(cb.json_schema(cb.Block)).is_valid(value)


@pytest.mark.parametrize(
    ("location", "cls"),
    [
        ({"kind": "pages", "start": 3, "end": 4}, cb.PageRange),
        ({"kind": "characters", "start": 0, "end": 15}, cb.CharacterRange),
        ({"kind": "blocks", "start": 1, "end": 3}, cb.BlockRange),
    ],
)
def test_each_location_kind_round_trips(location: dict[str, Any], cls: type) -> None:
    """A location is a tagged object: its kind picks the class, and it is written back as it came."""
    block = cb.structure(cited(location), cb.Block)
    assert type(block.citations[0].location) is cls
    assert cb.unstructure(block) == cited(location)
    assert schema_accepts(cited(location))


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ({"kind": "pages", "start": 0, "end": 2}, [("$.citations[0].location.start", "must be 1 or more")]),
        ({"kind": "characters", "start": -1, "end": 2}, [("$.citations[0].location.start", "must be 0 or more")]),
        (
            {"kind": "blocks", "start": 2, "end": 2},
            [("$.citations[0].location", "a range must satisfy start < end (end is excluded): it is never empty")],
        ),
        (
            {"kind": "pages", "start": 5, "end": 3},
            [("$.citations[0].location", "a range must satisfy start < end (end is excluded): it is never empty")],
        ),
        ({"kind": "characters", "start": True, "end": 2}, [("$.citations[0].location.start", None)]),
        ({"kind": "characters", "start": 1.0, "end": 2}, [("$.citations[0].location.start", None)]),
        ({"kind": "pages", "start": 1}, [("$.citations[0].location.end", None)]),
        (
            {"kind": "blocks", "start": 0, "end": 2**64},  # no JSON encoder need write more than 64 bits
            [("$.citations[0].location.end", "must be at most 2**64-1, the largest integer JSON values hold")],
        ),
        ({"kind": "lines", "start": 1, "end": 2}, [("$.citations[0].location.kind", None)]),
        ({"start": 1, "end": 2}, [("$.citations[0].location.kind", None)]),
        (None, [("$.citations[0].location", "null is not allowed; omit the key instead")]),
    ],
)
def test_a_broken_location_is_refused_at_its_path(location: Any, expected: list[tuple[str, str | None]]) -> None:
    """Pages from 1, characters and blocks from 0, ints only, never empty, a known kind, never null."""
    found = problems(cited(location))
    assert [path for path, _ in found] == [path for path, _ in expected]
    for (_, message), (_, wanted) in zip(found, expected, strict=True):
        assert wanted is None or message == wanted
    # JSON Schema cannot compare two fields (start < end is a $comment there) and counts 1.0 as an integer
    schema_blind = isinstance(location, dict) and {"start", "end"} <= location.keys() and (
        type(location["start"]) is float or location["start"] >= location["end"]
    )
    assert schema_accepts(cited(location)) is schema_blind


@pytest.mark.parametrize(("cls", "start", "end"), [(cb.PageRange, 0, 1), (cb.CharacterRange, 3, 3), (cb.BlockRange, 2, 1)])
def test_the_classes_check_the_same_rules(cls: type, start: int, end: int) -> None:
    """Building a range in Python checks what structuring checks."""
    with pytest.raises(cb.ValidationError):
        cls(start=start, end=end)


@pytest.mark.parametrize("flag", [1, 0, "true", None, []])
def test_citable_is_a_boolean_or_absent(flag: Any) -> None:
    """``citable`` takes ``true`` or ``false``; ``1`` is no boolean and ``null`` is written by leaving it out."""
    assert [path for path, _ in problems({**FILE, "citable": flag})] == ["$.citable"]
    assert not schema_accepts({**FILE, "citable": flag})


def test_a_document_round_trips_its_title_context_and_flag() -> None:
    """The document fields are written only when set, and read back the same."""
    raw = {**FILE, "title": "Field notes", "context": "Written in May", "citable": False}
    block = cb.structure(raw, cb.Block)
    assert (block.title, block.context, block.citable) == ("Field notes", "Written in May", False)
    assert cb.unstructure(block) == raw
    assert cb.unstructure(cb.structure(FILE, cb.Block)) == FILE
    assert schema_accepts(raw)


@pytest.mark.parametrize(("name", "value"), [("title", " padded"), ("title", ""), ("context", "")])
def test_document_text_follows_the_title_and_text_rules(name: str, value: str) -> None:
    """A title has no surrounding spaces and is not empty; a context is not empty."""
    assert [path for path, _ in problems({**FILE, name: value})] == [f"$.{name}"]
