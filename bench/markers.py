"""Writing a benchmark's table into a docs page, between the two marker comments that page holds for it."""

from __future__ import annotations

import re
import sys
from pathlib import Path


def write_between(page: Path, start: str, end: str, text: str) -> None:
    """Replace what stands between ``start`` and ``end`` in ``page`` with ``text``; exit if a marker is missing."""
    doc = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(doc):
        sys.exit(f"{page}: no {start} ... {end} markers")
    page.write_text(pattern.sub(lambda _: f"{start}\n{text}\n{end}", doc), encoding="utf-8")
