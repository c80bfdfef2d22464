"""Cache breakpoints on the way to a provider: where a conversation holds them, and reporting those not sent.

A breakpoint (``cache`` on a block or a message, ``cb.CacheBreakpoint``) is a hint: the provider may cache the
prompt up to and including what carries it. Anthropic writes it as ``cache_control``; every other writer reports
each one as ``hint_not_sent``, with its own reason (OpenAI's ``prompt_cache_breakpoint`` and OpenRouter's
``cache_control`` are not written yet), and sends everything else as before. What the model reads never changes,
so no ``strict=True`` raises on it.

>>> import contentblocks as cb
>>> message = cb.Message(role="user", content=[cb.TextBlock(text="Long document", cache=cb.CacheBreakpoint())],
...                      cache=cb.CacheBreakpoint(ttl=3600))
>>> [path for path, _ in breakpoints(message, "$[0]")]
['$[0].content[0].cache', '$[0].cache']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .._model._classes import CacheBreakpoint, Message, ToolResultBlock
from ._contract import LossKind

__all__ = ["HINT", "breakpoints", "report_breakpoints"]

#: The loss kind every unsent breakpoint is reported as.
HINT: LossKind = "hint_not_sent"


def breakpoints(message: Message, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """Each breakpoint of ``message`` (at ``path``) in prompt order, the message's own last.

    A tool result's parts come before the result itself; the message's own breakpoint stands after its last block.
    """
    for j, block in enumerate(message.content):
        if isinstance(block, ToolResultBlock):
            for k, part in enumerate(block.content):
                if part.cache is not None:
                    yield f"{path}.content[{j}].content[{k}].cache", part.cache
        if block.cache is not None:
            yield f"{path}.content[{j}].cache", block.cache
    if message.cache is not None:
        yield f"{path}.cache", message.cache


def report_breakpoints(loss: Callable[[str, str, LossKind], None], message: Message, path: str, reason: str) -> None:
    """Report every breakpoint of ``message`` as not sent, with ``reason`` (a writer with no place for any)."""
    for where, _ in breakpoints(message, path):
        loss(where, reason, HINT)
