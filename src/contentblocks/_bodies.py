"""The structure hooks' bodies: one closure per wire object, built once per converter.

A body takes a raw dict and a problem list, and returns the instance it built (meaningless when it added a
problem). Each checks the valid case with inline comparisons, bound as locals, and asks ``_fields`` for the
wording only when something is wrong. Instances are made by ``_unchecked`` constructors: the checks here are
the same rules the classes apply, so they are not run twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._blocks import (
    OUTCOMES,
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ._checks import check_identifier_field, check_span, reasoning_problems
from ._fields import (
    MISSING,
    NULL_OPTIONAL,
    Problems,
    unknown_keys,
)
from ._json import EMPTY_OBJECT, freeze
from ._messages import KIND_NAMES, Message
from ._readers import Body, Readers
from ._rules import (
    Limits,
    check_filename,
    check_media_type,
    check_no_surrounding_space,
    check_uri,
    check_url,
    find_surrogate,
)
from ._unchecked import unchecked

__all__ = ["KEYS", "TAGS", "Bodies"]

#: Wire keys of every object, in output order.
KEYS: dict[type, tuple[str, ...]] = {
    TextBlock: ("type", "text", "citations", "metadata"),
    RefusalBlock: ("type", "text", "metadata"),
    FileBlock: ("type", "media_type", "source", "filename", "metadata"),
    ReasoningBlock: ("type", "text", "signature", "redacted", "metadata"),
    ToolCallBlock: ("type", "tool_call_id", "tool_name", "input", "metadata"),
    ToolResultBlock: ("type", "tool_call_id", "tool_name", "outcome", "content", "metadata"),
    JsonBlock: ("type", "value", "metadata"),
    BytesSource: ("type", "data"),
    UrlSource: ("type", "url"),
    ReferenceSource: ("type", "id", "provider"),
    Citation: ("source", "title", "quote", "start", "end"),
    CitedUri: ("kind", "value"),
    CitedReference: ("kind", "value"),
    Message: ("role", "content", "metadata"),
}
#: The ``type`` (or ``kind``) tag of each tagged class.
TAGS: dict[type, str] = {
    **KIND_NAMES,
    BytesSource: "base64",
    UrlSource: "url",
    ReferenceSource: "reference",
    CitedUri: "uri",
    CitedReference: "reference",
}
_NAMES = {
    **{cls: f"a {tag} block" for cls, tag in KIND_NAMES.items()},
    BytesSource: "a base64 source",
    UrlSource: "a url source",
    ReferenceSource: "a reference source",
    Citation: "a citation",
    CitedUri: "a uri citation source",
    CitedReference: "a reference citation source",
    Message: "a message",
}
_ALLOWED = {cls: frozenset(keys) for cls, keys in KEYS.items()}
_LISTING = {cls: f"{_NAMES[cls]} has: {', '.join(keys)}" for cls, keys in KEYS.items()}


class Bodies:
    """Every body for one converter's limits and binary mode; ``block``, ``message`` and friends dispatch."""

    def __init__(self, limits: Limits, *, native_binary: bool) -> None:  # noqa: C901, PLR0915 - the closures share locals on purpose
        max_chars = limits.max_text_chars
        max_uri = limits.max_uri_chars
        cap = limits.max_errors
        surrogate = find_surrogate
        new = {cls: unchecked(cls) for cls in KEYS}
        allowed = _ALLOWED
        listing = _LISTING
        bytes_source_fits = allowed[BytesSource].issuperset  # ``keys <= allowed`` without a keys view
        citation_fits = allowed[Citation].issuperset
        cited_reference_fits = allowed[CitedReference].issuperset
        cited_uri_fits = allowed[CitedUri].issuperset
        file_block_fits = allowed[FileBlock].issuperset
        json_block_fits = allowed[JsonBlock].issuperset
        reasoning_block_fits = allowed[ReasoningBlock].issuperset
        reference_source_fits = allowed[ReferenceSource].issuperset
        refusal_block_fits = allowed[RefusalBlock].issuperset
        text_fits = allowed[TextBlock].issuperset
        tool_call_block_fits = allowed[ToolCallBlock].issuperset
        tool_result_block_fits = allowed[ToolResultBlock].issuperset
        url_source_fits = allowed[UrlSource].issuperset

        readers = Readers(limits, native_binary=native_binary)
        metadata, free_text, ruled, binary = readers.metadata, readers.free_text, readers.ruled, readers.binary
        call_identifiers, items, tagged_items = readers.call_identifiers, readers.items, readers.tagged_items
        nested, tagged = readers.nested, readers.tagged

        # ------------------------------------------------------------------------------ citations

        def cited_uri(raw: dict[str, Any], problems: Problems) -> CitedUri:
            if not cited_uri_fits(raw):
                unknown_keys(problems, "", raw, allowed[CitedUri], listing[CitedUri], cap)
            return new[CitedUri](ruled(raw, "value", problems, lambda v: check_uri(v, max_uri)))  # type: ignore[no-any-return]

        def cited_reference(raw: dict[str, Any], problems: Problems) -> CitedReference:
            if not cited_reference_fits(raw):
                unknown_keys(problems, "", raw, allowed[CitedReference], listing[CitedReference], cap)
            value = ruled(raw, "value", problems, lambda v: check_no_surrounding_space(v, max_uri))
            return new[CitedReference](value)  # type: ignore[no-any-return]

        cited = tagged({"uri": cited_uri, "reference": cited_reference}, "citation source kind", key="kind")
        title_rule: Callable[[str], str | None] = lambda v: check_no_surrounding_space(v, max_chars)  # noqa: E731

        citation_keys = allowed[Citation]
        new_cited_uri = new[CitedUri]
        new_citation = new[Citation]

        def citation(raw: dict[str, Any], problems: Problems) -> Citation:  # noqa: C901 - the common case inline
            if not citation_fits(raw):
                unknown_keys(problems, "", raw, citation_keys, listing[Citation], cap)
            # The common source, a valid URI, inline; anything else through the tagged bodies, which word it.
            source: Any = None
            src = raw.get("source")
            if type(src) is dict and cited_uri_fits(src):
                kind = src.get("kind")
                value = src.get("value")
                if type(kind) is str and kind == "uri" and type(value) is str and check_uri(value, max_uri) is None:
                    source = new_cited_uri(value)
            if source is None:
                source = nested(raw, "source", problems, cited)
            title = raw.get("title", MISSING)
            if title is MISSING:
                title = None
            elif (
                type(title) is not str
                or not title
                or len(title) > max_chars
                or (not title.isascii() and surrogate(title))
                or title[0].isspace()
                or title[-1].isspace()
            ):
                title = ruled(raw, "title", problems, title_rule, optional=True)
            quote = raw.get("quote", MISSING)
            if quote is MISSING:
                quote = None
            elif type(quote) is not str or not quote or len(quote) > max_chars or (
                not quote.isascii() and surrogate(quote)
            ):
                quote = free_text(raw, "quote", problems, optional=True)
            start = raw.get("start")
            end = raw.get("end")
            if type(start) is not int or type(end) is not int or not 0 <= start <= end:
                if start is None and "start" in raw:
                    problems.append((".start", NULL_OPTIONAL))
                if end is None and "end" in raw:
                    problems.append((".end", NULL_OPTIONAL))
                check_span(problems, "", start, end, None)
            return new_citation(source, title, quote, start, end)  # type: ignore[no-any-return]

        # ------------------------------------------------------------------------------ blocks

        text_keys = allowed[TextBlock]
        new_text = new[TextBlock]

        def text(raw: dict[str, Any], problems: Problems) -> TextBlock:
            if not text_fits(raw):
                unknown_keys(problems, "", raw, text_keys, listing[TextBlock], cap)
            value = raw.get("text", MISSING)
            if (
                type(value) is not str
                or not value
                or len(value) > max_chars
                or (not value.isascii() and surrogate(value))
            ):
                value = free_text(raw, "text", problems)
            citations = raw.get("citations", MISSING)
            if citations is MISSING:
                citations = ()
            elif citations is None:
                problems.append((".citations", NULL_OPTIONAL))
                citations = ()
            else:
                citations = items(citations, ".citations", problems, citation)
                length = len(value) if type(value) is str else None
                for i, c in enumerate(citations):
                    if length is not None and type(c.end) is int and c.end > length:
                        problems.append(
                            (f".citations[{i}].end", f"span ends after the text ({length} code points long)")
                        )
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new_text(value, citations, meta)  # type: ignore[no-any-return]

        def refusal(raw: dict[str, Any], problems: Problems) -> RefusalBlock:
            if not refusal_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[RefusalBlock], listing[RefusalBlock], cap)
            value = free_text(raw, "text", problems)
            return new[RefusalBlock](value, EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems))  # type: ignore[no-any-return]

        def bytes_source(raw: dict[str, Any], problems: Problems) -> BytesSource:
            if not bytes_source_fits(raw):
                unknown_keys(problems, "", raw, allowed[BytesSource], listing[BytesSource], cap)
            return new[BytesSource](binary(raw, "data", problems))  # type: ignore[no-any-return]

        def url_source(raw: dict[str, Any], problems: Problems) -> UrlSource:
            if not url_source_fits(raw):
                unknown_keys(problems, "", raw, allowed[UrlSource], listing[UrlSource], cap)
            return new[UrlSource](ruled(raw, "url", problems, lambda v: check_url(v, max_uri)))  # type: ignore[no-any-return]

        def reference_source(raw: dict[str, Any], problems: Problems) -> ReferenceSource:
            if not reference_source_fits(raw):
                unknown_keys(problems, "", raw, allowed[ReferenceSource], listing[ReferenceSource], cap)
            ref = ruled(raw, "id", problems, lambda v: check_no_surrounding_space(v, max_uri))
            provider = raw.get("provider")
            if provider is not None:
                check_identifier_field(problems, ".provider", provider)
            elif "provider" in raw:
                problems.append((".provider", NULL_OPTIONAL))
            return new[ReferenceSource](ref, provider)  # type: ignore[no-any-return]

        source = tagged({"base64": bytes_source, "url": url_source, "reference": reference_source}, "source type")

        def file(raw: dict[str, Any], problems: Problems) -> FileBlock:
            if not file_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[FileBlock], listing[FileBlock], cap)
            media_type = ruled(raw, "media_type", problems, check_media_type)
            src = nested(raw, "source", problems, source)
            filename = ruled(raw, "filename", problems, check_filename, optional=True)
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new[FileBlock](media_type, src, filename, meta)  # type: ignore[no-any-return]

        def reasoning(raw: dict[str, Any], problems: Problems) -> ReasoningBlock:
            if not reasoning_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[ReasoningBlock], listing[ReasoningBlock], cap)
            value = free_text(raw, "text", problems, optional=True)
            signature = free_text(raw, "signature", problems, optional=True)
            redacted = binary(raw, "redacted", problems, optional=True)
            if redacted is not None and not redacted:
                problems.append((".redacted", "must hold at least one byte"))
            if redacted is None or value is not None or signature is not None:
                reasoning_problems(problems, "", value, signature, raw.get("redacted"))
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new[ReasoningBlock](value, signature, redacted, meta)  # type: ignore[no-any-return]

        def tool_call(raw: dict[str, Any], problems: Problems) -> ToolCallBlock:
            if not tool_call_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[ToolCallBlock], listing[ToolCallBlock], cap)
            call_id, name = call_identifiers(raw, problems)
            value = raw.get("input", MISSING)
            if value is MISSING:
                problems.append((".input", "required key missing"))
            else:
                value = freeze(value, ".input", limits, problems)
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new[ToolCallBlock](call_id, name, value, meta)  # type: ignore[no-any-return]

        def json_block(raw: dict[str, Any], problems: Problems) -> JsonBlock:
            if not json_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[JsonBlock], listing[JsonBlock], cap)
            value = raw.get("value", MISSING)
            if value is MISSING:
                problems.append((".value", "required key missing"))
            else:
                value = freeze(value, ".value", limits, problems)
            return new[JsonBlock](value, EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems))  # type: ignore[no-any-return]

        content_bodies: dict[str, Body] = {"text": text, "file": file, "json": json_block}
        content = tagged(content_bodies, "a tool result", known=frozenset(KIND_NAMES.values()))
        content_get = content_bodies.get

        def tool_result(raw: dict[str, Any], problems: Problems) -> ToolResultBlock:
            if not tool_result_block_fits(raw):
                unknown_keys(problems, "", raw, allowed[ToolResultBlock], listing[ToolResultBlock], cap)
            call_id, name = call_identifiers(raw, problems)
            outcome = raw.get("outcome", MISSING)
            if type(outcome) is not str or outcome not in OUTCOMES:
                message = "required key missing" if outcome is MISSING else "expected one of: succeeded, failed, denied"
                problems.append((".outcome", message))
            parts = raw.get("content", MISSING)
            if parts is MISSING:
                problems.append((".content", "required key missing"))
                parts = ()
            else:
                parts = tagged_items(parts, ".content", problems, content_get, content)
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new[ToolResultBlock](call_id, name, outcome, parts, meta)  # type: ignore[no-any-return]

        block_bodies: dict[str, Body] = {
            "text": text,
            "refusal": refusal,
            "file": file,
            "reasoning": reasoning,
            "tool_call": tool_call,
            "tool_result": tool_result,
            "json": json_block,
        }
        self.block_bodies = block_bodies
        self.block = tagged(block_bodies, "block type")
        self.content = content
        self.source = source
        self.cited = cited
        self.items = items
        self.tagged_items = tagged_items
        self.metadata = metadata
        self.by_class: dict[type, Body] = {
            TextBlock: text, RefusalBlock: refusal, FileBlock: file, ReasoningBlock: reasoning,
            ToolCallBlock: tool_call, ToolResultBlock: tool_result, JsonBlock: json_block,
            BytesSource: bytes_source, UrlSource: url_source, ReferenceSource: reference_source,
            Citation: citation, CitedUri: cited_uri, CitedReference: cited_reference,
        }  # fmt: skip
