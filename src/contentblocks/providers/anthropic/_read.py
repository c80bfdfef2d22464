"""Reading Anthropic Messages JSON (request fields, and the content of responses) into neutral blocks and messages.

Every reader takes what the SDK hands out as well as plain JSON: a pydantic block (``anthropic.types.TextBlock``,
recognised by its ``model_dump``), or any of its dict forms, where an explicit ``null`` is an absent field.
"""

from __future__ import annotations

from typing import Any

from ..._checks._rules import FREE_TEXT, PIECE
from ..._errors import ValidationError
from ..._model._classes import (
    BlockRange,
    BytesSource,
    CharacterRange,
    Citation,
    CitationLocation,
    CitedReference,
    CitedUri,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    PageRange,
    ReasoningBlock,
    ReferenceSource,
    SearchResultBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ..._model._conversation import Conversation
from .._arguments import JSON_TEXT, raw_input
from .._contract import ISSUER_KEY
from .._extras import take_extras
from .._media import lower_media_type
from .._toolkit import (
    OCTET,
    b64decode,
    build,
    fail,
    field,
    identifier,
    is_reference,
    is_title,
    is_uri,
    obj,
    plain,
    require,
    reroot,
)
from ._cache import read_cache
from ._fields import NS, absent_nulls, read_citation_fields
from ._server import CALL_KINDS, RESULT_KINDS, read_call, read_result

__all__ = [
    "IN_MESSAGES",
    "NATIVE",
    "SAME",
    "STRING",
    "derive_citation",
    "media_type_read_back",
    "read_block",
    "read_conversation",
]

#: Message (or tool result) metadata flag: the native content was the string shorthand.
STRING = "anthropic/string_content"
#: Message metadata flag: this message continues the previous native message (a user turn split in two).
SAME = "anthropic/same_message"
#: JSON block metadata flag: the value is an Anthropic block with no neutral equivalent, kept verbatim.
NATIVE = "anthropic/native_block"
#: System message metadata flag: the message sat in ``messages`` (``"role": "system"``), not in ``system``.
IN_MESSAGES = "anthropic/in_messages"

_DOCUMENT_CITATIONS = {"char_location", "page_location", "content_block_location"}


def derive_citation(raw: dict[str, Any]) -> Citation:
    """The neutral view of a native citation: source, title, quote and location (the native form stays in metadata).

    Document locations cite ``document:<document_index>`` (a reference into the request's documents); search
    results cite their ``source``, web search results their ``url``. Empty quotes and titles with surrounding
    whitespace are left out, since the neutral fields do not allow them.

    >>> derive_citation({"type": "char_location", "document_index": 0, "cited_text": "Grass is green.",
    ...                  "start_char_index": 0, "end_char_index": 15}).location
    CharacterRange(start=0, end=15)
    """
    kind = raw.get("type")
    if kind in _DOCUMENT_CITATIONS:
        source: CitedUri | CitedReference = CitedReference(value=f"document:{raw.get('document_index')}")
        title = raw.get("document_title")
    elif kind == "search_result_location":
        source = _source(raw.get("source"), f"search_result:{raw.get('search_result_index')}")
        title = raw.get("title")
    elif kind == "web_search_result_location":
        source = _source(raw.get("url"), "web_search_result")
        title = raw.get("title")
    else:
        source = CitedReference(value=f"anthropic:{kind}" if is_reference(kind) else "anthropic:citation")
        title = raw.get("document_title", raw.get("title"))
    quote = raw.get("cited_text")
    return Citation(
        source=source,
        title=title if is_title(title) else None,
        quote=quote if type(quote) is str and quote else None,
        location=_location(raw, kind),
    )


#: Each native location kind: the neutral range and the native fields of its start and end (both half-open,
#: as the neutral ranges are; pages numbered from 1, characters and blocks counted from 0).
_LOCATIONS: dict[object, tuple[type[PageRange | CharacterRange | BlockRange], str, str]] = {
    "page_location": (PageRange, "start_page_number", "end_page_number"),
    "char_location": (CharacterRange, "start_char_index", "end_char_index"),
    "content_block_location": (BlockRange, "start_block_index", "end_block_index"),
    "search_result_location": (BlockRange, "start_block_index", "end_block_index"),
}


def _location(raw: dict[str, Any], kind: object) -> CitationLocation | None:
    """The native citation's place in its source as a neutral range, or ``None`` when it has none that is valid.

    A range the range's own rules refuse (empty, reversed, page 0, past the largest JSON integer) is left out
    here; the native citation, kept in the text block's metadata, still has it.
    """
    if kind not in _LOCATIONS:
        return None
    cls, start_key, end_key = _LOCATIONS[kind]
    start: Any = raw.get(start_key)  # any JSON value: the range's rules judge it
    end: Any = raw.get(end_key)
    try:
        return cls(start=start, end=end)
    except ValidationError:
        return None


def _source(value: object, fallback: str) -> CitedUri | CitedReference:
    if type(value) is str and is_uri(value):
        return CitedUri(value=value)
    if is_reference(value):
        return CitedReference(value=value)  # type: ignore[arg-type]
    return CitedReference(value=fallback)


def _citations(raw: dict[str, Any], path: str) -> tuple[Citation, ...]:
    items = field(raw, "citations", list, path, optional=True) or ()
    for k, item in enumerate(items):
        field(obj(item, f"{path}.citations[{k}]"), "type", str, f"{path}.citations[{k}]")
        read_citation_fields(item, f"{path}.citations[{k}]")  # a copy: native_dict's
    return tuple(derive_citation(item) for item in items)


#: The native keys a block's breakpoint was read from, by whether one was (an unknown form stays as metadata).
_CACHED = {True: ("cache_control",), False: ()}


def extras(raw: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """The native fields with no neutral home, as ``anthropic/<field>`` metadata."""
    return take_extras(raw, known, NS)


def read_text(raw: dict[str, Any], path: str) -> TextBlock | None:
    """A native ``text`` block, or ``None`` for an empty one (the API sends them; a text block is never empty).

    An empty text carries nothing a neutral block could hold (its citations, if any, would cite nothing), so it is
    left out wherever it sits: a reply whose only content was empty text is a reply with no message.
    """
    text = field(raw, "text", str, path)
    if not text:
        return None
    cache = read_cache(raw)
    metadata = extras(raw, {"type", "text", *_CACHED[cache is not None]})
    return build(TextBlock, path, text=text, citations=_citations(raw, path), cache=cache, metadata=metadata)


def media_type_read_back(*, is_image: bool, url: bool) -> str:
    """The media type a file read from a URL or file-id source gets: Anthropic sends none with those."""
    if is_image:
        return "image/*"
    return "application/pdf" if url else OCTET


def _file(raw: dict[str, Any], path: str, kind: str) -> FileBlock | JsonBlock:
    src_path = f"{path}.source"
    source = field(raw, "source", dict, path)
    src_type = field(source, "type", str, src_path)
    known = {"type"}
    if src_type == "base64":
        media_type = lower_media_type(field(source, "media_type", str, src_path))
        file_source: Any = BytesSource(data=b64decode(field(source, "data", str, src_path), f"{src_path}.data"))
        known |= {"media_type", "data"}
    elif src_type == "text" and kind == "document":
        media_type = lower_media_type(field(source, "media_type", str, src_path))
        file_source = BytesSource(data=_utf8(field(source, "data", str, src_path), f"{src_path}.data"))
        known |= {"media_type", "data"}
    elif src_type == "url":
        media_type = media_type_read_back(is_image=kind == "image", url=True)
        file_source = build(UrlSource, src_path, url=field(source, "url", str, src_path))
        known |= {"url"}
    elif src_type == "file":
        media_type = media_type_read_back(is_image=kind == "image", url=False)
        file_source = build(ReferenceSource, src_path, id=field(source, "file_id", str, src_path), provider=NS)
        known |= {"file_id"}
    else:  # a content source, or one added after this adapter: keep the whole block verbatim
        return native_block(raw, path)
    extra = sorted(set(source) - known)
    require(not extra, f"{src_path}.{extra[0] if extra else ''}", "unknown field in an Anthropic source")
    fields = _document_fields(raw) if kind == "document" else {}
    cache = read_cache(raw)
    metadata = extras(raw, {"type", "source", *(_NATIVE_FIELD[name] for name in fields), *_CACHED[cache is not None]})
    return build(FileBlock, path, media_type=media_type, source=file_source, cache=cache, metadata=metadata, **fields)


#: The neutral document fields and the native ones they come from.
_NATIVE_FIELD = {"title": "title", "context": "context", "citable": "citations"}


def _document_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """A document's title, context and citations switch as neutral fields, where they are valid ones.

    One that is not (a title with surrounding spaces, a ``citations`` object with fields of its own) stays in
    the metadata as ``anthropic/<field>``, as any native field with no neutral home does.
    """
    fields: dict[str, Any] = {}
    if is_title(title := raw.get("title")):
        fields["title"] = title
    if FREE_TEXT.accepts(context := raw.get("context")):
        fields["context"] = context
    switch = raw.get("citations")
    if type(switch) is dict and switch.keys() == {"enabled"} and type(switch["enabled"]) is bool:
        fields["citable"] = switch["enabled"]
    return fields


def _search_result(raw: dict[str, Any], path: str) -> SearchResultBlock | JsonBlock:
    """A ``search_result`` block (citable content a tool or the user gives; see the search results guide).

    Its ``source`` string names the result as a search result citation names it (``_source``: a URI when it is
    one, else an opaque reference), so a citation's source matches the block's. One no search result block can
    hold (no source, no text, a part that is not text) is kept verbatim, as any block with no neutral home.
    https://docs.anthropic.com/en/docs/build-with-claude/search-results
    """
    source, content = raw.get("source"), raw.get("content")
    if not (is_uri(source) or is_reference(source)) or type(content) is not list:
        return native_block(raw, path)
    parts = []
    for k, item in enumerate(content):
        part = native_dict(item, f"{path}.content[{k}]")
        if part.get("type") != "text":
            return native_block(raw, path)
        text = read_text(part, f"{path}.content[{k}]")
        parts.extend([text] if text is not None else [])
    if not parts:
        return native_block(raw, path)
    fields = _document_fields(raw)
    fields.pop("context", None)  # a search result has no context: one sent stays in the metadata
    cache = read_cache(raw)
    known = {"type", "source", "content", *(_NATIVE_FIELD[name] for name in fields), *_CACHED[cache is not None]}
    return build(SearchResultBlock, path, source=_source(source, ""), content=parts, cache=cache,
                 metadata=extras(raw, known), **fields)  # fmt: skip


def _utf8(text: str, path: str) -> bytes:
    problem = PIECE.check(text)
    if problem is not None:
        raise fail(path, problem)
    return text.encode("utf-8")


def native_block(raw: dict[str, Any], path: str) -> JsonBlock:
    """An Anthropic block with no neutral equivalent, kept verbatim as JSON for Anthropic to receive again.

    A block holding what no block holds (a 30-digit integer in an ``mcp_tool_use`` input the model wrote) is
    kept as its JSON text, flagged ``contentblocks/json_text``, and goes back to Anthropic as it came. Any other
    problem inside it (a lone surrogate) is reported at its path in the Anthropic block, not in the JSON block
    that holds it.
    """
    value, flags = raw_input(raw, JSON_TEXT)
    try:
        return JsonBlock(value=value, metadata={NATIVE: True, **flags})
    except ValidationError as e:
        raise reroot(e, path, "$.value") from None


def _reasoning(raw: dict[str, Any], path: str) -> ReasoningBlock:
    if raw["type"] == "redacted_thinking":
        # ``data`` is an opaque string: its UTF-8 bytes are the redacted payload, decoded back on the way out.
        data = field(raw, "data", str, path)
        require(bool(data), f"{path}.data", "must not be empty")
        metadata = {ISSUER_KEY: NS, **extras(raw, {"type", "data"})}
        return build(ReasoningBlock, path, redacted=_utf8(data, f"{path}.data"), metadata=metadata)
    thinking = field(raw, "thinking", str, path)
    signature = field(raw, "signature", str, path)
    metadata = {ISSUER_KEY: NS, **extras(raw, {"type", "thinking", "signature"})}
    return build(ReasoningBlock, path, text=thinking or None, signature=signature or None, metadata=metadata)


def _compaction(raw: dict[str, Any], path: str) -> CompactionBlock:
    """A ``compaction`` block: its ``content`` is the summary (``null`` when the compaction failed), the rest state.

    Its ``encrypted_content``, ``signature`` and ``tool_changes`` go back verbatim, to Anthropic only
    (https://platform.claude.com/docs/en/build-with-claude/compaction).
    """
    content = field(raw, "content", str, path, optional=True)
    metadata = {ISSUER_KEY: NS, **extras(raw, {"type", "content"})}
    return build(CompactionBlock, path, summary=content or None, metadata=metadata)


def _tool_use(raw: dict[str, Any], path: str) -> ToolCallBlock:
    """A ``tool_use`` block; an input no block can hold is kept as its JSON text, flagged (``raw_input``)."""
    require("input" in raw, f"{path}.input", "required field missing")
    value, metadata = raw_input(raw["input"])
    cache = read_cache(raw)
    return build(
        ToolCallBlock,
        path,
        tool_call_id=identifier(raw, "id", path),
        tool_name=identifier(raw, "name", path),
        input=value,
        cache=cache,
        metadata={**extras(raw, {"type", "id", "name", "input", *_CACHED[cache is not None]}), **metadata},
    )


def native_dict(raw: object, path: str) -> dict[str, Any]:
    """An Anthropic block as a plain dict with its ``null`` members left out (see ``absent_nulls``)."""
    return obj(absent_nulls(plain(raw)), path)


def read_block(raw: object, path: str, names: dict[str, str] | None = None) -> Any:
    """One block of a message or of a tool result's content (a tool result itself is read by the message).

    ``None`` for an empty text block, which is left out (see ``read_text``). ``names`` maps the ids of the calls
    read so far to their tools, for the results of tools Anthropic ran.
    """
    return _dispatch(native_dict(raw, path), path, {} if names is None else names)


def _document(raw: dict[str, Any], path: str) -> Any:
    return _file(native_dict(raw, path), path, "document")


def _dispatch(raw: dict[str, Any], path: str, names: dict[str, str]) -> Any:
    kind = field(raw, "type", str, path)
    if kind == "text":
        return read_text(raw, path)
    if kind in {"image", "document"}:
        return _file(raw, path, kind)
    if kind in {"thinking", "redacted_thinking"}:
        return _reasoning(raw, path)
    if kind == "tool_use":
        return _tool_use(raw, path)
    if kind in CALL_KINDS:
        return read_call(raw, path, names)
    if kind in RESULT_KINDS:
        result = read_result(raw, path, names, _document)
        return result if result is not None else native_block(raw, path)
    if kind == "compaction":
        return _compaction(raw, path)
    if kind == "search_result":
        return _search_result(raw, path)
    return native_block(raw, path)


def _tool_result(raw: dict[str, Any], path: str, names: dict[str, str]) -> ToolResultBlock:
    tool_use_id = field(raw, "tool_use_id", str, path)
    require(tool_use_id in names, f"{path}.tool_use_id", "answers no earlier tool_use block")
    cache = read_cache(raw)
    metadata = extras(raw, {"type", "tool_use_id", "content", "is_error", *_CACHED[cache is not None]})
    is_error = field(raw, "is_error", bool, path, optional=True)
    if is_error is False:
        metadata[f"{NS}/is_error"] = False
    content: list[Any] = []
    raw_content = field(raw, "content", (str, list), path, optional=True)
    if type(raw_content) is str:
        metadata[STRING] = True
        if raw_content:
            content.append(build(TextBlock, f"{path}.content", text=raw_content))
    elif raw_content is not None:
        for k, item in enumerate(raw_content):
            block = read_block(item, f"{path}.content[{k}]", names)
            if block is None:
                continue
            require(
                not isinstance(  # a search result is tool output
                    block, (ReasoningBlock, ToolCallBlock, ServerToolCallBlock, ServerToolResultBlock, CompactionBlock)
                ),
                f"{path}.content[{k}]",
                "not allowed in a tool result",
            )
            content.append(block)
    return build(
        ToolResultBlock,
        path,
        tool_call_id=tool_use_id,
        tool_name=names[tool_use_id],
        outcome="failed" if is_error else "succeeded",
        content=content,
        cache=cache,
        metadata=metadata,
    )


def _system(content: object, path: str, flags: dict[str, Any]) -> Message | None:
    """A system prompt (the ``system`` field, or a ``"role": "system"`` message) as a system message."""
    if type(content) is str:
        if not content:
            return None
        text = build(TextBlock, path, text=content)
        return build(Message, path, role="system", content=[text], metadata={**flags, STRING: True})
    if not isinstance(content, list):
        raise fail(path, "expected a string or an array")
    blocks: list[TextBlock] = []
    for k, item in enumerate(content):
        item_path = f"{path}[{k}]"
        raw = native_dict(item, item_path)
        require(field(raw, "type", str, item_path) == "text", f"{item_path}.type", "expected a text block")
        block = read_text(raw, item_path)
        blocks.extend([block] if block is not None else [])
    return build(Message, path, role="system", content=blocks, metadata=flags) if blocks else None


def _message(raw: object, path: str, names: dict[str, str]) -> list[Message]:
    raw = native_dict(raw, path)
    role = field(raw, "role", str, path)
    require(role in {"user", "assistant", "system"}, f"{path}.role", "expected user, assistant or system")
    content = field(raw, "content", (str, list), path)
    metadata = extras(raw, {"role", "content"})
    if role == "system":
        system = _system(content, f"{path}.content", {**metadata, IN_MESSAGES: True})
        require(system is not None, f"{path}.content", "a message carries at least one block")
        return [system]  # type: ignore[list-item]
    if type(content) is str:
        text = build(TextBlock, f"{path}.content", text=content)
        return [build(Message, path, role=role, content=[text], metadata={**metadata, STRING: True})]
    runs: list[tuple[str, list[Any]]] = []
    for k, raw_item in enumerate(content):
        item_path = f"{path}.content[{k}]"
        item = native_dict(raw_item, item_path)
        if role == "user" and item.get("type") == "tool_result":
            block: Any = _tool_result(item, item_path, names)
            part_role = "tool"
        else:
            block = _dispatch(item, item_path, names)
            if block is None:
                continue
            if isinstance(block, CompactionBlock) and role != "assistant":  # not where the API puts one: kept as is
                block = native_block(item, item_path)
            part_role = role
            if isinstance(block, ToolCallBlock):
                names[block.tool_call_id] = block.tool_name
        if not runs or runs[-1][0] != part_role:
            runs.append((part_role, []))
        runs[-1][1].append(block)
    require(bool(runs), f"{path}.content", "a message carries at least one block")
    return [
        build(Message, path, role=part_role, content=blocks, metadata=metadata if n == 0 else {SAME: True})
        for n, (part_role, blocks) in enumerate(runs)
    ]


def read_conversation(payload: object) -> Conversation:
    """``{"system": ..., "messages": [...]}`` as a conversation; other request fields are not read."""
    payload = obj(plain(payload), "$")
    messages: list[Message] = []
    if payload.get("system") is not None:
        system = _system(payload["system"], "$.system", {})
        messages.extend([system] if system is not None else [])
    names: dict[str, str] = {}
    for i, raw in enumerate(field(payload, "messages", list, "$")):
        messages.extend(_message(raw, f"$.messages[{i}]", names))
    return Conversation(messages=tuple(messages))
