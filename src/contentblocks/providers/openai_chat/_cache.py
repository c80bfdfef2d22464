"""Cache breakpoints for OpenRouter: Anthropic's ``cache_control`` on content parts, read and written.

OpenRouter takes ``"cache_control": {"type": "ephemeral"}`` (optionally with ``"ttl": "5m"`` or ``"1h"``) on the
content parts of a Chat Completions message, as Anthropic does on its blocks, and passes it on to the model's
provider; Anthropic models take at most four breakpoints in a request
(https://openrouter.ai/docs/features/prompt-caching; the OpenRouter SDK's ``AnthropicCacheControlDirective``).

Writing (``dialect="openrouter"``): a block's breakpoint goes on the part the block is written as; a message's (and
a tool result's own) on the last part of the message it becomes, a string content becoming a list of parts. A
breakpoint on what is sent as no part (a tool call, reasoning, a refusal sent as the ``refusal`` field, a block
not sent at all) is reported, and so are all but the last four (each later one caches a longer prefix). A time to
live other than 300 or 3600 seconds is sent as the nearer of ``5m`` and ``1h`` and reported, and a five-minute one
before a one-hour one is sent as ``1h`` and reported (Anthropic takes the longer ones first).
Reading (``dialect="openrouter"``): a part's ``cache_control`` of that form becomes the block's ``cache``; any
other form stays in ``openai/cache_control`` metadata, as every native field without a neutral home.

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_chat
>>> message = cb.Message(role="user", content="A long document.", cache=cb.CacheBreakpoint(ttl=3600))
>>> sent = openai_chat.to_provider(cb.Conversation(messages=[message]), dialect="openrouter")
>>> sent.payload["messages"][0]["content"][0]["cache_control"], sent.losses
({'type': 'ephemeral', 'ttl': '1h'}, ())
>>> openai_chat.from_provider(sent.payload, dialect="openrouter")[0].content[0].cache
CacheBreakpoint(ttl=3600)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..._model._classes import Block, CacheBreakpoint, Message, ToolResultBlock
from ..._model._conversation import Conversation
from .._cache import HINT, breakpoints, ephemeral_breakpoint, ephemeral_control, longer_first
from .._contract import LossKind
from ._keys import NS

__all__ = ["LIMIT", "Breakpoints", "read_breakpoints"]

#: The breakpoints OpenRouter passes on in one request to an Anthropic model (Anthropic's own limit).
LIMIT = 4
#: The metadata a part's ``cache_control`` is kept in when ``cache`` cannot hold it.
CACHE_CONTROL = f"{NS}/cache_control"
_NOT_A_PART = "OpenRouter takes cache_control on content parts only, and this is sent as none; not sent"
_LONGER_FIRST = "Anthropic models take one-hour cache breakpoints only before five-minute ones; sent as 1h"
_OVER = f"OpenRouter passes at most {LIMIT} cache breakpoints to Anthropic models; only the last {LIMIT} are sent"


def _read(block: Block) -> Block:
    if isinstance(block, ToolResultBlock) and block.content:
        block = attrs.evolve(block, content=tuple(_read(part) for part in block.content))  # type: ignore[misc]
    cache = ephemeral_breakpoint(block.metadata.get(CACHE_CONTROL))
    if cache is None or block.cache is not None:
        return block
    metadata = {k: v for k, v in block.metadata.items() if k != CACHE_CONTROL}
    return attrs.evolve(block, cache=cache, metadata=metadata)


def read_breakpoints(conversation: Conversation) -> Conversation:
    """``conversation`` with each ``openai/cache_control`` of OpenRouter's form read as the block's ``cache``."""
    if not any(CACHE_CONTROL in b.metadata or isinstance(b, ToolResultBlock) for m in conversation for b in m.content):
        return conversation
    messages = [attrs.evolve(m, content=tuple(_read(b) for b in m.content)) for m in conversation]
    return Conversation(messages=tuple(messages))


class Breakpoints:
    """The breakpoints of one OpenRouter request as the messages are written (see the module)."""

    def __init__(self, loss: Callable[[str, str, LossKind], None]) -> None:
        self.loss = loss
        self.pending: dict[str, CacheBreakpoint] = {}
        self.marks: list[tuple[dict[str, Any], str]] = []

    def expect(self, message: Message, path: str) -> None:
        """Note the breakpoints of ``message`` (at ``path``), to be marked as its parts are written."""
        self.pending.update(breakpoints(message, path))

    def _mark(self, part: dict[str, Any], cache: CacheBreakpoint, where: str) -> None:
        control, exact = ephemeral_control(cache)
        if not exact:
            reason = (f"OpenRouter caches for 5 minutes or 1 hour only; a time to live of {cache.ttl} seconds "
                      f"is sent as {control['ttl']}")
            self.loss(f"{where}.ttl", reason, HINT)
        if "cache_control" in part:
            if part["cache_control"] != control:
                reason = "the part already carries the cache breakpoint of what it was written from; not sent"
                self.loss(where, reason, HINT)
            return
        part["cache_control"] = control
        self.marks.append((part, where))

    def part(self, part: dict[str, Any], path: str) -> None:
        """Mark ``part``, written from the block at ``path``, with the block's breakpoint if it has one."""
        cache = self.pending.pop(f"{path}.cache", None)
        if cache is not None:
            self._mark(part, cache, f"{path}.cache")

    def last(self, native: Mapping[str, Any] | None, path: str) -> None:
        """Mark the last part of the message ``native`` with the breakpoint of what is at ``path``.

        ``path`` is a message or a tool result; a string content becomes one text part; ``native`` is ``None``
        when nothing was sent for it.
        """
        cache = self.pending.pop(f"{path}.cache", None)
        if cache is None:
            return
        content = native.get("content") if native is not None else None
        if type(content) is str and content:
            content = [{"type": "text", "text": content}]
            native["content"] = content  # type: ignore[index]
        if not content:
            self.loss(f"{path}.cache", _NOT_A_PART, HINT)
            return
        self._mark(content[-1], cache, f"{path}.cache")

    def done(self, path: str) -> None:
        """Report the breakpoints of the message at ``path`` that no part took."""
        for where in [w for w in self.pending if w.startswith((f"{path}.", f"{path}["))]:
            del self.pending[where]
            self.loss(where, _NOT_A_PART, HINT)

    def limit(self) -> None:
        """Keep the last ``LIMIT`` breakpoints written; report the earlier ones."""
        for part, where in self.marks[:-LIMIT]:
            del part["cache_control"]
            self.loss(where, _OVER, HINT)
        longer_first(self.marks[-LIMIT:], lambda where: self.loss(where, _LONGER_FIRST, HINT))
