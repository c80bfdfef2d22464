r"""The shapes of provider types, written once: reading every dump form as wire JSON, and checking what is sent.

An SDK's pydantic model reaches a user in several forms: ``model_dump()`` (Python names, bytes as ``bytes``,
enums as members, every unset field as ``None``), ``model_dump(mode="json")`` (bytes as URL-safe base64),
``by_alias=True`` (the wire's names), google-genai's ``to_json_dict()``. Reading each of them by hand is how
an adapter ends up silently wrong on one. Here a ``Struct`` lists the fields of one provider type by their wire
names, and ``canonical`` turns any of those forms into one: wire names (a field's Python name is accepted for
it), ``None`` left out (an explicit null is an absent optional field), bytes as standard base64, enum members
as their values. A key the table does not name is refused with its path, never dropped.

The same vocabulary states each adapter's allow-list, the request fields that metadata may fill at a position:
``fits`` says whether a value kept in metadata is exactly a valid wire value of its field, so that a stored
``cache_control`` of ``5`` stays local instead of breaking the request.

>>> blob = Struct("Blob", {"data": BYTES, "mimeType": STR})
>>> canonical({"mime_type": "image/png", "data": b"\xfb\xff", "display": None}, blob, "$.inlineData")
{'mimeType': 'image/png', 'data': '+/8='}
>>> canonical({"mimeType": "image/png", "data": "-_8="}, blob, "$.inlineData")
{'mimeType': 'image/png', 'data': '+/8='}
>>> canonical({"mimeType": "image/png", "size": 3}, blob, "$.inlineData")
Traceback (most recent call last):
contentblocks.ValidationError: $.inlineData.size: unknown key (a Blob has: data, mimeType)
>>> cache_control = Struct("CacheControl", {"type": Choice("ephemeral"), "ttl": Choice("5m", "1h")}, required={"type"})
>>> fits({"type": "ephemeral", "ttl": "1h"}, cache_control), fits({"ttl": "1h"}, cache_control)
(True, False)
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

import attrs

from .._errors import ValidationError
from .._json._values import thaw
from ._toolkit import b64decode, b64encode, fail

__all__ = [
    "BOOL",
    "BYTES",
    "FLOAT",
    "INT",
    "JSON",
    "OBJECT",
    "STR",
    "Choice",
    "Kind",
    "ListOf",
    "Nullable",
    "OneOf",
    "Struct",
    "canonical",
    "fits",
    "pick",
    "scalar",
    "snake",
    "standard_base64",
]

#: Scalar kinds: a string (an enum's value included), a boolean, an integer, a number, bytes (base64 on the
#: wire), any JSON value and a JSON object (both left as they are: a tool's arguments, ``_meta``).
STR, BOOL, INT, FLOAT, BYTES, JSON, OBJECT = "str", "bool", "int", "float", "bytes", "json", "object"

_SCALARS: dict[str, tuple[type, ...]] = {STR: (str,), BOOL: (bool,), INT: (int,), FLOAT: (int, float)}
_NAMES = {STR: "a string", BOOL: "a boolean", INT: "an integer", FLOAT: "a number", OBJECT: "an object"}
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_URLSAFE = str.maketrans("-_", "+/")


@functools.lru_cache(maxsize=1024)  # wire names are few and read again for every part of every chunk
def snake(wire: str) -> str:
    """The Python name an SDK gives a wire field: ``thoughtSignature`` -> ``thought_signature``, ``_meta`` -> ``meta``.

    >>> snake("thoughtSignature"), snake("_meta"), snake("uri")
    ('thought_signature', 'meta', 'uri')
    """
    return _CAMEL_HUMP.sub("_", wire.lstrip("_")).lower()


def _names(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@attrs.frozen(eq=False)
class Struct:
    """A provider type: its name and its fields by wire name, each with its kind.

    ``required`` names the fields the type cannot do without (a request type's ``Required`` keys). ``open``
    types keep a key they do not name as it is (for reports such as token counts, where a new count should not
    fail a reply); the others refuse it.
    """

    name: str
    fields: Mapping[str, Kind]
    required: frozenset[str] = attrs.field(default=frozenset(), converter=_names, kw_only=True)
    open: bool = attrs.field(default=False, kw_only=True)
    lookup: Mapping[str, str] = attrs.field(init=False)

    @lookup.default
    def _lookup(self) -> dict[str, str]:
        names = {snake(wire): wire for wire in self.fields}
        names.update({wire: wire for wire in self.fields})
        return names


@attrs.frozen(eq=False)
class ListOf:
    """A list whose items are all of one kind."""

    item: Kind


@attrs.frozen(eq=False)
class OneOf:
    """One of several structs, ``members``; ``choose`` picks the member for a value (``None`` when none fits)."""

    name: str
    members: tuple[Struct, ...]
    choose: Callable[[Mapping[str, Any]], Struct | None]


@attrs.frozen(eq=False, init=False)
class Choice:
    """A string from a fixed set (a ``Literal`` of the request type): ``Choice("ephemeral")``."""

    values: frozenset[str]

    def __init__(self, *values: str) -> None:
        self.__attrs_init__(frozenset(values))


@attrs.frozen(eq=False)
class Nullable:
    """``null`` or a value of ``kind``: a field whose request type is ``X | None`` and where ``null`` is sent.

    Inside a ``Struct`` a ``null`` member is an absent field, as everywhere; ``Nullable`` matters for a value
    checked on its own (a metadata value written back as a field, one field of a citation).
    """

    kind: Kind


Kind: TypeAlias = "str | Struct | ListOf | OneOf | Choice | Nullable"


def scalar(value: object) -> object:
    """An enum member as its value (what ``model_dump()`` leaves in place of the wire string); else the value."""
    return value.value if isinstance(value, enum.Enum) else value


def standard_base64(value: object, path: str) -> str:
    r"""Standard padded base64 text for bytes, or for canonical base64 text in either alphabet.

    The REST wire writes the standard alphabet, pydantic's JSON dumps the URL-safe one: both are read, and one
    text comes out, so that every dump form of one object reads the same.

    >>> standard_base64("-_8=", "$.data"), standard_base64(b"\xfb\xff", "$.data")
    ('+/8=', '+/8=')
    >>> standard_base64("+_8=", "$.data")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.data: base64 mixing the standard and URL-safe alphabets
    """
    if isinstance(value, (bytes, bytearray)):
        return b64encode(bytes(value))
    if type(value) is str and ("-" in value or "_" in value):
        if "+" in value or "/" in value:
            raise fail(path, "base64 mixing the standard and URL-safe alphabets")
        value = value.translate(_URLSAFE)
    b64decode(value, path)
    return value  # type: ignore[return-value]


def canonical(value: object, kind: Kind, path: str) -> Any:
    """``value``, of ``kind``, in its one wire form; a ``ValidationError`` at ``path`` when it is not of it."""
    if isinstance(kind, Struct):
        return _struct(value, kind, path)
    if isinstance(kind, ListOf):
        if not isinstance(value, (list, tuple)):
            raise fail(path, "expected an array")
        return [canonical(item, kind.item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(kind, OneOf):
        member = kind.choose(value) if isinstance(value, Mapping) else None
        if member is None:
            raise fail(path, f"expected a {kind.name}")
        return _struct(value, member, path)
    if isinstance(kind, Nullable):
        return None if value is None else canonical(value, kind.kind, path)
    if isinstance(kind, Choice):
        value = scalar(value)
        if type(value) is not str or value not in kind.values:
            raise fail(path, f"expected one of: {', '.join(sorted(kind.values))}")
        return value
    if kind == BYTES:
        return standard_base64(value, path)
    if kind == JSON:
        return value
    if kind == OBJECT:
        if not isinstance(value, Mapping):
            raise fail(path, "expected an object")
        return value
    value = scalar(value)
    if type(value) not in _SCALARS[kind]:
        raise fail(path, f"expected {_NAMES[kind]}")
    return value


def _struct(value: object, struct: Struct, path: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(path, "expected an object")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        wire = struct.lookup.get(key) if type(key) is str else None
        if wire is None:
            if struct.open and type(key) is str:
                out[key] = item
                continue
            raise fail(f"{path}.{key}", f"unknown key (a {struct.name} has: {', '.join(struct.fields)})")
        if wire in out:
            raise fail(f"{path}.{key}", f"the field {wire} is given twice")
        out[wire] = canonical(item, struct.fields[wire], f"{path}.{wire}")
    for wire in struct.required:
        if wire not in out:
            raise fail(f"{path}.{wire}", "required field missing")
    return out


def fits(value: object, kind: Kind) -> bool:
    """Whether ``value`` (as metadata holds it) is exactly a wire value of ``kind``, so it may be sent as is.

    >>> fits({"fps": 2.0}, Struct("VideoMetadata", {"fps": FLOAT})), fits({"fps": "2"}, Struct("V", {"fps": FLOAT}))
    (True, False)
    >>> fits(None, Nullable(STR)), fits(None, STR), fits("low", Choice("low", "high")), fits("huge", Choice("low"))
    (True, False, True, False)
    """
    plain = thaw(value)
    try:
        return bool(canonical(plain, kind, "$") == plain)
    except ValidationError:
        return False


def pick(raw: object, wire: str) -> Any:
    """The field ``wire`` of an object in any dump form (its wire or Python name), or ``None``.

    For reading the parts of a response that are not checked against a table (its candidates, their grounding).

    >>> pick({"finish_reason": "STOP"}, "finishReason"), pick({"finishReason": None}, "finishReason"), pick(3, "x")
    ('STOP', None, None)
    """
    if not isinstance(raw, Mapping):
        return None
    value = raw.get(wire)
    if value is None:
        value = raw.get(snake(wire))
    return scalar(value)
