"""Build instances whose fields the converter hooks have already checked, without checking them again.

For each class a small constructor is generated (the way cattrs generates its hooks) that creates the
instance and sets its slots directly. It is registered with ``linecache`` so tracebacks show its source.
With the C accelerator, a C callable does the same in one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from .._source import run_source
from ._kernels import speedups

__all__ = ["construction", "unchecked"]

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
    lines, namespace = construction(cls, names, names, "_")
    header = f"def make_{cls.__name__}({', '.join(names)}):\n"
    source = header + "".join(f"    {line}\n" for line in [*lines, "return self"])
    run_source(source, namespace, f"unchecked {cls.__module__}.{cls.__qualname__}")
    function: Callable[..., Any] = namespace[f"make_{cls.__name__}"]
    return function


def construction(cls: type, names: list[str], values: list[str], prefix: str) -> tuple[list[str], dict[str, Any]]:
    """The source lines that make ``self`` an instance of ``cls`` with fields ``names`` set to ``values``.

    Also returned: the namespace entries the lines use, each named with ``prefix``. The generated structure
    functions of the pure-Python path build their instances with these lines inline, which saves a call per
    object; the constructor above wraps the same lines in a function.
    """
    lines = [f"self = {prefix}new({prefix}cls)"]
    lines += [f"{prefix}set_{name}(self, {value})" for name, value in zip(names, values, strict=True)]
    namespace: dict[str, Any] = {f"{prefix}new": object.__new__, f"{prefix}cls": cls}
    namespace.update({f"{prefix}set_{name}": cls.__dict__[name].__set__ for name in names})
    return lines, namespace
