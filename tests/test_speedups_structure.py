"""The C structurer (``structure.c``) against the generated structure functions of ``_gen``.

The generated functions are the reference. For every raw value the C walk of the table
``_structure_table.structurer`` must either hand the value back (a miss) or give exactly what the function
gives, with no problem found; and it must take every valid value the strategies draw, or it would be no
faster path at all. A malformed table is refused when the structurer is made.
"""

from __future__ import annotations

import gc
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks._checks import _patterns
from contentblocks._checks._kinds import ASCII_IDENTIFIER, FREE, TRIMMED
from contentblocks._checks._rules import DEFAULT_LIMITS, Limits
from contentblocks._conversion import _gen
from contentblocks._conversion._kernels import MISS, speedups
from contentblocks._conversion._structure_table import (
    RECORDS,
    AllowedTypes,
    Bounds,
    ClassRecord,
    CrossRecord,
    FieldRecord,
    ShorthandRecord,
    UnionRecord,
    structurer,
)
from contentblocks._json._values import EMPTY_OBJECT
from contentblocks._model import _wire

from .hostile_strategies import TARGETS, mutants, wire_values

pytestmark = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

TARGET_INDEX = {
    "block": -1 - next(i for i, u in enumerate(_wire.UNIONS) if u.alias is cb.Block),
    "message": _gen.CLASSES.index(cb.Message),
}


def _python(raw: Any, target: str, *, native_binary: bool = False, limits: Limits = DEFAULT_LIMITS) -> Any:
    """What the generated function gives for ``raw``, or MISS where it finds a problem."""
    bodies = _gen.structure_bodies(limits, native_binary=native_binary)
    body = bodies.unions["Block"] if target == "block" else bodies.by_class[cb.Message]
    problems: list[tuple[str, str]] = []
    try:
        result = body(raw, problems)
    except Exception:  # noqa: BLE001 - a foreign key's own error: the hooks word it, the C walk must miss
        return MISS
    return MISS if problems else result


def _same(a: Any, b: Any) -> bool:
    """Equal, and built of the same types (``1`` is not ``True``, ``-0.0`` not ``0``, a JsonObject not a dict)."""
    return a == b and repr(a) == repr(b)


@pytest.mark.parametrize("target", ["block", "message"])
@given(data=st.data())
def test_the_walk_takes_every_valid_value_as_the_generated_function_reads_it(target, data):
    """A canonical wire value: the C walk builds what the generated function builds, and does not miss."""
    raw = data.draw(wire_values(target))
    fast = structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX[target])
    assert fast is not MISS
    assert _same(fast, _python(raw, target))


@pytest.mark.parametrize("target", ["block", "message"])
@settings(max_examples=300)
@given(data=st.data())
def test_the_walk_misses_or_agrees_on_damaged_values(target, data):
    """Whatever the value, the C walk misses or gives exactly the generated function's problem-free result."""
    raw = data.draw(mutants(target))
    expected = _python(raw, target)
    fast = structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX[target])
    assert fast is MISS or _same(fast, expected)


@given(block=strategies.blocks(max_binary_size=64))
def test_native_binary_takes_bytes(block):
    """In the native binary mode the walk takes bytes as they are, as the generated function does."""
    raw = _gen.unstructure_functions(native_binary=True, plain_json=True)[type(block)](block)
    fast = structurer(DEFAULT_LIMITS, native_binary=True).object(raw, TARGET_INDEX["block"])
    assert fast is not MISS
    assert _same(fast, _python(raw, "block", native_binary=True))
    assert fast == block


@pytest.mark.parametrize(
    ("limits", "raw"),
    [
        (Limits(max_text_chars=3), {"type": "text", "text": "four"}),
        (Limits(max_binary_bytes=2), {"type": "reasoning", "redacted": "AAEC"}),
        (Limits(max_depth=2), {"type": "json", "value": [[[1]]]}),
        (Limits(max_depth=1), {"type": "text", "text": "x", "metadata": {"a": [{}]}}),
        (Limits(max_nodes=3), {"type": "json", "value": [1, 2, 3, 4]}),
        (Limits(max_uri_chars=5), {"type": "file", "media_type": "a/b", "source": {"type": "url", "url": "https://x"}}),
    ],
)
def test_a_value_past_a_limit_is_a_miss(limits, raw):
    """A value past one of the converter's limits is handed back, for the generated function to word."""
    assert _python(raw, "block", limits=limits) is MISS
    assert structurer(limits, native_binary=False).object(raw, TARGET_INDEX["block"]) is MISS
    assert structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX["block"]) is not MISS


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "text", "text": "x", "citations": None},
        {"type": "text", "text": "x", "extra": 1},
        {"type": "text", "text": "x", 1: 1},
        {"type": "text", "text": ""},
        {"type": "text", "text": "\ud800"},
        {"type": "reasoning", "text": None},
        {"type": "reasoning", "redacted": ""},
        {"type": "reasoning", "redacted": "AAE"},
        {"type": "reasoning", "redacted": "AAEC", "text": "x"},
        {"type": "tool_call", "tool_call_id": "a b", "tool_name": "f", "input": {}},
        {"type": "tool_call", "tool_call_id": "a", "tool_name": "f"},
        {"type": "tool_result", "tool_call_id": "a", "tool_name": "f", "outcome": "done", "content": []},
        {"type": "tool_result", "tool_call_id": "a", "tool_name": "f", "outcome": "failed"},
        {"type": "text", "text": "ab", "citations": [{"source": {"kind": "uri", "value": "https://x"}, "start": 0, "end": 3}]},
        {"type": "text", "text": "ab", "citations": [{"source": {"kind": "uri", "value": "https://x"}, "start": True, "end": 1}]},
        {"type": "text", "text": "ab", "citations": [{"source": {"kind": "uri", "value": "https://x"}, "start": 1}]},
        {"type": "file", "media_type": "a/b", "source": {"type": "reference", "id": " x"}},
        {"type": "json", "value": float("nan")},
        {"type": "json", "value": {"a": 1}, "metadata": {"": 1}},
        {"type": "json", "value": 1, "metadata": None},
        {"type": "refusal", "text": cb.TextBlock(text="x")},
    ],
)
def test_each_problem_is_a_miss(raw):
    """A value with a problem is handed back, whatever the rule: the generated function finds it."""
    assert _python(raw, "block") is MISS
    assert structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX["block"]) is MISS


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "text", "text": "ab", "citations": ({"source": {"kind": "uri", "value": "https://x"}},)},
        {"type": "text", "text": "ab", "metadata": cb.TextBlock(text="x", metadata={"a": 1}).metadata},
        {"type": "json", "value": 1, "metadata": cb.TextBlock(text="x", metadata={"a": 1}).metadata},
    ],
)
def test_valid_values_off_the_common_path_are_misses(raw):
    """Valid values the walk leaves to the generated function: a tuple for an array, a JsonObject for a dict."""
    assert _python(raw, "block") is not MISS
    assert structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX["block"]) is MISS


@pytest.mark.parametrize(
    "raw",
    [
        {"role": "user", "content": ""},
        {"role": "user", "content": []},
        {"role": "user", "content": "\ud800"},
        {"role": "tool", "content": "hi"},
        {"role": "user", "content": [{"type": "tool_call", "tool_call_id": "a", "tool_name": "f", "input": {}}]},
        {"role": "robot", "content": "hi"},
        {"content": "hi"},
    ],
)
def test_message_problems_are_misses(raw):
    """The role table, the shorthand and the content rules: a message breaking one is handed back."""
    assert _python(raw, "message") is MISS
    assert structurer(DEFAULT_LIMITS, native_binary=False).object(raw, TARGET_INDEX["message"]) is MISS


def test_objects_stops_at_the_first_miss_and_consumes_what_it_took():
    """``objects`` appends each message it takes, stops at a miss, and with ``consume`` drops what it took."""
    walk = structurer(DEFAULT_LIMITS, native_binary=False)
    good = {"role": "user", "content": "hi"}
    array = [dict(good), dict(good), {"role": "user"}, dict(good)]
    out: list[Any] = []
    assert walk.objects(array, 0, out, TARGET_INDEX["message"], True) == 2
    assert array[:2] == [None, None]
    assert array[2] == {"role": "user"}
    assert out == [cb.Message(role="user", content="hi")] * 2
    assert walk.objects(array, 3, out, TARGET_INDEX["message"], False) == 4
    assert array[3] == good
    assert len(out) == 3


def test_the_table_refuses_bad_arguments():
    """A target out of range, a negative start or arrays that are not lists are errors, not misses."""
    walk = structurer(DEFAULT_LIMITS, native_binary=False)
    with pytest.raises(ValueError, match="target out of range"):
        walk.object({}, len(_gen.CLASSES))
    with pytest.raises(ValueError, match="target out of range"):
        walk.object({}, -1 - len(_wire.UNIONS))
    with pytest.raises(ValueError, match="negative"):
        walk.objects([], -1, [], 0, False)
    with pytest.raises(TypeError, match="output list"):
        walk.objects((), 0, [], 0, False)
    assert walk.object([], 0) is MISS


def _table(fields: tuple[Any, ...], cross: tuple[Any, ...] = (), cls: type = cb.TextBlock) -> tuple[Any, ...]:
    return (ClassRecord(cls, None, fields, cross),)


def _make(classes: tuple[Any, ...], unions: tuple[Any, ...] = ()) -> Any:
    return speedups.structurer(classes, unions, Bounds(10, 10, 10, 10, 16), False, MISS)


def _text(check: Any = "free", key: str = "text", limit: int = 10) -> FieldRecord:
    return FieldRecord("string", key, 0, check, limit, 0, None)


def _without(record: Any, field: str) -> SimpleNamespace:
    """``record`` as an object of attributes, but for ``field``."""
    return SimpleNamespace(**{k: v for k, v in record._asdict().items() if k != field})


TEXT = _text()
CITATIONS = FieldRecord("many", "citations", 0, None, 0, 0, None)
META = FieldRecord("json_object", "metadata", 0, EMPTY_OBJECT, 0, 0, None)
CACHE = FieldRecord("one", "cache", 1, None, 0, 0, None)  # optional: its target is never visited when absent


def _cross(form: str, arg: Any = None, fields: tuple[int, ...] = (0,)) -> CrossRecord:
    return CrossRecord(len, fields, (), form, arg)


@pytest.mark.parametrize(
    ("classes", "unions", "error"),
    [
        (_table((TEXT._replace(kernel="text_kind"),)), (), "unknown field kind"),
        (_table((_text(key="nope"),)), (), "nope"),
        (_table((TEXT, TEXT)), (), "same slot"),
        (_table((_text("loose"),)), (), "unknown text check"),
        (_table((TEXT, CITATIONS._replace(target=5), CACHE, META)), (), "target out of range"),
        (_table((TEXT, CITATIONS, CACHE, META), (_cross("sometimes"),)), (), "unknown cannot-fail form"),
        (_table((TEXT, CITATIONS, CACHE, META), (_cross("never", fields=(7,)),)), (), "cross rule field out of range"),
        (_table((TEXT, CITATIONS, CACHE, META), (_cross("allowed_types", AllowedTypes(0, 1, {1: 2}), (0, 1)),)), (), "str keys"),
        (_table((TEXT, CITATIONS._replace(shorthand=ShorthandRecord(0, 1, (None,))), CACHE, META)), (), "shorthand"),
        (_table((TEXT,)), (UnionRecord("type", {"text": 3}),), "member class out of range"),
        ((ClassRecord(int, None, (), ()),), (), "plain class"),
        (_table((FieldRecord("choice", "text", 0, ["a"], 0, 0, None),)), (), "frozenset"),
        (_table((_without(TEXT, "limit"),)), (), "a field record needs the field limit"),
        (((cb.TextBlock, None, (TEXT,), ()),), (), "a class record needs the field cls"),
        (_table((TEXT, CITATIONS, CACHE, META), ((len, (0,), (), "never", None),)), (), "a cross rule record needs the field check"),
    ],
)
def test_a_malformed_table_is_refused(classes, unions, error):
    """The structurer checks its table when it is made: nothing in it is trusted when a value is walked."""
    with pytest.raises((TypeError, ValueError, AttributeError), match=error):
        _make(classes, unions)


def test_the_records_are_the_ones_the_c_module_reads():
    """Each record the table is built of has the fields the C module reads, by name; the walk reads no position."""
    assert {name: record._fields for name, record in RECORDS.items()} == speedups.STRUCTURER["records"]
    reordered = SimpleNamespace(**dict(reversed(TEXT._asdict().items())))
    walk = _make(_table((reordered, CITATIONS, CACHE, META)))
    assert walk.object({"text": "hi"}, 0) == cb.TextBlock(text="hi")


def test_a_predicate_or_rule_that_raises_raises_through_the_walk():
    """A text predicate or a cross rule's own error is not swallowed into a miss."""

    def predicate(value: str) -> bool:
        raise LookupError(value)

    walk = _make(_table((_text(predicate), CITATIONS, CACHE, META)))
    with pytest.raises(LookupError, match="x"):
        walk.object({"text": "x"}, 0)

    def rule(problems: list[Any], path: str, text: object) -> None:
        raise KeyError(text)

    walk = _make(_table((TEXT, CITATIONS, CACHE, META), (CrossRecord(rule, (0,), (), "never", None),)))
    with pytest.raises(KeyError, match="y"):
        walk.object({"text": "y"}, 0)


def test_a_list_changed_while_it_is_walked_is_a_miss():
    """A predicate that empties the array being read: the walk notices and hands the value back."""
    items: list[Any] = []

    def predicate(value: str) -> bool:
        items.clear()
        return True

    source = FieldRecord("one", "source", 0, None, 0, 1, None)
    offsets = (FieldRecord("offset", k, 1, None, 0, 0, None) for k in ("start", "end"))
    citation = ClassRecord(cb.Citation, None, (source, *offsets), ())
    uri = ClassRecord(cb.CitedUri, "kind", (_text(predicate, "value"),), ())
    walk = _make((citation, uri, ClassRecord(cb.TextBlock, None, (TEXT, CITATIONS._replace(target=0), CACHE, META), ())))
    items += [{"source": {"kind": "uri", "value": "x"}}] * 3
    assert walk.object({"text": "x", "citations": items}, 2) is MISS


def test_no_walk_leaks_a_reference():
    """Taking, missing and raising leave every input's reference count as it was."""
    walk = structurer(DEFAULT_LIMITS, native_binary=False)
    values = [{"role": "user", "content": [{"type": "text", "text": "hi", "metadata": {"k": [1]}}]},
              {"role": "user", "content": [{"type": "text", "text": ""}]}, {"role": "user", "content": "hi"}]
    parts = [*values, values[0]["content"][0], values[0]["content"][0]["metadata"]["k"], values[2]["content"]]
    gc.collect()
    before = [sys.getrefcount(v) for v in parts]
    for _ in range(1000):
        for i in range(len(values)):
            walk.object(values[i], TARGET_INDEX["message"])
        walk.objects(list(values), 0, [], TARGET_INDEX["message"], False)
    gc.collect()
    assert [sys.getrefcount(v) for v in parts] == before


@given(conversation=strategies.conversations(max_messages=5, max_binary_size=40))
def test_the_converter_takes_conversations_by_the_walk(conversation):
    """``cb.structure`` of a conversation, through the walk, gives back the conversation it was written from."""
    raw = cb.unstructure(conversation)
    assert cb.structure(raw, cb.Conversation) == conversation
    assert TARGETS["conversation"] is cb.Conversation


@pytest.mark.parametrize("fast", [FREE, TRIMMED, ASCII_IDENTIFIER], ids=lambda fast: fast.kernel)
@given(text=st.text(st.characters(codec=None, categories=None), max_size=6)
       | st.text(st.characters(max_codepoint=0x7F), min_size=3, max_size=6)
       | st.sampled_from([" a", "a\u2003", "\x85", "a\ud800", "\udfff", "a\x7f", "~!", "\x00"]))
def test_the_walks_text_checks_are_the_rules_fast_conditions(fast, text):
    """The C walk's named text checks accept exactly the strings the fast conditions they stand for accept."""
    names = {"surrogate": _patterns.find_surrogate, **fast.names}
    condition = eval(f"lambda v, m: {fast.condition.format(v='v', max='m')}", names)  # noqa: S307
    limit = fast.longest or 4
    never = lambda v: False  # noqa: E731 - text the characters do not judge (not ASCII) is the predicate's
    check = fast.kernel if fast.chars is None else (fast.kernel, fast.chars, never)
    walk = _make(_table((_text(check, limit=limit), CITATIONS, META)))
    assert (walk.object({"text": text}, 0) is not MISS) == bool(condition(text, limit))
    if fast.chars is not None:  # the predicate judges the rest
        walk = _make(_table((_text((fast.kernel, fast.chars, lambda v: not v.isascii()), limit=limit), CITATIONS, META)))
        assert (walk.object({"text": text}, 0) is not MISS) == (bool(condition(text, limit)) or not text.isascii())
    if fast.longest is not None:  # the bound is the rule's own, not the walk's limit
        longest = "a" * fast.longest
        assert walk.object({"text": longest}, 0) is not MISS
        assert walk.object({"text": longest + "a"}, 0) is MISS
        assert not condition(longest + "a", limit)


def test_a_text_check_with_characters_is_refused_when_malformed():
    """Only ascii_chars takes characters, only as an ASCII str and with a predicate; never without them."""
    ok = lambda v: True  # noqa: E731
    for check in ("ascii_chars", ("free", "abc", ok), ("ascii_chars", "caf\u00e9", ok), ("ascii_chars", b"abc", ok),
                  ("ascii_chars", "abc", None), ("ascii_chars", "abc")):
        with pytest.raises(TypeError):
            _make(_table((_text(check), CITATIONS, META)))


def test_a_class_of_a_kind_the_walk_does_not_read_is_a_target_only():
    """A field of a kind the table has no entry for (a stream event's index) leaves its class to the Python code."""
    from contentblocks._conversion import _structure_table  # noqa: PLC0415 - the private builder under test
    from contentblocks.streaming import BlockStarted  # noqa: PLC0415

    out: list[_structure_table.Fallback] = []
    assert _structure_table._class(BlockStarted, DEFAULT_LIMITS, speedups.STRUCTURER, out) == (BlockStarted, None, None, ())
    assert out == [(BlockStarted, None, "C has no kernel for the kind of field index (scalar)")]
    walk = _make((ClassRecord(BlockStarted, None, None, ()), ClassRecord(cb.TextBlock, "type", (TEXT, CITATIONS, CACHE, META), ())),
                 (UnionRecord("type", {"started": 0, "text": 1}),))
    assert walk.object({"type": "started", "index": 0}, -1) is MISS
    assert walk.object({"type": "started", "index": 0}, 0) is MISS
    assert walk.object({"type": "text", "text": "x"}, -1) == cb.TextBlock(text="x")


def test_a_class_past_the_walks_capacity_is_a_target_only():
    """More fields or cross rules than a walk holds make the class a miss, not a refused table."""
    nine = (TEXT,) * 9
    rules = (_cross("never"),) * 5
    for fields, cross in ((nine, ()), ((TEXT, CITATIONS, CACHE, META), rules)):
        walk = _make(_table(fields, cross))
        assert walk.object({"text": "x"}, 0) is MISS


def test_a_shorthand_for_a_class_the_walk_does_not_read_is_a_miss():
    """A string standing for an instance of a class the table leaves out is handed back, not built."""
    content = FieldRecord("many", "content", 2, None, 0, 1, ShorthandRecord(1, 0, (None, (), None, EMPTY_OBJECT)))
    role = FieldRecord("choice", "role", 0, frozenset({"user"}), 0, 0, None)
    message = ClassRecord(cb.Message, None, (role, content, CACHE, META), ())
    walk = _make((message, ClassRecord(cb.TextBlock, "type", None, ())))
    assert walk.object({"role": "user", "content": "hi"}, 0) is MISS
    walk = _make((message, ClassRecord(cb.TextBlock, "type", (TEXT, CITATIONS, CACHE, META), ())))
    assert walk.object({"role": "user", "content": "hi"}, 0) == cb.Message(role="user", content="hi")


def test_what_the_walk_leaves_to_python_is_listed():
    """The shipped declarations run in C whole; only the text rules without a C kernel call back into Python.

    A rule that loses its kernel, or a class that falls off the walk (a field of a kind C does not read, a
    reformatted condition), changes this list: the fast path is never lost silently.
    """
    from contentblocks._conversion import _structure_table  # noqa: PLC0415 - the private builder under test

    found = {(f.cls.__name__, f.key) for f in _structure_table.fallbacks()}
    assert all(f.key is not None for f in _structure_table.fallbacks())  # no class is left to Python
    assert found == {
        ("CitedUri", "value"), ("UrlSource", "url"), ("FileBlock", "media_type"), ("FileBlock", "filename"),
    }  # fmt: skip


def test_a_kernel_the_walk_does_not_have_runs_as_a_predicate_and_is_listed():
    """A fast check naming a C kernel the module does not list is called back for, and reported, not refused."""
    import attrs  # noqa: PLC0415

    from contentblocks._checks._kinds import FastText  # noqa: PLC0415
    from contentblocks._conversion import _structure_table  # noqa: PLC0415
    from contentblocks._conversion._plan import wire_plan  # noqa: PLC0415

    plan = wire_plan(cb.TextBlock)[0][0]
    rule = attrs.evolve(plan.rule, fast=FastText(FREE.condition, "no_such_kernel"))
    unknown = attrs.evolve(plan, rule=rule)
    out: list[_structure_table.Fallback] = []
    entry = _structure_table._field(cb.TextBlock, unknown, DEFAULT_LIMITS, speedups.STRUCTURER, out)
    assert entry is not None
    assert callable(entry[3])
    assert entry[3]("fine")
    assert not entry[3]("")
    assert [(f.key, f.reason) for f in out] == [("text", "its text check runs as a Python predicate: C has no kernel for it")]
    assert _structure_table._field(cb.TextBlock, plan, DEFAULT_LIMITS, speedups.STRUCTURER, out)[3] == "free"


def test_the_module_lists_what_its_walk_runs():
    """``STRUCTURER`` names every field kind the kinds emit and the text kernels the rules name."""
    from contentblocks._checks import _kinds, _kinds_nested  # noqa: PLC0415

    assert set(speedups.STRUCTURER["text_checks"]) == {FREE.kernel, TRIMMED.kernel, ASCII_IDENTIFIER.kernel}
    assert speedups.STRUCTURER["max_fields"] >= 1
    assert speedups.STRUCTURER["max_cross_rules"] >= 1
    kinds = {_kinds.TEXT, _kinds.CHOICE, _kinds.OFFSET, _kinds.BINARY, _kinds.JSON, _kinds.METADATA,
             _kinds_nested.ONE, _kinds_nested.MANY}  # fmt: skip
    from contentblocks._conversion._plan import CLASSES, wire_plan  # noqa: PLC0415
    from contentblocks._conversion._structure_table import _predicate  # noqa: PLC0415

    emitted = {p.rule.kind.table(p, DEFAULT_LIMITS, _predicate)[0] for cls in CLASSES for p in wire_plan(cls)[0]
               if p.rule.kind in kinds}  # fmt: skip
    assert emitted <= set(speedups.STRUCTURER["field_kinds"])


def test_the_metadata_key_rule_reaches_the_walk_from_its_declaration():
    """The walk takes the fewest characters of a metadata key from the table, not from a rule of its own."""
    from contentblocks._checks._grammar import METADATA_KEY_MIN_CHARS  # noqa: PLC0415

    assert META.limit == 0
    shipped = structurer(DEFAULT_LIMITS, native_binary=False)
    assert shipped.object({"type": "text", "text": "x", "metadata": {"": 1}}, TARGET_INDEX["block"]) is MISS
    assert shipped.object({"type": "text", "text": "x", "metadata": {"a": 1}}, TARGET_INDEX["block"]) is not MISS
    assert METADATA_KEY_MIN_CHARS == 1
    longer = _make(_table((TEXT, CITATIONS, CACHE, META._replace(limit=3))))
    assert longer.object({"text": "x", "metadata": {"ab": 1}}, 0) is MISS
    assert longer.object({"text": "x", "metadata": {"abc": 1}}, 0) == cb.TextBlock(text="x", metadata={"abc": 1})
    assert _make(_table((TEXT, CITATIONS, CACHE, META))).object({"text": "x", "metadata": {"": 1}}, 0) is not MISS
