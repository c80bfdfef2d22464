"""JSON values: the read-only containers blocks hold, thawing them, and their canonical equality key.

A JSON value inside a block is built from :class:`JsonObject` and :class:`JsonArray`, read-only subclasses
of ``dict`` and ``list``: they compare equal to plain dicts and lists, ``json`` and ``orjson`` write them as
they are, and neither the caller's containers nor the block's can be changed through the other. ``_freeze``
validates a value and makes its read-only copy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

__all__ = [
    "JsonArray",
    "JsonObject",
    "JsonValue",
    "json_key",
    "plain_container",
    "thaw",
]

JsonValue: TypeAlias = "bool | int | float | str | JsonArray | JsonObject | list[Any] | dict[str, Any] | None"
"""A JSON value: what ``input``, ``value`` and metadata values hold (``tuple`` counts as an array)."""

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1


def _read_only(_self: object, *_args: object, **_kwargs: object) -> NoReturn:
    msg = "JSON values inside blocks are read-only; copy() gives a mutable plain copy"
    raise TypeError(msg)


class JsonObject(dict[str, Any]):
    """A read-only JSON object, as held inside blocks.

    It is a ``dict`` for reading, comparison and serialisation; every mutating method raises ``TypeError``.
    ``copy()`` returns a plain, mutable ``dict`` (shallow); ``copy.copy`` and ``copy.deepcopy`` return the
    object itself, since it cannot change.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={"city": "Paris"})
    >>> call.input["city"]
    'Paris'
    >>> call.input["city"] = "Rome"
    Traceback (most recent call last):
    TypeError: JSON values inside blocks are read-only; copy() gives a mutable plain copy
    """

    __slots__ = ("_key",)

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        msg = "JsonObject is built by the library; pass a plain dict to a block instead"
        raise TypeError(msg)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __copy__(self) -> JsonObject:
        return self

    def __deepcopy__(self, memo: object) -> JsonObject:
        return self

    def __reduce__(self) -> tuple[Callable[[list[tuple[str, Any]]], JsonObject], tuple[list[tuple[str, Any]]]]:
        return (_object_from_items, (list(dict.items(self)),))

    def __repr__(self) -> str:
        return f"JsonObject({dict.__repr__(self)})"


class JsonArray(list[Any]):
    """A read-only JSON array, as held inside blocks: a ``list`` for reading, every mutator raises ``TypeError``."""

    __slots__ = ("_key",)

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        msg = "JsonArray is built by the library; pass a plain list to a block instead"
        raise TypeError(msg)

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _read_only
    __iadd__ = __imul__ = _read_only

    def __copy__(self) -> JsonArray:
        return self

    def __deepcopy__(self, memo: object) -> JsonArray:
        return self

    def __reduce__(self) -> tuple[Callable[[list[Any]], JsonArray], tuple[list[Any]]]:
        return (_array_from_items, (list.copy(self),))

    def __repr__(self) -> str:
        return f"JsonArray({list.__repr__(self)})"


_new_object = JsonObject.__new__
_new_array = JsonArray.__new__
_dict_init = dict.__init__
_list_init = list.__init__


def _object_from_items(items: list[tuple[str, Any]]) -> JsonObject:
    obj = _new_object(JsonObject)
    _dict_init(obj, items)
    return obj


def _array_from_items(items: list[Any]) -> JsonArray:
    arr = _new_array(JsonArray)
    _list_init(arr, items)
    return arr


EMPTY_OBJECT = _object_from_items([])
_NO_KEY: Any = object()


def plain_container(value: Any) -> tuple[int, Any]:
    """``(1, obj)`` for an object, ``(2, seq)`` for an array, ``(0, value)`` for anything else.

    A subclass of ``dict``, ``list`` or ``tuple`` is copied through the base class's own C methods, so none
    of its overrides (``__iter__``, ``__len__``, ``keys``...) runs; only the real type is consulted, never
    ``__class__``.
    """
    t = type(value)
    if t is dict or t is JsonObject:
        return 1, value
    if t is list or t is tuple or t is JsonArray:
        return 2, value
    if issubclass(t, dict):
        return 1, dict(dict.items(value))
    if issubclass(t, list):
        return 2, list(list.__iter__(value))
    if issubclass(t, tuple):
        return 2, list(tuple.__iter__(value))
    return 0, value


def thaw(value: Any) -> Any:
    """A plain ``dict``/``list`` deep copy of a JSON value held in a block (scalars are returned as they are).

    Containers are copied at C speed one level at a time, walking with an explicit stack; scalars are
    immutable and shared. A container holding no container is copied in one C call. The converter tries the C
    accelerator's copy first (``_kernels.thaw``); this walk remains for values nested deeper than it recurses.
    """
    t = type(value)
    if t is JsonObject:
        if _FROZEN_TYPES.isdisjoint(map(type, dict.values(value))):
            return dict(value)
        root: Any = dict(value)
    elif t is JsonArray:
        if _FROZEN_TYPES.isdisjoint(map(type, value)):
            return list(value)
        root = list(value)
    else:
        return value
    stack = [root]
    push = stack.append
    while stack:
        container = stack.pop()
        pairs = container.items() if type(container) is dict else enumerate(container)
        for key, item in pairs:
            t = type(item)
            if t is JsonObject:
                copy: Any = dict(item)
            elif t is JsonArray:
                copy = list(item)
            else:
                continue
            container[key] = copy
            push(copy)
    return root


_FROZEN_TYPES = frozenset({JsonObject, JsonArray})
_key_dumps = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":"), sort_keys=True
).encode


def json_key(value: Any) -> str:
    """A string that is equal for two JSON values exactly when their wire forms are equal.

    ``1``, ``1.0`` and ``true`` get different keys (``==`` in Python says they are equal); object key order
    does not matter. The key of a read-only container is computed once and cached.
    """
    t = type(value)
    if t is JsonObject or t is JsonArray:
        try:
            return value._key  # type: ignore[no-any-return]
        except AttributeError:
            key = _key_dumps(value)
            object.__setattr__(value, "_key", key)
            return key
    return _key_dumps(value)
