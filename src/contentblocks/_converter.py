"""Installing the hooks on a cattrs converter: ``configure_converter`` and ``make_converter``.

The hooks are registered the way cattrs registers its own: as hook factories behind a predicate that
answers only for this library's classes and unions, so they survive ``Converter.copy()``, work on a
``BaseConverter``, a ``Converter`` and the ``cattrs.preconf`` converters, and leave every other type to the
converter as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import attrs
from cattrs import BaseConverter, Converter

from ._conversation import Conversation
from ._gen import CLASSES
from ._rules import Limits
from ._structure import StructureHooks
from ._unstructure import unstructure_hooks
from ._wire import ARRAYS, union_of

__all__ = ["Binary", "configure_converter", "make_converter", "structure_parsed"]

Binary = Literal["base64", "native"]

_CLASSES = frozenset((*CLASSES, *ARRAYS))


def _is_class(t: Any) -> bool:
    return isinstance(t, type) and t in _CLASSES


def _is_union(t: Any) -> bool:
    return not isinstance(t, type) and union_of(t) is not None


def _unstructures(t: Any) -> bool:
    """Our classes and their subclasses (written as their base), and our unions."""
    return (isinstance(t, type) and issubclass(t, tuple(_CLASSES))) or _is_union(t)


def configure_converter(converter: BaseConverter, *, binary: Binary = "base64", **limits: int) -> None:
    """Install the contentblocks hooks on ``converter``; nothing else on it changes.

    Registers, with ``register_structure_hook_factory`` and ``register_unstructure_hook_factory``, hook
    factories for every block, source, citation, message and conversation class and for the unions
    ``Block``, ``ToolResultContent``, ``FileSource`` and ``CitationSource``. Their predicates answer for
    nothing else: no hook is registered for ``bytes``, ``str``, ``dict``, ``Any`` or any other shared type,
    so the converter treats your own classes as before (including the attrs classes that hold blocks), and
    ``converter.copy()`` keeps the hooks.

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
    TextBlock(text='hi', citations=(), metadata=JsonObject({}))
    """
    if not isinstance(converter, BaseConverter):
        msg = f"expected a cattrs converter, got {type(converter).__name__}"
        raise TypeError(msg)
    if binary not in ("base64", "native"):
        msg = f"binary must be 'base64' or 'native', not {binary!r}"
        raise ValueError(msg)
    unknown = set(limits) - {a.name for a in attrs.fields(Limits)}
    if unknown:
        msg = f"unknown option(s): {', '.join(sorted(unknown))}"
        raise ValueError(msg)
    native = binary == "native"
    structure = StructureHooks(Limits(**limits), native_binary=native)
    unstructure = unstructure_hooks(native_binary=native)

    def structure_class(cls: type) -> Callable[..., Any]:
        if cls is Conversation:
            return structure.structure_conversation
        hook: Callable[..., Any] = structure.for_class(cls)
        return hook

    def structure_union(alias: Any) -> Callable[..., Any]:
        hook: Callable[..., Any] = structure.for_union(union_of(alias))  # type: ignore[arg-type]
        return hook

    def unstructure_union(value: Any) -> Any:
        return unstructure[type(value)](value)

    def unstructure_factory(t: Any) -> Callable[[Any], Any]:
        return unstructure[t] if isinstance(t, type) else unstructure_union

    converter.register_structure_hook_factory(_is_class, structure_class)
    converter.register_structure_hook_factory(_is_union, structure_union)
    converter.register_unstructure_hook_factory(_unstructures, unstructure_factory)


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
