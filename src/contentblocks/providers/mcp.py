"""MCP tool results: a ``CallToolResult`` as a tool result block, and back.

MCP has no conversation: a tool call's result is the only content it carries, so this module has
``to_call_tool_result`` and ``from_call_tool_result`` instead of the ``to_provider``, ``from_provider``
and ``from_response`` verbs of the other adapters. The MCP client names the call it made, so reading a
result takes the ``tool_call_id`` and ``tool_name`` it answers.

- ``TextContent`` ↔ text; ``ImageContent`` and ``AudioContent`` (base64) ↔ inline files;
  ``ResourceLink`` ↔ a file by URL (``http(s)``) or by reference (any other URI scheme, provider
  ``mcp``), its ``name`` as the filename when it is a valid one; ``EmbeddedResource`` ↔ text (a text
  resource) or an inline file (a blob resource), its ``uri`` and ``mimeType`` kept in ``mcp/resource``.
- ``structuredContent`` ↔ a JSON part (the last part when read); ``isError: true`` ↔ the failed outcome.
- ``_meta``, ``annotations`` and the other fields with no neutral home are kept in metadata
  (``mcp/_meta``, ``mcp/annotations``...) and written back.

The losses are listed in ``docs/providers/mcp.md``; ``to_call_tool_result`` reports them through a
``Converted`` like the other adapters.

>>> import contentblocks as cb
>>> from contentblocks.providers import mcp
>>> result = {"content": [{"type": "text", "text": "21 °C"}], "structuredContent": {"temp_c": 21}}
>>> block = mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="weather")
>>> [type(b).__name__ for b in block.content], block.outcome
(['TextBlock', 'JsonBlock'], 'succeeded')
>>> mcp.to_call_tool_result(block).payload == result
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import BytesSource, FileBlock, JsonBlock, ReferenceSource, TextBlock, ToolResultBlock, UrlSource
from .._errors import ValidationError
from .._json import thaw
from ._toolkit import json_text, put_extras, report_metadata, take_extras
from ._toolkit import b64decode, b64encode, fail
from ._contract import Converted, LossRecorder

__all__ = ["from_call_tool_result", "to_call_tool_result"]

NS = "mcp"
OCTET = "application/octet-stream"
TARGET = "Model Context Protocol"
FLAGS = {f"{NS}/{k}" for k in ("type", "resource", "name", "uri", "is_error", "mimeType")}
_GENERATED = "urn:contentblocks:content:"


def _str(native: Mapping[str, Any], key: str, path: str) -> str:
    value = native.get(key)
    if type(value) is not str:
        raise fail(f"{path}.{key}", "expected a string")
    return value


def _filename(name: object, meta: dict[str, Any]) -> str | None:
    if name is None:
        return None
    try:
        FileBlock(media_type=OCTET, source=BytesSource(data=b""), filename=name)  # type: ignore[arg-type]
    except ValidationError:
        meta[f"{NS}/name"] = name
        return None
    return name  # type: ignore[return-value]


def _part(item: object, path: str) -> TextBlock | FileBlock | JsonBlock:
    if not isinstance(item, Mapping):
        raise fail(path, "expected an object")
    kind = item.get("type")
    if kind == "text":
        text = _str(item, "text", path)
        meta = take_extras(item, {"type", "text"}, NS)
        if not text:
            return JsonBlock(value="", metadata={**meta, f"{NS}/type": "text"})
        return TextBlock(text=text, metadata=meta)
    if kind in ("image", "audio"):
        meta = take_extras(item, {"type", "data", "mimeType"}, NS)
        data = b64decode(item.get("data"), f"{path}.data")
        media_type = _str(item, "mimeType", path)
        if not media_type.startswith(f"{kind}/"):
            meta[f"{NS}/type"] = kind
        return FileBlock(media_type=media_type, source=BytesSource(data=data), metadata=meta)
    if kind == "resource_link":
        meta = take_extras(item, {"type", "uri", "name", "mimeType"}, NS)
        uri = _str(item, "uri", path)
        source: Any = UrlSource(url=uri) if uri[:8].lower().startswith(("http://", "https://")) else None
        if source is None:
            source = ReferenceSource(id=uri, provider=NS)
        if "mimeType" not in item:
            meta[f"{NS}/mimeType"] = None
        filename = _filename(_str(item, "name", path), meta)
        try:
            return FileBlock(media_type=item.get("mimeType", OCTET), source=source, filename=filename, metadata=meta)
        except ValidationError:
            if type(source) is not UrlSource:
                raise
            return FileBlock(
                media_type=item.get("mimeType", OCTET),
                source=ReferenceSource(id=uri, provider=NS),
                filename=filename,
                metadata=meta,
            )
    if kind == "resource":
        meta = take_extras(item, {"type", "resource"}, NS)
        resource = item.get("resource")
        if not isinstance(resource, Mapping):
            raise fail(f"{path}.resource", "expected an object")
        kept = {k: v for k, v in resource.items() if k not in ("text", "blob")}
        generated = str(kept.get("uri", "")).startswith(_GENERATED) and set(kept) == {"uri", "mimeType"}
        if not generated:  # a URI this module made up for an inline file is not kept
            meta[f"{NS}/resource"] = kept
        if "text" in resource:
            text = _str(resource, "text", f"{path}.resource")
            return (
                TextBlock(text=text, metadata=meta)
                if text
                else JsonBlock(value="", metadata={**meta, f"{NS}/type": "text"})
            )
        data = b64decode(resource.get("blob"), f"{path}.resource.blob")
        return FileBlock(media_type=resource.get("mimeType", OCTET), source=BytesSource(data=data), metadata=meta)
    raise fail(f"{path}.type", "expected text, image, audio, resource_link or resource")


def from_call_tool_result(result: Mapping[str, Any], *, tool_call_id: str, tool_name: str) -> ToolResultBlock:
    """The tool result block for an MCP ``CallToolResult`` answering the call ``tool_call_id`` of ``tool_name``.

    Raises:
        ValidationError: when the result is malformed.
    """
    if not isinstance(result, Mapping):
        raise fail("$", "expected an object")
    items = result.get("content", [])
    if not isinstance(items, list):
        raise fail("$.content", "expected a list")
    content: list[Any] = [_part(item, f"$.content[{j}]") for j, item in enumerate(items)]
    meta = take_extras(result, {"content", "structuredContent", "isError"}, NS)
    if "structuredContent" in result:
        content.append(JsonBlock(value=result["structuredContent"]))
    is_error = result.get("isError", False)
    if type(is_error) is not bool:
        raise fail("$.isError", "expected a boolean")
    if "isError" in result and not is_error:
        meta[f"{NS}/is_error"] = False
    return ToolResultBlock(
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        outcome="failed" if is_error else "succeeded",
        content=tuple(content),
        metadata=meta,
    )


def _file(block: FileBlock, j: int, path: str, rec: LossRecorder) -> dict[str, Any]:
    """The content item for the ``j``-th file of a result (``j`` numbers generated resource URIs)."""
    meta, source = block.metadata, block.source
    resource = meta.get(f"{NS}/resource")
    if type(source) is not BytesSource:
        uri = source.url if type(source) is UrlSource else source.id  # type: ignore[union-attr]
        if type(source) is ReferenceSource and source.provider not in (None, NS):
            rec.add(f"{path}.source.provider", f"a file id issued by {source.provider!r} becomes a resource_link URI")
        if type(source) is ReferenceSource and uri[:8].lower().startswith(("http://", "https://")):
            rec.add(f"{path}.source", "a reference whose id is an http(s) URL reads back as a URL source")
        item: dict[str, Any] = {"type": "resource_link", "uri": uri}
        name = block.filename if block.filename is not None else meta.get(f"{NS}/name")
        if name is None:
            name = uri.rstrip("/").rsplit("/", 1)[-1] or uri
            rec.add(
                f"{path}.filename",
                "a resource_link needs a name; the URI's last segment is given, read back as the filename",
            )
        item["name"] = name
        if meta.get(f"{NS}/mimeType", "") is not None:
            item["mimeType"] = block.media_type
        return item
    if block.filename is not None:
        rec.add(f"{path}.filename", "inline MCP content has no filename; dropped")
    kind = meta.get(f"{NS}/type") or block.media_type.split("/", 1)[0]
    if isinstance(resource, Mapping) or kind not in ("image", "audio"):
        kept = (
            thaw(resource)
            if isinstance(resource, Mapping)
            else {"uri": f"{_GENERATED}{j}", "mimeType": block.media_type}
        )
        return {"type": "resource", "resource": {**kept, "blob": b64encode(source.data)}}
    return {"type": kind, "data": b64encode(source.data), "mimeType": block.media_type}


def to_call_tool_result(block: ToolResultBlock, *, strict: bool = False) -> Converted:
    """The MCP ``CallToolResult`` for a tool result block (in ``Converted.payload``), and what did not survive.

    Raises:
        LossError: when ``strict`` and anything would be dropped or degraded.
    """
    rec = LossRecorder()
    out: list[Any] = []
    structured: list[JsonBlock] = [
        b for b in block.content if type(b) is JsonBlock and b.metadata.get(f"{NS}/type") != "text"
    ]
    structured_block = structured[0] if structured and isinstance(structured[0].value, dict) else None
    for j, b in enumerate(block.content):
        path = f"$.content[{j}]"
        meta = b.metadata
        if b is structured_block:
            if j != len(block.content) - 1:
                rec.add(path, "structuredContent stands apart from content; reads back as the last part")
            report_metadata(rec, path, meta, FLAGS, TARGET)
            continue
        if type(b) is FileBlock:
            item = _file(b, sum(type(c) is FileBlock for c in block.content[:j]), path, rec)
        elif type(b) is TextBlock or (type(b) is JsonBlock and meta.get(f"{NS}/type") == "text"):
            text = b.text if type(b) is TextBlock else b.value  # type: ignore[union-attr]
            resource = meta.get(f"{NS}/resource")
            if isinstance(resource, Mapping):
                item = {"type": "resource", "resource": {**thaw(resource), "text": text}}
            else:
                item = {"type": "text", "text": text}
            if type(b) is TextBlock and b.citations:
                rec.add(f"{path}.citations", "MCP content carries no citations; dropped")
        else:
            assert type(b) is JsonBlock  # noqa: S101 - the last kind of tool result content
            rec.add(path, "only one JSON object fits structuredContent; this JSON is written as text")
            item = {"type": "text", "text": json_text(b.value)}
        used = put_extras(item, meta, NS, FLAGS)
        report_metadata(rec, path, meta, used | FLAGS, TARGET)
        out.append(item)
    payload: dict[str, Any] = {"content": out}
    if structured_block is not None:
        payload["structuredContent"] = thaw(structured_block.value)
    if block.outcome != "succeeded":
        payload["isError"] = True
        if block.outcome == "denied":
            rec.add("$.outcome", "MCP has no denied outcome; written as isError, reads back as failed")
    elif block.metadata.get(f"{NS}/is_error") is False:
        payload["isError"] = False
    used = put_extras(payload, block.metadata, NS, FLAGS)
    report_metadata(rec, "$", block.metadata, used | FLAGS, TARGET)
    return rec.finish(payload, strict=strict)
