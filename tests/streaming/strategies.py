"""Hypothesis strategies for streamed replies: replies built from generated assistant messages, and event streams
that cut them at arbitrary points.

``replies()`` draws a ``Reply`` whose message comes from ``contentblocks.strategies.messages(roles=["assistant"])``
(or ``None``), with any stop reason, usage, model and response id. ``streams(reply)`` draws one of the many event
sequences that fold into it: text, reasoning, refusals, signatures and JSON arguments split anywhere (empty
pieces included), citations interleaved anywhere in their block, tool call ids and names given at the start or
later, metadata split between a block's start and its end (with decoys the end overrides), blocks interleaved
while open (parallel tool calls), and decoy usage, model and ids that later events replace.

They live here, not in ``tests/strategies.py``, because that file belongs to the core; they use only its public
strategies.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import STOP_REASONS, Reply, Usage
from contentblocks.streaming import (
    ApprovalRequested,
    ArgumentsAppended,
    BlockEnded,
    BlockStarted,
    CitationAdded,
    CompactionAdded,
    FileAdded,
    JsonAdded,
    MessageMetadataAdded,
    ReasoningAppended,
    ReasoningRedacted,
    RefusalAppended,
    ReplyStopped,
    ResponseIdentified,
    ServerToolAdded,
    SignatureAppended,
    SignatureSet,
    StreamEvent,
    TextAppended,
    ToolCallIdentified,
    UsageUpdated,
)
from provider_checks import uncached

__all__ = ["PROVIDERS", "cut", "replies", "streams", "usages"]

PROVIDERS = ("anthropic", "openai_chat", "openai_responses", "gemini")
_COUNTS = st.none() | st.integers(0, 2**40)
_LABELS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
_DECOY = st.sampled_from([None, "decoy", 0, [], {"stale": True}])


@st.composite
def usages(draw: st.DrawFn) -> Usage:
    """Token counts, each reported or not, with a raw usage object of any JSON."""
    return Usage(
        input_tokens=draw(_COUNTS),
        output_tokens=draw(_COUNTS),
        cache_read_tokens=draw(_COUNTS),
        cache_write_tokens=draw(_COUNTS),
        reasoning_tokens=draw(_COUNTS),
        total_tokens=draw(_COUNTS),
        raw=draw(strategies.metadata()),
    )




def _without_breakpoints(message: cb.Message) -> cb.Message:
    """A reply's message: replies carry no cache breakpoints (they are a request's hints), so none is drawn."""
    content = [uncached(block) for block in message.content]
    return cb.Message(role=message.role, content=content, metadata=message.metadata)

@st.composite
def replies(draw: st.DrawFn, providers: tuple[str, ...] = PROVIDERS) -> Reply:
    """A reply: a generated assistant message (or none), any stop reason, usage, model and response id."""
    return Reply(
        message=draw(st.none() | strategies.messages(roles=["assistant"], max_blocks=5).map(_without_breakpoints)),
        stop_reason=draw(st.none() | st.sampled_from(STOP_REASONS)),
        provider_stop_reason=draw(st.none() | _LABELS),
        usage=draw(st.none() | usages()),
        model=draw(st.none() | _LABELS),
        response_id=draw(st.none() | _LABELS),
        provider=draw(st.sampled_from(providers)),
    )


def cut(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at arbitrary points into pieces that join back to it; empty pieces come in now and then."""
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=min(len(text) + 2, 12))))
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _split_metadata(draw: st.DrawFn, metadata: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a block's start and end give: each key at the start, the end, or a decoy at the start the end fixes."""
    start: dict[str, Any] = {}
    end: dict[str, Any] = {}
    for key, value in metadata.items():
        where = draw(st.sampled_from(["start", "end", "both"]))
        if where == "start":
            start[key] = value
        else:
            end[key] = value
            if where == "both":
                start[key] = draw(_DECOY)
    return start, end


def _interleave(draw: st.DrawFn, required: list[StreamEvent], extra: list[StreamEvent]) -> list[StreamEvent]:
    """``required`` kept in order with each of ``extra`` (in order) slipped in at any point among them."""
    out = list(required)
    slots = sorted(draw(st.lists(st.integers(0, len(required)), min_size=len(extra), max_size=len(extra))))
    for offset, (slot, event) in enumerate(zip(slots, extra, strict=True)):
        out.insert(slot + offset, event)
    return out


def _text_events(draw: st.DrawFn, index: int, block: cb.TextBlock | cb.RefusalBlock) -> list[StreamEvent]:
    start, end = _split_metadata(draw, block.metadata)
    delta = TextAppended if isinstance(block, cb.TextBlock) else RefusalAppended
    kind = "text" if isinstance(block, cb.TextBlock) else "refusal"
    body: list[StreamEvent] = [delta(index, piece) for piece in cut(draw, block.text)]
    if isinstance(block, cb.TextBlock):
        body = _interleave(draw, body, [CitationAdded(index, c) for c in block.citations])
    return [BlockStarted(index, kind, metadata=start), *body, BlockEnded(index, end)]


def _signature_events(draw: st.DrawFn, index: int, signature: str) -> list[StreamEvent]:
    pieces = cut(draw, signature)
    style = draw(st.sampled_from(["appended", "set", "set then appended", "decoy then set"]))
    if style == "appended":
        return [SignatureAppended(index, piece) for piece in pieces]
    if style == "set":
        return [SignatureSet(index, signature)]
    if style == "decoy then set":
        return [SignatureAppended(index, "decoy"), SignatureSet(index, signature)]
    head, rest = signature[:1], signature[1:]
    return [SignatureSet(index, head), *(SignatureAppended(index, piece) for piece in cut(draw, rest))]


def _reasoning_events(draw: st.DrawFn, index: int, block: cb.ReasoningBlock) -> list[StreamEvent]:
    start, end = _split_metadata(draw, block.metadata)
    if block.redacted is not None:
        body: list[StreamEvent] = [ReasoningRedacted(index, block.redacted)]
    else:
        text = [ReasoningAppended(index, piece) for piece in cut(draw, block.text or "")]
        signature = _signature_events(draw, index, block.signature) if block.signature else []
        body = _interleave(draw, text, signature)
    return [BlockStarted(index, "reasoning", metadata=start), *body, BlockEnded(index, end)]


def _arguments_text(draw: st.DrawFn, value: Any) -> tuple[str, bool]:
    """JSON text for a tool input (compact or indented), or a non-JSON string input kept as its raw text."""
    if type(value) is str and draw(st.booleans()):
        try:
            json.loads(value)
        except ValueError:
            return value, True
    indent = draw(st.sampled_from([None, 2]))
    return json.dumps(value, ensure_ascii=draw(st.booleans()), allow_nan=False, indent=indent), False


def _tool_call_events(draw: st.DrawFn, index: int, block: cb.ToolCallBlock) -> list[StreamEvent]:
    start, end = _split_metadata(draw, block.metadata)
    text, raw = _arguments_text(draw, block.input)
    at_start = draw(st.sampled_from(["both", "id", "name", "neither"]))
    opening = BlockStarted(
        index,
        "tool_call",
        tool_call_id=block.tool_call_id if at_start in {"both", "id"} else None,
        tool_name=block.tool_name if at_start in {"both", "name"} else None,
        metadata=start,
    )
    later: list[StreamEvent] = []
    if at_start == "neither" and draw(st.booleans()):
        later.append(ToolCallIdentified(index, block.tool_call_id, block.tool_name))
    else:
        if at_start in {"name", "neither"}:
            later.append(ToolCallIdentified(index, tool_call_id=block.tool_call_id))
        if at_start in {"id", "neither"}:
            later.append(ToolCallIdentified(index, tool_name=block.tool_name))
    if draw(st.booleans()):  # a repeated, identical id is harmless
        later.append(ToolCallIdentified(index, tool_call_id=block.tool_call_id))
    body = _interleave(draw, [ArgumentsAppended(index, piece) for piece in cut(draw, text)], later)
    return [opening, *body, BlockEnded(index, end, keep_invalid_arguments=raw or draw(st.booleans()))]


def _block_events(draw: st.DrawFn, index: int, block: cb.Block) -> list[StreamEvent]:
    if isinstance(block, (cb.TextBlock, cb.RefusalBlock)):
        return _text_events(draw, index, block)
    if isinstance(block, cb.ReasoningBlock):
        return _reasoning_events(draw, index, block)
    if isinstance(block, cb.ToolCallBlock):
        return _tool_call_events(draw, index, block)
    if isinstance(block, cb.FileBlock):
        return [FileAdded(index, block)]
    if isinstance(block, (cb.ServerToolCallBlock, cb.ServerToolResultBlock)):
        return [ServerToolAdded(index, block)]
    if isinstance(block, cb.CompactionBlock):
        return [CompactionAdded(index, block)]
    if isinstance(block, cb.ApprovalRequestBlock):
        return [ApprovalRequested(index, block)]
    assert isinstance(block, cb.JsonBlock)
    return [JsonAdded(index, block)]


def _reply_events(draw: st.DrawFn, reply: Reply) -> list[StreamEvent]:
    """Usage, model, id and message metadata, in order, each final value after its decoys."""
    out: list[StreamEvent] = []
    if reply.model is not None or reply.response_id is not None:
        # A decoy may only name what the final event names: a field left None keeps the earlier value.
        for _ in range(draw(st.integers(0, 2))):
            model = draw(st.none() | _LABELS) if reply.model is not None else None
            response_id = draw(st.none() | _LABELS) if reply.response_id is not None else None
            out.append(ResponseIdentified(model=model, response_id=response_id))
        out.append(ResponseIdentified(model=reply.model, response_id=reply.response_id))
    if reply.usage is not None:
        out.extend(UsageUpdated(draw(usages())) for _ in range(draw(st.integers(0, 2))))
        out.append(UsageUpdated(reply.usage))
    if reply.message is not None and reply.message.metadata:
        early, late = _split_metadata(draw, reply.message.metadata)
        out.extend(MessageMetadataAdded(part) for part in (early, late) if part)
    return out


@st.composite
def streams(draw: st.DrawFn, reply: Reply) -> list[StreamEvent]:
    """An event stream that folds into ``reply``: blocks interleaved while open, ending with ``ReplyStopped``."""
    content = reply.message.content if reply.message is not None else ()
    queues = [_block_events(draw, i, block) for i, block in enumerate(content)]
    queues.append(_reply_events(draw, reply))
    started = 0  # blocks start in order: only the next one may open
    out: list[StreamEvent] = []
    while any(queues):
        ready = [q for q, queue in enumerate(queues) if queue and (q < started or q == len(content))]
        if started < len(content):
            ready.append(started)
        q = draw(st.sampled_from(sorted(set(ready))))
        out.append(queues[q].pop(0))
        if q == started and q < len(content):
            started += 1
    out.append(ReplyStopped(reply.stop_reason, reply.provider_stop_reason))
    return out
