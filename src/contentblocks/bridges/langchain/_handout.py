"""The LangChain writer's metadata handout: what a block's metadata gives back to its LangChain item.

Split from ``_write`` so that the writers of each kind of item (``_server`` too) share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...providers._contract import LossRecorder
from .._shared import MetadataHandout
from ._fields import NAMESPACE

__all__ = ["NOTHING", "Metadata", "finish", "meta_of"]


class Metadata(MetadataHandout):
    """One block's or message's metadata, handed out key by key to LangChain's fields."""

    __slots__ = ()

    def __init__(self, metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> None:
        super().__init__(metadata, path, losses, "LangChain", NAMESPACE, NAMESPACE + "metadata")

    def give_back(self, target: dict[str, Any]) -> None:
        """Put the ``langchain/`` keys not taken yet into ``target`` as LangChain's fields.

        A key naming a field the conversation itself writes there is left for ``done`` to report.
        """
        for key in self.values:
            field = key.removeprefix(NAMESPACE)
            if key.startswith(NAMESPACE) and key not in self.taken and field not in target:
                target[field] = self.take(key)


#: The handout of every block or message with no metadata: it has nothing to hand out, take or report, so one
#: serves them all (``take`` and ``drop`` record only keys it holds).
NOTHING = Metadata({}, "$", LossRecorder())


def meta_of(metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> Metadata:
    return Metadata(metadata, path, losses) if metadata else NOTHING


def finish(item: dict[str, Any], meta: Metadata, extras: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``item`` with ``extras`` merged into the kept ones, and every other kept key given back."""
    if not meta.values:  # most blocks: nothing kept
        if extras:
            item["extras"] = dict(extras)
        return item
    kept = meta.take(NAMESPACE + "extras")
    merged = {**(kept if isinstance(kept, dict) else {}), **(extras or {})}
    if merged or isinstance(kept, dict):
        item["extras"] = merged
    elif kept is not None:
        item["extras"] = kept
    meta.give_back(item)
    return item
