"""Installing the hooks on a cattrs converter: ``configure_converter`` and ``make_converter``.

The hooks are registered the way cattrs registers its own: as hook factories behind a predicate that
answers only for this library's classes and unions, so they survive ``Converter.copy()``, work on a
``BaseConverter``, a ``Converter`` and the ``cattrs.preconf`` converters, and leave every other type to the
converter as it was.

The factories take the converter (cattrs passes it to a factory with a second parameter), and ask it for
its hook for each class nested in the one they make a hook for, as cattrs' own ``gen`` functions do. Where
that hook is not one of ours (the user registered one, before or after configuring), the generated
functions call it for that class wherever it is nested; where every nested hook is ours, they take the fast
path (generated functions calling each other, and the C walk). cattrs clears its cache of hooks whenever a
hook is registered, so a hook registered later is found too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, get_args

import attrs
from cattrs import BaseConverter, Converter

from .._checks._rules import Limits
from .._model._conversation import Conversation
from .._model._wire import ARRAYS, Union, union_of
from ._gen import CLASSES, nested_classes
from ._structure import StructureHooks
from ._unstructure import UnstructureHooks

__all__ = ["Binary", "configure_converter", "make_converter", "structure_parsed"]

Binary = Literal["base64", "native"]
BINARY_MODES: tuple[Binary, ...] = get_args(Binary)

_CLASSES = frozenset((*CLASSES, *ARRAYS))


def _is_class(t: Any) -> bool:
    return isinstance(t, type) and t in _CLASSES


def _is_union(t: Any) -> bool:
    return not isinstance(t, type) and union_of(t) is not None


def _unstructures(t: Any) -> bool:
    """Our classes and their subclasses (written as their base), and our unions."""
    return (isinstance(t, type) and issubclass(t, tuple(_CLASSES))) or _is_union(t)


def _within(union: Union) -> tuple[type, ...]:
    """The classes a union's values may be or hold."""
    members = tuple(union.members.values())
    return (*members, *(c for m in members for c in nested_classes(m)))


def _dispatched(get: Callable[[type], Any], owns: Callable[[Any, type], bool], classes: Any) -> dict[type, Any]:
    """The hooks ``get`` gives for ``classes`` that are not ours (``owns``), by class."""
    hooks = {cls: get(cls) for cls in dict.fromkeys(classes)}
    return {cls: hook for cls, hook in hooks.items() if not owns(hook, cls)}


class _Factories:
    """The hook factories of one ``configure_converter`` call; cattrs passes each the converter it serves."""

    def __init__(self, structure: StructureHooks, unstructure: UnstructureHooks) -> None:
        self.structure = structure
        self.unstructure_hooks = unstructure

    def _structure_owns(self, hook: Any, _cls: type) -> bool:
        return self.structure.owns(hook)

    def structure_class(self, cls: type, converter: BaseConverter) -> Callable[..., Any]:
        dispatched = _dispatched(converter.get_structure_hook, self._structure_owns, nested_classes(cls))
        hooks = self.structure.variant(dispatched)
        if cls is Conversation:
            return hooks.structure_conversation
        hook: Callable[..., Any] = hooks.for_class(cls)
        return hook

    def structure_union(self, alias: Any, converter: BaseConverter) -> Callable[..., Any]:
        union: Union = union_of(alias)  # type: ignore[assignment]
        hooks = self.structure.variant(_dispatched(converter.get_structure_hook, self._structure_owns, _within(union)))
        hook: Callable[..., Any] = hooks.for_union(union)
        return hook

    def unstructure(self, t: Any, converter: BaseConverter) -> Callable[[Any], Any]:
        if isinstance(t, type):  # one of our classes, or a subclass of one (written as its base)
            base = next(b for b in t.__mro__ if b in _CLASSES)
            classes: tuple[type, ...] = nested_classes(base)
        else:
            classes = _within(union_of(t))  # type: ignore[arg-type]
        dispatched = _dispatched(converter.get_unstructure_hook, self.unstructure_hooks.owns, classes)
        table = self.unstructure_hooks.table(dispatched)
        if isinstance(t, type):
            return table[t]

        def unstructure_union(value: Any) -> Any:
            return table[type(value)](value)

        unstructure_union.dispatches = frozenset(dispatched)  # type: ignore[attr-defined]
        return unstructure_union


def configure_converter(converter: BaseConverter, *, binary: Binary = "base64", **limits: int) -> None:
    """Install the contentblocks hooks on ``converter``; nothing else on it changes.

    Registers, with ``register_structure_hook_factory`` and ``register_unstructure_hook_factory``, hook
    factories for every block, source, citation, message and conversation class and for the unions
    ``Block``, ``ToolResultContent``, ``FileSource`` and ``CitationSource``. Their predicates answer for
    nothing else: no hook is registered for ``bytes``, ``str``, ``dict``, ``Any`` or any other shared type,
    so the converter treats your own classes as before (including the attrs classes that hold blocks), and
    ``converter.copy()`` keeps the hooks. A hook you register on ``converter`` for one of the classes (a
    citation, a source, a block) is used wherever that class is nested, in both directions (see the
    "Your own hooks inside blocks" section of the converters page).

    Args:
        converter: a ``cattrs.BaseConverter`` or ``cattrs.Converter``, a preconf one included.
        binary: ``"base64"`` writes and reads binary fields as canonical base64 text (JSON and other
            text formats); ``"native"`` keeps them as ``bytes`` (msgpack, CBOR).
        limits: any of ``max_text_chars``, ``max_binary_bytes``, ``max_uri_chars``, ``max_depth``,
            ``max_nodes``, ``max_errors`` (see :class:`contentblocks.Limits`).

    Raises:
        ValueError: for an unknown binary mode or limit.
        TypeError: when ``converter`` is not a cattrs converter.

    >>> import cattrs, contentblocks as cb
    >>> conv = cattrs.Converter()
    >>> cb.configure_converter(conv, max_text_chars=5)
    >>> conv.structure({"type": "text", "text": "hello!"}, cb.Block)
    Traceback (most recent call last):
    contentblocks.ValidationError: $.text: longer than 5 characters
    >>> conv.copy().structure({"type": "text", "text": "hi"}, cb.Block)
    TextBlock(text='hi', citations=(), cache=None, metadata=JsonObject({}))
    """
    if not isinstance(converter, BaseConverter):
        msg = f"expected a cattrs converter, got {type(converter).__name__}"
        raise TypeError(msg)
    if binary not in BINARY_MODES:
        msg = f"binary must be one of {', '.join(map(repr, BINARY_MODES))}, not {binary!r}"
        raise ValueError(msg)
    unknown = set(limits) - {a.name for a in attrs.fields(Limits)}
    if unknown:
        msg = f"unknown option(s): {', '.join(sorted(unknown))}"
        raise ValueError(msg)
    native = binary == "native"
    structure = StructureHooks(Limits(**limits), native_binary=native)
    factories = _Factories(structure, UnstructureHooks(native_binary=native))
    converter.register_structure_hook_factory(_is_class, factories.structure_class)
    converter.register_structure_hook_factory(_is_union, factories.structure_union)
    converter.register_unstructure_hook_factory(_unstructures, factories.unstructure)


def make_converter(*, binary: Binary = "base64", **limits: int) -> Converter:
    """A new ``cattrs.Converter`` with every contentblocks hook installed (see :func:`configure_converter`).

    >>> import contentblocks as cb
    >>> conv = cb.make_converter(max_depth=3)
    >>> conv.structure({"type": "json", "value": [[[[1]]]]}, cb.Block)
    Traceback (most recent call last):
    contentblocks.ValidationError: $.value[0][0][0]: nested deeper than 3 containers (or a container holds itself)
    """
    converter = Converter()
    configure_converter(converter, binary=binary, **limits)
    return converter


@functools.cache
def native_converter() -> Converter:
    """The library's own converter with bytes native, made once.

    The readers of providers and frameworks structure their wire dicts with it: bytes as the classes take them,
    without a base64 round trip.
    """
    return make_converter(binary="native")


def _our_hooks(converter: BaseConverter) -> StructureHooks | None:
    """The StructureHooks whose Conversation hook ``converter`` has, or None when that hook is not ours."""
    hook = converter.get_structure_hook(Conversation)
    owner = getattr(hook, "__self__", None)
    if type(owner) is StructureHooks and getattr(hook, "__func__", None) is StructureHooks.structure_conversation:
        return owner
    return None


def structure_parsed(converter: BaseConverter, raw: Any, cl: Any) -> Any:
    """``converter.structure(raw, cl)`` for a value just parsed from text, which no other code holds.

    Where ``cl`` is ``Conversation`` and the converter's hook for it is ours, the parsed array of messages is
    emptied as its messages are structured (see ``StructureHooks.structure_parsed_conversation``); the result,
    and any error, is the same as ``converter.structure`` gives.
    """
    if cl is Conversation:
        owner = _our_hooks(converter)
        if owner is not None:
            return owner.structure_parsed_conversation(raw)
    return converter.structure(raw, cl)
