"""Unstructure: objects out as canonical, JSON-ready dicts, by the C table walk where it is built.

Absent optionals and empty optional collections are omitted; JSON values come out as plain ``dict`` and
``list`` copies (never the block's own read-only containers); binary comes out as base64 text or, in the
native mode for msgpack and CBOR, as ``bytes``. The generated functions of ``_gen`` are the reference; the C
unstructurer walks the table ``_gen.shapes()`` derives from the same declarations, and hands back (a miss)
anything its table does not describe exactly, such as a subclass.

A converter on which a user hooked a class that others nest gets, from :class:`UnstructureHooks`, generated
functions that call that hook where the class is nested, and no C walk (which would write it itself).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._json._values import JsonArray, JsonObject
from .._model._conversation import Conversation
from ._gen import ByClass, generate_unstructure_functions, shapes, unstructure_functions
from ._kernels import MISS, speedups

__all__ = ["UnstructureHooks", "dump_default", "dump_hooks", "serialised_parts", "unstructure_hooks"]

Hook = Callable[[Any], Any]


@functools.cache
def _walker(*, plain_json: bool, native_binary: bool) -> Hook | None:
    """The C unstructurer of one mode, made once and shared by every converter (None without the accelerator)."""
    if speedups is None:
        return None
    return speedups.unstructurer(shapes(), plain_json, not native_binary, MISS)  # type: ignore[no-any-return]


def _accelerated(walk: Hook, hook: Hook) -> Hook:
    def unstructure(obj: Any) -> Any:
        out = walk(obj)
        return hook(obj) if out is MISS else out

    unstructure.__name__ = hook.__name__
    return unstructure


@functools.cache
def unstructure_hooks(*, native_binary: bool, plain_json: bool = True) -> ByClass:
    """One unstructure hook per class (a subclass finds its base's): the C walk first where it is built."""
    functions = unstructure_functions(native_binary=native_binary, plain_json=plain_json)
    walk = _walker(plain_json=plain_json, native_binary=native_binary)
    hooks = functions if walk is None else ByClass({c: _accelerated(walk, hook) for c, hook in functions.items()})
    for hook in hooks.values():
        hook.dispatches = frozenset()  # type: ignore[attr-defined]
    return hooks


class UnstructureHooks:
    """The unstructure hooks of one converter: the shared ones, and a variant per set of user hooks it has."""

    def __init__(self, *, native_binary: bool) -> None:
        self.native_binary = native_binary
        self.shared = unstructure_hooks(native_binary=native_binary)
        self._variants: dict[frozenset[tuple[type, int]], ByClass] = {}

    def owns(self, hook: object, cls: type) -> bool:
        """Whether ``hook`` is this converter's hook for ``cls`` (shared, or of one of its variants)."""
        return hook is self.shared.get(cls) or getattr(hook, "contentblocks_hooks", None) is self

    def table(self, dispatched: dict[type, Hook]) -> ByClass:
        """The hooks by class that call the hooks in ``dispatched`` for their classes (made once)."""
        if not dispatched:
            return self.shared
        key = frozenset((cls, id(hook)) for cls, hook in dispatched.items())  # a hook need not be hashable
        if key not in self._variants:
            functions = generate_unstructure_functions(
                native_binary=self.native_binary, plain_json=True, replaced=dispatched
            )
            for cls, function in functions.items():
                if cls not in dispatched:
                    function.contentblocks_hooks = self  # type: ignore[attr-defined]
                    function.dispatches = frozenset(dispatched)  # type: ignore[attr-defined]
            self._variants[key] = functions
        return self._variants[key]


def dump_hooks(*, native_binary: bool) -> ByClass:
    """The hooks a serialiser uses when it writes the result at once (JSON values are not copied)."""
    return unstructure_hooks(native_binary=native_binary, plain_json=False)


def dump_default(*, native_binary: bool, fallback: Hook | None = None) -> Hook:
    """A ``default=`` callback for a serialiser that calls back for the objects it cannot write (orjson).

    Blocks, messages and conversations (and subclasses of them, as their base) come out as :func:`dump_hooks`
    give them; read-only JSON containers as plain shallow copies, for a serialiser told not to write dict and
    list subclasses itself; anything else goes to ``fallback``, or raises TypeError as such a callback must.
    """
    functions = unstructure_functions(native_binary=native_binary, plain_json=False)
    # The C walk called straight from the callback, rather than through a hook: one Python call per message.
    walk = _walker(plain_json=False, native_binary=native_binary)

    def default(obj: Any) -> Any:
        if walk is not None:
            out = walk(obj)
            if out is not MISS:
                return out
        try:
            function = functions[type(obj)]
        except KeyError:
            if isinstance(obj, JsonObject):
                return dict(obj)
            if isinstance(obj, JsonArray):
                return list(obj)
            if fallback is not None:
                return fallback(obj)
            msg = f"Type is not JSON serializable: {type(obj).__name__}"
            raise TypeError(msg) from None
        return function(obj)

    return default


def serialised_parts(obj: Any) -> Any:
    """What to hand a serialiser with a ``default=`` callback so that it writes ``obj`` part by part, or MISS.

    A conversation is handed over as its tuple of messages: the callback unstructures each message when the
    serialiser reaches it, and the message's dicts are freed once it is written, so the dict tree of the whole
    conversation never exists at once. A message or block is handed over as it is. Anything else is a MISS:
    the converter unstructures it as a whole.
    """
    cls = type(obj)
    if cls is Conversation:
        return obj.messages if type(obj.messages) is tuple else MISS
    return obj if cls in unstructure_functions(native_binary=False, plain_json=False) else MISS
