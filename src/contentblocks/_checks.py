"""Checks that the block classes and the converter hooks share, so that both enforce one set of rules.

Every function appends ``(path, message)`` problems to a list instead of raising, so that callers can
gather every problem of a value into one ``ValidationError``.
"""

from __future__ import annotations

from collections.abc import Callable

from ._errors import describe_type, join_key
from ._json import EMPTY_OBJECT, JsonObject, freeze, plain_container
from ._rules import Limits, check_free_text, check_identifier

__all__ = [
    "check_identifier_field",
    "check_span",
    "check_str",
    "freeze_metadata",
    "reasoning_problems",
]

Problems = list[tuple[str, str]]


def check_str(
    problems: Problems,
    path: str,
    value: object,
    rule: Callable[[str], str | None] | None = None,
    *,
    limits: Limits,
    nonempty: bool = True,
) -> bool:
    """Check a string field: its type, emptiness, length, lone surrogates, then ``rule`` if given."""
    if type(value) is not str:
        problems.append((path, f"expected a string, got {describe_type(value)}"))
        return False
    if rule is not None:
        message = rule(value)
    elif nonempty and not value:
        message = "must not be empty"
    else:
        message = check_free_text(value, limits.max_text_chars)
    if message is not None:
        problems.append((path, message))
        return False
    return True


def check_identifier_field(problems: Problems, path: str, value: object) -> bool:
    """A tool call id or tool name (SPEC §2 identifiers)."""
    if type(value) is not str:
        problems.append((path, f"expected a string, got {describe_type(value)}"))
        return False
    message = check_identifier(value)
    if message is not None:
        problems.append((path, message))
        return False
    return True


def freeze_metadata(problems: Problems, path: str, value: object, limits: Limits) -> JsonObject:
    """Validate metadata (an object with non-empty string keys and JSON values) and freeze it."""
    kind, obj = plain_container(value)
    if kind != 1:
        problems.append((path, f"metadata must be an object, got {describe_type(value)}"))
        return EMPTY_OBJECT
    if not obj:
        return EMPTY_OBJECT
    for key in dict.keys(obj):
        if type(key) is str and not key:
            problems.append((join_key(path, key), "metadata keys must not be empty"))
    # Metadata values are JSON values: the object itself adds one level to the depth they may use.
    frozen = freeze(obj, path, limits, problems, extra_depth=1)
    return frozen if type(frozen) is JsonObject else EMPTY_OBJECT


def check_span(problems: Problems, path: str, start: object, end: object, text_length: int | None) -> None:
    """Citation ``start``/``end``: both or neither, ints, ``0 <= start <= end`` (``<= text_length`` when given)."""
    if start is None and end is None:
        return
    ok = True
    for name, value in (("start", start), ("end", end)):
        if value is None:
            problems.append((path, "start and end come together: give both or neither"))
            return
        if type(value) is not int:
            problems.append((f"{path}.{name}", f"expected an integer, got {describe_type(value)}"))
            ok = False
    if not ok:
        return
    if not 0 <= start <= end:  # type: ignore[operator]
        problems.append((path, "span must satisfy 0 <= start <= end"))
    elif text_length is not None and end > text_length:  # type: ignore[operator]
        problems.append((f"{path}.end", f"span ends after the text ({text_length} code points long)"))


def reasoning_problems(problems: Problems, path: str, text: object, signature: object, redacted: object) -> None:
    """At least one of text, signature, redacted; redacted excludes the other two."""
    if text is None and signature is None and redacted is None:
        problems.append((path, "reasoning needs text, a signature or redacted bytes"))
    elif redacted is not None and (text is not None or signature is not None):
        problems.append((path, "redacted reasoning carries neither text nor a signature"))
