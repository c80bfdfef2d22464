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

from cattrs import BaseConverter
from cattrs.preconf.json import JsonConverter
from cattrs.preconf.json import configure_converter as _cattrs_configure

from .._api import parse_json
from .._conversion._converter import configure_converter as configure_for_format
from .._conversion._converter import structure_parsed
from ._base import fast_unstructure

__all__ = ["ContentJsonConverter", "configure_converter", "make_converter"]

T = TypeVar("T")

def configure_converter(converter: BaseConverter, **options: int) -> None:
    """Install the contentblocks hooks on the standard library's JSON converter, binary fields as base64 text.

    Registers what :func:`contentblocks.configure_converter` registers with ``binary="base64"``: hook
    factories (``register_structure_hook_factory``, ``register_unstructure_hook_factory``) for every block,
    source, citation, message and conversation class and for the unions ``Block``, ``ToolResultContent``,
    ``FileSource`` and ``CitationSource``, which survive ``converter.copy()``; nothing for any other type.
    It leaves ``cattrs.preconf.json``'s own hooks as they are: :func:`make_converter` installs both.

    Args:
        converter: usually a ``cattrs.preconf.json`` converter (any cattrs converter works).
        options: limits, as for :func:`contentblocks.make_converter`.

    Raises:
        ValueError: for an unknown limit.
        TypeError: when ``converter`` is not a cattrs converter.
    """
    configure_for_format(converter, binary="base64", **options)


class ContentJsonConverter(JsonConverter):
    """A ``cattrs`` JSON converter whose ``loads`` refuses duplicate keys, NaN and Infinity.

    Parse errors, like every other problem, raise :class:`contentblocks.ValidationError`.
    """

    def dumps(self, obj: Any, unstructure_as: Any = None, **kwargs: Any) -> str:
        """JSON text of ``obj``; blocks are written without copying their JSON values first."""
        return json.dumps(fast_unstructure(self, obj, unstructure_as, native_binary=False), **kwargs)

    def loads(self, data: bytes | str, cl: type[T], **kwargs: Any) -> T:  # noqa: ARG002 - kwargs of json.loads do not apply to a strict parse
        """Parse ``data`` strictly and structure it into ``cl``."""
        return structure_parsed(self, parse_json(data), cl)  # type: ignore[no-any-return]


def make_converter(**options: int) -> ContentJsonConverter:
    """A new JSON converter with cattrs' JSON hooks and every contentblocks hook installed.

    Args:
        options: limits, as for :func:`contentblocks.make_converter`.
    """
    converter = ContentJsonConverter()
    _cattrs_configure(converter)
    configure_converter(converter, **options)
    return converter
