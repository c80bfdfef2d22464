"""The field readers the structure bodies are built from: one closure per kind of field, per converter.

Each reader takes the raw object (or value), the key and the problems list; it does the common, valid case
inline and calls on ``_fields`` and ``_rules`` only to word a problem. ``_bodies`` binds them as locals of
the bodies of every block, source and citation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ._checks import check_identifier_field, freeze_metadata
from ._errors import describe_type, preview
from ._fields import (
    MISSING,
    NULL_OPTIONAL,
    Problems,
    as_object,
    objects_past_cap,
    prefix_since,
    string_problem,
)
from ._json import EMPTY_OBJECT, plain_container
from ._rules import MAX_IDENTIFIER_CHARS, Limits, check_base64, find_surrogate

__all__ = ["Body", "Readers", "tag_problem"]

Body = Callable[[dict[str, Any], Problems], Any]

_ASCII_IDENTIFIER = re.compile(r"[!-~]{1,%d}" % MAX_IDENTIFIER_CHARS).fullmatch  # noqa: UP031 - a regex, braces clash


def tag_problem(tag: object, where: str, allowed: list[str]) -> str:
    """The message for a missing, mistyped or unknown tag, naming the tags allowed there."""
    names = ", ".join(allowed)
    if tag is MISSING:
        return f"required key missing: {where} needs one of: {names}"
    if type(tag) is not str:
        return f"expected a string naming one of: {names}; got {describe_type(tag)}"
    return f"unknown {where} {preview(tag)}; expected one of: {names}"


class Readers:
    """The readers for one converter's limits and binary mode, as attributes."""

    def __init__(self, limits: Limits, *, native_binary: bool) -> None:  # noqa: C901, PLR0915 - the closures share locals on purpose
        max_chars = limits.max_text_chars
        max_bytes = limits.max_binary_bytes
        cap = limits.max_errors
        surrogate = find_surrogate
        ascii_identifier = _ASCII_IDENTIFIER

        def metadata(raw: dict[str, Any], problems: Problems) -> Any:
            value = raw.get("metadata", MISSING)
            if value is MISSING or (type(value) is dict and not value):
                return EMPTY_OBJECT
            if value is None:
                problems.append((".metadata", NULL_OPTIONAL))
                return EMPTY_OBJECT
            return freeze_metadata(problems, ".metadata", value, limits)

        def identifier(raw: dict[str, Any], key: str, problems: Problems) -> Any:
            value = raw.get(key, MISSING)
            if type(value) is not str or ascii_identifier(value) is None:
                if value is MISSING:
                    problems.append((f".{key}", "required key missing"))
                else:
                    check_identifier_field(problems, f".{key}", value)
            return value

        def call_identifiers(raw: dict[str, Any], problems: Problems) -> tuple[Any, Any]:
            """``tool_call_id`` and ``tool_name``: the common ASCII case inline, the rest through identifier()."""
            call_id = raw.get("tool_call_id", MISSING)
            if type(call_id) is not str or ascii_identifier(call_id) is None:
                call_id = identifier(raw, "tool_call_id", problems)
            name = raw.get("tool_name", MISSING)
            if type(name) is not str or ascii_identifier(name) is None:
                name = identifier(raw, "tool_name", problems)
            return call_id, name

        def free_text(raw: dict[str, Any], key: str, problems: Problems, *, optional: bool = False) -> Any:
            value = raw.get(key, MISSING)
            if type(value) is str and value and len(value) <= max_chars and (value.isascii() or not surrogate(value)):
                return value
            if optional and value is MISSING:
                return None
            string_problem(problems, f".{key}", value, max_chars, optional=optional)
            return None if value is MISSING else value

        def ruled(
            raw: dict[str, Any],
            key: str,
            problems: Problems,
            rule: Callable[[str], str | None],
            *,
            optional: bool = False,
        ) -> Any:
            value = raw.get(key, MISSING)
            if optional and value is MISSING:
                return None
            if type(value) is str:
                message = rule(value)
                if message is None:
                    return value
                problems.append((f".{key}", message))
                return value
            string_problem(problems, f".{key}", value, max_chars, optional=optional)
            return None if value is MISSING else value

        def binary(raw: dict[str, Any], key: str, problems: Problems, *, optional: bool = False) -> Any:
            value = raw.get(key, MISSING)
            if value is MISSING:
                if not optional:
                    problems.append((f".{key}", "required key missing"))
                return None
            if native_binary:
                if type(value) is bytes and len(value) <= max_bytes:
                    return value
                if type(value) is bytes:
                    problems.append((f".{key}", f"more than {max_bytes:,} bytes"))
                else:
                    got = NULL_OPTIONAL if value is None and optional else f"expected bytes, got {describe_type(value)}"
                    problems.append((f".{key}", got))
                return None
            if type(value) is not str:
                got = (
                    NULL_OPTIONAL
                    if value is None and optional
                    else f"expected a base64 string, got {describe_type(value)}"
                )
                problems.append((f".{key}", got))
                return None
            decoded = check_base64(value, max_bytes)
            if type(decoded) is str:
                problems.append((f".{key}", decoded))
                return None
            return decoded

        def items(value: object, key: str, problems: Problems, body: Body) -> tuple[Any, ...]:
            kind, array = plain_container(value)
            if kind != 2:  # an array
                problems.append((key, f"expected an array, got {describe_type(value)}"))
                return ()
            out: list[Any] = []
            for i, item in enumerate(array):
                if type(item) is not dict:
                    if len(problems) >= cap:  # the rest is counted, not shown: no paths to work out
                        out.extend(body(obj, problems) for obj in objects_past_cap(array, i, key, problems))
                        break
                    item = as_object(item, f"{key}[{i}]", problems)  # noqa: PLW2901 - the same item, as a dict
                    if item is None:
                        continue
                before = len(problems)
                out.append(body(item, problems))
                if len(problems) != before and before < cap:
                    prefix_since(problems, before, f"{key}[{i}]")
            return tuple(out)

        def tagged_items(value: object, key: str, problems: Problems, get: Callable[[str], Any], body: Body) -> Any:
            """items() for an array of tagged objects, dispatching inline on ``type``: the valid case in one loop.

            At the first problem, the array is done again by items() and the tagged ``body``, which give each
            problem its item's path; a valid prefix is at most done twice.
            """
            if type(value) is list:
                before = len(problems)
                out: list[Any] = []
                append = out.append
                for item in value:
                    if type(item) is not dict:
                        break
                    tag = item.get("type")
                    item_body = get(tag) if type(tag) is str else None
                    if item_body is None:
                        break
                    append(item_body(item, problems))
                    if len(problems) != before:
                        del problems[before:]
                        break
                else:
                    return tuple(out)
            return items(value, key, problems, body)

        def nested(raw: dict[str, Any], key: str, problems: Problems, body: Body) -> Any:
            value = raw.get(key, MISSING)
            if type(value) is not dict:
                if value is MISSING:
                    problems.append((f".{key}", "required key missing"))
                    return None
                value = as_object(value, f".{key}", problems)
                if value is None:
                    return None
            before = len(problems)
            result = body(value, problems)
            if len(problems) != before:
                prefix_since(problems, before, f".{key}")
            return result

        def tagged(bodies: dict[str, Body], where: str, key: str = "type", known: frozenset[str] = frozenset()) -> Body:
            names = list(bodies)
            get = bodies.get

            def dispatch(raw: dict[str, Any], problems: Problems) -> Any:
                tag = raw.get(key, MISSING)
                body = get(tag) if type(tag) is str else None
                if body is not None:
                    return body(raw, problems)
                if type(tag) is str and tag in known:
                    problems.append((f".{key}", f"{where} cannot hold {tag} blocks (allowed: {', '.join(names)})"))
                else:
                    problems.append((f".{key}", tag_problem(tag, where, names)))
                return None

            return dispatch

        self.metadata = metadata
        self.identifier = identifier
        self.call_identifiers = call_identifiers
        self.free_text = free_text
        self.ruled = ruled
        self.binary = binary
        self.items = items
        self.tagged_items = tagged_items
        self.nested = nested
        self.tagged = tagged
