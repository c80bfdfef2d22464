"""What the pydantic-ai bridge keeps where: its metadata keys, each part's extra fields, issuers and defaults.

Every pydantic-ai field with no neutral home is kept as ``pydantic_ai/<field>`` in the metadata of the block (or
message) the part became, when it differs from pydantic-ai's default; the writer gives it back to the same part.
pydantic-ai's own ``metadata`` (on requests, responses, system prompts, tool returns, text content) holds the
caller's data, as ``Message.metadata`` does: its keys are the neutral metadata's keys outside the namespace.

Values are kept as pydantic-ai's JSON mode writes them (``ModelMessagesTypeAdapter.dump_python(mode="json")``):

>>> import datetime
>>> from pydantic_ai.messages import SystemPromptPart
>>> part = SystemPromptPart("hi", timestamp=dt.datetime(2026, 1, 1, tzinfo=datetime.UTC))
>>> extras(part, "system-prompt")
{'pydantic_ai/timestamp': '2026-01-01T00:00:00Z'}
>>> metadata_in({"trace": 1}), metadata_in(None), metadata_in(None, keep_none=True)
({'trace': 1}, {}, {'pydantic_ai/metadata': None})
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib
import operator
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from ..._conversion._kernels import thaw

__all__ = [
    "AS_IS",
    "EXTRA_KEYS",
    "ISSUERS",
    "LISTED",
    "METADATA",
    "NAMESPACE",
    "NATIVE",
    "PART_KIND",
    "REQUEST",
    "STATE_NAMESPACES",
    "UPLOADERS",
    "cited_sources",
    "default_identifier",
    "dumped",
    "extras",
    "issuer_of",
    "metadata_in",
    "own_keys",
    "plain",
    "provider_of",
    "url_kind",
]

NAMESPACE = "pydantic_ai/"
#: On a JSON block: the block is a pydantic-ai part (or user content item) with no neutral block, kept verbatim.
NATIVE = "pydantic_ai/native_part"
#: On the first message of a ``ModelRequest``: the request's own fields (``{}`` when all are defaults), present
#: when the message must start a new request rather than join the one before.
REQUEST = "pydantic_ai/request"
#: pydantic-ai's ``metadata`` when it cannot be spread over neutral keys (not a dict, or a key the namespace owns).
METADATA = "pydantic_ai/metadata"
#: On a user message read from a ``RetryFeedbackPart`` (a retry prompt answering no tool call): written back as one.
PART_KIND = "pydantic_ai/part_kind"
#: On a user message or tool result whose pydantic-ai content was a list of one item rather than the item.
LISTED = "pydantic_ai/content_list"

#: The fields of each part kind (and of requests, responses and user content items) kept as ``pydantic_ai/``
#: metadata; the others are mapped to neutral fields.
EXTRA_KEYS: Mapping[str, tuple[str, ...]] = {
    "request": ("timestamp", "instructions", "run_id", "conversation_id", "state"),
    "response": (
        "usage", "model_name", "model_id", "timestamp", "request_timestamp", "duration", "provider_name",
        "provider_url", "canonical_system", "provider_details", "provider_response_id", "finish_reason", "run_id",
        "conversation_id", "workspace_ref", "history_digest", "failed_attempts", "state",
    ),
    "system-prompt": ("timestamp", "dynamic_ref", "context_id", "scope"),
    "user-prompt": ("timestamp",),
    "tool-return": ("timestamp", "tool_kind", "ui_visibility", "retry", "outcome"),  # file digests are derived
    "retry-feedback": ("timestamp", "retry"),
    "text": ("id", "provider_name", "provider_details"),
    "thinking": ("id", "provider_details"),
    "compaction": ("id", "provider_details", "metadata"),
    "tool-call": ("tool_kind", "ui_visibility", "id", "provider_name", "provider_details"),
    # a tool the provider ran: its ``provider_name`` is the blocks' issuer (``contentblocks/issuer``)
    "builtin-tool-call": ("tool_kind", "ui_visibility", "id", "provider_details"),
    "builtin-tool-return": ("timestamp", "tool_kind", "ui_visibility", "outcome", "provider_details"),
    "file": ("id", "provider_name", "provider_details"),
    "text-content": (),
    "structured-content": ("content", "tag", "description"),
    "image-url": ("force_download", "vendor_metadata", "identifier", "kind"),
    "audio-url": ("force_download", "vendor_metadata", "identifier", "kind"),
    "video-url": ("force_download", "vendor_metadata", "identifier", "kind"),
    "document-url": ("force_download", "vendor_metadata", "identifier", "kind"),
    "binary": ("vendor_metadata", "identifier"),
    "uploaded-file": ("vendor_metadata", "identifier"),
}

_DEFAULTS: Mapping[str, Any] = {
    "scope": "conversation", "force_download": False, "state": "complete", "outcome": "success",
    "content_file_digests": [], "content": "",
}

#: pydantic-ai's ``provider_name`` on reasoning, and the issuer the adapters record for the same provider.
ISSUERS: Mapping[str, str] = {"anthropic": "anthropic", "openai": "openai", "google-gla": "gemini",
                              "google-vertex": "gemini", "google": "gemini"}
#: The providers pydantic-ai's ``UploadedFile`` can name (its ``UploadedFileProviderName``).
UPLOADERS = ("anthropic", "openai", "google", "google-cloud", "google-gla", "google-vertex", "bedrock", "xai")
_PROVIDERS = {"anthropic": "anthropic", "openai": "openai", "gemini": "google-gla"}


def _zero_usage(value: object) -> bool:
    """Whether a dumped ``RequestUsage`` counts nothing (pydantic-ai's default for a response)."""
    if not isinstance(value, Mapping):
        return False
    return all(v in (0, None, {}) for v in value.values())


def _is_default(key: str, value: object) -> bool:
    if value is None:
        return True
    if key == "usage":
        return _zero_usage(value)
    return key in _DEFAULTS and _DEFAULTS[key] == value and type(_DEFAULTS[key]) is type(value)


#: ``EXTRA_KEYS`` with each key's metadata name beside it, built once (``extras`` runs on every part).
_EXTRA_NAMES: Mapping[str, tuple[tuple[str, str], ...]] = {
    kind: tuple((key, NAMESPACE + key) for key in keys) for kind, keys in EXTRA_KEYS.items()
}


_SERIALIZERS: dict[type, Any] = {}


def _serializer(cls: type) -> Any:
    """The serializer pydantic builds for a pydantic-ai class, with ``ModelMessagesTypeAdapter``'s config for bytes.

    Built as pydantic-ai builds its own for a class (a ``TypeAdapter`` takes no config for a dataclass), once.
    """
    serializer = _SERIALIZERS.get(cls)
    if serializer is None:
        import pydantic  # noqa: PLC0415 - pydantic-ai's own dependency, imported with it
        import pydantic_core  # noqa: PLC0415

        config = pydantic_core.core_schema.CoreConfig(ser_json_bytes="base64")
        serializer = _SERIALIZERS[cls] = pydantic_core.SchemaSerializer(pydantic.TypeAdapter(cls).core_schema, config)
    return serializer


def dumped(obj: Any) -> Any:
    """A pydantic-ai object (a part, a content item) as ``ModelMessagesTypeAdapter``'s JSON mode writes it."""
    if type(obj) in _SCALARS:
        return obj
    return _serializer(type(obj)).to_python(obj, mode="json")


_SCALARS = frozenset({str, int, bool, type(None)})


def plain(obj: Any, field: str) -> Any:
    """``obj.<field>`` as ``ModelMessagesTypeAdapter``'s JSON mode writes it (the field's own serializer).

    Strings, integers, booleans and ``None`` are the same in JSON mode, and a datetime is written by pydantic's
    core, which needs no field. So is a dict or list in a field whose type leaves its items to pydantic's
    inference (``Any``, ``dict[str, Any]``: tool arguments and results, metadata, values), written with the
    adapter's modes for bytes and for infinities and NaN (its config's and pydantic's defaults). Any other
    value is dumped through ``obj``'s class, that field alone.

    While :data:`AS_IS` is set, such a dict or list is handed over as it is: where it holds only JSON's own
    types, which is all the neutral structurer takes (a tuple as a list), JSON mode would give an equal copy.
    """
    value = getattr(obj, field)
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dt.datetime:
        return _to_jsonable()(value)
    if field in _INFERRED and kind in (dict, list):
        return value if AS_IS.get() else _to_jsonable()(value, bytes_mode="base64", inf_nan_mode="null")
    return _serializer(type(obj)).to_python(obj, mode="json", include={field})[field]


#: Set by the reader's first, fast attempt (see ``plain``); when the structurer then refuses a value, the reader
#: builds again with the values in JSON mode.
AS_IS: ContextVar[bool] = ContextVar("contentblocks_pydantic_ai_as_is", default=False)

#: The fields whose type serializes a dict's or list's items by inference, as ``to_jsonable_python`` does.
_INFERRED = frozenset({"args", "content", "metadata", "value", "vendor_metadata"})


@functools.cache
def _to_jsonable() -> Any:
    return importlib.import_module("pydantic_core").to_jsonable_python


def _zero_fields(value: object) -> bool:
    """Whether an object's fields (a ``RequestUsage``'s counts) are all zero: its dump is pydantic-ai's default."""
    fields = getattr(value, "__dict__", None)
    return fields is not None and all(v in (0, None, {}) for v in fields.values())


def _getter(keys: tuple[str, ...]) -> Any:
    """One C call that reads all of ``keys`` off an object, as a tuple."""
    if len(keys) == 1:
        one = operator.attrgetter(keys[0])
        return lambda obj: (one(obj),)
    return operator.attrgetter(*keys) if keys else lambda obj: ()  # noqa: ARG005 - the same signature


#: Per kind: the metadata names of its extra fields, and a getter of all their values at once (built once).
_GETTERS: Mapping[str, tuple[tuple[str, ...], Any]] = {
    kind: (tuple(NAMESPACE + key for key in keys), _getter(keys)) for kind, keys in EXTRA_KEYS.items()
}
#: The scalar defaults by metadata name (``usage``'s, not a scalar, is told by ``_zero_fields``).
_SCALAR_DEFAULTS: Mapping[str, Any] = {NAMESPACE + key: value for key, value in _DEFAULTS.items()
                                       if type(value) in _SCALARS}  # fmt: skip
_USAGE = NAMESPACE + "usage"


def extras(raw: Any, kind: str) -> dict[str, Any]:
    """The fields of ``raw`` (a pydantic-ai part of ``kind``) with no neutral home, as ``pydantic_ai/`` metadata.

    Most are ``None``: all are read in one call and those dropped first; what is left is put in JSON mode
    (``plain``) and dropped when it is pydantic-ai's default.
    """
    names, get = _GETTERS[kind]
    found = {name: value for name, value in zip(names, get(raw), strict=True) if value is not None}
    defaults = []
    for name, value in found.items():  # replacing a value while iterating is allowed; deleting is not
        cls = type(value)
        if cls is dt.datetime:  # a timestamp: on most parts
            found[name] = _to_jsonable()(value)
        elif cls in _SCALARS:
            default = _SCALAR_DEFAULTS.get(name, _SCALARS)
            if default == value and type(default) is cls:
                defaults.append(name)
        elif name == _USAGE and _zero_fields(value):
            defaults.append(name)
        else:
            key = name.removeprefix(NAMESPACE)
            found[name] = dumped_value = plain(raw, key)
            if _is_default(key, dumped_value):
                defaults.append(name)
    for name in defaults:
        del found[name]
    return found


def own_keys(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The neutral metadata outside the ``pydantic_ai/`` and ``contentblocks/`` namespaces, as plain values."""
    return {k: thaw(v) for k, v in metadata.items() if not k.startswith((NAMESPACE, "contentblocks/"))}


def metadata_in(value: object, *, keep_none: bool = False) -> dict[str, Any]:
    """pydantic-ai's ``metadata`` as neutral metadata: its keys when it is a dict the neutral keys can hold.

    ``keep_none`` records an absent value too, where its absence is itself a choice (``TextContent`` rather than
    a plain string).
    """
    if value is None:
        return {METADATA: None} if keep_none else {}
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(k, str) and k and not k.startswith((NAMESPACE, "contentblocks/")) for k in value)
    ):
        return dict(value)
    return {METADATA: value}


def default_identifier(key: str | bytes) -> str:
    """The identifier pydantic-ai gives a file that was given none: a hash of its URL, data or file id."""
    data = key.encode("utf-8") if isinstance(key, str) else key
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:6]


def url_kind(media_type: str) -> str:
    """The URL item pydantic-ai has for a media type: ``image-url``, ``audio-url``, ``video-url``, ``document-url``.

    >>> url_kind("image/png"), url_kind("application/pdf")
    ('image-url', 'document-url')
    """
    top = media_type.split("/", 1)[0].lower()
    return f"{top}-url" if top in {"image", "audio", "video"} else "document-url"


#: The providers whose compaction state the adapters keep under their namespace (``anthropic/encrypted_content``),
#: and which pydantic-ai keeps in a compaction part's ``id`` and ``provider_details``.
STATE_NAMESPACES = ("anthropic", "openai")


def issuer_of(provider_name: str) -> str:
    """The issuer recorded for reasoning pydantic-ai says ``provider_name`` produced.

    >>> issuer_of("google-gla"), issuer_of("bedrock")
    ('gemini', 'bedrock')
    """
    return ISSUERS.get(provider_name, provider_name)


def provider_of(issuer: str) -> str:
    """pydantic-ai's ``provider_name`` for reasoning of a recorded issuer (``"gemini/gemini-2.5-pro"`` included).

    >>> provider_of("gemini/gemini-2.5-pro"), provider_of("anthropic")
    ('google-gla', 'anthropic')
    """
    provider = issuer.split("/", 1)[0]
    return _PROVIDERS.get(provider, provider)


def _field(source: Any, name: str) -> Any:
    """A field of a pydantic-ai citation source, given as its object or as its dict form."""
    return source.get(name) if isinstance(source, dict) else getattr(source, name, None)


def cited_sources(sources: list[Any]) -> tuple[list[dict[str, Any]], bool]:
    """The fields of the neutral citations one pydantic-ai citation's ``sources`` give, and whether they say it all.

    Sources that share a title and their one excerpt are one citation naming them all (``other_sources``), as
    a neutral citation's title and quote apply to every source it names; sources that differ there are a
    citation each (not exact: the native citation is kept beside them).

    >>> web = {"kind": "web", "url": "https://a.example", "title": "A", "excerpts": []}
    >>> doc = {"kind": "document", "document_id": "kb-7", "title": "A", "excerpts": []}
    >>> cited_sources([web, doc])
    ([{'source': {'kind': 'uri', 'value': 'https://a.example'}, 'other_sources': [{'kind': 'reference', \
'value': 'kb-7'}], 'title': 'A', 'quote': None}], True)
    """
    out, exact = [], True
    for source in sources:
        excerpts = _field(source, "excerpts") or []
        exact &= len(excerpts) <= 1
        if _field(source, "kind") == "web":
            cited = {"kind": "uri", "value": _field(source, "url")}
        else:
            document = _field(source, "document_id")
            exact &= document is not None
            cited = {"kind": "reference", "value": document or "?"}
        out.append({"source": cited, "title": _field(source, "title"), "quote": excerpts[0] if excerpts else None})
    if len(out) > 1 and all(o["title"] == out[0]["title"] and o["quote"] == out[0]["quote"] for o in out):
        first = out[0]
        return [{"source": first["source"], "other_sources": [o["source"] for o in out[1:]], "title": first["title"],
                 "quote": first["quote"]}], exact  # fmt: skip
    return out, exact and len(out) <= 1
