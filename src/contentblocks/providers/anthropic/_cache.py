"""Cache breakpoints as Anthropic's ``cache_control``: read into ``cache``, written back, at most four a request.

Anthropic marks a breakpoint with ``"cache_control": {"type": "ephemeral"}`` on a content block (text, image,
document, search result, tool use, tool result and the server tools' blocks; not thinking), optionally with a
``ttl`` of ``"5m"`` (the default) or ``"1h"``, and takes at most four in a request
(https://docs.claude.com/en/docs/build-with-claude/prompt-caching; the SDK's ``CacheControlEphemeralParam``).
A breakpoint reads as ``CacheBreakpoint(ttl=None)``, ``300`` or ``3600``; any other time to live is written as
the nearer of the two and reported. A message's breakpoint goes on its last block Anthropic can mark.

>>> import contentblocks as cb
>>> read_cache({"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}})
CacheBreakpoint(ttl=3600)
>>> read_cache({"type": "text", "text": "hi", "cache_control": {"type": "persistent"}}) is None  # kept as metadata
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._model._classes import CacheBreakpoint
from .._cache import EPHEMERAL, HINT, longer_first
from .._contract import LossKind
from .._toolkit import key_path

__all__ = ["LIMIT", "MARKABLE", "Marks", "read_cache"]

#: The breakpoints Anthropic takes in one request.
LIMIT = 4
#: The block types whose request type has ``cache_control`` (``anthropic.types.*BlockParam``); thinking has none.
MARKABLE = frozenset({
    "text", "image", "document", "search_result", "tool_use", "tool_result", "server_tool_use",
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "tool_search_tool_result",
    "container_upload", "tool_reference", "mcp_tool_use", "mcp_tool_result",
})  # fmt: skip
_CACHE_CONTROL = "anthropic/cache_control"


def read_cache(raw: dict[str, Any]) -> CacheBreakpoint | None:
    """The breakpoint a native block's ``cache_control`` holds, or None.

    None also for a form the field cannot hold: the caller then keeps it as ``anthropic/cache_control`` metadata,
    as any native field with no neutral home.
    """
    return EPHEMERAL.read(raw.get("cache_control"))


class Marks:
    """The breakpoints of one request as it is written, then ``limit`` keeps the last four.

    Each native block marked is listed in prompt order, with the path to report it at.
    """

    def __init__(self, loss: Callable[[str, str, LossKind], None]) -> None:
        self.loss = loss
        self.system: list[tuple[dict[str, Any], str]] = []
        self.messages: list[tuple[dict[str, Any], str]] = []

    def control(self, cache: CacheBreakpoint, path: str) -> dict[str, Any]:
        """``cache_control`` for ``cache``; a time to live Anthropic does not have is sent as the nearer one."""
        control, exact = EPHEMERAL.write(cache)
        if not exact:
            reason = (f"Anthropic caches for 5 minutes or 1 hour only; a time to live of {cache.ttl} seconds is sent "
                      f"as {control['ttl']}")
            self.loss(f"{path}.ttl", reason, HINT)
        return control

    def block(self, native: dict[str, Any] | None, cache: CacheBreakpoint | None, path: str, *, system: bool) -> None:
        """Mark ``native`` (the block at ``path``, None when it was not sent) with its ``cache``, or report why not.

        A ``cache_control`` already there (from ``anthropic/cache_control`` metadata, or a verbatim native block)
        counts towards the limit too.
        """
        found = self.system if system else self.messages
        if cache is None:
            if native is not None and "cache_control" in native:
                found.append((native, key_path(path, _CACHE_CONTROL)))
            return
        if native is None:
            self.loss(f"{path}.cache", "the block is not sent to Anthropic, so neither is its cache breakpoint", HINT)
        elif native.get("type") not in MARKABLE:
            reason = f"Anthropic cannot mark a {native.get('type')} block as a cache breakpoint; not sent"
            self.loss(f"{path}.cache", reason, HINT)
        else:
            control = self.control(cache, f"{path}.cache")
            if native.get("cache_control", control) != control:
                reason = "the block's cache field is sent as its cache_control, in place of this one"
                self.loss(key_path(path, _CACHE_CONTROL), reason, "metadata_not_sent")
            native["cache_control"] = control
            found.append((native, f"{path}.cache"))

    def message(self, content: list[dict[str, Any]], cache: CacheBreakpoint | None, path: str, *, system: bool) -> None:
        """A message's breakpoint on the last block of ``content`` (what the message sent) Anthropic can mark."""
        if cache is None:
            return
        where = f"{path}.cache"
        last = next((n for n in reversed(content) if n.get("type") in MARKABLE), None)
        if last is None:
            reason = "no block of this message that Anthropic can mark is sent; its cache breakpoint is not sent"
            self.loss(where, reason, HINT)
            return
        if last is not content[-1]:
            reason = "sent on the message's last block Anthropic can mark, before blocks it cannot (thinking)"
            self.loss(where, reason, HINT)
        if "cache_control" in last:
            if last["cache_control"] != EPHEMERAL.write(cache)[0]:
                reason = "the message's last block carries a cache breakpoint of its own; the message's is not sent"
                self.loss(where, reason, HINT)
            return
        last["cache_control"] = self.control(cache, where)
        (self.system if system else self.messages).append((last, where))

    def limit(self) -> None:
        """Keep the last four breakpoints of the request (the system prompt's come first); report the others.

        The last ones are kept because each caches the longest prefix up to it, and Anthropic looks for earlier
        cached prefixes from there: a history marked turn after turn keeps its newest turns cached.
        """
        marked = self.system + self.messages
        cut = max(0, len(marked) - LIMIT)
        for native, where in marked[:cut]:
            native.pop("cache_control", None)
            reason = f"Anthropic takes at most {LIMIT} cache breakpoints in a request; the last {LIMIT} are sent"
            self.loss(where, reason, HINT)
        reason = "Anthropic takes one-hour cache breakpoints only before five-minute ones; sent as 1h"
        longer_first(marked[cut:], lambda where: self.loss(where, reason, HINT))
