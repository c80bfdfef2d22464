"""Reading Anthropic Messages JSON (request fields and response bodies) into neutral blocks and messages."""

from __future__ import annotations

from typing import Any

from .._blocks import (
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    ReferenceSource,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from .._errors import ValidationError
from .._messages import Conversation, Message
from ._toolkit import build, decode_base64, field, is_clean, is_uri, obj, require, take_extras
from ._contract import ISSUER_KEY

__all__ = [
    "NATIVE",
    "NS",
    "SAME",
    "STRING",
    "derive_citation",
    "media_type_read_back",
    "read_conversation",
    "read_response",
]

NS = "anthropic"
#: Message (or tool result) metadata flag: the native content was the string shorthand.
STRING = "anthropic/string_content"
#: Message metadata flag: this message continues the previous native message (a user turn split in two).
SAME = "anthropic/same_message"
#: JSON block metadata flag: the value is an Anthropic block with no neutral equivalent, kept verbatim.
NATIVE = "anthropic/native_block"
#: Response fields kept in message metadata by ``from_response``.
RESPONSE_FIELDS = ("id", "model", "stop_reason", "stop_sequence", "usage")

_DOCUMENT_CITATIONS = {"char_location", "page_location", "content_block_location"}


def derive_citation(raw: dict[str, Any]) -> Citation:
    """The neutral view of a native citation: source, title and quote (the native coordinates stay in metadata).

    Document locations cite ``document:<document_index>`` (a reference into the request's documents); search
    results cite their ``source``, web search results their ``url``. Empty quotes and titles with surrounding
    whitespace are left out, since the neutral fields do not allow them.
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
        source = CitedReference(value=f"anthropic:{kind}" if is_clean(kind) else "anthropic:citation")
        title = raw.get("document_title", raw.get("title"))
    quote = raw.get("cited_text")
    return Citation(
        source=source,
        title=title if is_clean(title) else None,
        quote=quote if type(quote) is str and quote else None,
    )


def _source(value: object, fallback: str) -> CitedUri | CitedReference:
    if type(value) is str and is_uri(value):
        return CitedUri(value=value)
    if is_clean(value):
        return CitedReference(value=value)  # type: ignore[arg-type]
    return CitedReference(value=fallback)


def _citations(raw: dict[str, Any], path: str) -> tuple[Citation, ...]:
    if "citations" not in raw or raw["citations"] is None:
        return ()
    items = field(raw, "citations", list, path)
    out = []
    for k, item in enumerate(items):
        item_path = f"{path}.citations[{k}]"
        obj(item, item_path)
        field(item, "type", str, item_path)
        try:
            out.append(derive_citation(item))
        except ValidationError as e:  # pragma: no cover - derive_citation only builds valid citations
            raise ValidationError([(item_path, m) for _, m in e.errors]) from None
    return tuple(out)


def read_text(raw: dict[str, Any], path: str) -> TextBlock:
    """A native ``text`` block; native citations are kept verbatim under ``anthropic/citations``."""
    text = field(raw, "text", str, path)
    metadata = take_extras(raw, {"type", "text"}, NS)
    return build(TextBlock, path, text=text, citations=_citations(raw, path), metadata=metadata)


def media_type_read_back(*, is_image: bool, url: bool) -> str:
    """The media type a file read from a URL or file-id source gets: Anthropic sends none with those."""
    if is_image:
        return "image/*"
    return "application/pdf" if url else "application/octet-stream"


def _file(raw: dict[str, Any], path: str, kind: str) -> FileBlock | JsonBlock:
    source = obj(raw.get("source"), f"{path}.source")
    src_path = f"{path}.source"
    src_type = field(source, "type", str, src_path)
    metadata = take_extras(raw, {"type", "source"}, NS)
    known = {"type"}
    if src_type == "base64":
        media_type = field(source, "media_type", str, src_path)
        data = decode_base64(field(source, "data", str, src_path), f"{src_path}.data")
        file_source: Any = BytesSource(data=data)
        known |= {"media_type", "data"}
    elif src_type == "text" and kind == "document":
        media_type = field(source, "media_type", str, src_path)
        file_source = BytesSource(data=field(source, "data", str, src_path).encode("utf-8"))
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
    extra = set(source) - known
    require(not extra, f"{src_path}.{min(extra) if extra else ''}", "unknown field in an Anthropic source")
    return build(FileBlock, path, media_type=media_type, source=file_source, metadata=metadata)


def native_block(raw: dict[str, Any], path: str) -> JsonBlock:
    """An Anthropic block with no neutral equivalent, kept verbatim as JSON for Anthropic to receive again."""
    return build(JsonBlock, path, value=raw, metadata={NATIVE: True})


def _reasoning(raw: dict[str, Any], path: str) -> ReasoningBlock:
    if raw["type"] == "redacted_thinking":
        # ``data`` is an opaque string: its UTF-8 bytes are the redacted payload, decoded back on the way out.
        data = field(raw, "data", str, path)
        require(bool(data), f"{path}.data", "must not be empty")
        metadata = {ISSUER_KEY: NS, **take_extras(raw, {"type", "data"}, NS)}
        return build(ReasoningBlock, path, redacted=data.encode("utf-8"), metadata=metadata)
    thinking = field(raw, "thinking", str, path)
    signature = field(raw, "signature", str, path)
    metadata = {ISSUER_KEY: NS, **take_extras(raw, {"type", "thinking", "signature"}, NS)}
    return build(ReasoningBlock, path, text=thinking or None, signature=signature or None, metadata=metadata)


def _tool_use(raw: dict[str, Any], path: str) -> ToolCallBlock:
    metadata = take_extras(raw, {"type", "id", "name", "input"}, NS)
    require("input" in raw, f"{path}.input", "required field missing")
    return build(
        ToolCallBlock,
        path,
        tool_call_id=field(raw, "id", str, path),
        tool_name=field(raw, "name", str, path),
        input=raw["input"],
        metadata=metadata,
    )


def read_content_item(raw: object, path: str) -> Any:
    """One block inside a message or a tool result (not a tool result itself)."""
    raw = obj(raw, path)
    kind = field(raw, "type", str, path)
    if kind == "text":
        return read_text(raw, path)
    if kind in {"image", "document"}:
        return _file(raw, path, kind)
    if kind in {"thinking", "redacted_thinking"}:
        return _reasoning(raw, path)
    if kind == "tool_use":
        return _tool_use(raw, path)
    return native_block(raw, path)


def _tool_result(raw: dict[str, Any], path: str, names: dict[str, str]) -> ToolResultBlock:
    tool_use_id = field(raw, "tool_use_id", str, path)
    require(tool_use_id in names, f"{path}.tool_use_id", "answers no earlier tool_use block")
    metadata = take_extras(raw, {"type", "tool_use_id", "content", "is_error"}, NS)
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
            block = read_content_item(item, f"{path}.content[{k}]")
            require(
                not isinstance(block, (ReasoningBlock, ToolCallBlock)),
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
        metadata=metadata,
    )


def _message(raw: object, path: str, names: dict[str, str]) -> list[Message]:
    raw = obj(raw, path)
    role = field(raw, "role", str, path)
    require(role in {"user", "assistant"}, f"{path}.role", "expected user or assistant")
    content = field(raw, "content", (str, list), path)
    extras = take_extras(raw, {"role", "content"}, NS)
    if type(content) is str:
        text = build(TextBlock, f"{path}.content", text=content)
        return [build(Message, path, role=role, content=[text], metadata={STRING: True, **extras})]
    runs: list[tuple[str, list[Any]]] = []
    for k, item in enumerate(content):
        item_path = f"{path}.content[{k}]"
        if role == "user" and isinstance(item, dict) and item.get("type") == "tool_result":
            block: Any = _tool_result(item, item_path, names)
            part_role = "tool"
        else:
            block = read_content_item(item, item_path)
            part_role = role
            if isinstance(block, ToolCallBlock):
                names[block.tool_call_id] = block.tool_name
        if not runs or runs[-1][0] != part_role:
            runs.append((part_role, []))
        runs[-1][1].append(block)
    require(bool(runs), f"{path}.content", "a message carries at least one block")
    return [
        build(Message, path, role=part_role, content=blocks, metadata=extras if n == 0 else {SAME: True})
        for n, (part_role, blocks) in enumerate(runs)
    ]


def read_conversation(payload: object) -> Conversation:
    """``{"system": ..., "messages": [...]}`` as a conversation; other request fields are not read."""
    payload = obj(payload, "$")
    messages: list[Message] = []
    system = field(payload, "system", (str, list), "$", optional=True)
    if type(system) is str:
        if system:
            text = build(TextBlock, "$.system", text=system)
            messages.append(build(Message, "$.system", role="system", content=[text], metadata={STRING: True}))
    elif system:
        blocks = []
        for k, item in enumerate(system):
            item_path = f"$.system[{k}]"
            require(isinstance(item, dict) and item.get("type") == "text", item_path, "expected a text block")
            blocks.append(read_text(item, item_path))
        messages.append(build(Message, "$.system", role="system", content=blocks))
    names: dict[str, str] = {}
    for i, raw in enumerate(field(payload, "messages", list, "$")):
        messages.extend(_message(raw, f"$.messages[{i}]", names))
    return Conversation(messages=tuple(messages))


def read_response(response: object) -> Message:
    """A Messages API response body (``"type": "message"``) as one assistant message."""
    response = obj(response, "$")
    require(response.get("role", "assistant") == "assistant", "$.role", "expected assistant")
    content = field(response, "content", list, "$")
    require(bool(content), "$.content", "the response has no content blocks")
    blocks = []
    for k, item in enumerate(content):
        block = read_content_item(item, f"$.content[{k}]")
        blocks.append(block)
    metadata = {f"{NS}/{key}": response[key] for key in RESPONSE_FIELDS if response.get(key) is not None}
    return build(Message, "$", role="assistant", content=blocks, metadata=metadata)
