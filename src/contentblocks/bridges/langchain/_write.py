"""A conversation to LangChain's messages, as ``(class name, keyword arguments)`` the facade builds them from.

Each system, developer, user and assistant message is one message; each tool result one ``ToolMessage``. Content
is a string where one plain text (or nothing) says it all, else a list of LangChain's v1 standard content blocks.
Every field with no place in LangChain is a loss recorded in ``losses``.
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
    CitedUri,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...providers._compaction import compaction_summary
from ...providers._contract import ISSUER_KEY, LossRecorder
from ...providers._documents import report_document_fields, report_locations, report_other_sources
from ...providers._toolkit import b64encode, block_path
from .._shared import report_breakpoints
from .._wire import structure
from ._citations import citations_of
from ._fields import (
    CLASSES,
    CONTENT_LIST,
    DEVELOPER,
    ISSUER_EXTRA,
    NAMESPACE,
    NATIVE,
    NO_ORIGIN,
    OUTSIDE,
    PLAIN,
    PROVIDER_EXTRA,
    REFERENCE_EXTRA,
    Origin,
    block_kind,
    byte_offsets,
    origin_of,
)
from ._handout import NOTHING, Metadata, finish, meta_of
from ._read import EMPTY, ORIGINAL, UNLISTED, read_item
from ._server import WRITTEN_CALLS, write_call, write_result

__all__ = ["write_history"]

_STATUS = {"succeeded": "success", "failed": "error", "denied": "error", "interrupted": "error"}
_RESPONSE_METADATA = NAMESPACE + "response_metadata"
#: ``json.dumps(value, ensure_ascii=False)``, with its encoder built once rather than on every call.
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode
_DEFAULT_CLASS = {"system": "SystemMessage", "developer": "SystemMessage", "user": "HumanMessage",
                  "assistant": "AIMessage", "tool": "ToolMessage"}


def _annotations(block: TextBlock, meta: Metadata, in_bytes: bool) -> list[dict[str, Any]] | None:
    kept = meta.take(NAMESPACE + "annotations", ...)
    if kept is not ... and [structure(c, Citation) for c in citations_of(kept, block.text, in_bytes)[0]] == list(
        block.citations
    ):
        return kept  # type: ignore[no-any-return]
    meta.taken.discard(NAMESPACE + "annotations")  # edited since it was read (or never read)
    written = []
    for citation in block.citations:  # an annotation names one source: one per source, as ``one_per_source``
        common: dict[str, Any] = {}
        if citation.title is not None:
            common["title"] = citation.title
        if citation.start is not None and citation.end is not None:
            start, end = citation.start, citation.end
            if in_bytes:
                start, end = (len(block.text[:at].encode("utf-8", "surrogatepass")) for at in (start, end))
            common["start_index"], common["end_index"] = start, end
        if citation.quote is not None:
            common["cited_text"] = citation.quote
        sources = (citation.source, *citation.other_sources) if citation.other_sources else (citation.source,)
        for source in sources:  # each annotation its own dicts: the caller may edit them
            item: dict[str, Any] = (
                {"type": "citation", "url": source.value} if isinstance(source, CitedUri)
                else {"type": "citation", "extras": {REFERENCE_EXTRA: source.value}}
            )  # fmt: skip
            item.update(common)
            written.append(item)
    return written or None


def _text(block: TextBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:
    if meta.values and meta.take(PLAIN) and not block.citations and set(block.metadata) == {PLAIN}:
        return block.text
    item: dict[str, Any] = {"type": "text", "text": block.text}
    if (annotations := _annotations(block, meta, byte_offsets(origin.provider))) is not None:
        item["annotations"] = annotations
    report_locations(block.citations, path, losses.add, "LangChain's citations")
    report_other_sources(block.citations, path, losses.add, "LangChain's citations")
    return finish(item, meta)


def _refusal(block: RefusalBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:  # noqa: ARG001 - the table's signature
    return finish({"type": "refusal", "refusal": block.text}, meta)


def _reasoning(block: ReasoningBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:
    issuer = meta.take(ISSUER_KEY)
    if block.redacted is not None:
        if issuer != origin.issuer:
            meta.taken.discard(ISSUER_KEY)  # reported: LangChain's redacted block says no issuer of its own
        try:
            data = block.redacted.decode("utf-8")
        except UnicodeDecodeError:
            losses.add(path, "LangChain holds redacted reasoning as text; these bytes are not UTF-8",
                       "content_dropped")
            meta.drop()
            return None
        return {"type": "non_standard", "value": {"type": "redacted_thinking", "data": data}}
    item: dict[str, Any] = {"type": "reasoning"}
    text = block.text if block.text is not None else meta.take(NAMESPACE + "reasoning")
    if text is not None:
        item["reasoning"] = text
    extras = {} if block.signature is None else {"signature": block.signature}
    if issuer != (origin.issuer if block.signature is not None else None):
        extras[ISSUER_EXTRA] = issuer
    return finish(item, meta, extras)


def _file(block: FileBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:  # noqa: ARG001 - the table's signature
    source, extras = block.source, {}
    kind = meta.take(NAMESPACE + "type") or block_kind(block.media_type)
    item: dict[str, Any] = {"type": kind}
    if meta.take(NAMESPACE + "mime_type", block.media_type) is not None:
        item["mime_type"] = block.media_type
    if isinstance(source, BytesSource):
        if meta.take(NAMESPACE + "source") == "text" and kind == "text-plain":
            try:
                item["text"] = source.data.decode("utf-8")
            except UnicodeDecodeError:
                item["base64"] = b64encode(source.data)
        else:
            item["base64"] = b64encode(source.data)
    elif isinstance(source, ReferenceSource):
        item["file_id"] = source.id
        if source.provider is not None:
            extras[PROVIDER_EXTRA] = source.provider
    else:
        item["url"] = source.url
    if block.filename is not None:
        extras["filename"] = block.filename
    report_document_fields(block, path, losses.add, "LangChain's file blocks")
    return finish(item, meta, extras)


def _json(block: JsonBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:  # noqa: ARG001 - the table's signature
    value = thaw(block.value)
    if meta.take(NATIVE) and isinstance(value, str | dict):
        return value
    meta.taken.discard(NATIVE)
    losses.add(path, "LangChain has no JSON content block; written as its JSON text", "content_degraded")
    return {"type": "text", "text": _JSON_TEXT(value)}


def _compaction(block: CompactionBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:  # noqa: ARG001 - the table's signature
    summary = compaction_summary(block, path, "LangChain", losses.add, meta.taken)
    return None if summary is None else {"type": "text", "text": summary}


_WRITERS: dict[type[Any], Callable[[Any, str, LossRecorder, Metadata, Origin], Any]] = {
    TextBlock: _text,
    RefusalBlock: _refusal,
    ReasoningBlock: _reasoning,
    FileBlock: _file,
    JsonBlock: _json,
    CompactionBlock: _compaction,
    ServerToolCallBlock: write_call,
    ServerToolResultBlock: lambda block, path, losses, meta, origin: write_result(
        block, path, losses, meta, origin, lambda part, at: _item(part, at, losses, origin, "tool")),
}


def _item(block: Block, path: str, losses: LossRecorder, origin: Origin, role: str) -> Any:
    if type(block) is TextBlock and not block.metadata and not block.citations:
        return {"type": "text", "text": block.text}  # most blocks: what ``_text`` writes with nothing to hand out
    if not block.metadata:
        return _WRITERS[type(block)](block, path, losses, NOTHING, origin)
    meta = Metadata(block.metadata, path, losses)
    original = meta.take(ORIGINAL, ...)
    if original is not ... and read_item(original, role, origin) == block:
        return original  # read through LangChain's translation, and not edited since: written back as it was
    item = _WRITERS[type(block)](block, path, losses, meta, origin)
    meta.done("on this block")
    return item


def _call(block: ToolCallBlock, path: str, losses: LossRecorder) -> tuple[dict[str, Any], dict[str, Any] | None, bool]:
    """A tool call as a content block, its entry in ``tool_calls`` (or ``invalid_tool_calls``), and list-only."""
    if not block.metadata and type(value := thaw(block.input)) is dict:  # most calls: nothing kept, an object
        return ({"type": "tool_call", "id": block.tool_call_id, "name": block.tool_name, "args": value},
                {"id": block.tool_call_id, "name": block.tool_name, "args": value}, False)  # fmt: skip
    meta = meta_of(block.metadata, path, losses)
    kept = bool(meta.values)
    outside = kept and bool(meta.take(OUTSIDE))
    unlisted = kept and bool(meta.take(UNLISTED))
    value = thaw(block.input)
    if kept and meta.take(NAMESPACE + "type") == "invalid_tool_call":
        args = value if value is None or isinstance(value, str) else json.dumps(value)
        entry = {"type": "invalid_tool_call", "id": block.tool_call_id, "name": block.tool_name, "args": args,
                 "error": meta.take(NAMESPACE + "error")}
    elif isinstance(value, dict):
        entry = {"type": "tool_call", "id": block.tool_call_id, "name": block.tool_name, "args": value}
    else:
        losses.add(f"{path}.input", "LangChain's tool calls take an object; written as an invalid tool call "
                   "with its JSON text", "content_degraded")
        entry = {"type": "invalid_tool_call", "id": block.tool_call_id, "name": block.tool_name,
                 "args": json.dumps(value), "error": None}
    listed = None if unlisted else {key: value for key, value in entry.items() if key != "type"}
    item = finish(dict(entry), meta)
    if kept:
        meta.done("on a tool call")
    return item, listed, outside


def _plain(written: list[tuple[bool, Any]], listed: object) -> bool:
    """Whether a string says what the written items say: no item but list-only calls, or one bare text first.

    Not when the content was a list kept as one, a call only the content holds, or calls that LangChain's lists
    would reorder (an invalid call before a valid one).
    """
    if listed:
        return False
    text: Any = None
    invalid = False
    for position, (call, item) in enumerate(written):
        if call:
            if not item[1] or (item[0]["type"] == "tool_call" and invalid):
                return False
            invalid = item[0]["type"] != "tool_call"
        elif text is not None or position != 0:
            return False  # a second item, or an item after a call: the list says more than a string
        else:
            text = item
    return text is None or (isinstance(text, dict) and text.keys() == {"type", "text"} and text["type"] == "text")


def _single(item: Any) -> Any:
    """The content of a message of one block (not a call) with nothing kept: what ``_content`` writes for it."""
    if item is None:
        return ""
    if isinstance(item, dict) and item.keys() == {"type", "text"} and item["type"] == "text":
        return item["text"]  # a bare text: the string ``_plain`` allows
    return [item]


def _empty(blocks: Sequence[Block]) -> bool:
    """Whether ``blocks`` are tool calls and one JSON block standing for LangChain's empty content (``EMPTY``)."""
    for block in blocks:
        if isinstance(block, JsonBlock) and EMPTY in block.metadata:
            return sum(not isinstance(other, ToolCallBlock) for other in blocks) == 1
    return False


def _list_calls(kwargs: dict[str, Any], meta: Metadata, valid: list[Any], invalid: list[Any]) -> None:
    """Put the calls in ``tool_calls`` and ``invalid_tool_calls``, after those kept from LangChain's lists alone."""
    for key, entries in (("tool_calls", valid), ("invalid_tool_calls", invalid)):
        more = meta.take(NAMESPACE + key) if meta.values else None
        if every := entries + more if isinstance(more, list) else entries:
            kwargs[key] = every


def _content(blocks: Sequence[Block], at: str, meta: Metadata, losses: LossRecorder, origin: Origin,
             kwargs: dict[str, Any], role: str) -> Any:
    """The content of one message (or tool result) at ``at``, its tool calls put in ``kwargs``; a string if it can.

    A block's path is built only where a writer may need it: a plain text or tool call with nothing kept (most
    blocks) is written here, with no path, no handout and no call.
    """
    kept = bool(meta.values)
    if not kept and len(blocks) == 1 and type(blocks[0]) not in (ToolCallBlock, JsonBlock):
        block = blocks[0]
        if type(block) is TextBlock and not block.metadata and not block.citations:
            return block.text  # the one bare text ``_single`` writes as a string
        return _single(_item(block, f"{at}.content[0]", losses, origin, role))
    listed = meta.take(CONTENT_LIST) if kept else None
    empty = _empty(blocks)
    valid: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    # each item: (is a call, the call's (content block, in a list, in a list only) or the block's item)
    written: list[tuple[bool, Any]] = []
    for position, block in enumerate(blocks):
        if type(block) is TextBlock and not block.metadata and not block.citations:
            written.append((False, {"type": "text", "text": block.text}))  # what ``_text`` writes for it
        elif isinstance(block, ToolCallBlock):
            item, entry, outside = _call(block, f"{at}.content[{position}]", losses)
            if entry is not None:
                (valid if item["type"] == "tool_call" else invalid).append(entry)
            written.append((True, (item, entry is not None, outside and entry is not None)))
        elif not empty and (item := _item(block, f"{at}.content[{position}]", losses, origin, role)) is not None:
            written.append((False, item))
    _list_calls(kwargs, meta, valid, invalid)
    if empty:
        value = thaw(next(block for block in blocks if isinstance(block, JsonBlock)).value)
        return value if value in ("", []) else ""
    if _plain(written, listed):
        return next((item["text"] for call, item in written if not call), "")
    return [item[0] if call else item for call, item in written if not (call and item[2])]


def _class(meta: Metadata, role: str) -> str:
    if not meta.values:
        return _DEFAULT_CLASS[role]
    kept = meta.take(NAMESPACE + "type")
    if kept in CLASSES and CLASSES[kept][1] == ("system" if role == "developer" else role):
        return CLASSES[kept][0]
    meta.taken.discard(NAMESPACE + "type")  # reported: no class of this role
    return _DEFAULT_CLASS[role]


def _message(message: Message, index: int, losses: LossRecorder) -> tuple[str, str, dict[str, Any]]:
    at = f"$[{index}]"
    role = "system" if message.role == "developer" else message.role
    kwargs: dict[str, Any] = {}
    if not message.metadata:  # most messages: the role's class, and nothing to give back
        kwargs["content"] = _content(message.content, at, NOTHING, losses, NO_ORIGIN, kwargs, role)
        if message.role == "developer":
            kwargs["additional_kwargs"] = {DEVELOPER[0]: DEVELOPER[1]}
        return at, _DEFAULT_CLASS[message.role], kwargs
    meta = Metadata(message.metadata, at, losses)
    name = _class(meta, message.role)
    origin = origin_of(message.metadata.get(_RESPONSE_METADATA))
    kwargs["content"] = _content(message.content, at, meta, losses, origin, kwargs, role)
    meta.give_back(kwargs)
    if message.role == "developer":
        kwargs["additional_kwargs"] = {**(kwargs.get("additional_kwargs") or {}), DEVELOPER[0]: DEVELOPER[1]}
    meta.done("on a message")
    return at, name, kwargs


def _tool_message(block: ToolResultBlock, path: str, losses: LossRecorder) -> tuple[str, str, dict[str, Any]]:
    meta = meta_of(block.metadata, path, losses)
    name = _class(meta, "tool")
    kwargs: dict[str, Any] = {"tool_call_id": block.tool_call_id, "status": _STATUS[block.outcome]}
    kwargs["name"] = block.tool_name if not meta.values or meta.take(NAMESPACE + "name", ...) is ... else None
    if block.outcome in ("denied", "interrupted"):
        losses.add(f"{path}.outcome", f"LangChain has no {block.outcome} outcome; written as an error",
                   "content_degraded")
    kwargs["content"] = _content(block.content, path, meta, losses, NO_ORIGIN, kwargs, "tool")
    if meta.values:
        meta.give_back(kwargs)
        meta.done("on a tool result")
    return path, name, kwargs


def write_history(messages: list[Message], losses: LossRecorder) -> list[tuple[str, str, dict[str, Any]]]:
    """The LangChain messages carrying ``messages``: each as its path in them, its class name and arguments."""
    token = WRITTEN_CALLS.set({})  # the server calls written so far: a result after its call needs no name
    try:
        return _write_history(messages, losses)
    finally:
        WRITTEN_CALLS.reset(token)


def _write_history(messages: list[Message], losses: LossRecorder) -> list[tuple[str, str, dict[str, Any]]]:
    history: list[tuple[str, str, dict[str, Any]]] = []
    for index, message in enumerate(messages):
        report_breakpoints(losses.add, message, index, "LangChain messages have no cache breakpoint; not sent")
        if message.role != "tool":
            history.append(_message(message, index, losses))
            continue
        for position, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock):
                history.append(_tool_message(block, block_path(index, position), losses))
        if message.metadata:
            Metadata(message.metadata, f"$[{index}]", losses).done(
                "on a tool message (LangChain keeps fields per ToolMessage)")
    return history
