"""What the preconf modules share: configure with the right binary mode, and strict ``loads``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from cattrs import BaseConverter

from .._errors import ValidationError
from .._hooks import Binary, configure_converter

__all__ = ["configure_for", "parse_error"]

C = TypeVar("C", bound=BaseConverter)


def configure_for(binary: Binary) -> Callable[..., None]:
    """A ``configure_converter(converter, **options)`` with the binary mode of one format."""

    def configure(converter: BaseConverter, **options: int) -> None:
        configure_converter(converter, binary=binary, **options)

    return configure


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
        raise parse_error(fmt, e) from None
    return converter.structure(raw, cl)
