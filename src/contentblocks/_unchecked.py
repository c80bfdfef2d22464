"""Build instances whose fields the converter hooks have already checked, without checking them again.

For each class a small constructor is generated (the way cattrs generates its hooks) that creates the
instance and sets its slots directly. It is registered with ``linecache`` so tracebacks show its source.
With the C accelerator, a C callable does the same in one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from ._kernels import speedups
from ._source import run_source

__all__ = ["unchecked"]

_cache: dict[type, Callable[..., Any]] = {}


def unchecked(cls: type) -> Callable[..., Any]:
    """A function taking ``cls``'s fields positionally, in definition order, and returning an instance."""
    try:
        return _cache[cls]
    except KeyError:
        pass
    names = [a.name for a in attrs.fields(cls)]
    make = speedups.instance_maker(cls, tuple(names)) if speedups is not None else generated(cls, names)
    _cache[cls] = make
    return make


def generated(cls: type, names: list[str]) -> Callable[..., Any]:
    """The Python constructor: ``object.__new__`` and one slot ``__set__`` per field."""
    params = ", ".join(names)
    lines = [f"def make_{cls.__name__}({params}):", "    self = _new(_cls)"]
    lines += [f"    _set_{name}(self, {name})" for name in names]
    lines.append("    return self")
    source = "\n".join(lines) + "\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
    run_source(source, namespace, f"unchecked {cls.__module__}.{cls.__qualname__}")
    function: Callable[..., Any] = namespace[f"make_{cls.__name__}"]
    return function
