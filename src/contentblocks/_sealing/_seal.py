r"""Sealing messages and verifying their seals.

A seal is one entry of a message's metadata, ``"contentblocks/seal": "<key_id>.<mac>"``, where ``mac`` is
the unpadded base64url HMAC-SHA256, under the named key's secret, of::

    b"contentblocks/seal/v1\0" + key_id (ASCII) + b"\0" + len(context) (8 bytes, big-endian) + context
    + the message's canonical bytes (``_canonical``)

The domain tag keeps these MACs apart from any other use of the key; the key id is covered so that a seal
cannot be relabelled; the context (a conversation id, a tenant) binds a seal to what the server knows the
message belongs to; the canonical bytes cover the message's role, every block with all its fields and
metadata, and the message's metadata, all but the seal entry itself.
"""

from __future__ import annotations

import hmac
from binascii import b2a_base64
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, overload

import attrs

from .._model._classes import Message
from .._model._conversation import Conversation
from ._canonical import SEAL_KEY, canonical_bytes
from ._keys import KEY_ID, Keyring, SealKey, as_keyring

__all__ = ["DOMAIN", "SealCheck", "SealStatus", "seal", "verify_seals"]

#: The domain tag, with its version: a change of what a seal covers is a new version.
DOMAIN = b"contentblocks/seal/v1\0"

SealStatus: TypeAlias = Literal["sealed", "unsealed", "unknown_key", "broken"]
"""What a message's seal says: valid, absent, made with a key the keyring does not hold, or not valid."""


@attrs.frozen
class SealCheck:
    """The verdict on one message's seal: its ``status`` and the ``key_id`` the seal names.

    ``status`` is ``"sealed"`` (the seal is valid: the message is exactly as sealed, under this context),
    ``"unsealed"`` (the message has no seal entry), ``"unknown_key"`` (the seal names a key the keyring does
    not hold) or ``"broken"`` (the seal is malformed or does not match: the message, the context or the key
    differs from what was sealed). ``key_id`` is the id the seal names, when it names a well-formed one
    (``None`` for ``"unsealed"`` and for a malformed seal); only a ``"sealed"`` check vouches for it.

    .. versionadded:: 2026.11.0
    """

    status: SealStatus
    key_id: str | None = None

    @property
    def rejection(self) -> str | None:
        """Why a seal present is not believed, in words a server log can show; ``None`` when sealed or unsealed.

        >>> import contentblocks as cb
        >>> cb.SealCheck("broken", "k1").rejection
        'the seal does not verify (the message was edited, or sealed for another context)'
        >>> cb.SealCheck("broken").rejection, cb.SealCheck("sealed", "k1").rejection
        ('the seal is malformed', None)
        """
        if self.status == "unknown_key":
            return "the seal names a key that is not in the keyring"
        if self.status != "broken":
            return None
        if self.key_id is None:
            return "the seal is malformed"
        return "the seal does not verify (the message was edited, or sealed for another context)"


_UNSEALED = SealCheck("unsealed")
_MALFORMED = SealCheck("broken")


def _context_bytes(context: object) -> bytes:
    if type(context) is bytes:
        return context
    if type(context) is str:
        return context.encode("utf-8")
    msg = f"context must be str or bytes, got {type(context).__name__}"
    raise TypeError(msg)


def _prefix(key: SealKey, context: bytes) -> bytes:
    return DOMAIN + key.key_id.encode("ascii") + b"\0" + len(context).to_bytes(8, "big") + context


_URLSAFE = bytes.maketrans(b"+/", b"-_")


def _mac_text(secret: bytes, prefix: bytes, message: Message) -> str:
    """The seal's MAC part for ``message``: unpadded base64url of the HMAC (32 bytes, 43 characters)."""
    mac = hmac.digest(secret, prefix + canonical_bytes(message), "sha256")
    return b2a_base64(mac, newline=False)[:43].translate(_URLSAFE).decode("ascii")


def _messages(value: object, verb: str) -> Sequence[Message]:
    """The messages of a conversation, a message (one) or a sequence of messages; a TypeError for anything else."""
    if isinstance(value, Conversation):
        return value.messages
    if isinstance(value, Message):
        return (value,)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        for i, item in enumerate(value):
            if not isinstance(item, Message):
                msg = (f"{verb}() takes a Conversation, a Message or a sequence of messages; "
                       f"item {i} is a {type(item).__name__}")
                raise TypeError(msg)
        return value
    msg = f"{verb}() takes a Conversation, a Message or a sequence of messages, got {type(value).__name__}"
    raise TypeError(msg)


@overload
def seal(value: Conversation, keys: SealKey | Keyring, *, context: str | bytes = b"") -> Conversation: ...
@overload
def seal(value: Message, keys: SealKey | Keyring, *, context: str | bytes = b"") -> Message: ...
@overload
def seal(value: list[Message], keys: SealKey | Keyring, *, context: str | bytes = b"") -> list[Message]: ...
@overload
def seal(value: Sequence[Message], keys: SealKey | Keyring, *, context: str | bytes = b"") -> Sequence[Message]: ...
def seal(value: object, keys: SealKey | Keyring, *, context: str | bytes = b"") -> Any:
    """Seal every message with the keyring's current key: each gains (or replaces) its seal entry.

    ``value`` is a ``Conversation`` (a conversation comes back), a ``Message`` (a message comes back) or a
    sequence of messages (a list comes back for a list, a tuple for any other sequence). ``keys`` is a
    :class:`Keyring` or a single :class:`SealKey`. ``context`` binds the seals to what the server knows the
    messages belong to (a conversation id): a message verifies only with the same context, so one sealed in
    one conversation fails verification when spliced into another.

    The seal is one metadata entry, ``"contentblocks/seal": "<key_id>.<mac>"``: a message grows by the entry
    alone (about 70 bytes of JSON plus the key id). A seal already there is replaced, never covered.

    >>> import contentblocks as cb
    >>> key = cb.SealKey("k1", b"k" * 32)
    >>> sealed = cb.seal(cb.Message(role="assistant", content="Hello"), key, context="conv-42")
    >>> sealed.metadata["contentblocks/seal"]
    'k1.PeGm09xMB8FBZn-RfsIULlTJHO9ZX_DCePCg5VZWVlY'

    .. versionadded:: 2026.11.0
    """
    keyring = as_keyring(keys)
    key = keyring.current
    prefix = _prefix(key, _context_bytes(context))
    messages = _messages(value, "seal")
    sealed = [_sealed(message, key, prefix) for message in messages]
    if isinstance(value, Conversation):
        return Conversation(messages=sealed)
    if isinstance(value, Message):
        return sealed[0]
    return sealed if isinstance(value, list) else tuple(sealed)


def _sealed(message: Message, key: SealKey, prefix: bytes) -> Message:
    entry = f"{key.key_id}.{_mac_text(key.secret, prefix, message)}"
    metadata = {**message.metadata, SEAL_KEY: entry}
    return Message(role=message.role, content=message.content, cache=message.cache, metadata=metadata)


def verify_seals(
    value: Conversation | Message | Sequence[Message], keys: SealKey | Keyring, *, context: str | bytes = b""
) -> tuple[SealCheck, ...]:
    """One :class:`SealCheck` per message, in order: whether each message is exactly as it was sealed.

    ``keys`` and ``context`` are as for :func:`seal`; the seal's key id picks the key (the current one or a
    previous one), and the MACs are compared in constant time. Nothing is raised for what a message holds:
    a seal entry that is not a seal (not a string, the wrong shape) is ``"broken"``.

    >>> import attrs
    >>> import contentblocks as cb
    >>> key = cb.SealKey("k1", b"k" * 32)
    >>> sealed = cb.seal([cb.Message(role="user", content="Hi"), cb.Message(role="assistant", content="Hello")], key)
    >>> forged = attrs.evolve(sealed[1], role="user")
    >>> [check.status for check in cb.verify_seals([sealed[0], forged], key)]
    ['sealed', 'broken']

    .. versionadded:: 2026.11.0
    """
    keyring = as_keyring(keys)
    context_bytes = _context_bytes(context)
    messages = _messages(value, "verify_seals")
    # Per key id met: its key, prefix and the two checks a seal naming it can get (frozen, so shared).
    known: dict[str, tuple[bytes, bytes, SealCheck, SealCheck] | SealCheck] = {}
    checks: list[SealCheck] = []
    append = checks.append
    for message in messages:
        entry = message.metadata.get(SEAL_KEY, _ABSENT)
        if type(entry) is not str:
            append(_UNSEALED if entry is _ABSENT else _MALFORMED)
            continue
        key_id, _, mac = entry.partition(".")
        if len(mac) != _MAC_CHARS or not mac.isascii():
            append(_MALFORMED)
            continue
        verdicts = known.get(key_id)
        if verdicts is None:
            verdicts = known[key_id] = _verdicts(keyring, key_id, context_bytes)
        if isinstance(verdicts, SealCheck):  # a malformed or unknown key id
            append(verdicts)
        else:
            secret, prefix, sealed, broken = verdicts
            append(sealed if hmac.compare_digest(mac, _mac_text(secret, prefix, message)) else broken)
    return tuple(checks)


_ABSENT: Any = object()
_MAC_CHARS = 43


def _verdicts(keyring: Keyring, key_id: str, context: bytes) -> tuple[bytes, bytes, SealCheck, SealCheck] | SealCheck:
    """What a seal naming ``key_id`` can be found to be: the key's secret, prefix and checks, or one check."""
    if KEY_ID.fullmatch(key_id) is None:
        return _MALFORMED
    key = keyring.find(key_id)
    if key is None:
        return SealCheck("unknown_key", key_id)
    return key.secret, _prefix(key, context), SealCheck("sealed", key_id), SealCheck("broken", key_id)
