"""How function responses find their calls on Gemini's wire: by id where Gemini gave one, else by name and order.

Gemini usually sends ``functionCall`` parts without an ``id``. The reader gives such a call a generated id
(flagged ``gemini/generated_id``) so that the neutral conversation can pair it; that id is Gemini's to never
see. The writer therefore leaves the id out of the call and out of every response answering it, and Gemini, like
the reader, then pairs a response without an id with the oldest open call of its name. Responses to same-name
calls are put in the order of their calls, so that pairing finds the right one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..._model._classes import Block, ToolCallBlock, ToolResultBlock
from ._read import GENERATED

__all__ = ["Pairing", "Written", "blocks_of", "path_order"]

#: A part as written, with the block it was written from and that block's path in the conversation.
Written = tuple[dict[str, Any], Block, str]


class Pairing:
    """The calls written so far (whether each went with its id), and the order of the responses answering them."""

    def __init__(self) -> None:
        self._sent_id: dict[str, bool] = {}  # tool_call_id -> whether the functionCall carried it
        self._order: dict[str, int] = {}  # tool_call_id -> the call's place among the calls written

    def call(self, block: ToolCallBlock) -> bool:
        """Record a call to be written, and say whether its id is sent (not when the reader generated it)."""
        sent = block.metadata.get(GENERATED) is not True
        self._sent_id[block.tool_call_id] = sent
        self._order[block.tool_call_id] = len(self._order)
        return sent

    def sends_id(self, block: ToolResultBlock) -> bool:
        """Whether the response for ``block`` carries an id: when the call it answers did.

        A result whose call is not in the conversation carries its id unless it is flagged ``gemini/generated_id``.
        """
        sent = self._sent_id.get(block.tool_call_id)
        return sent if sent is not None else block.metadata.get(GENERATED) is not True

    def order(self, written: list[Written]) -> list[str]:
        """Put the id-less responses of one content in the order of their calls, name by name, in place.

        Returns the paths of the results that moved (an ``order_changed`` loss each).
        """
        slots: dict[str, list[int]] = {}
        rank: dict[int, int] = {}  # a response's place -> its call's place among the calls written
        for n, (part, block, _) in enumerate(written):
            if type(block) is ToolResultBlock and "id" not in part["functionResponse"]:
                slots.setdefault(block.tool_name, []).append(n)
                rank[n] = self._order.get(block.tool_call_id, len(self._order))
        moved: list[str] = []
        before = list(written)
        for places in slots.values():
            ranked = sorted(places, key=rank.__getitem__)
            for place, n in zip(places, ranked, strict=True):
                written[place] = before[n]
                if place != n:
                    moved.append(before[n][2])
        return sorted(moved, key=path_order)


def path_order(path: str) -> tuple[int, ...]:
    """A sort key for ``$[i]`` and ``$[i].content[j]`` paths: message, then block."""
    return tuple(int(n) for n in path.replace("$[", "").replace("].content[", " ").rstrip("]").split())


def blocks_of(written: list[Written], kind: type[Block]) -> Iterator[tuple[Any, str]]:
    """The blocks of ``kind`` among ``written``, each with its path."""
    return ((block, where) for _, block, where in written if type(block) is kind)
