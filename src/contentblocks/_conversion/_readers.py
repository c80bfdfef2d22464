"""The readers that generated structure functions call for what they do not read inline.

A generated function tests the common, valid value of a field inline (the rule's fast condition) and reads
a list of objects in an inline loop; it calls one of these only for the rest, or for the kinds that always
need a call (binary, nested objects). Each takes the raw object (or value), the key and the
problems list; paths are suffixes relative to the object being read (``.text``), which the caller prefixes
with its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._checks._rules import MISSING_KEY, NULL_OPTIONAL, Rule, text_problem
from .._errors import describe_type, preview
from .._json._values import plain_container
from . import _kernels
from ._raw import MISSING, Problems, as_object, objects_past_cap, prefix_since

__all__ = ["Body", "nested", "read_binary", "read_text", "rest_items", "tag_problem", "tagged"]

Body = Callable[[dict[str, Any], Problems], Any]


def tag_problem(tag: object, where: str, allowed: list[str]) -> str:
    """The message for a missing, mistyped or unknown tag, naming the tags allowed there."""
    names = ", ".join(allowed)
    if tag is MISSING:
        return f"{MISSING_KEY}: {where} needs one of: {names}"
    if type(tag) is not str:
        return f"expected a string naming one of: {names}; got {describe_type(tag)}"
    return f"unknown {where} {preview(tag)}; expected one of: {names}"


def read_text(raw: dict[str, Any], key: str, problems: Problems, rule: Rule, max_chars: int, optional: bool) -> Any:
    """A ``text`` field whose fast condition failed: record its problem; the value read (None when absent)."""
    value = raw.get(key, MISSING)
    if value is MISSING:
        if not optional:
            problems.append((f".{key}", MISSING_KEY))
        return None
    message = text_problem(rule, value, max_chars, optional=optional)
    if message is not None:
        problems.append((f".{key}", message))
    return value


def read_binary(
    raw: dict[str, Any], key: str, problems: Problems, optional: bool, nonempty: str, native: bool, max_bytes: int
) -> Any:
    """Bytes (base64 text on the JSON wire, ``bytes`` where ``native``), or the raw value where it is wrong.

    The raw value is returned so that a cross rule sees the key was given.
    """
    value = raw.get(key, MISSING)
    if value is MISSING:
        if not optional:
            problems.append((f".{key}", MISSING_KEY))
        return None
    if value is None and optional:
        problems.append((f".{key}", NULL_OPTIONAL))
        return None
    if native:
        if type(value) is not bytes:
            problems.append((f".{key}", f"expected bytes, got {describe_type(value)}"))
            return value
        if len(value) > max_bytes:
            problems.append((f".{key}", f"more than {max_bytes:,} bytes"))
            return value
        decoded: Any = value
    else:
        if type(value) is not str:
            problems.append((f".{key}", f"expected a base64 string, got {describe_type(value)}"))
            return value
        decoded = _kernels.decode_base64(value, max_bytes)
        if type(decoded) is str:
            problems.append((f".{key}", decoded))
            return value
    if nonempty and not decoded:
        problems.append((f".{key}", nonempty))
    return decoded


def rest_items(
    value: object, key: str, problems: Problems, body: Body, start: int, out: list[Any], cap: int,
    fast: Callable[[int], int] | None = None, *, consume: bool = False,
) -> Any:  # fmt: skip
    """An array of objects from ``start`` on, after the items read into ``out``, each by ``body``.

    The generated functions read a list of objects in an inline loop, and call this for the rest at the first
    item that is not an object (of a known tag), or for a value that is not a list: each problem gets its
    item's path, until there are ``cap`` problems. The result is a tuple. A conversation's array of messages
    is read here whole: ``fast`` (the C walk) takes the valid items from an index on and says where it stopped,
    and with ``consume`` each item is dropped from the array once it is read.
    """
    kind, array = plain_container(value)
    if kind != 2:  # an array
        problems.append((key, f"expected an array, got {describe_type(value)}"))
        return ()
    i = start
    while True:
        if fast is not None:
            i = fast(i)
        if i >= len(array):
            break
        item = array[i]
        if type(item) is not dict:
            if len(problems) >= cap:  # the rest is counted, not shown: no paths to work out
                out.extend(body(obj, problems) for obj in objects_past_cap(array, i, key, problems))
                break
            item = as_object(item, f"{key}[{i}]", problems)
            if item is None:
                i += 1
                continue
        before = len(problems)
        out.append(body(item, problems))
        if len(problems) != before and before < cap:
            prefix_since(problems, before, f"{key}[{i}]")
        if consume:
            array[i] = None
        i += 1
    return tuple(out)


def nested(raw: dict[str, Any], key: str, problems: Problems, body: Body) -> Any:
    """The object at ``key`` read by ``body``, its problems' paths under the key."""
    value = raw.get(key, MISSING)
    if type(value) is not dict:
        if value is MISSING:
            problems.append((f".{key}", MISSING_KEY))
            return None
        value = as_object(value, f".{key}", problems)
        if value is None:
            return None
    before = len(problems)
    result = body(value, problems)
    if len(problems) != before:
        prefix_since(problems, before, f".{key}")
    return result


def tagged(
    bodies: dict[str, Body], where: str, key: str, holder: str = "", known: frozenset[str] = frozenset()
) -> Body:
    """The body of a union: the member body its tag names, or a problem for a missing, unknown or excluded tag."""
    names = list(bodies)
    get = bodies.get

    def dispatch(raw: dict[str, Any], problems: Problems) -> Any:
        tag = raw.get(key, MISSING)
        body = get(tag) if type(tag) is str else None
        if body is not None:
            return body(raw, problems)
        if type(tag) is str and tag in known:
            problems.append((f".{key}", f"{holder} cannot hold {tag} blocks (allowed: {', '.join(names)})"))
        else:
            problems.append((f".{key}", tag_problem(tag, where, names)))
        return None

    return dispatch
