"""The C message reader: what it accepts, it builds exactly as the Python message body does; anything else it misses.

The Python body stays the reference and the only place a problem is found and worded. So for every input the
reader either misses, or returns what the Python body returns with no problem reported; never a message the
Python body refuses. The plain valid shape, the corpus's, must not miss (or the reader would only cost time).
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
import hostile_strategies as hs
import strategies as s
from bench_modules import bench_corpus
from contentblocks._accel import MISS
from contentblocks._rules import Limits
from contentblocks._structure import StructureHooks, message_reader

if not cb.speedups_enabled():
    pytest.skip("the C accelerator is not built or is turned off", allow_module_level=True)


def _hooks(**limits: Any) -> tuple[Any, Any]:
    hooks = StructureHooks(Limits(**limits), native_binary=False)
    reader = message_reader(hooks.bodies, hooks.limits)
    assert reader is not None
    return reader, hooks.python_message


READER, PYTHON = _hooks()
SMALL_READER, SMALL_PYTHON = _hooks(max_text_chars=12, max_uri_chars=24)


def _agrees(reader: Any, python: Any, raw: Any) -> Any:
    """The reader's result for ``raw``, after checking it against the Python body's."""
    problems: list[tuple[str, str]] = []
    try:
        expected = python(raw, problems) if type(raw) is dict else None
    except Exception:  # noqa: BLE001 - the Python body's own failure on a hostile value: the reader must miss
        problems.append(("", "raised"))
    made = reader(raw)
    if problems or type(raw) is not dict:
        assert made is MISS, f"the reader accepted what the Python body refuses: {problems}"
        return made
    if made is not MISS:
        assert type(made) is cb.Message
        assert made == expected
        assert hs.exact(cb.unstructure(made), cb.unstructure(expected))
        for got, want in zip(made.content, expected.content, strict=True):
            assert type(got) is type(want)
    return made


def test_every_message_of_the_benchmark_corpus_is_read_in_c() -> None:
    """The corpus is the plain shape: no message of it may fall back to the Python body."""
    raw = bench_corpus().conversation(400)
    for message in raw:
        assert _agrees(READER, PYTHON, message) is not MISS, message


@settings(max_examples=300)
@given(s.wire_messages())
def test_valid_messages_read_as_the_python_body_reads_them(raw: dict[str, Any]) -> None:
    _agrees(READER, PYTHON, raw)
    _agrees(SMALL_READER, SMALL_PYTHON, raw)


@settings(max_examples=600)
@given(hs.mutants("message"))
def test_damaged_messages_are_missed_whenever_the_python_body_finds_a_problem(raw: Any) -> None:
    _agrees(READER, PYTHON, raw)
    _agrees(SMALL_READER, SMALL_PYTHON, raw)


def _text(**extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": "hello world", **extra}


def _cite(**fields: Any) -> dict[str, Any]:
    return {"source": {"kind": "uri", "value": "https://example.com/a"}, **fields}


def _user(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks), **extra}


class _Str(str):
    __slots__ = ()


class _Dict(dict):  # type: ignore[type-arg]
    pass


READ = [
    pytest.param({"role": "user", "content": "hi"}, id="string content"),
    pytest.param(_user(_text()), id="a text block"),
    pytest.param(_user(_text(citations=[])), id="empty citations"),
    pytest.param(_user(_text(citations=[_cite(start=0, end=11, title="T", quote="hello")])), id="full citation"),
    pytest.param(_user(_text(citations=[_cite()])), id="citation without span"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "reference", "value": "doc-1"}}])), id="reference"),
    pytest.param(_user(_text(metadata={"k": [1, 2]})), id="block metadata"),
    pytest.param(_user(_text(), metadata={"k": "v"}), id="message metadata"),
    pytest.param({"role": "assistant", "content": [
        {"type": "reasoning", "text": "think", "signature": "sig"},
        {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"a": 1}},
    ]}, id="other kinds through their Python bodies"),
]

# Valid, but not the plain shape: the Python body reads them.
LEFT_TO_PYTHON = [
    pytest.param({"role": "user", "content": ({"type": "text", "text": "hi"},)}, id="a tuple of blocks"),
    pytest.param(_user(_Dict(_text())), id="dict subclass block"),
    pytest.param(_Dict(role="user", content="hi"), id="dict subclass message"),
]

REFUSED = [
    pytest.param({"role": "user", "content": "hi", "name": "x"}, id="unknown message key"),
    pytest.param({"role": "robot", "content": "hi"}, id="unknown role"),
    pytest.param({"role": "tool", "content": "hi"}, id="string content for a role without text"),
    pytest.param({"role": "user", "content": []}, id="no blocks"),
    pytest.param({"role": "user", "content": ""}, id="empty string content"),
    pytest.param({"role": "user", "content": "x" * 2_000_000}, id="string content over a small limit"),
    pytest.param(_user({"type": "reasoning", "text": "t"}), id="a block the role may not carry"),
    pytest.param(_user(_text(text="")), id="empty text"),
    pytest.param(_user(_text(text="a\ud800b")), id="lone surrogate"),
    pytest.param(_user(_text(text=_Str("hi"))), id="str subclass"),
    pytest.param(_user(_text(extra=1)), id="unknown block key"),
    pytest.param(_user(_text(citations=None)), id="null citations"),
    pytest.param(_user(_text(citations=[_cite(start=0)])), id="start without end"),
    pytest.param(_user(_text(citations=[_cite(start=3, end=2)])), id="start after end"),
    pytest.param(_user(_text(citations=[_cite(start=0, end=12)])), id="span past the text"),
    pytest.param(_user(_text(citations=[_cite(start=-1, end=2)])), id="negative start"),
    pytest.param(_user(_text(citations=[_cite(start=False, end=2)])), id="bool start"),
    pytest.param(_user(_text(citations=[_cite(start=0, end=2**70)])), id="huge end"),
    pytest.param(_user(_text(citations=[_cite(start=None, end=None)])), id="null span"),
    pytest.param(_user(_text(citations=[_cite(title=" T")])), id="title with leading space"),
    pytest.param(_user(_text(citations=[_cite(title="T\u2003")])), id="title with trailing em space"),
    pytest.param(_user(_text(citations=[_cite(title="")])), id="empty title"),
    pytest.param(_user(_text(citations=[_cite(title=None)])), id="null title"),
    pytest.param(_user(_text(citations=[_cite(quote="")])), id="empty quote"),
    pytest.param(_user(_text(citations=[_cite(page=1)])), id="unknown citation key"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "uri", "value": "no scheme"}}])), id="bad uri"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "uri", "value": "a:b", "x": 1}}])), id="source key"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "reference", "value": " r"}}])), id="spaced reference"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "page", "value": "r"}}])), id="unknown source kind"),
    pytest.param(_user(_text(citations=[{"title": "T"}])), id="no source"),
    pytest.param(_user(_text(metadata={"": 1})), id="bad block metadata"),
    pytest.param(_user(_text(), metadata=None), id="null message metadata"),
    pytest.param({"role": "assistant", "content": [{"type": "reasoning"}]}, id="a Python body's problem"),
]


@pytest.mark.parametrize("raw", READ)
def test_plain_valid_shapes_are_read_in_c(raw: dict[str, Any]) -> None:
    assert _agrees(READER, PYTHON, raw) is not MISS


@pytest.mark.parametrize("raw", REFUSED)
def test_each_rule_makes_a_miss_and_the_python_body_words_it(raw: dict[str, Any]) -> None:
    reader, python = (SMALL_READER, SMALL_PYTHON) if "x" * 1000 in str(raw) else (READER, PYTHON)
    problems: list[tuple[str, str]] = []
    python(raw, problems)
    assert problems
    assert reader(raw) is MISS


@pytest.mark.parametrize("raw", LEFT_TO_PYTHON)
def test_valid_shapes_other_than_the_plain_one_are_left_to_the_python_body(raw: dict[str, Any]) -> None:
    assert READER(raw) is MISS
    assert cb.structure(raw, cb.Message) == PYTHON(dict(raw), [])


@given(st.sampled_from([p.values[0] for p in READ + REFUSED + LEFT_TO_PYTHON]))
def test_reading_takes_no_reference_it_does_not_give_back(raw: dict[str, Any]) -> None:
    """Reading (valid or not) and dropping the result leaves the input's reference counts as they were."""
    strings = [v for v in _leaves(raw) if isinstance(v, str)]
    before = [sys.getrefcount(v) for v in strings]
    for _ in range(50):
        READER(raw)
    assert [sys.getrefcount(v) for v in strings] == before


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_the_converters_structure_messages_with_the_reader_and_words_problems_as_before() -> None:
    """The same message through cb.structure: read in C when valid, the Python body's error when not."""
    raw = _user(_text(citations=[_cite(start=0, end=5)]))
    assert cb.structure(raw, cb.Message) == PYTHON(raw, [])
    bad = _user(_text(citations=[_cite(start=0, end=50)]))
    with pytest.raises(cb.ValidationError) as info:
        cb.structure(bad, cb.Message)
    assert info.value.errors == [("$.content[0].citations[0].end", "span ends after the text (11 code points long)")]


class _HostileKey(str):
    """A key whose hash matches a wire name, and whose __eq__ empties the dict it sits in."""

    __slots__ = ()
    victim: ClassVar[dict[Any, Any]] = {}

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        _HostileKey.victim.clear()
        return False


@pytest.mark.parametrize(("where", "name"), [("message", "metadata"), ("block", "metadata"), ("citation", "quote"),
                                           ("citation", "start"), ("source", "note")])
def test_keys_that_are_not_exact_str_make_a_miss_before_any_lookup(where: str, name: str) -> None:
    """A key of a str subclass could run code from a lookup; the reader looks nothing up in such a dict.

    The key hashes like a name the reader looks up and is absent otherwise, so a lookup of that name would
    compare it with the name and run its __eq__, which empties the dict (and would free what was read from it).
    """
    source = {"kind": "uri", "value": "https://example.com/a"}
    citation = {"source": source, "title": "T"}
    block = {"type": "text", "text": "hello", "citations": [citation]}
    message = {"role": "user", "content": [block]}
    target = {"message": message, "block": block, "citation": citation, "source": source}[where]
    target[_HostileKey(name)] = "x"
    _HostileKey.victim = target
    before = dict(target)
    assert READER(message) is MISS
    assert target == before


def test_limits_beyond_any_str_are_taken_as_they_are() -> None:
    """A limit larger than a C Py_ssize_t is the same as sys.maxsize: the converter is made and reads in C."""
    huge = 10**30
    reader, python = _hooks(max_text_chars=huge, max_uri_chars=huge)
    raw = _user(_text(citations=[_cite(start=0, end=5)]))
    assert _agrees(reader, python, raw) is not MISS
    assert cb.make_converter(max_text_chars=huge).structure(raw, cb.Message) == python(raw, [])
