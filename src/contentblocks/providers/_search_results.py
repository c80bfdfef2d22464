"""What a writer whose target has no search result block sends instead: the result's readable parts, as text.

Anthropic alone takes a ``search_result`` block (citable content in a user turn or a tool result). Every other
target gets its title, its source and its text parts as one text block, reported ``content_degraded`` (it
reads back as text), and each citation of its parts and its ``citable`` flag reported ``content_dropped``:
the result is never dropped silently. The writers call :func:`without_search_results` (or
:func:`result_without_search_results` for one tool result) before they write, so that every loss points
into the conversation as given: a search result is replaced by one text block at its own place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from .._model._classes import (
    CacheBreakpoint,
    Message,
    SearchResultBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolResultBlock,
)
from .._model._conversation import Conversation
from ._contract import LossKind

__all__ = ["result_without_search_results", "search_result_cache", "search_result_text", "without_search_results"]

Report = Callable[[str, str, LossKind], None]
MessagesT = TypeVar("MessagesT", bound=Sequence[Message])
ResultT = TypeVar("ResultT", ToolResultBlock, ServerToolResultBlock)
#: The results whose content may hold search results: a tool's, and one a provider ran.
_RESULTS = (ToolResultBlock, ServerToolResultBlock)


def search_result_text(block: SearchResultBlock) -> str:
    """The readable text of a search result: its title, its source, then its text parts, a blank line apart.

    >>> import contentblocks as cb
    >>> result = cb.SearchResultBlock(source=cb.CitedUri(value="https://example.com/lawns"), title="Lawns",
    ...                               content=[cb.TextBlock(text="Grass is green."), cb.TextBlock(text="Mow weekly.")])
    >>> print(search_result_text(result))
    Search result: Lawns
    Source: https://example.com/lawns
    <BLANKLINE>
    Grass is green.
    <BLANKLINE>
    Mow weekly.
    """
    head = f"Search result: {block.title}\nSource: " if block.title is not None else "Search result from "
    return f"{head}{block.source.value}\n\n" + "\n\n".join(part.text for part in block.content)


def search_result_cache(block: SearchResultBlock) -> CacheBreakpoint | None:
    """The breakpoint of the text a search result becomes: its own, else its last part's (both end where it ends).

    >>> import contentblocks as cb
    >>> part = cb.TextBlock(text="Grass is green.", cache=cb.CacheBreakpoint(ttl=3600))
    >>> search_result_cache(cb.SearchResultBlock(source=cb.CitedUri(value="https://example.com"), content=[part]))
    CacheBreakpoint(ttl=3600)
    """
    return block.cache if block.cache is not None else block.content[-1].cache


def _as_text(block: SearchResultBlock, path: str, report: Report, target: str) -> TextBlock:
    reason = f"{target} has no search result block; sent as text (title, source and text; reads back as text)"
    report(path, reason, "content_degraded")
    for k, part in enumerate(block.content):
        if part.citations:
            report(f"{path}.content[{k}].citations", f"{target} has no search result block; citations dropped",
                   "content_dropped")  # fmt: skip
    if block.citable is not None:
        report(f"{path}.citable", f"{target} has no search result block; citable dropped", "content_dropped")
    cache = search_result_cache(block)
    for k, part in enumerate(block.content):
        if part.cache is not None and part.cache is not cache:
            reason = f"{target} has no search result block; a cache breakpoint on one of its parts is not sent"
            report(f"{path}.content[{k}].cache", reason, "hint_not_sent")
    return TextBlock(text=search_result_text(block), cache=cache, metadata=block.metadata)


def result_without_search_results(block: ResultT, path: str, report: Report, target: str) -> ResultT:
    """``block`` with each search result of its content as a text block (itself when it holds none)."""
    if SearchResultBlock not in map(type, block.content):
        return block
    content = [
        _as_text(part, f"{path}.content[{k}]", report, target) if type(part) is SearchResultBlock else part
        for k, part in enumerate(block.content)
    ]
    return attrs.evolve(block, content=content)


def _message(message: Message, path: str, report: Report, target: str) -> Message:
    content = tuple(
        _as_text(block, f"{path}.content[{j}]", report, target)
        if type(block) is SearchResultBlock
        else result_without_search_results(block, f"{path}.content[{j}]", report, target)  # type: ignore[type-var]
        if type(block) in _RESULTS
        else block
        for j, block in enumerate(message.content)
    )
    if all(new is old for new, old in zip(content, message.content, strict=True)):
        return message
    return attrs.evolve(message, content=content)  # its cache breakpoint and metadata stay


def _holds_one(message: Message) -> bool:
    for block in message.content:
        kind = type(block)
        if kind is SearchResultBlock or (kind in _RESULTS and SearchResultBlock in map(type, block.content)):  # type: ignore[union-attr]
            return True
    return False


def without_search_results(messages: MessagesT, report: Report, target: str) -> MessagesT:
    """``messages`` with every search result (in a user turn or a tool result) as a text block, each reported.

    The same object comes back when there is none; a ``Conversation`` for a ``Conversation``, else a tuple.
    """
    if not any(map(_holds_one, messages)):
        return messages
    written = [_message(m, f"$[{i}]", report, target) if _holds_one(m) else m for i, m in enumerate(messages)]
    if all(new is old for new, old in zip(written, messages, strict=True)):
        return messages
    return Conversation(messages=written) if isinstance(messages, Conversation) else tuple(written)  # type: ignore[return-value]
