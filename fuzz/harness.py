"""Coverage-guided fuzzing of contentblocks with atheris: anything but a ValidationError is a crash.

Each input is used in one of two ways, chosen by its first byte:

* below 0x80 (JSON text starts with ``{``, ``[``, ``"``, a digit or whitespace): the whole input, as bytes and,
  when it decodes, as text, goes through ``cb.loads`` and the JSON preconf converter for a block, a message
  and a conversation, and through the accelerator's JSON reader, which must read it to the standard
  library's values, type for type, or hand it back;
* otherwise the rest of the input drives an ``atheris.FuzzedDataProvider`` that builds a Python value (dicts
  biased towards the wire keys and tags, NaN and infinities, huge ints, bytes, sets, tuples, lone surrogates)
  which goes through ``cb.structure``.

Either way, a dict read or built is also given to the accelerator's structurer (for a block and a message, at
the default limits and at small ones), which must hand it back or build exactly what the generated function
builds, with no problem found.

An accepted value must round-trip: ``structure(unstructure(x)) == x``. Run it with

    python fuzz/harness.py fuzz/corpus -max_total_time=300

(``-atheris_runs=N`` stops after N inputs). atheris is optional: ``pip install atheris``.
"""

from __future__ import annotations

import contextlib
import sys

import atheris
import attrs

with atheris.instrument_imports():
    import contentblocks as cb
    from contentblocks import _api
    from contentblocks._checks import _rules
    from contentblocks._conversion import _gen, _structure_table
    from contentblocks._conversion._kernels import MISS as MISS_C
    from contentblocks._model import _wire
    from contentblocks.preconf import json as preconf_json

TARGETS = (cb.Block, cb.Message, cb.Conversation)
MISS = object()
JSON_CONVERTER = preconf_json.make_converter()
SMALL_LIMITS = _rules.Limits(max_text_chars=64, max_binary_bytes=16, max_uri_chars=64, max_depth=4, max_nodes=32,
                             max_errors=3)
SMALL = cb.make_converter(**attrs.asdict(SMALL_LIMITS))
KEYS = ("type", "text", "citations", "metadata", "media_type", "source", "filename", "signature", "redacted",
        "tool_call_id", "tool_name", "input", "outcome", "content", "value", "role", "kind", "title", "quote",
        "start", "end", "data", "url", "id", "provider")
WORDS = ("text", "refusal", "file", "reasoning", "tool_call", "tool_result", "json", "base64", "url", "reference",
         "uri", "user", "assistant", "tool", "system", "developer", "succeeded", "failed", "denied", "image/png",
         "https://example.com/a", "urn:x", "aGk=", "c1", "f", "a.png", "data:image/png;base64,aGk=", "\u202e",
         "\ud800", "")
SPECIALS = (float("nan"), float("inf"), -float("inf"), 2**64, -(2**63) - 1, 2**64 - 1, 10**5000, -0.0, b"x",
            frozenset({1}), ())


def value(fdp: atheris.FuzzedDataProvider, depth: int = 0) -> object:  # noqa: C901 - one branch per kind
    """A Python value built from the fuzzer's bytes."""
    kind = fdp.ConsumeIntInRange(0, 12 if depth < 6 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 10))
    if kind == 3:
        return fdp.ConsumeFloat()
    if kind == 4:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 24))
    if kind in (5, 6):
        return WORDS[fdp.ConsumeIntInRange(0, len(WORDS) - 1)]
    if kind == 7:
        return SPECIALS[fdp.ConsumeIntInRange(0, len(SPECIALS) - 1)]
    if kind in (8, 9, 10):  # an object, keyed mostly by wire keys
        out: dict[object, object] = {}
        for _ in range(fdp.ConsumeIntInRange(0, 6)):
            if fdp.ConsumeIntInRange(0, 5):
                key: object = KEYS[fdp.ConsumeIntInRange(0, len(KEYS) - 1)]
            else:
                key = fdp.ConsumeUnicode(4) if fdp.ConsumeBool() else fdp.ConsumeInt(1)
            out[key] = value(fdp, depth + 1)
        return out
    items = [value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    return tuple(items) if kind == 11 else items


def check(call: object, *args: object) -> object:
    try:
        return call(*args)  # type: ignore[operator]
    except cb.ValidationError as e:
        if not all(type(p) is str and type(m) is str and len(m) < 300 for p, m in e.errors):
            raise AssertionError("a ValidationError with a malformed or long problem") from e
        return None


def same(a: object, b: object) -> bool:
    """Equal JSON values of the same types throughout, keys in the same order (``-0.0`` is not ``0.0``)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)  # type: ignore[index]
    if type(a) is list:
        return len(a) == len(b) and all(map(same, a, b))  # type: ignore[arg-type]
    return repr(a) == repr(b) if type(a) is float else a == b


def check_reader(text: bytes | str) -> None:
    """The accelerator's reader gives the standard library's value or hands the text back (``MISS``)."""
    if _api._c_read is None:  # the pure-Python path: no reader to hold to the standard library
        return
    got = _api._c_read(text, MISS)
    if got is MISS:
        return
    try:
        decoded = text.decode("utf-8") if type(text) is bytes else text
        if decoded.startswith("\ufeff"):  # type: ignore[union-attr]
            raise ValueError("a byte-order mark")  # noqa: TRY301 - refused as the parser refuses it
        want = _api._decode(decoded)
    except Exception as e:
        raise AssertionError("the C reader read a text the standard library refuses") from e
    if not same(got, want):
        raise AssertionError("the C reader and the standard library read different values")


#: The C structurer and the generated functions it stands in for, for a block (a union) and a message.
WALKS = [
    (_structure_table.structurer(limits, native_binary=False), target, body)
    for limits in (_rules.DEFAULT_LIMITS, SMALL_LIMITS)
    for target, body in (
        (-1 - _wire.UNIONS.index(_wire.union_of(cb.Block)),  # type: ignore[arg-type]
         _gen.structure_bodies(limits, native_binary=False).unions["Block"]),
        (_gen.CLASSES.index(cb.Message), _gen.structure_bodies(limits, native_binary=False).by_class[cb.Message]),
    )
]


def check_walk(raw: object) -> None:
    """The C structurer misses, or builds exactly what the generated function builds with no problem found."""
    if type(raw) is not dict:
        return
    for walk, target, body in WALKS:
        if walk is None:  # the pure-Python path
            return
        fast = walk.object(raw, target)
        if fast is MISS_C:
            continue
        problems: list[tuple[str, str]] = []
        try:
            expected = body(raw, problems)
        except Exception as e:
            raise AssertionError("the C structurer took a value the generated function raises on") from e
        if problems or fast != expected or repr(fast) != repr(expected):
            raise AssertionError("the C structurer and the generated function disagree")


def test_one_input(data: bytes) -> None:
    if data and data[0] < 0x80:
        texts: list[object] = [data]
        with contextlib.suppress(UnicodeDecodeError):
            texts.append(data.decode("utf-8"))
        for text in texts:
            check_reader(text)  # type: ignore[arg-type]
            if _api._c_read is not None:
                check_walk(_api._c_read(text, MISS))
            for target in TARGETS:
                obj = check(cb.loads, text, target)
                other = check(JSON_CONVERTER.loads, text, target)
                if (obj is None) != (other is None) or obj != other:
                    raise AssertionError("cb.loads and preconf.json disagree")
                if obj is not None and cb.loads(cb.dumps(obj), target) != obj:
                    raise AssertionError("an accepted value does not round-trip")
        return
    fdp = atheris.FuzzedDataProvider(data[1:])
    raw = value(fdp)
    check_walk(raw)
    for target in TARGETS:
        for conv in (cb, SMALL):
            obj = check(conv.structure, raw, target)
            if obj is not None and conv.structure(conv.unstructure(obj), target) != obj:
                raise AssertionError("an accepted value does not round-trip")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
