"""Sealed transcripts: seal, verify, what a seal covers, and that it survives storage."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks._conversion._kernels import MISS, speedups
from contentblocks._sealing import SEAL_KEY, canonical_bytes
from contentblocks._sealing._canonical import reference_canonical_bytes
from contentblocks.preconf import cbor2 as cb_cbor2
from contentblocks.preconf import msgpack as cb_msgpack
from history_strategies import message_edits, seal_keys
from strategies import conversations, json_values, messages

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEY = cb.SealKey("k1", b"k" * 32)
OTHER = cb.SealKey("k2", b"o" * 32)


def _statuses(value: object, keys: object = KEY, context: str | bytes = b"") -> list[str]:
    return [check.status for check in cb.verify_seals(value, keys, context=context)]  # type: ignore[arg-type]


def _nonempty(draw: st.DrawFn) -> cb.Conversation:
    return draw(conversations(max_messages=5).filter(len))


# ---------------------------------------------------------------------------------------------- the MAC


def test_seal_is_the_documented_hmac_over_the_documented_bytes() -> None:
    """A seal is base64url(HMAC-SHA256(secret, tag, key id, NUL, context length, context, canonical JSON))."""
    message = cb.Message(
        role="assistant",
        content=[
            cb.ReasoningBlock(text="Oslo is rainy.", signature="sig"),
            cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"z": 1, "a": [1.0, True, None, "é"]}),
        ],
        metadata={"app/b": 2, "app/a": "\U0001f642"},
    )
    canonical = (
        b'{"content":[{"signature":"sig","text":"Oslo is rainy.","type":"reasoning"},'
        b'{"input":{"a":[1.0,true,null,"\\u00e9"],"z":1},"tool_call_id":"c1","tool_name":"weather","type":"tool_call"}],'
        b'"metadata":{"app/a":"\\ud83d\\ude42","app/b":2},"role":"assistant"}'
    )
    context = b"conv-42"
    signed = b"contentblocks/seal/v1\0" + b"k1\0" + len(context).to_bytes(8, "big") + context + canonical
    mac = hmac.new(b"k" * 32, signed, hashlib.sha256).digest()
    expected = "k1." + base64.urlsafe_b64encode(mac).decode().rstrip("=")
    sealed = cb.seal(message, KEY, context="conv-42")
    assert canonical_bytes(message) == canonical
    assert sealed.metadata[SEAL_KEY] == expected
    assert canonical_bytes(sealed) == canonical


def test_a_file_s_bytes_are_covered_as_canonical_base64() -> None:
    """Inline bytes enter the canonical form as the wire format's padded standard base64."""
    message = cb.Message(role="user", content=[
        cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\xfb\xff"), filename="a.png")])
    assert canonical_bytes(message) == (
        b'{"content":[{"filename":"a.png","media_type":"image/png","source":{"data":"+/8=","type":"base64"},'
        b'"type":"file"}],"role":"user"}'
    )


@SETTINGS
@given(messages(max_blocks=4))
def test_canonical_bytes_are_the_standard_library_s_sorted_json(message: cb.Message) -> None:
    """The fast canonical form is byte for byte json.dumps(sort_keys=True, ensure_ascii=True) of the wire form."""
    wire = cb.unstructure(message)
    wire.get("metadata", {}).pop(SEAL_KEY, None)
    if wire.get("metadata") == {}:
        del wire["metadata"]
    expected = json.dumps(wire, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    assert canonical_bytes(message) == expected.encode("ascii")
    assert reference_canonical_bytes(message) == expected.encode("ascii")


@SETTINGS
@given(messages(max_blocks=4), st.data())
def test_canonical_bytes_ignore_the_order_of_json_object_keys(message: cb.Message, data: st.DataObject) -> None:
    """Two messages whose JSON objects list the same entries in another order have the same canonical bytes."""
    wire = cb.unstructure(message)

    def reverse(value: object) -> object:
        if isinstance(value, dict):
            return {k: reverse(value[k]) for k in reversed(list(value))}
        if isinstance(value, list):
            return [reverse(v) for v in value]
        return value

    reordered = cb.structure(reverse(wire), cb.Message)
    assert reordered == message
    assert canonical_bytes(reordered) == canonical_bytes(message)
    data.draw(st.just(None))


def test_tricky_strings_and_keys_keep_the_canonical_form() -> None:
    """Quotes, backslashes, DEL, non-ASCII, keys named like wire fields and big or signed numbers: the reference."""
    tricky = ['"input":0', '\\"value\\":1', '"metadata":2}', "\x7f", "é\u2028", '\\"input":3']
    message = cb.Message(
        role="assistant",
        content=[
            cb.TextBlock(text=tricky[0] + tricky[1], metadata={"input": 0, "value": tricky}),
            cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={"metadata": 1, tricky[2]: tricky[3]}),
            cb.ToolCallBlock(tool_call_id="c2", tool_name="f", input=7),
            cb.JsonBlock(value=tricky[4]),
            cb.JsonBlock(value=None),
            cb.TextBlock(text=tricky[5]),
        ],
        metadata={"value": 5, SEAL_KEY: "k1." + "A" * 43, "input": {"b": [1, {"z": 0, "a": -0.0}], "a": 2**64 - 1}},
    )
    assert canonical_bytes(message) == reference_canonical_bytes(message)
    wire = json.loads(canonical_bytes(message))
    assert wire["content"][0]["text"] == tricky[0] + tricky[1]
    assert wire["metadata"] == {"value": 5, "input": {"b": [1, {"z": 0, "a": -0.0}], "a": 2**64 - 1}}


@pytest.mark.skipif(speedups is None, reason="the C accelerator is not in use")
@SETTINGS
@given(json_values())
def test_the_sorted_c_writer_writes_what_json_dumps_sort_keys_writes(value: object) -> None:
    """dumps_ascii_sorted of a JSON value is json.dumps(sort_keys=True, ensure_ascii=True), compact."""
    assert speedups is not None
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    assert speedups.dumps_ascii_sorted(value, MISS) == expected
    assert speedups.dumps_ascii_sorted({"b": value, "a": [value]}, MISS) == json.dumps(
        {"b": value, "a": [value]}, sort_keys=True, separators=(",", ":"), allow_nan=False)


@pytest.mark.skipif(speedups is None, reason="the C accelerator is not in use")
def test_the_sorted_c_writer_hands_back_what_it_cannot_sort() -> None:
    """A non-string key, a str subclass key, NaN or a foreign object is handed back (the miss), not guessed."""
    assert speedups is not None

    class Key(str):
        __slots__ = ()

    for value in ({1: 2, "a": 1}, {Key("b"): 1, "a": 2}, {"a": float("nan"), "b": 1}, {"a": object(), "b": 1}):
        assert speedups.dumps_ascii_sorted(value, MISS) is MISS


# ---------------------------------------------------------------------------------------------- seal, verify


@SETTINGS
@given(conversations(max_messages=6), seal_keys(), st.binary(max_size=16))
def test_sealed_messages_verify_as_sealed(conversation: cb.Conversation, key: cb.SealKey, context: bytes) -> None:
    """seal then verify_seals says "sealed" for every message, naming the key; the content is unchanged."""
    sealed = cb.seal(conversation, key, context=context)
    assert type(sealed) is cb.Conversation
    assert cb.verify_seals(sealed, key, context=context) == tuple(cb.SealCheck("sealed", key.key_id) for _ in sealed)
    for before, after in zip(conversation, sealed, strict=True):
        assert (after.role, after.content) == (before.role, before.content)
        assert {k: v for k, v in after.metadata.items() if k != SEAL_KEY} == before.metadata


def test_seal_keeps_the_shape_it_is_given() -> None:
    """A message gives a message, a list a list, a tuple a tuple, a conversation a conversation."""
    message = cb.Message(role="user", content="hi")
    assert type(cb.seal(message, KEY)) is cb.Message
    assert type(cb.seal([message], KEY)) is list
    assert type(cb.seal((message,), KEY)) is tuple
    assert type(cb.seal(cb.Conversation(messages=[message]), KEY)) is cb.Conversation
    assert cb.seal([], KEY) == []


def test_resealing_replaces_the_old_seal() -> None:
    """Sealing a sealed message replaces its seal (one entry, the new key's), never seals the old one."""
    message = cb.Message(role="user", content="hi", metadata={"app/x": 1})
    twice = cb.seal(cb.seal(message, OTHER), KEY)
    assert list(twice.metadata) == ["app/x", SEAL_KEY]
    assert twice == cb.seal(message, KEY)
    assert _statuses(twice) == ["sealed"]


def test_a_seal_adds_a_small_fixed_overhead() -> None:
    """A seal grows a message's JSON by one metadata entry of 67 bytes plus the key id, whatever the message."""
    entry = len('"contentblocks/seal":"') + len(".") + 43 + len('"')  # around the key id
    for key in (KEY, cb.SealKey("K" * 32, b"k" * 32)):
        for message, framing in [
            (cb.Message(role="user", content="hi"), len(',"metadata":{}')),
            (cb.Message(role="user", content="x" * 100_000, metadata={"app/x": list(range(100))}), len(",")),
        ]:
            growth = len(cb.dumps(cb.seal(message, key))) - len(cb.dumps(message))
            assert growth == entry + len(key.key_id) + framing == 67 + len(key.key_id) + framing


@SETTINGS
@given(st.data())
def test_one_edit_breaks_that_message_and_only_that_one(data: st.DataObject) -> None:
    """Any single edit of a sealed message makes it "broken"; every other message stays "sealed"."""
    sealed = list(cb.seal(_nonempty(data.draw), KEY, context="c"))
    i = data.draw(st.integers(0, len(sealed) - 1))
    edited, what = data.draw(message_edits(sealed[i]))
    assert edited != sealed[i], what
    sealed[i] = edited
    expected = ["sealed"] * len(sealed)
    expected[i] = "broken"
    assert _statuses(sealed, context="c") == expected, what


@SETTINGS
@given(st.data())
def test_the_context_and_the_key_are_covered(data: st.DataObject) -> None:
    """Another context or another secret under the same id breaks every seal; another key id is unknown."""
    conversation = _nonempty(data.draw)
    sealed = cb.seal(conversation, KEY, context="conv-1")
    n = len(sealed)
    assert _statuses(sealed, context="conv-2") == ["broken"] * n
    assert _statuses(sealed, context=b"") == ["broken"] * n
    assert _statuses(sealed, cb.SealKey("k1", b"x" * 32), context="conv-1") == ["broken"] * n
    assert cb.verify_seals(sealed, OTHER, context="conv-1") == (cb.SealCheck("unknown_key", "k1"),) * n


def test_a_message_spliced_into_another_conversation_is_broken() -> None:
    """A message sealed under one conversation id fails verification in a conversation with another id."""
    ours = cb.seal([cb.Message(role="assistant", content="Transfer approved.")], KEY, context="conv-a")
    theirs = cb.seal([cb.Message(role="user", content="Approve it?")], KEY, context="conv-b")
    assert _statuses([*theirs, *ours], context="conv-b") == ["sealed", "broken"]


def test_context_as_str_is_its_utf8_bytes() -> None:
    """A str context is the same as its UTF-8 bytes."""
    sealed = cb.seal(cb.Message(role="user", content="hi"), KEY, context="café")
    assert _statuses(sealed, context="café".encode()) == ["sealed"]


def test_verify_sorts_messages_by_what_their_seal_entry_holds() -> None:
    """No entry is unsealed; a non-string, a bad shape or a non-canonical MAC is broken; a foreign id unknown."""
    plain = cb.Message(role="user", content="hi")
    good = cb.seal(plain, KEY).metadata[SEAL_KEY]
    key_id, mac = good.split(".")
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    # The last character carries 4 padding bits: another one with the same 2 data bits decodes to the same MAC.
    twin = last[last.index(mac[-1]) ^ 1]
    entries = [None, 1, "", good + "=", "k1." + mac[:-1], "k1:" + mac, "a.b." + mac, "x" * 33 + "." + mac,
               key_id + "." + mac[:-1] + twin, "k9." + mac, good]
    held = [attrs.evolve(plain, metadata={SEAL_KEY: entry}) for entry in entries]
    checks = cb.verify_seals([plain, *held], KEY)
    assert [c.status for c in checks] == ["unsealed"] + ["broken"] * 9 + ["unknown_key", "sealed"]
    assert [c.key_id for c in checks] == [None] * 9 + ["k1", "k9", "k1"]


def test_verify_uses_the_key_the_seal_names() -> None:
    """With a rotated keyring, old seals verify with the previous key and new ones with the current key."""
    old = cb.seal(cb.Message(role="user", content="old"), OTHER)
    new = cb.seal(cb.Message(role="user", content="new"), cb.Keyring(KEY, previous=[OTHER]))
    assert new.metadata[SEAL_KEY].startswith("k1.")
    checks = cb.verify_seals([old, new], cb.Keyring(KEY, previous=(OTHER,)))
    assert checks == (cb.SealCheck("sealed", "k2"), cb.SealCheck("sealed", "k1"))
    assert _statuses([old, new], cb.Keyring(KEY)) == ["unknown_key", "sealed"]


def test_seal_and_verify_refuse_what_they_cannot_take() -> None:
    """A value that is not messages, keys that are not keys, or a context that is not text is a TypeError."""
    message = cb.Message(role="user", content="hi")
    with pytest.raises(TypeError, match="takes a Conversation, a Message or a sequence of messages, got str"):
        cb.seal("hi", KEY)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="item 1 is a dict"):
        cb.verify_seals([message, {"role": "user"}], KEY)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected a SealKey or a Keyring, got bytes"):
        cb.seal(message, b"k" * 32)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="context must be str or bytes, got int"):
        cb.verify_seals(message, KEY, context=1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- storage


def _stored(conversation: cb.Conversation) -> dict[str, cb.Conversation]:
    plain = json.loads(json.dumps(cb.unstructure(conversation)))
    msgpack, cbor2 = cb_msgpack.make_converter(), cb_cbor2.make_converter()
    return {
        "cb.dumps/cb.loads": cb.loads(cb.dumps(conversation), cb.Conversation),
        "cb.dumps(ensure_ascii=False, indent=1)": cb.loads(cb.dumps(conversation, ensure_ascii=False, indent=1),
                                                           cb.Conversation),
        "json of cb.unstructure": cb.structure(plain, cb.Conversation),
        "msgpack": msgpack.loads(msgpack.dumps(conversation), cb.Conversation),
        "cbor2": cbor2.loads(cbor2.dumps(conversation), cb.Conversation),
    }


@SETTINGS
@given(conversations(max_messages=6), st.text(max_size=8))
def test_seals_survive_storage(conversation: cb.Conversation, context: str) -> None:
    """A sealed conversation stored and loaded as JSON, msgpack or CBOR verifies as sealed throughout."""
    sealed = cb.seal(conversation, KEY, context=context)
    for how, loaded in _stored(sealed).items():
        assert loaded == sealed, how
        assert _statuses(loaded, context=context) == ["sealed"] * len(sealed), how


def test_seals_survive_storage_of_the_example_conversation() -> None:
    """The shipped example, every block kind, keeps its seals through every storage format."""
    from importlib.resources import files  # noqa: PLC0415

    text = files("contentblocks").joinpath("examples/conversation.jsonl").read_text(encoding="utf-8")
    conversation = cb.Conversation(messages=[cb.loads(line, cb.Message) for line in text.splitlines() if line])
    sealed = cb.seal(conversation, KEY, context="conv")
    for how, loaded in _stored(sealed).items():
        assert _statuses(loaded, context="conv") == ["sealed"] * len(sealed), how
