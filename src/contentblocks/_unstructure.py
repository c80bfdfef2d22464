"""Unstructure hooks: blocks out as canonical, JSON-ready dicts.

Absent optionals and empty optional collections are omitted; JSON values come out as plain ``dict`` and
``list`` copies (never the block's own read-only containers); binary comes out as base64 text or, in the
native mode for msgpack and CBOR, as ``bytes``.
"""

from __future__ import annotations

import binascii
import functools
from collections.abc import Callable
from typing import Any

from ._accel import MISS, speedups
from ._blocks import (
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
from ._json import JsonArray, JsonObject
from ._json import thaw as _thaw
from ._messages import Conversation, Message

__all__ = ["SHAPES", "dump_default", "dump_hooks", "serialised_parts", "unstructure_hooks"]

Hook = Callable[[Any], Any]

_METADATA = ("metadata", "metadata", "metadata")

#: The hooks below as a table, for the C accelerator's unstructurer (``_speedups.unstructurer``): per class,
#: its wire keys in order, each as (kind, key, attribute), or ("const", key, tag). The tests hold it to the
#: hooks, key order included.
SHAPES: dict[type, tuple[tuple[str, str | None, Any], ...]] = {
    TextBlock: (
        ("const", "type", "text"),
        ("value", "text", "text"),
        ("nonempty_objects", "citations", "citations"),
        _METADATA,
    ),
    RefusalBlock: (("const", "type", "refusal"), ("value", "text", "text"), _METADATA),
    FileBlock: (
        ("const", "type", "file"),
        ("value", "media_type", "media_type"),
        ("object", "source", "source"),
        ("optional", "filename", "filename"),
        _METADATA,
    ),
    ReasoningBlock: (
        ("const", "type", "reasoning"),
        ("optional", "text", "text"),
        ("optional", "signature", "signature"),
        ("optional_binary", "redacted", "redacted"),
        _METADATA,
    ),
    ToolCallBlock: (
        ("const", "type", "tool_call"),
        ("value", "tool_call_id", "tool_call_id"),
        ("value", "tool_name", "tool_name"),
        ("json", "input", "input"),
        _METADATA,
    ),
    ToolResultBlock: (
        ("const", "type", "tool_result"),
        ("value", "tool_call_id", "tool_call_id"),
        ("value", "tool_name", "tool_name"),
        ("value", "outcome", "outcome"),
        ("objects", "content", "content"),
        _METADATA,
    ),
    JsonBlock: (("const", "type", "json"), ("json", "value", "value"), _METADATA),
    BytesSource: (("const", "type", "base64"), ("binary", "data", "data")),
    UrlSource: (("const", "type", "url"), ("value", "url", "url")),
    ReferenceSource: (("const", "type", "reference"), ("value", "id", "id"), ("optional", "provider", "provider")),
    Citation: (
        ("object", "source", "source"),
        ("optional", "title", "title"),
        ("optional", "quote", "quote"),
        ("optional", "start", "start"),  # a span has both ends or neither
        ("optional", "end", "end"),
    ),
    CitedUri: (("const", "kind", "uri"), ("value", "value", "value")),
    CitedReference: (("const", "kind", "reference"), ("value", "value", "value")),
    Message: (("value", "role", "role"), ("objects", "content", "content"), _METADATA),
    Conversation: (("list", None, "messages"),),
}


def unstructure_hooks(*, native_binary: bool, plain_json: bool = True) -> dict[type, Hook]:  # noqa: C901, PLR0915 - one closure per class
    """One unstructure function per class, calling each other directly.

    With ``plain_json=False`` JSON values come out as the blocks' own read-only containers (dict and list
    subclasses), for serialisers that write them at once: no copy is made.
    """
    thaw = _thaw if plain_json else _keep
    # Chosen once: raw bytes for msgpack and CBOR, else canonical base64 text (in C where it is built).
    binary: Callable[[bytes], Any] = _keep if native_binary else speedups.b64encode if speedups is not None else _b64

    def citation(c: Citation) -> dict[str, Any]:
        source = c.source
        out: dict[str, Any] = {
            "source": {"kind": "uri" if isinstance(source, CitedUri) else "reference", "value": source.value}
        }
        if c.title is not None:
            out["title"] = c.title
        if c.quote is not None:
            out["quote"] = c.quote
        if c.start is not None:
            out["start"] = c.start
            out["end"] = c.end
        return out

    def text(b: TextBlock) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "text", "text": b.text}
        if b.citations:
            out["citations"] = [citation(c) for c in b.citations]
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    def refusal(b: RefusalBlock) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "refusal", "text": b.text}
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    def bytes_source(s: BytesSource) -> dict[str, Any]:
        return {"type": "base64", "data": binary(s.data)}

    def url_source(s: UrlSource) -> dict[str, Any]:
        return {"type": "url", "url": s.url}

    def reference_source(s: ReferenceSource) -> dict[str, Any]:
        if s.provider is None:
            return {"type": "reference", "id": s.id}
        return {"type": "reference", "id": s.id, "provider": s.provider}

    sources: dict[type, Hook] = _ByClass(
        {BytesSource: bytes_source, UrlSource: url_source, ReferenceSource: reference_source}
    )

    def file(b: FileBlock) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "file", "media_type": b.media_type, "source": sources[type(b.source)](b.source)}
        if b.filename is not None:
            out["filename"] = b.filename
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    def reasoning(b: ReasoningBlock) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "reasoning"}
        if b.text is not None:
            out["text"] = b.text
        if b.signature is not None:
            out["signature"] = b.signature
        if b.redacted is not None:
            out["redacted"] = binary(b.redacted)
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    def tool_call(b: ToolCallBlock) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "tool_call",
            "tool_call_id": b.tool_call_id,
            "tool_name": b.tool_name,
            "input": thaw(b.input),
        }
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    def json_block(b: JsonBlock) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "json", "value": thaw(b.value)}
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    content_hooks: dict[type, Hook] = _ByClass({TextBlock: text, FileBlock: file, JsonBlock: json_block})

    def tool_result(b: ToolResultBlock) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "tool_result",
            "tool_call_id": b.tool_call_id,
            "tool_name": b.tool_name,
            "outcome": b.outcome,
            "content": [content_hooks[type(c)](c) for c in b.content],
        }
        if b.metadata:
            out["metadata"] = thaw(b.metadata)
        return out

    blocks: dict[type, Hook] = _ByClass(
        {
            TextBlock: text,
            RefusalBlock: refusal,
            FileBlock: file,
            ReasoningBlock: reasoning,
            ToolCallBlock: tool_call,
            ToolResultBlock: tool_result,
            JsonBlock: json_block,
        }
    )

    def message(m: Message) -> dict[str, Any]:
        out: dict[str, Any] = {"role": m.role, "content": [blocks[type(b)](b) for b in m.content]}
        if m.metadata:
            out["metadata"] = thaw(m.metadata)
        return out

    def conversation(c: Conversation) -> list[dict[str, Any]]:
        return [message(m) for m in c.messages]

    def cited_uri(s: CitedUri) -> dict[str, Any]:
        return {"kind": "uri", "value": s.value}

    def cited_reference(s: CitedReference) -> dict[str, Any]:
        return {"kind": "reference", "value": s.value}

    hooks: dict[type, Hook] = {
        **blocks,
        **sources,
        Citation: citation,
        CitedUri: cited_uri,
        CitedReference: cited_reference,
        Message: message,
        Conversation: conversation,
    }
    if speedups is None:
        return hooks
    # The C unstructurer does the whole walk from the object a hook is given; the hooks above are the reference
    # and run where it misses (an object its table does not describe, such as a subclass).
    walk = _walker(speedups, plain_json=plain_json, native_binary=native_binary)
    return {cls: _accelerated(walk, hook) for cls, hook in hooks.items()}


@functools.cache
def _walker(accelerator: Any, *, plain_json: bool, native_binary: bool) -> Hook:
    """The C unstructurer of one mode, made once and shared by every converter: it holds nothing that changes."""
    return accelerator.unstructurer(SHAPES, plain_json, not native_binary, MISS)  # type: ignore[no-any-return]


def _accelerated(walk: Hook, hook: Hook) -> Hook:
    def unstructure(obj: Any) -> Any:
        out = walk(obj)
        return hook(obj) if out is MISS else out

    return unstructure


class _ByClass(dict[type, Hook]):
    """Hooks by exact class; a subclass of a block (found by no exact lookup) takes its nearest base's hook."""

    def __missing__(self, cls: type) -> Hook:
        for base in cls.__mro__[1:]:
            if base in self:
                return dict.__getitem__(self, base)
        raise KeyError(cls)


def _keep(value: Any) -> Any:
    return value


def _b64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


_DUMP_HOOKS = {
    native: unstructure_hooks(native_binary=native, plain_json=False) for native in (False, True)
}


_DUMP_BY_CLASS = {native: _ByClass(hooks) for native, hooks in _DUMP_HOOKS.items()}


def dump_hooks(*, native_binary: bool) -> dict[type, Hook]:
    """The hooks a serialiser uses when it writes the result at once (JSON values are not copied)."""
    return _DUMP_HOOKS[native_binary]


def dump_default(*, native_binary: bool, fallback: Hook | None = None) -> Hook:
    """A ``default=`` callback for a serialiser that calls back for the objects it cannot write (orjson).

    Blocks, messages and conversations (and subclasses of them, as their base) come out as :func:`dump_hooks`
    give them; read-only JSON containers as plain shallow copies, for a serialiser told not to write dict and
    list subclasses itself; anything else goes to ``fallback``, or raises TypeError as such a callback must.
    """
    hooks = _DUMP_BY_CLASS[native_binary]
    # The C walk called straight from the callback, rather than through a hook: one Python call per message.
    walk = None if speedups is None else _walker(speedups, plain_json=False, native_binary=native_binary)

    def default(obj: Any) -> Any:
        if walk is not None:
            out = walk(obj)
            if out is not MISS:
                return out
        try:
            hook = hooks[type(obj)]
        except KeyError:
            if isinstance(obj, JsonObject):
                return dict(obj)
            if isinstance(obj, JsonArray):
                return list(obj)
            if fallback is not None:
                return fallback(obj)
            msg = f"Type is not JSON serializable: {type(obj).__name__}"
            raise TypeError(msg) from None
        return hook(obj)

    return default


def serialised_parts(obj: Any) -> Any:
    """What to hand a serialiser with a ``default=`` callback so that it writes ``obj`` part by part, or MISS.

    A conversation is handed over as its tuple of messages: the callback unstructures each message when the
    serialiser reaches it, and the message's dicts are freed once it is written, so the dict tree of the whole
    conversation never exists at once (at 20,000 blocks that tree no longer fits in a processor's cache, and
    building it cost more per block than writing it). A message or block is handed over as it is. Anything
    else is a MISS: the converter unstructures it as a whole.
    """
    cls = type(obj)
    if cls is Conversation:
        return obj.messages if type(obj.messages) is tuple else MISS
    return obj if cls in _DUMP_HOOKS[False] else MISS
