"""The canonical bytes of a message: what a seal's MAC covers, identical whatever storage the message went through.

The canonical form is the message's wire form (what ``cb.unstructure`` gives) without the seal entry of its
metadata, as JSON text with every object's keys sorted by code point, compact separators, no NaN or
infinity, and every character outside printable ASCII escaped (``json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=True, allow_nan=False)``): pure ASCII, so its UTF-8 bytes are its
characters. ``docs/security.md`` states the form for other implementations.

Two paths give the same bytes. With the C accelerator, an unstructurer whose table lists each class's keys
in sorted order writes the wire objects' keys sorted, JSON values (the only objects whose keys the wire
format does not fix) are sorted in their fresh copies, and ``cb.dumps``' C writer writes the text, which is
byte for byte what the standard library's encoder writes; the standard library's encoder, told to sort keys,
is the reference and the fallback. The C path is several times faster on inline files, whose base64 text the
standard library's encoder copies a character at a time.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from .._api import unstructure
from .._gen import shapes
from .._kernels import MISS, speedups

__all__ = ["SEAL_KEY", "canonical_bytes", "reference_canonical_bytes"]

#: The message metadata key that holds a seal; the one entry a seal does not cover.
SEAL_KEY = "contentblocks/seal"

_reference_encode = json.JSONEncoder(
    ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":"), sort_keys=True
).encode


def _without_seal(wire: dict[str, Any]) -> dict[str, Any]:
    """The message's wire dict (a fresh copy) without its seal entry, and without ``metadata`` left empty."""
    metadata = wire.get("metadata")
    if metadata is not None and SEAL_KEY in metadata:
        del metadata[SEAL_KEY]
        if not metadata:
            del wire["metadata"]
    return wire


def reference_canonical_bytes(message: Any) -> bytes:
    """The canonical bytes by the standard library's encoder: the definition the fast path must match."""
    return _reference_encode(_without_seal(unstructure(message))).encode("ascii")


def _sort_json(value: Any) -> None:
    """Sort, in place, the keys of every object in a JSON value made of fresh plain dicts and lists."""
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is dict:
            keys = list(node)
            if len(keys) > 1:
                ordered = sorted(keys)
                if ordered != keys:
                    items = [(key, node[key]) for key in ordered]
                    node.clear()
                    node.update(items)
            children: Any = node.values()
        else:
            children = node
        for child in children:
            if type(child) is dict or type(child) is list:
                push(child)


_JSON_SHAPES = frozenset({"thawed", "nonempty_thawed"})
_OBJECT_SHAPES = frozenset({"object", "objects", "nonempty_objects"})

#: Per class, the fields to visit: ``(key, attribute, is_json)`` for each JSON value and each nested object.
Plans = dict[type, tuple[tuple[str, str, bool], ...]]


@functools.cache
def _plans() -> Plans:
    """Where JSON values sit, per class, derived from the unstructurer's table (classes without any are left out)."""
    plans: Plans = {}
    for cls, fields in shapes().items():
        visits = tuple(
            (key, attr, shape in _JSON_SHAPES)
            for shape, key, attr in fields
            if key is not None and (shape in _JSON_SHAPES or shape in _OBJECT_SHAPES)
        )
        if visits:
            plans[cls] = visits
    return plans


def _sort_json_values(obj: Any, wire: dict[str, Any], plans: Plans) -> None:
    """Sort the JSON values in ``wire``, the fresh wire dict of ``obj`` (whose own keys are sorted already).

    The object and its wire dict are walked side by side, so a JSON value is found by the field that holds
    it, never mistaken for a wire object. The walk goes as deep as the model nests (a tool result's blocks).
    """
    for key, attr, is_json in plans[type(obj)]:
        value = wire.get(key)
        if value is None:  # an omitted field: empty metadata
            continue
        if is_json:
            if type(value) is dict or type(value) is list:
                _sort_json(value)
            continue
        held = getattr(obj, attr)
        if type(held) is tuple:
            for item, item_wire in zip(held, value, strict=True):
                if type(item) in plans:
                    _sort_json_values(item, item_wire, plans)
        elif type(held) in plans:
            _sort_json_values(held, value, plans)


@functools.cache
def _sorted_walker() -> Callable[[Any], Any] | None:
    """The C unstructurer with each class's keys in sorted order (None without the accelerator)."""
    if speedups is None:
        return None
    table = {
        cls: fields if fields[0][0] == "list" else tuple(sorted(fields, key=lambda field: field[1] or ""))
        for cls, fields in shapes().items()
    }
    copy_json_values, binary_as_base64 = True, True
    return speedups.unstructurer(table, copy_json_values, binary_as_base64, MISS)  # type: ignore[no-any-return]


def canonical_bytes(message: Any) -> bytes:
    """The canonical bytes of a message (see the module's docstring): the fast path where it applies."""
    walk, write = _sorted_walker(), _write
    if walk is not None and write is not None:
        wire = walk(message)
        if wire is not MISS:
            _sort_json_values(message, wire, _plans())
            text = write(_without_seal(wire), MISS)
            if text is not MISS:
                return text.encode("ascii")  # type: ignore[no-any-return]
    return reference_canonical_bytes(message)


_write = speedups.dumps_ascii if speedups is not None else None
