"""Reading an MCP ``CallToolResult`` (wire form, after ``canonical``) into a tool result block."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import BytesSource, FileBlock, JsonBlock, ReferenceSource, TextBlock, ToolResultBlock, UrlSource
from .._extras import take_extras
from .._media import lower_media_type
from .._toolkit import OCTET, b64decode, build, fail, field, holds_json, is_filename

__all__ = ["GENERATED", "NS", "read_result"]

NS = "mcp"
#: The URI prefix of the embedded resources written for inline files that are neither images nor audio.
GENERATED = "urn:contentblocks:content:"


def _filename(name: str, meta: dict[str, Any]) -> str | None:
    """``name`` when it is a valid filename; else ``None``, the name kept in ``mcp/name``."""
    if is_filename(name):
        return name
    meta[f"{NS}/name"] = name
    return None


def _text(text: str, meta: dict[str, Any], path: str) -> TextBlock | JsonBlock:
    """A text block; an empty text (which a text block cannot hold) is a JSON ``""`` tagged ``mcp/type: text``."""
    if not text:
        return JsonBlock(value="", metadata={**meta, f"{NS}/type": "text"})
    return build(TextBlock, path, text=text, metadata=meta)


def _media_type(value: object) -> Any:
    """A ``mimeType`` lower-cased (RFC 6838 types are case-insensitive); a non-string is left to the block."""
    return lower_media_type(value) if type(value) is str else value


def _link(item: Mapping[str, Any], path: str) -> FileBlock:
    meta = take_extras(item, {"type", "uri", "name", "mimeType"}, NS)
    uri = field(item, "uri", str, path)
    if "mimeType" not in item:
        meta[f"{NS}/mimeType"] = None
    filename = _filename(field(item, "name", str, path), meta)
    media_type = _media_type(item.get("mimeType", OCTET))
    if uri[:8].lower().startswith(("http://", "https://")):
        try:
            return FileBlock(media_type=media_type, source=UrlSource(url=uri), filename=filename, metadata=meta)
        except ValidationError:  # not a URL the library accepts: kept as the reference it also is
            pass
    source = ReferenceSource(id=uri, provider=NS)
    return build(FileBlock, path, media_type=media_type, source=source, filename=filename, metadata=meta)


def _item(item: Mapping[str, Any], path: str) -> TextBlock | FileBlock | JsonBlock:
    kind = item["type"]
    if kind == "text":
        return _text(field(item, "text", str, path), take_extras(item, {"type", "text"}, NS), f"{path}.text")
    if kind in ("image", "audio"):
        meta = take_extras(item, {"type", "data", "mimeType"}, NS)
        data = b64decode(field(item, "data", str, path), f"{path}.data")
        media_type = lower_media_type(field(item, "mimeType", str, path))
        if not media_type.startswith(f"{kind}/"):
            meta[f"{NS}/type"] = kind
        return build(FileBlock, path, media_type=media_type, source=BytesSource(data=data), metadata=meta)
    if kind == "resource_link":
        return _link(item, path)
    meta = take_extras(item, {"type", "resource"}, NS)
    resource = field(item, "resource", dict, path)
    where = f"{path}.resource"
    kept = {k: v for k, v in resource.items() if k not in ("text", "blob")}
    field(kept, "uri", str, where)
    if not (kept["uri"].startswith(GENERATED) and set(kept) == {"uri", "mimeType"}):
        meta[f"{NS}/resource"] = kept  # a URI this module made up for an inline file is not kept
    if "text" in resource:
        return _text(resource["text"], meta, f"{where}.text")
    data = b64decode(resource["blob"], f"{where}.blob")
    media_type = _media_type(resource.get("mimeType", OCTET))
    return build(FileBlock, where, media_type=media_type, source=BytesSource(data=data), metadata=meta)


def _structured(value: Any) -> JsonBlock | TextBlock:
    """``structuredContent`` as a JSON block; JSON no block holds (a 30-digit integer) as its text, flagged.

    A tool server may put any JSON there: what the JSON value rules refuse is kept as its compact JSON text in
    a text block flagged ``mcp/invalid_structured`` (the MCP spec has the same JSON sent as text too), so the
    rest of the result reads.
    """
    if not holds_json(value):
        try:
            text = _JSON_TEXT(value)
        except (ValueError, TypeError, RecursionError):  # no JSON text at all: left for the block to refuse
            text = ""
        if text:
            return TextBlock(text=text, metadata={f"{NS}/invalid_structured": True})
    flags = {} if isinstance(value, dict) else {f"{NS}/structured": True}
    return build(JsonBlock, "$.structuredContent", value=value, metadata=flags)


_JSON_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def read_result(result: Mapping[str, Any], tool_call_id: str, tool_name: str) -> ToolResultBlock:
    """The tool result block of a canonical ``CallToolResult`` answering ``tool_call_id``."""
    kind = result.get("resultType", "complete")
    if kind != "complete":
        raise fail("$.resultType", f"a {kind!r} result is not a tool's final result; only a complete one is read")
    items = field(result, "content", list, "$")
    content: list[Any] = [_item(item, f"$.content[{j}]") for j, item in enumerate(items)]
    meta = take_extras(result, {"content", "structuredContent", "isError", "resultType"}, NS)
    if "structuredContent" in result:
        content.append(_structured(result["structuredContent"]))
    is_error = result.get("isError", False)
    if "isError" in result and not is_error:
        meta[f"{NS}/is_error"] = False
    return build(
        ToolResultBlock,
        "$",
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        outcome="failed" if is_error else "succeeded",
        content=tuple(content),
        metadata=meta,
    )
