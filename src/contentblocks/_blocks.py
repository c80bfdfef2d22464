"""The block classes: frozen, slotted attrs classes that check every rule of the spec when built.

They hold data only: no serialisation, no wire tags, no cattrs. Built in Python, a block validates its
fields against the default limits and raises ``ValidationError`` listing every problem; the converter hooks
check the same rules (with the converter's limits) before they build a block without re-checking it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import attrs

from ._checks import check_identifier_field, check_span, check_str, freeze_metadata, reasoning_problems
from ._errors import ValidationError, describe_type
from ._json import EMPTY_OBJECT, JsonObject, freeze, json_key
from ._rules import (
    DEFAULT_LIMITS,
    check_filename,
    check_media_type,
    check_no_surrounding_space,
    check_uri,
    check_url,
)

__all__ = [
    "Block",
    "BytesSource",
    "Citation",
    "CitationSource",
    "CitedReference",
    "CitedUri",
    "FileBlock",
    "FileSource",
    "JsonBlock",
    "Outcome",
    "ReasoningBlock",
    "ReferenceSource",
    "RefusalBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolResultContent",
    "UrlSource",
]

Outcome: TypeAlias = Literal["succeeded", "failed", "denied"]
"""How a tool call ended: it ran and succeeded, it ran and failed, or it was not allowed to run."""

OUTCOMES: frozenset[str] = frozenset({"succeeded", "failed", "denied"})
_LIMITS = DEFAULT_LIMITS


class _Immutable:
    """Blocks cannot change, so a copy is the block itself (as for tuples and strings)."""

    __slots__ = ()

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: object) -> Any:
        return self


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


def _raise(problems: list[tuple[str, str]]) -> None:
    if problems:
        raise ValidationError(problems)


def _bytes_repr(value: bytes | None) -> str:
    return "None" if value is None else f"<{len(value)} bytes>"


def _tuple_of(
    problems: list[tuple[str, str]], path: str, value: object, allowed: tuple[type, ...], items: str, item: str
) -> tuple[Any, ...]:
    """A tuple of instances of ``allowed`` from a list or tuple; problems for anything else.

    ``items`` names what the list holds (``"blocks"``), ``item`` one of them (``"a block"``).
    """
    if not isinstance(value, (list, tuple)):
        problems.append((path, f"expected a list of {items}, got {describe_type(value)}"))
        return ()
    items_ = tuple(value)
    for i, entry in enumerate(items_):
        if not isinstance(entry, allowed):
            problems.append((f"{path}[{i}]", f"expected {item}, got {describe_type(entry)}"))
    return items_


def as_tuple(value: Any) -> Any:
    """A sequence field's value as the tuple the field holds (a list, or any other sequence but a string).

    Anything else is returned as it is, for the class's own check to word. The fields' converters are typed
    wrappers of this one, so that the constructors take lists, as ``Message(role="user", content=[...])`` is
    written (attrs' mypy plugin reads a converter's signature, and it reads no generic one).
    """
    if type(value) is tuple:
        return value
    if type(value) is list or (isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))):
        return tuple(value)
    return value


def _citations(value: Sequence[Citation]) -> tuple[Citation, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


def _result_content(value: Sequence[ToolResultContent]) -> tuple[ToolResultContent, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


def _metadata(self: object, problems: list[tuple[str, str]]) -> None:
    value = self.metadata  # type: ignore[attr-defined]
    if type(value) is not JsonObject or value:
        _set(self, "metadata", freeze_metadata(problems, "$.metadata", value, _LIMITS))


_metadata_field = attrs.field(default=EMPTY_OBJECT, eq=json_key)

# ---------------------------------------------------------------------------------------------- citations


@attrs.frozen(kw_only=True)
class CitedUri(_Immutable):
    """A citation's source named by an absolute URI of any scheme (``https:``, ``doi:``, ``urn:``...).

    The URI is never resolved or fetched.
    """

    value: str

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(problems, "$.value", self.value, lambda v: check_uri(v, _LIMITS.max_uri_chars), limits=_LIMITS)
        _raise(problems)


@attrs.frozen(kw_only=True)
class CitedReference(_Immutable):
    """A citation's source named by an opaque identifier whose meaning belongs to the provider or host."""

    value: str

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(
            problems,
            "$.value",
            self.value,
            lambda v: check_no_surrounding_space(v, _LIMITS.max_uri_chars),
            limits=_LIMITS,
        )
        _raise(problems)


CitationSource: TypeAlias = CitedUri | CitedReference


@attrs.frozen(kw_only=True)
class Citation(_Immutable):
    """Where a text block's claim comes from, optionally with the span of the text it supports.

    ``start`` and ``end`` count Unicode code points of the enclosing text (Python string indices).
    """

    source: CitationSource
    title: str | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        if not isinstance(self.source, (CitedUri, CitedReference)):
            problems.append(("$.source", f"expected CitedUri or CitedReference, got {describe_type(self.source)}"))
        if self.title is not None:
            check_str(
                problems,
                "$.title",
                self.title,
                lambda v: check_no_surrounding_space(v, _LIMITS.max_text_chars),
                limits=_LIMITS,
            )
        if self.quote is not None:
            check_str(problems, "$.quote", self.quote, limits=_LIMITS)
        check_span(problems, "$", self.start, self.end, None)
        _raise(problems)


# ---------------------------------------------------------------------------------------------- blocks


@attrs.frozen(kw_only=True)
class TextBlock(_Immutable):
    """Text, optionally with citations; whitespace-only text is kept as it is.

    >>> import contentblocks as cb
    >>> cb.TextBlock(text="Paris is the capital of France.")
    TextBlock(text='Paris is the capital of France.', citations=(), metadata=JsonObject({}))
    """

    text: str
    citations: tuple[Citation, ...] = attrs.field(default=(), converter=_citations)
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        ok = check_str(problems, "$.text", self.text, limits=_LIMITS)
        citations = _tuple_of(problems, "$.citations", self.citations, (Citation,), "citations", "a Citation")
        _set(self, "citations", citations)
        for i, citation in enumerate(citations):
            if ok and isinstance(citation, Citation) and citation.start is not None:
                check_span(problems, f"$.citations[{i}]", citation.start, citation.end, len(self.text))
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen(kw_only=True)
class RefusalBlock(_Immutable):
    """The model declined to answer; ``text`` says so in its words."""

    text: str
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(problems, "$.text", self.text, limits=_LIMITS)
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen(kw_only=True)
class BytesSource(_Immutable):
    """File content held inline; base64 on the JSON wire, raw ``bytes`` in Python (and in msgpack or CBOR)."""

    data: bytes = attrs.field(repr=_bytes_repr)

    def __attrs_post_init__(self) -> None:
        data = self.data
        if isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
            _set(self, "data", data)
        if type(data) is not bytes:
            _raise([("$.data", f"expected bytes, got {describe_type(data)}")])
        elif len(data) > _LIMITS.max_binary_bytes:
            _raise([("$.data", f"more than {_LIMITS.max_binary_bytes:,} bytes")])


@attrs.frozen(kw_only=True)
class UrlSource(_Immutable):
    """File content at an absolute http(s) URL; the library never fetches it."""

    url: str

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(problems, "$.url", self.url, lambda v: check_url(v, _LIMITS.max_uri_chars), limits=_LIMITS)
        _raise(problems)


@attrs.frozen(kw_only=True)
class ReferenceSource(_Immutable):
    """A file hosted by a provider or store: an Anthropic or OpenAI file id, a Gemini file URI, an S3 URI."""

    id: str
    provider: str | None = None

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(
            problems, "$.id", self.id, lambda v: check_no_surrounding_space(v, _LIMITS.max_uri_chars), limits=_LIMITS
        )
        if self.provider is not None:
            check_identifier_field(problems, "$.provider", self.provider)
        _raise(problems)


FileSource: TypeAlias = BytesSource | UrlSource | ReferenceSource


@attrs.frozen(kw_only=True)
class FileBlock(_Immutable):
    """A file or media item (image, audio, PDF...) given inline, by URL or by a provider's reference."""

    media_type: str
    source: FileSource
    filename: str | None = None
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_str(problems, "$.media_type", self.media_type, check_media_type, limits=_LIMITS)
        if not isinstance(self.source, (BytesSource, UrlSource, ReferenceSource)):
            problems.append(
                ("$.source", f"expected BytesSource, UrlSource or ReferenceSource, got {describe_type(self.source)}")
            )
        if self.filename is not None:
            check_str(problems, "$.filename", self.filename, check_filename, limits=_LIMITS)
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen(kw_only=True)
class ReasoningBlock(_Immutable):
    """The model's reasoning: visible ``text``, an opaque ``signature`` to send back, or ``redacted`` bytes.

    At least one is present; redacted reasoning carries neither text nor a signature.
    """

    text: str | None = None
    signature: str | None = None
    redacted: bytes | None = attrs.field(default=None, repr=_bytes_repr)
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        if self.text is not None:
            check_str(problems, "$.text", self.text, limits=_LIMITS)
        if self.signature is not None:
            check_str(problems, "$.signature", self.signature, limits=_LIMITS)
        redacted = self.redacted
        if isinstance(redacted, (bytearray, memoryview)):
            redacted = bytes(redacted)
            _set(self, "redacted", redacted)
        if redacted is not None:
            if type(redacted) is not bytes:
                problems.append(("$.redacted", f"expected bytes, got {describe_type(redacted)}"))
            elif not redacted:
                problems.append(("$.redacted", "must hold at least one byte"))
            elif len(redacted) > _LIMITS.max_binary_bytes:
                problems.append(("$.redacted", f"more than {_LIMITS.max_binary_bytes:,} bytes"))
        reasoning_problems(problems, "$", self.text, self.signature, redacted)
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen(kw_only=True)
class ToolCallBlock(_Immutable):
    """A request to run a tool; ``input`` is any JSON value (``None`` included), held read-only."""

    tool_call_id: str
    tool_name: str
    input: Any = attrs.field(eq=json_key)
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_identifier_field(problems, "$.tool_call_id", self.tool_call_id)
        check_identifier_field(problems, "$.tool_name", self.tool_name)
        _set(self, "input", freeze(self.input, "$.input", _LIMITS, problems))
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen(kw_only=True)
class JsonBlock(_Immutable):
    """A JSON value as content (structured tool output, a form's answers); held read-only."""

    value: Any = attrs.field(eq=json_key)
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        _set(self, "value", freeze(self.value, "$.value", _LIMITS, problems))
        _metadata(self, problems)
        _raise(problems)


ToolResultContent: TypeAlias = TextBlock | FileBlock | JsonBlock
TOOL_RESULT_CONTENT = (TextBlock, FileBlock, JsonBlock)


_RESULT_ITEM = "a TextBlock, FileBlock or JsonBlock"


@attrs.frozen(kw_only=True)
class ToolResultBlock(_Immutable):
    """What a tool call produced: its ``outcome`` and content (text, files and JSON, in order; may be empty)."""

    tool_call_id: str
    tool_name: str
    outcome: Outcome
    content: tuple[ToolResultContent, ...] = attrs.field(default=(), converter=_result_content)
    metadata: Mapping[str, Any] = _metadata_field

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[str, str]] = []
        check_identifier_field(problems, "$.tool_call_id", self.tool_call_id)
        check_identifier_field(problems, "$.tool_name", self.tool_name)
        if type(self.outcome) is not str or self.outcome not in OUTCOMES:
            problems.append(("$.outcome", "expected one of: succeeded, failed, denied"))
        _set(
            self,
            "content",
            _tuple_of(problems, "$.content", self.content, TOOL_RESULT_CONTENT, "blocks", _RESULT_ITEM),
        )
        _metadata(self, problems)
        _raise(problems)


Block: TypeAlias = TextBlock | RefusalBlock | FileBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | JsonBlock
BLOCK_CLASSES = (TextBlock, RefusalBlock, FileBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock, JsonBlock)
