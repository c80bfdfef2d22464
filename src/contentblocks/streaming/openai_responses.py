"""OpenAI Responses stream events (``responses.create(..., stream=True)``) as neutral events.

Each event is one of the SDK's ``ResponseStreamEvent`` objects or any of its dict forms. Three item types
stream their content: a ``message`` (``output_text.delta`` as text, ``refusal.delta`` as a refusal,
``output_text.annotation.added`` as citations), a ``reasoning`` item (``reasoning_summary_text.delta`` and
``reasoning_text.delta``, one reasoning block per part, numbered as the adapter numbers them: every summary part
before any reasoning text part) and a ``function_call`` (``function_call_arguments.delta``). A summary is written
after the reasoning it sums up, so when the response asks for one (``reasoning.summary``), the reasoning text is
held back and arrives with the completed item; when it asks for none, the reasoning text streams as it comes.
At ``output_item.done`` the completed item is read with the Responses adapter, so its blocks end exactly as
``openai_responses.from_response`` reads them (the encrypted reasoning arrives there, as the first block's
signature). Every other item (web search, file search, image generation, MCP calls...) is read whole at its
``output_item.done``, and its progress events are passed over. ``response.completed`` (or ``incomplete``, or
``failed``) closes the reply against ``from_response`` of the final response.

>>> from contentblocks.streaming import openai_responses
>>> item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
>>> part = {"type": "output_text", "text": "", "annotations": []}
>>> done = {**item, "status": "completed", "content": [{**part, "text": "Hi there"}]}
>>> response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": "completed",
...             "output": [done], "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}
>>> stream = [
...     {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
...     {"type": "response.output_item.added", "output_index": 0, "item": item},
...     {"type": "response.content_part.added", "output_index": 0, "content_index": 0, "part": part},
...     {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hi"},
...     {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": " there"},
...     {"type": "response.output_item.done", "output_index": 0, "item": done},
...     {"type": "response.completed", "response": response},
... ]
>>> reply = openai_responses.fold(stream)
>>> reply.message.content[0].text, reply.stop_reason, reply.usage.total_tokens
('Hi there', 'end_turn', 7)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._errors import ValidationError, preview
from ..providers import openai_responses as adapter
from ..providers._contract import Reply
from ..providers._toolkit import field, obj
from ..providers.openai_responses._annotations import _citation as annotation_citation
from ._errors import fail
from ._events import BlockKind, StreamEvent
from ._reading import StreamReader
from ._sources import plain_at, read_completed

__all__ = ["PROVIDER", "Reader", "events", "fold"]

#: The ``Reply.provider`` of an OpenAI Responses reply.
PROVIDER = "openai_responses"

#: The item types whose content streams; every other item is read whole at its ``output_item.done``.
_STREAMED = frozenset({"message", "reasoning", "function_call"})
#: Events that repeat what the deltas or the completed item say: passed over, the completed item decides.
_ECHOES = frozenset({
    "response.content_part.added", "response.content_part.done",
    "response.output_text.done", "response.refusal.done", "response.function_call_arguments.done",
    "response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.done", "response.reasoning_text.done",
})
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
#: The response's state changing, with nothing to read (the final response says it all).
_LIFECYCLE = frozenset({"response.in_progress", "response.queued"})


class _Item:
    """One output item while it streams: its type, and the neutral blocks its parts started, in order."""

    __slots__ = ("blocks", "cited", "done", "kind", "parts")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: dict[tuple[str, int], int] = {}  # (part list, its index) -> neutral block
        self.blocks: list[int] = []
        self.cited: dict[int, bool] = {}  # content index -> its citations still stream (see _annotation)
        self.done: dict[str, Any] | None = None


class Reader(StreamReader):
    """Reads one Responses stream; see the module for what it emits when."""

    provider = PROVIDER

    def __init__(self) -> None:
        super().__init__()
        self._created = False
        self._items: dict[int, _Item] = {}
        self._summaries = False  # whether the response asked for reasoning summaries
        self._stopped = False

    def _read(self, event: dict[str, Any], path: str) -> None:
        kind = field(event, "type", str, path)
        if kind == "error":
            raise fail(path, f"the stream reports an error: {preview(str(event.get('code')))}: "
                             f"{preview(str(event.get('message')))}")
        if self._stopped:
            raise fail(path, "the response has already completed")
        if not self._created and kind != "response.created":
            raise fail(path, f"{preview(kind)} before response.created")
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event, path)
        elif kind in _LIFECYCLE:
            pass
        elif kind in _ECHOES:
            self._item(event, path)
        elif "output_index" in event and kind.startswith("response."):
            item = self._item(event, path)
            if item.kind in _STREAMED:
                raise fail(f"{path}.type", f"not an event of a {item.kind} item: {preview(kind)}")
            # the progress of an item read whole at its output_item.done (a web search, an image...)
        else:
            raise fail(f"{path}.type", f"not a Responses stream event this reader reads: {preview(kind)}")

    def _item(self, event: dict[str, Any], path: str) -> _Item:
        index = field(event, "output_index", int, path)
        item = self._items.get(index)
        if item is None:
            raise fail(f"{path}.output_index", f"output item {index} was never added")
        if item.done is not None:
            raise fail(f"{path}.output_index", f"output item {index} is already done")
        return item

    def _block(self, event: dict[str, Any], path: str, kind: str, part: tuple[str, str], start: BlockKind) -> int:
        """The neutral block of one part of a ``kind`` item, started at its first delta."""
        item = self._item(event, path)
        if item.kind != kind:
            raise fail(path, f"a {event['type']} event for a {item.kind} item")
        key = (part[0], field(event, part[1], int, path))
        if key not in item.parts:
            item.parts[key] = self._emit.start(start)
            item.blocks.append(item.parts[key])
        return item.parts[key]

    def _delta(self, event: dict[str, Any], path: str) -> str:
        delta: str = field(event, "delta", str, path)
        return delta

    def _created_event(self, event: dict[str, Any], path: str) -> None:
        if self._created:
            raise fail(path, "a second response.created")
        self._created = True
        response = obj(plain_at(event.get("response"), f"{path}.response"), f"{path}.response")
        if response.get("output"):
            raise fail(f"{path}.response.output", "a response.created with output (output arrives in items)")
        reply = read_completed(adapter.from_response, response, path)
        self._emit.response(reply.model, reply.response_id, path,
                            {"model": f"{path}.response.model", "response_id": f"{path}.response.id"})
        reasoning = response.get("reasoning")
        if isinstance(reasoning, dict):
            self._summaries = any(reasoning.get(key) is not None for key in ("summary", "generate_summary"))

    def _added(self, event: dict[str, Any], path: str) -> None:
        index = field(event, "output_index", int, path)
        if index in self._items:
            raise fail(f"{path}.output_index", f"output item {index} was already added")
        where = f"{path}.item"
        item = obj(plain_at(event.get("item"), where), where)
        kind = field(item, "type", str, where)
        if kind == "function_call":
            call_id = field(item, "call_id", str, where, optional=True)
            name = field(item, "name", str, where, optional=True)
            ids = {"$": where, "tool_call_id": f"{where}.call_id", "tool_name": f"{where}.name"}
            block = self._emit.start("tool_call", tool_call_id=call_id or None, tool_name=name or None, where=ids)
            self._emit.arguments(block, field(item, "arguments", str, where, optional=True) or "", f"{where}.arguments")
            self._items[index] = _Item(kind)
            self._items[index].blocks.append(block)
            self._items[index].parts[("arguments", 0)] = block
        else:
            self._items[index] = _Item(kind)

    def _part_delta(self, event: dict[str, Any], path: str) -> None:
        """Text for the part a delta names: its item's type, the part list and index key, and its block's kind."""
        kind, part, start = _PART_DELTAS[event["type"]]
        if part[0] == "content" and start == "reasoning" and self._summaries:
            item = self._item(event, path)  # held back: it comes after the summaries, with the completed item
            if item.kind != kind:
                raise fail(path, f"a {event['type']} event for a {item.kind} item")
            field(event, part[1], int, path)
            self._delta(event, path)
            return
        if part[0] == "summary":
            item = self._item(event, path)
            if item.kind == "reasoning" and any(key[0] == "content" for key in item.parts):
                raise fail(path, "a reasoning summary after reasoning text, in a response that asked for no summary")
        self._emit.text(self._block(event, path, kind, part, start), self._delta(event, path), f"{path}.delta")

    def _arguments(self, event: dict[str, Any], path: str) -> None:
        item = self._item(event, path)
        if item.kind != "function_call":
            raise fail(path, f"a response.function_call_arguments.delta event for a {item.kind} item")
        self._emit.arguments(item.parts[("arguments", 0)], self._delta(event, path), f"{path}.delta")

    def _annotation(self, event: dict[str, Any], path: str) -> None:
        """A citation as soon as its annotation gives one, while every annotation of the part has given one.

        The adapter reads a part's citations from its whole annotation list and text; streaming them earlier is
        safe only while they are the start of that list's (an annotation that gives none, now, stops it). Each
        annotation gives its citation on its own, so the cost is the annotation's, whatever came before.
        """
        block = self._block(event, path, "message", ("content", "content_index"), "text")
        item, content = self._items[event["output_index"]], event["content_index"]
        note = plain_at(event.get("annotation"), f"{path}.annotation")
        if not item.cited.setdefault(content, True):
            return
        citation = _fitting_citation(note, self._emit.blocks[block].length)
        if citation is None:
            item.cited[content] = False
            return
        self._emit.citation(block, citation)

    def _done(self, event: dict[str, Any], path: str) -> None:
        item = self._item(event, path)
        done = obj(plain_at(event.get("item"), f"{path}.item"), f"{path}.item")
        if field(done, "type", str, f"{path}.item") != item.kind:
            raise fail(f"{path}.item.type", f"output item {event['output_index']} was added as a {item.kind}")
        blocks = self._read_items([done], path, f"{path}.item")
        if len(item.blocks) > len(blocks):
            raise fail(path, f"the completed item reads into {len(blocks)} blocks, but {len(item.blocks)} streamed")
        keep = item.kind == "function_call"
        for neutral, final in zip(item.blocks, blocks, strict=False):
            self._emit.close(neutral, final, path, raw_arguments=done.get("arguments") if keep else None,
                             keep_invalid=keep)
        for final in blocks[len(item.blocks) :]:
            item.blocks.append(self._emit.whole(final, path))
        item.done = done

    def _read_items(self, items: list[Any], path: str, root: str) -> tuple[Any, ...]:
        """The blocks the adapter reads of ``items``, its paths (``$.output[0]...``) re-rooted at ``root``."""
        reply = read_completed(adapter.from_response, {"output": items}, path, reroot=("$.output[0]", root))
        return reply.message.content if reply.message is not None else ()

    def _terminal(self, event: dict[str, Any], path: str) -> None:
        response = dict(obj(plain_at(event.get("response"), f"{path}.response"), f"{path}.response"))
        if still := [str(k) for k, item in sorted(self._items.items()) if item.done is None]:
            raise fail(path, f"the response ends while output items are not done: {', '.join(still)}")
        if response.get("output") is None:  # the items as they were done, as the SDK's stream state recovers them
            response["output"] = [self._items[k].done for k in sorted(self._items)]
        self._stopped = True
        reply = read_completed(adapter.from_response, response, path, reroot=("$", f"{path}.response"))
        where = f"{path}.response"
        self._emit.finish(reply, path, keep_invalid=True, where={
            "model": f"{where}.model", "response_id": f"{where}.id", "provider_stop_reason": f"{where}.status"})


def _fitting_citation(note: object, length: int) -> Any:
    """The citation one annotation gives within text of ``length`` characters, as the adapter reads it, or ``None``."""
    if not isinstance(note, dict):
        return None
    try:
        citation = annotation_citation(note)
    except (ValidationError, KeyError):
        return None
    if citation is None or citation.end is None or citation.end > length:
        return None
    return citation


#: The text deltas: the item type they belong to, the part list and its index key, and the neutral kind.
_PART_DELTAS: dict[str, tuple[str, tuple[str, str], BlockKind]] = {
    "response.output_text.delta": ("message", ("content", "content_index"), "text"),
    "response.refusal.delta": ("message", ("content", "content_index"), "refusal"),
    "response.reasoning_summary_text.delta": ("reasoning", ("summary", "summary_index"), "reasoning"),
    "response.reasoning_text.delta": ("reasoning", ("content", "content_index"), "reasoning"),
}

_HANDLERS: dict[str, Callable[[Reader, dict[str, Any], str], None]] = {
    "response.created": Reader._created_event,
    "response.output_item.added": Reader._added,
    **dict.fromkeys(_PART_DELTAS, Reader._part_delta),
    "response.function_call_arguments.delta": Reader._arguments,
    "response.output_text.annotation.added": Reader._annotation,
    "response.output_item.done": Reader._done,
    **dict.fromkeys(_TERMINAL, Reader._terminal),
}


def events(stream: Iterable[object]) -> Iterator[StreamEvent]:
    """The neutral events of a whole Responses stream."""
    return Reader().events(stream)


def fold(stream: Iterable[object]) -> Reply:
    """The reply a whole Responses stream folds into: the same as ``from_response`` of its final response."""
    return Reader().fold(stream)
