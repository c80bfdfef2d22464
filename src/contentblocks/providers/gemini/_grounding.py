r"""Gemini's grounding tools as tools the provider ran: Google Search (``groundingMetadata``) and URL context.

A candidate grounded with Google Search carries ``groundingMetadata`` beside its content: the queries the model
ran (``webSearchQueries``), the sources it read (``groundingChunks``), which spans of its text they back
(``groundingSupports``, read as citations by ``_reply``) and the search widget it asks you to show
(``searchEntryPoint``). That is a tool Gemini ran, so it reads as one: a ``server_tool_call`` named
``google_search`` whose input is ``{"queries": [...]}``, and a ``server_tool_result`` holding one text per source
(its title, its URI on the next line, and a retrieved context's own text after a blank line), both issued by
Gemini, the native ``groundingMetadata`` kept whole in the result's ``gemini/grounding``. ``urlContextMetadata``
(the URL context tool) reads the same way: a ``url_context`` call with ``{"urls": [...]}`` and a result with one
text per URL and its retrieval status, the native object in ``gemini/url_context``.

The two blocks follow the candidate's parts (the grounding arrives after the text, in the last chunk of a stream)
and take the ids the reader makes for calls without one, flagged ``gemini/generated_id``. The result's texts
are plain: the URI is in the text any model reads, and a citation on it would only be reported dropped by every
writer that sends it elsewhere. Grounding is response-only (a request ``Content`` has no ``groundingMetadata``),
so writing back to Gemini sends neither block and reports nothing, as Gemini's own citations; another provider
gets the result's texts, as any tool a provider ran (see ``_server_tools``).

>>> candidate = {"groundingMetadata": {"webSearchQueries": ["who won euro 2024"], "groundingChunks": [
...     {"web": {"uri": "https://www.uefa.com/euro2024/", "title": "uefa.com"}}]}}
>>> call, result = grounding_blocks(candidate, "gemini", "g_", 1)
>>> call.tool_name, list(call.input["queries"]), call.tool_call_id == result.tool_call_id
('google_search', ['who won euro 2024'], True)
>>> result.content[0].text
'uefa.com\nhttps://www.uefa.com/euro2024/'
"""

from __future__ import annotations

import base64
import enum
from collections.abc import Mapping
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Block, ServerToolCallBlock, ServerToolResultBlock, TextBlock
from .._contract import ISSUER_KEY
from .._shapes import pick
from ._wire import NS

__all__ = ["GROUNDING", "GROUNDING_TOOLS", "URL_CONTEXT", "grounding_blocks", "native_grounding"]

#: The metadata of a ``google_search`` result holding the native ``groundingMetadata``.
GROUNDING = f"{NS}/grounding"
#: The metadata of a ``url_context`` result holding the native ``urlContextMetadata``.
URL_CONTEXT = f"{NS}/url_context"
#: The tools whose blocks the reader makes from a candidate's metadata, and the key holding each one's native form.
GROUNDING_TOOLS: dict[str, str] = {"google_search": GROUNDING, "google_maps": GROUNDING, "retrieval": GROUNDING,
                                   "url_context": URL_CONTEXT}  # fmt: skip
_GENERATED = f"{NS}/generated_id"
#: The chunk kinds of ``groundingChunks``, the tool each comes from and the keys of its URI and of its own text.
_CHUNKS = (("web", "google_search", "uri", None), ("retrievedContext", "retrieval", "uri", "text"),
           ("maps", "google_maps", "uri", "text"), ("image", "google_search", "sourceUri", None))  # fmt: skip
_DEPTH = 64
_INTEGRAL = frozenset({"groundingChunkIndices", "partIndex", "startIndex", "endIndex"})


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _wire_json(value: object, depth: int = 0, integral: bool = False) -> Any:
    """``value`` in the REST form (camelCase keys, no nulls, bytes as standard base64, enums as values).

    An index or offset (``integral``) given as a number without a fraction is the integer it equals, as
    google-genai reads it. Raises ``ValueError`` past ``_DEPTH`` levels: no grounding object nests so deep.
    """
    if depth > _DEPTH:
        raise ValueError("nested too deep")
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if v is not None:
                key = _camel(k) if type(k) is str else k
                out[key] = _wire_json(v, depth + 1, key in _INTEGRAL)
        return out
    if isinstance(value, list | tuple):
        return [_wire_json(v, depth + 1, integral) for v in value]
    if integral and type(value) is float and value.is_integer():
        return int(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    return value


def native_grounding(value: object) -> Any:
    """The native object in the REST form, or ``None`` when it nests too deep (the block checks the rest)."""
    try:
        return _wire_json(value)
    except (ValueError, TypeError, RecursionError):
        return None


def _holds(value: object) -> bool:
    """Whether ``value`` is a non-empty string a block may hold (no lone surrogate)."""
    try:
        return type(value) is str and value != "" and bool(value.encode())
    except UnicodeEncodeError:
        return False


def _strings(values: object) -> list[str]:
    return [v for v in values if _holds(v)] if isinstance(values, list) else []


def _text(*lines: object) -> TextBlock | None:
    """One text of the non-empty strings among ``lines`` (a blank line before a third, the source's own text)."""
    kept = [line.strip() for line in lines[:2] if type(line) is str and line.strip()]
    body = lines[2] if len(lines) > 2 and type(lines[2]) is str and lines[2].strip() else None
    text = "\n".join(kept) + (f"\n\n{body}" if body is not None and kept else body or "")
    try:
        return TextBlock(text=text) if text else None
    except ValidationError:  # a lone surrogate: that source has no readable text
        return None


def _pair(tool: str, query: dict[str, Any], texts: list[TextBlock], native: Any, key: str, issuer: str,
          call_id: str) -> list[Block]:  # fmt: skip
    flags = {ISSUER_KEY: issuer, _GENERATED: True}
    try:
        call = ServerToolCallBlock(tool_call_id=call_id, tool_name=tool, input=query, metadata=flags)
    except ValidationError:  # past a limit (a query longer than any text may be): no block
        return []
    for kept in ({key: native}, {}) if native is not None else ({},):
        try:  # the native object as metadata, unless no metadata value holds it (a NaN, a lone surrogate)
            result = ServerToolResultBlock(
                tool_call_id=call_id, tool_name=tool, outcome="succeeded", content=texts, metadata={**flags, **kept}
            )
        except ValidationError:
            continue
        return [call, result]
    return []


def _search(grounding: object, issuer: str, call_id: str) -> list[Block]:
    queries = _strings(pick(grounding, "webSearchQueries")) or _strings(pick(grounding, "retrievalQueries"))
    chunks = pick(grounding, "groundingChunks")
    texts: list[TextBlock] = []
    tool = None
    for chunk in chunks if isinstance(chunks, list) else []:
        for kind, name, uri_key, body_key in _CHUNKS:
            ref = pick(chunk, kind)
            if isinstance(ref, Mapping):
                tool = tool or name
                body = pick(ref, body_key) if body_key else None
                text = _text(pick(ref, "title"), pick(ref, uri_key), body)
                if text is not None:
                    texts.append(text)
                break
    if not queries and not texts and pick(grounding, "searchEntryPoint") is None:
        return []
    tool = "google_search" if pick(grounding, "webSearchQueries") or tool is None else tool
    return _pair(tool, {"queries": queries}, texts, native_grounding(grounding), GROUNDING, issuer, call_id)


def _urls(context: object, issuer: str, call_id: str) -> list[Block]:
    entries = pick(context, "urlMetadata")
    urls: list[str] = []
    texts: list[TextBlock] = []
    for entry in entries if isinstance(entries, list) else []:
        url, status = pick(entry, "retrievedUrl"), pick(entry, "urlRetrievalStatus")
        if _holds(url):
            urls.append(url)
            text = _text(url, status if type(status) is str else None)
            if text is not None:
                texts.append(text)
    if not urls:
        return []
    return _pair("url_context", {"urls": urls}, texts, native_grounding(context), URL_CONTEXT, issuer, call_id)


def grounding_blocks(candidate: Mapping[str, Any], issuer: str, ids: str, parts: int) -> list[Block]:
    """The call and result blocks of a candidate's grounding and URL context, to follow its ``parts`` parts.

    ``ids`` prefixes the ids made for them (as for calls without one): the part count, then one more. Nothing
    here refuses: a field of the wrong shape gives no block (the candidate's citations still read the rest).
    """
    blocks = _search(pick(candidate, "groundingMetadata"), issuer, f"{ids}{parts}")
    return blocks + _urls(pick(candidate, "urlContextMetadata"), issuer, f"{ids}{parts + len(blocks) // 2}")
