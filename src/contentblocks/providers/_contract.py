"""The adapter contract every provider module follows: ``Converted``, ``Loss``, ``LossError`` and issuers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

__all__ = ["ISSUER_KEY", "Converted", "Loss", "LossError", "LossRecorder", "issuer_matches"]

#: Metadata key on reasoning blocks (and on any block carrying a provider signature) naming who issued the
#: signature or the redacted/encrypted reasoning: ``"anthropic"``, or ``"gemini/gemini-2.5-pro"`` where the
#: provider ties it to a model family.
ISSUER_KEY = "contentblocks/issuer"


@attrs.frozen
class Loss:
    """One field dropped or degraded when converting: where it was, and what happened to it and why.

    ``path`` is a JSON path into the neutral conversation, for example ``$[3].content[1].signature``.
    """

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@attrs.frozen
class Converted:
    """The result of ``to_provider``: the provider's request fields and what did not survive the trip."""

    payload: dict[str, Any]
    losses: tuple[Loss, ...] = ()


class LossError(ValueError):
    """Raised by ``to_provider(..., strict=True)`` when anything would be dropped or degraded."""

    losses: tuple[Loss, ...]

    def __init__(self, losses: Iterable[Loss]) -> None:
        self.losses = tuple(losses)
        lines = [f"{len(self.losses)} field(s) would be lost:"]
        lines.extend(f"  {loss}" for loss in self.losses[:20])
        if len(self.losses) > 20:
            lines.append(f"  ... and {len(self.losses) - 20} more")
        super().__init__("\n".join(lines))


LossError.__module__ = "contentblocks.providers"


class LossRecorder:
    """Collects losses while an adapter converts; ``finish`` applies ``strict``."""

    __slots__ = ("losses",)

    def __init__(self) -> None:
        self.losses: list[Loss] = []

    def add(self, path: str, reason: str) -> None:
        self.losses.append(Loss(path, reason))

    def finish(self, payload: dict[str, Any], *, strict: bool) -> Converted:
        if strict and self.losses:
            raise LossError(self.losses)
        return Converted(payload, tuple(self.losses))


def issuer_matches(recorded: object, target: str) -> bool:
    """Whether reasoning state issued by ``recorded`` may be sent to ``target``.

    Both are ``"provider"`` or ``"provider/model-family"``. They match when equal, or when ``target`` names
    only the provider and ``recorded`` is that provider's (the caller did not say which model it will call).
    An unknown issuer (``None`` or not a string) never matches: state of unknown origin is never replayed.

    >>> issuer_matches("anthropic", "anthropic")
    True
    >>> issuer_matches("gemini/gemini-2.5-pro", "gemini")
    True
    >>> issuer_matches("gemini/gemini-2.5-pro", "gemini/gemini-2.5-flash")
    False
    >>> issuer_matches("anthropic", "openai")
    False
    >>> issuer_matches(None, "anthropic")
    False
    """
    if type(recorded) is not str or not recorded:
        return False
    if recorded == target:
        return True
    return "/" not in target and recorded.split("/", 1)[0] == target
