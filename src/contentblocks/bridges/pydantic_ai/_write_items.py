"""What the pydantic-ai writer builds for every kind of message: metadata handouts, files, citations, cache points.

Also where the plain parts it builds as pydantic-ai's objects come from (``part_classes``). Split from ``_write``
(the messages and their parts), which uses these for user prompts, tool returns and response parts alike.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Mapping
from typing import Any

from ..._model._classes import BytesSource, CacheBreakpoint, CitedUri, FileBlock, ReferenceSource, TextBlock
from ...providers._cache import HINT
from ...providers._contract import LossRecorder
from ...providers._documents import report_document_fields, report_locations
from .._shared import MetadataHandout
from ._fields import EXTRA_KEYS, METADATA, NAMESPACE, UPLOADERS, url_kind

__all__ = [
    "NOTHING",
    "Metadata",
    "cache_point",
    "file_item",
    "file_object",
    "meta_of",
    "parses_to",
    "part_classes",
    "written_citations",
]

_TTLS = {300: "5m", 3600: "1h"}


def cache_point(cache: CacheBreakpoint, path: str, losses: LossRecorder) -> dict[str, Any]:
    """A ``CachePoint``: its ``ttl`` is ``5m`` (also for no time to live: pydantic-ai's default) or ``1h``."""
    ttl = _TTLS.get(cache.ttl or 300)
    if ttl is None:
        ttl = "5m" if cache.ttl <= 1950 else "1h"  # type: ignore[operator]  # the nearer of the two
        losses.add(f"{path}.ttl", f"pydantic-ai's cache points last 5 minutes or 1 hour only; a time to live of "
                   f"{cache.ttl} seconds is written as {ttl}", HINT)
    return {"kind": "cache-point", "ttl": ttl}


class Metadata(MetadataHandout):
    """One block's or message's metadata, handed out key by key to pydantic-ai's fields."""

    __slots__ = ()

    def __init__(self, metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> None:
        super().__init__(metadata, path, losses, "pydantic-ai", NAMESPACE, METADATA)

    def extras(self, kind: str) -> dict[str, Any]:
        """The ``pydantic_ai/`` fields a part of ``kind`` has, as its fields."""
        if not self.values:  # most parts: no metadata
            return {}
        return {key: self.take(NAMESPACE + key) for key in EXTRA_KEYS[kind] if NAMESPACE + key in self.values}


#: The handout of every part or message with no metadata (most): it has nothing to hand out, take or report,
#: so one serves them all (``take`` records only keys it holds, and ``taken`` gains nothing from no values).
NOTHING = Metadata({}, "$", LossRecorder())


def meta_of(metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> Metadata:
    """The handout of ``metadata`` (at ``path``): ``NOTHING`` when it is empty."""
    return Metadata(metadata, path, losses) if metadata else NOTHING


def file_item(block: FileBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any] | None:
    source = block.source
    item: dict[str, Any] = {"media_type": block.media_type}
    if isinstance(source, BytesSource):
        item.update(kind="binary", data=source.data)
    elif isinstance(source, ReferenceSource):
        if source.provider not in UPLOADERS:
            losses.add(path, f"pydantic-ai's uploaded files name one of {', '.join(UPLOADERS)} as their provider; "
                       "this file is not written", "content_dropped")
            meta.taken.update(meta.values)  # dropped with the file
            return None
        item.update(kind="uploaded-file", file_id=source.id, provider_name=source.provider)
    else:
        item.update(kind=url_kind(block.media_type), url=source.url)
        if meta.take(NAMESPACE + "media_type", block.media_type) is None:
            del item["media_type"]
    item.update(meta.extras(item["kind"]))
    if block.filename is not None:
        losses.add(f"{path}.filename", "pydantic-ai's files have no file name", "content_dropped")
    report_document_fields(block, path, losses.add, "pydantic-ai's files")
    return item


@functools.cache
def part_classes() -> Any:
    """``pydantic_ai.messages``, whose plain part classes the writer builds directly (imported by the facade).

    A part with nothing but its content and the fields every part has (a text with no citations, a thinking
    part, a tool call, a system or plain user prompt: most parts) is built as the object pydantic-ai's validator
    would build from its JSON form, and passed through by it as it is (it does not validate its own instances
    again): the writer skips pydantic-ai's validation of the form for those. Every other part is written in its
    JSON form, for pydantic-ai's validators.
    """
    return importlib.import_module("pydantic_ai.messages")


@functools.cache
def _file_items() -> Any:
    """The validator of pydantic-ai's file items (its ``MultiModalContent``)."""
    import pydantic  # noqa: PLC0415 - pydantic-ai's own dependency, imported with it

    items: Any = importlib.import_module("pydantic_ai.messages").MultiModalContent
    return pydantic.TypeAdapter(items)


def file_object(item: dict[str, Any]) -> Any:
    """A file item for a tool return's content, as pydantic-ai's object.

    In a tool return's content, pydantic-ai takes a mapping shaped like a file item for a file only if the part
    records its digest (``content_file_digests``, which its dump writes); otherwise it stays a mapping, so the
    model would get it as JSON. Its own objects are taken as files. An item its validator refuses is left as it
    is, for the history's validation to report at its path.
    """
    import pydantic  # noqa: PLC0415

    try:
        return _file_items().validate_python(item)
    except pydantic.ValidationError:
        return item


def written_citations(block: TextBlock, path: str, losses: LossRecorder) -> list[dict[str, Any]]:
    """The JSON form of pydantic-ai's citations for ``block``'s, its losses recorded (an empty span's, a location)."""
    written = []
    for index, citation in enumerate(block.citations):
        excerpts = [] if citation.quote is None else [citation.quote]
        sources = [{"kind": "web", "url": cited.value, "title": citation.title, "excerpts": excerpts}
                   if isinstance(cited, CitedUri) else
                   {"kind": "document", "document_id": cited.value, "title": citation.title, "excerpts": excerpts}
                   for cited in (citation.source, *citation.other_sources)]  # fmt: skip
        anchor = None
        if citation.start is not None and citation.start < citation.end:  # type: ignore[operator]
            anchor = {"kind": "content", "start": citation.start, "end": citation.end}
        elif citation.start is not None:
            losses.add(f"{path}.citations[{index}].start", "pydantic-ai's citation anchors cover at least one "
                       "character; this empty span is not kept", "content_dropped")
        written.append({"sources": sources, "anchor": anchor})
    report_locations(block.citations, path, losses.add, "pydantic-ai's citations")
    return written


def parses_to(text: str, value: Any) -> bool:
    """Whether the JSON ``text`` (or a text that is not JSON, as a string) says ``value``."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return isinstance(value, str) and text == value
    return json.dumps(parsed, sort_keys=True) == json.dumps(value, sort_keys=True)
