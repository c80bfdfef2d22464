"""The shared provider toolkit: nulls as absent fields, re-rooted errors, usage, shapes and the extras writer."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb
from contentblocks._checks import _rules
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses
from contentblocks.providers._extras import PayloadWriter, put_extras
from contentblocks.providers._shapes import (
    INT,
    JSON,
    STR,
    Choice,
    ListOf,
    Nullable,
    OneOf,
    Struct,
    canonical,
    fits,
)
from contentblocks.providers._toolkit import drop_nulls, is_filename, present, read_data_url, reroot
from contentblocks.providers._usage import read_usage


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"x": value, "gone": None}
    return value


def test_drop_nulls_leaves_out_null_members_at_every_depth():
    """Null object members go at any depth, in arrays too; nulls that are array items and key order stay."""
    value = {"b": None, "a": [{"c": None, "d": 1}, None, ({"e": None},)], "z": {"y": {"x": None}}}
    assert drop_nulls(value) == {"a": [{"d": 1}, None, [{}]], "z": {"y": {}}}
    assert list(drop_nulls({"z": 1, "n": None, "a": 2})) == ["z", "a"]


def test_drop_nulls_keeps_what_the_callbacks_name():
    """``keep`` keeps a null member, ``verbatim`` copies a member unchanged, ``rename`` gives the wire name."""
    value = {"tools": [{"strict": None, "other": None, "schema_": {"a": None}}], "async_": True}
    out = drop_nulls(
        value,
        keep=lambda member, _: member == "tools.strict",
        verbatim=lambda member, _: member == "tools.schema",
        rename={"schema_": "schema", "async_": "async"},
    )
    assert out == {"tools": [{"strict": None, "schema": {"a": None}}], "async": True}


def test_drop_nulls_is_bounded():
    """A value nested far deeper than the JSON limit, or holding itself, is walked without recursion or a loop."""
    deep = drop_nulls(_deep(5000))
    inner = deep
    for _ in range(cb.Limits().max_depth + 1):
        assert "gone" not in inner
        inner = inner["x"]
    assert "gone" in inner  # below the limit it is copied as it is, for the block built from it to refuse
    cyclic: dict[str, Any] = {"a": None}
    cyclic["self"] = cyclic
    assert "a" not in drop_nulls(cyclic)


def test_present_drops_one_level_and_keeps_what_is_named():
    """``present`` drops the null members of one object only, except those kept, and renames keys."""
    assert present({"a": None, "b": {"c": None}, "d": None}, keep={"d"}, rename={"b": "B"}) == {
        "B": {"c": None},
        "d": None,
    }


def test_reroot_moves_only_what_lies_under_the_root():
    """A problem under ``root`` moves below ``path``; one at a sibling that only shares a prefix moves from ``$``."""
    error = cb.ValidationError([("$.value", "a"), ("$.value[0]", "b"), ("$.values", "c")], omitted=2)
    moved = reroot(error, "$.content[1]", "$.value")
    assert moved.errors == [("$.content[1]", "a"), ("$.content[1][0]", "b"), ("$.content[1].values", "c")]
    assert moved.omitted == 2


def test_read_data_url_names_the_provider_path():
    """A data URL's problem is reported at the field that held it."""
    assert read_data_url("data:text/plain,hi", "$.file").source.data == b"hi"
    with pytest.raises(cb.ValidationError) as info:
        read_data_url("data:image/png;base64,@@@@", "$.content[0].image_url.url")
    assert [path for path, _ in info.value.errors] == ["$.content[0].image_url.url"]


def test_is_filename_is_the_file_block_rule():
    """A name is usable exactly when a file block takes it as its filename."""
    for name in ("a.txt", "", " a", "a/b", "..", "x" * 256, 3):
        try:
            cb.FileBlock(media_type="text/plain", source=cb.BytesSource(data=b""), filename=name)
        except cb.ValidationError:
            accepted = False
        else:
            accepted = True
        assert is_filename(name) is accepted, name


COUNTS: dict[str, Any] = {
    "in": "input_tokens",
    "details.cached": "cache_read_tokens",
    "details.deep.r": "reasoning_tokens",
}


def test_read_usage_reads_nested_counts_and_keeps_the_raw_object():
    """Counts are found by their dotted keys; ``raw`` is the whole object, nulls left out."""
    usage = read_usage({"in": 3, "out": None, "details": {"cached": 1, "deep": {"r": 2}}, "new": 7}, COUNTS, "$.u")
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.reasoning_tokens, usage.output_tokens) == (3, 1, 2, None)
    assert usage.raw == {"in": 3, "details": {"cached": 1, "deep": {"r": 2}}, "new": 7}


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"in": -1}, "$.u.in", "expected a non-negative integer"),
        ({"in": True}, "$.u.in", "expected an integer"),
        ({"details": []}, "$.u.details", "expected an object"),
        ({"details": {"deep": {"r": "2"}}}, "$.u.details.deep.r", "expected an integer"),
        ({"extra": float("nan")}, "$.u.extra", "NaN and infinities are not JSON numbers"),
        ([], "$.u", "expected an object"),
    ],
)
def test_read_usage_refuses_at_the_provider_path(raw, path, message):
    """A bad count or a value the library cannot hold is refused at its path in the provider's usage object."""
    with pytest.raises(cb.ValidationError) as info:
        read_usage(raw, COUNTS, "$.u")
    assert info.value.errors == [(path, message)]


@pytest.mark.parametrize(
    ("read", "at"),
    [
        (lambda usage: anthropic.from_response({"content": [], "usage": usage}), "$.usage"),
        (
            lambda usage: openai_chat.from_response({"choices": [{"message": {"content": "hi"}}], "usage": usage}),
            "$.usage",
        ),
        (lambda usage: openai_responses.from_response({"output": [], "usage": usage}), "$.usage"),
        (lambda usage: gemini.from_response({"usageMetadata": usage}), "$.usageMetadata"),
    ],
    ids=["anthropic", "openai_chat", "openai_responses", "gemini"],
)
def test_every_adapter_refuses_bad_usage_at_its_own_path(read, at):
    """A value no usage can hold (NaN, nesting past the limit) is refused where it sits, by every adapter alike."""
    with pytest.raises(cb.ValidationError) as info:
        read({"extra": float("nan")})
    assert info.value.errors == [(f"{at}.extra", "NaN and infinities are not JSON numbers")]
    with pytest.raises(cb.ValidationError) as info:
        read({"extra": _deep(5000)})
    assert info.value.errors[0][0].startswith(f"{at}.extra.x.x")


_DIRECT = Struct("Direct", {"type": Choice("direct")}, required={"type"})
_SERVER = Struct("Server", {"type": STR, "tool_id": STR}, required={"type"})
CALLER = OneOf("caller", (_DIRECT, _SERVER), lambda value: _DIRECT if value.get("type") == "direct" else _SERVER)


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("5m", Choice("5m", "1h"), True),
        ("2d", Choice("5m", "1h"), False),
        (None, Nullable(STR), True),
        ("a", Nullable(STR), True),
        (3, Nullable(STR), False),
        ({"type": "direct"}, CALLER, True),
        ({"type": "direct", "tool_id": "t"}, CALLER, False),
        ({"type": "server", "tool_id": "t"}, CALLER, True),
        ({"tool_id": "t"}, CALLER, False),
        ({"type": "server"}, Struct("S", {"type": STR, "tool_id": STR}, required={"type", "tool_id"}), False),
        ({"type": "server", "tool_id": None}, Struct("S", {"type": STR, "tool_id": STR}), False),
        ([1, 2], ListOf(INT), True),
        ([1, "2"], ListOf(INT), False),
        ({"tool_id": "t"}, Struct("S", {"toolId": STR}), False),  # a Python name reads, but is not the wire form
        (float("nan"), JSON, False),
    ],
)
def test_fits_is_exactly_the_wire_form(value, kind, expected):
    """A value fits when it is exactly a wire value of its kind: the right choices, required keys, no nulls."""
    assert fits(value, kind) is expected


def test_canonical_names_a_missing_required_field():
    """Reading a struct without a required field says so at the field's path."""
    with pytest.raises(cb.ValidationError) as info:
        canonical(
            {"ttl": "1h"}, Struct("CacheControl", {"type": STR, "ttl": STR}, required={"type"}), "$.cache_control"
        )
    assert info.value.errors == [("$.cache_control.type", "required field missing")]


class _Writer(PayloadWriter):
    namespace = "acme"
    target = "Acme"


ALLOWED = {"tier": Choice("gold", "silver"), "note": STR}


def test_extras_go_out_only_allowed_and_fitting():
    """An allowed field with a fitting value is written; a misfit, a stray key and another namespace are reported."""
    writer = _Writer()
    native = writer.finish(
        {"type": "x"},
        {"acme/tier": "gold", "acme/note": 5, "acme/latency_ms": 3, "app/x": 1, "acme/flag": True},
        "$[0]",
        ALLOWED,
        frozenset({"acme/flag"}),
    )
    assert native == {"type": "x", "tier": "gold"}
    assert [(loss.path, loss.reason) for loss in writer.losses.losses] == [
        ('$[0].metadata["acme/note"]', "metadata has no place in the Acme request; not sent"),
        ('$[0].metadata["acme/latency_ms"]', "metadata has no place in the Acme request; not sent"),
        ('$[0].metadata["app/x"]', "metadata has no place in the Acme request; not sent"),
    ]


def test_a_misfit_reason_is_given_before_the_rest():
    """With ``misfit``, an allowed field whose value does not fit is reported with that reason, in allow-list order."""
    writer = _Writer()
    writer.finish(
        {}, {"acme/x": 1, "acme/note": 5, "acme/tier": "iron"}, "$", ALLOWED, misfit=lambda name: f"bad {name}"
    )
    assert [(loss.path, loss.reason, loss.kind) for loss in writer.losses.losses] == [
        ('$.metadata["acme/tier"]', "bad tier", "metadata_not_sent"),
        ('$.metadata["acme/note"]', "bad note", "metadata_not_sent"),
        ('$.metadata["acme/x"]', "metadata has no place in the Acme request; not sent", "metadata_not_sent"),
    ]


def test_extras_never_override_a_written_field():
    """Metadata never replaces a field the adapter wrote itself, and such an entry is not called a misfit."""
    native = {"note": "mine"}
    assert put_extras(native, {"acme/note": "theirs"}, "acme", ALLOWED) == set()
    assert native == {"note": "mine"}
    writer = _Writer()
    writer.finish({"note": "mine"}, {"acme/note": 3}, "$", ALLOWED, misfit=lambda name: f"bad {name}")
    assert [loss.reason for loss in writer.losses.losses] == ["metadata has no place in the Acme request; not sent"]


PROVIDER_SOURCES = sorted(
    p for d in ("providers", "streaming") for p in (Path(cb.__file__).parent / d).rglob("*.py")
)


@pytest.mark.parametrize("path", PROVIDER_SOURCES, ids=lambda p: str(p.relative_to(Path(cb.__file__).parent)))
def test_adapters_ask_the_declared_rule_not_a_raw_pattern(path: Path):
    """No adapter or stream imports ``_patterns``: it checks a value by its field's rule and that rule's limit."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not any(module.split(".")[-1] == "_patterns" for module in imported)


@pytest.mark.parametrize(
    ("rule", "value", "limits", "accepted"),
    [
        (_rules.TITLE, "t" * 9000, cb.Limits(), True),  # a title is text, not bounded by the URI limit
        (_rules.TITLE, "t" * 9000, cb.Limits(max_text_chars=8999), False),
        (_rules.REFERENCE, "r" * 9000, cb.Limits(), False),  # a reference is bounded by the URI limit
        (_rules.URI, "urn:" + "x" * 20, cb.Limits(max_uri_chars=24), True),
        (_rules.URI, "urn:" + "x" * 21, cb.Limits(max_uri_chars=24), False),
        (_rules.IDENTIFIER, "call 1", cb.Limits(), False),
        (_rules.IDENTIFIER, None, cb.Limits(), False),
        (_rules.choice(cb.providers.STOP_REASONS), "end_turn", cb.Limits(), True),
        (_rules.choice(cb.providers.STOP_REASONS), ["end_turn"], cb.Limits(), False),
        (_rules.FLAG, 1, cb.Limits(), False),
    ],
)
def test_a_rule_accepts_by_its_own_limit(rule: _rules.Rule, value: object, limits: cb.Limits, accepted: bool):
    """``Rule.accepts`` holds a value to the rule's own limit under the limits given, and to its type."""
    assert rule.accepts(value, limits) is accepted
    assert (rule.check(value, limits) is None) is accepted


def test_a_rule_decodes_binary_by_the_binary_limit():
    """``Rule.decode`` reads canonical base64 within ``max_binary_bytes``; redacted bytes must not be empty."""
    assert _rules.DATA.decode("aGk=", cb.Limits(max_binary_bytes=2)) == b"hi"
    assert _rules.DATA.decode("aGk=", cb.Limits(max_binary_bytes=1)) == "more than 1 bytes once decoded"
    assert _rules.DATA.decode("") == b""
    assert _rules.REDACTED.decode("") == "must hold at least one byte"
    with pytest.raises(TypeError, match="holds no bytes"):
        _rules.TITLE.decode("aGk=")
