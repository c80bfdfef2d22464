"""The provider toolkit: SDK objects as plain data, explicit nulls as absent fields, errors at the provider's paths.

Every reader takes what an SDK hands out (``plain``), reads a field by its kind (``field``: an explicit ``null``
where a field is optional is its absence, as ``model_dump()`` writes unset fields), and reports a problem at the
path of the provider's own JSON (``fail``, ``require``, ``build``, ``reroot``). Beside those: base64, ``data:``
URLs, file names, citation titles and references, UTF-8 offsets, each written once for every adapter; JSON text
and tool-call arguments (``_arguments``, re-exported here) and media types (``_media``) have modules of their own.

>>> response = {"id": "msg_1", "stop_sequence": None}
>>> field(response, "stop_sequence", str, "$", optional=True) is None
True
>>> field(response, "model", str, "$")
Traceback (most recent call last):
contentblocks.ValidationError: $.model: required field missing
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

import attrs
from cattrs import Converter

from .._api import file_from_data_url
from .._checks._rules import DATA, DEFAULT_LIMITS, FILENAME, IDENTIFIER, REFERENCE, TITLE, URI
from .._errors import ValidationError, describe_type
from .._model._classes import Block, FileBlock, ReasoningBlock, RefusalBlock, TextBlock, ToolCallBlock
from .._model._wire import TAGGED
from ._arguments import holds_json, json_text, parse_json_text, raw_arguments, read_arguments
from ._media import lower_media_type

__all__ = [
    "OCTET",
    "b64decode",
    "b64encode",
    "block_path",
    "build",
    "data_url",
    "drop_nulls",
    "fail",
    "field",
    "holds_json",
    "identifier",
    "is_filename",
    "is_reference",
    "is_title",
    "is_uri",
    "json_text",
    "key_path",
    "model_family",
    "obj",
    "parse_json_text",
    "plain",
    "present",
    "raw_arguments",
    "read_arguments",
    "read_data_url",
    "require",
    "reroot",
    "utf8_to_index",
    "within",
]

T = TypeVar("T")

#: The media type of bytes whose type the provider's JSON does not say (RFC 2046's type for arbitrary data).
OCTET = "application/octet-stream"

def data_url(media_type: str, data: bytes) -> str:
    r"""A ``data:`` URL holding ``data`` as base64, the inverse of ``cb.file_from_data_url``.

    >>> data_url("image/png", b"\x89PNG")
    'data:image/png;base64,iVBORw=='
    """
    return f"data:{media_type};base64,{b64encode(data)}"


def read_data_url(url: str, path: str) -> FileBlock:
    r"""The inline file a ``data:`` URL holds (``cb.file_from_data_url``), a problem reported at ``path``.

    Its media type is lower-cased (``lower_media_type``), as every reader lower-cases what a provider sends.

    >>> read_data_url("data:image/png;base64,iVBORw==", "$.image_url.url").source.data
    b'\x89PNG'
    >>> read_data_url("https://example.com/a.png", "$.image_url.url")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.image_url.url: not a data: URL (data:[<media type>][;base64],<data>)
    """
    try:
        block = file_from_data_url(url)
    except ValidationError as e:
        raise reroot(e, path) from None
    media_type = lower_media_type(block.media_type)  # RFC 6838: case-insensitive
    return block if media_type == block.media_type else attrs.evolve(block, media_type=media_type)


def key_path(path: str, key: str) -> str:
    """The JSON path of a metadata key: ``$[0].metadata["app/x"]``."""
    return f"{path}.metadata[{json.dumps(key, ensure_ascii=False)}]"


def block_path(index: int, block: int | None = None) -> str:
    """``$[index]`` or ``$[index].content[block]``: where a message or block sits in the conversation."""
    return f"$[{index}]" if block is None else f"$[{index}].content[{block}]"


def plain(value: object, path: str = "$") -> Any:
    """What an SDK hands you, as the plain JSON-like data the readers take.

    A pydantic model (every provider SDK's response types) gives ``model_dump(mode="json", by_alias=True)``;
    anything else is returned as it is. No SDK is imported: objects are recognised by their dump method.
    An object built with ``model_construct`` may hold anything, and its dump then raises whatever pydantic (or
    the value) raises: that is a malformed payload, so it is a ``ValidationError`` at ``path``.

    >>> class Reply:
    ...     def model_dump(self, *, mode, by_alias):
    ...         return {"id": "msg_1", "mode": mode, "by_alias": by_alias}
    >>> plain(Reply())
    {'id': 'msg_1', 'mode': 'json', 'by_alias': True}
    >>> plain({"id": "msg_1"})
    {'id': 'msg_1'}
    """
    if type(value) is dict or type(value) is list:
        return value
    dump = getattr(type(value), "model_dump", None)
    if callable(dump):
        try:
            return dump(value, mode="json", by_alias=True)
        except Exception as e:  # noqa: BLE001 - any failure of a foreign dump method is the payload's fault
            raise fail(path, f"the SDK object does not dump to JSON: {describe_type(e)}") from None
    return value


def fail(path: str, message: str) -> ValidationError:
    """A ``ValidationError`` at ``path`` (for reading a malformed provider payload)."""
    return ValidationError([(path, message)])


def require(condition: bool, path: str, message: str) -> None:
    """Raise ``ValidationError`` at ``path`` unless ``condition`` holds (for reading provider payloads)."""
    if not condition:
        raise fail(path, message)


def within(path: str, root: str) -> bool:
    """Whether the JSON path ``path`` is ``root`` or a place inside it (``$.value[0]`` is in ``$.value``).

    >>> within("$.value[0]", "$.value"), within("$.values", "$.value")
    (True, False)
    """
    return path == root or path.startswith((root + ".", root + "["))


def reroot(error: ValidationError, path: str, root: str = "$") -> ValidationError:
    """``error`` with its problems moved from ``root`` (``$``, ``$.value``, ``$.raw``) to ``path``.

    For a problem found by a library check (a block's, ``Usage``'s) in a value read from a provider: it is
    reported where that value sits in the provider's JSON. A problem outside ``root`` moves from ``$``.

    >>> error = ValidationError([("$.value.a", "too deep"), ("$.metadata", "not an object")])
    >>> reroot(error, "$.content[0]", "$.value").errors
    [('$.content[0].a', 'too deep'), ('$.content[0].metadata', 'not an object')]
    """
    problems = [(path + (p[len(root) :] if within(p, root) else p[1:]), m) for p, m in error.errors]
    return ValidationError(problems, omitted=error.omitted)


@functools.cache
def _converter() -> Converter:
    """:func:`native_converter`, imported on first use: the converter imports the providers' rules."""
    from .._conversion._converter import native_converter  # noqa: PLC0415 - see above

    return native_converter()


#: The wire tag of each block class ``build`` structures from its wire dict.
_STRUCTURED: dict[type, str] = {cls: TAGGED[cls][1] for cls in (TextBlock, RefusalBlock, ReasoningBlock, ToolCallBlock)}


def build(cls: type[T], path: str, /, **fields: Any) -> T:
    """Build a block (or message) from provider data, re-rooting any ``ValidationError`` at ``path``.

    A text, refusal, reasoning or tool-call block whose fields are plain JSON (no citation objects, a plain dict
    of metadata) is structured from its wire dict by the library's converter, which checks it as building the
    class does, to the same error, in C where the accelerator is built: three to five times faster, and a
    reader builds thousands. Any other class is built by calling it.

    >>> from contentblocks import TextBlock
    >>> build(TextBlock, "$.messages[0].content[2]", text="")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.messages[0].content[2].text: must not be empty
    """
    kind = _STRUCTURED.get(cls)
    try:
        if (kind is None or fields.get("citations") or type(fields.get("metadata", {})) is not dict
                or fields.get("cache") is not None):
            return cls(**fields)
        # a tool call's null input is JSON null, not absent; no citations is none to write
        wire = {"type": kind, **{key: value for key, value in fields.items()
                                 if (value is not None or key == "input") and key != "citations"}}  # fmt: skip
        return _converter().structure(wire, Block)  # type: ignore[arg-type]
    except ValidationError as e:
        raise reroot(e, path) from None


def identifier(raw: Mapping[str, Any], key: str, path: str, *, optional: bool = False) -> Any:
    """``raw[key]`` checked to be a string and a valid identifier (a tool call's id or name), as ``field`` reads it.

    The neutral block names the field otherwise (``tool_call_id`` for a Responses ``call_id``): checked here, a bad
    value is reported at the provider's own key.

    >>> identifier({"call_id": "call 1"}, "call_id", "$.output[0]")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.output[0].call_id: contains whitespace or a control character
    """
    value = field(raw, key, str, path, optional=optional)
    problem = None if value is None else IDENTIFIER.check(value)
    if problem is not None:
        raise fail(f"{path}.{key}", problem)
    return value


def obj(raw: object, path: str) -> dict[str, Any]:
    """``raw`` when it is a JSON object (a dict with string keys), else a ``ValidationError`` at ``path``."""
    require(isinstance(raw, dict), path, "expected an object")
    return raw  # type: ignore[return-value]


def field(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], path: str, *, optional: bool = False) -> Any:
    """``raw[key]`` checked to be of ``kind`` (``bool`` never passes for ``int``).

    An optional field that is absent or ``null`` (as SDKs' ``model_dump()`` writes unset fields) gives ``None``.
    """
    if key not in raw or (optional and raw[key] is None):
        require(optional, f"{path}.{key}", "required field missing")
        return None
    value = raw[key]
    if isinstance(value, kind) and not (
        isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        return value
    raise fail(f"{path}.{key}", f"expected {_kind_name(kind)}")  # the message is built only on failure: hot path


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "a string", int: "an integer", list: "an array", dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def present(
    raw: Mapping[str, Any], keep: AbstractSet[str] = frozenset(), rename: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``raw`` without its ``null`` members, one level deep: an explicit ``null`` is an absent field.

    ``keep`` names the members whose ``null`` is a value the reader must see (a required field, so that the
    error names it); ``rename`` turns an SDK's Python spelling of a key into its wire name (``async_``).

    >>> present({"role": "user", "content": None, "name": None}, keep={"content"})
    {'role': 'user', 'content': None}
    """
    names = rename or {}
    return {names.get(key, key): value for key, value in raw.items() if value is not None or key in keep}


def _never(_member: str, _parent: Mapping[str, Any]) -> bool:
    return False


def drop_nulls(
    value: Any,
    *,
    keep: Callable[[str, Mapping[str, Any]], bool] = _never,
    verbatim: Callable[[str, Mapping[str, Any]], bool] = _never,
    rename: Mapping[str, str] | None = None,
) -> Any:
    """``value`` without its ``null`` object members at any depth, as the API writes what an SDK dump holds.

    ``model_dump()`` writes ``null`` for every optional field left unset, ``to_dict()`` leaves them out: both
    forms must read the same. Objects come out as dicts, arrays as lists. ``keep(member, parent)`` says which
    ``null`` members stay (a field the request type requires and allows to be ``null``), ``verbatim(member,
    parent)`` which members are copied without a change (free-form JSON, where ``null`` means ``null``):
    ``member`` is the dotted path of object keys from the root, array levels left out (``tools.parameters``),
    ``parent`` the object holding it. ``rename`` turns an SDK's Python spelling of a key into its wire name.

    The walk uses an explicit stack and stops at the JSON depth limit, copying what lies deeper as it is (for the
    block built from it to refuse), so neither a deeply nested value nor a cycle built in Python runs away.

    >>> drop_nulls({"id": "fc_1", "caller": None, "action": {"query": None, "sources": [None, {"url": None}]}})
    {'id': 'fc_1', 'action': {'sources': [None, {}]}}
    >>> drop_nulls({"input": {"q": None}, "title": None}, verbatim=lambda member, _: member == "input")
    {'input': {'q': None}}
    """
    names = rename or {}
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str, int]] = [(value, holder, 0, "", 0)]
    while stack:
        item, parent, slot, where, depth = stack.pop()
        if depth > DEFAULT_LIMITS.max_depth or not isinstance(item, (Mapping, list, tuple)):
            parent[slot] = item
        elif isinstance(item, Mapping):
            copy: dict[Any, Any] = {}
            parent[slot] = copy
            for raw_key, member_value in item.items():
                key = names.get(raw_key, raw_key)
                member = f"{where}.{key}" if where else str(key)
                if member_value is None:
                    if keep(member, item):
                        copy[key] = None
                elif verbatim(member, item):
                    copy[key] = member_value
                else:
                    copy[key] = None  # its place, so the keys keep their order
                    stack.append((member_value, copy, key, member, depth + 1))
        else:
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((member_value, items, i, where, depth + 1) for i, member_value in enumerate(item))
    return holder[0]


def is_uri(value: object) -> bool:
    """Whether ``value`` is usable as ``CitedUri.value``, by the URI rule and its limit (``URI``)."""
    return URI.accepts(value)


def is_title(value: object) -> bool:
    """Whether ``value`` is usable as ``Citation.title``, by the title's own rule and limit (``TITLE``).

    >>> is_title("Grass " * 2000 + "report"), is_title(" padded"), is_title(None)
    (True, False, False)
    """
    return TITLE.accepts(value)


def is_reference(value: object) -> bool:
    """Whether ``value`` is usable as ``CitedReference.value``, by the reference's own rule and limit."""
    return REFERENCE.accepts(value)


def is_filename(value: object) -> bool:
    """Whether ``value`` is usable as ``FileBlock.filename`` (a provider's file name may not be).

    >>> is_filename("report.pdf"), is_filename("../report.pdf"), is_filename(None)
    (True, False, False)
    """
    return FILENAME.accepts(value)


def b64encode(data: bytes) -> str:
    """Standard padded base64 text of ``data``."""
    return base64.b64encode(data).decode("ascii")


def b64decode(text: object, path: str) -> bytes:
    """Decode canonical standard base64 by the binary rule (``DATA``); a ``ValidationError`` at ``path`` otherwise.

    >>> b64decode("aGk=", "$.data")
    b'hi'
    """
    if type(text) is not str:
        raise fail(path, "expected a base64 string")
    decoded = DATA.decode(text)
    if type(decoded) is str:
        raise fail(path, decoded)
    return decoded  # type: ignore[return-value]


def utf8_to_index(text: str, offset: int) -> int:
    """The code-point index of UTF-8 byte ``offset`` in ``text`` (an offset inside a character rounds down).

    >>> utf8_to_index("日本語", 6)
    2
    """
    encoded = text.encode("utf-8", "surrogatepass")
    offset = max(0, min(offset, len(encoded)))
    return len(encoded[:offset].decode("utf-8", "ignore"))


_VERSION_TAIL = re.compile(r"(-(preview|exp|latest)\b.*|-\d{3}|-\d{2}-\d{4})\Z")


def model_family(model: str) -> str:
    """A model name without its release suffix, so a signature's issuer names the family.

    >>> model_family("gemini-2.5-flash-preview-05-20"), model_family("gemini-2.0-flash-001")
    ('gemini-2.5-flash', 'gemini-2.0-flash')
    """
    return _VERSION_TAIL.sub("", model) or model
