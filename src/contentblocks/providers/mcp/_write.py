"""Writing a tool result block as an MCP ``CallToolResult``, reporting every loss with its kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._json._values import thaw
from ..._model._classes import BytesSource, FileBlock, JsonBlock, ReferenceSource, TextBlock, ToolResultBlock, UrlSource
from .._arguments import text_of
from .._cache import HINT
from .._documents import report_document_fields
from .._extras import PayloadWriter
from .._media import lower_media_type
from .._native import foreign_reason, foreign_state
from .._search_results import result_without_search_results
from .._shapes import fits
from .._toolkit import b64encode
from ._read import GENERATED, NS
from ._wire import ITEM_EXTRAS, RESOURCE_HEAD, RESULT_EXTRAS

__all__ = ["TARGET", "Writer"]

TARGET = "Model Context Protocol"
_NO_BREAKPOINT = "MCP has no cache breakpoint; not sent"
_TYPE, _NAME, _RESOURCE, _STRUCTURED = f"{NS}/type", f"{NS}/name", f"{NS}/resource", f"{NS}/structured"
_FLAGS = frozenset({_TYPE, _NAME, _RESOURCE, _STRUCTURED, f"{NS}/mimeType", f"{NS}/is_error"})


def _resource(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The kept ``uri``/``mimeType``/``_meta`` of an embedded resource, when they are a valid one."""
    kept = metadata.get(_RESOURCE)
    if isinstance(kept, Mapping) and "uri" in kept and fits(kept, RESOURCE_HEAD):
        return thaw(kept)  # type: ignore[no-any-return]
    return None


def _is_empty_text(block: object) -> bool:
    """Whether ``block`` is the JSON ``""`` an empty MCP text reads as."""
    return type(block) is JsonBlock and block.value == "" and block.metadata.get(_TYPE) == "text"


def _foreign(block: object) -> bool:
    """Whether ``block`` is a JSON block holding a provider's run item (its state: never sent over MCP)."""
    return type(block) is JsonBlock and foreign_state(block, NS) is not None


def _structured(block: ToolResultBlock) -> int | None:
    """The index of the JSON block written as ``structuredContent``.

    That is the first JSON object, or a value read from there (``mcp/structured``).
    """
    for j, b in enumerate(block.content):
        if (
            type(b) is JsonBlock
            and not _is_empty_text(b)
            and not _foreign(b)
            and (isinstance(b.value, dict) or b.metadata.get(_STRUCTURED) is True)
        ):
            return j
    return None


class Writer(PayloadWriter):
    """Writes one tool result block as a ``CallToolResult``."""

    namespace = NS
    target = TARGET

    def _link(self, block: FileBlock, path: str) -> dict[str, Any]:
        source, meta = block.source, block.metadata
        uri = source.url if type(source) is UrlSource else source.id  # type: ignore[union-attr]
        if type(source) is ReferenceSource and source.provider not in (None, NS):
            reason = f"a file id issued by {source.provider!r} becomes a resource_link URI"
            self.loss(f"{path}.source.provider", reason, "content_degraded")
        if type(source) is ReferenceSource and uri[:8].lower().startswith(("http://", "https://")):
            self.loss(
                f"{path}.source",
                "a reference whose id is an http(s) URL reads back as a URL source",
                "content_degraded",
            )
        name = block.filename if block.filename is not None else meta.get(_NAME)
        if type(name) is not str:
            name = uri.rstrip("/").rsplit("/", 1)[-1] or uri
            reason = "a resource_link needs a name; the URI's last segment is given, read back as the filename"
            self.loss(f"{path}.filename", reason, "content_degraded")
        item: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": name}
        if meta.get(f"{NS}/mimeType", "") is not None:
            item["mimeType"] = lower_media_type(block.media_type)
        return item

    def _file(self, block: FileBlock, j: int, path: str) -> dict[str, Any]:
        """The content item for the ``j``-th file of a result (``j`` numbers generated resource URIs)."""
        source = block.source
        report_document_fields(block, path, self.loss, "MCP content")
        if type(source) is not BytesSource:
            return self._link(block, path)
        if block.filename is not None:
            self.loss(f"{path}.filename", "inline MCP content has no filename; dropped", "content_dropped")
        media_type = lower_media_type(block.media_type)  # RFC 6838: case-insensitive
        kind = block.metadata.get(_TYPE)
        if kind not in ("image", "audio"):
            kind = media_type.split("/", 1)[0]
        resource = _resource(block.metadata)
        if resource is not None or kind not in ("image", "audio"):
            head = resource if resource is not None else {"uri": f"{GENERATED}{j}", "mimeType": media_type}
            return {"type": "resource", "resource": {**head, "blob": b64encode(source.data)}}
        return {"type": kind, "data": b64encode(source.data), "mimeType": media_type}

    def write(self, block: ToolResultBlock) -> dict[str, Any]:
        """The ``CallToolResult`` for ``block``."""
        block = result_without_search_results(block, "$", self.loss, "MCP content")
        out: list[Any] = []
        structured = _structured(block)
        for j, part in enumerate(block.content):
            if part.cache is not None:
                self.loss(f"$.content[{j}].cache", _NO_BREAKPOINT, HINT)
        if block.cache is not None:
            self.loss("$.cache", _NO_BREAKPOINT, HINT)
        for j, b in enumerate(block.content):
            path = f"$.content[{j}]"
            if _foreign(b):
                assert type(b) is JsonBlock  # noqa: S101 - narrowed for mypy
                self.loss(path, foreign_reason(foreign_state(b, NS), b, TARGET), "state_not_replayed")  # type: ignore[arg-type]
                continue
            if j == structured:
                if j != len(block.content) - 1:
                    reason = "structuredContent stands apart from content; reads back as the last part"
                    self.loss(path, reason, "order_changed")
                self.report(path, b.metadata, _FLAGS)
                continue
            if type(b) is FileBlock:
                item = self._file(b, sum(type(c) is FileBlock for c in block.content[:j]), path)
            elif type(b) is TextBlock or _is_empty_text(b):
                text = b.text if type(b) is TextBlock else ""
                resource = _resource(b.metadata)
                item = (
                    {"type": "resource", "resource": {**resource, "text": text}}
                    if resource
                    else {"type": "text", "text": text}
                )
                if type(b) is TextBlock and b.citations:
                    self.loss(f"{path}.citations", "MCP content carries no citations; dropped", "content_dropped")
            else:
                assert type(b) is JsonBlock  # noqa: S101 - the last kind of tool result content
                reason = "only one JSON object fits structuredContent; this JSON is written as text"
                self.loss(path, reason, "content_degraded")
                item = {"type": "text", "text": text_of(b)}
            self.finish(item, b.metadata, path, ITEM_EXTRAS[item["type"]], _FLAGS)
            out.append(item)
        payload: dict[str, Any] = {"content": out}
        if structured is not None:
            payload["structuredContent"] = thaw(block.content[structured].value)  # type: ignore[union-attr]
        if block.outcome != "succeeded":
            payload["isError"] = True
            if block.outcome in ("denied", "interrupted"):
                self.loss(
                    "$.outcome",
                    f"MCP has no {block.outcome} outcome; written as isError, reads back as failed",
                    "content_degraded",
                )
        elif block.metadata.get(f"{NS}/is_error") is False:
            payload["isError"] = False
        self.finish(payload, block.metadata, "$", RESULT_EXTRAS, _FLAGS)
        return payload
