"""Annotations of an ``output_text`` part and the citations they give, both ways.

``url_citation`` becomes a citation of its URL with its span (the title when it is a clean title);
``file_citation`` a citation of the file id at its index (the filename as title); ``container_file_citation`` a
citation of the file id with its span; ``file_path`` and any annotation type not known here give none. Spans
are code-point indices into the part's text, as the API gives them. The annotation list itself is kept when the
citations alone would not rebuild it, so every annotation goes back as it came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._errors import ValidationError
from ..._json._values import thaw
from ..._model._classes import Citation, CitedReference, CitedUri
from .._documents import one_per_source
from .._toolkit import is_title


def _citation(ann: Mapping[str, Any]) -> Citation | None:
    kind = ann.get("type")
    title = ann.get("title" if kind == "url_citation" else "filename")
    title = title if is_title(title) else None
    if kind == "url_citation":
        return Citation(source=CitedUri(value=ann["url"]), title=title, start=ann["start_index"], end=ann["end_index"])
    if kind == "file_citation":
        index = ann["index"]
        return Citation(source=CitedReference(value=ann["file_id"]), title=title, start=index, end=index)
    if kind == "container_file_citation":
        return Citation(
            source=CitedReference(value=ann["file_id"]), title=title, start=ann["start_index"], end=ann["end_index"]
        )
    return None


def citations_from_annotations(text: str, annotations: Sequence[Any]) -> tuple[Citation, ...]:
    """The citations of the annotations that have one and fit ``text``; the others give none.

    >>> url = {"type": "url_citation", "url": "https://a.io", "title": "Report", "start_index": 4, "end_index": 14}
    >>> path = {"type": "file_path", "file_id": "file-1", "index": 0}
    >>> [c.source.value for c in citations_from_annotations("See the report.", [url, path])]
    ['https://a.io']
    """
    out = []
    for ann in annotations:
        if not isinstance(ann, Mapping):
            continue
        try:
            citation = _citation(ann)
        except (ValidationError, KeyError):
            continue
        if citation is not None and citation.end is not None and citation.end <= len(text):
            out.append(citation)
    return tuple(out)


def kept_annotations(kept: object) -> bool:
    """Whether ``kept`` (an ``openai/annotations`` entry) is a list of annotation objects, as reading keeps it."""
    return isinstance(kept, list) and all(isinstance(a, dict) and type(a.get("type")) is str for a in kept)


def annotations_for(text: str, citations: Sequence[Citation], kept: object) -> list[Any]:
    """The annotations for ``citations``: ``kept`` verbatim while it still gives exactly these citations.

    >>> from contentblocks import Citation, CitedUri
    >>> annotations_for("Hi there", [Citation(source=CitedUri(value="https://a.io"), start=0, end=2)], None)
    [{'type': 'url_citation', 'url': 'https://a.io', 'title': '', 'start_index': 0, 'end_index': 2}]
    """
    if kept_annotations(kept) and citations_from_annotations(text, kept) == tuple(citations):  # type: ignore[arg-type]
        return thaw(kept)  # type: ignore[no-any-return]
    out: list[Any] = []
    for c in one_per_source(citations):  # an annotation names one source: one per source, same span
        start = 0 if c.start is None else c.start
        end = len(text) if c.end is None else c.end
        if type(c.source) is CitedUri:
            out.append(
                {
                    "type": "url_citation",
                    "url": c.source.value,
                    "title": c.title or "",
                    "start_index": start,
                    "end_index": end,
                }
            )
        else:
            out.append({"type": "file_citation", "file_id": c.source.value, "filename": c.title or "", "index": start})
    return out
