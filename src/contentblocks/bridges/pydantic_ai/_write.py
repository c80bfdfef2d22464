"""A conversation to pydantic-ai's history, in the JSON form ``ModelMessagesTypeAdapter`` validates.

Messages other than the assistant's join one ``ModelRequest`` until an assistant message, or until a message that
carries request-level data (``pydantic_ai/request``, or metadata of its own) starts the next; each assistant
message is one ``ModelResponse``. Every field with no place in pydantic-ai is a loss recorded in ``losses``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..._conversion._kernels import thaw
from ..._model._classes import (
    Block,
    BytesSource,
    Citation,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...providers._cache import HINT
from ...providers._compaction import compaction_state
from ...providers._contract import ISSUER_KEY, LossRecorder, issued_by
from ...providers._toolkit import block_path, key_path
from .._shared import report_breakpoints
from .._wire import structure
from ._fields import (
    EXTRA_KEYS,
    LISTED,
    METADATA,
    NAMESPACE,
    NATIVE,
    PART_KIND,
    REQUEST,
    STATE_NAMESPACES,
    provider_of,
)
from ._read import REDACTED_ID, stored_citations
from ._write_items import (
    Metadata,
    cache_point,
    file_item,
    file_object,
    meta_of,
    parses_to,
    part_classes,
    written_citations,
)

__all__ = ["write_history"]

_OUTCOMES = {"succeeded": "success", "failed": "failed", "denied": "denied", "interrupted": "interrupted"}
_REQUEST_KEYS = frozenset(EXTRA_KEYS["request"])
_NO_CACHE_POINT = "pydantic-ai holds cache points only in a user prompt's content; not sent"


def _user_item(block: Block, path: str, losses: LossRecorder) -> Any:
    meta = meta_of(block.metadata, path, losses)
    item: Any
    if isinstance(block, TextBlock):
        if block.citations:
            losses.add(f"{path}.citations", "pydantic-ai keeps citations on model text only", "content_dropped")
        own = meta.own()
        item = {"kind": "text-content", "content": block.text, "metadata": own} if meta.taken else block.text
    elif isinstance(block, JsonBlock) and meta.take(NATIVE):
        item = thaw(block.value)
    elif isinstance(block, JsonBlock):
        item = {"kind": "structured-content", "value": thaw(block.value), "metadata": meta.own(),
                **meta.extras("structured-content")}
    else:
        assert isinstance(block, FileBlock)  # noqa: S101 - the role table allows nothing else in a user message
        item = file_item(block, path, losses, meta)
    meta.done("on a user prompt's content")
    return item


def _result_content(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder,
                    listed: bool) -> Any:  # fmt: skip
    items: list[Any] = []
    at: list[int] = []  # the index of the block each item comes from (a dropped file leaves none)
    for index, part in enumerate(block.content):
        where = f"{path}.content[{index}]"
        meta = meta_of(part.metadata, where, losses)
        if isinstance(part, TextBlock):
            items.append(part.text)
            if part.citations:
                losses.add(f"{where}.citations", "pydantic-ai keeps citations on model text only", "content_dropped")
        elif isinstance(part, JsonBlock):
            items.append(thaw(part.value))
        elif (item := file_item(part, where, losses, meta)) is not None:  # type: ignore[arg-type] # search results: text by now
            items.append(file_object(item))
        at += [index] * (len(items) - len(at))
        meta.done("in a tool return's content")
    for index, part in enumerate(block.content):
        if isinstance(part, JsonBlock) and isinstance(part.value, str) and part.value:
            losses.add(f"{path}.content[{index}]", "pydantic-ai holds a JSON string as text; read back as text",
                       "content_degraded")
    if len(items) == 1 and not listed:
        if isinstance(items[0], list):
            losses.add(f"{path}.content[{at[0]}]", "pydantic-ai holds a JSON array here as the result's list of parts; "
                       "read back as one part per item", "content_degraded")
        return items[0]
    return items


def _tool_return(block: ToolResultBlock, path: str, losses: LossRecorder) -> dict[str, Any]:
    meta = meta_of(block.metadata, path, losses)
    part = _return_part(block, path, losses, meta)
    meta.done("on a tool return")
    return part


def _return_part(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder,
                 meta: Metadata) -> dict[str, Any]:  # fmt: skip
    """A ``ToolReturnPart``, or for a tool the provider ran a ``NativeToolReturnPart`` naming it (in a response)."""
    content = _result_content(block, path, losses, bool(meta.take(LISTED)))
    kind = "tool-return" if type(block) is ToolResultBlock else "builtin-tool-return"
    if kind == "builtin-tool-return":  # before ``own``: another provider's state never rides in pydantic-ai's metadata
        meta.state("pydantic-ai")
    part = {"part_kind": kind, "tool_name": block.tool_name, "tool_call_id": block.tool_call_id,
            "content": content, "metadata": meta.own(), "outcome": _OUTCOMES[block.outcome], **meta.extras(kind)}
    if block.outcome != "failed":  # a kept ``retried`` refines ``failed`` only
        part["outcome"] = _OUTCOMES[block.outcome]
    if kind == "builtin-tool-return":
        part["provider_name"] = _provider(meta, path, losses)
    return part


def _system_parts(message: Message, index: int, losses: LossRecorder) -> list[Any]:
    """A system (or developer) message's ``SystemPromptPart``s: as objects where nothing is kept (``part_classes``)."""
    parts: list[Any] = []
    report_breakpoints(losses.add, message, index, _NO_CACHE_POINT)
    if message.role == "developer":
        losses.add(f"$[{index}].role", "pydantic-ai has no developer role; written as a system prompt",
                   "content_degraded")
    for position, block in enumerate(message.content):
        path = block_path(index, position)
        block_meta = meta_of(block.metadata, path, losses)
        if isinstance(block, TextBlock) and block.citations:
            losses.add(f"{path}.citations", "pydantic-ai keeps citations on model text only", "content_dropped")
        assert isinstance(block, TextBlock)  # noqa: S101 - the role table
        if not block_meta.values:
            parts.append(part_classes().SystemPromptPart(content=block.text))
            continue
        parts.append({"part_kind": "system-prompt", "content": block.text, "metadata": block_meta.own(),
                      **block_meta.extras("system-prompt")})
        block_meta.done("on a system prompt")
    return parts


def _request_parts(message: Message, index: int, meta: Metadata, losses: LossRecorder) -> list[Any]:
    """A request message's parts: JSON forms, and objects of the plain parts (``part_classes``)."""
    parts: list[Any] = []
    if message.role in {"system", "developer"}:
        return _system_parts(message, index, losses)
    if message.role == "tool":
        report_breakpoints(losses.add, message, index, _NO_CACHE_POINT)
        for position, block in enumerate(message.content):
            assert isinstance(block, ToolResultBlock)  # noqa: S101 - the role table
            parts.append(_tool_return(block, block_path(index, position), losses))
    elif meta.take(PART_KIND) == "retry-feedback" and len(message.content) == 1:
        block = message.content[0]
        report_breakpoints(losses.add, message, index, _NO_CACHE_POINT)
        content = block.text if isinstance(block, TextBlock) else thaw(getattr(block, "value", None))
        parts.append({"part_kind": "retry-feedback", "content": content, **meta.extras("retry-feedback")})
    elif all(isinstance(b, JsonBlock) and NATIVE in b.metadata and isinstance(b.value, dict) and "part_kind" in b.value
             for b in message.content):
        parts.extend(thaw(block.value) for block in message.content if isinstance(block, JsonBlock))
        report_breakpoints(losses.add, message, index, _NO_CACHE_POINT)
    else:
        meta.taken.discard(PART_KIND)
        items = _user_items(message, index, losses)
        listed = meta.take(LISTED)
        content = items[0] if len(items) == 1 and isinstance(items[0], str) and not listed else items
        if items and type(content) is str and not meta.values:
            parts.append(part_classes().UserPromptPart(content=content))
        elif items:  # else every block is reported dropped
            parts.append({"part_kind": "user-prompt", "content": content, **meta.extras("user-prompt")})
    return parts


def _text_part(block: TextBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any] | None:
    if not meta.values:  # most parts: nothing kept, the neutral citations (if any) written
        if not block.citations:
            return part_classes().TextPart(content=block.text)  # type: ignore[no-any-return]
        return {"part_kind": "text", "content": block.text, "citations": written_citations(block, path, losses) or None}
    part = {"part_kind": "text", "content": block.text, **meta.extras("text")}
    kept = meta.take(NAMESPACE + "citations", ...)
    stored = None if kept is ... else stored_citations(kept)
    if stored is not None and [structure(c, Citation) for c in stored] == list(block.citations):
        part["citations"] = kept
    else:  # edited since it was read (or never read): the neutral citations are written
        meta.taken.discard(NAMESPACE + "citations")
        part["citations"] = written_citations(block, path, losses) or None
    return part


def _refusal_part(block: RefusalBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any] | None:  # noqa: ARG001 - the table's signature
    losses.add(path, "pydantic-ai has no refusal part; written as text", "content_degraded")
    return {"part_kind": "text", "content": block.text}


def _provider(meta: Metadata, path: str, losses: LossRecorder) -> str | None:
    """pydantic-ai's ``provider_name`` for a block's recorded issuer (or the one kept as it was read)."""
    issuer = meta.take(ISSUER_KEY)
    provider = meta.take(NAMESPACE + "provider_name") or (provider_of(issuer) if isinstance(issuer, str) else None)
    if isinstance(issuer, str) and "/" in issuer:
        losses.add(key_path(path, ISSUER_KEY), "pydantic-ai names the provider only; the model family is not kept",
                   "metadata_not_sent")
    return provider


def _thinking_part(block: ReasoningBlock, path: str, losses: LossRecorder, meta: Metadata) -> Any:
    if not meta.values and block.redacted is None:  # most parts: text and signature only
        return part_classes().ThinkingPart(content=block.text or "", signature=block.signature)
    provider = _provider(meta, path, losses)
    part = {"part_kind": "thinking", "content": block.text or "", "signature": block.signature,
            "provider_name": provider, **meta.extras("thinking")}
    if block.redacted is None:
        return part
    try:
        return {**part, "signature": block.redacted.decode("utf-8"), "id": REDACTED_ID}
    except UnicodeDecodeError:
        losses.add(path, "pydantic-ai holds redacted reasoning as text; these bytes are not UTF-8", "content_dropped")
        meta.taken.update(meta.values)  # dropped with the block
        return None


def _compaction_part(block: CompactionBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any]:
    """A ``CompactionPart``: the summary as its content, the issuer's state as its ``id`` and ``provider_details``.

    pydantic-ai sends a compaction back only to the provider that made it, so state of another namespace than
    its issuer's (or of no known issuer) has no place in it: reported ``state_not_replayed``.
    """
    issuer = meta.take(ISSUER_KEY)
    provider = meta.take(NAMESPACE + "provider_name") or (provider_of(issuer) if isinstance(issuer, str) else None)
    part = {"part_kind": "compaction", "content": block.summary, "provider_name": provider,
            **meta.extras("compaction")}
    space = issuer.split("/", 1)[0] if isinstance(issuer, str) else None
    details: dict[str, Any] = {}
    for key in compaction_state(block):
        value = meta.take(key)
        where, name = key.split("/", 1)
        if where != space or space not in STATE_NAMESPACES:
            losses.add(key_path(path, key), f"compaction state {issued_by(issuer)} has no place in pydantic-ai's "
                       "compaction part of its issuer; dropped", "state_not_replayed")
        elif name == "id":
            part["id"] = value
        else:
            details[name] = value
    if details:
        part["provider_details"] = {**(part.get("provider_details") or {}), **details}
    return part


def _call_part(block: ToolCallBlock | ServerToolCallBlock, path: str, losses: LossRecorder,
               meta: Metadata) -> Any:  # fmt: skip
    """A ``ToolCallPart``, or for a tool the provider ran a ``NativeToolCallPart`` naming it.

    pydantic-ai holds a provider-run tool as data whoever ran it, and sends it back only to that provider: so a
    server call goes as its native part whatever its issuer, and its issuer's state (``state_not_replayed``) not.
    """
    value = thaw(block.input)
    if not meta.values and type(block) is ToolCallBlock:  # most calls: nothing kept
        args = value if value is None or isinstance(value, dict) else json.dumps(value)
        return part_classes().ToolCallPart(tool_name=block.tool_name, args=args, tool_call_id=block.tool_call_id)
    text = meta.take(NAMESPACE + "args")
    if isinstance(text, str) and parses_to(text, value):
        args = text
    else:  # pydantic-ai's args are an object, null, or JSON text
        meta.taken.discard(NAMESPACE + "args")
        args = value if value is None or isinstance(value, dict) else json.dumps(value)
    if type(block) is ToolCallBlock:
        return {"part_kind": "tool-call", "tool_name": block.tool_name, "tool_call_id": block.tool_call_id,
                "args": args, **meta.extras("tool-call")}
    part = {"part_kind": "builtin-tool-call", "tool_name": block.tool_name, "tool_call_id": block.tool_call_id,
            "args": args, **meta.extras("builtin-tool-call"), "provider_name": _provider(meta, path, losses)}
    meta.state("pydantic-ai")
    return part


def _json_part(block: JsonBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any] | None:
    if meta.take(NATIVE):
        return dict(thaw(block.value))
    losses.add(path, "pydantic-ai has no JSON part in a response; written as its JSON text", "content_degraded")
    return {"part_kind": "text", "content": json.dumps(thaw(block.value))}


def _file_part(block: FileBlock, path: str, losses: LossRecorder, meta: Metadata) -> dict[str, Any] | None:
    if not isinstance(block.source, BytesSource):
        losses.add(path, "pydantic-ai's response files hold bytes only; a linked file is not written",
                   "content_dropped")
        meta.taken.update(meta.values)  # dropped with the file
        return None
    content = file_item(block, path, losses, meta)
    return None if content is None else {"part_kind": "file", **meta.extras("file"), "content": content}


_RESPONSE_PARTS: dict[type[Any], Callable[[Any, str, LossRecorder, Metadata], dict[str, Any] | None]] = {
    TextBlock: _text_part,
    RefusalBlock: _refusal_part,
    ReasoningBlock: _thinking_part,
    CompactionBlock: _compaction_part,
    ToolCallBlock: _call_part,
    ServerToolCallBlock: _call_part,
    ServerToolResultBlock: _return_part,
    JsonBlock: _json_part,
    FileBlock: _file_part,
}


def _response_part(block: Block, path: str, losses: LossRecorder) -> dict[str, Any] | None:
    """The response part ``block`` becomes (``None`` when it is dropped), its losses recorded."""
    meta = meta_of(block.metadata, path, losses)
    part = _RESPONSE_PARTS[type(block)](block, path, losses, meta)
    meta.done("on this part")
    return part
def _user_items(message: Message, index: int, losses: LossRecorder) -> list[Any]:
    """A user prompt's content: each block's item, then a ``CachePoint`` where the block or message has a breakpoint."""
    items: list[Any] = []
    for position, block in enumerate(message.content):
        if type(block) is TextBlock and not block.metadata and not block.citations and block.cache is None:
            items.append(block.text)  # most blocks: what ``_user_item`` writes for them, with no path
            continue
        path = block_path(index, position)
        item = _user_item(block, path, losses)
        if item is not None:
            items.append(item)
        if block.cache is not None:
            if item is None:
                losses.add(f"{path}.cache", "the block is not sent, so neither is its cache point", HINT)
            else:
                items.append(cache_point(block.cache, f"{path}.cache", losses))
    if message.cache is not None:
        if not items:
            losses.add(f"$[{index}].cache", "the message is not sent, so neither is its cache point", HINT)
        elif type(items[-1]) is not dict or items[-1].get("kind") != "cache-point":
            items.append(cache_point(message.cache, f"$[{index}].cache", losses))
    return items


def _starts_request(message: Message) -> bool:
    if not message.metadata:
        return False
    return REQUEST in message.metadata or METADATA in message.metadata or any(
        not key.startswith((NAMESPACE, "contentblocks/")) for key in message.metadata
    )


def write_history(messages: Sequence[Message], losses: LossRecorder) -> list[dict[str, Any]]:
    """The history carrying ``messages`` (a conversation's), as the JSON form of pydantic-ai's messages."""
    history: list[dict[str, Any]] = []
    request: dict[str, Any] | None = None
    for index, message in enumerate(messages):
        meta = meta_of(message.metadata, f"$[{index}]", losses)
        if message.role == "assistant":
            report_breakpoints(losses.add, message, index, _NO_CACHE_POINT)
            written = [_response_part(block, block_path(index, position), losses)
                       for position, block in enumerate(message.content)]
            if parts := [part for part in written if part is not None]:
                request = None
                history.append({"kind": "response", "parts": parts, "metadata": meta.own(),
                                **meta.extras("response")})
            else:  # every block is reported dropped; so is the message's metadata
                meta.taken.update(meta.values)
        elif not (parts := _request_parts(message, index, meta, losses)):
            meta.taken.update(meta.values)  # every block is reported dropped; so is the message's metadata
        else:
            if request is None or _starts_request(message):
                fields = meta.take(REQUEST, {})
                if not isinstance(fields, dict) or not fields.keys() <= _REQUEST_KEYS:
                    meta.taken.discard(REQUEST)  # reported below, not written
                    fields = {}
                request = {"kind": "request", "parts": [], "metadata": meta.own(), **fields}
                history.append(request)
            request["parts"].extend(parts)
        meta.done("on a message")
    return history
