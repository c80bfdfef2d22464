"""Seal keys and keyrings: what a key id and a secret may be, rotation by key id, and secrets kept out of repr."""

from __future__ import annotations

import pickle

import pytest

import contentblocks as cb

SECRET = b"s" * 32


@pytest.mark.parametrize("key_id", ["k", "K" * 32, "2026-06_prod", "-", "_"])
def test_key_ids_of_the_grammar_are_accepted(key_id: str) -> None:
    """1 to 32 ASCII letters, digits, '-' and '_' make a key id."""
    assert cb.SealKey(key_id, SECRET).key_id == key_id


@pytest.mark.parametrize("key_id", ["", "K" * 33, "a.b", "a b", "é", "k\n", "a/b", "k\x00"])
def test_other_key_ids_are_refused(key_id: str) -> None:
    """An empty, long, dotted, spaced, non-ASCII or control-character key id is a ValueError."""
    with pytest.raises(ValueError, match="key_id must be 1 to 32 ASCII letters, digits, '-' or '_'"):
        cb.SealKey(key_id, SECRET)


def test_key_parts_of_the_wrong_type_are_type_errors() -> None:
    """A key id that is not a str, or a secret that is not bytes (a str, a bytearray), is a TypeError."""
    with pytest.raises(TypeError, match="key_id must be a str, got bytes"):
        cb.SealKey(b"k", SECRET)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="secret must be bytes, got str"):
        cb.SealKey("k", "s" * 32)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="secret must be bytes, got bytearray"):
        cb.SealKey("k", bytearray(SECRET))  # type: ignore[arg-type]


def test_a_short_secret_is_refused() -> None:
    """A secret under 32 bytes is a ValueError that says how long it must be."""
    with pytest.raises(ValueError, match="secret must be at least 32 bytes, got 31"):
        cb.SealKey("k", b"s" * 31)


def test_repr_never_shows_the_secret() -> None:
    """repr and str of a key, and of a keyring holding it, show the key id and never the secret."""
    key = cb.SealKey("k1", b"TOPSECRET" * 4)
    keyring = cb.Keyring(key, previous=[cb.SealKey("k0", b"OLDSECRET" * 4)])
    for shown in (repr(key), str(key), repr(keyring), str(keyring)):
        assert "SECRET" not in shown
        assert "k1" in shown
    assert repr(key) == "SealKey(key_id='k1')"


def test_generate_makes_a_random_32_byte_secret() -> None:
    """SealKey.generate names a key and gives it 32 fresh random bytes."""
    first, second = cb.SealKey.generate("k1"), cb.SealKey.generate("k1")
    assert first.key_id == "k1"
    assert len(first.secret) == 32
    assert first.secret != second.secret


def test_keys_are_frozen_and_slotted() -> None:
    """A key cannot be changed or given attributes, and pickles to an equal key."""
    key = cb.SealKey("k1", SECRET)
    with pytest.raises(AttributeError):
        key.secret = b"x" * 32  # type: ignore[misc]
    assert not hasattr(key, "__dict__")
    assert pickle.loads(pickle.dumps(key)) == key  # noqa: S301 - our own bytes


def test_a_keyring_finds_each_of_its_keys_by_id() -> None:
    """The current and every previous key are found by id; an id it does not hold is None."""
    current, old, older = cb.SealKey("k3", SECRET), cb.SealKey("k2", SECRET), cb.SealKey("k1", SECRET)
    keyring = cb.Keyring(current, previous=[old, older])
    assert keyring.previous == (old, older)
    assert [keyring.find(k) for k in ("k3", "k2", "k1", "k4")] == [current, old, older, None]


def test_a_keyring_refuses_a_key_id_twice() -> None:
    """Two keys with one id make verification ambiguous: a ValueError naming the id."""
    with pytest.raises(ValueError, match="key ids must be distinct; 'k1' is given twice"):
        cb.Keyring(cb.SealKey("k1", SECRET), previous=[cb.SealKey("k2", SECRET), cb.SealKey("k1", b"t" * 32)])


def test_a_keyring_takes_only_keys() -> None:
    """A current key or a previous key that is not a SealKey is a TypeError."""
    with pytest.raises(TypeError, match="current key must be a SealKey, got bytes"):
        cb.Keyring(SECRET)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="previous keys must be SealKey instances, got str"):
        cb.Keyring(cb.SealKey("k1", SECRET), previous=["k0"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="previous keys must be a tuple or list of SealKey, got SealKey"):
        cb.Keyring(cb.SealKey("k1", SECRET), previous=cb.SealKey("k0", SECRET))  # type: ignore[arg-type]


def test_a_single_key_works_wherever_a_keyring_does() -> None:
    """seal and verify_seals take a SealKey as the keyring of that key alone."""
    key = cb.SealKey("k1", SECRET)
    message = cb.Message(role="user", content="hi")
    assert cb.seal(message, key) == cb.seal(message, cb.Keyring(key))
    assert cb.verify_seals(cb.seal(message, key), key) == cb.verify_seals(cb.seal(message, key), cb.Keyring(key))
