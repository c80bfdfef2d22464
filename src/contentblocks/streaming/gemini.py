"""Gemini streamed ``GenerateContentResponse`` chunks (``generate_content_stream``) as neutral events.

Each chunk is a ``GenerateContentResponse`` or any of its dict forms (camelCase or snake_case). A stream is read
as the concatenation of its chunks, the way Google documents streamed text ("the response is the text of every
chunk, in order"), made exact for every part kind:

- the parts of one candidate are appended in order, except that a text part continues the text part before it
  when both are thoughts or both are not, neither carries anything but ``text``, ``thought`` and
  ``thoughtSignature``, and the one before has no signature yet (a signature closes a part; one that arrives on
  an empty text part, as Gemini 3 sends it at the end of a streamed answer, joins the text it closes);
- every other field (``finishReason``, ``groundingMetadata``, ``citationMetadata``, ``usageMetadata``, the model
  version, the response id...) takes the last value a chunk gave it (Gemini reports running totals).

Text and thoughts stream as they come and end with the stream (grounding arrives with the last chunk and cites
the text); every other part is read whole by the Gemini adapter when it arrives. ``end()`` closes the reply
against ``gemini.from_response`` of the concatenated response.

>>> from contentblocks.streaming import gemini
>>> stream = [
...     {"candidates": [{"content": {"role": "model", "parts": [{"text": "Bonjour"}]}}],
...      "modelVersion": "gemini-2.5-flash", "responseId": "r-1"},
...     {"candidates": [{"content": {"role": "model", "parts": [{"text": " !"}]}, "finishReason": "STOP"}],
...      "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 3, "totalTokenCount": 7},
...      "modelVersion": "gemini-2.5-flash", "responseId": "r-1"},
... ]
>>> reply = gemini.fold(stream)
>>> reply.message.content[0].text, reply.stop_reason, reply.usage.total_tokens
('Bonjour !', 'end_turn', 7)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..providers import gemini as adapter
from ..providers._arguments import index_argument
from ..providers._contract import Reply
from ..providers._shapes import canonical, pick
from ..providers._toolkit import obj, plain
from ..providers.gemini._wire import PART
from ._errors import fail
from ._events import StreamEvent
from ._reading import StreamReader, read_completed

__all__ = ["PROVIDER", "Reader", "events", "fold"]

#: The ``Reply.provider`` of a Gemini reply.
PROVIDER = "gemini"

_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})


def _continues(previous: dict[str, Any], part: dict[str, Any]) -> bool:
    """Whether text ``part`` continues the part ``previous`` (see the module)."""
    return (
        "text" in previous
        and "text" in part
        and previous.keys() <= _TEXT_KEYS
        and part.keys() <= _TEXT_KEYS
        and "thoughtSignature" not in previous
        and (previous.get("thought") is True) == (part.get("thought") is True)
    )


class _Part:
    """One part of the concatenated response; a text part keeps its text as pieces, joined when it is read."""

    __slots__ = ("block", "native", "pieces")

    def __init__(self, native: dict[str, Any]) -> None:
        self.native = native
        self.pieces: list[str] = [native["text"]] if "text" in native else []
        self.block: int | None = None  # the neutral block, once there is one

    def text_part(self) -> bool:
        return "text" in self.native and self.native.keys() <= _TEXT_KEYS

    def completed(self) -> dict[str, Any]:
        return {**self.native, "text": "".join(self.pieces)} if "text" in self.native else self.native


class Reader(StreamReader):
    """Reads one Gemini stream; see the module for what it emits when.

    Args:
        candidate: which candidate to read (a request with ``candidateCount`` > 1 streams several).
    """

    provider = PROVIDER

    def __init__(self, *, candidate: int = 0) -> None:
        super().__init__()
        self._candidate = index_argument(candidate, "candidate", "gemini stream Reader")
        self._top: dict[str, Any] = {}
        self._fields: dict[str, Any] = {}
        self._parts: list[_Part] = []

    def _read(self, event: dict[str, Any], path: str) -> None:
        self._top.update({key: value for key, value in event.items() if key != "candidates" and value is not None})
        # the model and id, read from the chunk's top-level fields alone
        reply = read_completed(adapter.from_response, {**self._top, "candidates": []}, path)
        self._emit.response(reply.model, reply.response_id, path)
        candidates = pick(event, "candidates") or []
        if not isinstance(candidates, list):
            raise fail(f"{path}.candidates", "expected an array")
        if len(candidates) > self._candidate:
            self._candidate_chunk(candidates[self._candidate], f"{path}.candidates[{self._candidate}]")

    def _candidate_chunk(self, raw: object, path: str) -> None:
        candidate = obj(plain(raw), path)
        self._fields.update({key: value for key, value in candidate.items() if key != "content" and value is not None})
        parts = pick(pick(candidate, "content"), "parts") or []
        if not isinstance(parts, list):
            raise fail(f"{path}.content.parts", "expected an array")
        for j, part in enumerate(parts):
            self._part(canonical(plain(part), PART, f"{path}.content.parts[{j}]"), f"{path}.content.parts[{j}]")

    def _part(self, part: dict[str, Any], path: str) -> None:
        call = part.get("functionCall") or {}
        if call.get("willContinue") or call.get("partialArgs"):
            raise fail(f"{path}.functionCall", "streamed function call arguments (partialArgs) are not read")
        previous = self._parts[-1] if self._parts else None
        if previous is not None and _continues(previous.native, part):
            previous.native.update({key: value for key, value in part.items() if key != "text"})
            previous.pieces.append(part["text"])
            self._stream(previous, part["text"])
            return
        if previous is not None and previous.text_part() and previous.block is None:
            previous.block = self._emit.whole(self._read_part(previous, len(self._parts) - 1, path), path)
        current = _Part(part)
        self._parts.append(current)
        if current.text_part():
            self._stream(current, part["text"])
        else:
            current.block = self._emit.whole(self._read_part(current, len(self._parts) - 1, path), path)

    def _stream(self, part: _Part, text: str) -> None:
        """Text or thought text as it comes; a thought's signature as soon as it has one."""
        thought = part.native.get("thought") is True
        if text and part.block is None:
            part.block = self._emit.start("reasoning" if thought else "text")
        if part.block is not None:
            self._emit.text(part.block, text)
            if thought and "thoughtSignature" in part.native:
                self._emit.signature(part.block, part.native["thoughtSignature"])

    def _from_response(self, response: dict[str, Any]) -> Reply:
        return adapter.from_response(response, candidate=self._candidate)

    def _response(self, parts: list[dict[str, Any]], *, with_fields: bool = True) -> dict[str, Any]:
        """The concatenated response with ``parts`` as the candidate's parts (and its other fields, or none)."""
        candidate = {**self._fields} if with_fields else {}
        if parts:
            candidate["content"] = {"role": "model", "parts": parts}
        if not candidate:  # no candidate at all: a blocked prompt
            return {**self._top, "candidates": []}
        return {**self._top, "candidates": [*([{}] * self._candidate), candidate]}

    def _read_part(self, part: _Part, j: int, path: str) -> Any:
        """The adapter's block for part ``j``, read as the response's part ``j``.

        A call's generated id and the issuer depend on the part's place, the model and the response id, so the
        part is read in a response with those, where the parts before it stand in as text.
        """
        response = self._response([*([{"text": "-"}] * j), part.completed()], with_fields=False)
        root = f"$.candidates[{self._candidate}].content.parts[{j}]"
        reply = read_completed(self._from_response, response, path, reroot=(root, path))
        assert reply.message is not None  # noqa: S101 - the response has at least the part itself
        return reply.message.content[j]

    def _end(self, path: str) -> None:
        blocked = pick(pick(self._top, "promptFeedback"), "blockReason") is not None
        if pick(self._fields, "finishReason") is None and not blocked:
            return  # the stream never said why it stopped: the builder has no reply to give
        response = self._response([part.completed() for part in self._parts])
        self._emit.finish(read_completed(self._from_response, response, path), path)


def events(stream: Iterable[object], *, candidate: int = 0) -> Iterator[StreamEvent]:
    """The neutral events of a whole Gemini stream."""
    return Reader(candidate=candidate).events(stream)


def fold(stream: Iterable[object], *, candidate: int = 0) -> Reply:
    """The reply a whole Gemini stream folds into: ``from_response`` of the chunks' concatenation."""
    return Reader(candidate=candidate).fold(stream)
