"""What the preconf modules share: configure with the right binary mode, and strict ``loads``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from cattrs import BaseConverter

from .._api import BOM_PROBLEM, starts_with_bom
from .._conversion._converter import structure_parsed
from .._conversion._unstructure import dump_hooks
from .._errors import ValidationError

__all__ = ["fast_unstructure", "loads_then_structure", "parse_error", "plain_hooks"]

C = TypeVar("C", bound=BaseConverter)


def parse_error(fmt: str, error: BaseException) -> ValidationError:
    """A ValidationError for data a format's parser refused; the parser's message never quotes the data."""
    del error
    return ValidationError([("$", f"not valid {fmt}")])


def loads_then_structure(
    converter: Any, parse: Callable[[Any], Any], errors: tuple[type[BaseException], ...], fmt: str, data: Any, cl: Any
) -> Any:
    try:
        raw = parse(data)
    except errors as e:
        if fmt == "JSON" and starts_with_bom(data):
            raise ValidationError([("$", f"not valid JSON: {BOM_PROBLEM}")]) from None
        raise parse_error(fmt, e) from None
    return structure_parsed(converter, raw, cl)


def plain_hooks(converter: BaseConverter, cls: type) -> bool:
    """Whether ``converter`` unstructures ``cls`` with the library's shared hook (no user hook in or on it)."""
    return getattr(converter.get_unstructure_hook(cls), "dispatches", None) == frozenset()


def fast_unstructure(converter: Any, obj: Any, unstructure_as: Any, native_binary: bool) -> Any:
    """The canonical form of ``obj`` for a serialiser that writes it at once.

    Blocks, messages and conversations skip the copy of their read-only JSON values (json, orjson, msgpack and
    cbor2 all write dict and list subclasses as they are), unless a hook of the user's is in the way; anything
    else goes through the converter.
    """
    if unstructure_as is None:
        hook = dump_hooks(native_binary=native_binary).get(type(obj))
        if hook is not None and plain_hooks(converter, type(obj)):
            return hook(obj)
    return converter.unstructure(obj, unstructure_as=unstructure_as)
