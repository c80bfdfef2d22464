"""The strict request walk: undeclared keys, JSON forms of bytes and enums, and TypedDicts spelled in Python names."""

from __future__ import annotations

import enum
from typing import Literal, NotRequired, Optional, TypedDict

from providers.request_walk import walk


class Mode(enum.StrEnum):
    LOW = "LOW"
    HIGH = "HIGH"


class Lenient(enum.StrEnum):
    """An enum that takes values it does not know, as google-genai's do."""

    KNOWN = "KNOWN"

    @classmethod
    def _missing_(cls, value: object) -> Lenient | None:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = member._value_ = value
        return member


class BlobDict(TypedDict):
    data: NotRequired[Optional[bytes]]  # noqa: UP045 - spelled as the SDKs spell it
    mime_type: NotRequired[str]


class PartDict(TypedDict, total=False):
    inline_data: BlobDict
    mode: Mode
    lenient: Lenient
    kind: Literal["a", "b"]


def camel_to_python(key: str) -> str:
    return {"inlineData": "inline_data", "mimeType": "mime_type"}.get(key, key)


def test_undeclared_keys_are_refused_with_their_path():
    """A key the TypedDict does not declare is a problem at its own path; a declared one is not."""
    assert walk({"kind": "a"}, PartDict) == []
    assert walk({"kind": "a", "latency_ms": 3}, PartDict) == ["$.latency_ms: PartDict has no field 'latency_ms'"]


def test_bytes_are_canonical_base64_text():
    """At a ``bytes`` position the JSON holds canonical standard base64; anything else is refused."""
    assert walk({"data": "aGk="}, BlobDict) == []
    assert walk({"data": ""}, BlobDict) == []
    for bad in ("aGk", "aGk=\n", "-_8=", "aGl=", b"hi", 5):
        assert walk({"data": bad}, BlobDict) != [], bad


def test_enums_take_their_values():
    """At an ``enum.Enum`` position a member or a value the enum takes passes; another value or type is refused."""
    assert walk({"mode": "LOW"}, PartDict) == []
    assert walk({"mode": Mode.HIGH}, PartDict) == []
    assert walk({"mode": "MEDIUM"}, PartDict) == ["$.mode: 'MEDIUM' is not a value of Mode"]
    assert walk({"mode": 1}, PartDict) == ["$.mode: 1 is not a value of Mode"]
    assert walk({"lenient": "NEW"}, PartDict) == []  # the enum's own leniency, as the SDK validates it
    assert walk({"lenient": 2}, PartDict) != []


def test_keys_can_be_spelled_as_the_wire_spells_them():
    """With ``name``, a camelCase key is checked as the Python name the TypedDict declares, and paths keep the key."""
    part = {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}
    assert walk(part, PartDict, name=camel_to_python) == []
    assert walk({"inlineData": {"mimeType": 3}}, PartDict, name=camel_to_python) == [
        "$.inlineData.mimeType: expected str, got int"
    ]
    assert walk({"inlineData": {}, "inline_data": {}}, PartDict, name=camel_to_python) == [
        "$.inline_data: PartDict has 'inline_data' given twice ('inlineData')"
    ]
