"""Checked reading of the JSON a browser posts, and what both Vercel forms share: files, signatures, metadata keys.

The SDK's JSON comes from a client, so every value is checked before it is used: a value of the wrong type, a
missing field, a nesting deeper than the neutral limits is a ``ValidationError`` at its path, never another
exception. A field the bridge does not know (a newer SDK's) is not dropped: it is kept under ``vercel_ai/extra``
and written back to the same part.

>>> part = Part({"type": "text", "text": "Hi", "sparkle": 1}, "$[0].parts[0]")
>>> part.string("text"), part.rest()
('Hi', {'vercel_ai/extra': {'sparkle': 1}})
>>> Part({"type": "text", "text": 3}, "$[0].parts[0]").string("text")
Traceback (most recent call last):
contentblocks.ValidationError: $[0].parts[0].text: expected a string, got int
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..._api import file_from_data_url
from ..._checks._rules import Limits
from ..._conversion._kernels import freeze
from ..._errors import ValidationError
from ..._model._classes import BytesSource, ReasoningBlock
from ...providers._contract import ISSUER_KEY, LossRecorder
from ...providers._toolkit import data_url, key_path
from .._shared import MetadataHandout
from .._wire import block, source

__all__ = [
    "EXTRA",
    "METADATA",
    "NAMESPACE",
    "NATIVE",
    "Meta",
    "Part",
    "fail",
    "file_block",
    "file_url",
    "json_value",
    "kept",
    "meta_of",
    "metadata_in",
    "native",
    "reasoning_block",
    "reasoning_metadata",
    "rebased",
]

NAMESPACE = "vercel_ai/"
#: On a JSON block: the block is an SDK part with no neutral block (a source, a provider-run result...), verbatim.
NATIVE = "vercel_ai/native_part"
#: The fields of a part (or message) this bridge does not know, written back as they were.
EXTRA = "vercel_ai/extra"
#: The limits of a JSON value posted by a browser: the library's, with a root container and 64 levels below it.
_LIMITS = Limits(max_depth=65)
#: Where each issuer's reasoning signature sits in ``providerMetadata``/``providerOptions``.
_SIGNATURES = {"anthropic": ("anthropic", "signature"), "gemini": ("google", "thoughtSignature")}
_REDACTED = ("anthropic", "redactedData")

T = TypeVar("T")
#: A block as its wire dict (see ``.._wire``).
Wire = dict[str, Any]


def fail(path: str, message: str) -> ValidationError:
    return ValidationError([(path, message)])


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def json_value(value: Any, path: str) -> Any:
    """``value`` when it is a JSON value the library takes, nested at most 64 levels below its root.

    The library's own check (``_freeze.freeze``): finite numbers, string keys, no lone surrogates, the size
    limits, and a walk that hostile nesting cannot overflow; every problem with its path.
    """
    problems: list[tuple[str, str]] = []
    freeze(value, path, _LIMITS, problems)
    if problems:
        raise ValidationError(problems)
    return value


class Part:
    """One JSON object of the SDK's, read field by field; ``rest`` keeps the fields nobody read."""

    __slots__ = ("path", "raw", "taken")

    def __init__(self, raw: object, path: str) -> None:
        if not isinstance(raw, dict):
            raise fail(path, f"expected an object, got {_kind(raw)}")
        self.raw: dict[str, Any] = raw
        self.path = path
        self.taken = {"type"}

    def _get(self, key: str, check: Callable[[Any], bool], what: str, *, optional: bool) -> Any:
        self.taken.add(key)
        if key not in self.raw:
            if optional:
                return None
            raise fail(f"{self.path}.{key}", "required")
        value = self.raw[key]
        if not check(value):
            raise fail(f"{self.path}.{key}", f"expected {what}, got {_kind(value)}")
        return value

    def string(self, key: str, *, optional: bool = False) -> Any:
        value = self.raw.get(key)
        if type(value) is str:  # the common case, checked at once
            self.taken.add(key)
            return value
        return self._get(key, lambda v: isinstance(v, str), "a string", optional=optional)

    def boolean(self, key: str, *, optional: bool = True) -> Any:
        return self._get(key, lambda v: isinstance(v, bool), "a boolean", optional=optional)

    def array(self, key: str) -> list[Any]:
        return self._get(key, lambda v: isinstance(v, list), "an array", optional=False)  # type: ignore[no-any-return]

    def object(self, key: str, *, optional: bool = True) -> Any:
        value = self._get(key, lambda v: isinstance(v, dict), "an object", optional=optional)
        return None if value is None else json_value(value, f"{self.path}.{key}")

    def value(self, key: str) -> Any:
        """Any JSON value (``None`` when absent; ``has`` tells the two apart)."""
        self.taken.add(key)
        return json_value(self.raw.get(key), f"{self.path}.{key}")

    def has(self, key: str) -> bool:
        return key in self.raw

    def rest(self) -> dict[str, Any]:
        extra = {k: v for k, v in self.raw.items() if k not in self.taken}
        if not extra:
            return {}
        return {EXTRA: json_value(extra, self.path)}


def native(raw: Mapping[str, Any], path: str) -> Wire:
    """An SDK part with no neutral block, kept whole as a JSON block flagged ``vercel_ai/native_part``."""
    return block("json", value=json_value(raw, path), metadata={NATIVE: True})


def kept(make: Callable[[], Wire], raw: Mapping[str, Any], path: str) -> Wire:
    """The block ``make`` builds, or ``raw`` kept verbatim when the neutral rules refuse it (an empty text)."""
    try:
        return make()
    except ValidationError as e:
        if any(p.startswith(path) for p, _ in e.errors):
            raise  # not the SDK's shape: refused, not kept
        return native(raw, path)


def rebased(error: ValidationError, path: str) -> ValidationError:
    """``error`` (raised at a neutral value's own paths) at ``path`` into the SDK's JSON."""
    return ValidationError([(path + p[1:], m) for p, m in error.errors])


def file_url(url: str, media_type: str, filename: str | None, metadata: dict[str, Any]) -> Wire:
    """A file part's ``url``: inline bytes for a base64 data URL this bridge writes back the same, else a link."""
    if url[:5].lower() == "data:":
        inline = file_from_data_url(url).source
        assert isinstance(inline, BytesSource)  # noqa: S101 - a data URL gives bytes
        if data_url(media_type, inline.data) != url:
            raise fail("$.url", "a data URL this bridge would not write back the same")
        return block("file", media_type=media_type, source=source("base64", data=inline.data), filename=filename,
                     metadata=metadata)
    return block("file", media_type=media_type, source=source("url", url=url), filename=filename, metadata=metadata)


def file_block(data: str, media_type: str, filename: str | None, metadata: dict[str, Any], path: str) -> Wire:
    """A ``ModelMessage`` file's ``data``: a URL (``http(s):``, ``data:``) or base64 text."""
    if data.split(":", 1)[0].lower() in {"http", "https", "data"}:
        return file_url(data, media_type, filename, metadata)
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise fail(path, "neither a URL nor base64") from None
    if base64.b64encode(raw).decode("ascii") != data:
        raise fail("$.data", "base64 this bridge would not write back the same")
    return block("file", media_type=media_type, source=source("base64", data=raw), filename=filename,
                 metadata=metadata)


def reasoning_block(text: str, provider: dict[str, Any] | None, key: str, more: dict[str, Any]) -> Wire:
    """A reasoning part; a signature in its provider data (``anthropic.signature``...) becomes the block's."""
    provider = {name: dict(value) if isinstance(value, dict) else value for name, value in (provider or {}).items()}
    metadata, signature, redacted = dict(more), None, None
    for issuer, (name, field) in _SIGNATURES.items():
        entry = provider.get(name)
        if isinstance(entry, dict) and isinstance(entry.get(field), str) and signature is None:
            signature = entry.pop(field)
            metadata[ISSUER_KEY] = issuer
    entry = provider.get(_REDACTED[0])
    if isinstance(entry, dict) and isinstance(entry.get(_REDACTED[1]), str) and not text and signature is None:
        redacted = entry.pop(_REDACTED[1]).encode("utf-8")
        metadata[ISSUER_KEY] = "anthropic"
    provider = {name: value for name, value in provider.items() if value != {}}
    if provider:
        metadata[NAMESPACE + key] = provider
    return block("reasoning", text=text or None, signature=signature, redacted=redacted, metadata=metadata)


def reasoning_metadata(block: ReasoningBlock, provider: Any, path: str, losses: LossRecorder) -> dict[str, Any] | None:
    """The provider data a reasoning block is written with: ``provider`` kept, its signature put back.

    ``{"": False}`` when the block has no text and neither its signature nor its redacted bytes can be written:
    the block then goes with them (their losses say so).
    """
    provider = {k: dict(v) if isinstance(v, dict) else v for k, v in (provider or {}).items()}
    issuer = block.metadata.get(ISSUER_KEY)
    family = issuer.split("/", 1)[0] if isinstance(issuer, str) else None
    if block.signature is not None:
        if family in _SIGNATURES:
            name, field = _SIGNATURES[family]
            provider.setdefault(name, {})[field] = block.signature
        else:
            losses.add(f"{path}.signature", "the SDK keeps a signature per provider; this one names no provider it "
                       "has", "state_not_replayed")
    if block.redacted is not None:
        try:
            text = block.redacted.decode("utf-8") if family == "anthropic" else None
        except UnicodeDecodeError:
            text = None
        if text is not None:
            provider.setdefault(_REDACTED[0], {})[_REDACTED[1]] = text
        else:
            losses.add(f"{path}.redacted", "the SDK holds Anthropic's redacted reasoning as text only",
                       "state_not_replayed")
    if isinstance(issuer, str) and "/" in issuer:
        losses.add(key_path(path, ISSUER_KEY), "the SDK names the provider only; the model family is not kept",
                   "metadata_not_sent")
    placed = (block.signature is not None and family in _SIGNATURES) or (
        block.redacted is not None and _REDACTED[0] in provider and _REDACTED[1] in provider[_REDACTED[0]])
    if not block.text and not placed:
        return {"": False}
    return provider or None


class Meta(MetadataHandout):
    """One block's or message's metadata, handed out key by key to the SDK's fields."""

    __slots__ = ()

    def __init__(self, metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> None:
        super().__init__(metadata, path, losses, "the SDK", NAMESPACE, METADATA)

    def fields(self, *names: str) -> dict[str, Any]:
        """The ``vercel_ai/<name>`` keys present, as the part's fields, then the kept unknown fields."""
        if not self.values:  # most parts: no metadata
            return {}
        written = {name: self.take(NAMESPACE + name) for name in names if NAMESPACE + name in self.values}
        extra = self.take(EXTRA)
        if isinstance(extra, dict):
            written.update({k: v for k, v in extra.items() if k not in written and k != "type"})
        else:
            self.taken.discard(EXTRA)
        return written


def meta_of(metadata: Mapping[str, Any], path: str, losses: LossRecorder) -> Meta:
    """The handout of ``metadata`` (at ``path``); one shared empty handout for the many parts with none.

    It has nothing to hand out, take or report: ``take`` records only keys it holds, and ``done`` reports only
    keys it holds, whatever its ``taken`` gathers.
    """
    return Meta(metadata, path, losses) if metadata else _NOTHING


#: A message's ``metadata`` when it cannot be spread over neutral keys (not an object, or a namespaced key).
METADATA = "vercel_ai/metadata"


def metadata_in(value: object) -> dict[str, Any]:
    """A message's ``metadata`` as neutral metadata: its keys when it is an object the neutral keys can hold."""
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(k, str) and k and not k.startswith((NAMESPACE, "contentblocks/")) for k in value)
    ):
        return dict(value)
    return {METADATA: value}


_NOTHING = Meta({}, "$", LossRecorder())
