"""Anthropic Messages stream events (``client.messages.stream(...)`` or ``create(..., stream=True)``) as neutral events.

Each event is one of the SDK's ``RawMessageStreamEvent`` objects or any of its dict forms. The reader keeps each
content block as the SDK's ``accumulate_event`` builds it, streams its deltas (``text_delta``, ``thinking_delta``,
``signature_delta``, ``citations_delta``, ``input_json_delta``) as they come, and at ``content_block_stop`` reads
the completed block with the Anthropic adapter, so a block ends exactly as ``anthropic.from_response`` reads it.
Blocks with no neutral kind (server tool use, web search results...) arrive whole at their stop, as the JSON
blocks the adapter keeps them as; so does a compaction (its ``compaction_delta`` carries the whole summary),
as a :class:`~contentblocks.streaming.CompactionAdded`. ``message_stop`` closes the reply against
``from_response`` of the message the events built, which gives the stop reason, usage, model and id.

>>> from contentblocks.streaming import ReplyBuilder, anthropic
>>> stream = [
...     {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
...      "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "usage": {"input_tokens": 9,
...      "output_tokens": 1}}},
...     {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
...     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}},
...     {"type": "content_block_stop", "index": 0},
...     {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
...     {"type": "message_stop"},
... ]
>>> builder = ReplyBuilder(anthropic.PROVIDER)
>>> reader = anthropic.Reader()
>>> for event in stream[:3]:
...     builder.feed(reader.read(event))
>>> builder.snapshot()[0].text
'Hel'
>>> for event in stream[3:]:
...     builder.feed(reader.read(event))
>>> reply = builder.reply()
>>> reply.message.content[0].text, reply.stop_reason, reply.usage.output_tokens
('Hello', 'end_turn', 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .._errors import ValidationError, preview
from ..providers import anthropic as adapter
from ..providers._arguments import RAW_ARGUMENTS
from ..providers._contract import Reply
from ..providers._toolkit import field, obj, parse_json_text, reroot
from ..providers.anthropic._read import derive_citation, read_block
from ._errors import fail
from ._events import BlockKind, StreamEvent
from ._reading import StreamReader
from ._sources import plain_at, read_completed

__all__ = ["PROVIDER", "Reader", "events", "fold"]

#: The ``Reply.provider`` of an Anthropic reply.
PROVIDER = "anthropic"

#: Block types whose deltas stream as neutral deltas, and the neutral kind they stream as.
_STREAMED: dict[str, BlockKind] = {
    "text": "text", "thinking": "reasoning", "redacted_thinking": "reasoning", "tool_use": "tool_call"
}
#: The delta types and the block types they apply to, as the SDK's ``accumulate_event`` applies them: it drops a
#: delta for any other block, so the reader refuses one. ``input_json_delta`` builds the input of the blocks the
#: SDKs track tool input for (``mcp_tool_use``: the beta client's), whether or not they started with one.
_DELTA_BLOCKS = {"text_delta": {"text"}, "citations_delta": {"text"}, "thinking_delta": {"thinking"},
                 "signature_delta": {"thinking"}, "input_json_delta": {"tool_use", "server_tool_use", "mcp_tool_use"},
                 "compaction_delta": {"compaction"}}
#: The text a ``text`` or ``thinking`` block starts with, which its deltas extend (the SDK appends to it).
_STARTING_TEXT = {"text": "text", "thinking": "thinking"}
#: The counts of a ``message_delta``'s usage (the SDK's ``MessageDeltaUsage``) that replace the message's when
#: given; ``output_tokens`` always replaces it (by nothing when absent), and any other key is not read.
_DELTA_COUNTS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "server_tool_use",
                 "output_tokens_details")


#: The events the SDK's ``MessageStream`` (``client.messages.stream(...)``) yields after a raw event, each
#: repeating what that event said with the SDK's snapshot: passed over, as the raw events carry it all.
_DERIVED = frozenset({"text", "citation", "thinking", "signature", "input_json", "compaction"})


class _Block:
    """One content block as the SDK accumulates it: the start's fields, and the pieces the deltas added."""

    __slots__ = ("citations", "done", "index", "json", "native", "number", "path", "pieces")

    def __init__(self, native: dict[str, Any], number: int, index: int | None, path: str) -> None:
        self.native = native
        self.number = number  # Anthropic's index of the block
        self.done = False
        self.index = index  # the neutral block, or None for a block that arrives whole at its stop
        self.path = path
        self.pieces: list[str] = []  # text or thinking
        self.json: list[str] = []  # input_json_delta
        self.citations: list[Any] = list(field(native, "citations", list, path, optional=True) or ())

    def completed(self) -> dict[str, Any]:
        """The block as the SDK's ``accumulate_event`` leaves it at ``content_block_stop``."""
        native = dict(self.native)
        kind = native.get("type")
        if kind in {"text", "thinking"}:
            key = "text" if kind == "text" else "thinking"
            native[key] = (native.get(key) or "") + "".join(self.pieces)
        if self.citations:
            native["citations"] = self.citations
        if text := "".join(self.json):  # the SDK keeps the start's input when no JSON text came
            ok, value = parse_json_text(text, holdable=False)  # the SDK keeps any JSON; the adapter flags it
            if not ok:
                raise fail(self.path, "the block's input_json_delta text never parses as JSON")
            native["input"] = value
        return native


class Reader(StreamReader):
    """Reads one Anthropic message stream; see the module for what it emits when."""

    provider = PROVIDER

    def __init__(self) -> None:
        super().__init__()
        self._message: dict[str, Any] | None = None
        self._blocks: list[_Block] = []
        self._names: dict[str, str] = {}  # the tools of the calls Anthropic ran, by id, for their results
        self._usage: dict[str, Any] = {}
        self._stop: dict[str, Any] = {}
        self._stop_path = "$"  # where the stop reason came from
        self._stopped = False

    def _read(self, event: dict[str, Any], path: str) -> None:
        kind = field(event, "type", str, path)
        if kind == "ping" or kind in _DERIVED:  # a keep-alive, or what an event just read already said
            return
        if kind == "error":
            error = obj(event.get("error"), f"{path}.error")
            raise fail(path, f"the stream reports an error: {preview(str(error.get('type')))}: "
                             f"{preview(str(error.get('message')))}")
        if self._stopped:
            raise fail(path, "the message has already stopped")
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise fail(f"{path}.type", f"not a message stream event: {preview(kind)}")
        if self._message is None and kind != "message_start":
            raise fail(path, f"{kind} before message_start")
        handler(self, event, path)

    def _reply(self, path: str, content: list[dict[str, Any]] | None = None) -> Reply:
        """What ``from_response`` reads of the message the events have built (its content left out, unless given)."""
        assert self._message is not None  # noqa: S101 - every handler but message_start runs after it
        message = {**self._message, **self._stop, "content": content or [], "usage": self._usage}
        return read_completed(adapter.from_response, message, path)

    def _message_start(self, event: dict[str, Any], path: str) -> None:
        if self._message is not None:
            raise fail(path, "a second message_start")
        message = dict(obj(plain_at(event.get("message"), f"{path}.message"), f"{path}.message"))
        if message.get("content"):
            raise fail(f"{path}.message.content", "a message_start with content (content arrives in blocks)")
        self._usage = dict(obj(message.pop("usage", None) or {}, f"{path}.message.usage"))
        self._message = message
        reply = self._reply(path)
        self._emit.response(reply.model, reply.response_id, path,
                            {"model": f"{path}.message.model", "response_id": f"{path}.message.id"})
        self._emit.usage(reply.usage, path)

    def _block_start(self, event: dict[str, Any], path: str) -> None:
        index = field(event, "index", int, path)
        if index != len(self._blocks):
            raise fail(f"{path}.index", f"content block {index} starts, but block {len(self._blocks)} is next")
        where = f"{path}.content_block"
        native = dict(obj(plain_at(event.get("content_block"), where), where))
        kind = field(native, "type", str, f"{path}.content_block")
        if (key := _STARTING_TEXT.get(kind)) is not None:  # without it, the SDK's message does not read either
            if native.get(key) is None:  # an SDK object dumps a field it lacks as null
                raise fail(f"{where}.{key}", "required field missing")
            field(native, key, str, where)
        if any(block.index is None and not block.done for block in self._blocks[-1:]):
            raise fail(path, "a content block starts before the block kept whole has stopped")
        field(native, "citations", list, where, optional=True)
        streamed = _STREAMED.get(kind)
        neutral = None
        if streamed is not None and not (kind == "text" and not native.get("text") and not native.get("citations")):
            ids = (native.get("id"), native.get("name")) if kind == "tool_use" else (None, None)
            neutral = self._emit.start(streamed, tool_call_id=ids[0], tool_name=ids[1],
                                       where={"$": where, "tool_call_id": f"{where}.id", "tool_name": f"{where}.name"})
        block = _Block(native, index, neutral, where)
        self._blocks.append(block)
        if neutral is not None:
            if kind == "redacted_thinking":
                self._emit.redacted(neutral, read_block(native, block.path).redacted)
            if key is not None:  # a text or thinking start's own text (and signature); no other kind has any
                self._emit.text(neutral, native[key] or "", f"{where}.{key}")
                self._emit.signature(neutral, native.get("signature") or "", f"{where}.signature")
            for k, citation in enumerate(block.citations):
                self._emit.citation(neutral, _citation(citation, f"{where}.citations[{k}]"))

    def _open(self, event: dict[str, Any], path: str) -> _Block:
        index: int = field(event, "index", int, path)
        if not 0 <= index < len(self._blocks) or self._blocks[index].done:
            state = "was never started" if not 0 <= index < len(self._blocks) else "has already stopped"
            raise fail(f"{path}.index", f"content block {index} {state}")
        return self._blocks[index]

    @staticmethod
    def _delta_kind(block: _Block, delta: dict[str, Any], path: str) -> str:
        """The delta's type, checked to be one the block takes (see ``_DELTA_BLOCKS``)."""
        kind: str = field(delta, "type", str, f"{path}.delta")
        block_kind = block.native["type"]
        if kind not in _DELTA_BLOCKS:
            raise fail(f"{path}.delta.type", f"not a content block delta: {preview(kind)}")
        if block_kind not in _DELTA_BLOCKS[kind]:
            raise fail(f"{path}.delta", f"a {kind} for content block {block.number}, a {preview(block_kind)} block")
        return kind

    def _block_delta(self, event: dict[str, Any], path: str) -> None:
        block = self._open(event, path)
        delta = obj(plain_at(event.get("delta"), f"{path}.delta"), f"{path}.delta")
        kind = self._delta_kind(block, delta, path)
        if block.index is None and block.native["type"] == "text" and (delta.get("text") or kind == "citations_delta"):
            block.index = self._emit.start("text")  # a text block starts at its first text: an empty one is left out
        index = block.index  # None for a block kept whole: its deltas only build it, for its stop
        if kind in {"text_delta", "thinking_delta"}:
            key = "text" if kind == "text_delta" else "thinking"
            piece = field(delta, key, str, f"{path}.delta")
            if index is not None:
                self._emit.text(index, piece, f"{path}.delta.{key}")
            block.pieces.append(piece)
        elif kind == "citations_delta":
            citation = obj(plain_at(delta.get("citation"), f"{path}.delta.citation"), f"{path}.delta.citation")
            derived = _citation(citation, f"{path}.delta.citation")
            block.citations.append(citation)
            if index is not None:
                self._emit.citation(index, derived)
        elif kind == "compaction_delta":
            _compaction_delta(block, delta, path)
        elif kind == "signature_delta":
            signature = field(delta, "signature", str, f"{path}.delta")
            if index is not None:
                self._emit.signature(index, signature, f"{path}.delta.signature")
            block.native["signature"] = signature
        else:
            piece = field(delta, "partial_json", str, f"{path}.delta")
            if index is not None:
                self._emit.arguments(index, piece, f"{path}.delta.partial_json")
            block.json.append(piece)

    def _block_stop(self, event: dict[str, Any], path: str) -> None:
        block = self._open(event, path)
        final = read_block(block.completed(), block.path, self._names)
        if final is None:  # an empty text block, which the adapter leaves out
            pass
        elif block.index is None:
            block.index = self._emit.whole(final, path)
        elif block.json and final.metadata.get(RAW_ARGUMENTS) is True:  # streamed JSON no block holds: kept as text
            self._emit.close(block.index, final, path, input_text=final.input)
        else:
            self._emit.close(block.index, final, path)
        block.done = True

    def _message_delta(self, event: dict[str, Any], path: str) -> None:
        delta = obj(plain_at(event.get("delta"), f"{path}.delta"), f"{path}.delta")
        self._stop = {key: value for key, value in delta.items() if key in {"stop_reason", "stop_sequence"}}
        self._stop_path = f"{path}.delta.stop_reason"
        usage = obj(plain_at(event.get("usage"), f"{path}.usage") or {}, f"{path}.usage")
        # Usage counts on message_delta are running totals: they replace; a null one keeps the earlier count,
        # except output_tokens, which the SDK's accumulator always replaces (see _DELTA_COUNTS).
        self._usage["output_tokens"] = usage.get("output_tokens")
        self._usage.update({key: usage[key] for key in _DELTA_COUNTS if usage.get(key) is not None})
        self._emit.usage(self._reply(path).usage, path)

    def _message_stop(self, _event: dict[str, Any], path: str) -> None:
        if still := [str(k) for k, block in enumerate(self._blocks) if not block.done]:
            raise fail(path, f"message_stop while content blocks are open: {', '.join(still)}")
        self._stopped = True
        self._emit.finish(self._reply(path, [block.completed() for block in self._blocks]), path,
                          where={"provider_stop_reason": self._stop_path})


def _compaction_delta(block: _Block, delta: dict[str, Any], path: str) -> None:
    """The whole summary and state of a compaction at once: the SDK replaces both with the delta's."""
    for key in ("content", "encrypted_content"):
        block.native[key] = field(delta, key, str, f"{path}.delta", optional=True)


def _citation(native: Any, path: str) -> Any:
    """The neutral citation of a native one at ``path`` (an object with a type), its problems reported there."""
    field(obj(native, path), "type", str, path)
    try:
        return derive_citation(native)
    except ValidationError as e:
        raise reroot(e, path) from None


_HANDLERS = {
    "message_start": Reader._message_start,
    "content_block_start": Reader._block_start,
    "content_block_delta": Reader._block_delta,
    "content_block_stop": Reader._block_stop,
    "message_delta": Reader._message_delta,
    "message_stop": Reader._message_stop,
}


def events(stream: Iterable[object]) -> Iterator[StreamEvent]:
    """The neutral events of a whole Anthropic message stream."""
    return Reader().events(stream)


def fold(stream: Iterable[object]) -> Reply:
    """The reply a whole Anthropic message stream folds into: the same as ``from_response`` of its message."""
    return Reader().fold(stream)
