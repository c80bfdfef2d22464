"""Sealed transcripts: an HMAC-SHA256 seal on each message a server wrote or a provider issued.

``_keys`` holds the keys and keyrings, ``_canonical`` the canonical bytes a seal covers, ``_seal`` sealing
and verifying. The facade re-exports the public names.
"""

from __future__ import annotations

from ._canonical import SEAL_KEY, canonical_bytes
from ._keys import Keyring, SealKey, as_keyring
from ._seal import SealCheck, SealStatus, seal, verify_seals

__all__ = [
    "SEAL_KEY",
    "Keyring",
    "SealCheck",
    "SealKey",
    "SealStatus",
    "as_keyring",
    "canonical_bytes",
    "seal",
    "verify_seals",
]
