"""The CBOR format through ``cbor2``: binary fields as native byte strings; needs the ``cbor2`` extra.

>>> from contentblocks.preconf.cbor2 import make_converter
>>> import contentblocks as cb
>>> conv = make_converter()
>>> block = cb.ReasoningBlock(redacted=b"opaque")
>>> conv.loads(conv.dumps(block), cb.Block) == block
True
"""

from __future__ import annotations

from typing import Any, TypeVar

import cbor2
from cattrs import BaseConverter
from cattrs.preconf.cbor2 import Cbor2Converter
from cattrs.preconf.cbor2 import configure_converter as _cattrs_configure

from .._conversion._converter import configure_converter as configure_for_format
from ._base import fast_unstructure, loads_then_structure

__all__ = ["ContentCbor2Converter", "configure_converter", "make_converter"]

T = TypeVar("T")

def configure_converter(converter: BaseConverter, **options: int) -> None:
    """Install the contentblocks hooks on a CBOR converter, binary fields as native bytes.

    Registers what :func:`contentblocks.configure_converter` registers with ``binary="native"``: hook
    factories (``register_structure_hook_factory``, ``register_unstructure_hook_factory``) for every block,
    source, citation, message and conversation class and for the unions ``Block``, ``ToolResultContent``,
    ``FileSource`` and ``CitationSource``, which survive ``converter.copy()``; nothing for any other type.
    It leaves ``cattrs.preconf.cbor2``'s own hooks as they are: :func:`make_converter` installs both.

    Args:
        converter: usually a ``cattrs.preconf.cbor2`` converter (any cattrs converter works).
        options: limits, as for :func:`contentblocks.make_converter`.

    Raises:
        ValueError: for an unknown limit.
        TypeError: when ``converter`` is not a cattrs converter.
    """
    configure_for_format(converter, binary="native", **options)

_ERRORS = (cbor2.CBORDecodeError, ValueError, TypeError, RecursionError, MemoryError)


class ContentCbor2Converter(Cbor2Converter):
    """A ``cattrs`` CBOR converter whose ``loads`` raises ValidationError for data cbor2 cannot decode."""

    def dumps(self, obj: Any, unstructure_as: Any = None, **kwargs: Any) -> bytes:
        """The CBOR bytes of ``obj``; blocks are written without copying their JSON values first."""
        return cbor2.dumps(fast_unstructure(self, obj, unstructure_as, native_binary=True), **kwargs)

    def loads(self, data: bytes, cl: type[T], **kwargs: Any) -> T:  # noqa: ARG002 - the decoder's options are fixed
        """Decode ``data`` and structure it into ``cl``."""
        return loads_then_structure(self, cbor2.loads, _ERRORS, "CBOR", data, cl)  # type: ignore[no-any-return]


def make_converter(**options: int) -> ContentCbor2Converter:
    """A new CBOR converter with cattrs' cbor2 hooks and every contentblocks hook installed.

    Args:
        options: limits, as for :func:`contentblocks.make_converter`.
    """
    converter = ContentCbor2Converter()
    _cattrs_configure(converter)
    configure_converter(converter, **options)
    return converter
