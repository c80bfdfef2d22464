"""A conversation to the SDK's ``ModelMessage`` JSON, each loss recorded: one ``ModelMessage`` per message."""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

from ..._conversion._kernels import thaw
from ..._model._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BytesSource,
    CacheBreakpoint,
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
    UrlSource,
)
from ..._model._conversation import Conversation
from ...providers._cache import HINT, inner_breakpoints
from ...providers._compaction import compaction_summary
from ...providers._contract import LossRecorder
from ...providers._documents import report_document_fields
from ...providers._toolkit import b64encode, block_path
from ._model_cache import FORM, MARKABLE, control, put_cache
from ._model_read import AS_STRING, EMPTY_REASON, EXECUTED, OUTPUT, default_output
from ._ui_outputs import result_text
from ._values import NAMESPACE, NATIVE, Meta, meta_of, reasoning_metadata

__all__ = ["write_model"]

_OPTIONS = "providerOptions"
#: The forms of a message's breakpoint written when the message does not name one (``vercel_ai/cache_form``).
_FORMS = ("anthropic", "bedrock")
#: The parts kept whole from a ``ModelMessage`` (an assistant's), and from a ``content`` output.
_NATIVE_PARTS = frozenset({"tool-result", "tool-approval-request"})
_NATIVE_ITEMS = frozenset({"file-id", "image-file-id", "file-reference", "custom"})
#: The wire type of each block a tool result holds, as ``default_output`` takes them.
_KINDS: dict[type[Any], str] = {TextBlock: "text", JsonBlock: "json", FileBlock: "file"}
_SDK = "the Vercel AI SDK"  # how loss reasons name the target
#: While writing: the approval ids of the requests that name a call the provider runs.
_SERVER_ASKS: ContextVar[set[str] | None] = ContextVar("contentblocks_vercel_written_server_asks", default=None)


def _text(block: TextBlock | RefusalBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:
    if isinstance(block, RefusalBlock):
        losses.add(path, "the SDK has no refusal part; written as text", "content_degraded")
    elif block.citations:
        losses.add(f"{path}.citations", "the SDK's text parts hold no citations", "content_dropped")
    return {"type": "text", "text": block.text, **meta.fields(_OPTIONS)}


def _data(block: FileBlock) -> str:
    source = block.source
    if isinstance(source, BytesSource):
        return b64encode(source.data)
    assert isinstance(source, UrlSource)  # noqa: S101 - the caller refuses references
    return source.url


def _file(block: FileBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    if not isinstance(block.source, BytesSource | UrlSource):
        losses.add(path, "the SDK's file parts hold data or a URL; a provider's file id is not written",
                   "content_dropped")
        meta.drop()
        return None
    report_document_fields(block, path, losses.add, "the SDK's file parts")
    if meta.take(NAMESPACE + "part") == "image" and block.filename is None:
        part: dict[str, Any] = {"type": "image", "image": _data(block)}
        if meta.take(NAMESPACE + "media_type", block.media_type) is not None:
            part["mediaType"] = block.media_type
        return {**part, **meta.fields(_OPTIONS)}
    meta.taken.discard(NAMESPACE + "part")
    part = {"type": "file", "data": _data(block), "mediaType": block.media_type}
    if block.filename is not None:
        part["filename"] = block.filename
    return {**part, **meta.fields(_OPTIONS)}


def _reasoning(block: ReasoningBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    meta.take("contentblocks/issuer")
    part = {"type": "reasoning", "text": block.text or "", **meta.fields()}
    options = reasoning_metadata(block, meta.take(NAMESPACE + _OPTIONS), path, losses)
    if options == {"": False}:
        meta.drop()
        return None
    return part if options is None else {**part, _OPTIONS: options}


def _call(block: ToolCallBlock | ServerToolCallBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:  # noqa: ARG001 - the table's signature
    """A ``tool-call`` part; a tool the provider ran is one with ``providerExecuted: true``, whoever ran it."""
    part = {"type": "tool-call", "toolCallId": block.tool_call_id, "toolName": block.tool_name,
            "input": thaw(block.input)}
    if type(block) is ToolCallBlock:
        return {**part, **meta.fields(_OPTIONS, "providerExecuted")}
    meta.state(_SDK)
    return {**part, "providerExecuted": True, **meta.fields(_OPTIONS)}


def _json(block: JsonBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    if meta.take(NATIVE) and isinstance(block.value, dict):
        if block.value.get("type") in _NATIVE_PARTS:
            return dict(thaw(block.value))
        losses.add(path, "a UIMessage part with no place in a ModelMessage (a source, a step start); not written",
                   "content_dropped")
        meta.drop()
        return None
    meta.taken.discard(NATIVE)
    losses.add(path, "the SDK has no JSON part in a message; written as its JSON text", "content_degraded")
    return {"type": "text", "text": json.dumps(thaw(block.value))}


def _one_text_left(output: dict[str, Any], block: ToolResultBlock | ServerToolResultBlock) -> bool:
    """Whether a ``content`` output is one bare text because the rest of the result dropped.

    Read back, a ``content`` output of one text is told from a ``text`` output by a metadata key the
    result never had; the ``text`` output says the same and reads back as it was.
    """
    items = output["value"]
    return len(items) == 1 < len(block.content) and items[0].keys() == {"type", "text"} and items[0]["type"] == "text"


def _sendable(block: FileBlock) -> bool:
    """Whether the SDK's output parts can hold the file: its data or a URL, not a provider's file id."""
    return isinstance(block.source, BytesSource | UrlSource)


def _item(block: Block, path: str, losses: LossRecorder) -> dict[str, Any] | None:
    """One part of a ``content`` output."""
    meta = meta_of(block.metadata, path, losses)
    item: dict[str, Any] | None
    if isinstance(block, TextBlock):
        item = {"type": "text", "text": block.text, **meta.fields(_OPTIONS)}
        if block.citations:
            losses.add(f"{path}.citations", "the SDK's tool output holds no citations", "content_dropped")
    elif isinstance(block, JsonBlock) and meta.take(NATIVE) and isinstance(block.value, dict) and (
            block.value.get("type") in _NATIVE_ITEMS):
        item = dict(thaw(block.value))
    elif isinstance(block, JsonBlock):
        meta.taken.discard(NATIVE)
        losses.add(path, "the SDK's content output has no JSON part; written as its JSON text", "content_degraded")
        item = {"type": "text", "text": json.dumps(thaw(block.value))}
    elif isinstance(block, FileBlock) and _sendable(block):
        linked = isinstance(block.source, UrlSource)
        kind = meta.take(NAMESPACE + "item")
        if kind not in ({"image-url"} if linked else {"image-data", "media"}):
            meta.taken.discard(NAMESPACE + "item")
            kind = "file-url" if linked else "file-data"
        item = {"type": kind, "url": block.source.url} if isinstance(block.source, UrlSource) else {
            "type": kind, "data": _data(block), "mediaType": block.media_type}
        if linked and meta.take(NAMESPACE + "media_type", block.media_type) is not None:
            item["mediaType"] = block.media_type
        if block.filename is not None and kind == "file-data":
            item["filename"] = block.filename
        elif block.filename is not None:
            losses.add(f"{path}.filename", f"the SDK's {kind} output part has no file name", "content_dropped")
        report_document_fields(block, path, losses.add, f"the SDK's {kind} output part")
        item.update(meta.fields(_OPTIONS))
    else:
        losses.add(path, "the SDK's output files hold data or a URL; a provider's file id is not written",
                   "content_dropped")
        meta.drop()
        item = None
    meta.done("in a tool output")
    return item


def _output(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder, kind: str,
            meta: Meta) -> dict[str, Any]:  # fmt: skip
    content = block.content
    if kind == "execution-denied":
        reason = result_text(block, path, losses, "a denial's reason")
        if reason is None and meta.take(EMPTY_REASON):
            reason = ""
        return {"type": kind} if reason is None else {"type": kind, "reason": reason}
    if kind in {"json", "error-json"}:
        meta_of(content[0].metadata, f"{path}.content[0]", losses).done("in a tool output")
        return {"type": kind, "value": thaw(content[0].value)}  # type: ignore[union-attr]
    if kind in {"text", "error-text"}:
        return {"type": kind, "value": result_text(block, path, losses, "this output") or ""}
    items = [_item(part, f"{path}.content[{index}]", losses) for index, part in enumerate(content)]
    written = [item for item in items if item is not None]
    if content and not written:  # every part is reported dropped: an empty text reads back as no content
        return {"type": "text", "value": ""}
    return {"type": "content", "value": written}


def _result(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder) -> dict[str, Any]:
    """A ``tool-result`` part: in a tool message for a client tool, in the assistant message for a provider-run one."""
    meta = meta_of(block.metadata, path, losses)
    if type(block) is ServerToolResultBlock:
        meta.state(_SDK)
    kind = default_output(block.outcome, [_KINDS[type(item)] for item in block.content])
    kept = meta.take(OUTPUT)
    errors = {"error-text", "error-json"}
    compatible = {"succeeded": {"text", "json", "content"}, "failed": errors, "interrupted": errors,
                  "denied": {"execution-denied"}}[block.outcome]
    if block.outcome == "interrupted":
        losses.add(f"{path}.outcome", "the SDK has no interrupted outcome; written as an error (reads back as failed)",
                   "content_degraded")
    if kept in compatible and (kept not in {"json", "error-json"} or (
            len(block.content) == 1 and isinstance(block.content[0], JsonBlock))):
        kind = kept
    else:
        meta.taken.discard(OUTPUT)
    output = _output(block, path, losses, kind, meta)
    if kind == "content" and kept != "content" and _one_text_left(output, block):
        output = {"type": "text", "value": output["value"][0]["text"]}  # the text output it reads back as
    if (options := meta.take(NAMESPACE + "outputProviderOptions")) is not None:
        output[_OPTIONS] = options
    if isinstance(extra := meta.take(NAMESPACE + "outputExtra"), dict):
        output.update({k: v for k, v in extra.items() if k not in output})
    part = {"type": "tool-result", "toolCallId": block.tool_call_id, "toolName": block.tool_name,
            "output": output, **meta.fields(_OPTIONS)}
    meta.done("on a tool result")
    return part


def _compaction(block: CompactionBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    summary = compaction_summary(block, path, "the SDK", losses.add, meta.taken)
    return None if summary is None else {"type": "text", "text": summary}


def _request(block: ApprovalRequestBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:  # noqa: ARG001 - the table's signature
    return {"type": "tool-approval-request", "approvalId": block.approval_id, "toolCallId": block.tool_call_id,
            **meta.fields()}


def _decision(block: ApprovalResponseBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:  # noqa: ARG001 - the table's signature
    """A ``tool-approval-response``; one on a call the provider runs is ``providerExecuted``, as the SDK sends it."""
    part: dict[str, Any] = {"type": "tool-approval-response", "approvalId": block.approval_id,
                            "approved": block.approved}
    if block.reason is not None or meta.take(EMPTY_REASON) is True:
        part["reason"] = block.reason or ""
    else:
        meta.taken.discard(EMPTY_REASON)
    executed = meta.take(EXECUTED, True if block.approval_id in (_SERVER_ASKS.get() or ()) else None)
    if executed is not None:
        part["providerExecuted"] = executed
    return {**part, **meta.fields(_OPTIONS)}


_PARTS: dict[type[Any], Any] = {TextBlock: _text, RefusalBlock: _text, ReasoningBlock: _reasoning,
                                FileBlock: _file, JsonBlock: _json, ToolCallBlock: _call, CompactionBlock: _compaction,
                                ServerToolCallBlock: _call, ApprovalRequestBlock: _request,
                                ApprovalResponseBlock: _decision}


def _part(block: Block, path: str, losses: LossRecorder) -> dict[str, Any] | None:
    part: dict[str, Any] | None
    written = None if block.cache is None else control(block.cache, f"{path}.cache", losses)
    if isinstance(block, ToolResultBlock | ServerToolResultBlock):
        for where, _ in inner_breakpoints(block, path):
            losses.add(where, "the SDK's Anthropic provider takes no cache control inside a tool output; not sent",
                       HINT)
        part = _result(block, path, losses)
    else:
        meta = meta_of(block.metadata, path, losses)
        part = _PARTS[type(block)](block, path, losses, meta)
        meta.done("on this part")
    if written is not None:
        _mark(part, written, f"{path}.cache", losses, "part")
    return part


def _mark(part: dict[str, Any] | None, cache: dict[str, Any], path: str, losses: LossRecorder, what: str,
          forms: tuple[str, ...] = ("anthropic",)) -> None:  # fmt: skip
    """Write the ``cacheControl`` ``cache`` into ``part``'s ``providerOptions``; report it where it cannot go."""
    if part is None:
        losses.add(path, f"the {what} is not sent, so neither is its cache breakpoint", HINT)
    elif what == "part" and part["type"] not in MARKABLE:
        losses.add(path, f"the SDK's {part['type']} part has no providerOptions a provider reads a cache control "
                   "from; not sent", HINT)
    else:
        put_cache(part, cache, path, losses, forms)


def _system_cache(message: Message, index: int, losses: LossRecorder) -> CacheBreakpoint | None:
    """The breakpoint of a system message, one string: its own, else its last block's (the same place).

    Any other block's breakpoint has no place in the string, and is reported.
    """
    cache = message.cache
    last = len(message.content) - 1
    for position, block in enumerate(message.content):
        if block.cache is None:
            continue
        where = f"{block_path(index, position)}.cache"
        if position == last and cache is None:
            cache = block.cache
            losses.add(where, "the SDK's system message is one string; the breakpoint of its last block is written "
                       "as the message's (the same place in the prompt), and reads back there", HINT)
        else:
            losses.add(where, "the SDK's system message is one string; a breakpoint inside it is not sent", HINT)
    return cache


def _cached(out: dict[str, Any], cache: CacheBreakpoint | None, path: str, losses: LossRecorder,
            meta: Meta) -> dict[str, Any]:  # fmt: skip
    """The message ``out`` with its breakpoint, in the form it was read with (``vercel_ai/cache_form``), else both."""
    form = meta.take(FORM)  # says only which form a breakpoint had: nothing to write without one
    if cache is not None:
        written = control(cache, f"{path}.cache", losses)
        _mark(out, written, f"{path}.cache", losses, "message", (form,) if form in _FORMS else _FORMS)
    return out


def _system(message: Message, index: int, losses: LossRecorder) -> str:
    """A system message's text: the SDK's is one string, so its blocks are joined and their metadata stays."""
    texts = []
    for position, block in enumerate(message.content):
        path = block_path(index, position)
        assert isinstance(block, TextBlock)  # noqa: S101 - the role table
        texts.append(block.text)
        if position:
            losses.add(path, "the SDK's system message is one text; joined to the block before", "content_degraded")
        if block.citations:
            losses.add(f"{path}.citations", "the SDK's system message holds no citations", "content_dropped")
        meta_of(block.metadata, path, losses).done("on a system message's text")
    return "\n".join(texts)


def _done(meta: Meta) -> list[dict[str, Any]]:
    meta.take(AS_STRING)  # a system message's content is always a string
    meta.done("on a message")
    return []


def _message(message: Message, index: int, losses: LossRecorder) -> list[dict[str, Any]]:
    path = f"$[{index}]"
    meta = meta_of(message.metadata, path, losses)
    role = message.role
    if role == "developer":
        losses.add(f"{path}.role", "the SDK has no developer role; written as a system message", "content_degraded")
        role = "system"
    if role == "system":
        system = {"role": role, "content": _system(message, index, losses), **meta.fields(_OPTIONS)}
        return [_cached(system, _system_cache(message, index, losses), path, losses, meta), *_done(meta)]
    parts = [_part(block, block_path(index, position), losses) for position, block in enumerate(message.content)]
    written = [part for part in parts if part is not None]
    decisions = [part for part in written if part["type"] == "tool-approval-response"] if role == "user" else []
    if decisions:  # the SDK's decisions are in tool messages: they follow the user's message in one
        written = [part for part in written if part["type"] != "tool-approval-response"]
        for position, block in enumerate(message.content):
            if type(block) is ApprovalResponseBlock:
                losses.add(block_path(index, position), "the SDK carries approval decisions in tool messages; "
                           "moved into a tool message after the user's", "order_changed")
    if not written:
        meta.drop()  # every block is reported dropped; so is the message's metadata (decisions: their own message)
        if message.cache is not None:
            _mark(None, {}, f"{path}.cache", losses, "message")
        return [{"role": "tool", "content": decisions}] if decisions else []
    content: Any = written
    texts = [part["text"] for part in written if part["type"] == "text"]
    if meta.take(AS_STRING) and len(written) == 1 and written[0] == {"type": "text", "text": texts[0]}:
        content = texts[0]
    else:
        meta.taken.discard(AS_STRING)
    out = [_cached({"role": role, "content": content, **meta.fields(_OPTIONS)}, message.cache, path, losses, meta)]
    if decisions:
        out.append({"role": "tool", "content": decisions})
    meta.done("on a message")
    return out


def _server_asks(conversation: Conversation) -> set[str]:
    """The approval ids of the requests that name a call the provider runs (a ``server_tool_call``)."""
    asks: set[str] = set()
    for message in conversation.messages:
        if ApprovalRequestBlock in map(type, message.content):
            servers = {b.tool_call_id for b in message.content if type(b) is ServerToolCallBlock}
            asks.update(b.approval_id for b in message.content
                        if type(b) is ApprovalRequestBlock and b.tool_call_id in servers)
    return asks


def write_model(conversation: Conversation, losses: LossRecorder) -> list[dict[str, Any]]:
    """The ``ModelMessage`` list carrying ``conversation``."""
    out: list[dict[str, Any]] = []
    token = _SERVER_ASKS.set(_server_asks(conversation))
    try:
        for index, message in enumerate(conversation.messages):
            out.extend(_message(message, index, losses))
    finally:
        _SERVER_ASKS.reset(token)
    return out
