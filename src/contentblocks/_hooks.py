"""Installing the hooks on a cattrs converter: ``configure_converter`` and ``make_converter``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import attrs
from cattrs import BaseConverter, Converter

from ._accel import MISS, speedups
from ._blocks import Block, CitationSource, FileSource, ToolResultContent
from ._messages import Conversation
from ._rules import Limits
from ._structure import KEYS, StructureHooks
from ._unstructure import unstructure_hooks

__all__ = ["SPLIT_MAX_DEPTH", "Binary", "configure_converter", "make_converter", "structure_parsed", "structure_text"]

Binary = Literal["base64", "native"]

split_array = None if speedups is None else speedups.split_array


def _is(union: object) -> Callable[[Any], bool]:
    def predicate(t: Any) -> bool:
        return t is union or (t == union if type(t) is type(union) else False)

    return predicate


def configure_converter(converter: BaseConverter, *, binary: Binary = "base64", **limits: int) -> None:
    """Install the contentblocks hooks on ``converter``; nothing else on it changes.

    Registers structure and unstructure hooks for every block, source, citation, message and
    conversation class (``register_structure_hook``), and predicate hooks for the unions ``Block``,
    ``ToolResultContent``, ``FileSource`` and ``CitationSource`` (``register_structure_hook_func``, so
    that they survive ``Converter.copy()``). It registers nothing for ``bytes``, ``str``, ``dict``,
    ``Any`` or any other shared type, so the converter treats your own classes as before.

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
    for cls in KEYS:
        converter.register_structure_hook(cls, structure.for_class(cls))
    converter.register_structure_hook(Conversation, structure.structure_conversation)
    bodies = structure.bodies
    unions = [
        (Block, bodies.block),
        (ToolResultContent, bodies.content),
        (FileSource, bodies.source),
        (CitationSource, bodies.cited),
    ]
    for union, dispatch in unions:
        converter.register_structure_hook_func(_is(union), structure.hook(dispatch))

    unstructure = unstructure_hooks(native_binary=native)
    for cls, hook in unstructure.items():
        converter.register_unstructure_hook(cls, hook)
    for union in (Block, ToolResultContent, FileSource, CitationSource):
        converter.register_unstructure_hook_func(_is(union), _by_class(unstructure))


def _by_class(hooks: dict[type, Callable[[Any], Any]]) -> Callable[[Any], Any]:
    def unstructure_union(value: Any) -> Any:
        return hooks[type(value)](value)

    return unstructure_union


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


#: Texts nesting deeper than this are parsed whole: a parser's own nesting limit (about 1,000 levels for the
#: standard library's and orjson's) must give the same answer for an element alone as for the whole text.
SPLIT_MAX_DEPTH = 600


class _PartRefusedError(Exception):
    """The parser refused one element of a split text: the whole text is parsed instead, for its own error."""


def structure_text(
    converter: BaseConverter, data: Any, cl: Any, parse_whole: Callable[[Any], Any], parse_part: Callable[[bytes], Any]
) -> Any:
    """``structure_parsed(converter, parse_whole(data), cl)``, a conversation one message at a time where it can.

    When ``cl`` is ``Conversation``, ``data`` is bytes, the converter's hook is ours and the C accelerator is
    built, the text is split into its messages (``_speedups.split_array``) and each is parsed with
    ``parse_part`` and structured in turn, so neither the whole parsed tree nor the whole decoded text ever
    exists at once. That is for the standard library's parser, which needs a str: one emoji anywhere makes
    the text of a whole conversation four bytes a character, and scanning it was a quarter of the parse;
    orjson, which reads bytes and costs more per call than it would save, parses the whole text.
    An element ``parse_part`` refuses, or a text the splitter cannot split, sends the whole text to
    ``parse_whole``, so every error is the one the whole parse gives.

    The parser recurses once per container, so how deep a text it parses depends on the recursion limit and on
    the depth of the call stack. Each element comes from the splitter as ``[element]``, which nests as deep as
    the element does inside the whole text, and is parsed further down the stack than the whole text would
    be; the messages are structured as far down the stack as the parsed whole would be. So a split that
    succeeds gives what the whole parse gives, and a split that runs out of recursion anywhere falls back to
    the whole parse: at any recursion limit and any depth, the outcome is the whole parse's.
    """
    if cl is Conversation and split_array is not None and type(data) is bytes:
        try:
            conversation = _structure_split(converter, data, parse_part)
        except (_PartRefusedError, RecursionError):
            conversation = MISS
        if conversation is not MISS:
            return conversation
    return structure_parsed(converter, parse_whole(data), cl)


def _structure_split(converter: BaseConverter, data: bytes, parse_part: Callable[[bytes], Any]) -> Any:
    """The conversation of ``data``, split and parsed message by message (see ``structure_text``), or MISS.

    MISS when the converter's hook is not ours or the text does not split plainly. It calls the hook at the
    same depth as ``structure_parsed`` does.
    """
    owner = _our_hooks(converter)
    if owner is None or split_array is None:
        return MISS
    parts = split_array(data, SPLIT_MAX_DEPTH, MISS)
    if parts is MISS:
        return MISS

    def parse(part: bytes) -> Any:
        try:
            return parse_part(part)
        except ValueError:
            raise _PartRefusedError from None

    return owner.structure_parsed_conversation(parts, parse)


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
