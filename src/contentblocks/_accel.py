"""The optional C accelerator, ``_speedups`` (built from ``_speedups.c`` on install where a compiler is found).

Every function in it has a pure-Python counterpart that stays the reference: the C versions take only the
valid, common path and hand anything else back (a *miss*), so that the Python code finds and words every
problem. Set ``CONTENTBLOCKS_PURE_PYTHON`` to a non-empty value to run without it.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["MISS", "speedups"]

MISS: Any = object()
"""What a C function returns when it hands a value back to the Python code."""


def _load() -> Any:
    if os.environ.get("CONTENTBLOCKS_PURE_PYTHON"):
        return None
    try:
        from . import _speedups  # noqa: PLC0415 - optional, and only here
    except ImportError:
        return None
    return _speedups


speedups = _load()
