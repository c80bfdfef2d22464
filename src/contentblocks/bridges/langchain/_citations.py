"""LangChain's ``citation`` annotations and the neutral citations they say.

LangChain's ``start_index`` and ``end_index`` index the text block's Python string, code points as ours, but in
a Gemini message, whose UTF-8 byte offsets LangChain passes through. A neutral citation's reference source (not a
URL) goes into the annotation's ``extras`` under ``contentblocks/reference``.

>>> citations, exact = citations_of([{"type": "citation", "url": "https://a.example", "start_index": 0,
...                                   "end_index": 2}], "Hi there", in_bytes=False)
>>> citations[0]["source"], citations[0]["end"], exact
({'kind': 'uri', 'value': 'https://a.example'}, 2, True)
"""

from __future__ import annotations

from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Citation
from ...providers._toolkit import utf8_to_index
from .._wire import check
from ._fields import REFERENCE_EXTRA

__all__ = ["citations_of", "extras_taken"]

#: The keys of an annotation a neutral citation says all of (its ``extras``, once the reference is taken, none).
_EXACT_KEYS = frozenset({"type", "url", "title", "start_index", "end_index", "cited_text"})


def extras_taken(item: dict[str, Any], *keys: str) -> list[Any]:
    """The values of ``keys`` taken out of ``item["extras"]``; the extras left stay in ``item`` (gone if emptied)."""
    extras = item.get("extras")
    if not isinstance(extras, dict):
        return [None] * len(keys)
    extras = dict(extras)
    values = [extras.pop(key, None) for key in keys]
    if extras or not item["extras"]:
        item["extras"] = extras
    else:
        del item["extras"]
    return values


def _code_points(text: str, offset: object) -> tuple[Any, bool]:
    """A UTF-8 byte offset into ``text`` as a code-point index, and whether it falls between characters."""
    if type(offset) is not int:
        return offset, True
    index = utf8_to_index(text, offset)
    return index, len(text[:index].encode("utf-8", "surrogatepass")) == offset


def _given(**fields: Any) -> dict[str, Any]:
    """The fields that are given (``None`` is absent, as the classes read it)."""
    return {key: value for key, value in fields.items() if value is not None}


def _citation(raw: object, text: str, in_bytes: bool) -> tuple[dict[str, Any] | None, bool]:
    """A neutral citation (its wire dict) for one annotation, and whether it says all the annotation says."""
    if not isinstance(raw, dict) or raw.get("type") != "citation":
        return None, False
    if "extras" in raw:
        item = dict(raw)
        (reference,) = extras_taken(item, REFERENCE_EXTRA)
    else:  # read, not edited: no copy
        item, reference = raw, None
    exact = item.keys() <= _EXACT_KEYS and ("start_index" in item) == ("end_index" in item)
    url = item.get("url")
    if url is not None:
        source = {"kind": "uri", "value": url}
        exact &= reference is None
    elif reference is not None:
        source = {"kind": "reference", "value": reference}
    else:
        return None, False
    try:
        start, end = item.get("start_index"), item.get("end_index")
        if in_bytes:
            (start, exact_start), (end, exact_end) = _code_points(text, start), _code_points(text, end)
            exact &= exact_start and exact_end
        citation = check(_given(source=source, title=item.get("title"), quote=item.get("cited_text"), start=start,
                                end=end), Citation)  # fmt: skip
    except (ValidationError, TypeError):
        return None, False
    return citation, exact


def citations_of(raw: object, text: str, in_bytes: bool) -> tuple[list[dict[str, Any]], bool]:
    """Neutral citations (wire dicts) for LangChain's ``annotations`` on ``text``, and whether they say it all.

    LangChain's ``start_index`` and ``end_index`` index the text block's Python string, code points as ours, but
    for Gemini, whose UTF-8 byte offsets LangChain passes through (``in_bytes``).
    """
    if raw is None:
        return [], True
    if not isinstance(raw, list) or not raw:
        return [], False
    citations, exact = [], True
    for annotation in raw:
        citation, same = _citation(annotation, text, in_bytes)
        exact &= same
        if citation is not None:
            citations.append(citation)
    return citations, exact
