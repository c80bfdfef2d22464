"""The optional C kernels, ``_speedups``, and the converter's C-first versions of the pure-Python walks.

The kernels know no rule and no wire key: they copy and check JSON values, decode and encode base64, build
instances without re-checking them, walk the tables the generator emits (raw dicts in, objects out) and write
JSON text. Each takes only the common, valid path and hands anything else back (a *miss*), so that the
pure-Python code it stands in for finds and words every problem. Only the converter side imports this
module: the model classes never load the extension. Set ``CONTENTBLOCKS_PURE_PYTHON`` to a non-empty value
to run without it.
"""

from __future__ import annotations

import binascii
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._checks import _patterns
from .._checks._grammar import base64_chars
from .._json import _freeze
from .._json import _values as _json

if TYPE_CHECKING:
    from .._checks._rules import Limits

__all__ = [
    "MISS",
    "b64encode",
    "decode_base64",
    "find_surrogate",
    "freeze",
    "speedups",
    "speedups_enabled",
    "thaw",
]

MISS: Any = object()
"""What a C function returns when it hands a value back to the Python code."""


def _load() -> Any:
    if os.environ.get("CONTENTBLOCKS_PURE_PYTHON"):
        return None
    try:
        from .. import _speedups  # noqa: PLC0415 - optional, and only here
    except ImportError:
        return None
    _speedups.setup(_json.JsonObject, _json.JsonArray)
    return _speedups


speedups = _load()


def speedups_enabled() -> bool:
    """Whether the optional C accelerator is in use (JSON values, base64, instances and ``cb.dumps``' text in C).

    It is built on install where a C compiler is found; without one, or with the environment variable
    ``CONTENTBLOCKS_PURE_PYTHON`` set (at install or at import), the same pure-Python walks run. Results are
    identical either way; only the speed differs.

    >>> import contentblocks as cb
    >>> cb.speedups_enabled() in (True, False)
    True
    """
    return speedups is not None


def _b64encode_python(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


#: Truthy when a string holds a lone surrogate (see ``_patterns.find_surrogate``): the C scan where built.
find_surrogate: Callable[[str], object] = _patterns.find_surrogate if speedups is None else speedups.has_surrogate
#: The canonical base64 text of exact bytes.
b64encode: Callable[[bytes], str] = _b64encode_python if speedups is None else speedups.b64encode


if speedups is None:
    freeze = _freeze.freeze
    thaw = _json.thaw
    decode_base64 = _patterns.check_base64
else:
    _c_freeze = speedups.freeze
    _c_node_overflow = speedups.node_overflow
    _c_thaw = speedups.thaw
    _c_b64decode = speedups.b64decode

    def freeze(
        value: object, path: str, limits: Limits, problems: list[tuple[str, str]], *, extra_depth: int = 0
    ) -> Any:
        """``_freeze.freeze``, copied in C when the value is valid and built of exact built-in types.

        A value past ``max_nodes`` is refused in C too, where that is its first problem: the Python walks would
        read every value up to the limit again to find it.
        """
        max_chars, max_depth, max_nodes = limits.max_text_chars, limits.max_depth + extra_depth, limits.max_nodes
        frozen = _c_freeze(value, max_chars, max_depth, max_nodes, MISS)
        if frozen is not MISS:
            return frozen
        keys = _c_node_overflow(value, max_chars, max_depth, max_nodes)
        if keys is not None:
            _freeze.add_node_limit_problem(problems, path, keys, limits)
            return None
        return _freeze.freeze(value, path, limits, problems, extra_depth=extra_depth)

    def thaw(value: Any) -> Any:
        """``_json.thaw``, copied in C unless the value nests deeper than the C walk recurses."""
        thawed = _c_thaw(value, MISS)
        return _json.thaw(value) if thawed is MISS else thawed

    def decode_base64(value: str, max_bytes: int) -> bytes | str:
        """``_patterns.check_base64``, decoded in C when the text is canonical and short enough."""
        if len(value) <= base64_chars(max_bytes):
            data = _c_b64decode(value, MISS)
            if data is not MISS and len(data) <= max_bytes:
                return data  # type: ignore[no-any-return]
        return _patterns.check_base64(value, max_bytes)
