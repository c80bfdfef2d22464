"""The generated structure functions against the classes' own check, and against the pure-Python path.

The converter's structure functions are generated from the declarations and build instances without checking
them again, so they must apply exactly the rules the classes apply when built in Python. ``construct`` here
reads a wire value with the constructors: it decodes only what the wire adds (tags, keys, base64, nulls for
absent keys) and leaves every rule to the class. Structuring any value, valid or damaged, gives what
``construct`` gives: the same instance, or a refusal; and a problem a constructor can see is worded as the
class's own check words it. A fresh interpreter without the accelerator gives the same results and errors,
word for word, on values and texts alike.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
import hostile_strategies as hs
from bench_modules import bench_corpus
from contentblocks._checks._instances import plan_of
from contentblocks._checks._patterns import check_base64
from contentblocks._checks._rules import DEFAULT_LIMITS
from contentblocks._json._values import plain_container
from contentblocks._model._wire import ALWAYS_WRITTEN, TAGGED, keys_of


class WireOnlyError(Exception):
    """A problem only the wire form can have (a tag, a key, base64, a null for an absent key): no class sees it."""


def _pick(raw: dict[str, Any], accepts: tuple[type, ...]) -> type:
    """The class of ``accepts`` whose tag ``raw`` carries (the one class, for an untagged one)."""
    if accepts[0] not in TAGGED:
        return accepts[0]
    key = TAGGED[accepts[0]][0]
    tag = dict.get(raw, key)
    for cls in accepts:
        if type(tag) is str and tag == TAGGED[cls][1]:
            return cls
    raise WireOnlyError(key)


def _field_value(value: Any, plan: Any) -> Any:
    """A field's wire value as its constructor takes it: nested objects built, base64 decoded, the rest as it is."""
    kind = plan.rule.kind.name
    if kind == "one":
        return construct(value, plan.accepts)
    if kind == "many" and not (type(value) is str and plan.shorthand is not None):
        container, items = plain_container(value)
        return [construct(item, plan.accepts) for item in items] if container == 2 else value
    if kind == "binary":
        if type(value) is not str or type(decoded := check_base64(value, DEFAULT_LIMITS.max_binary_bytes)) is str:
            raise WireOnlyError(plan.key)
        return decoded
    return value


def construct(raw: Any, accepts: tuple[type, ...]) -> Any:
    """An instance of one of ``accepts`` built with its constructor from a wire value, or WireOnlyError.

    Raises:
        WireOnlyError: for a problem only the wire form can have.
        cb.ValidationError: the constructor's own, for any other problem.
    """
    container, obj = plain_container(raw)
    if container != 1:
        raise WireOnlyError("not an object")
    cls = _pick(obj, accepts)
    if any(type(key) is not str for key in obj) or not set(obj) <= set(keys_of(cls)):
        raise WireOnlyError("keys")
    kwargs = {}
    for plan in plan_of(cls)[0]:
        if plan.key not in obj:
            if plan.default is attrs.NOTHING or plan.key in ALWAYS_WRITTEN.get(cls, ()):
                raise WireOnlyError(plan.key)
            continue
        value = obj[plan.key]
        if value is None and plan.default is not attrs.NOTHING and plan.rule.kind.name not in ("json", "metadata"):
            raise WireOnlyError(plan.key)  # a key that may be left out is never null
        kwargs[plan.key] = _field_value(value, plan)
    return cls(**kwargs)


#: Every block class: what a block (``cb.Block``) may be.
BLOCKS = tuple(cls for cls, (_, _, noun) in TAGGED.items() if noun == "block")


def construct_target(raw: Any, target: str) -> Any:
    """``construct`` for a block, a message or a conversation (an array of messages)."""
    if target == "conversation":
        container, items = plain_container(raw)
        if container != 2:
            raise WireOnlyError("not an array")
        return cb.Conversation(messages=[construct(item, (cb.Message,)) for item in items])
    return construct(raw, BLOCKS if target == "block" else (cb.Message,))


def agree(raw: Any, target: str) -> Any:
    """Structure ``raw`` and construct it: the same instance, or both refuse. Returns the instance or None."""
    try:
        structured = cb.structure(raw, hs.TARGETS[target])
    except cb.ValidationError:
        structured = None
    try:
        built = construct_target(raw, target)
    except (WireOnlyError, cb.ValidationError):
        built = None
    assert (structured is None) is (built is None), f"structure gave {structured!r}, the constructors {built!r}"
    if structured is not None:
        assert structured == built
        assert type(structured) is type(built)
        assert hs.exact(cb.unstructure(structured), cb.unstructure(built))
    return structured


TARGET_NAMES = ["block", "message", "conversation"]


@pytest.mark.parametrize("target", TARGET_NAMES)
@settings(max_examples=80)
@given(data=st.data())
def test_valid_values_build_as_the_constructors_build_them(target, data):
    """Every valid wire value structures to the instance the constructors build from it, types included."""
    assert agree(data.draw(hs.wire_values(target)), target) is not None


@pytest.mark.parametrize("target", TARGET_NAMES)
@settings(max_examples=300)
@given(data=st.data())
def test_damaged_values_are_refused_exactly_where_the_constructors_refuse_them(target, data):
    """A damaged value is refused by structure exactly when the wire or a constructor refuses it."""
    agree(data.draw(hs.mutants(target)), target)


def test_the_benchmark_corpus_builds_as_the_constructors_build_it():
    """The benchmark's conversation, every block kind in it, structures to what the constructors build."""
    assert agree(bench_corpus().conversation(400), "conversation") is not None


# ------------------------------------------------------------------------------------------ wording


def _text(**extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": "hello world", **extra}


def _cite(**fields: Any) -> dict[str, Any]:
    return {"source": {"kind": "uri", "value": "https://example.com/a"}, **fields}


def _user(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks), **extra}


def _assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


class _Str(str):
    __slots__ = ()


# One problem each, which a class's own check finds: structure words it as the check does, at the same place.
CLASS_RULES = [
    pytest.param({"role": "robot", "content": "hi"}, id="unknown role"),
    pytest.param({"role": "tool", "content": "hi"}, id="string content for a role without text"),
    pytest.param({"role": "user", "content": []}, id="no blocks"),
    pytest.param({"role": "user", "content": ""}, id="empty string content"),
    pytest.param(_user({"type": "reasoning", "text": "t"}), id="a block the role may not carry"),
    pytest.param({"role": "assistant", "content": [{"type": "reasoning", "text": "t", "redacted": "AQ=="}]},
                 id="redacted reasoning with text"),
    pytest.param(_user(_text(text="")), id="empty text"),
    pytest.param(_user(_text(text="a\ud800b")), id="lone surrogate"),
    pytest.param(_user(_text(text=_Str("hi"))), id="str subclass"),
    pytest.param(_user(_text(citations=[_cite(start=0)])), id="start without end"),
    pytest.param(_user(_text(citations=[_cite(start=3, end=2)])), id="start after end"),
    pytest.param(_user(_text(citations=[_cite(start=0, end=12)])), id="span past the text"),
    pytest.param(_user(_text(citations=[_cite(start=-1, end=2)])), id="negative start"),
    pytest.param(_user(_text(citations=[_cite(start=False, end=2)])), id="bool start"),
    pytest.param(_user(_text(citations=[_cite(start=0, end=2**70)])), id="huge end"),
    pytest.param(_user(_text(citations=[_cite(title=" T")])), id="title with leading space"),
    pytest.param(_user(_text(citations=[_cite(title="T\u2003")])), id="title with trailing em space"),
    pytest.param(_user(_text(citations=[_cite(title="")])), id="empty title"),
    pytest.param(_user(_text(citations=[_cite(quote="")])), id="empty quote"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "uri", "value": "no scheme"}}])), id="bad uri"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "reference", "value": " r"}}])), id="spaced reference"),
    pytest.param(_user(_text(metadata={"": 1})), id="empty metadata key"),
    pytest.param(_user(_text(metadata={"k": float("nan")})), id="NaN in metadata"),
    pytest.param(_assistant({"type": "tool_call", "tool_call_id": "c 1", "tool_name": "f", "input": {}}),
                 id="identifier with a space"),
    pytest.param(_assistant({"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": _deep(101)}),
                 id="a JSON value nested too deep"),
    pytest.param(_user({"type": "file", "media_type": "*/*", "source": {"type": "url", "url": "https://e.x/a"}}),
                 id="bad media type"),
    pytest.param(_user({"type": "file", "media_type": "image/png", "filename": "a/b",
                        "source": {"type": "url", "url": "https://e.x/a"}}), id="a path as file name"),
    pytest.param(_user({"type": "file", "media_type": "image/png", "source": {"type": "url", "url": "ftp://e.x"}}),
                 id="not an http url"),
]  # fmt: skip

# Problems only the wire form can have: structure refuses them and no constructor is reached.
WIRE_ONLY = [
    pytest.param({"role": "user", "content": "hi", "name": "x"}, id="unknown message key"),
    pytest.param(_user(_text(extra=1)), id="unknown block key"),
    pytest.param(_user({"type": "picture"}), id="unknown block type"),
    pytest.param(_user(_text(citations=None)), id="null citations"),
    pytest.param(_user(_text(citations=[_cite(start=None, end=None)])), id="null span"),
    pytest.param(_user(_text(citations=[_cite(title=None)])), id="null title"),
    pytest.param(_user(_text(citations=[_cite(page=1)])), id="unknown citation key"),
    pytest.param(_user(_text(citations=[{"source": {"kind": "page", "value": "r"}}])), id="unknown source kind"),
    pytest.param(_user(_text(citations=[{"title": "T"}])), id="no source"),
    pytest.param({"role": "assistant", "content": [{"type": "reasoning", "redacted": "AQ="}]}, id="bad base64"),
    pytest.param({"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c1", "tool_name": "f",
                                               "outcome": "failed"}]}, id="tool result without content"),
]  # fmt: skip


@pytest.mark.parametrize("raw", CLASS_RULES)
def test_a_problem_a_class_finds_is_worded_as_its_own_check_words_it(raw):
    """Structure's one problem is the constructor's, word for word, at the path of the constructor's object."""
    agree(raw, "message")
    with pytest.raises(cb.ValidationError) as structured:
        cb.structure(raw, cb.Message)
    with pytest.raises(cb.ValidationError) as built:
        construct_target(raw, "message")
    assert len(structured.value.errors) == len(built.value.errors) == 1
    (path, message), (own_path, own_message) = structured.value.errors[0], built.value.errors[0]
    assert message == own_message
    assert path.endswith(own_path[1:])


@pytest.mark.parametrize("raw", WIRE_ONLY)
def test_a_problem_of_the_wire_form_is_refused_before_any_constructor(raw):
    """What only the wire form can get wrong is refused by structure, and reaches no class's check."""
    with pytest.raises(cb.ValidationError):
        cb.structure(raw, cb.Message)
    with pytest.raises(WireOnlyError):
        construct_target(raw, "message")


class _EmptyingKey(str):
    """A key whose hash matches a wire name, and whose ``__eq__`` empties the dict it sits in."""

    __slots__ = ()
    victim: ClassVar[dict[Any, Any]] = {}

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        _EmptyingKey.victim.clear()
        return False


@pytest.mark.parametrize(("where", "name"), [("message", "metadata"), ("block", "metadata"), ("citation", "quote"),
                                           ("citation", "start"), ("source", "note")])  # fmt: skip
def test_a_key_that_empties_its_dict_ends_in_a_validation_error(where, name):
    """A str-subclass key whose comparison empties the dict being read: a ValidationError, never a message."""
    source = {"kind": "uri", "value": "https://example.com/a"}
    citation = {"source": source, "title": "T"}
    block = {"type": "text", "text": "hello", "citations": [citation]}
    message = {"role": "user", "content": [block]}
    target = {"message": message, "block": block, "citation": citation, "source": source}[where]
    target[_EmptyingKey(name)] = "x"
    _EmptyingKey.victim = target
    with pytest.raises(cb.ValidationError):
        cb.structure(message, cb.Message)


# ------------------------------------------------------------------------------------------ the pure path

WORKER = """
import base64, json, sys
import contentblocks as cb
targets = {"block": cb.Block, "message": cb.Message, "conversation": cb.Conversation}
print(cb.speedups_enabled(), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    data = base64.b64decode(request["data"])
    data = data if request["bytes"] else data.decode("utf-8", "surrogatepass")
    try:
        answer = ["ok", cb.dumps(cb.loads(data, targets[request["target"]]))]
    except cb.ValidationError as e:
        answer = ["error", e.errors, e.omitted]
    except Exception as e:
        answer = ["raised", type(e).__name__]
    print(json.dumps(answer), flush=True)
"""


class PureInterpreter:
    """A fresh interpreter without the accelerator, loading the texts it is sent and answering with outcomes."""

    def __init__(self) -> None:
        env = {**os.environ, "CONTENTBLOCKS_PURE_PYTHON": "1"}
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", WORKER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        assert self.stdout.readline().strip() == "False"

    def loads(self, data: str | bytes, target: str) -> Any:
        """The pure path's outcome of ``cb.loads(data, target)``, as JSON."""
        raw = data if type(data) is bytes else data.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
        request = {"target": target, "bytes": type(data) is bytes, "data": base64.b64encode(raw).decode()}
        self.stdin.write(json.dumps(request) + "\n")
        self.stdin.flush()
        return json.loads(self.stdout.readline())

    def close(self) -> None:
        """Stop the interpreter: the end of its input ends its loop."""
        self.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def pure() -> Iterator[PureInterpreter]:
    """One pure-Python interpreter for the module's comparisons."""
    interpreter = PureInterpreter()
    yield interpreter
    interpreter.close()


def here(data: str | bytes, target: str) -> Any:
    """This interpreter's outcome of ``cb.loads(data, target)``, as the worker writes it."""
    try:
        answer: list[Any] = ["ok", cb.dumps(cb.loads(data, hs.TARGETS[target]))]
    except cb.ValidationError as e:
        answer = ["error", e.errors, e.omitted]
    except Exception as e:  # noqa: BLE001 - any other exception is compared by its name
        answer = ["raised", type(e).__name__]
    return json.loads(json.dumps(answer))


def _text_of(raw: Any) -> str | None:
    try:
        return json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def nesting(data: str | bytes) -> int:
    """How deep the brackets of a JSON text nest, outside its strings."""
    text = data.decode("latin-1") if type(data) is bytes else data
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


#: Texts nesting deeper than this parse or not depending on the call stack (``test_loads_recursion`` pins them).
MAX_NESTING = 400


@pytest.mark.parametrize("target", TARGET_NAMES)
@settings(max_examples=120)
@given(data=st.data())
def test_the_pure_path_gives_the_same_results_and_errors(pure, target, data):
    """Damaged values and damaged texts load, or fail, as in a fresh pure-Python interpreter, word for word."""
    texts = st.one_of(hs.mutants(target).map(_text_of).filter(bool), hs.text_mutants(target))
    text = data.draw(texts.filter(lambda t: nesting(t) <= MAX_NESTING))
    assert here(text, target) == pure.loads(text, target)


@pytest.mark.parametrize("raw", [p.values[0] for p in CLASS_RULES + WIRE_ONLY if _text_of(p.values[0])])
def test_the_pure_path_words_each_rule_the_same(pure, raw):
    """Each single-rule case of this module is refused with the same error in a fresh pure-Python interpreter."""
    text = _text_of(raw)
    assert here(text, "message") == pure.loads(text, "message")


def test_the_pure_path_loads_the_benchmark_corpus_the_same(pure):
    """The benchmark conversation's text loads to the same text in a fresh pure-Python interpreter."""
    text = json.dumps(bench_corpus().conversation(400))
    outcome = here(text, "conversation")
    assert outcome[0] == "ok"
    assert outcome == pure.loads(text, "conversation")


def test_an_array_tagged_at_another_key_is_read_in_the_one_loop(monkeypatch):
    """A citation's ``other_sources`` (tagged at ``kind``) go through the array's fast loop, not item by item.

    The loop once looked for ``type`` in every union, so each array of citation sources fell to the slow path.
    """
    from contentblocks._checks._rules import Limits  # noqa: PLC0415
    from contentblocks._conversion import _readers  # noqa: PLC0415 - the slow path under watch
    from contentblocks._conversion._gen import generate_structure_bodies  # noqa: PLC0415

    slow: list[object] = []
    monkeypatch.setattr(_readers, "plain_container", lambda value: slow.append(value) or plain_container(value))
    bodies = generate_structure_bodies(Limits(), native_binary=False, replaced={})
    uri = {"kind": "uri", "value": "https://example.com/a"}
    problems: list[tuple[str, str]] = []
    citation = bodies.by_class[cb.Citation]({"source": uri, "other_sources": [uri, uri]}, problems)
    assert (problems, slow) == ([], [])
    assert citation.other_sources == (cb.CitedUri(value="https://example.com/a"),) * 2
    bodies.by_class[cb.Citation]({"source": uri, "other_sources": [uri, {"kind": "page"}]}, problems)
    assert problems[0][0] == ".other_sources[1].kind"
