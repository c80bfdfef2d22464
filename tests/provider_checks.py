"""Helpers the provider-adapter tests share: consuming the SDKs' lazy validation, reading the docs tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def consume(value: Any) -> Any:
    """A plain copy of a value validated by pydantic, consuming every lazily validated iterable on the way.

    The SDKs type nested content as ``Iterable[...]``, which pydantic checks only when it is iterated: without
    this, a malformed payload would pass.
    """
    if isinstance(value, Mapping):
        return {k: consume(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, bytearray, int, float, bool)) or value is None:
        return value
    if isinstance(value, Iterable):
        return [consume(v) for v in value]
    return value


def documented_reasons(page: str) -> list[re.Pattern[str]]:
    """The loss reasons of a provider page's degradation table, as patterns (``<...>`` matches any value)."""
    text = (ROOT / "docs" / "providers" / page).read_text(encoding="utf-8")
    section = text.split("## Degradations", 1)[1]
    reasons = [row.rsplit("|", 2)[-2].strip().strip("`") for row in section.splitlines() if row.startswith("| ")]
    return [
        re.compile(re.sub(r"<[^>]+>", ".+", re.escape(r).replace(r"\<", "<").replace(r"\>", ">"))) for r in reasons[1:]
    ]


def assert_documented(reasons: list[re.Pattern[str]], losses: Iterable[Any]) -> None:
    """Every loss reported has a row in the provider page's degradation table."""
    for loss in losses:
        assert any(p.fullmatch(loss.reason) for p in reasons), f"undocumented loss: {loss}"
