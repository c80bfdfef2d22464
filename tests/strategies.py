"""Test-only Hypothesis strategies and helpers.

Re-exports the public strategies of :mod:`contentblocks.strategies` and adds wire-level ones: canonical raw
dicts (``unstructure`` of a valid object) and accepted non-canonical variants with their canonical forms.
``same_json`` compares two JSON-like values type-exactly (``True`` is not ``1``, ``1`` is not ``1.0``, ``-0.0``
is not ``0.0``, a tuple is not a list).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

import contentblocks as cb
from contentblocks._strategies_values import (
    binaries,
    filenames,
    free_texts,
    identifiers,
    media_types,
    opaque_references,
    trimmed_texts,
    uris,
    urls,
)
from contentblocks.strategies import (
    blocks,
    citations,
    conversations,
    file_blocks,
    file_sources,
    json_blocks,
    json_values,
    messages,
    metadata,
    reasoning_blocks,
    refusal_blocks,
    text_blocks,
    tool_call_blocks,
    tool_result_blocks,
)

__all__ = [
    "binaries",
    "blocks",
    "citations",
    "conversations",
    "file_blocks",
    "file_sources",
    "filenames",
    "first_difference",
    "free_texts",
    "identifiers",
    "json_blocks",
    "json_values",
    "media_types",
    "messages",
    "metadata",
    "noncanonical_wire_blocks",
    "opaque_references",
    "reasoning_blocks",
    "refusal_blocks",
    "same_json",
    "text_blocks",
    "tool_call_blocks",
    "tool_result_blocks",
    "trimmed_texts",
    "uris",
    "urls",
    "wire_blocks",
    "wire_conversations",
    "wire_messages",
]


def wire_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """Canonical raw blocks: what ``cb.unstructure`` writes for a valid block."""
    return blocks().map(cb.unstructure)


def wire_messages() -> st.SearchStrategy[dict[str, Any]]:
    """Canonical raw messages."""
    return messages().map(cb.unstructure)


def wire_conversations() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Canonical raw conversations (JSON arrays of messages)."""
    return conversations(max_messages=5).map(cb.unstructure)


@st.composite
def noncanonical_wire_blocks(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(raw, canonical)``: an accepted input that spells a block differently, and the form it comes out as.

    The accepted variants are empty optional collections written out, and tuples where lists go.
    """
    canonical = draw(wire_blocks())
    raw = dict(canonical)
    if "metadata" not in raw and draw(st.booleans()):
        raw["metadata"] = {}
    if raw["type"] == "text" and "citations" not in raw and draw(st.booleans()):
        raw["citations"] = []
    if raw["type"] == "tool_result" and draw(st.booleans()):
        raw["content"] = tuple(raw["content"])
    return raw, canonical


def first_difference(expected: Any, got: Any) -> str | None:
    """The JSON path and reason of the first type-exact difference between two values, or None."""
    stack = [("$", expected, got)]
    while stack:
        path, e, g = stack.pop()
        if type(e) is not type(g):
            return f"{path}: expected {type(e).__name__}, got {type(g).__name__}"
        if type(e) is dict:
            if list(e) != list(g) and set(e) != set(g):
                return f"{path}: keys differ"
            stack.extend((f"{path}[{k!r}]", e[k], g[k]) for k in e)
        elif type(e) in (list, tuple):
            if len(e) != len(g):
                return f"{path}: expected {len(e)} items, got {len(g)}"
            stack.extend((f"{path}[{i}]", a, b) for i, (a, b) in enumerate(zip(e, g, strict=True)))
        elif type(e) is float:
            if not (e == g and math.copysign(1.0, e) == math.copysign(1.0, g)):
                return f"{path}: floats differ"
        elif e != g:
            return f"{path}: values differ"
    return None


def same_json(expected: Any, got: Any) -> bool:
    """Whether two JSON-like values are equal type-exactly (the conformance runner's comparison)."""
    return first_difference(expected, got) is None
