"""What the provider stream readers share: the reader's life cycle, and emitting neutral events for its blocks.

A reader streams deltas as they come, so that snapshots grow, and reads each part once it is complete with the
provider adapter's own reading function. :class:`Emitter` then *closes* the neutral block against the adapter's
block: what the deltas already said must be the start of it, and what only the completed part carries (its
metadata, a signature sent at the end, citations derived from annotations) is emitted before ``BlockEnded``.
At the end of the stream the whole reply, read by the adapter's ``from_response``, closes the stream the same
way, so the folded reply is the adapter's reply by construction, and any disagreement between the deltas and
the completed response is an error rather than a silent difference.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from .._errors import ValidationError, describe_type
from .._json._values import json_key
from .._model._classes import (
    ApprovalRequestBlock,
    Block,
    Citation,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
)
from ..providers._contract import Reply, Usage
from ..providers._toolkit import json_text, parse_json_text
from ._errors import StreamError, fail
from ._events import (
    ApprovalRequested,
    ArgumentsAppended,
    BlockEnded,
    BlockKind,
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
    SignatureSet,
    StreamEvent,
    TextAppended,
    ToolCallIdentified,
    UsageUpdated,
)
from ._fold import ReplyBuilder
from ._sources import Where, placed, plain_at

__all__ = ["Emitter", "StreamReader"]

_KINDS: dict[type, BlockKind] = {
    TextBlock: "text",
    RefusalBlock: "refusal",
    ReasoningBlock: "reasoning",
    ToolCallBlock: "tool_call",
}
#: The blocks that arrive whole: the part kind the fold gives them, and their event.
_ADDED: dict[type, tuple[str, Any]] = {
    FileBlock: ("file", FileAdded),
    JsonBlock: ("json", JsonAdded),
    ServerToolCallBlock: ("server_tool", ServerToolAdded),
    ServerToolResultBlock: ("server_tool", ServerToolAdded),
    CompactionBlock: ("compaction", CompactionAdded),
    ApprovalRequestBlock: ("approval_request", ApprovalRequested),
}
_DELTAS: dict[str, type[TextAppended | RefusalAppended | ReasoningAppended]] = {
    "text": TextAppended,
    "refusal": RefusalAppended,
    "reasoning": ReasoningAppended,
}


class _Sent:
    """What has been emitted for one neutral block: enough to check the completed part against it."""

    __slots__ = ("arguments", "citations", "final", "kind", "length", "redacted", "signature", "text", "tool_call_id",
                 "tool_name")

    def __init__(self, kind: str, tool_call_id: str | None, tool_name: str | None) -> None:
        self.kind = kind
        self.text: list[str] = []
        self.length = 0  # of the text sent
        self.arguments: list[str] = []
        self.signature: str | None = None
        self.citations: list[Citation] = []
        self.redacted: bytes | None = None
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.final: Block | None = None


class Emitter:
    """Neutral events for one reply, and a record of what each block has been sent so far."""

    def __init__(self) -> None:
        self.out: list[StreamEvent] = []
        self.blocks: list[_Sent] = []
        self._model: str | None = None
        self._response_id: str | None = None
        self._usage: Usage | None = None

    def take(self) -> tuple[StreamEvent, ...]:
        """The events emitted since the last call."""
        out, self.out = tuple(self.out), []
        return out

    # ------------------------------------------------------------------------------------------ deltas

    def start(
        self, kind: BlockKind, *, tool_call_id: str | None = None, tool_name: str | None = None, where: Where = "$"
    ) -> int:
        """Start the next block; its index (``where``: where a call's id and name came from, see ``Where``)."""
        index = len(self.blocks)
        event = placed(lambda: BlockStarted(index, kind, tool_call_id=tool_call_id, tool_name=tool_name), where)
        self.blocks.append(_Sent(kind, tool_call_id, tool_name))
        self.out.append(event)
        return index

    def text(self, index: int, piece: str, where: Where) -> None:
        """Text for a text, refusal or reasoning block (the delta of its kind), from ``where`` in the stream."""
        if piece:
            sent = self.blocks[index]
            self.out.append(placed(lambda: _DELTAS[sent.kind](index, piece), where))
            sent.text.append(piece)
            sent.length += len(piece)

    def signature(self, index: int, signature: str, where: Where) -> None:
        """A reasoning block's whole signature."""
        if signature and signature != self.blocks[index].signature:
            self.out.append(placed(lambda: SignatureSet(index, signature), where))
            self.blocks[index].signature = signature

    def redacted(self, index: int, data: bytes) -> None:
        """A reasoning block's redacted payload."""
        self.blocks[index].redacted = data
        self.out.append(ReasoningRedacted(index, data))

    def citation(self, index: int, citation: Citation) -> None:
        """A citation for a text block."""
        self.blocks[index].citations.append(citation)
        self.out.append(CitationAdded(index, citation))

    def identify(
        self, index: int, tool_call_id: str | None = None, tool_name: str | None = None, *, where: Where = "$"
    ) -> None:
        """A tool call's id or name, when it was not given at the start (repeats are not emitted again)."""
        sent = self.blocks[index]
        new_id = tool_call_id if tool_call_id and sent.tool_call_id is None else None
        new_name = tool_name if tool_name and sent.tool_name is None else None
        if new_id or new_name:
            self.out.append(placed(lambda: ToolCallIdentified(index, new_id, new_name), where))
            sent.tool_call_id = sent.tool_call_id or new_id
            sent.tool_name = sent.tool_name or new_name

    def arguments(self, index: int, piece: str, where: Where) -> None:
        """Argument text for a tool call."""
        if piece:
            self.out.append(placed(lambda: ArgumentsAppended(index, piece), where))
            self.blocks[index].arguments.append(piece)

    # ------------------------------------------------------------------------------------------ closing

    def close(
        self,
        index: int,
        final: Block,
        path: str,
        *,
        raw_arguments: str | None = None,
        keep_invalid: bool = False,
        input_text: str | None = None,
    ) -> None:
        """End block ``index`` as the adapter reads the completed part: ``final``.

        ``input_text``: the adapter kept the tool call's arguments, JSON no block can hold, as this text (its
        input), which ``BlockEnded`` then carries; ``keep_invalid``: it keeps arguments that are not JSON as they are.

        Raises:
            StreamError: at ``path`` when what was streamed is not the start of ``final``.
        """
        sent = self.blocks[index]
        if _KINDS.get(type(final)) != sent.kind:
            raise fail(path, f"block {index} streamed as {sent.kind} but the completed part reads as "
                             f"{describe_type(final)}")
        if isinstance(final, (TextBlock, RefusalBlock, ReasoningBlock)):
            self._close_text(index, sent, final.text or "", path)
        if isinstance(final, TextBlock):
            self._close_citations(index, sent, final.citations, path)
        elif isinstance(final, ReasoningBlock):
            self._close_reasoning(index, sent, final, path)
        elif isinstance(final, ToolCallBlock):
            self._close_tool_call(index, sent, final, path, raw_arguments, keep_invalid, input_text)
        sent.final = final
        sent.text, sent.arguments, sent.citations = [], [], []
        self.out.append(placed(lambda: BlockEnded(index, final.metadata, keep_invalid_arguments=keep_invalid,
                                                  input_text=input_text), path))

    def whole(self, final: Block, path: str) -> int:
        """Emit a block that arrives complete: a file or JSON block as such, any other from start to end."""
        index = len(self.blocks)
        added = _ADDED.get(type(final))
        if added is not None:
            sent = _Sent(added[0], None, None)
            sent.final = final
            self.blocks.append(sent)
            self.out.append(added[1](index, final))
            return index
        kind = _KINDS.get(type(final))
        if kind is None:
            raise fail(path, f"a reply cannot hold {describe_type(final)}")
        ids = (final.tool_call_id, final.tool_name) if isinstance(final, ToolCallBlock) else (None, None)
        self.start(kind, tool_call_id=ids[0], tool_name=ids[1], where=path)
        self.close(index, final, path)
        return index

    def _close_text(self, index: int, sent: _Sent, final: str, path: str) -> None:
        streamed = "".join(sent.text)
        if not final.startswith(streamed):
            raise fail(path, f"the completed part's text is not the text block {index} streamed")
        self.text(index, final[len(streamed) :], path)

    def _close_citations(self, index: int, sent: _Sent, final: tuple[Citation, ...], path: str) -> None:
        if tuple(sent.citations) != final[: len(sent.citations)]:
            raise fail(path, f"the completed part's citations are not those block {index} streamed")
        for citation in final[len(sent.citations) :]:
            self.citation(index, citation)

    def _close_reasoning(self, index: int, sent: _Sent, final: ReasoningBlock, path: str) -> None:
        if final.redacted is not None:
            if sent.redacted is None:
                self.redacted(index, final.redacted)
            elif sent.redacted != final.redacted:
                raise fail(path, f"the completed part's redacted data is not what block {index} streamed")
        elif final.signature is not None:
            self.signature(index, final.signature, path)
        elif sent.signature is not None:
            raise fail(path, f"block {index} streamed a signature the completed part does not have")

    def _close_tool_call(
        self,
        index: int,
        sent: _Sent,
        final: ToolCallBlock,
        path: str,
        raw: str | None,
        keep_invalid: bool,
        input_text: str | None,
    ) -> None:
        for name in ("tool_call_id", "tool_name"):
            if getattr(sent, name) not in {None, getattr(final, name)}:
                raise fail(path, f"the completed part's {name.replace('_', ' ')} is not what block {index} streamed")
        self.identify(index, final.tool_call_id, final.tool_name, where=path)
        streamed = "".join(sent.arguments)
        if raw is not None:
            if not raw.startswith(streamed):
                raise fail(path, f"the completed part's arguments are not those block {index} streamed")
            self.arguments(index, raw[len(streamed) :], path)
            streamed = raw
        elif not streamed:
            streamed = json_text(final.input)
            self.arguments(index, streamed, path)
        ok, value = parse_json_text(streamed)
        if input_text is not None:  # only for arguments that are JSON no block holds
            folded = input_text if not ok and parse_json_text(streamed, holdable=False)[0] else _NOT_JSON
        else:
            folded = value if ok else streamed if keep_invalid else _NOT_JSON
        if folded is _NOT_JSON or json_key(folded) != json_key(final.input):
            raise fail(path, f"the completed part's input is not what the arguments block {index} streamed say")

    def finish(
        self, reply: Reply, path: str, *, keep_invalid: bool = False, where: Mapping[str, str] | None = None
    ) -> None:
        """Close the stream against the whole reply as the adapter reads it, then stop it.

        Open blocks are closed against the reply's blocks, blocks that never streamed are emitted whole, and the
        message metadata, usage, model, id and stop reason follow. ``where`` names the paths the model, the
        response id and the provider's stop reason came from (``path`` for any it leaves out).

        Raises:
            StreamError: at ``path`` when the stream's blocks are not the reply's (in number, kind or content).
        """
        content = reply.message.content if reply.message is not None else ()
        if len(self.blocks) > len(content):
            raise fail(path, f"the stream has {len(self.blocks)} blocks but the completed reply {len(content)}")
        for index, final in enumerate(content):
            if index >= len(self.blocks):
                self.whole(final, path)
            elif self.blocks[index].final is None:
                self.close(index, final, path, keep_invalid=keep_invalid)
            elif self.blocks[index].final != final:
                raise fail(path, f"block {index} as it ended is not block {index} of the completed reply")
        if reply.message is not None and reply.message.metadata:
            self.out.append(MessageMetadataAdded(reply.message.metadata))
        where = {"$": path, **(where or {})}
        self.usage(reply.usage, path)
        self.response(reply.model, reply.response_id, path, where)
        self.out.append(placed(lambda: ReplyStopped(reply.stop_reason, reply.provider_stop_reason), where))

    def usage(self, usage: Usage | None, path: str) -> None:
        """Report the usage so far, when it changed."""
        if usage is None:
            if self._usage is not None:
                raise fail(path, "the stream reported usage that the completed reply does not have")
            return
        if usage != self._usage:
            self._usage = usage
            self.out.append(UsageUpdated(usage))

    def response(self, model: str | None, response_id: str | None, path: str, where: Where | None = None) -> None:
        """Report the model and response id, when they changed (a value once given is never taken back).

        ``where`` names the paths they came from (``{"model": ..., "response_id": ...}``), ``path`` by default.
        """
        if (model is None and self._model is not None) or (response_id is None and self._response_id is not None):
            raise fail(path, "the stream named a model or response id that the completed reply does not have")
        if (model, response_id) != (self._model, self._response_id):
            self.out.append(placed(lambda: ResponseIdentified(model=model, response_id=response_id), where or path))
            self._model, self._response_id = model, response_id


_NOT_JSON: Any = object()


class StreamReader(abc.ABC):
    """Reads one provider stream, event by event, into neutral events (the base of every provider's reader).

    ``read(event)`` takes one SDK stream event (or its dict) and returns the neutral events it gives; ``end()``
    says the provider's stream is over and returns the last ones. After an error the reader refuses to go on
    (the events of the failed read are not returned, so a builder fed so far keeps its snapshot).
    """

    #: The ``Reply.provider`` of what this reader reads.
    provider: ClassVar[str]

    def __init__(self) -> None:
        self._emit = Emitter()
        self._position = 0
        self._failed: str | None = None

    def read(self, event: object) -> tuple[StreamEvent, ...]:
        """The neutral events of one provider stream event (an SDK object or any of its dict forms).

        Raises:
            StreamError: when the event is malformed, unknown, out of order or disagrees with the stream so far;
                its path is the event's position in the provider's stream (``$[4].delta.type``).
        """
        path = f"$[{self._position}]"
        self._position += 1
        return self._guarded(path, lambda: self._read(self._object(event, path), path))

    def end(self) -> tuple[StreamEvent, ...]:
        """The provider's stream is over: the events that close it (the stop, for streams that never say it)."""
        path = f"$[{self._position}]"
        return self._guarded(path, lambda: self._end(path))

    def events(self, stream: Iterable[object]) -> Iterator[StreamEvent]:
        """Every neutral event of a whole provider stream, ``end()``'s included."""
        for event in stream:
            yield from self.read(event)
        yield from self.end()

    def fold(self, stream: Iterable[object]) -> Reply:
        """The reply a whole provider stream folds into (``ReplyBuilder`` fed with ``events(stream)``).

        Raises:
            StreamError: when the stream is refused, or ends before its reply stopped.
        """
        builder = ReplyBuilder(self.provider)
        builder.feed(self.events(stream))
        return builder.reply()

    def _guarded(self, path: str, step: Any) -> tuple[StreamEvent, ...]:
        if self._failed is not None:
            raise fail(path, f"the reader stopped at the error at {self._failed}")
        try:
            step()
        except ValidationError as e:
            self._failed = path
            self._emit.take()
            raise StreamError(e.errors, omitted=e.omitted) from None
        return self._emit.take()

    @staticmethod
    def _object(event: object, path: str) -> dict[str, Any]:
        raw = plain_at(event, path)
        if type(raw) is not dict:
            raise fail(path, f"expected a stream event (an SDK object or a dict), got {describe_type(raw)}")
        return raw

    @abc.abstractmethod
    def _read(self, event: dict[str, Any], path: str) -> None:
        """Emit the neutral events of one provider event."""

    def _end(self, path: str) -> None:  # noqa: B027 - most streams say when they are over; a no-op by default
        """Emit the events that close a stream whose provider never says it is over."""


StreamReader.__module__ = "contentblocks.streaming"
