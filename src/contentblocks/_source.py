"""Running generated source: compiled once, and registered with ``linecache`` so that tracebacks show it."""

from __future__ import annotations

import linecache
from itertools import count
from typing import Any

__all__ = ["run_source"]

_serial = count()
#: The builtins generated code calls most, bound as its own globals: a global is found in one lookup, where a
#: builtin is looked for in the globals first.
_BUILTINS = {f.__name__: f for f in (type, len, str, int, float, bool, dict, list, tuple, enumerate)}


def run_source(source: str, namespace: dict[str, Any], what: str) -> dict[str, Any]:
    """Run ``source`` in ``namespace`` under the file name ``<contentblocks generated {what} N>``; return it.

    ``N`` is a serial number, so that sources generated twice with different bindings keep their own lines.
    """
    filename = f"<contentblocks generated {what} {next(_serial)}>"
    for name, builtin in _BUILTINS.items():
        namespace.setdefault(name, builtin)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - callers generate from declarations only
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    return namespace
