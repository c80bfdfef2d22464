"""Writing reasoning back to an OpenAI-compatible server: the fields of its dialect, and the loss of the rest.

Reasoning goes back only to the dialect that takes it (``_dialects``), only from the messages it takes it from,
and only when its recorded issuer matches the target (so that one server's reasoning never reaches another,
and, with ``keys=``, only from messages whose seal verifies). Everything else is reported: dropped reasoning text
as ``content_dropped``, a signature or redacted data that cannot go as ``state_not_replayed``, as the other
adapters report dropped reasoning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._json._values import thaw
from ..._model._classes import ReasoningBlock
from .._contract import ISSUER_KEY, issued_by, issuer_matches
from .._extras import PayloadWriter
from ._dialects import SPECS, Dialect, Spec
from ._keys import REASONING_DETAIL

__all__ = ["ReasoningWriter"]

_TEXT_KEYS = {"reasoning.text": "text", "reasoning.summary": "summary"}


def _item(block: ReasoningBlock, detail: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``reasoning_details`` item ``block`` was read from, or ``None`` when the block no longer fits its type."""
    item: dict[str, Any] = dict(thaw(detail))
    kind = item.get("type")
    if kind == "reasoning.encrypted":
        if block.redacted is None:
            return None
        try:
            item["data"] = block.redacted.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return item
    key = _TEXT_KEYS.get(kind) if isinstance(kind, str) else None
    if key is None or block.redacted is not None or (kind == "reasoning.summary" and block.signature is not None):
        return None
    if block.text is not None:
        item[key] = block.text
    if block.signature is not None:
        item["signature"] = block.signature
    return item if key in item or "signature" in item else None


class ReasoningWriter(PayloadWriter):
    """The reasoning part of the Chat Completions writer (its base).

    For each assistant message: ``start_reasoning``, then ``reasoning`` for each of its reasoning blocks, then
    ``reasoning_fields`` for the fields to send. The writer sets ``dialect``, ``issuer`` (the target issuer) and
    ``replayed`` (the indices of the assistant messages whose reasoning the dialect takes back).
    """

    dialect: Dialect
    issuer: str
    replayed: frozenset[int]

    def _why_not(self, block: ReasoningBlock, index: int, spec: Spec) -> str | None:
        """Why ``block`` of assistant message ``index`` does not go back, or ``None`` when it does."""
        if spec.replay == "never":
            return f"{spec.name} takes no reasoning back; dropped (never sent as text)"
        issuer = block.metadata.get(ISSUER_KEY)
        if not issuer_matches(issuer, self.issuer):
            return f"reasoning {issued_by(issuer)} is sent back only to its issuer, not to {self.issuer!r}; dropped"
        if index not in self.replayed:
            return (
                f"{spec.name} takes reasoning back only in the current turn and in turns that called tools"
                " (its API ignores it elsewhere); dropped"
            )
        return None

    def start_reasoning(self) -> None:
        """Begin an assistant message: no reasoning collected yet."""
        self.texts: list[str] = []
        self.items: list[dict[str, Any]] = []
        self.plain: list[str] = []  # where each text sent outside reasoning_details came from

    def reasoning(self, block: ReasoningBlock, index: int, where: str, after_content: bool) -> None:
        """Collect ``block`` for its message's reasoning fields, or report why it is not sent.

        ``where`` is its path, in assistant message ``index``; ``after_content``: content or a call comes before it.
        """
        spec = SPECS[self.dialect]
        why = self._why_not(block, index, spec)
        if why is not None:
            self.loss(where, why, "content_dropped" if block.text else "state_not_replayed")
            return
        if after_content:
            reason = f"{spec.name} reads reasoning before the message's content; moved ahead of it"
            self.loss(where, reason, "order_changed")
        detail = block.metadata.get(REASONING_DETAIL)
        item = _item(block, detail) if spec.details and isinstance(detail, Mapping) else None
        if item is not None:
            self.items.append(item)
            self.report(where, block.metadata, frozenset({REASONING_DETAIL}))
        elif self._text_only(block, where, spec):
            self.texts.append(block.text)  # type: ignore[arg-type]  # _text_only checked it
            self.plain.append(where)
            self.report(where, block.metadata)

    def reasoning_fields(self) -> dict[str, Any]:
        """The message's reasoning fields, from the blocks collected since ``start_reasoning``."""
        spec = SPECS[self.dialect]
        if self.items:
            for where in self.plain:
                reason = f"{spec.name} reads reasoning from reasoning_details, beside which it takes no text; dropped"
                self.loss(where, reason, "content_dropped")
            return {"reasoning_details": self.items}
        for where in self.plain[1:]:
            reason = f"joined with the reasoning before it into one {spec.writes} (reads back as one block)"
            self.loss(where, reason, "content_degraded")
        return {spec.writes: "".join(self.texts)} if self.texts and spec.writes else {}

    def _text_only(self, block: ReasoningBlock, where: str, spec: Spec) -> bool:
        """Whether ``block`` has text to send in a string field; the state such a field cannot carry is reported."""
        if block.redacted is not None:
            reason = f"redacted reasoning has no place in a {spec.name} request; dropped"
            self.loss(where, reason, "state_not_replayed")
            return False
        if block.signature is not None:
            reason = f"a {spec.name} {spec.writes} carries no signature; not sent"
            self.loss(f"{where}.signature", reason, "state_not_replayed")
        return block.text is not None
