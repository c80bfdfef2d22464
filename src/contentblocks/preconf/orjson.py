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
from cattrs import BaseConverter
from cattrs.preconf.orjson import OrjsonConverter
from cattrs.preconf.orjson import configure_converter as _cattrs_configure

from .._conversion._converter import configure_converter as configure_for_format
from .._conversion._kernels import MISS
from .._conversion._unstructure import dump_default, serialised_parts
from ._base import fast_unstructure, loads_then_structure, plain_hooks

__all__ = ["ContentOrjsonConverter", "configure_converter", "make_converter"]

T = TypeVar("T")

def configure_converter(converter: BaseConverter, **options: int) -> None:
    """Install the contentblocks hooks on an orjson converter, binary fields as base64 text.

    Registers what :func:`contentblocks.configure_converter` registers with ``binary="base64"``: hook
    factories (``register_structure_hook_factory``, ``register_unstructure_hook_factory``) for every block,
    source, citation, message and conversation class and for the unions ``Block``, ``ToolResultContent``,
    ``FileSource`` and ``CitationSource``, which survive ``converter.copy()``; nothing for any other type.
    It leaves ``cattrs.preconf.orjson``'s own hooks as they are: :func:`make_converter` installs both.

    Args:
        converter: usually a ``cattrs.preconf.orjson`` converter (any cattrs converter works).
        options: limits, as for :func:`contentblocks.make_converter`.

    Raises:
        ValueError: for an unknown limit.
        TypeError: when ``converter`` is not a cattrs converter.
    """
    configure_for_format(converter, binary="base64", **options)


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
            if parts is not MISS and plain_hooks(self, type(obj)):
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
