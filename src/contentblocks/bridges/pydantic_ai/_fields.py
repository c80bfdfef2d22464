"""What the pydantic-ai bridge keeps where: its metadata keys, each part's extra fields, issuers and defaults.

Every pydantic-ai field with no neutral home is kept as ``pydantic_ai/<field>`` in the metadata of the block (or
message) the part became, when it differs from pydantic-ai's default; the writer gives it back to the same part.
pydantic-ai's own ``metadata`` (on requests, responses, system prompts, tool returns, text content) holds the
caller's data, as ``Message.metadata`` does: its keys are the neutral metadata's keys outside the namespace.

>>> extras({"content": "hi", "scope": "conversation", "timestamp": "2026-01-01T00:00:00Z"}, "system-prompt")
{'pydantic_ai/timestamp': '2026-01-01T00:00:00Z'}
>>> metadata_in({"trace": 1}), metadata_in(None), metadata_in(None, keep_none=True)
({'trace': 1}, {}, {'pydantic_ai/metadata': None})
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..._conversion._kernels import thaw

__all__ = [
    "EXTRA_KEYS",
    "ISSUERS",
    "LISTED",
    "METADATA",
    "NAMESPACE",
    "NATIVE",
    "PART_KIND",
    "REQUEST",
    "UPLOADERS",
    "cited_sources",
    "default_identifier",
    "extras",
    "issuer_of",
    "metadata_in",
    "own_keys",
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
    "tool-call": ("tool_kind", "ui_visibility", "id", "provider_name", "provider_details"),
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


def extras(raw: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The fields of ``raw`` (a dumped part of ``kind``) with no neutral home, as ``pydantic_ai/`` metadata."""
    found = {}
    for key, name in _EXTRA_NAMES[kind]:
        value = raw.get(key)
        if value is not None and not _is_default(key, value):  # most are null in a dump: tested inline first
            found[name] = value
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
        exact &= len(source["excerpts"]) <= 1
        if source["kind"] == "web":
            cited = {"kind": "uri", "value": source["url"]}
        else:
            exact &= source.get("document_id") is not None
            cited = {"kind": "reference", "value": source.get("document_id") or "?"}
        quote = source["excerpts"][0] if source["excerpts"] else None
        out.append({"source": cited, "title": source["title"], "quote": quote})
    if len(out) > 1 and all(o["title"] == out[0]["title"] and o["quote"] == out[0]["quote"] for o in out):
        first = out[0]
        return [{"source": first["source"], "other_sources": [o["source"] for o in out[1:]], "title": first["title"],
                 "quote": first["quote"]}], exact  # fmt: skip
    return out, exact and len(out) <= 1
