"""The C base64 codec and instance maker against their references, and the accelerator as a whole.

``_patterns.check_base64`` is the reference for ``b64decode`` (binascii's bytes, and the pad-bit rule) and
binascii for ``b64encode``; the generated Python constructors of ``_unchecked`` for ``instance_maker``. The
accelerator is built wherever a compiler can build it and turned off on request, and the whole library runs
without it in CI's second run (``CONTENTBLOCKS_PURE_PYTHON=1``) and, here, on the conformance vectors and the
shipped example in a fresh pure-Python interpreter.
"""

from __future__ import annotations

import base64
import binascii
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks._checks import _patterns
from contentblocks._conversion import _kernels, _unchecked
from contentblocks._conversion._kernels import speedups
from contentblocks._json import _values as _json
from speedups_checks import MISS, StrKey, needs_speedups

# ------------------------------------------------------------------------------------------ built and turned off


def _compiler_available() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and include.is_file()


@pytest.mark.skipif(bool(os.environ.get("CONTENTBLOCKS_PURE_PYTHON")), reason="turned off on purpose")
def test_built_where_it_can_be():
    """With a C compiler and the Python headers, the install builds the accelerator and the library uses it."""
    if not _compiler_available():
        pytest.skip("no C compiler or Python headers: the pure-Python path is the one in use")
    assert importlib.util.find_spec("contentblocks._speedups") is not None
    assert speedups is not None
    assert cb.speedups_enabled()


def test_turned_off_by_the_environment():
    """CONTENTBLOCKS_PURE_PYTHON=1 makes a fresh interpreter use the Python walks."""
    code = "import contentblocks as cb; print(cb.speedups_enabled())"
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)  # noqa: S603
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------------------ base64

_B64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
BASE64_TEXTS = st.one_of(
    st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),
    # canonical text with one character changed: pad bits, a misplaced "=", a character from elsewhere
    st.tuples(
        st.binary(min_size=1, max_size=20),
        st.integers(0, 40),
        st.sampled_from([*_B64_CHARS[:8], "=", "-", "_", "\n", " ", "\xe9", "\u0100", "\U0001f600"]),
    ).map(lambda t: _replace_at(base64.b64encode(t[0]).decode(), t[1], t[2])),
    st.text(alphabet=_B64_CHARS + "=", max_size=16),
    st.text(max_size=8),
    st.sampled_from(["", "=", "==", "====", "A===", "AA==", "AB==", "AAA=", "AAB=", "AAAA", "A", "data:xx",
                     "AAAA====", "QUJD====", "AA==AA=="]),
)


def _replace_at(text: str, index: int, char: str) -> str:
    index %= len(text)
    return text[:index] + char + text[index + 1 :]


@needs_speedups
@given(BASE64_TEXTS)
def test_b64decode_agrees_with_binascii_and_the_pad_bit_rule(text):
    """The C decoder gives the reference decoder's bytes, and misses every text the reference refuses."""
    expected = _patterns.check_base64(text, 10**9)
    got = speedups.b64decode(text, MISS)
    if type(expected) is str:  # a problem: the C decoder hands the text back
        assert got is MISS
    else:
        assert type(got) is bytes
        assert got == expected
    assert speedups.b64decode(StrKey(text), MISS) is MISS  # a subclass is never read in C


@given(BASE64_TEXTS, st.integers(0, 31))
def test_the_converters_decoder_gives_what_the_reference_gives(text, max_bytes):
    """``_kernels.decode_base64`` (C first, where built) gives the reference's bytes or its wording, limit included."""
    assert _kernels.decode_base64(text, max_bytes) == _patterns.check_base64(text, max_bytes)


@needs_speedups
@given(st.binary(max_size=100))
def test_b64encode_is_binascii(data):
    """The C encoder writes binascii's canonical text, which the C decoder reads back."""
    assert speedups.b64encode(data) == binascii.b2a_base64(data, newline=False).decode("ascii")
    assert speedups.b64decode(speedups.b64encode(data), MISS) == data


@needs_speedups
@pytest.mark.parametrize("size", [*range(65), 4096 + 5, 100_003])
def test_b64encode_is_binascii_at_every_length(size):
    """Lengths around the encoder's 24- and 12-byte vector steps and 6-byte words; every byte value in each place."""
    data = random.Random(size).randbytes(size)  # noqa: S311 - test data, not secrets
    assert speedups.b64encode(data) == binascii.b2a_base64(data, newline=False).decode("ascii")
    every = (bytes(range(256)) + b"\0") * 24  # a period of 257, coprime with 24 and 12: each value in each place
    for start in range(3):
        assert speedups.b64encode(every[start:]) == binascii.b2a_base64(every[start:], newline=False).decode("ascii")


def _exhaustive_quads():
    """Every final quantum with padding, and every Latin-1 character at every place of a full quantum."""
    for x in _B64_CHARS:
        for y in _B64_CHARS:
            yield f"{x}{y}=="
        yield f"AA{x}="
        yield f"A{x}A="
    for place in range(4):
        for code in range(256):
            yield "QUJD" + _replace_at("AAAA", place, chr(code))


@needs_speedups
def test_b64decode_agrees_on_every_final_quantum():
    """On every padded final quantum and every Latin-1 character anywhere in one, C and the reference agree."""
    for text in _exhaustive_quads():
        expected = _patterns.check_base64(text, 10**9)
        got = speedups.b64decode(text, MISS)
        assert got is MISS if type(expected) is str else got == expected, text


@pytest.mark.parametrize("text", ["AAAA====", "QUJD====", "AAAAAAAA===="])
def test_a_quantum_of_padding_alone_is_a_problem(text):
    """Padding after a whole quantum, which binascii's strict mode lets through, is worded, never an exception."""
    assert type(_patterns.check_base64(text, 100)) is str
    assert type(_kernels.decode_base64(text, 100)) is str
    with pytest.raises(cb.ValidationError):
        cb.structure({"type": "base64", "data": text}, cb.BytesSource)


@needs_speedups
def test_b64_boundaries():
    """Only exact bytes are encoded and only str decoded; the byte limit holds on the C-first path."""
    with pytest.raises(TypeError):
        speedups.b64encode(bytearray(b"x"))
    assert speedups.b64decode(b"AAAA", MISS) is MISS
    assert speedups.b64decode("", MISS) == b""
    assert _kernels.decode_base64("AAAA", 2) == "more than 2 bytes once decoded"
    assert _kernels.decode_base64("AAAA", 3) == b"\x00\x00\x00"
    assert _kernels.decode_base64("AA==", 1) == b"\x00"


# ------------------------------------------------------------------------------------------ instance_maker


CLASSES = [
    cb.TextBlock, cb.RefusalBlock, cb.FileBlock, cb.ReasoningBlock, cb.ToolCallBlock, cb.ToolResultBlock,
    cb.JsonBlock, cb.BytesSource, cb.UrlSource, cb.ReferenceSource, cb.Citation, cb.CitedUri, cb.CitedReference,
    cb.Message, cb.Conversation,
]  # fmt: skip


@needs_speedups
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_instance_maker_builds_what_the_generated_constructor_builds(cls):
    """The C maker and the Python one put each value in its slot as it is, and the instance stays frozen."""
    names = [a.name for a in attrs.fields(cls)]
    values = [object() for _ in names]  # unchecked: any value goes in its slot as it is
    made = speedups.instance_maker(cls, tuple(names))(*values)
    python = _unchecked.generated(cls, names)(*values)
    assert type(made) is cls
    for name, value in zip(names, values, strict=True):
        assert getattr(made, name) is value
        assert getattr(python, name) is value
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.__setattr__(names[0], 1)


@needs_speedups
def test_instance_maker_refuses_what_it_cannot_build():
    """Wrong arity, keywords, unknown names, non-slots, built-in classes and foreign slots are refused."""
    maker = speedups.instance_maker(cb.CitedUri, ("value",))
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker()
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker("a", "b")
    with pytest.raises(TypeError, match="exactly 1 positional"):
        maker(value="a")
    with pytest.raises(AttributeError):
        speedups.instance_maker(cb.CitedUri, ("nope",))
    with pytest.raises(TypeError, match="not a slot"):
        speedups.instance_maker(cb.CitedUri, ("__init__",))
    with pytest.raises(TypeError, match="not a plain class"):
        speedups.instance_maker(int, ())
    with pytest.raises(TypeError, match="not a plain class"):
        speedups.instance_maker(_json.JsonObject, ())

    class Other:
        __slots__ = ("value",)

    assert speedups.instance_maker(Other, ("value",))(1).value == 1

    class Unrelated:
        __slots__ = ()

    # A slot descriptor of another class, even under the same name, would write outside the instance.
    Unrelated.value = Other.__dict__["value"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="not a slot"):
        speedups.instance_maker(Unrelated, ("value",))


# ------------------------------------------------------------------------------------------ the whole library, pure


def test_the_example_transcript_round_trips():
    """Each message of the shipped transcript loads, and comes back equal through unstructure and dumps."""
    text = (Path(cb.__file__).parent / "examples" / "conversation.jsonl").read_text(encoding="utf-8")
    for line in text.splitlines():
        message = cb.loads(line, cb.Message)
        assert cb.structure(cb.unstructure(message), cb.Message) == message
        assert json.loads(cb.dumps(message)) == cb.unstructure(message)


CONFORMANCE_RUNNER = Path(__file__).parents[1].parent / "shared" / "conformance" / "run.py"


@pytest.mark.skipif(not CONFORMANCE_RUNNER.is_file(), reason="conformance vectors not next to the repository")
def test_conformance_runner_passes_in_pure_python():
    """The shared runner, in a fresh interpreter where the accelerator is off from the start."""
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    run = subprocess.run(  # noqa: S603
        [sys.executable, str(CONFORMANCE_RUNNER), "--json"], env=env, capture_output=True, text=True, check=False
    )
    summary = json.loads(run.stdout)
    assert run.returncode == 0, summary
    assert summary["failed"] == 0
    assert summary["passed"] > 0


def test_cli_checks_the_example_in_pure_python():
    """``python -m contentblocks check`` passes the shipped example in a fresh pure-Python interpreter."""
    env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "contentblocks", "check"], env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 problems" in run.stdout
