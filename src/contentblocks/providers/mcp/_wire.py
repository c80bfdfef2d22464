"""The MCP types a tool result travels in, field by field (the ``mcp`` SDK 2.3's ``CallToolResult`` and its content).

``tests/providers/test_mcp_sdk.py`` checks these tables against the SDK's own pydantic models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shapes import BOOL, FLOAT, INT, JSON, OBJECT, STR, Kind, ListOf, OneOf, Struct

__all__ = ["CALL_TOOL_RESULT", "ITEM_EXTRAS", "RESOURCE_HEAD", "RESULT_EXTRAS"]

ANNOTATIONS = Struct("Annotations", {"audience": ListOf(STR), "priority": FLOAT, "lastModified": STR})
ICON = Struct("Icon", {"src": STR, "mimeType": STR, "sizes": ListOf(STR), "theme": STR}, required={"src"})
_COMMON: dict[str, Kind] = {"annotations": ANNOTATIONS, "_meta": OBJECT}
_MEDIA: dict[str, Kind] = {"type": STR, "data": STR, "mimeType": STR, **_COMMON}
#: What an embedded resource keeps beside its text or blob (``mcp/resource``).
RESOURCE_HEAD = Struct("ResourceContents", {"uri": STR, "mimeType": STR, "_meta": OBJECT})
TEXT_RESOURCE = Struct("TextResourceContents", {**RESOURCE_HEAD.fields, "text": STR})
BLOB_RESOURCE = Struct("BlobResourceContents", {**RESOURCE_HEAD.fields, "blob": STR})


def _resource(value: Mapping[str, Any]) -> Struct | None:
    if value.get("text") is not None:
        return TEXT_RESOURCE
    return BLOB_RESOURCE if value.get("blob") is not None else None


#: The fields of each content item written back from a block's metadata (``mcp/<field>``), by item type.
ITEM_EXTRAS: dict[str, dict[str, Kind]] = {
    "text": _COMMON,
    "image": _COMMON,
    "audio": _COMMON,
    "resource": _COMMON,
    "resource_link": {"title": STR, "description": STR, "size": INT, "icons": ListOf(ICON), **_COMMON},
}
_ITEMS = {
    "text": Struct("TextContent", {"type": STR, "text": STR, **_COMMON}),
    "image": Struct("ImageContent", _MEDIA),
    "audio": Struct("AudioContent", _MEDIA),
    "resource_link": Struct(
        "ResourceLink", {"type": STR, "name": STR, "uri": STR, "mimeType": STR, **ITEM_EXTRAS["resource_link"]}
    ),
    "resource": Struct(
        "EmbeddedResource",
        {
            "type": STR,
            "resource": OneOf(
                "TextResourceContents or BlobResourceContents", (TEXT_RESOURCE, BLOB_RESOURCE), _resource
            ),
            **_COMMON,
        },
    ),
}
CONTENT_BLOCK = OneOf(
    "content item of type text, image, audio, resource_link or resource",
    tuple(_ITEMS.values()),
    lambda value: _ITEMS.get(str(value.get("type"))),
)
#: The fields of a result written back from a tool result block's metadata.
RESULT_EXTRAS: dict[str, Kind] = {"_meta": OBJECT}
CALL_TOOL_RESULT = Struct(
    "CallToolResult",
    {"content": ListOf(CONTENT_BLOCK), "structuredContent": JSON, "isError": BOOL, "resultType": STR, **RESULT_EXTRAS},
)
