"""A strict walk of a request payload against an SDK's request TypedDicts: every key must be declared.

pydantic ignores keys a TypedDict does not declare, so validating a payload with a ``TypeAdapter`` cannot show
that an adapter wrote a field the provider does not have. This walk refuses them: it returns one problem per
undeclared key, missing required key or value of the wrong type, each with its path.

``walk(payload, anthropic.types.MessageParam)`` and the like; a union is satisfied when any member is (when
none is, the problems reported are those of the member of the value's ``type`` tag that comes closest).

The payload is JSON, as it is sent: where the SDK types a field ``bytes`` the JSON holds canonical standard
base64 text, and where it types an ``enum.Enum`` the JSON holds the enum's value. ``name`` maps a payload key to
the TypedDict key that declares it, for an SDK whose TypedDicts use Python names for the wire's camelCase ones
(google-genai's ``ContentDict`` has ``inline_data`` for ``inlineData``).
"""

from __future__ import annotations

import base64
import binascii
import collections.abc
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

import typing_extensions  # the SDKs annotate with its Required, NotRequired and ReadOnly

_WRAPPERS = {
    Required,
    NotRequired,
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing_extensions.ReadOnly,
}
_SEQUENCES = {list, tuple, collections.abc.Iterable, collections.abc.Sequence, typing.Iterable, typing.Sequence}
_MAPPINGS = {dict, collections.abc.Mapping, typing.Mapping}


def _strip(tp: Any) -> Any:
    while get_origin(tp) in _WRAPPERS or get_origin(tp) is typing.Annotated:
        tp = get_args(tp)[0]
    return tp


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__")


def _tag(tp: Any) -> Any:
    hint = get_type_hints(tp).get("type")
    hint = _strip(hint) if hint is not None else None
    return get_args(hint) if get_origin(hint) is Literal else None


def _same(key: str) -> str:
    return key


def _is_base64(value: Any) -> bool:
    """Whether ``value`` is canonical standard base64 text (padded, no stray characters), as JSON carries bytes."""
    if type(value) is not str:
        return False
    try:
        return base64.b64encode(base64.b64decode(value, validate=True)).decode("ascii") == value
    except binascii.Error:
        return False


def _is_enum_value(value: Any, tp: type[enum.Enum]) -> bool:
    """Whether ``value`` is a value the enum takes (a member, or what its constructor accepts, of the same type)."""
    if isinstance(value, tp):
        return True
    if type(value) not in {type(member.value) for member in tp}:
        return False
    try:
        tp(value)
    except ValueError:
        return False
    return True


def walk(  # noqa: PLR0912 - a branch per type form
    value: Any, tp: Any, path: str = "$", name: Callable[[str], str] = _same
) -> list[str]:
    """The problems of ``value`` against the type ``tp``: ``[]`` when it fits exactly."""
    tp = _strip(tp)
    if tp is Any or tp is object:
        return []
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _walk_union(value, get_args(tp), path, name)
    if origin is Literal:
        return (
            []
            if value in get_args(tp) and type(value) in {type(a) for a in get_args(tp)}
            else [f"{path}: {value!r} is not one of {get_args(tp)}"]
        )
    if _is_typeddict(tp):
        return _walk_typeddict(value, tp, path, name)
    if tp is type(None):
        return [] if value is None else [f"{path}: expected null"]
    if tp in (str, bool):
        return [] if type(value) is tp else [f"{path}: expected {tp.__name__}, got {type(value).__name__}"]
    if tp is int:
        return [] if type(value) is int else [f"{path}: expected int, got {type(value).__name__}"]
    if tp is float:
        return [] if type(value) in (int, float) else [f"{path}: expected float, got {type(value).__name__}"]
    if tp is bytes:
        return [] if _is_base64(value) else [f"{path}: expected canonical base64 text, got {type(value).__name__}"]
    if tp is typing.IO or origin is typing.IO:
        return [f"{path}: binary values are not JSON"]
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return [] if _is_enum_value(value, tp) else [f"{path}: {value!r} is not a value of {tp.__name__}"]
    if origin in _SEQUENCES or tp in _SEQUENCES:
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {type(value).__name__}"]
        args = get_args(tp)
        item = args[0] if args else Any
        return [p for i, v in enumerate(value) for p in walk(v, item, f"{path}[{i}]", name)]
    if origin in _MAPPINGS or tp in _MAPPINGS:
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        args = get_args(tp)
        item = args[1] if args else Any
        return [p for k, v in value.items() for p in walk(v, item, f"{path}.{k}", name)]
    if isinstance(tp, type):
        return [] if isinstance(value, tp) else [f"{path}: expected {tp.__name__}, got {type(value).__name__}"]
    return []  # a type form the walk does not know (a TypeVar, a Protocol): not checked


def _walk_union(value: Any, members: tuple[Any, ...], path: str, name: Callable[[str], str]) -> list[str]:
    results = []
    for member in members:
        problems = walk(value, member, path, name)
        if not problems:
            return []
        results.append((member, problems))
    if isinstance(value, dict) and "type" in value:
        tagged = [
            problems
            for member, problems in results
            if _is_typeddict(typeddict := _strip(member)) and (tags := _tag(typeddict)) and value["type"] in tags
        ]
        if tagged:  # the member of that tag that comes closest (several may share one)
            return min(tagged, key=len)
    return [f"{path}: fits none of {len(members)} types: " + "; ".join(p[0] for _, p in results[:4])]


def _required(tp: Any, hints: dict[str, Any]) -> list[str]:
    """The keys a TypedDict requires, read from its hints.

    ``__required_keys__`` cannot be trusted: where the SDK module uses ``from __future__ import annotations``,
    ``Required[...]`` is a string when the class is made, so the class counts every key by its totality alone.
    """
    required = []
    for key, hint in hints.items():
        wrappers, inner = set(), hint
        while get_origin(inner) in _WRAPPERS or get_origin(inner) is typing.Annotated:
            wrappers.add(get_origin(inner))
            inner = get_args(inner)[0]
        marked = bool(wrappers & {Required, typing_extensions.Required})
        optional = bool(wrappers & {NotRequired, typing_extensions.NotRequired})
        if marked or (tp.__total__ and not optional):
            required.append(key)
    return required


def _walk_typeddict(value: Any, tp: Any, path: str, name: Callable[[str], str]) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}"]
    hints = get_type_hints(tp, include_extras=True)
    declared: dict[str, str] = {}
    problems = []
    for key in value:
        field = name(key)
        if field in declared:
            problems.append(f"{path}.{key}: {tp.__name__} has {field!r} given twice ({declared[field]!r})")
        elif field not in hints:
            problems.append(f"{path}.{key}: {tp.__name__} has no field {field!r}")
        declared[field] = key
    problems.extend(f"{path}.{key}: {tp.__name__} requires it" for key in _required(tp, hints) if key not in declared)
    for field, key in declared.items():
        if field in hints:
            problems.extend(walk(value[key], hints[field], f"{path}.{key}", name))
    return problems
