"""The standard library's ``json`` format: binary fields as base64, strict parsing.

>>> from contentblocks.preconf.json import make_converter
>>> import contentblocks as cb
>>> conv = make_converter()
>>> text = '{"type": "file", "media_type": "text/plain", "source": {"type": "base64", "data": "aGk="}}'
>>> conv.loads(text, cb.Block).source
BytesSource(data=<2 bytes>)
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from cattrs.preconf.json import JsonConverter
from cattrs.preconf.json import configure_converter as _cattrs_configure

from .._api import _parse_part, parse_json
from .._hooks import structure_text
from ._base import configure_for, fast_unstructure

__all__ = ["ContentJsonConverter", "configure_converter", "make_converter"]

T = TypeVar("T")

configure_converter = configure_for("base64")
configure_converter.__doc__ = """Install the contentblocks hooks (binary as base64) on a JSON converter.

    Args:
        converter: usually a ``cattrs.preconf.json`` converter.
        options: limits, as for :func:`contentblocks.make_converter`.
    """


class ContentJsonConverter(JsonConverter):
    """A ``cattrs`` JSON converter whose ``loads`` refuses duplicate keys, NaN and Infinity.

    Parse errors, like every other problem, raise :class:`contentblocks.ValidationError`.
    """

    def dumps(self, obj: Any, unstructure_as: Any = None, **kwargs: Any) -> str:
        """JSON text of ``obj``; blocks are written without copying their JSON values first."""
        return json.dumps(fast_unstructure(self, obj, unstructure_as, native_binary=False), **kwargs)

    def loads(self, data: bytes | str, cl: type[T], **kwargs: Any) -> T:  # noqa: ARG002 - kwargs of json.loads do not apply to a strict parse
        """Parse ``data`` strictly and structure it into ``cl``."""
        return structure_text(self, data, cl, parse_json, _parse_part)  # type: ignore[no-any-return]


def make_converter(**options: int) -> ContentJsonConverter:
    """A new JSON converter with cattrs' JSON hooks and every contentblocks hook installed.

    Args:
        options: limits, as for :func:`contentblocks.make_converter`.
    """
    converter = ContentJsonConverter()
    _cattrs_configure(converter)
    configure_converter(converter, **options)
    return converter
