"""The model's values: what every class shares (its check, its copies), and the values blocks hold.

``Checked`` and ``Value`` give every class its one check and its copy-free copies; the citations, their sources and
locations, and the cache breakpoint are the values that blocks hold. The blocks and messages are in ``_classes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal, TypeAlias

import attrs

from .._checks._instances import check_instance, resolve_annotations
from .._checks._rules import (
    FREE_TEXT,
    INDEX_IN_RANGE,
    METADATA,
    OFFSET,
    ONE_OF,
    PAGE,
    PAGE_RANGE,
    RANGE,
    REFERENCE,
    SPAN,
    TITLE,
    TTL,
    TTL_SECONDS,
    URI,
    CrossRule,
    Rule,
    many,
)
from .._json._values import EMPTY_OBJECT, json_key

__all__ = [
    "BlockRange",
    "CacheBreakpoint",
    "CharacterRange",
    "Checked",
    "Citation",
    "CitationLocation",
    "CitationSource",
    "CitedReference",
    "CitedUri",
    "Outcome",
    "PageRange",
    "Role",
    "Value",
    "as_tuple",
    "bytes_repr",
    "metadata_field",
    "ruled",
]

Outcome: TypeAlias = Literal["succeeded", "failed", "denied", "interrupted"]
"""How a tool call ended: it ran and succeeded, it ran and failed, it was not allowed to run, or the run stopped
before it finished (a cancelled run, a crash): the call is answered, and the content may say what happened."""

Role: TypeAlias = Literal["system", "developer", "user", "assistant", "tool"]
"""Who speaks: instructions (system, developer), the user, the model (assistant), or tools."""


class Checked:
    """A frozen class built in Python checks its fields' rules (in their metadata), then its cross rules."""

    __slots__ = ()
    __cross_rules__: ClassVar[tuple[CrossRule, ...]] = ()

    def __attrs_post_init__(self) -> None:
        check_instance(self)


class Value(Checked):
    """What every model class shares: it cannot change, so a copy is the instance itself (as for tuples)."""

    __slots__ = ()

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: object) -> Any:
        return self


def bytes_repr(value: bytes | None) -> str:
    return "None" if value is None else f"<{len(value)} bytes>"


def as_tuple(value: Any) -> Any:
    """A sequence field's value as the tuple the field holds (a list, or any other sequence but a string).

    Anything else is returned as it is, for the class's check to word. The fields' converters are typed
    wrappers of this one, so that the constructors take lists, as ``Message(role="user", content=[...])`` is
    written (attrs' mypy plugin reads a converter's signature, and it reads no generic one).
    """
    if type(value) is tuple:
        return value
    if type(value) is list or (isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))):
        return tuple(value)
    return value


def ruled(rule: Rule) -> dict[str, Rule]:
    """The attrs metadata of a field that ``rule`` governs: ``attrs.field(metadata=ruled(FREE_TEXT))``."""
    return {"rule": rule}


def metadata_field() -> Any:
    """The ``metadata`` field every block and message has: a JSON object, empty by default."""
    return attrs.field(metadata=ruled(METADATA), default=EMPTY_OBJECT, eq=json_key)


def _sources(value: Sequence[CitationSource]) -> tuple[CitationSource, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------- citations


@attrs.frozen(kw_only=True)
class CitedUri(Value):
    """A citation's source named by an absolute URI of any scheme (``https:``, ``doi:``, ``urn:``...).

    The URI is never resolved or fetched.
    """

    value: str = attrs.field(metadata=ruled(URI))


@attrs.frozen(kw_only=True)
class CitedReference(Value):
    """A citation's source named by an opaque identifier whose meaning belongs to the provider or host."""

    value: str = attrs.field(metadata=ruled(REFERENCE))


CitationSource: TypeAlias = CitedUri | CitedReference


@attrs.frozen(kw_only=True)
class PageRange(Value):
    """Pages ``start`` up to ``end`` (excluded) of a paged document, numbered from 1 as printed.

    >>> PageRange(start=3, end=4)  # page 3 alone
    PageRange(start=3, end=4)
    """

    start: int = attrs.field(metadata=ruled(PAGE))
    end: int = attrs.field(metadata=ruled(PAGE))

    __cross_rules__ = (PAGE_RANGE,)


@attrs.frozen(kw_only=True)
class CharacterRange(Value):
    """Characters ``start`` up to ``end`` (excluded) of a text document, in code points from 0."""

    start: int = attrs.field(metadata=ruled(OFFSET))
    end: int = attrs.field(metadata=ruled(OFFSET))

    __cross_rules__ = (RANGE,)


@attrs.frozen(kw_only=True)
class BlockRange(Value):
    """Content blocks ``start`` up to ``end`` (excluded) of a document given as blocks, counted from 0."""

    start: int = attrs.field(metadata=ruled(INDEX_IN_RANGE))
    end: int = attrs.field(metadata=ruled(INDEX_IN_RANGE))

    __cross_rules__ = (RANGE,)


CitationLocation: TypeAlias = PageRange | CharacterRange | BlockRange


@attrs.frozen(kw_only=True)
class Citation(Value):
    """Where a text block's claim comes from, optionally with the span of the text it supports.

    ``start`` and ``end`` count Unicode code points of the enclosing text (Python string indices);
    ``location`` says where in the source the quote is: its pages, characters or content blocks.
    ``other_sources`` names further sources that support the same span (a grounding support backed by several
    search results); the title, quote and location apply to every source.
    """

    source: CitationSource = attrs.field(metadata=ruled(ONE_OF))
    other_sources: tuple[CitationSource, ...] = attrs.field(
        metadata=ruled(many("citation sources", "a CitedUri or CitedReference")), default=(), converter=_sources
    )
    title: str | None = attrs.field(metadata=ruled(TITLE), default=None)
    quote: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    start: int | None = attrs.field(metadata=ruled(OFFSET), default=None)
    end: int | None = attrs.field(metadata=ruled(OFFSET), default=None)
    location: CitationLocation | None = attrs.field(metadata=ruled(ONE_OF), default=None)

    __cross_rules__ = (SPAN,)


# ---------------------------------------------------------------------------------------------- the cache breakpoint



@attrs.frozen(kw_only=True)
class CacheBreakpoint(Value):
    """A prompt-cache breakpoint: the prompt up to and including what carries it may be cached by the provider.

    ``ttl`` is how long the entry should live, in seconds (``None``: the provider's default). Writers map it to
    what their provider has (Anthropic ``cache_control``) and report it where the provider has nothing.

    >>> CacheBreakpoint(ttl=3600)
    CacheBreakpoint(ttl=3600)
    """

    ttl: int | None = attrs.field(metadata=ruled(TTL_SECONDS), default=None)

    __cross_rules__ = (TTL,)



resolve_annotations(globals())
