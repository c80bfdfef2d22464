"""Cache breakpoints in a ``ModelMessage``: ``providerOptions.anthropic.cacheControl``, ``bedrock.cachePoint``.

The SDK has no neutral breakpoint: each provider package reads its own key of ``providerOptions``.
``@ai-sdk/anthropic`` reads ``anthropic.cacheControl`` (``{"type": "ephemeral", "ttl"?: "5m" | "1h"}``) on a
message or on any of its parts (https://ai-sdk.dev/providers/ai-sdk-providers/anthropic#cache-control);
``@ai-sdk/amazon-bedrock`` reads ``bedrock.cachePoint`` (``{"type": "default"}``, with the Converse API's
``ttl`` of ``"5m"`` or ``"1h"``) on a message only, and puts the cache point after the message's content
(https://ai-sdk.dev/providers/ai-sdk-providers/amazon-bedrock#cache-points,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html).

Reading, each form the neutral field holds becomes the block's or message's ``cache`` and leaves the
``vercel_ai/providerOptions`` metadata, which keeps the rest. Writing, a block's breakpoint is its part's
``anthropic.cacheControl``, a message's both forms; a message that had one form only says which in
``vercel_ai/cache_form``, so that it is written back as it was.

>>> wire = {"type": "text", "text": "Hi", "metadata": {"vercel_ai/providerOptions": {
...     "anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}}, "openai": {"x": 1}}}}
>>> take_cache(wire)
{'type': 'text', 'text': 'Hi', 'metadata': {'vercel_ai/providerOptions': {'openai': {'x': 1}}}, 'cache': {'ttl': 3600}}
>>> BEDROCK.read({"type": "default", "ttl": "1h"}), BEDROCK.read({"type": "default", "ttl": "2h"})
(CacheBreakpoint(ttl=3600), None)
"""

from __future__ import annotations

from typing import Any

from ..._model._classes import CacheBreakpoint
from ...providers._cache import EPHEMERAL, HINT, MarkerForm
from ...providers._contract import LossRecorder
from ...providers._toolkit import key_path
from ._values import NAMESPACE

__all__ = ["BEDROCK", "FORM", "MARKABLE", "control", "put_cache", "take_cache", "take_message_cache"]

_OPTIONS = NAMESPACE + "providerOptions"
#: On a message read with one form of its breakpoint only: ``"anthropic"`` or ``"bedrock"`` (absent: both).
FORM = NAMESPACE + "cache_form"
#: The ``ModelMessage`` parts that carry ``providerOptions`` the Anthropic provider reads a ``cacheControl`` from.
MARKABLE = frozenset({"text", "image", "file", "reasoning", "tool-call", "tool-result"})
#: Bedrock's ``cachePoint``: the Converse API's ``CachePointBlock``, with Anthropic's lifetimes.
BEDROCK = MarkerForm(("type", "default"), EPHEMERAL.ttls)
#: Where each form sits in ``providerOptions``.
_SLOTS = {"anthropic": ("anthropic", "cacheControl"), "bedrock": ("bedrock", "cachePoint")}


def _wire(cache: CacheBreakpoint) -> dict[str, Any]:
    return {} if cache.ttl is None else {"ttl": cache.ttl}


def _found(options: Any, form: str) -> CacheBreakpoint | None:
    """The breakpoint ``options`` (a ``providerOptions`` object) holds in ``form``'s slot, if the field holds it."""
    name, key = _SLOTS[form]
    entry = options.get(name) if isinstance(options, dict) else None
    if not isinstance(entry, dict) or key not in entry:
        return None
    return (EPHEMERAL if form == "anthropic" else BEDROCK).read(entry[key])


def _pop(metadata: dict[str, Any], form: str) -> None:
    """Remove ``form``'s slot from the ``providerOptions`` metadata, and what it leaves empty."""
    options = metadata[_OPTIONS] = dict(metadata[_OPTIONS])
    name, key = _SLOTS[form]
    entry = options[name] = dict(options[name])
    del entry[key]
    if not entry:
        del options[name]
    if not options:
        del metadata[_OPTIONS]


def take_cache(wire: dict[str, Any]) -> dict[str, Any]:
    """The block ``wire`` with an Anthropic ``cacheControl`` of its ``providerOptions`` as its ``cache``."""
    metadata = wire.get("metadata")
    if not metadata or _OPTIONS not in metadata:
        return wire
    cache = _found(metadata[_OPTIONS], "anthropic")
    if cache is None:
        return wire
    metadata = dict(metadata)
    _pop(metadata, "anthropic")
    wire["metadata"] = metadata
    wire["cache"] = _wire(cache)
    return wire


def take_message_cache(metadata: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A message's metadata without the breakpoint its ``providerOptions`` hold, and that breakpoint's wire form.

    Both forms of one breakpoint are one breakpoint; when the two differ, the Anthropic form is the breakpoint
    and Bedrock's stays in the metadata.
    """
    options = metadata.get(_OPTIONS)
    if options is None:
        return metadata, None
    anthropic, bedrock = _found(options, "anthropic"), _found(options, "bedrock")
    if anthropic is None and bedrock is None:
        return metadata, None
    metadata = dict(metadata)
    if anthropic is not None and bedrock == anthropic:
        _pop(metadata, "anthropic")
        _pop(metadata, "bedrock")
        return metadata, _wire(anthropic)
    form = "anthropic" if anthropic is not None else "bedrock"
    _pop(metadata, form)
    metadata[FORM] = form
    return metadata, _wire(anthropic or bedrock)  # type: ignore[arg-type]


def control(cache: CacheBreakpoint, path: str, losses: LossRecorder) -> dict[str, Any]:
    """The ``cacheControl`` for ``cache`` (at ``path``); a time to live not 5 minutes or 1 hour is reported.

    Such a time to live is written as the nearer of the two.
    """
    written, exact = EPHEMERAL.write(cache)
    if not exact:
        losses.add(f"{path}.ttl", f"the SDK's providers cache for 5 minutes or 1 hour only; a time to live of "
                   f"{cache.ttl} seconds is written as {written['ttl']}", HINT)
    return written


def put_cache(part: dict[str, Any], cache_control: dict[str, Any], path: str, losses: LossRecorder,
              forms: tuple[str, ...] = ("anthropic",)) -> None:  # fmt: skip
    """Write ``cache_control`` (the breakpoint at ``path``) into ``part``'s ``providerOptions`` in each of ``forms``.

    It is merged with the ``providerOptions`` the part keeps; a form already there gives way to the neutral
    breakpoint, and is reported.
    """
    options = {name: dict(value) if isinstance(value, dict) else value
               for name, value in part.get("providerOptions", {}).items()}
    where = key_path(path.removesuffix(".cache"), _OPTIONS)
    for form in forms:
        name, key = _SLOTS[form]
        entry = options.get(name)
        if not isinstance(entry, dict):
            if entry is not None:
                losses.add(where, f"providerOptions.{name} is not an object; replaced by the breakpoint",
                           "metadata_not_sent")
            entry = options[name] = {}
        elif key in entry:
            losses.add(where, f"providerOptions.{name}.{key} gives way to the neutral breakpoint",
                       "metadata_not_sent")
        ttl = {"ttl": cache_control["ttl"]} if "ttl" in cache_control else {}
        entry[key] = cache_control if form == "anthropic" else {"type": "default", **ttl}
    part["providerOptions"] = options
