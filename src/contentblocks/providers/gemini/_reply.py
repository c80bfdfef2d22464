"""Reading a ``generateContent`` response: one candidate as a message, with its citations, stop reason and usage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ..._checks._rules import IDENTIFIER, TITLE
from ..._errors import ValidationError
from ..._model._classes import Block, Citation, CitedUri, Message, TextBlock, ToolCallBlock
from .._contract import ISSUER_KEY, Reply, StopReason, Usage
from .._positions import position
from .._shapes import canonical, pick, snake
from .._toolkit import build, fail, model_family, obj, utf8_to_index
from .._usage import Count, read_usage
from ._grounding import grounding_blocks
from ._read import ISSUER, content_blocks
from ._wire import CONTENT, USAGE

__all__ = ["call_ids", "read_reply"]

_URI_SAFE = "%:/?#[]@!$&'()*+,;=-._~"
_FILTERED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY")
_ERRORS = ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "MISSING_THOUGHT_SIGNATURE")
#: ``finishReason`` in the neutral vocabulary; a value not listed is ``other`` (``STOP`` with calls is ``tool_use``).
FINISH_REASONS: dict[str, StopReason] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "CONTINUATION": "max_tokens",
    **dict.fromkeys((*_FILTERED, "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR"), "content_filter"),
    **dict.fromkeys((*_ERRORS, "MALFORMED_RESPONSE", "PUP_LIMITED_DISABLED"), "error"),
}
#: ``promptFeedback.blockReason`` (a prompt refused before any candidate) in the neutral vocabulary.
BLOCK_REASONS: dict[str, StopReason] = dict.fromkeys(
    ("SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY", "MODEL_ARMOR", "JAILBREAK"), "content_filter"
)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _offset(value: object, path: str) -> int:
    """A byte offset or part index, 0 when it is none (``position`` says what is refused)."""
    at = position(value, path)
    return at if at is not None and at >= 0 else 0


def _cited(uri: object) -> CitedUri | None:
    try:
        if type(uri) is str and not uri.isascii():
            uri = quote(uri, safe=_URI_SAFE)  # an IRI (non-ASCII path): percent-encode as RFC 3986 requires
        return CitedUri(value=uri)  # type: ignore[arg-type]
    except (ValidationError, UnicodeEncodeError, TypeError):  # a chunk with no usable URI (or a lone surrogate)
        return None  # cites nothing a reader could follow


def _add(extra: dict[int, list[Citation]], j: int, found: list[tuple[object, object]], start: int, end: int) -> None:
    """One citation of the sources ``found`` (URI and title each) for the span, if any has a usable URI.

    Several sources (a grounding support's chunks) are one citation naming them all; its title is theirs when
    they share one, else none, since a citation's title applies to every source it names.
    """
    cited = [(source, title) for uri, title in found if (source := _cited(uri)) is not None]
    if not cited:
        return
    names = {title.strip() if type(title) is str else None for _, title in cited}
    name = names.pop() if len(names) == 1 else None
    name = name if TITLE.accepts(name) else None  # a title no citation may hold is left out, not the citation
    sources = [source for source, _ in cited]
    extra.setdefault(j, []).append(
        Citation(source=sources[0], other_sources=sources[1:], title=name, start=start, end=end)
    )


def _on_text(text: str, start: int, end: int) -> bool:
    """Whether UTF-8 bytes ``start``..``end`` are a span of ``text`` that begins and ends on characters.

    >>> _on_text("日本", 3, 6), _on_text("日本", 1, 3), _on_text("日本", 3, 7), _on_text("日本", 6, 3)
    (True, False, False, False)
    """
    encoded = text.encode("utf-8", "surrogatepass")
    if not 0 <= start <= end <= len(encoded):
        return False
    return all(at == len(encoded) or encoded[at] & 0xC0 != 0x80 for at in (start, end))


def _chunk_source(chunk: object) -> tuple[object, object]:
    for kind, key in (("web", "uri"), ("retrievedContext", "uri"), ("maps", "uri"), ("image", "sourceUri")):
        ref = pick(chunk, kind)
        if ref is not None:
            return pick(ref, key), pick(ref, "title")
    return None, None


def grounding_citations(blocks: list[Block], candidate: Mapping[str, Any], issuer: str, path: str) -> list[Block]:
    """Attach ``groundingMetadata`` supports and ``citationMetadata`` to the text blocks they cite.

    Both count UTF-8 bytes on the wire: grounding segments within the part at ``partIndex``, citation
    metadata within the candidate's text (its non-thought text parts joined); spans become code points. A cited
    block records Gemini as the issuer of its citations (requests carry none, so sending them back loses nothing).
    An index or offset is read as google-genai reads it (``position``), or refused at its path under ``path``
    (the candidate's); one that is no position cites nothing (a chunk index) or counts as 0 (an offset).
    """
    extra: dict[int, list[Citation]] = {}
    grounding = pick(candidate, "groundingMetadata")
    chunks = _list(pick(grounding, "groundingChunks"))
    for s, support in enumerate(_list(pick(grounding, "groundingSupports"))):
        at = f"{path}.groundingMetadata.groundingSupports[{s}]"
        seg = pick(support, "segment")
        j = _offset(pick(seg, "partIndex"), f"{at}.segment.partIndex")
        start_b = _offset(pick(seg, "startIndex"), f"{at}.segment.startIndex")
        end_b = _offset(pick(seg, "endIndex"), f"{at}.segment.endIndex")
        indices = [position(k, f"{at}.groundingChunkIndices[{n}]")
                   for n, k in enumerate(_list(pick(support, "groundingChunkIndices")))]
        block = blocks[j] if j < len(blocks) else None
        if not isinstance(block, TextBlock) or not _on_text(block.text, start_b, end_b):
            continue  # a segment off its part's text cites nothing: the native metadata still holds it
        start, end = utf8_to_index(block.text, start_b), utf8_to_index(block.text, end_b)
        found = [_chunk_source(chunks[k]) if k is not None and 0 <= k < len(chunks) else (None, None)
                 for k in indices]  # fmt: skip
        _add(extra, j, found, start, end)
    texts = [(j, b.text) for j, b in enumerate(blocks) if type(b) is TextBlock]
    for n, c in enumerate(_list(pick(pick(candidate, "citationMetadata"), "citations"))):
        at = f"{path}.citationMetadata.citations[{n}]"
        start_b = _offset(pick(c, "startIndex"), f"{at}.startIndex")
        end_b = _offset(pick(c, "endIndex"), f"{at}.endIndex")
        offset = 0
        for j, text in texts:
            size = len(text.encode("utf-8", "surrogatepass"))
            if offset <= start_b < offset + size or (start_b == offset + size and j == texts[-1][0]):
                start, end = start_b - offset, min(end_b, offset + size) - offset
                found = [(pick(c, "uri"), pick(c, "title"))]
                _add(extra, j, found, utf8_to_index(text, start), utf8_to_index(text, end))
                break
            offset += size
    out = list(blocks)
    for j, cites in extra.items():
        b = out[j]
        assert type(b) is TextBlock  # noqa: S101 - only text blocks get citations
        meta = {**b.metadata, ISSUER_KEY: b.metadata.get(ISSUER_KEY, issuer)}
        out[j] = TextBlock(text=b.text, citations=b.citations + tuple(cites), metadata=meta)
    return out


#: The counts of ``usageMetadata`` (after ``canonical``, so by their wire names) and the ``Usage`` field of each.
_COUNTS: dict[str, Count | None] = {
    "promptTokenCount": "input_tokens",
    "candidatesTokenCount": "output_tokens",
    "cachedContentTokenCount": "cache_read_tokens",
    "thoughtsTokenCount": "reasoning_tokens",
    "totalTokenCount": "total_tokens",
    "toolUsePromptTokenCount": None,
}


def _usage(raw: object) -> Usage | None:
    return None if raw is None else read_usage(canonical(raw, USAGE, "$.usageMetadata"), _COUNTS, "$.usageMetadata")


def _text(raw: object, path: str) -> str | None:
    if raw is not None and type(raw) is not str:
        raise fail(path, "expected a string")
    return raw


def call_ids(model: str | None, response_id: str | None) -> tuple[str, str]:
    """The issuer of a candidate's blocks and the prefix of the ids generated for its calls that have none.

    The prefix names the response where its id makes a valid identifier, so that ids stay distinct across turns.

    >>> call_ids("gemini-2.5-flash", "resp_1"), call_ids(None, "no id!")
    (('gemini/gemini-2.5-flash', 'gemini_call_resp_1_'), ('gemini', 'gemini_call_0_'))
    """
    issuer = f"{ISSUER}/{model_family(model)}" if model else ISSUER
    named = response_id and IDENTIFIER.accepts(f"gemini_call_{response_id}_0")
    return issuer, f"gemini_call_{response_id}_" if named else "gemini_call_0_"


def _candidate(candidate: Mapping[str, Any], path: str, model: str | None, response_id: str | None) -> Message | None:
    """The assistant message of one candidate, or ``None`` when it has no parts."""
    content = pick(candidate, "content")
    if content is None:
        return None
    content = canonical(content, CONTENT, f"{path}.content")
    if not content.get("parts"):
        return None
    issuer, ids = call_ids(model, response_id)
    blocks = content_blocks({**content, "role": "model"}, f"{path}.content", issuer, [], ids)
    blocks = grounding_citations(blocks, candidate, issuer, path)
    blocks += grounding_blocks(candidate, issuer, ids, len(blocks))
    return build(Message, f"{path}.content", role="assistant", content=tuple(blocks))


def _once(raw: object, path: str) -> Any:
    """``raw`` (an object read with ``pick``), refused when it gives a field under both its names.

    Both names at once come from no dump form, so neither value can be trusted over the other, equal or not.
    """
    if isinstance(raw, Mapping):
        place = {key: n for n, key in enumerate(raw)}
        for key, n in place.items():
            twin = snake(key) if type(key) is str else key
            if twin != key and twin in place and raw[key] is not None and raw[twin] is not None:
                later = twin if place[twin] > n else key
                raise fail(f"{path}.{later}", f"the field {key} is given twice")
    return raw


def _error(raw: Mapping[str, Any]) -> None:
    """Refuse the API's error body (``{"error": {"code", "message", "status"}}``): it is no reply."""
    error = raw.get("error")
    if error is not None and not any(pick(raw, k) for k in ("candidates", "promptFeedback")):
        status = pick(error, "status")
        named = f" ({status})" if type(status) is str and status.isidentifier() and len(status) <= 64 else ""
        message = f"an API error{named}, not a response (the SDK raises google.genai.errors.APIError for it)"
        raise fail("$.error", message)


def read_reply(response: object, index: int) -> Reply:
    """The ``Reply`` for candidate ``index`` of a response, in any of its dump forms (see ``from_response``)."""
    raw = _once(obj(response, "$"), "$")
    _error(raw)
    model = _text(pick(raw, "modelVersion"), "$.modelVersion")
    response_id = _text(pick(raw, "responseId"), "$.responseId")
    usage = _usage(pick(raw, "usageMetadata"))
    candidates = pick(raw, "candidates") or []
    if not isinstance(candidates, list):
        raise fail("$.candidates", "expected an array")
    message: Message | None = None
    if index < len(candidates):
        path = f"$.candidates[{index}]"
        candidate = _once(obj(candidates[index], path), path)
        reason = _text(pick(candidate, "finishReason"), f"{path}.finishReason")
        message = _candidate(candidate, path, model, response_id)
        stop = None if reason is None else FINISH_REASONS.get(reason, "other")
        if stop == "end_turn" and message is not None and any(type(b) is ToolCallBlock for b in message.content):
            stop = "tool_use"
    elif index or candidates:
        raise fail("$.candidates", f"the response has no candidate {index}")
    else:  # no candidate at all: the prompt was blocked, and the feedback says why
        feedback = _once(pick(raw, "promptFeedback"), "$.promptFeedback")
        reason = _text(pick(feedback, "blockReason"), "$.promptFeedback.blockReason")
        stop = None if reason is None else BLOCK_REASONS.get(reason, "other")
    return Reply(
        message=message,
        stop_reason=stop,
        provider_stop_reason=reason,
        usage=usage,
        model=model,
        response_id=response_id,
        provider=ISSUER,
    )
