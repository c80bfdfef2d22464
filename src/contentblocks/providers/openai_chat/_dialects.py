"""The reasoning of OpenAI-compatible servers: where each dialect puts it in a message, and when it goes back.

OpenAI's own Chat Completions has no reasoning field. Compatible servers add one to the assistant message (and
to its stream deltas), each its own way:

- ``deepseek`` and ``moonshot`` (Kimi): ``reasoning_content``, a string;
- ``openrouter``: ``reasoning`` (a string) and ``reasoning_details``, typed items (``reasoning.text`` with an
  optional ``signature``, ``reasoning.summary``, ``reasoning.encrypted``), each with ``id``, ``format`` and
  ``index``; the string is the text of the items, so the items are what is read and sent back;
- ``vllm``: ``reasoning`` (``reasoning_content`` before vLLM 0.11); ``ollama``: ``reasoning``.

Reading, the field becomes ``ReasoningBlock`` s placed before the message's text and tool calls, marked as issued
by the dialect (``contentblocks/issuer``), so that they go back to that dialect only. An OpenRouter item keeps its
``id``, ``format`` and ``index`` in ``openai/reasoning_detail``; its signature is the block's ``signature`` and
its encrypted ``data`` the block's ``redacted`` (as the UTF-8 bytes of the string), both sent back unmodified.
An item no block can hold (of another type, or empty) is kept verbatim in the message's metadata.

Writing, reasoning goes back only where the dialect takes it: OpenRouter's items on every assistant message,
Moonshot's ``reasoning_content`` on every assistant message (its guide: keep it in the context), and DeepSeek's
on the assistant messages of the current turn (after the last user message) and of earlier turns that called
tools (its guide: their reasoning must be passed back in every later request, or the API answers 400; the
reasoning of other turns is ignored, so it is not sent). OpenAI, vLLM and Ollama take none.

>>> tool_turns([("user", False), ("assistant", True), ("tool", False), ("assistant", False),
...             ("user", False), ("assistant", False), ("user", False), ("assistant", True)])
frozenset({1, 3, 7})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, get_args

import attrs

from ..._model._classes import ReasoningBlock
from .._contract import ISSUER_KEY
from .._toolkit import build, field, obj, plain, present
from ._keys import OTHER_REASONING_DETAILS, REASONING_DETAIL

__all__ = [
    "DIALECTS",
    "SPECS",
    "Dialect",
    "Spec",
    "derived_reasoning",
    "read_reasoning",
    "tool_turns",
]

Dialect: TypeAlias = Literal["openai", "deepseek", "moonshot", "openrouter", "vllm", "ollama"]
"""The OpenAI-compatible server a Chat Completions payload is read from or written for (``"openai"`` by default)."""

#: Every dialect, in the order above.
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)

Replay: TypeAlias = Literal["never", "tool_turns", "always"]


@attrs.frozen
class Spec:
    """Where one dialect puts reasoning and when it takes it back.

    Attributes:
        name: how loss reasons name the server.
        reads: the assistant message's string fields that hold reasoning, the preferred first.
        details: whether ``reasoning_details`` items are read (OpenRouter).
        replay: which assistant messages' reasoning goes back: ``never``, ``always``, or DeepSeek's
            ``tool_turns`` (see the module).
        writes: the field reasoning text goes back in (``None`` where it never goes back).
    """

    name: str
    reads: tuple[str, ...] = ()
    details: bool = False
    replay: Replay = "never"
    writes: str | None = None


SPECS: dict[Dialect, Spec] = {
    "openai": Spec("Chat Completions"),
    "deepseek": Spec("DeepSeek", ("reasoning_content",), replay="tool_turns", writes="reasoning_content"),
    "moonshot": Spec("Moonshot", ("reasoning_content",), replay="always", writes="reasoning_content"),
    "openrouter": Spec("OpenRouter", ("reasoning",), details=True, replay="always", writes="reasoning"),
    "vllm": Spec("vLLM", ("reasoning", "reasoning_content")),
    "ollama": Spec("Ollama", ("reasoning",)),
}

#: The text-bearing field of each ``reasoning_details`` item type, and the block field its state goes in.
_TEXT = {"reasoning.text": "text", "reasoning.summary": "summary"}


def _detail(item: object, path: str, issuer: str) -> ReasoningBlock | dict[str, Any]:
    """One ``reasoning_details`` item as a reasoning block, or the item itself when no block can hold it.

    An item of a type this adapter does not know, or with nothing in it (no text, summary, signature or data),
    is given back as it came, for the message's metadata.
    """
    raw = present(obj(plain(item), path))
    kind = field(raw, "type", str, path)
    meta: dict[str, Any] = {ISSUER_KEY: issuer}
    if kind == "reasoning.encrypted":
        data = field(raw, "data", str, path, optional=True)
        if not data:
            return raw
        meta[REASONING_DETAIL] = {k: v for k, v in raw.items() if k != "data"}
        return build(ReasoningBlock, path, redacted=data.encode("utf-8"), metadata=meta)
    key = _TEXT.get(kind)
    if key is None:
        return raw
    text = field(raw, key, str, path, optional=True)
    signature = field(raw, "signature", str, path, optional=True) if kind == "reasoning.text" else None
    if not (text or signature):
        return raw
    kept = {k: v for k, v in raw.items() if k not in {key, "signature"} or (k == key and text == "")}
    if signature == "":
        kept["signature"] = ""
    meta[REASONING_DETAIL] = kept
    return build(ReasoningBlock, path, text=text or None, signature=signature or None, metadata=meta)


def derived_reasoning(blocks: Sequence[ReasoningBlock]) -> str:
    """The ``reasoning`` string OpenRouter derives from its items: their texts and summaries, joined."""
    return "".join(b.text or "" for b in blocks)


def read_reasoning(
    raw: dict[str, Any], path: str, dialect: Dialect
) -> tuple[list[ReasoningBlock], set[str], dict[str, Any]]:
    """The reasoning blocks of an assistant message in ``dialect``, the fields they were read from, and metadata.

    A field left unread (an empty string, a second field that says something else) stays in the message for the
    caller to keep verbatim as metadata; so do OpenRouter items no block holds (``OTHER_REASONING_DETAILS``).
    """
    spec = SPECS[dialect]
    blocks: list[ReasoningBlock] = []
    used: set[str] = set()
    if spec.details and raw.get("reasoning_details") is not None:
        items = field(raw, "reasoning_details", list, path)
        read = [_detail(item, f"{path}.reasoning_details[{k}]", dialect) for k, item in enumerate(items)]
        blocks = [b for b in read if isinstance(b, ReasoningBlock)]
        other = [item for item in read if not isinstance(item, ReasoningBlock)]
        used.add("reasoning_details")
        if raw.get("reasoning") == derived_reasoning(blocks):
            used.add("reasoning")
        return blocks, used, {OTHER_REASONING_DETAILS: other} if other else {}
    text: str | None = None
    for key in spec.reads:
        value = field(raw, key, str, path, optional=True)
        if value and text is None:
            text = value
            blocks.append(build(ReasoningBlock, f"{path}.{key}", text=value, metadata={ISSUER_KEY: dialect}))
        if value and value == text:
            used.add(key)
    return blocks, used, {}


def tool_turns(roles: Sequence[tuple[str, bool]]) -> frozenset[int]:
    """The indices of the assistant messages whose reasoning DeepSeek takes back.

    ``roles`` holds each message's role and whether it calls a tool. A turn runs from a user message to the
    next; the assistant messages of the last turn, and of every turn in which the model called a tool, are taken.
    """
    taken: set[int] = set()
    turn: list[int] = []
    called = False

    def close(last: bool) -> None:
        if called or last:
            taken.update(turn)

    for i, (role, calls) in enumerate(roles):
        if role == "user":
            close(last=False)
            turn, called = [], False
        elif role == "assistant":
            turn.append(i)
            called = called or calls
    close(last=True)
    return frozenset(taken)

