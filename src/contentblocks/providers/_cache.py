"""Cache breakpoints on the way to a provider: where a conversation holds them, and reporting those not sent.

A breakpoint (``cache`` on a block or a message, ``cb.CacheBreakpoint``) is a hint: the provider may cache the
prompt up to and including what carries it. Anthropic writes it as ``cache_control`` on its blocks; OpenAI's
``prompt_cache_breakpoint`` and OpenRouter's ``cache_control`` go on content parts (``_part_breakpoints``); every
other writer reports each one as ``hint_not_sent``, with its own reason, and sends everything else as before.
What the model reads never changes, so no ``strict=True`` raises on it.

>>> import contentblocks as cb
>>> message = cb.Message(role="user", content=[cb.TextBlock(text="Long document", cache=cb.CacheBreakpoint())],
...                      cache=cb.CacheBreakpoint(ttl=3600))
>>> [path for path, _ in breakpoints(message, "$[0]")]
['$[0].content[0].cache', '$[0].cache']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .._model._classes import (
    Block,
    CacheBreakpoint,
    Message,
    SearchResultBlock,
    ServerToolResultBlock,
    ToolResultBlock,
)
from ._contract import LossKind

__all__ = [
    "EPHEMERAL",
    "EXPLICIT",
    "HINT",
    "MarkerForm",
    "breakpoints",
    "inner_breakpoints",
    "longer_first",
    "report_breakpoints",
    "unmarked",
]

#: The loss kind every unsent breakpoint is reported as.
HINT: LossKind = "hint_not_sent"
#: The blocks whose content holds blocks, each of which may carry a breakpoint.
_HOLDERS = frozenset({ToolResultBlock, ServerToolResultBlock, SearchResultBlock})


def inner_breakpoints(block: Block, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """Each breakpoint on the parts ``block`` (at ``path``) holds, at any depth, in prompt order; not its own."""
    if type(block) in _HOLDERS:
        yield from _within(block.content, path)  # type: ignore[union-attr]


def _within(blocks: Sequence[Block], path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """The breakpoints of ``blocks`` (the content at ``path``), each one's parts before itself."""
    holders = _HOLDERS
    for j, block in enumerate(blocks):
        if type(block) in holders:  # a holder's parts come before it: the rare case gets the recursion
            yield from _within(block.content, f"{path}.content[{j}]")  # type: ignore[union-attr]
        if block.cache is not None:
            yield f"{path}.content[{j}].cache", block.cache


def breakpoints(message: Message, path: str) -> Iterator[tuple[str, CacheBreakpoint]]:
    """Each breakpoint of ``message`` (at ``path``) in prompt order, the message's own last.

    The parts a block holds (a tool result's, a search result's) come before the block itself; the message's own
    breakpoint stands after its last block.
    """
    yield from _within(message.content, path)
    if message.cache is not None:
        yield f"{path}.cache", message.cache


def unmarked(message: Message) -> bool:
    """Whether ``message`` holds no cache breakpoint at any depth, as most do: a flat loop, no generators.

    A holder within a holder (a search result in a tool result) is not looked into: it answers ``False``, which
    sends the caller to :func:`breakpoints`.
    """
    if message.cache is not None:
        return False
    holders = _HOLDERS
    for block in message.content:
        if block.cache is not None:
            return False
        if type(block) in holders:
            for part in block.content:  # type: ignore[union-attr]
                if part.cache is not None or type(part) in holders:
                    return False
    return True


def report_breakpoints(loss: Callable[[str, str, LossKind], None], message: Message, path: str, reason: str) -> None:
    """Report every breakpoint of ``message`` as not sent, with ``reason`` (a writer with no place for any)."""
    if unmarked(message):
        return
    for where, _ in breakpoints(message, path):
        loss(where, reason, HINT)


class MarkerForm(NamedTuple):
    """A provider's object marking a breakpoint: the member that tags it, and the lifetimes its ``ttl`` names.

    Anthropic's (which OpenRouter takes too) is ``{"type": "ephemeral"}`` with ``"ttl": "5m"`` or ``"1h"``; OpenAI's
    ``{"mode": "explicit"}`` with ``"ttl": "30m"`` or ``"12h"``. A time to live the form does not name is sent as the
    nearest one it does (the shorter at a tie).
    """

    tag: tuple[str, str]
    ttls: Mapping[str, int]

    def read(self, marker: object) -> CacheBreakpoint | None:
        """The breakpoint ``marker`` stands for, or None for a value of another form (kept as metadata).

        >>> EPHEMERAL.read({"type": "ephemeral", "ttl": "1h"}), EPHEMERAL.read({"type": "persistent"})
        (CacheBreakpoint(ttl=3600), None)
        """
        key, value = self.tag
        if not isinstance(marker, Mapping) or marker.get(key) != value or not marker.keys() <= {key, "ttl"}:
            return None
        if "ttl" not in marker:
            return CacheBreakpoint()
        seconds = self.ttls.get(marker["ttl"]) if type(marker["ttl"]) is str else None
        return None if seconds is None else CacheBreakpoint(ttl=seconds)

    def write(self, cache: CacheBreakpoint) -> tuple[dict[str, Any], bool]:
        """The marker for ``cache``, and whether it says the same (a lifetime the form names, or none).

        >>> EPHEMERAL.write(CacheBreakpoint(ttl=600)), EXPLICIT.write(CacheBreakpoint(ttl=43200))
        (({'type': 'ephemeral', 'ttl': '5m'}, False), ({'mode': 'explicit', 'ttl': '12h'}, True))
        """
        key, value = self.tag
        if cache.ttl is None:
            return {key: value}, True
        ttl = cache.ttl
        name = min(self.ttls, key=lambda n: (abs(self.ttls[n] - ttl), self.ttls[n]))
        return {key: value, "ttl": name}, self.ttls[name] == ttl


#: Anthropic's ``cache_control`` (https://docs.claude.com/en/docs/build-with-claude/prompt-caching).
EPHEMERAL = MarkerForm(("type", "ephemeral"), {"5m": 300, "1h": 3600})
#: OpenAI's ``prompt_cache_breakpoint`` (the SDK's ``PromptCacheBreakpoint``, gpt-5.6 and later).
EXPLICIT = MarkerForm(("mode", "explicit"), {"30m": 1800, "12h": 43200})


def longer_first(marked: Sequence[tuple[dict[str, Any], str]], report: Callable[[str], None]) -> None:
    """Send every breakpoint before the last one-hour one of ``marked`` (prompt order) for an hour too.

    Anthropic refuses a request whose one-hour breakpoints do not all come before its five-minute ones. Raising
    the earlier ones keeps each prefix cached at least as long as asked, at the one-hour write price; lowering the
    later ones would not. ``report`` is called with the path of each one changed.
    https://docs.claude.com/en/docs/build-with-claude/prompt-caching#mixing-different-ttls
    """
    controls = [native.get("cache_control") for native, _ in marked]
    last = max((i for i, c in enumerate(controls) if type(c) is dict and c.get("ttl") == "1h"), default=0)
    for (native, where), control in zip(marked[:last], controls, strict=False):
        if type(control) is dict and control.get("ttl") != "1h":
            native["cache_control"] = {**control, "ttl": "1h"}
            report(where)
