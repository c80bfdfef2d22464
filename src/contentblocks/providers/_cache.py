"""Cache breakpoints on the way to a provider: where a conversation holds them, and reporting those not sent.

A breakpoint (``cache`` on a block or a message, ``cb.CacheBreakpoint``) is a hint: the provider may cache the
prompt up to and including what carries it. Anthropic writes it as ``cache_control``, and so does the Chat
adapter's ``openrouter`` dialect on content parts; every other writer reports each one as ``hint_not_sent``, with
its own reason (OpenAI's ``prompt_cache_breakpoint`` is not written yet), and sends everything else as before.
What the model reads never changes, so no ``strict=True`` raises on it.

>>> import contentblocks as cb
>>> message = cb.Message(role="user", content=[cb.TextBlock(text="Long document", cache=cb.CacheBreakpoint())],
...                      cache=cb.CacheBreakpoint(ttl=3600))
>>> [path for path, _ in breakpoints(message, "$[0]")]
['$[0].content[0].cache', '$[0].cache']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .._model._classes import (
    Block,
    CacheBreakpoint,
    Message,
    SearchResultBlock,
    ServerToolResultBlock,
    ToolResultBlock,
)
from ._contract import LossKind

__all__ = ["HINT", "breakpoints", "inner_breakpoints", "report_breakpoints"]

#: The loss kind every unsent breakpoint is reported as.
HINT: LossKind = "hint_not_sent"
#: The blocks whose content holds blocks, each of which may carry a breakpoint.
_HOLDERS = (ToolResultBlock, ServerToolResultBlock, SearchResultBlock)


def inner_breakpoints(block: Block, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """Each breakpoint on the parts ``block`` (at ``path``) holds, at any depth, in prompt order; not its own."""
    if isinstance(block, _HOLDERS):
        for k, part in enumerate(block.content):
            yield from _nested(part, f"{path}.content[{k}]")


def _nested(block: Block, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    yield from inner_breakpoints(block, path)
    if block.cache is not None:
        yield f"{path}.cache", block.cache


def breakpoints(message: Message, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """Each breakpoint of ``message`` (at ``path``) in prompt order, the message's own last.

    The parts a block holds (a tool result's, a search result's) come before the block itself; the message's own
    breakpoint stands after its last block.
    """
    for j, block in enumerate(message.content):
        yield from _nested(block, f"{path}.content[{j}]")
    if message.cache is not None:
        yield f"{path}.cache", message.cache


def report_breakpoints(loss: Callable[[str, str, LossKind], None], message: Message, path: str, reason: str) -> None:
    """Report every breakpoint of ``message`` as not sent, with ``reason`` (a writer with no place for any)."""
    for where, _ in breakpoints(message, path):
        loss(where, reason, HINT)
