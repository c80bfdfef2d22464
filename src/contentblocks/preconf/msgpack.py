r"""The ``msgpack`` format: binary fields as native ``bin`` bytes; needs the ``msgpack`` extra.

>>> from contentblocks.preconf.msgpack import make_converter
>>> import contentblocks as cb
>>> conv = make_converter()
>>> block = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
>>> conv.loads(conv.dumps(block), cb.Block) == block
True
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgpack
from cattrs import BaseConverter
from cattrs.preconf.msgpack import MsgpackConverter
from cattrs.preconf.msgpack import configure_converter as _cattrs_configure

from .._conversion._converter import configure_converter as configure_for_format
from ._base import fast_unstructure, loads_then_structure

__all__ = ["ContentMsgpackConverter", "configure_converter", "make_converter"]

T = TypeVar("T")

def configure_converter(converter: BaseConverter, **options: int) -> None:
    """Install the contentblocks hooks on a msgpack converter, binary fields as native bytes.

    Registers what :func:`contentblocks.configure_converter` registers with ``binary="native"``: hook
    factories (``register_structure_hook_factory``, ``register_unstructure_hook_factory``) for every block,
    source, citation, message and conversation class and for the unions ``Block``, ``ToolResultContent``,
    ``FileSource`` and ``CitationSource``, which survive ``converter.copy()``; nothing for any other type.
    It leaves ``cattrs.preconf.msgpack``'s own hooks as they are: :func:`make_converter` installs both.

    Args:
        converter: usually a ``cattrs.preconf.msgpack`` converter (any cattrs converter works).
        options: limits, as for :func:`contentblocks.make_converter`.

    Raises:
        ValueError: for an unknown limit.
        TypeError: when ``converter`` is not a cattrs converter.
    """
    configure_for_format(converter, binary="native", **options)

_ERRORS = (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, TypeError)


def _unpack(data: Any) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


class ContentMsgpackConverter(MsgpackConverter):
    """A ``cattrs`` msgpack converter whose ``loads`` raises ValidationError for data msgpack cannot unpack."""

    def dumps(self, obj: Any, unstructure_as: Any = None, **kwargs: Any) -> bytes:
        """The msgpack bytes of ``obj``; blocks are written without copying their JSON values first."""
        return msgpack.packb(fast_unstructure(self, obj, unstructure_as, native_binary=True), **kwargs)  # type: ignore[no-any-return]

    def loads(self, data: bytes, cl: type[T], **kwargs: Any) -> T:  # noqa: ARG002 - the unpacker's options are fixed
        """Unpack ``data`` and structure it into ``cl``."""
        return loads_then_structure(self, _unpack, _ERRORS, "msgpack", data, cl)  # type: ignore[no-any-return]


def make_converter(**options: int) -> ContentMsgpackConverter:
    """A new msgpack converter with cattrs' msgpack hooks and every contentblocks hook installed.

    Args:
        options: limits, as for :func:`contentblocks.make_converter`.
    """
    converter = ContentMsgpackConverter()
    _cattrs_configure(converter)
    configure_converter(converter, **options)
    return converter
