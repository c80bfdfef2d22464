"""Sealing keys: a named secret (``SealKey``) and the keys a server seals and verifies with (``Keyring``).

A seal names the key that made it (``"<key_id>.<mac>"``), so that a key can be rotated: seal with a new
current key, and keep the old ones in the keyring until the seals they made have aged out of storage.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

__all__ = ["KEY_ID", "MIN_SECRET_BYTES", "Keyring", "SealKey", "as_keyring"]

#: What a key id may be: 1 to 32 ASCII letters, digits, ``-`` or ``_`` (no ``.``, which ends it in a seal).
KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: The shortest secret accepted: 256 bits, the output size of SHA-256 (RFC 2104 §3 recommends no less).
MIN_SECRET_BYTES = 32


def _check_key_id(_instance: object, _attribute: object, key_id: Any) -> None:
    if type(key_id) is not str:
        msg = f"a seal key's key_id must be a str, got {type(key_id).__name__}"
        raise TypeError(msg)
    if KEY_ID.fullmatch(key_id) is None:
        msg = "a seal key's key_id must be 1 to 32 ASCII letters, digits, '-' or '_'"
        raise ValueError(msg)


def _check_secret(_instance: object, _attribute: object, secret: Any) -> None:
    if type(secret) is not bytes:
        msg = f"a seal key's secret must be bytes, got {type(secret).__name__}"
        raise TypeError(msg)
    if len(secret) < MIN_SECRET_BYTES:
        msg = f"a seal key's secret must be at least {MIN_SECRET_BYTES} bytes, got {len(secret)}"
        raise ValueError(msg)


@attrs.frozen
class SealKey:
    """A secret for sealing messages, named by a short ``key_id`` that every seal made with it carries.

    ``key_id`` is 1 to 32 ASCII letters, digits, ``-`` or ``_``; ``secret`` is at least 32 bytes, and
    should come from a secrets manager or :meth:`generate`. The secret is never shown by ``repr``.

    >>> import contentblocks as cb
    >>> key = cb.SealKey("2026-06", b"0123456789abcdef0123456789abcdef")
    >>> key
    SealKey(key_id='2026-06')
    >>> cb.SealKey("2026.06", b"0123456789abcdef0123456789abcdef")
    Traceback (most recent call last):
    ValueError: a seal key's key_id must be 1 to 32 ASCII letters, digits, '-' or '_'

    .. versionadded:: 2026.11.0
    """

    key_id: str = attrs.field(validator=_check_key_id)
    secret: bytes = attrs.field(validator=_check_secret, repr=False)

    @classmethod
    def generate(cls, key_id: str) -> SealKey:
        """A new key named ``key_id`` with 32 random bytes from ``secrets.token_bytes``."""
        return cls(key_id, secrets.token_bytes(MIN_SECRET_BYTES))


def _previous(value: Sequence[SealKey]) -> tuple[SealKey, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else value  # type: ignore[return-value]


def _check_previous(_instance: object, _attribute: object, previous: Any) -> None:
    if type(previous) is not tuple:
        msg = f"a keyring's previous keys must be a tuple or list of SealKey, got {type(previous).__name__}"
        raise TypeError(msg)
    for key in previous:
        if not isinstance(key, SealKey):
            msg = f"a keyring's previous keys must be SealKey instances, got {type(key).__name__}"
            raise TypeError(msg)


def _check_current(_instance: object, _attribute: object, current: Any) -> None:
    if not isinstance(current, SealKey):
        msg = f"a keyring's current key must be a SealKey, got {type(current).__name__}"
        raise TypeError(msg)


@attrs.frozen
class Keyring:
    """The keys a server seals with (``current``) and verifies with (``current`` and every ``previous`` one).

    Rotating a key: make a new one current and move the old one to ``previous``; seals it made still
    verify, new seals name the new key. Drop a key from the keyring to make every seal it made read as
    ``"unknown_key"``. Key ids must be distinct.

    >>> import contentblocks as cb
    >>> old = cb.SealKey("k1", b"1" * 32)
    >>> keys = cb.Keyring(cb.SealKey("k2", b"2" * 32), previous=[old])
    >>> keys.current.key_id, keys.find("k1") is old, keys.find("k3")
    ('k2', True, None)
    >>> cb.Keyring(old, previous=[cb.SealKey("k1", b"3" * 32)])
    Traceback (most recent call last):
    ValueError: a keyring's key ids must be distinct; 'k1' is given twice

    .. versionadded:: 2026.11.0
    """

    current: SealKey = attrs.field(validator=_check_current)
    previous: tuple[SealKey, ...] = attrs.field(default=(), converter=_previous, validator=_check_previous)
    _by_id: Mapping[str, SealKey] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        by_id: dict[str, SealKey] = {}
        for key in (self.current, *self.previous):
            if key.key_id in by_id:
                msg = f"a keyring's key ids must be distinct; {key.key_id!r} is given twice"
                raise ValueError(msg)
            by_id[key.key_id] = key
        object.__setattr__(self, "_by_id", by_id)

    def find(self, key_id: str) -> SealKey | None:
        """The key named ``key_id``, or None when the keyring holds none of that name."""
        return self._by_id.get(key_id)


def as_keyring(keys: Any) -> Keyring:
    """``keys`` as a keyring: a ``Keyring`` as it is, a single ``SealKey`` as the keyring of that key alone."""
    if isinstance(keys, Keyring):
        return keys
    if isinstance(keys, SealKey):
        return Keyring(keys)
    msg = f"expected a SealKey or a Keyring, got {type(keys).__name__}"
    raise TypeError(msg)
