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

Text and thoughts stream as they come and end with the stream (grounding arrives with the last chunk, cites the text
and adds its search's call and result, emitted whole at the end); every other part is read whole by the Gemini
adapter's part reader when it arrives, at its place in the candidate (a call's generated id depends on it), at a
cost that does not grow with the parts before it. ``end()`` closes the reply against ``gemini.from_response`` of the
concatenated response. A candidate's ``content`` that the adapter refuses is refused where it arrives, and so is
another provider's event (one with a ``type``, an ``object`` or ``choices``), rather than read as an empty chunk.

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
from ..providers._argument_checks import index_argument
from ..providers._contract import Reply
from ..providers._shapes import canonical, pick
from ..providers._toolkit import obj
from ..providers.gemini._read import ISSUER, part_block
from ..providers.gemini._reply import call_ids, grounding_citations
from ..providers.gemini._wire import CONTENT
from ._errors import fail
from ._events import StreamEvent
from ._reading import StreamReader
from ._sources import plain_at, read_completed

__all__ = ["PROVIDER", "Reader", "events", "fold"]

#: The ``Reply.provider`` of a Gemini reply.
PROVIDER = "gemini"

_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})
#: Keys of other providers' stream events that no ``GenerateContentResponse`` has.
_FOREIGN_KEYS = ("type", "object", "choices")


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
        self._code: list[Any] = []  # the code Gemini ran that no result has answered yet, for the results
        self._ids = call_ids(None, None)  # the issuer and the prefix of generated call ids, as the adapter's
        self._stop_path = "$"  # where the finish or block reason came from

    def _read(self, event: dict[str, Any], path: str) -> None:
        for key in _FOREIGN_KEYS:
            if key in event:
                raise fail(f"{path}.{key}", "not a Gemini chunk (a GenerateContentResponse has no such key)")
        self._top.update({key: value for key, value in event.items() if key != "candidates" and value is not None})
        # the model and id, read from the chunk's top-level fields alone
        reply = read_completed(adapter.from_response, {**self._top, "candidates": []}, path)
        self._emit.response(reply.model, reply.response_id, path,
                            {"model": f"{path}.modelVersion", "response_id": f"{path}.responseId"})
        self._ids = call_ids(reply.model, reply.response_id)
        if pick(pick(event, "promptFeedback"), "blockReason") is not None:
            self._stop_path = f"{path}.promptFeedback.blockReason"
        candidates = pick(event, "candidates") or []
        if not isinstance(candidates, list):
            raise fail(f"{path}.candidates", "expected an array")
        if len(candidates) > self._candidate:
            self._candidate_chunk(candidates[self._candidate], f"{path}.candidates[{self._candidate}]")

    def _candidate_chunk(self, raw: object, path: str) -> None:
        candidate = obj(plain_at(raw, path), path)
        grounding_citations([], candidate, ISSUER, path)  # refuses an index that is no integer where it comes
        self._fields.update({key: value for key, value in candidate.items() if key != "content" and value is not None})
        if pick(candidate, "finishReason") is not None:
            self._stop_path = f"{path}.finishReason"
        content = pick(candidate, "content")
        if content is None:
            return
        parts = canonical(content, CONTENT, f"{path}.content").get("parts") or []
        for j, part in enumerate(parts):
            self._part(part, f"{path}.content.parts[{j}]")

    def _part(self, part: dict[str, Any], path: str) -> None:
        call = part.get("functionCall") or {}
        if call.get("willContinue") or call.get("partialArgs"):
            raise fail(f"{path}.functionCall", "streamed function call arguments (partialArgs) are not read")
        previous = self._parts[-1] if self._parts else None
        if previous is not None and _continues(previous.native, part):
            previous.native.update({key: value for key, value in part.items() if key != "text"})
            previous.pieces.append(part["text"])
            self._stream(previous, part["text"], path)
            return
        if previous is not None and previous.text_part() and previous.block is None:
            previous.block = self._emit.whole(self._read_part(previous, len(self._parts) - 1, path), path)
        current = _Part(part)
        self._parts.append(current)
        if current.text_part():
            self._stream(current, part["text"], path)
        else:
            current.block = self._emit.whole(self._read_part(current, len(self._parts) - 1, path), path)

    def _stream(self, part: _Part, text: str, path: str) -> None:
        """Text or thought text as it comes (from the part at ``path``); a thought's signature once it has one."""
        thought = part.native.get("thought") is True
        if text and part.block is None:
            part.block = self._emit.start("reasoning" if thought else "text")
        if part.block is not None:
            self._emit.text(part.block, text, f"{path}.text")
            if thought and "thoughtSignature" in part.native:
                self._emit.signature(part.block, part.native["thoughtSignature"], f"{path}.thoughtSignature")

    def _from_response(self, response: dict[str, Any]) -> Reply:
        return adapter.from_response(response, candidate=self._candidate)

    def _response(self, parts: list[dict[str, Any]]) -> dict[str, Any]:
        """The concatenated response with ``parts`` as the candidate's parts."""
        candidate = {**self._fields}
        if parts:
            candidate["content"] = {"role": "model", "parts": parts}
        if not candidate:  # no candidate at all: a blocked prompt
            return {**self._top, "candidates": []}
        return {**self._top, "candidates": [*([{}] * self._candidate), candidate]}

    def _read_part(self, part: _Part, j: int, path: str) -> Any:
        """The adapter's block for part ``j`` of the candidate, read by its part reader (``path``: where it came).

        A call's generated id and the issuer depend on the part's place, the model and the response id, which
        the reader passes as the adapter's candidate reading does; ``end()`` checks the block against it.
        """
        issuer, ids = self._ids
        return part_block(part.completed(), path, issuer, self._code, f"{ids}{j}")

    def _end(self, path: str) -> None:
        blocked = pick(pick(self._top, "promptFeedback"), "blockReason") is not None
        if pick(self._fields, "finishReason") is None and not blocked:
            return  # the stream never said why it stopped: the builder has no reply to give
        response = self._response([part.completed() for part in self._parts])
        reply = read_completed(self._from_response, response, path)
        self._emit.finish(reply, path, where={"provider_stop_reason": self._stop_path})


def events(stream: Iterable[object], *, candidate: int = 0) -> Iterator[StreamEvent]:
    """The neutral events of a whole Gemini stream."""
    return Reader(candidate=candidate).events(stream)


def fold(stream: Iterable[object], *, candidate: int = 0) -> Reply:
    """The reply a whole Gemini stream folds into: ``from_response`` of the chunks' concatenation."""
    return Reader(candidate=candidate).fold(stream)
