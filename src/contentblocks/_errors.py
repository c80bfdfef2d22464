"""The one exception this library raises for bad input, and the helpers that word its problems.

Problems are ``(path, message)`` pairs.
A path is a JSON path from the value that was passed in (``$``), for example ``$.content[2].source.data``.
Messages never echo an input back beyond a short, escaped preview, and never call ``repr()`` or ``str()``
on a foreign object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from cattrs.errors import AttributeValidationNote, ClassValidationError, IterableValidationError
from cattrs.v import format_exception as cattrs_format_exception

__all__ = [
    "DEFAULT_MAX_ERRORS",
    "ValidationError",
    "describe_type",
    "format_exception",
    "join_key",
    "preview",
    "transform_error",
    "with_article",
]

DEFAULT_MAX_ERRORS = 100
_SHOWN_IN_STR = 20
_PREVIEW_CHARS = 32
_PREVIEW_ESCAPED = 96
_ESCAPE_TOKEN = re.compile(r"\\u[0-9a-fA-F]{4}|\\.|[^\\]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

Problem = tuple[str, str]


class ValidationError(ValueError):
    """Raised when a value does not satisfy the wire format or a block's rules.

    Every problem found is listed, not only the first: ``errors`` holds ``(path, message)`` pairs, where
    ``path`` is a JSON path from the value that was checked.
    At most ``max_errors`` problems are kept (100 by default); ``omitted`` counts the problems found beyond
    them. Checking goes on past the cap, so the count is exact, except where a value is abandoned as a whole
    (a JSON value over the depth or size limit, a conversation whose messages are invalid is not paired).

    >>> import contentblocks as cb
    >>> try:
    ...     cb.structure({"type": "text", "text": 5, "extra": 1}, cb.Block)
    ... except cb.ValidationError as e:
    ...     for path, message in e.errors:
    ...         print(path, "-", message)
    $.extra - unknown key (a text block has: type, text, citations, cache, metadata)
    $.text - expected a string, got an integer
    """

    #: The problems kept, in the order they were found: ``(json_path, message)``.
    errors: list[tuple[str, str]]
    #: How many more problems were found than ``errors`` holds.
    omitted: int

    def __init__(self, errors: Iterable[Problem], *, omitted: int = 0, max_errors: int = DEFAULT_MAX_ERRORS) -> None:
        kept = list(errors)
        if len(kept) > max_errors:
            omitted += len(kept) - max_errors
            del kept[max_errors:]
        self.errors = kept
        self.omitted = omitted
        super().__init__(self._summary())

    def _summary(self) -> str:
        total = len(self.errors) + self.omitted
        if total == 1 and self.errors:
            path, message = self.errors[0]
            return f"{path}: {message}"
        lines = [f"{total} problems:"]
        lines.extend(f"  {path}: {message}" for path, message in self.errors[:_SHOWN_IN_STR])
        rest = total - min(len(self.errors), _SHOWN_IN_STR)
        if rest:
            lines.append(f"  ... and {rest} more")
        return "\n".join(lines)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.errors, self.omitted))

    def prefixed(self, prefix: str) -> list[Problem]:
        """The problems with ``$`` replaced by ``prefix`` (a path into an enclosing value)."""
        return [(prefix + path[1:], message) for path, message in self.errors]


ValidationError.__module__ = "contentblocks"


def with_article(word: str) -> str:
    """``word`` after the indefinite article its sound takes, for messages that name a role or a kind.

    The words named are the roles, block kinds and class names, none of which starts with a silent consonant
    or a "u" said as "you" but ``user`` and ``Usage``: a vowel but ``u`` takes "an", in either case.

    >>> with_article("user"), with_article("assistant"), with_article("tool_result"), with_article("ImageBlock")
    ('a user', 'an assistant', 'a tool_result', 'an ImageBlock')
    """
    return f"{'an' if word[:1].lower() in 'aeio' else 'a'} {word}"


def format_exception(exc: BaseException, type: type | None) -> str:  # noqa: A002 - cattrs' own parameter name
    """An error formatter for cattrs that words a ``ValidationError`` as its problems, each with its path.

    Pass it to ``cattrs.transform_error`` for a converter that structures your classes holding blocks: the
    paths in the text are relative to the field cattrs names after ``@``. Any other exception is worded by
    cattrs' default formatter. :func:`transform_error` joins the two paths instead.

    >>> import attrs, cattrs
    >>> import contentblocks as cb
    >>> Turn = attrs.make_class("Turn", {"message": attrs.field(type=cb.Message)})
    >>> converter = cattrs.Converter()
    >>> cb.configure_converter(converter)
    >>> try:
    ...     converter.structure({"message": {"role": "user", "content": [{"type": "text"}]}}, Turn)
    ... except cattrs.ClassValidationError as group:
    ...     cattrs.transform_error(group, format_exception=cb.format_exception)
    ['$.content[0].text: required key missing @ $.message']
    """
    if isinstance(exc, ValidationError):
        text = "; ".join(f"{path}: {message}" for path, message in exc.errors)
        return f"{text}; and {exc.omitted} more" if exc.omitted else text
    return cattrs_format_exception(exc, type)


def transform_error(
    exc: BaseException,
    path: str = "$",
    format_exception: Callable[[BaseException, type | None], str] = cattrs_format_exception,
) -> list[str]:
    """``cattrs.transform_error`` with this library's problems at their full paths: ``message @ path``.

    cattrs gathers the failures of your own attrs classes into exception groups; a block, message or
    conversation among your fields fails with a ``ValidationError`` inside such a group. This walks the group
    as cattrs does, and gives each of our problems its path from your value's root
    (``$.turns[2].message.content[0].text``), in this library's spelling (a mapping's key as ``$.by_name.a``
    or ``$.by_name["a b"]``). Other failures are worded by ``format_exception``, cattrs' default formatter
    unless you pass your own.

    >>> import attrs, cattrs
    >>> import contentblocks as cb
    >>> Turn = attrs.make_class(
    ...     "Turn", {"message": attrs.field(type=cb.Message), "scores": attrs.field(type=list[int])}
    ... )
    >>> converter = cattrs.Converter()
    >>> cb.configure_converter(converter)
    >>> try:
    ...     converter.structure({"message": {"role": "user", "content": [{"type": "text"}]}, "scores": ["x"]}, Turn)
    ... except cattrs.ClassValidationError as group:
    ...     for line in cb.transform_error(group):
    ...         print(line)
    required key missing @ $.message.content[0].text
    invalid value for type, expected int @ $.scores[0]
    """
    if isinstance(exc, ValidationError):
        lines = [f"{message} @ {path}{inner[1:]}" for inner, message in exc.errors]
        if exc.omitted:
            lines.append(f"{exc.omitted} more problems @ {path}")
        return lines
    if not isinstance(exc, (ClassValidationError, IterableValidationError)):
        return [f"{format_exception(exc, None)} @ {path}"]
    errors: list[str] = []
    with_notes, without = exc.group_exceptions()
    for inner_exc, note in with_notes:
        where = _where(path, note)
        if isinstance(inner_exc, (ClassValidationError, IterableValidationError, ValidationError)):
            errors.extend(transform_error(inner_exc, where, format_exception))
        else:
            errors.append(f"{format_exception(inner_exc, note.type)} @ {where}")
    errors.extend(f"{format_exception(inner_exc, None)} @ {path}" for inner_exc in without)
    return errors


def _where(path: str, note: object) -> str:
    """The path of a cattrs note's field, index or key, in this library's JSON-path spelling."""
    if isinstance(note, AttributeValidationNote):
        return join_key(path, note.name)
    index = note.index  # type: ignore[attr-defined]
    return join_key(path, index) if isinstance(index, str) else f"{path}[{index!r}]"


def _rebuild(errors: list[Problem], omitted: int) -> ValidationError:
    return ValidationError(errors, omitted=omitted, max_errors=max(len(errors), 1))


def join_key(path: str, key: str) -> str:
    """``path`` extended by an object key: ``$.a`` for plain keys, ``$["a b"]`` for others."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{preview(key)}]"


def preview(value: str) -> str:
    r"""A short, JSON-escaped preview of a string, safe to put in a message (at most about 100 characters).

    Escapes count towards the length, so a string of astral characters (12 escaped characters each) is cut
    sooner, and never in the middle of an escape.

    >>> preview("tool_use")
    '"tool_use"'
    >>> len(preview("\U0010ffff" * 40)) <= _PREVIEW_ESCAPED + len('"..."')
    True
    """
    inner = json.dumps(value[:_PREVIEW_CHARS], ensure_ascii=True)[1:-1]
    truncated = len(value) > _PREVIEW_CHARS
    if len(inner) > _PREVIEW_ESCAPED:
        end = 0
        for token in _ESCAPE_TOKEN.finditer(inner):
            if token.end() > _PREVIEW_ESCAPED:
                break
            end = token.end()
        inner = inner[:end]
        truncated = True
    return f'"{inner}..."' if truncated else f'"{inner}"'


_JSON_TYPE_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a float",
    bool: "a boolean",
    type(None): "null",
    dict: "an object",
    list: "an array",
    tuple: "an array (tuple)",
    bytes: "bytes",
}


def describe_type(value: object) -> str:
    """Name the JSON type of ``value``, or its Python class, without calling anything on it."""
    t = type(value)
    name = _JSON_TYPE_NAMES.get(t)
    if name is not None:
        return name
    for base, base_name in _JSON_TYPE_NAMES.items():
        if issubclass(t, base):
            return f"{base_name} ({_class_name(t)})"
    return f"a Python {_class_name(t)} object"


def _class_name(t: type) -> str:
    name = type.__dict__["__name__"].__get__(t)
    if not isinstance(name, str) or len(name) > 40 or not name.isidentifier():  # pragma: no cover - odd classes
        return "object"
    return name
