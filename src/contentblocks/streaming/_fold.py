"""The fold: neutral events in, progressive snapshots out, and at the end the same reply the whole response gives.

Appending is amortised O(1): each block keeps its text as a list of pieces, joined only when a snapshot or
the reply asks for it (and then kept joined), so a stream of a hundred thousand one-character deltas folds in
linear time. Every event is checked against the stream before it changes anything: a refused event leaves the
builder as it was, so the snapshot taken before it, and every one after, is still there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .._checks._rules import DEFAULT_LIMITS, FREE_TEXT
from .._errors import ValidationError, describe_type
from .._model._classes import Block, Message
from ..providers._contract import Reply, StopReason, Usage
from ._errors import StreamError, at
from ._events import (
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
from ._parts import STALE, Part, Pieces

__all__ = ["ReplyBuilder", "fold"]

#: The part kind of each event that adds a whole block.
_WHOLE_KINDS: dict[type, str] = {
    FileAdded: "file", JsonAdded: "json", ServerToolAdded: "server_tool", CompactionAdded: "compaction",
    ApprovalRequested: "approval_request",
}

_MAX_CHARS = FREE_TEXT.max_chars(DEFAULT_LIMITS)  # a streamed block's text, by the text's own rule


class ReplyBuilder:
    """Folds a stream of neutral events into snapshots and, once it has stopped, the reply.

    Args:
        provider: the ``Reply.provider`` the reply names (``"anthropic"``, ``"openai_chat"``...).

    >>> from contentblocks.streaming import BlockEnded, BlockStarted, ReplyBuilder, ReplyStopped, TextAppended
    >>> builder = ReplyBuilder("anthropic")
    >>> builder.add(BlockStarted(0, "text"))
    >>> builder.add(TextAppended(0, "Hel"))
    >>> builder.snapshot()[0].text
    'Hel'
    >>> builder.feed([TextAppended(0, "lo"), BlockEnded(0), ReplyStopped("end_turn", "end_turn")])
    >>> reply = builder.reply()
    >>> reply.message.content[0].text, reply.stop_reason
    ('Hello', 'end_turn')
    """

    __slots__ = ("_message", "_message_metadata", "_model", "_parts", "_position", "_provider_stop_reason",
                 "_response_id", "_stop_reason", "_stopped", "_usage", "provider")

    def __init__(self, provider: str) -> None:
        if type(provider) is not str or not provider:
            msg = f"provider must be a non-empty string, got {describe_type(provider)}"
            raise TypeError(msg)
        self.provider = provider
        self._parts: list[Part] = []
        self._position = 0
        self._stopped = False
        self._stop_reason: StopReason | None = None
        self._provider_stop_reason: str | None = None
        self._usage: Usage | None = None
        self._model: str | None = None
        self._response_id: str | None = None
        self._message_metadata: dict[str, Any] = {}
        self._message: Message | None = None

    @property
    def stopped(self) -> bool:
        """Whether the reply has stopped (``reply()`` then gives it)."""
        return self._stopped

    @property
    def open_blocks(self) -> tuple[int, ...]:
        """The indices of the blocks started and not yet ended."""
        return tuple(i for i, part in enumerate(self._parts) if not part.ended)

    @property
    def block_count(self) -> int:
        """How many blocks have started (the next block to start has this index)."""
        return len(self._parts)

    def block(self, index: int) -> Block | None:
        """Block ``index`` as far as it has streamed (final once it has ended), or ``None`` while it is empty.

        Raises:
            IndexError: when block ``index`` has not started.
        """
        if type(index) is not int or not 0 <= index < len(self._parts):
            msg = f"block {index} has not started" if type(index) is int else "index must be an integer"
            raise IndexError(msg)
        return self._parts[index].current()

    def add(self, event: StreamEvent) -> None:
        """Fold one event in.

        Raises:
            StreamError: when the event does not fit the stream (see the class's rules); the builder is then
                unchanged, as if the event had not been offered, but it still counts for the paths.
        """
        position = self._position
        self._position += 1
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise at(position, f"unknown event: {describe_type(event)}")
        if self._stopped:
            raise at(position, "the reply has already stopped")
        handler(self, event, position)

    def feed(self, events: Iterable[StreamEvent]) -> None:
        """Fold each event in, in order (the first refused one raises, see ``add``)."""
        add = self.add
        for event in events:
            add(event)

    def snapshot(self) -> tuple[Block, ...]:
        """The blocks so far, in order, as blocks; never raises.

        A block shows once it holds something: text, reasoning, or a tool call's id and name. An open tool
        call's input is its argument text so far, as a string; an open text shows the citations its text
        already covers. Ended blocks are final.
        """
        return tuple(view for part in self._parts if (view := part.current()) is not None)

    def reply(self) -> Reply:
        """The reply, equal to what reading the whole response gives.

        Raises:
            StreamError: when the stream has not stopped (no ``ReplyStopped`` yet), at ``$``. The message is built
                and checked when the reply stops, so this is the only error ``reply()`` gives.
        """
        if not self._stopped:
            still = self.open_blocks
            tail = f"; blocks still open: {', '.join(map(str, still))}" if still else ""
            raise StreamError([("$", f"the stream ended before the reply stopped{tail}")])
        return Reply(
            message=self._message,
            stop_reason=self._stop_reason,
            provider_stop_reason=self._provider_stop_reason,
            usage=self._usage,
            model=self._model,
            response_id=self._response_id,
            provider=self.provider,
        )

    # ------------------------------------------------------------------------------------------ handlers

    def _part(self, index: int, position: int, kind: str, what: str) -> Part:
        if index >= len(self._parts):
            raise at(position, f"block {index} was never started", ".index")
        part = self._parts[index]
        if part.ended:
            raise at(position, f"block {index} has already ended", ".index")
        if part.kind != kind:
            raise at(position, f"{what} for block {index}, which is a {part.kind} block")
        return part

    def _next_index(self, index: int, position: int) -> None:
        expected = len(self._parts)
        if index < expected:
            raise at(position, f"block {index} has already started", ".index")
        if index > expected:
            raise at(position, f"block {index} starts before block {expected}", ".index")

    @staticmethod
    def _grow(pieces: Pieces, part: Part, piece: str, index: int, position: int) -> None:
        if piece:
            if pieces.length + len(piece) > _MAX_CHARS:
                raise at(position, f"block {index} would hold more than {_MAX_CHARS:,} characters")
            pieces.pieces.append(piece)
            pieces.length += len(piece)
            part.view = STALE

    def _started(self, event: BlockStarted, position: int) -> None:
        self._next_index(event.index, position)
        self._parts.append(Part(event.kind, event.metadata, event.tool_call_id, event.tool_name))

    def _whole(
        self, event: FileAdded | JsonAdded | ServerToolAdded | CompactionAdded | ApprovalRequested, position: int
    ) -> None:
        self._next_index(event.index, position)
        part = Part(_WHOLE_KINDS[type(event)], event.block.metadata, None, None)
        part.ended = True
        part.view = event.block
        self._parts.append(part)

    def _text(self, event: TextAppended, position: int) -> None:
        part = self._part(event.index, position, "text", "a text delta")
        self._grow(part.text, part, event.text, event.index, position)

    def _refusal(self, event: RefusalAppended, position: int) -> None:
        part = self._part(event.index, position, "refusal", "a refusal delta")
        self._grow(part.text, part, event.text, event.index, position)

    def _reasoning_part(self, index: int, position: int, what: str) -> Part:
        part = self._part(index, position, "reasoning", what)
        if part.redacted is not None:
            raise at(position, f"{what} for block {index}, which is redacted reasoning")
        return part

    def _reasoning(self, event: ReasoningAppended, position: int) -> None:
        part = self._reasoning_part(event.index, position, "a reasoning delta")
        self._grow(part.text, part, event.text, event.index, position)

    def _signature_appended(self, event: SignatureAppended, position: int) -> None:
        part = self._reasoning_part(event.index, position, "a signature")
        self._grow(part.signature, part, event.signature, event.index, position)

    def _signature_set(self, event: SignatureSet, position: int) -> None:
        part = self._reasoning_part(event.index, position, "a signature")
        part.signature = Pieces()
        self._grow(part.signature, part, event.signature, event.index, position)

    def _redacted(self, event: ReasoningRedacted, position: int) -> None:
        part = self._reasoning_part(event.index, position, "redacted data")
        if part.text.length or part.signature.length:
            raise at(position, f"redacted data for block {event.index}, which already has text or a signature")
        part.redacted = event.data
        part.view = STALE

    def _citation(self, event: CitationAdded, position: int) -> None:
        part = self._part(event.index, position, "text", "a citation")
        part.citations.append(event.citation)
        part.view = STALE

    def _identified(self, event: ToolCallIdentified, position: int) -> None:
        part = self._part(event.index, position, "tool_call", "a tool call id or name")
        for name in ("tool_call_id", "tool_name"):
            new, old = getattr(event, name), getattr(part, name)
            if new is not None and old is not None and new != old:
                raise at(position, f"block {event.index} already has another {name.replace('_', ' ')}", f".{name}")
        part.tool_call_id = part.tool_call_id or event.tool_call_id
        part.tool_name = part.tool_name or event.tool_name
        part.view = STALE

    def _arguments(self, event: ArgumentsAppended, position: int) -> None:
        part = self._part(event.index, position, "tool_call", "argument text")
        self._grow(part.arguments, part, event.text, event.index, position)

    def _ended(self, event: BlockEnded, position: int) -> None:
        index = event.index
        if index >= len(self._parts):
            raise at(position, f"block {index} was never started", ".index")
        part = self._parts[index]
        if part.ended:
            raise at(position, f"block {index} has already ended", ".index")
        block = part.finish(index, event, position)
        part.ended = True
        part.view = block
        part.text = part.signature = part.arguments = Pieces()
        part.citations = []

    def _message_metadata_added(self, event: MessageMetadataAdded, _position: int) -> None:
        self._message_metadata.update(event.metadata)

    def _usage_updated(self, event: UsageUpdated, _position: int) -> None:
        self._usage = event.usage

    def _identified_response(self, event: ResponseIdentified, _position: int) -> None:
        self._model = event.model if event.model is not None else self._model
        self._response_id = event.response_id if event.response_id is not None else self._response_id

    def _stopped_reply(self, event: ReplyStopped, position: int) -> None:
        if still := self.open_blocks:
            raise at(position, f"the reply stops while blocks are still open: {', '.join(map(str, still))}")
        if self._message_metadata and not self._parts:
            raise at(position, "the reply stops with message metadata but no block to carry it")
        if blocks := self.snapshot():
            try:  # every block is valid; what the events merged (the message metadata) may not be
                self._message = Message(role="assistant", content=blocks, metadata=self._message_metadata)
            except ValidationError as e:
                raise StreamError([(f"$[{position}]", f"the reply's message is not valid: {p}: {m}")
                                   for p, m in e.errors], omitted=e.omitted) from None
        self._stopped = True
        self._stop_reason = event.stop_reason
        self._provider_stop_reason = event.provider_stop_reason


_HANDLERS: dict[type, Callable[[ReplyBuilder, Any, int], None]] = {
    ResponseIdentified: ReplyBuilder._identified_response,
    BlockStarted: ReplyBuilder._started,
    TextAppended: ReplyBuilder._text,
    RefusalAppended: ReplyBuilder._refusal,
    ReasoningAppended: ReplyBuilder._reasoning,
    SignatureSet: ReplyBuilder._signature_set,
    SignatureAppended: ReplyBuilder._signature_appended,
    ReasoningRedacted: ReplyBuilder._redacted,
    CitationAdded: ReplyBuilder._citation,
    ToolCallIdentified: ReplyBuilder._identified,
    ArgumentsAppended: ReplyBuilder._arguments,
    FileAdded: ReplyBuilder._whole,
    JsonAdded: ReplyBuilder._whole,
    ServerToolAdded: ReplyBuilder._whole,
    CompactionAdded: ReplyBuilder._whole,
    ApprovalRequested: ReplyBuilder._whole,
    BlockEnded: ReplyBuilder._ended,
    MessageMetadataAdded: ReplyBuilder._message_metadata_added,
    UsageUpdated: ReplyBuilder._usage_updated,
    ReplyStopped: ReplyBuilder._stopped_reply,
}


def fold(events: Iterable[StreamEvent], provider: str) -> Reply:
    """The reply a whole stream of events folds into (``ReplyBuilder(provider)``, fed, then ``reply()``).

    >>> from contentblocks.streaming import BlockEnded, BlockStarted, ReplyStopped, SignatureSet, ReasoningAppended
    >>> reply = fold([BlockStarted(0, "reasoning"), ReasoningAppended(0, "Hmm."), SignatureSet(0, "EqQB"),
    ...               BlockEnded(0), ReplyStopped("end_turn", "end_turn")], "anthropic")
    >>> reply.message.content[0]
    ReasoningBlock(text='Hmm.', signature='EqQB', redacted=None, cache=None, metadata=JsonObject({}))
    """
    builder = ReplyBuilder(provider)
    builder.feed(events)
    return builder.reply()
