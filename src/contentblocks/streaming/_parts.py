"""One block of a streamed reply while it grows: its text as pieces, and the block it is so far and at the end.

Text grows by appending a piece to a list; the list is joined only when a view is read, and then kept joined,
so that appending stays O(1) and reading costs the size of what was appended since.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._api import parse_json
from .._errors import ValidationError
from .._model._classes import Block, Citation, ReasoningBlock, RefusalBlock, TextBlock, ToolCallBlock
from ..providers._toolkit import holds_json
from ._errors import StreamError, at
from ._events import BlockEnded

__all__ = ["STALE", "Part", "Pieces"]

#: A part's view before it is built (``None`` is a view: the part has nothing to show yet).
STALE: Any = object()


class Pieces:
    """Text that grows at the end: appended in O(1), joined once when read."""

    __slots__ = ("length", "pieces")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.length = 0

    def value(self) -> str:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""


class Part:
    """One block of the reply while it streams, and once it has ended (``view`` is then the final block)."""

    __slots__ = ("arguments", "citations", "ended", "kind", "metadata", "redacted", "signature", "text",
                 "tool_call_id", "tool_name", "view")

    def __init__(self, kind: str, metadata: Mapping[str, Any], tool_call_id: str | None, tool_name: str | None) -> None:
        self.kind = kind
        self.metadata = metadata
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.text = Pieces()
        self.signature = Pieces()
        self.arguments = Pieces()
        self.citations: list[Citation] = []
        self.redacted: bytes | None = None
        self.ended = False
        self.view: Block | None = STALE

    def current(self) -> Block | None:
        """The block as far as it has streamed, or ``None`` while it has nothing a block can hold yet."""
        if self.view is STALE:
            self.view = self._build(self.metadata, self._fitting_citations(), self.arguments.value())
        return self.view

    def _fitting_citations(self) -> list[Citation]:
        length = self.text.length
        return [c for c in self.citations if c.end is None or c.end <= length]

    def _build(self, metadata: Mapping[str, Any], citations: list[Citation], tool_input: object) -> Block | None:
        text = self.text.value() if self.text.length else None
        if self.kind == "text":
            return None if text is None else TextBlock(text=text, citations=tuple(citations), metadata=metadata)
        if self.kind == "refusal":
            return None if text is None else RefusalBlock(text=text, metadata=metadata)
        if self.kind == "reasoning":
            signature = self.signature.value() or None
            if text is None and signature is None and self.redacted is None:
                return None
            return ReasoningBlock(text=text, signature=signature, redacted=self.redacted, metadata=metadata)
        if self.tool_call_id is None or self.tool_name is None:
            return None
        return ToolCallBlock(tool_call_id=self.tool_call_id, tool_name=self.tool_name, input=tool_input,
                             metadata=metadata)

    def finish(self, index: int, event: BlockEnded, position: int) -> Block:
        """The final block, or a ``StreamError`` saying what it lacks; nothing changes on error."""
        metadata = {**self.metadata, **event.metadata} if event.metadata else self.metadata
        tool_input: object = None
        if event.input_text is not None and self.kind != "tool_call":
            raise at(position, f"block {index} ends with an input text, but it is a {self.kind} block", ".input_text")
        if self.kind in {"text", "refusal"} and not self.text.length:
            raise at(position, f"block {index} ends with no text")
        if self.kind == "text":
            for k, citation in enumerate(self.citations):
                if citation.end is not None and citation.end > self.text.length:
                    raise at(position, f"block {index} ends before the span of its citation {k} does")
        if self.kind == "tool_call":
            tool_input = self._arguments(index, event, position)
        block = self._build_checked(index, metadata, tool_input, position)
        if block is None:
            lacking = "a tool call id and name" if self.kind == "tool_call" else "reasoning text, a signature or data"
            raise at(position, f"block {index} ends without {lacking}")
        return block

    def _arguments(self, index: int, event: BlockEnded, position: int) -> object:
        raw = self.arguments.value()
        try:
            value = parse_json(raw)
        except ValidationError as e:
            if event.keep_invalid_arguments:
                return raw
            raise at(position, f"the arguments of block {index} never parse: {e.errors[0][1]}") from None
        if holds_json(value):
            if event.input_text is not None:
                raise at(position, f"block {index} ends with an input text, but its arguments are JSON a block holds",
                         ".input_text")
            return value
        # JSON no block can hold (a 30-digit integer, 1e400) is kept as text, as the adapters keep it.
        if event.input_text is not None:
            return event.input_text
        return raw if event.keep_invalid_arguments else value

    def _build_checked(
        self, index: int, metadata: Mapping[str, Any], tool_input: object, position: int
    ) -> Block | None:
        try:
            return self._build(metadata, self.citations, tool_input)
        except ValidationError as e:
            problems = [(f"$[{position}]", f"block {index} is not valid: {p}: {m}") for p, m in e.errors]
            raise StreamError(problems) from None
