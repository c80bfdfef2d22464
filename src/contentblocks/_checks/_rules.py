"""Each rule of the format once: the limits, then every field rule and cross-field rule with its wording.

A field of a model class names its rule in its attrs metadata (``rule=...``). A :class:`Rule` says what the
field holds (its ``kind``), the words for each way a value can be wrong, the condition the generated
structure code inlines for the common valid value, and the JSON Schema definition that describes it. The
classes' own check (``_model``), the generated structure and unstructure functions (``_gen``) and the
schema (``_schema``) all read these declarations; none of them states a rule of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from .._errors import describe_type
from .._json._values import INT_MAX
from ._grammar import TTL_MAX
from ._kinds import (
    ASCII_IDENTIFIER,
    BINARY,
    CHOICE,
    FREE,
    JSON,
    MISSING_KEY,
    NULL_OPTIONAL,
    SCALAR,
    TEXT,
    TRIMMED,
    URI_MATCH,
    FastText,
    Kind,
    expected_one_of,
    text_problem,
)
from ._kinds import FLAG as FLAG_KIND
from ._kinds import METADATA as METADATA_KIND
from ._kinds import OFFSET as OFFSET_KIND
from ._kinds_nested import MANY, ONE
from ._patterns import (
    check_filename,
    check_free_text,
    check_identifier,
    check_media_type,
    check_no_surrounding_space,
    check_uri,
    check_url,
)

__all__ = [
    "DATA",
    "DEFAULT_LIMITS",
    "FILENAME",
    "FLAG",
    "FREE_TEXT",
    "IDENTIFIER",
    "ID_OR_NAME",
    "INDEX",
    "INDEX_IN_RANGE",
    "JSON_VALUE",
    "MAX_DEPTH_CEILING",
    "MEDIA_TYPE",
    "METADATA",
    "MISSING_KEY",
    "NULL_OPTIONAL",
    "OFFSET",
    "ONE_OF",
    "PAGE",
    "PAGE_RANGE",
    "PIECE",
    "RANGE",
    "REASONING_SHAPE",
    "REDACTED",
    "REFERENCE",
    "SPAN",
    "SPAN_WITHIN_TEXT",
    "TITLE",
    "TOOL_CALL_ONLY",
    "TTL",
    "TTL_MAX",
    "TTL_SECONDS",
    "URI",
    "URL",
    "CannotFail",
    "CrossRule",
    "Limits",
    "Rule",
    "choice",
    "expected_one_of",
    "many",
    "text_problem",
]

#: Nesting depths above this cannot be serialised by the standard library's json module anyway.
MAX_DEPTH_CEILING = 500


def _positive(_inst: object, attribute: attrs.Attribute[int], value: int) -> None:
    if type(value) is not int or value < 1:
        msg = f"{attribute.name} must be a positive int"
        raise ValueError(msg)


def _depth(inst: object, attribute: attrs.Attribute[int], value: int) -> None:
    _positive(inst, attribute, value)
    if value > MAX_DEPTH_CEILING:
        msg = f"max_depth must be at most {MAX_DEPTH_CEILING}"
        raise ValueError(msg)


@attrs.frozen(kw_only=True)
class Limits:
    """The size limits a converter enforces (SPEC §5-§6); every one is a keyword of ``make_converter``.

    Attributes:
        max_text_chars: characters in any one string (text, quotes, JSON strings and keys).
        max_binary_bytes: decoded bytes of one binary field; the base64 length is checked before decoding.
        max_uri_chars: characters of a URL, a citation URI or a file reference id.
        max_depth: nested containers in one JSON value (at most 500).
        max_nodes: values (containers and scalars) in one JSON value.
        max_errors: problems kept in one ``ValidationError``; the rest are counted in ``omitted``.
    """

    max_text_chars: int = attrs.field(default=10_000_000, validator=_positive)
    max_binary_bytes: int = attrs.field(default=32 * 1024 * 1024, validator=_positive)
    max_uri_chars: int = attrs.field(default=8192, validator=_positive)
    max_depth: int = attrs.field(default=100, validator=_depth)
    max_nodes: int = attrs.field(default=1_000_000, validator=_positive)
    max_errors: int = attrs.field(default=100, validator=_positive)


DEFAULT_LIMITS = Limits()

@attrs.frozen(kw_only=True)
class Rule:
    """What one field holds and what makes a value of it valid.

    ``kind`` is how the value is held and carried, one object of ``_kinds`` (or ``_kinds_nested``) that every
    backend asks: ``text`` (a string ruled by ``problem``), ``choice`` (one of ``choices``), ``binary``
    (bytes; base64 text on the JSON wire), ``json`` (any JSON value, held read-only), ``metadata`` (a JSON
    object with non-empty keys), ``offset`` (an int, ruled with its pair by a cross rule), ``scalar`` (a value
    held as it is, ruled by ``problem``), ``one`` (an instance of the class or union the field is annotated
    with) and ``many`` (a sequence of them). A field whose
    default is ``None`` is optional; its key is left out when absent.
    """

    kind: Kind
    #: ``text``: the problem with a string value, or None; called with the value and the limit below.
    #: ``scalar``: the problem with a value of any type (its type included), called the same way.
    problem: Callable[[Any, int], str | None] | None = None
    #: ``text``: the ``Limits`` attribute bounding the string (None for a rule with a fixed bound).
    limit: str | None = None
    #: ``text``: a condition that holds for valid values only, and the C kernel that tests it (``FastText``);
    #: it may leave out nothing but speed: the generator calls ``problem`` for every value that fails it.
    fast: FastText | None = None
    #: ``choice``: the values allowed.
    choices: tuple[str, ...] = ()
    #: ``binary`` and ``many``: the words for an empty value, which is then refused ("" allows it).
    nonempty: str = ""
    #: ``many``: what the sequence and one of its items are called, as a Python value (``blocks``, ``a block``).
    items: str = ""
    item: str = ""
    #: ``many``: the class a string stands for one instance of, filled as its text (a message's text block).
    shorthand: type | None = None
    #: The JSON Schema definition (in ``_schema_parts``) that describes the value.
    schema: str = ""

    def max_chars(self, limits: Limits) -> int:
        """The bound ``problem`` is called with: the limit the rule names, or 0 for a rule with its own bound."""
        return getattr(limits, self.limit) if self.limit else 0

    def fast_condition(self, value: str, limit: str, problem: str) -> str:
        """The inline condition on the variable ``value``, given the names bound to the limit and to ``problem``.

        Without a declared ``fast``, it is ``problem`` itself.
        """
        if self.fast is not None:
            return self.fast.condition.format(v=value, max=limit)
        return f"type({value}) is str and {problem}({value}, {limit}) is None"

    def check(self, value: object, limits: Limits = DEFAULT_LIMITS) -> str | None:
        """What is wrong with ``value`` for this ``text``, ``choice`` or ``scalar`` rule under ``limits``, or None.

        The question an adapter asks of a provider's value before it builds a field from it (a citation's title,
        a tool call's id), so that it holds the value to the field's own rule and limit, never to one of its own.

        >>> TITLE.check("Grass " * 2000 + "report"), TITLE.check(" padded")
        (None, 'has leading or trailing whitespace')
        >>> URI.check("urn:isbn:0451450523", Limits(max_uri_chars=10))
        'longer than 10 characters'
        """
        return self.kind.check(self, value, limits)

    def accepts(self, value: object, limits: Limits = DEFAULT_LIMITS) -> bool:
        """Whether ``value`` meets this rule under ``limits`` (see ``check``).

        >>> IDENTIFIER.accepts("toolu_01"), IDENTIFIER.accepts("tool 1"), FILENAME.accepts(None)
        (True, False, False)
        """
        return self.check(value, limits) is None

    def decode(self, value: str, limits: Limits = DEFAULT_LIMITS) -> bytes | str:
        """The bytes a ``binary`` rule's base64 text holds under ``limits``, or a message saying what is wrong.

        >>> DATA.decode("aGk="), REDACTED.decode("")
        (b'hi', 'must hold at least one byte')
        """
        return self.kind.decode(self, value, limits)


def _free_text(value: str, max_chars: int) -> str | None:
    return "must not be empty" if not value else check_free_text(value, max_chars)


def _fixed(check: Callable[[str], str | None]) -> Callable[[str, int], str | None]:
    def problem(value: str, _max_chars: int) -> str | None:
        return check(value)

    problem.__name__ = check.__name__
    return problem


def _not_an_integer(value: object) -> str | None:
    """The words for a value that is not an int (``True`` is not one), or None for an int."""
    return None if type(value) is int else f"expected an integer, got {describe_type(value)}"


def _position(value: Any, _max_chars: int) -> str | None:
    """An int, 0 or more (a block's place in a streamed reply)."""
    if type(value) is not int:
        return _not_an_integer(value)
    return "must be 0 or more" if value < 0 else None


FREE_TEXT = Rule(kind=TEXT, problem=_free_text, limit="max_text_chars", fast=FREE, schema="Text")
#: A piece of streamed text: free text that may be empty (an empty delta adds nothing).
PIECE = Rule(kind=TEXT, problem=check_free_text, limit="max_text_chars")
TITLE = Rule(kind=TEXT, problem=check_no_surrounding_space, limit="max_text_chars", fast=TRIMMED, schema="Title")
REFERENCE = Rule(
    kind=TEXT, problem=check_no_surrounding_space, limit="max_uri_chars", fast=TRIMMED, schema="Reference"
)
URI = Rule(kind=TEXT, problem=check_uri, limit="max_uri_chars", fast=URI_MATCH, schema="Uri")
URL = Rule(kind=TEXT, problem=check_url, limit="max_uri_chars", schema="Url")
MEDIA_TYPE = Rule(kind=TEXT, problem=_fixed(check_media_type), schema="MediaType")
FILENAME = Rule(kind=TEXT, problem=_fixed(check_filename), schema="Filename")
IDENTIFIER = Rule(
    kind=TEXT,
    problem=_fixed(check_identifier),
    fast=ASCII_IDENTIFIER,
    schema="Identifier",
)
DATA = Rule(kind=BINARY, schema="Base64")
REDACTED = Rule(kind=BINARY, nonempty="must hold at least one byte", schema="Base64")
JSON_VALUE = Rule(kind=JSON, schema="JsonValue")
METADATA = Rule(kind=METADATA_KIND, schema="Metadata")
OFFSET = Rule(kind=OFFSET_KIND, schema="Offset")
ONE_OF = Rule(kind=ONE)
INDEX = Rule(kind=SCALAR, problem=_position)
FLAG = Rule(kind=FLAG_KIND, schema="Flag")
#: A page number or a block index in a location's range, checked with its pair by the range's cross rule.
PAGE = Rule(kind=OFFSET_KIND, schema="Page")
INDEX_IN_RANGE = Rule(kind=OFFSET_KIND, schema="Index")
#: A cache breakpoint's time to live in seconds, checked by its cross rule ``TTL`` (so that the C walk reads it).
TTL_SECONDS = Rule(kind=OFFSET_KIND, schema="Ttl")


def choice(values: Sequence[str]) -> Rule:
    """A rule for a string that is one of ``values`` (a role, an outcome)."""
    return Rule(kind=CHOICE, choices=tuple(values))


def many(items: str, item: str, *, nonempty: str = "", shorthand: type | None = None) -> Rule:
    """A rule for a sequence of the instances a field is annotated with (``tuple[Citation, ...]``)."""
    return Rule(kind=MANY, items=items, item=item, nonempty=nonempty, shorthand=shorthand)


# ---------------------------------------------------------------------------------- cross-field rules


@attrs.frozen
class CannotFail:
    """When a cross rule's values need no call: one form, tested inline by generated Python and by the C walk.

    ``absent``: every field of the rule is None. ``empty``: the field ``field`` is empty. ``allowed_types``:
    the field ``field`` is not a key of ``allowed``, or the class of every item of ``items`` is in the set
    ``allowed`` gives for it (a role and the blocks it may carry).
    """

    form: str
    field: str = ""
    items: str = ""
    allowed: dict[str, frozenset[type]] = attrs.field(factory=dict, eq=False)

    def source(self, fields: tuple[str, ...], var: Callable[[str], str], allowed: str) -> str:
        """The Python condition, with each field's value read from the variable ``var(name)``.

        ``allowed`` is the name the caller binds ``self.allowed`` to.
        """
        if self.form == "absent":
            return " and ".join(f"{var(f)} is None" for f in fields)
        if self.form == "empty":
            return f"not {var(self.field)}"
        key, items = var(self.field), var(self.items)
        return f"type({key}) is not str or {key} not in {allowed} or {allowed}[{key}].issuperset(map(type, {items}))"


@attrs.frozen
class CrossRule:
    """A rule over several fields of one object, checked once each field has been read.

    ``check(problems, path, *values)`` gets the values of ``fields`` in order (raw or half-read values where
    a field had a problem of its own, so it must take anything), then those of ``given`` as they were given
    (before their field's rule held them: a message's content string before it became a text block), and
    appends its problems under ``path``. Where the values meet ``cannot_fail``, the generated code does not
    call it.
    """

    fields: tuple[str, ...]
    check: Callable[..., None]
    given: tuple[str, ...] = ()
    cannot_fail: CannotFail | None = None


def _span(problems: list[tuple[str, str]], path: str, start: object, end: object) -> None:
    """Citation ``start``/``end``: both or neither, ints, ``0 <= start <= end``."""
    if (start is None and end is None) or (type(start) is int and type(end) is int and 0 <= start <= end):
        return
    ok = True
    for name, value in (("start", start), ("end", end)):
        if value is None:
            problems.append((path, "start and end come together: give both or neither"))
            return
        if (problem := _not_an_integer(value)) is not None:
            problems.append((f"{path}.{name}", problem))
            ok = False
    if ok and not 0 <= start <= end:  # type: ignore[operator]
        problems.append((path, "span must satisfy 0 <= start <= end"))


def _range_from(first: int) -> Callable[[list[tuple[str, str]], str, object, object], None]:
    """The check of a location's range whose ends are ints, ``first`` or more, ``start < end`` (end excluded).

    An end is at most ``INT_MAX``, the largest integer a JSON value holds, so that every encoder can write it.
    """

    def check(problems: list[tuple[str, str]], path: str, start: object, end: object) -> None:
        if type(start) is int and type(end) is int and first <= start < end <= INT_MAX:
            return
        ok = True
        for name, value in (("start", start), ("end", end)):
            if value is None:
                problems.append((f"{path}.{name}", MISSING_KEY))
                ok = False
            elif (problem := _not_an_integer(value)) is not None:
                problems.append((f"{path}.{name}", problem))
                ok = False
            elif value < first:  # type: ignore[operator]
                problems.append((f"{path}.{name}", f"must be {first} or more"))
                ok = False
            elif value > INT_MAX:  # type: ignore[operator]
                problems.append((f"{path}.{name}", "must be at most 2**64-1, the largest integer JSON values hold"))
                ok = False
        if ok:
            problems.append((path, "a range must satisfy start < end (end is excluded): it is never empty"))

    return check


def _span_within_text(problems: list[tuple[str, str]], path: str, text: object, citations: Any) -> None:
    """Each citation's span ends within the text it belongs to (in code points)."""
    if type(text) is not str or type(citations) is not tuple:
        return
    length = len(text)
    for i, citation in enumerate(citations):
        end = getattr(citation, "end", None)
        if type(end) is int and end > length:
            problems.append((f"{path}.citations[{i}].end", f"span ends after the text ({length} code points long)"))


def _reasoning_shape(
    problems: list[tuple[str, str]], path: str, text: object, signature: object, redacted: object
) -> None:
    """At least one of text, signature, redacted; redacted excludes the other two."""
    if text is None and signature is None and redacted is None:
        problems.append((path, "reasoning needs text, a signature or redacted bytes"))
    elif redacted is not None and (text is not None or signature is not None):
        problems.append((path, "redacted reasoning carries neither text nor a signature"))


def _tool_call_only(
    problems: list[tuple[str, str]], path: str, kind: object, tool_call_id: object, tool_name: object
) -> None:
    """A streamed block names a tool call's id or name only if it is a tool call."""
    if kind != "tool_call" and (tool_call_id is not None or tool_name is not None):
        problems.append((path, "only a tool_call block has a tool call id and name"))


def _id_or_name(problems: list[tuple[str, str]], path: str, tool_call_id: object, tool_name: object) -> None:
    """What becomes known of a tool call: its id, its name or both."""
    if tool_call_id is None and tool_name is None:
        problems.append((path, "give a tool call id, a tool name or both"))


def _ttl(problems: list[tuple[str, str]], path: str, ttl: object) -> None:
    """A time to live: absent (the provider's default), or a whole number of seconds from 1 to ``TTL_MAX``."""
    if ttl is None or (type(ttl) is int and 1 <= ttl <= TTL_MAX):
        return
    problem = _not_an_integer(ttl)
    if problem is None:
        problem = "must be 1 or more (seconds)" if ttl < 1 else f"must be at most {TTL_MAX} seconds (2**31-1)"  # type: ignore[operator]
    problems.append((f"{path}.ttl", problem))


SPAN = CrossRule(("start", "end"), _span, cannot_fail=CannotFail("absent"))
RANGE = CrossRule(("start", "end"), _range_from(0))
PAGE_RANGE = CrossRule(("start", "end"), _range_from(1))
SPAN_WITHIN_TEXT = CrossRule(("text", "citations"), _span_within_text, cannot_fail=CannotFail("empty", "citations"))
REASONING_SHAPE = CrossRule(("text", "signature", "redacted"), _reasoning_shape)
TOOL_CALL_ONLY = CrossRule(("kind", "tool_call_id", "tool_name"), _tool_call_only)
ID_OR_NAME = CrossRule(("tool_call_id", "tool_name"), _id_or_name)
TTL = CrossRule(("ttl",), _ttl, cannot_fail=CannotFail("absent"))
