"""Native extras in metadata: kept when read, sent back only through an allow-list, reported when not sent.

A provider-native field with no neutral home is kept verbatim in the block's (or message's) metadata under
``"<namespace>/<field>"`` when read (``take_extras``), and written back as ``<field>`` when the same provider is
the target, but only where the request type has that field and only with a value of the field's shape (the
allow-list of the position, field -> ``_shapes`` kind), and never over a field the adapter wrote itself. Every
other metadata entry stays local and is reported as ``metadata_not_sent``: a stored ``latency_ms`` or
``index`` never reaches a request. ``PayloadWriter`` is what every adapter's payload writer builds on.

>>> from contentblocks.providers._shapes import Choice, Struct
>>> native = {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
>>> meta = take_extras(native, {"type", "text"}, "anthropic")
>>> meta
{'anthropic/cache_control': {'type': 'ephemeral'}}
>>> out = {"type": "text", "text": "hi"}
>>> used = put_extras(out, meta, "anthropic", {"cache_control": Struct("CacheControl", {"type": Choice("ephemeral")})})
>>> out == native, sorted(used)
(True, ['anthropic/cache_control'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from .._json._values import thaw
from ._contract import ISSUER_KEY, LossKind, LossRecorder
from ._shapes import Kind, fits
from ._toolkit import key_path

__all__ = [
    "BOOKKEEPING",
    "FORMAT_FLAGS",
    "PROVIDER_STATE",
    "PayloadWriter",
    "put_extras",
    "report_metadata",
    "take_extras",
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
        "contentblocks/json_text",
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
        "openai/item_type",
    }
)

#: Provider bookkeeping: metadata a reader keeps only so that its own adapter can send an item back as it was
#: (item ids, statuses, phases, the settings of a generated image, the native form of citations that travel as
#: neutral citations). Nothing of the user's is in it, so another adapter leaves it out without a loss; the
#: adapter that uses it (``PayloadWriter.bookkeeping``) reports it where it has no place.
BOOKKEEPING: frozenset[str] = frozenset(
    {
        "openai/id",
        "openai/status",
        "openai/phase",
        "openai/reasoning_part",
        "openai/reasoning_detail",
        "openai/annotations",
        "openai/encrypted_content",
        "openai/action",
        "openai/background",
        "openai/output_format",
        "openai/quality",
        "openai/size",
        "anthropic/citations",
        "gemini/toolType",
        "contentblocks/seal",
    }
)

#: Opaque provider state kept in metadata that only its issuer can use: another adapter reports it as
#: ``state_not_replayed``, never as metadata it might have sent.
PROVIDER_STATE: frozenset[str] = frozenset(
    {"gemini/thought_signature", "anthropic/server_result", "openai/server_item"}
)


def take_extras(native: Mapping[str, Any], known: Iterable[str], namespace: str) -> dict[str, Any]:
    """Metadata entries for the native fields the adapter does not map (kept verbatim, ``null`` included)."""
    known = set(known)
    return {f"{namespace}/{key}": value for key, value in native.items() if key not in known}


def put_extras(
    native: dict[str, Any],
    metadata: Mapping[str, Any],
    namespace: str,
    allowed: Mapping[str, Kind],
    skip: Iterable[str] = (),
) -> set[str]:
    """Write ``<namespace>/<field>`` metadata back as native fields; return the metadata keys used.

    Only fields in ``allowed`` are written, and only with a value that fits the field's kind: the fields the
    provider's request type has at this position and the adapter does not map itself. Keys in ``skip`` (the
    adapter's own flags) are left alone; a field already set is not overwritten.

    >>> from contentblocks.providers._shapes import STR
    >>> out = {"type": "document"}
    >>> meta = {"anthropic/title": "Q3", "anthropic/context": 5, "anthropic/latency_ms": 12}
    >>> sorted(put_extras(out, meta, "anthropic", {"title": STR, "context": STR}))
    ['anthropic/title']
    >>> out
    {'type': 'document', 'title': 'Q3'}
    """
    prefix = f"{namespace}/"
    skipped = set(skip)
    used: set[str] = set()
    for key, value in metadata.items():
        if key.startswith(prefix) and key not in skipped:
            name = key[len(prefix) :]
            kind = allowed.get(name)
            if kind is not None and name not in native and fits(value, kind):
                native[name] = thaw(value)
                used.add(key)
    return used


def report_metadata(
    recorder: LossRecorder,
    path: str,
    metadata: Mapping[str, Any],
    used: Iterable[str],
    target: str,
    own: AbstractSet[str] = frozenset(),
) -> None:
    """Report every metadata key that did not make it into the payload (``used`` lists those that did).

    The issuer key (bookkeeping for reasoning state) and the ``FORMAT_FLAGS`` of any provider are never
    reported: they hold no content of their own; nor is another adapter's ``BOOKKEEPING`` (``own`` is the
    writer's own, reported like any metadata). Another adapter's ``PROVIDER_STATE`` is ``state_not_replayed``.
    """
    done = set(used) | {ISSUER_KEY} | FORMAT_FLAGS | (BOOKKEEPING - own)
    for key in metadata:
        if key in done:
            continue
        if key in PROVIDER_STATE - own:
            reason = f"provider state only its issuer can use; not sent to {target}"
            recorder.add(key_path(path, key), reason, "state_not_replayed")
        else:
            reason = f"metadata has no place in the {target} request; not sent"
            recorder.add(key_path(path, key), reason, "metadata_not_sent")


class PayloadWriter:
    """What the adapters' payload writers share: a loss recorder, and writing a block's extras back.

    A subclass sets ``namespace`` (its metadata prefix, ``anthropic``), ``target`` (the name its loss
    reasons use, ``Anthropic``), to use :meth:`extras`, ``allow_lists`` (position -> field -> kind), and
    ``own_state``: the keys of ``BOOKKEEPING`` and ``PROVIDER_STATE`` it uses itself.
    """

    namespace: str
    target: str
    allow_lists: Mapping[str, Mapping[str, Kind]]
    own_state: AbstractSet[str] = frozenset()

    def __init__(self) -> None:
        self.losses = LossRecorder()

    def loss(self, path: str, reason: str, kind: LossKind) -> None:
        """Report a loss of ``kind`` at ``path``."""
        self.losses.add(path, reason, kind)

    def report(self, path: str, metadata: Mapping[str, Any], used: Iterable[str] = ()) -> None:
        """Report the metadata at ``path`` that is not sent: every key but the ``used`` ones (and the flags)."""
        report_metadata(self.losses, path, metadata, used, self.target, self.own_state)

    def position_label(self, position: str) -> str:
        """How loss reasons name a position of ``allow_lists`` (the position itself unless a subclass says)."""
        return position

    def misfit(self, position: str) -> Callable[[str], str]:
        """The loss reason for an allow-listed field of ``position`` whose value does not fit the field."""
        label = self.position_label(position)

        def reason(name: str) -> str:
            return f"not a valid {self.target} {name} for a {label}; not sent"

        return reason

    def extras(
        self,
        native: dict[str, Any],
        metadata: Mapping[str, Any],
        path: str,
        position: str,
        skip: AbstractSet[str] = frozenset(),
    ) -> dict[str, Any]:
        """Write the allow-listed metadata of ``position`` that fits its field; report the rest, return ``native``.

        A value of the wrong shape for an allow-listed field is reported with :meth:`misfit`'s reason, apart from
        the metadata that has no place in the request at all.
        """
        return self.finish(native, metadata, path, self.allow_lists[position], skip, misfit=self.misfit(position))

    def finish(
        self,
        native: dict[str, Any],
        metadata: Mapping[str, Any],
        path: str,
        allowed: Mapping[str, Kind],
        skip: AbstractSet[str] = frozenset(),
        *,
        misfit: Callable[[str], str] | None = None,
    ) -> dict[str, Any]:
        """Write the allow-listed extras into ``native``, report the metadata left over, return ``native``.

        ``allowed`` is the position's allow-list (field -> kind) and ``skip`` the metadata the writer used
        itself. An allow-listed field whose value does not fit its kind is reported like any metadata left over,
        or, with ``misfit``, with the reason ``misfit(field)`` gives.
        """
        used = put_extras(native, metadata, self.namespace, allowed, skip) | set(skip)
        if misfit is not None:
            for name in allowed:
                key = f"{self.namespace}/{name}"
                if key in metadata and key not in used and name not in native:
                    self.loss(key_path(path, key), misfit(name), "metadata_not_sent")
                    used.add(key)
        self.report(path, metadata, used)
        return native
