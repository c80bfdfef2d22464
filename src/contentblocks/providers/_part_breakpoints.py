"""Cache breakpoints that a provider takes on content parts: OpenRouter's ``cache_control``, OpenAI's own marker.

Three request formats mark a breakpoint on the part where a cached prefix ends, each with its own field:

- OpenRouter (Chat Completions) takes Anthropic's ``"cache_control": {"type": "ephemeral"}``, with an optional
  ``"ttl"`` of ``"5m"`` or ``"1h"``, on any content part, and passes at most four to an Anthropic model, the
  one-hour ones first (https://openrouter.ai/docs/features/prompt-caching).
- OpenAI's Chat Completions (gpt-5.6 and later) takes ``"prompt_cache_breakpoint": {"mode": "explicit"}``, with an
  optional ``"ttl"`` of ``"30m"`` or ``"12h"``, on text, image, audio and file parts; the Responses API takes the
  same on ``input_text``, ``input_image`` and ``input_file`` parts, and on neither the instructions nor the
  assistant's output (the SDK's ``ChatCompletionContentPartTextParam`` and ``ResponseInputTextParam``). A request
  writes at most four and matching considers the latest 80 in the conversation, so none is left out here.

Writing: a block's breakpoint goes on the part the block is written as; a message's (and a tool result's own) on
the last part of what it becomes, a string content becoming a list of one text part. A breakpoint on what is sent
as no part that takes one is reported, and so is a time to live the format has no value for (sent as the nearer
one). Reading: a part's marker of the format's form becomes the block's ``cache``; any other value stays in
metadata, as every native field without a neutral home, and is written back where it fits the field.

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_chat
>>> message = cb.Message(role="user", content="A long document.", cache=cb.CacheBreakpoint(ttl=43200))
>>> sent = openai_chat.to_provider(cb.Conversation(messages=[message]))
>>> sent.payload["messages"][0]["content"][0]["prompt_cache_breakpoint"], sent.losses
({'mode': 'explicit', 'ttl': '12h'}, ())
>>> openai_chat.from_provider(sent.payload)[0].content[0].cache
CacheBreakpoint(ttl=43200)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import attrs

from .._model._classes import Block, CacheBreakpoint, Message, ToolResultBlock
from .._model._conversation import Conversation
from ._cache import EPHEMERAL, EXPLICIT, HINT, breakpoints, longer_first, unmarked
from ._contract import LossKind

__all__ = ["OPENAI_CHAT", "OPENAI_RESPONSES", "OPENROUTER", "Breakpoints", "PartForm", "read_markers"]


class PartForm(NamedTuple):
    """How one request format marks a breakpoint on a content part."""

    #: The part's field, and the metadata a value of another form is kept in.
    key: str
    meta: str
    read: Callable[[object], CacheBreakpoint | None]
    write: Callable[[CacheBreakpoint], tuple[dict[str, Any], bool]]
    #: The part types that take one (``None``: every part), and how the reasons name them and the format.
    parts: frozenset[str] | None
    where: str
    target: str
    lifetimes: str
    #: At most this many are sent, the last ones (``None``: all), one-hour ones first when ``longer_first``.
    limit: int | None = None
    longer_first: bool = False

    def not_a_part(self) -> str:
        return f"{self.target} takes {self.key} on {self.where} only, and this is sent as none; not sent"


OPENROUTER = PartForm(
    "cache_control", "openai/cache_control", EPHEMERAL.read, EPHEMERAL.write, None, "content parts",
    "OpenRouter", "5 minutes or 1 hour", limit=4, longer_first=True,
)  # fmt: skip
OPENAI_CHAT = PartForm(
    "prompt_cache_breakpoint", "openai/prompt_cache_breakpoint", EXPLICIT.read, EXPLICIT.write,
    frozenset({"text", "image_url", "input_audio", "file"}), "text, image, audio and file parts", "Chat Completions",
    "30 minutes or 12 hours",
)  # fmt: skip
OPENAI_RESPONSES = OPENAI_CHAT._replace(
    parts=frozenset({"input_text", "input_image", "input_file"}), where="input text, image and file parts",
    target="the Responses API",
)  # fmt: skip
_LONGER_FIRST = "Anthropic models take one-hour cache breakpoints only before five-minute ones; sent as 1h"


def _marked(block: Block, meta: str) -> bool:
    """Whether ``block``, or a part of a tool result, keeps a marker in ``meta``."""
    if meta in block.metadata:
        return True
    return type(block) is ToolResultBlock and any(meta in part.metadata for part in block.content)


def _read(block: Block, form: PartForm) -> Block:
    if type(block) is ToolResultBlock and block.content:
        block = attrs.evolve(block, content=tuple(_read(part, form) for part in block.content))  # type: ignore[misc]
    cache = form.read(block.metadata.get(form.meta))
    if cache is None or block.cache is not None:
        return block
    metadata = {k: v for k, v in block.metadata.items() if k != form.meta}
    return attrs.evolve(block, cache=cache, metadata=metadata)


def read_markers(conversation: Conversation, form: PartForm) -> Conversation:
    """``conversation`` with each marker of ``form`` its reader kept in metadata read as the block's ``cache``.

    Only the messages that hold one are built again.
    """
    meta = form.meta
    marked = [any(_marked(b, meta) for b in m.content) for m in conversation]
    if not any(marked):
        return conversation
    messages = [attrs.evolve(m, content=tuple(_read(b, form) for b in m.content)) if hit else m
                for m, hit in zip(conversation, marked, strict=True)]  # fmt: skip
    return Conversation(messages=tuple(messages))


class Breakpoints:
    """The breakpoints of one request in ``form``, marked as the messages are written (see the module)."""

    def __init__(self, loss: Callable[[str, str, LossKind], None], form: PartForm) -> None:
        self.loss = loss
        self.form = form
        self.pending: dict[str, CacheBreakpoint] = {}
        self.marks: list[tuple[dict[str, Any], str]] = []

    def expect(self, message: Message, path: str) -> None:
        """Note the breakpoints of ``message`` (at ``path``), to be marked as its parts are written."""
        if not unmarked(message):
            self.pending.update(breakpoints(message, path))

    def _takes(self, part: object) -> bool:
        return isinstance(part, dict) and (self.form.parts is None or part.get("type") in self.form.parts)

    def _mark(self, part: dict[str, Any], cache: CacheBreakpoint, where: str) -> None:
        form = self.form
        marker, exact = form.write(cache)
        if form.key in part and part[form.key] != marker:
            reason = "the part already carries the cache breakpoint of what it was written from; not sent"
            self.loss(where, reason, HINT)
            return
        if not exact:
            reason = (f"{form.target} caches for {form.lifetimes} only; a time to live of {cache.ttl} seconds "
                      f"is sent as {marker['ttl']}")  # fmt: skip
            self.loss(f"{where}.ttl", reason, HINT)
        if form.key not in part:
            part[form.key] = marker
            self.marks.append((part, where))

    def part(self, part: dict[str, Any], path: str) -> None:
        """Mark ``part``, written from the block at ``path``, with the block's breakpoint if it has one it takes."""
        if f"{path}.cache" in self.pending and self._takes(part):
            self._mark(part, self.pending.pop(f"{path}.cache"), f"{path}.cache")

    def last(self, native: dict[str, Any] | None, path: str, key: str = "content", text: str = "text") -> None:
        """Mark the last part of ``native[key]`` with the breakpoint of what is at ``path`` (a message, a result).

        A string there becomes one part of type ``text``; ``native`` is ``None`` when nothing was sent for it.
        """
        cache = self.pending.pop(f"{path}.cache", None)
        if cache is None:
            return
        content = native.get(key) if native is not None else None
        if type(content) is str and content:
            content = [{"type": text, "text": content}]
            native[key] = content  # type: ignore[index]
        if not content or not self._takes(content[-1]):
            self.loss(f"{path}.cache", self.form.not_a_part(), HINT)
            return
        self._mark(content[-1], cache, f"{path}.cache")

    def done(self, path: str) -> None:
        """Report the breakpoints of the message at ``path`` that no part took."""
        for where in [w for w in self.pending if w.startswith((f"{path}.", f"{path}["))]:
            del self.pending[where]
            self.loss(where, self.form.not_a_part(), HINT)

    def limit(self) -> None:
        """Keep the last ``form.limit`` breakpoints written, reporting the earlier ones; longer ones first."""
        form = self.form
        if form.limit is None:
            return
        for part, where in self.marks[: -form.limit]:
            del part[form.key]
            reason = (f"{form.target} passes at most {form.limit} cache breakpoints to Anthropic models; "
                      f"only the last {form.limit} are sent")  # fmt: skip
            self.loss(where, reason, HINT)
        if form.longer_first:
            longer_first(self.marks[-form.limit :], lambda where: self.loss(where, _LONGER_FIRST, HINT))
