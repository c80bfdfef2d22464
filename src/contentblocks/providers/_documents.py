"""What a writer does with the document fields of a file and the locations of citations its target cannot carry.

A file may carry a ``title``, a ``context`` and a ``citable`` flag, and a citation a ``location`` in its source
(pages, characters or content blocks); Anthropic's documents hold all of them, most targets none. A writer that
cannot send one reports it, never drops it silently.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import attrs

from .._model._classes import Citation, FileBlock
from ._contract import LossKind

__all__ = ["DOCUMENT_FIELDS", "one_per_source", "report_document_fields", "report_locations", "report_other_sources"]

#: The fields of a file block that only a citable document has a place for.
DOCUMENT_FIELDS = ("title", "context", "citable")

Report = Callable[[str, str, LossKind], None]


def report_document_fields(
    block: FileBlock, path: str, report: Report, target: str, *, held: Collection[str] = ()
) -> None:
    """Report each document field of ``block`` that is set and not in ``held`` as dropped by ``target``.

    >>> from contentblocks import BytesSource, FileBlock
    >>> doc = FileBlock(media_type="application/pdf", source=BytesSource(data=b"%PDF"), title="Q3", citable=True)
    >>> report_document_fields(doc, "$[0]", lambda *loss: print(*loss, sep=" | "), "Gemini")
    $[0].title | Gemini has no document fields (title, context, citable); title dropped | content_dropped
    $[0].citable | Gemini has no document fields (title, context, citable); citable dropped | content_dropped
    """
    for name in DOCUMENT_FIELDS:
        if name not in held and getattr(block, name) is not None:
            reason = f"{target} has no document fields (title, context, citable); {name} dropped"
            report(f"{path}.{name}", reason, "content_dropped")


def report_locations(citations: Sequence[Citation], path: str, report: Report, target: str) -> None:
    """Report the ``location`` of each citation in ``citations`` (at ``path``) as dropped by ``target``."""
    for k, citation in enumerate(citations):
        if citation.location is not None:
            report(
                f"{path}.citations[{k}].location",
                f"{target} carry no place in the cited source; dropped",
                "content_dropped",
            )


def one_per_source(citations: Sequence[Citation]) -> list[Citation]:
    """``citations`` with each naming several sources split into one per source, in order (same span and quote).

    For a target whose citations name one source each: every source is written, none dropped.

    >>> from contentblocks import Citation, CitedReference, CitedUri
    >>> both = Citation(source=CitedUri(value="https://a.example"), other_sources=[CitedReference(value="kb-7")])
    >>> [c.source.value for c in one_per_source([both])]
    ['https://a.example', 'kb-7']
    """
    out: list[Citation] = []
    for citation in citations:
        if not citation.other_sources:
            out.append(citation)
            continue
        out.extend(attrs.evolve(citation, source=source, other_sources=())
                   for source in (citation.source, *citation.other_sources))  # fmt: skip
    return out


def report_other_sources(citations: Sequence[Citation], path: str, report: Report, target: str) -> None:
    """Report each citation of ``citations`` naming several sources, which ``target`` writes one per source."""
    for k, citation in enumerate(citations):
        if citation.other_sources:
            report(
                f"{path}.citations[{k}].other_sources",
                f"{target} name one source each; written as one citation per source (reads back as several)",
                "content_degraded",
            )
