"""The ``orjson`` format: binary fields as base64; needs the ``orjson`` extra.

orjson keeps the last of duplicate keys and reads integers beyond 64 bits as floats;
:func:`contentblocks.loads` refuses both, at the cost of speed.

>>> from contentblocks.preconf.orjson import make_converter
>>> import contentblocks as cb
>>> conv = make_converter()
>>> conv.dumps(cb.TextBlock(text="hi"))
b'{"type":"text","text":"hi"}'
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from cattrs.preconf.orjson import OrjsonConverter
from cattrs.preconf.orjson import configure_converter as _cattrs_configure

from .._accel import MISS
from .._unstructure import dump_default, serialised_parts
from ._base import configure_for, fast_unstructure, loads_then_structure

__all__ = ["ContentOrjsonConverter", "configure_converter", "make_converter"]

T = TypeVar("T")

configure_converter = configure_for("base64")
configure_converter.__doc__ = """Install the contentblocks hooks (binary as base64) on an orjson converter.

    Args:
        converter: usually a ``cattrs.preconf.orjson`` converter.
        options: limits, as for :func:`contentblocks.make_converter`.
    """


class ContentOrjsonConverter(OrjsonConverter):
    """A ``cattrs`` orjson converter whose ``loads`` raises ValidationError for text orjson cannot parse."""

    def dumps(self, obj: Any, unstructure_as: Any = None, **kwargs: Any) -> bytes:
        """The orjson bytes of ``obj``, with orjson's keyword arguments (``option``, ``default``).

        A conversation is written message by message: orjson calls back for each message and writes its
        dicts, which are then freed, so the dicts of the whole conversation never exist at once. Blocks are
        written without copying their JSON values first. Other objects go through the converter.
        """
        if unstructure_as is None:
            parts = serialised_parts(obj)
            if parts is not MISS:
                fallback = kwargs.pop("default", None)
                default = _DEFAULT if fallback is None else dump_default(native_binary=False, fallback=fallback)
                return orjson.dumps(parts, default=default, **kwargs)
        return orjson.dumps(fast_unstructure(self, obj, unstructure_as, native_binary=False), **kwargs)

    def loads(self, data: bytes | bytearray | memoryview | str, cl: type[T]) -> T:
        """Parse ``data`` with orjson and structure it into ``cl``."""
        return loads_then_structure(self, orjson.loads, (orjson.JSONDecodeError,), "JSON", data, cl)  # type: ignore[no-any-return]


_DEFAULT = dump_default(native_binary=False)


def make_converter(**options: int) -> ContentOrjsonConverter:
    """A new orjson converter with cattrs' orjson hooks and every contentblocks hook installed.

    Args:
        options: limits, as for :func:`contentblocks.make_converter`.
    """
    converter = ContentOrjsonConverter()
    _cattrs_configure(converter)
    configure_converter(converter, **options)
    return converter
