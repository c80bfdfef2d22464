"""Reasoning on the way to the Responses API: OpenAI's own goes back as its ``reasoning`` item, any other is reported.

A reasoning item is replayed only to its issuer, and only whole: its id, its summary and content parts, and the
first block's signature as the item's encrypted content (see ``docs/providers/openai_responses.md``).
"""

from __future__ import annotations

from typing import Any

from ..._model._classes import ReasoningBlock
from .._contract import ISSUER_KEY, issued_by, issuer_matches
from .._extras import PayloadWriter
from ._fields import NS, TARGET, flags

__all__ = ["REASONING", "ReasoningWriting", "sends_reasoning"]

#: Reasoning flags: where a block's text sat in its item, and the item's shape.
REASONING = ("id", "reasoning_part", "text", "content")


def sends_reasoning(block: ReasoningBlock, target: str) -> bool:
    """Whether ``block`` goes to ``target``: it is part of an OpenAI reasoning item its issuer may replay."""
    return type(block.metadata.get(f"{NS}/id")) is str and issuer_matches(block.metadata.get(ISSUER_KEY), target)


class ReasoningWriting(PayloadWriter):
    """What the Responses writer does with reasoning blocks; the writer sets ``issuer``."""

    issuer: str

    def reasoning_item(self, group: list[tuple[int, ReasoningBlock]], path: str) -> dict[str, Any]:
        """A ``reasoning`` item: its summary and content parts, the first block's signature as encrypted content."""
        first_index, first = group[0]
        item_id = first.metadata[f"{NS}/id"]
        item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
        content: list[Any] = []
        for j, block in group:
            where = f"{path}.content[{j}]"
            if block.text is not None or block.metadata.get(f"{NS}/text") == "":
                in_content = block.metadata.get(f"{NS}/reasoning_part") == "content"
                target, tag = (content, "reasoning_text") if in_content else (item["summary"], "summary_text")
                target.append({"type": tag, "text": block.text or ""})
            if block.signature is not None and block.signature != item_id:
                if j == first_index:
                    item["encrypted_content"] = block.signature
                else:
                    reason = "only the first block of a reasoning item carries its encrypted content"
                    self.loss(f"{where}.signature", reason, "state_not_replayed")
            if block.redacted is not None:
                reason = "redacted reasoning has no place in a Responses request; dropped"
                self.loss(f"{where}.redacted", reason, "state_not_replayed")
            if j != first_index:
                used = set(first.metadata) | flags(block.metadata, *REASONING)
                self.report(where, block.metadata, used)
        if content or first.metadata.get(f"{NS}/content") == []:
            item["content"] = content
        where = f"{path}.content[{first_index}]"
        return self.extras(item, first.metadata, where, "reasoning", flags(first.metadata, *REASONING))

    def drop_reasoning(self, block: ReasoningBlock, where: str) -> None:
        """Report a reasoning block that is not sent: its text is content, a bare signature is provider state."""
        issuer = block.metadata.get(ISSUER_KEY)
        if f"{NS}/id" in block.metadata and not issuer_matches(issuer, self.issuer):
            why = f"reasoning {issued_by(issuer)} is not sent to {self.issuer!r}; dropped"
        else:
            why = (
                f"reasoning from another provider has no place in a {TARGET} request"
                " (it needs an OpenAI item id); dropped"
            )
        self.loss(where, why, "content_dropped" if block.text else "state_not_replayed")
