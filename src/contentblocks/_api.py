"""The module-level API (SPEC §7): structure, unstructure, loads, dumps and normalize on a default converter."""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_origin, overload
from urllib.parse import unquote_to_bytes

from ._checks._rules import DEFAULT_LIMITS, MEDIA_TYPE
from ._conversion._converter import make_converter, structure_parsed
from ._conversion._gen import CLASSES
from ._conversion._kernels import MISS, decode_base64, speedups
from ._conversion._unstructure import dump_default, dump_hooks, serialised_parts
from ._errors import ValidationError, describe_type, preview
from ._json._values import JsonArray, JsonObject, plain_container
from ._model._classes import Block, BytesSource, FileBlock, TextBlock
from ._model._conversation import Conversation
from ._model._wire import UNIONS

if TYPE_CHECKING:  # PEP 747: lets a type checker type ``structure(x, cb.Block)`` as the union, not Any
    from typing_extensions import TypeForm

__all__ = ["dumps", "file_from_data_url", "loads", "normalize", "structure", "unstructure"]

T = TypeVar("T")

_converter = make_converter()
_structure = _converter.structure
_unstructure = _converter.unstructure
#: The classes with a wire form, and the read-only JSON containers blocks hold.
_WIRE_CLASSES: tuple[type, ...] = (*CLASSES, Conversation, JsonObject, JsonArray)
#: What to use instead, for the classes people most often hand to ``unstructure``.
_UNSTRUCTURE_HINTS = {
    "Reply": "; the reply's message is reply.message (None when the provider sent no content)",
    "Converted": "; its payload is the provider's request, already plain",
    "Limits": "; attrs.asdict(limits) gives its fields",
}


def _not_wire(cls: type) -> bool:
    """Whether ``cls`` is one of contentblocks' own classes without a wire form (Reply, Usage, a stream event...).

    A ``Problem`` is a (path, message) tuple, and converts as one.
    """
    module = getattr(cls, "__module__", "") or ""
    ours = module == "contentblocks" or module.startswith("contentblocks.")
    return ours and not issubclass(cls, (*_WIRE_CLASSES, tuple))


def _refuse_unstructure(obj: object) -> Any:
    name = type(obj).__name__
    msg = ("unstructure() converts the wire format's classes (a block, source, citation, message or conversation)"
           f"; got {name}{_UNSTRUCTURE_HINTS.get(name, '')}")
    raise TypeError(msg)


# Only on this module's own converter: a user's converter keeps its hooks for whatever it is given.
_converter.register_unstructure_hook_func(_not_wire, _refuse_unstructure)
_dump_hooks = dump_hooks(native_binary=False)
_dump_part = dump_default(native_binary=False)
# ASCII-only output, as json.dumps gives by default: CPython's encoder writes it faster than mixed text.
# Values in blocks were checked on the way in, so they hold no cycle to look for.
_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":")).encode
# The same text, written in C when the accelerator is built (it hands back anything _encode should see).
_c_dumps = speedups.dumps_ascii if speedups is not None else None


#: What ``structure`` and ``loads`` build: the unions, Conversation, and every class with a wire form.
_TARGETS: frozenset[object] = frozenset([*(union.alias for union in UNIONS), Conversation, *CLASSES])
_TAKES = ("cb.Block, cb.Message, cb.Conversation, another union (cb.ToolResultContent, cb.FileSource, "
          "cb.CitationSource), a block, source or citation class, or a list[...] of one of these")


def _is_target(target: object) -> bool:
    try:
        return target in _TARGETS
    except TypeError:  # unhashable: not a type of ours
        return False


def _list_item(target: object, verb: str) -> object:
    """The item type of a ``list[T]`` target, None for a target built as it is; a TypeError for any other."""
    if _is_target(target):
        return None
    if get_origin(target) is list and len(get_args(target)) == 1 and _is_target(get_args(target)[0]):
        return get_args(target)[0]
    name = getattr(target, "__qualname__", None) if isinstance(target, type) else None
    msg = f"{verb}() builds {_TAKES}; got {name or repr(target)}"
    raise TypeError(msg)


def _structure_items(data: object, item: object, build: Any) -> list[Any]:
    """``list[item]``: each item of the array built by ``build``; every item's problems in one ValidationError."""
    kind, array = plain_container(data)
    if kind != 2:  # an array
        raise ValidationError([("$", f"expected an array, got {describe_type(data)}")])
    built: list[Any] = []
    problems: list[tuple[str, str]] = []
    omitted = 0
    for i, value in enumerate(array):
        try:
            built.append(build(value, item))
        except ValidationError as e:
            problems += e.prefixed(f"$[{i}]")
            omitted += e.omitted
    if problems or omitted:
        raise ValidationError(problems, omitted=omitted, max_errors=DEFAULT_LIMITS.max_errors)
    return built


@overload
def structure(data: object, target: type[T]) -> T: ...
@overload
def structure(data: object, target: TypeForm[T]) -> T: ...
@overload
def structure(data: object, target: object) -> Any: ...
def structure(data: object, target: object) -> Any:
    """Check a raw value (dicts, lists, strings...) and build ``target`` from it.

    ``target`` is ``cb.Block`` (any block, chosen by its ``"type"``), ``cb.Message``, ``cb.Conversation``
    (a list of messages whose tool calls and results pair up), another union (``cb.ToolResultContent``,
    ``cb.FileSource``, ``cb.CitationSource``), one block, source or citation class, or ``list[T]`` of one
    of these: a plain list, each item checked on its own (``list[cb.Message]`` does not pair tool calls).

    Raises:
        ValidationError: listing every problem, each with its JSON path.
        TypeError: for a ``target`` that is none of these (``str``, ``dict[str, cb.Message]``...).

    >>> import contentblocks as cb
    >>> cb.structure({"type": "text", "text": "hi"}, cb.Block)
    TextBlock(text='hi', citations=(), cache=None, metadata=JsonObject({}))
    >>> cb.structure([{"role": "user", "content": "hi"}, {"role": "robot", "content": "hi"}], list[cb.Message])
    Traceback (most recent call last):
    contentblocks.ValidationError: $[1].role: expected one of: system, developer, user, assistant, tool
    """
    item = _list_item(target, "structure")
    if item is not None:
        return _structure_items(data, item, _structure)
    return _structure(data, target)  # type: ignore[arg-type]


def unstructure(obj: object) -> Any:
    """The canonical wire form of a block, message or conversation: plain dicts, lists, strings and numbers.

    Sources and citations convert too, and lists of any of these. Another class of contentblocks (an
    adapter's ``Reply``, ``Usage`` or ``Loss``, a stream event, ``Limits``...) has no wire form: it is a
    ``TypeError`` that names it (for a reply, convert ``reply.message``).

    >>> import contentblocks as cb
    >>> cb.unstructure(cb.Message(role="user", content="hi"))
    {'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}
    """
    return _unstructure(obj)


class _RefusedError(ValueError):
    pass


def _duplicate_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _RefusedError(f"duplicate key {preview(key)} in an object")
        seen.add(key)
    return dict(pairs)  # pragma: no cover - only called when a key repeats


def _python_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        return _duplicate_key(pairs)
    return obj


# json calls the hook once per object, and a Python call is a third of the parse: the C one when built.
_pairs: Any = _python_pairs if speedups is None else functools.partial(speedups.unique_pairs, _duplicate_key)


def _constant(name: str) -> Any:
    raise _RefusedError(f"{name} is not a JSON number")


_decode = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant).decode
_c_read = speedups.read_json if speedups is not None else None


#: What a JSON parser is told of a text that starts with a byte-order mark (RFC 8259 §8.1 allows none).
BOM_PROBLEM = "the text starts with a byte-order mark (U+FEFF)"


def starts_with_bom(data: object) -> bool:
    """Whether JSON text (str, bytes, bytearray or memoryview) starts with a UTF-8 byte-order mark."""
    if type(data) is str:
        return data.startswith("\ufeff")
    return isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:3]) == b"\xef\xbb\xbf"


def _no_bom(text: str) -> str:
    if text.startswith("\ufeff"):
        raise _RefusedError(BOM_PROBLEM)
    return text


def parse_json(data: str | bytes | bytearray) -> Any:
    """Parse JSON text strictly: duplicate keys, NaN and Infinity are refused; errors are ValidationErrors.

    The C reader, where built, reads what it can (valid text, not deeply nested) to the same values; the
    standard library's parser reads the rest, and words every problem.
    """
    if _c_read is not None:
        value = _c_read(data, MISS)
        if value is not MISS:
            return value
    if not issubclass(type(data), (str, bytes, bytearray)):
        raise ValidationError([("$", f"expected JSON text (str or bytes), got {describe_type(data)}")])
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        return _decode(_no_bom(text))
    except _RefusedError as e:
        raise ValidationError([("$", f"invalid JSON: {e}")]) from None
    except json.JSONDecodeError as e:
        raise ValidationError([("$", f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})")]) from None
    except UnicodeDecodeError:
        raise ValidationError([("$", "invalid JSON: not UTF-8")]) from None
    except RecursionError:
        raise ValidationError([("$", "invalid JSON: nested too deeply to parse")]) from None
    except ValueError:  # an integer literal of more than 4,300 digits
        raise ValidationError([("$", "invalid JSON: a number too long to parse")]) from None


@overload
def loads(data: str | bytes | bytearray) -> Block: ...
@overload
def loads(data: str | bytes | bytearray, target: type[T]) -> T: ...
@overload
def loads(data: str | bytes | bytearray, target: TypeForm[T]) -> T: ...
@overload
def loads(data: str | bytes | bytearray, target: object) -> Any: ...
def loads(data: str | bytes | bytearray, target: object = Block) -> Any:
    """Parse JSON text and structure it into ``target`` (a block by default).

    The text is read as the standard library's ``json`` reads it (the C accelerator's reader, where built,
    reads valid text to the same values), except that duplicate keys, ``NaN`` and ``Infinity`` are refused;
    every failure is a ``ValidationError``.

    >>> import contentblocks as cb
    >>> cb.loads('{"type": "json", "value": 1.0}')
    JsonBlock(value=1.0, cache=None, metadata=JsonObject({}))
    >>> cb.loads('{"type": "text", "text": "a", "text": "b"}')
    Traceback (most recent call last):
    contentblocks.ValidationError: $: invalid JSON: duplicate key "text" in an object

    ``target`` is any type :func:`structure` builds. An argument that is not JSON text (a dict already
    parsed, None, a memoryview) is a ``TypeError``.
    """
    if not issubclass(type(data), (str, bytes, bytearray)):
        hint = " (a value already parsed goes to cb.structure)" if isinstance(data, (dict, list)) else ""
        came = "None" if data is None else type(data).__qualname__
        msg = f"loads() expected JSON text (str, bytes or bytearray), got {came}{hint}"
        raise TypeError(msg)
    item = _list_item(target, "loads")
    if item is not None:
        return _structure_items(parse_json(data), item, _structure)
    return structure_parsed(_converter, parse_json(data), target)


def dumps(obj: object, *, ensure_ascii: bool = True, indent: int | str | None = None) -> str:
    r"""JSON text of a block, message or conversation in its canonical form; compact and ASCII-only by default.

    Args:
        obj: a block, message or conversation.
        ensure_ascii: write non-ASCII characters as ``\u`` escapes (the default, as ``json.dumps`` does);
            ``False`` keeps them as they are, which reads better and is shorter for most scripts.
        indent: ``None`` for compact text; a number of spaces or a string to indent each level with, as
            ``json.dumps`` takes it, for people to read.

    Whatever the options, NaN and infinities cannot occur (``allow_nan=False``) and the text reads back
    equal with :func:`loads`.

    >>> import contentblocks as cb
    >>> cb.dumps(cb.TextBlock(text="hi"))
    '{"type":"text","text":"hi"}'
    >>> cb.dumps(cb.TextBlock(text="你好"))
    '{"type":"text","text":"\\u4f60\\u597d"}'
    >>> cb.dumps(cb.TextBlock(text="你好"), ensure_ascii=False)
    '{"type":"text","text":"你好"}'
    >>> print(cb.dumps(cb.Message(role="user", content="hi"), indent=2))
    {
      "role": "user",
      "content": [
        {
          "type": "text",
          "text": "hi"
        }
      ]
    }
    """
    if ensure_ascii and indent is None:
        return _dumps_compact_ascii(obj)
    hook = _dump_hooks.get(type(obj))
    value = hook(obj) if hook is not None else _unstructure(obj)
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, allow_nan=False)


def _dumps_compact_ascii(obj: object) -> str:
    if _c_dumps is not None:
        # A conversation is written message by message: each message's dicts are freed once written.
        parts = serialised_parts(obj)
        if parts is not MISS:
            text = _c_dumps(parts, MISS, _dump_part)
            if text is not MISS:
                return text  # type: ignore[no-any-return]
    hook = _dump_hooks.get(type(obj))
    value = hook(obj) if hook is not None else _unstructure(obj)
    if _c_dumps is not None:
        text = _c_dumps(value, MISS)
        if text is not MISS:
            return text  # type: ignore[no-any-return]
    return _encode(value)


_BLOCK_CLASSES: tuple[type, ...] = get_args(Block)


def normalize(value: object) -> Any:
    """A block from what people pass around: a string becomes a text block, a dict is structured, a block is kept.

    >>> import contentblocks as cb
    >>> cb.normalize("hello")
    TextBlock(text='hello', citations=(), cache=None, metadata=JsonObject({}))
    """
    if issubclass(type(value), _BLOCK_CLASSES):
        return value
    if type(value) is str:
        return TextBlock(text=value)
    if issubclass(type(value), dict):
        return _structure(value, Block)  # type: ignore[arg-type]
    raise ValidationError([("$", f"expected a string, an object or a block, got {describe_type(value)}")])


_DATA_URL = re.compile(r"data:(?P<meta>[^,]*),(?P<data>.*)", re.IGNORECASE | re.DOTALL)


def file_from_data_url(url: str, *, filename: str | None = None) -> FileBlock:
    r"""Turn a ``data:`` URL into a file block with an inline (base64) source; nothing is fetched.

    The media type comes from the URL (``text/plain;charset=US-ASCII`` when it names none, as RFC 2397 says);
    base64 payloads must be canonical, others are percent-decoded.

    >>> import contentblocks as cb
    >>> block = cb.file_from_data_url("data:image/png;base64,iVBORw0KGgo=")
    >>> block.media_type, block.source.data[:4]
    ('image/png', b'\x89PNG')
    """
    if type(url) is not str:
        raise ValidationError([("$", f"expected a string, got {describe_type(url)}")])
    if len(url) > 4 * DEFAULT_LIMITS.max_binary_bytes:
        raise ValidationError([("$", "data URL too long")])
    match = _DATA_URL.fullmatch(url)
    if match is None:
        raise ValidationError([("$", "not a data: URL (data:[<media type>][;base64],<data>)")])
    meta, payload = match.group("meta"), match.group("data")
    is_base64 = meta.lower().endswith(";base64")
    if is_base64:
        meta = meta[: -len(";base64")]
    media_type = meta or "text/plain;charset=US-ASCII"
    problem = MEDIA_TYPE.check(media_type)
    if problem is not None:
        raise ValidationError([("$", f"media type: {problem}")])
    if is_base64:
        decoded = decode_base64(payload, DEFAULT_LIMITS.max_binary_bytes)
        if type(decoded) is str:
            raise ValidationError([("$", decoded)])
        data: bytes = decoded  # type: ignore[assignment]
    else:
        data = unquote_to_bytes(payload)
    return FileBlock(media_type=media_type, source=BytesSource(data=data), filename=filename)
