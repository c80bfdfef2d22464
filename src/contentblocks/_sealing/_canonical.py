"""The canonical bytes of a message: what a seal's MAC covers, identical whatever storage the message went through.

The canonical form is the message's wire form (what ``cb.unstructure`` gives) without the seal entry of its
metadata (and without ``metadata`` when nothing else is left in it), as JSON text with every object's keys
sorted by code point, compact separators, and every character outside printable ASCII escaped:
``json.dumps(wire, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)``. The text
is pure ASCII, so its UTF-8 bytes are its characters. ``docs/security.md`` states the form for other
implementations.

Two writers give the same bytes, both on the wire dicts of the unstructure hook ``cb.dumps`` uses (JSON
values not copied). With the C accelerator, its JSON writer writes them with sorted keys, byte for byte what
the standard library's encoder writes, which is the reference and the fallback. The standard library's
encoder costs several times as much: it copies long strings (inline files' base64) a character at a time.
"""

from __future__ import annotations

import json
from typing import Any

from .._api import unstructure
from .._conversion._kernels import MISS, speedups
from .._conversion._unstructure import dump_hooks
from .._model._classes import Message

__all__ = ["SEAL_KEY", "canonical_bytes", "reference_canonical_bytes"]

#: The message metadata key that holds a seal; the one entry a seal does not cover.
SEAL_KEY = "contentblocks/seal"

_reference_encode = json.JSONEncoder(
    ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":"), sort_keys=True
).encode
_unstructure_message = dump_hooks(native_binary=False)[Message]
_write_sorted = speedups.dumps_ascii_sorted if speedups is not None else None


def _without_seal(wire: dict[str, Any]) -> dict[str, Any]:
    """A message's wire dict without its seal entry (the metadata copied, never changed), nor empty metadata."""
    metadata = wire.get("metadata")
    if metadata is not None and SEAL_KEY in metadata:
        rest = {key: value for key, value in metadata.items() if key != SEAL_KEY}
        if rest:
            wire["metadata"] = rest
        else:
            del wire["metadata"]
    return wire


def reference_canonical_bytes(message: Message) -> bytes:
    """The canonical bytes by the standard library's encoder: the definition the fast path must match."""
    return _reference_encode(_without_seal(unstructure(message))).encode("ascii")


def canonical_bytes(message: Message) -> bytes:
    """The canonical bytes of a message (see the module's docstring), by the C writer where it is built."""
    wire = _without_seal(_unstructure_message(message))
    if _write_sorted is not None:
        text = _write_sorted(wire, MISS)
        if text is not MISS:
            return text.encode("ascii")  # type: ignore[no-any-return]
    return _reference_encode(wire).encode("ascii")
