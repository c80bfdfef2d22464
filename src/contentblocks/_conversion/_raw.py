"""What reading raw objects needs besides the rules: objects, unknown keys, paths, the error cap, foreign keys.

Paths here are suffixes relative to the object being structured (``.text``, ``.source.data``); the caller
prefixes its own.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from .._errors import describe_type, join_key

__all__ = [
    "MISSING",
    "Problems",
    "as_object",
    "foreign_key",
    "objects_past_cap",
    "prefix_since",
    "unknown_keys",
]

Problems = list[tuple[str, str]]
MISSING: Any = type("Missing", (), {"__repr__": lambda _self: "MISSING", "__slots__": ()})()


def as_object(value: object, path: str, problems: Problems) -> dict[str, Any] | None:
    """``value`` as a plain dict (a subclass is copied at C level, its overrides ignored), or a problem."""
    if type(value) is dict:
        return value
    if issubclass(type(value), dict):
        return dict(dict.items(value))  # type: ignore[arg-type]
    problems.append((path, f"expected an object, got {describe_type(value)}"))
    return None


def unknown_keys(
    problems: Problems, path: str, raw: dict[str, Any], allowed: frozenset[str], listing: str, cap: int
) -> None:
    """Record every key of ``raw`` that is not allowed (called only when ``raw.keys() <= allowed`` failed).

    Past ``cap`` problems, a key is counted without working out its path (it would not be shown).
    """
    reported = 0
    for key in raw:
        if len(problems) >= cap:  # count the rest in bulk, at C speed
            problems.extend(repeat((path, "unknown key"), len(raw.keys() - allowed) - reported))
            return
        if type(key) is str and key in allowed:
            continue
        reported += 1
        if type(key) is not str:
            problems.append((path, _key_not_a_string(key)))
        elif key not in allowed:
            problems.append((join_key(path, key), f"unknown key ({listing})"))


def prefix_since(problems: Problems, start: int, prefix: str) -> None:
    """Prefix the paths of the problems recorded since ``start`` with ``prefix``."""
    for i in range(start, len(problems)):
        path, message = problems[i]
        problems[i] = (prefix + path, message)


def objects_past_cap(array: list[Any] | tuple[Any, ...], start: int, path: str, problems: Problems) -> list[Any]:
    """Past the error cap: count every non-object from ``start`` on as a problem, in bulk; return the objects.

    The problems are counted (``ValidationError.omitted``) but not shown, so they need no paths; this keeps
    the refusal of a huge array of non-objects (two million integers as message content) to C-speed loops.
    """
    rest = array[start:]
    objects = [item for item in rest if type(item) is dict]
    problems.extend(repeat((path, "expected an object"), len(rest) - len(objects)))
    return objects


_CONTAINERS = (dict, list, tuple)


def _key_not_a_string(key: object) -> str:
    return f"object keys must be strings, got {describe_type(key)}"


def foreign_key(value: object) -> tuple[str, str] | None:
    """The first dict key inside ``value`` that is not an exact ``str``, as a problem, or None if there is none.

    Such a key is the only part of a value that can run code while the value is structured: its ``__hash__``
    and ``__eq__`` run when a dict holding it is looked up or copied. So when structuring raises something
    other than a ValidationError, the hooks ask this function, and a key it finds is refused as a problem
    (the exception came from the input's own code); without one, the exception is the library's and goes
    through. Containers are read through the base classes' C methods, once each (cycles end), with an explicit
    stack; nothing here hashes, compares or asks anything of the value's (``isinstance`` would ask for
    ``__class__``), so no code of the value runs.

    >>> class Key:
    ...     def __eq__(self, other):
    ...         raise RuntimeError("no")
    ...     __hash__ = object.__hash__
    >>> foreign_key({"role": "user", "content": [{"type": "text", "text": "hi", Key(): 1}]})
    ('.content[0]', 'object keys must be strings, got a Python Key object')
    >>> foreign_key([{"a": [1, {"b": {}}]}]) is None
    True
    """
    if not issubclass(type(value), _CONTAINERS):
        return None
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        container, path = stack.pop()
        if id(container) in seen:
            continue
        seen.add(id(container))
        t = type(container)
        if issubclass(t, dict):
            items = list(dict.items(container))
            for key, _ in items:
                if type(key) is not str:
                    return path, _key_not_a_string(key)
            children = [(item, join_key(path, key)) for key, item in items if issubclass(type(item), _CONTAINERS)]
        else:
            elements = list(list.__iter__(container) if issubclass(t, list) else tuple.__iter__(container))
            children = [
                (item, f"{path}[{i}]") for i, item in enumerate(elements) if issubclass(type(item), _CONTAINERS)
            ]
        stack.extend(reversed(children))
    return None
