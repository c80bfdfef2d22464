"""Where a stream's values came from: SDK objects dumped, neutral events built and completed responses read.

Each reports its problems at the place in the provider stream the value came from, never at a neutral event's field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, TypeVar

from .._errors import ValidationError
from ..providers._contract import Reply
from ..providers._toolkit import plain, within
from ._errors import StreamError

__all__ = ["Where", "placed", "plain_at", "read_completed"]

Where: TypeAlias = "str | Mapping[str, str]"
"""Where in the provider stream the values of a neutral event came from: one path for all its fields, or a path
per field (``{"tool_call_id": "$[3].content_block.id"}``); a field not named is reported at ``"$"``'s path."""

_E = TypeVar("_E")

def plain_at(value: object, path: str) -> Any:
    """``plain(value)``, or a ``StreamError`` at ``path`` when an SDK object cannot dump itself.

    An object built with ``model_construct`` may hold anything; its ``model_dump`` then raises whatever pydantic
    (or the value) raises, which is a malformed event, not a bug of the reader.
    """
    try:
        return plain(value, path)
    except ValidationError as e:
        raise StreamError(e.errors, omitted=e.omitted) from None


def placed(make: Callable[[], _E], where: Where) -> _E:
    """``make()``, a neutral event built from provider values; its problems are reported where they came from."""
    try:
        return make()
    except ValidationError as e:
        problems = []
        for p, m in e.errors:
            name = p[2:].split(".", 1)[0].split("[", 1)[0]
            if isinstance(where, str):
                problems.append((where, m))
            elif name in where:
                problems.append((where[name] + p[2 + len(name) :], m))
            else:
                problems.append((where.get("$", "$"), f"{name.replace('_', ' ')}: {m}"))
        raise StreamError(problems, omitted=e.omitted) from None


def read_completed(
    read: Callable[[Any], Reply], completed: Any, path: str, *, reroot: tuple[str, str] | None = None
) -> Reply:
    """``read(completed)``: the adapter's reply of what the stream built, its errors made stream errors.

    The adapter's paths point into the completed response (``$.choices[0].message.content``). With ``reroot``
    (``(old, new)``), a path under ``old`` is the same place under ``new`` in the stream (the completed item an
    event carries); any other path is kept in the message, at ``path``, the event that completed the response.
    """
    try:
        return read(completed)
    except ValidationError as e:
        problems = []
        for p, m in e.errors:
            if reroot is not None and within(p, reroot[0]):
                problems.append((reroot[1] + p[len(reroot[0]) :], m))
            else:
                problems.append((path, f"the response the stream built does not read: {p}: {m}"))
        raise StreamError(problems, omitted=e.omitted) from None
