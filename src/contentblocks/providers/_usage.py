"""A response's usage object as ``Usage``, for every provider: which count is which is all they differ in.

Each adapter names its counts by their dotted key in its own usage object (``output_tokens_details.thinking_tokens``
for Anthropic, ``promptTokenCount`` for Gemini) and the ``Usage`` field each fills. The rules are here once: a
count is a non-negative integer or absent, ``raw`` keeps the whole object without its nulls, and a problem is
reported at the provider's own path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

from .._errors import ValidationError
from ._contract import Usage
from ._toolkit import drop_nulls, field, obj, plain, require, reroot

__all__ = ["Count", "read_usage"]

Count: TypeAlias = Literal[
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "total_tokens"
]
"""The name of a token count of ``Usage``."""


def read_usage(raw: object, counts: Mapping[str, Count | None], path: str) -> Usage | None:
    """A response's usage object as ``Usage``: the counts ``counts`` names, and the object as ``raw``.

    ``counts`` maps the dotted key of each count the provider documents to the ``Usage`` field it fills, or to
    ``None`` for a count kept in ``raw`` only; a count is optional, and a non-negative integer when given (a
    bool is refused: an SDK would read ``true`` as 1). ``raw`` is the whole object with its ``null``
    members left out, so a count the fields do not name is not lost. Problems are reported at ``path``.

    >>> usage = read_usage(
    ...     {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4}, "output_tokens": 20, "total_tokens": 30},
    ...     {"input_tokens": "input_tokens", "input_tokens_details.cached_tokens": "cache_read_tokens",
    ...      "output_tokens": "output_tokens", "total_tokens": "total_tokens"},
    ...     "$.usage",
    ... )
    >>> usage.cache_read_tokens, usage.total_tokens, usage.reasoning_tokens
    (4, 30, None)
    >>> read_usage({"input_tokens": -1}, {"input_tokens": "input_tokens"}, "$.usage")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.usage.input_tokens: expected a non-negative integer
    >>> read_usage(None, {}, "$.usage") is None
    True
    """
    if raw is None:
        return None
    usage = drop_nulls(obj(plain(raw), path))
    values: dict[Count, int | None] = {}
    for where, name in counts.items():
        *parents, key = where.split(".")
        holder, at = usage, path
        for parent in parents:
            holder = field(holder, parent, dict, at, optional=True) or {}
            at = f"{at}.{parent}"
        value = field(holder, key, int, at, optional=True)
        require(value is None or value >= 0, f"{at}.{key}", "expected a non-negative integer")
        if name is not None:
            values[name] = value
    try:
        return Usage(**values, raw=usage)
    except ValidationError as e:  # a value in the usage object that is not JSON (NaN, a lone surrogate)
        raise reroot(e, path, "$.raw") from None
