"""The provider toolkit: SDK objects as plain data, native extras in metadata, losses, JSON text, base64.

The rule behind the extras: a provider-native field with no neutral home is kept verbatim in the block's (or
message's) metadata under ``"<namespace>/<field>"`` when read, and written back as ``<field>`` when the same
provider is the target, unless the adapter already wrote that field (metadata never overrides a mapped field).

>>> native = {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
>>> meta = take_extras(native, {"type", "text"}, "anthropic")
>>> meta
{'anthropic/cache_control': {'type': 'ephemeral'}}
>>> out = {"type": "text", "text": "hi"}
>>> used = put_extras(out, meta, "anthropic", {"cache_control"})
>>> out == native, sorted(used)
(True, ['anthropic/cache_control'])
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from .._api import parse_json
from .._errors import ValidationError
from .._json import thaw
from .._rules import DEFAULT_LIMITS, check_base64, check_no_surrounding_space, check_uri
from ._contract import ISSUER_KEY, LossKind, LossRecorder

__all__ = [
    "FORMAT_FLAGS",
    "PayloadWriter",
    "b64decode",
    "b64encode",
    "block_path",
    "build",
    "data_url",
    "decode_base64",
    "fail",
    "field",
    "index_to_utf8",
    "is_clean",
    "is_uri",
    "json_text",
    "key_path",
    "model_family",
    "obj",
    "parse_json_text",
    "plain",
    "put_extras",
    "raw_arguments",
    "read_arguments",
    "report_metadata",
    "require",
    "take_extras",
    "utf8_to_index",
]

#: Metadata flags that only record the shape of a provider's JSON (string or list content, a user turn split
#: in two, a JSON block holding a provider's own block): no content of their own, so a target that cannot
#: use them drops them without a loss. An adapter adding such a flag lists it here (every adapter's flags are here,
#: so that a conversation read from one provider reports none of them when it goes to another).
FORMAT_FLAGS: frozenset[str] = frozenset(
    {
        "anthropic/string_content",
        "anthropic/same_message",
        "anthropic/native_block",
        "anthropic/in_messages",
        "openai/content_list",
        "openai/content",
        "openai/type",
        "openai/output_list",
        "openai/input_item",
        "openai/part",
        "openai/file_data",
        "openai/text",
        "openai/invalid_arguments",
        "openai/refusal_part",
        "openai/file_data_base64",
        "openai/arguments",
        "openai/annotated",
        "gemini/same_content",
        "gemini/generated_id",
        "gemini/role",
        "gemini/output",
        "gemini/response",
        "gemini/text",
        "gemini/part",
        "mcp/is_error",
        "mcp/mimeType",
        "mcp/type",
        "mcp/structured",
    }
)

T = TypeVar("T")

_compact = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """Compact JSON text of a validated JSON value (what a block holds), non-ASCII kept as it is.

    >>> json_text({"city": "Zürich", "days": [1, 2.0]})
    '{"city":"Zürich","days":[1,2.0]}'
    """
    return _compact(value)


def parse_json_text(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is strict JSON (no NaN, no duplicate keys), else ``(False, None)``.

    >>> parse_json_text('{"a": 1}'), parse_json_text("{'a': 1}")
    ((True, {'a': 1}), (False, None))
    """
    try:
        return True, parse_json(text)
    except ValidationError:
        return False, None


def data_url(media_type: str, data: bytes) -> str:
    r"""A ``data:`` URL holding ``data`` as base64, the inverse of ``cb.file_from_data_url``.

    >>> data_url("image/png", b"\x89PNG")
    'data:image/png;base64,iVBORw=='
    """
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def key_path(path: str, key: str) -> str:
    """The JSON path of a metadata key: ``$[0].metadata["app/x"]``."""
    return f"{path}.metadata[{json.dumps(key, ensure_ascii=False)}]"


def block_path(index: int, block: int | None = None) -> str:
    """``$[index]`` or ``$[index].content[block]``: where a message or block sits in the conversation."""
    return f"$[{index}]" if block is None else f"$[{index}].content[{block}]"


def take_extras(native: Mapping[str, Any], known: Iterable[str], namespace: str) -> dict[str, Any]:
    """Metadata entries for the native fields the adapter does not map (kept verbatim, ``null`` included)."""
    known = set(known)
    return {f"{namespace}/{key}": value for key, value in native.items() if key not in known}


def put_extras(
    native: dict[str, Any],
    metadata: Mapping[str, Any],
    namespace: str,
    allowed: AbstractSet[str],
    skip: Iterable[str] = (),
) -> set[str]:
    """Write ``<namespace>/<field>`` metadata back as native fields; return the metadata keys used.

    Only fields in ``allowed`` are written: the fields the provider's request type has at this position and
    the adapter does not map itself (the allow-list keeps a stored ``latency_ms`` or ``index`` out of the
    request). Keys in ``skip`` (the adapter's own flags) are left alone; a field already set is not
    overwritten.

    >>> out = {"type": "text", "text": "hi"}
    >>> meta = {"anthropic/cache_control": {"type": "ephemeral"}, "anthropic/latency_ms": 12}
    >>> sorted(put_extras(out, meta, "anthropic", {"cache_control"}))
    ['anthropic/cache_control']
    >>> out
    {'type': 'text', 'text': 'hi', 'cache_control': {'type': 'ephemeral'}}
    """
    prefix = f"{namespace}/"
    skipped = set(skip)
    used: set[str] = set()
    for key, value in metadata.items():
        if key.startswith(prefix) and key not in skipped:
            name = key[len(prefix) :]
            if name in allowed and name not in native:
                native[name] = thaw(value)
                used.add(key)
    return used


def report_metadata(
    recorder: LossRecorder, path: str, metadata: Mapping[str, Any], used: Iterable[str], target: str
) -> None:
    """Report every metadata key that did not make it into the payload (``used`` lists those that did).

    The issuer key (bookkeeping for reasoning state) and the ``FORMAT_FLAGS`` of any provider are never
    reported: they hold no content of their own.
    """
    done = set(used) | {ISSUER_KEY} | FORMAT_FLAGS
    for key in metadata:
        if key not in done:
            recorder.add(
                key_path(path, key), f"metadata has no place in the {target} request; not sent", "metadata_not_sent"
            )


def plain(value: object) -> Any:
    """What an SDK hands you, as the plain JSON-like data the readers take.

    A pydantic model (every provider SDK's response types) gives ``model_dump(mode="json", by_alias=True)``;
    anything else is returned as it is. No SDK is imported: objects are recognised by their dump method.

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
        return dump(value, mode="json", by_alias=True)
    return value


def fail(path: str, message: str) -> ValidationError:
    """A ``ValidationError`` at ``path`` (for reading a malformed provider payload)."""
    return ValidationError([(path, message)])


def require(condition: bool, path: str, message: str) -> None:
    """Raise ``ValidationError`` at ``path`` unless ``condition`` holds (for reading provider payloads)."""
    if not condition:
        raise ValidationError([(path, message)])


def build(cls: type[T], path: str, /, **fields: Any) -> T:
    """Build a block (or message) from provider data, re-rooting any ``ValidationError`` at ``path``.

    >>> from contentblocks import TextBlock
    >>> build(TextBlock, "$.messages[0].content[2]", text="")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.messages[0].content[2].text: must not be empty
    """
    try:
        return cls(**fields)
    except ValidationError as e:
        raise ValidationError([(path + p[1:], m) for p, m in e.errors], omitted=e.omitted) from None


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
    ok = isinstance(value, kind) and not (
        isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
    )
    require(ok, f"{path}.{key}", f"expected {_kind_name(kind)}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "a string", int: "an integer", list: "an array", dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def decode_base64(value: str, path: str) -> bytes:
    """Strict, canonical base64 to bytes (the library's own rule), else a ``ValidationError`` at ``path``."""
    decoded = check_base64(value, DEFAULT_LIMITS.max_binary_bytes)
    if type(decoded) is str:
        raise ValidationError([(path, decoded)])
    return decoded  # type: ignore[return-value]


def is_uri(value: str) -> bool:
    """Whether ``value`` is usable as ``CitedUri``."""
    return check_uri(value, DEFAULT_LIMITS.max_uri_chars) is None


def is_clean(value: object) -> bool:
    """Whether ``value`` is a non-empty string with no surrounding whitespace (a title, a reference)."""
    return type(value) is str and check_no_surrounding_space(value, DEFAULT_LIMITS.max_uri_chars) is None


class PayloadWriter:
    """What the adapters' payload writers share: a loss recorder, and writing a block's extras back.

    A subclass sets ``namespace`` (its metadata prefix, ``anthropic``) and ``target`` (the name its loss
    reasons use, ``Anthropic``).
    """

    namespace: str
    target: str

    def __init__(self) -> None:
        self.losses = LossRecorder()

    def loss(self, path: str, reason: str, kind: LossKind) -> None:
        """Report a loss of ``kind`` at ``path``."""
        self.losses.add(path, reason, kind)

    def finish(
        self,
        native: dict[str, Any],
        metadata: Mapping[str, Any],
        path: str,
        allowed: AbstractSet[str],
        skip: AbstractSet[str] = frozenset(),
    ) -> dict[str, Any]:
        """Write this provider's allowed extras into ``native``, report the metadata left over, return ``native``."""
        used = put_extras(native, metadata, self.namespace, allowed, skip) | set(skip)
        report_metadata(self.losses, path, metadata, used, self.target)
        return native


def b64encode(data: bytes) -> str:
    """Standard padded base64 text of ``data``."""
    return base64.b64encode(data).decode("ascii")


def b64decode(text: object, path: str) -> bytes:
    """Decode canonical standard base64 (the library's own rule); a ``ValidationError`` at ``path`` otherwise.

    >>> b64decode("aGk=", "$.data")
    b'hi'
    """
    if type(text) is not str:
        raise fail(path, "expected a base64 string")
    return decode_base64(text, path)


def utf8_to_index(text: str, offset: int) -> int:
    """The code-point index of UTF-8 byte ``offset`` in ``text`` (an offset inside a character rounds down).

    >>> utf8_to_index("日本語", 6)
    2
    """
    encoded = text.encode("utf-8", "surrogatepass")
    offset = max(0, min(offset, len(encoded)))
    return len(encoded[:offset].decode("utf-8", "ignore"))


def index_to_utf8(text: str, index: int) -> int:
    """The UTF-8 byte offset of code-point ``index`` in ``text``.

    >>> index_to_utf8("日本語", 2)
    6
    """
    return len(text[:index].encode("utf-8", "surrogatepass"))


def read_arguments(raw: str) -> tuple[Any, dict[str, Any]]:
    """A tool call's input from its JSON-string arguments, and the ``openai/…`` metadata that keeps them exact.

    Valid JSON gives its value, and the raw text in ``openai/arguments`` only when compact JSON would not
    reproduce it byte for byte. Invalid JSON (a model can produce it) gives the raw string itself as the input,
    flagged ``openai/invalid_arguments`` (the OpenAI Chat adapter's convention), so it is sent back verbatim.

    >>> read_arguments('{"a":1}'), read_arguments('{"a": 1}'), read_arguments('{"a": ')
    (({'a': 1}, {}), ({'a': 1}, {'openai/arguments': '{"a": 1}'}), ('{"a": ', {'openai/invalid_arguments': True}))
    """
    ok, value = parse_json_text(raw)
    if not ok:
        return raw, {"openai/invalid_arguments": True}
    return value, ({} if json_text(value) == raw else {"openai/arguments": raw})


def raw_arguments(value: Any, metadata: Mapping[str, Any]) -> str:
    """The JSON-string arguments for a tool call's input, from the metadata ``read_arguments`` gave.

    Kept raw text is used while it still says the same as the input; an invalid-arguments string is sent as is.

    >>> kept = {"openai/arguments": '{"a": 1}'}
    >>> raw_arguments({"a": 1}, kept), raw_arguments({"a": 2}, kept)
    ('{"a": 1}', '{"a":2}')
    >>> raw_arguments("{x", {"openai/invalid_arguments": True})
    '{x'
    """
    if metadata.get("openai/invalid_arguments") is True and type(value) is str:
        return value
    kept = metadata.get("openai/arguments")
    if type(kept) is str:
        ok, parsed = parse_json_text(kept)
        if ok and json_text(parsed) == json_text(value):
            return kept
    return json_text(value)


_VERSION_TAIL = re.compile(r"(-(preview|exp|latest)\b.*|-\d{3}|-\d{2}-\d{4})\Z")


def model_family(model: str) -> str:
    """A model name without its release suffix, so a signature's issuer names the family.

    >>> model_family("gemini-2.5-flash-preview-05-20"), model_family("gemini-2.0-flash-001")
    ('gemini-2.5-flash', 'gemini-2.0-flash')
    """
    return _VERSION_TAIL.sub("", model) or model
