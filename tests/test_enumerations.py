"""Each enumeration is written once: its tuple, its ``choice`` rule and its ``Literal`` type name the same values."""

from __future__ import annotations

import sys
import typing
from types import ModuleType, UnionType
from typing import Any, get_args, get_origin

import attrs
import pytest

import contentblocks as cb
import contentblocks.providers
import contentblocks.providers.openai_chat
import contentblocks.strategies
import contentblocks.streaming
from contentblocks._checks import _rules
from contentblocks.providers import _contract, _usage
from contentblocks.providers.openai_chat import _write as chat_write

#: Each public tuple of values and the Literal type it enumerates, in the Literal's order.
PAIRS: list[tuple[str, tuple[str, ...], Any]] = [
    ("LOSS_KINDS", cb.providers.LOSS_KINDS, _contract.LossKind),
    ("STOP_REASONS", cb.providers.STOP_REASONS, _contract.StopReason),
    ("BLOCK_KINDS", cb.streaming.BLOCK_KINDS, cb.streaming.BlockKind),
    ("ROLES", cb.strategies.ROLES, cb.Role),
    ("OUTCOMES", sys.modules["contentblocks._strategies._blocks"].OUTCOMES, cb.Outcome),
    ("FILE_OPTIONS", cb.providers.openai_chat.FILE_OPTIONS, chat_write.ToolResultFiles),
    ("DIALECTS", cb.providers.openai_chat.DIALECTS, cb.providers.openai_chat.Dialect),
]


@pytest.mark.parametrize(("name", "values", "literal"), PAIRS, ids=[p[0] for p in PAIRS])
def test_each_tuple_is_its_literal(name: str, values: tuple[str, ...], literal: Any):
    """A tuple of allowed values lists exactly its Literal type's values, in the same order."""
    assert values == get_args(literal), name


def test_the_loss_kinds_keep_seal_rejected():
    """A rejected seal is a loss kind of its own, in the Literal and so in the tuple."""
    assert "seal_rejected" in cb.providers.LOSS_KINDS
    assert set(cb.providers.LOSS_KINDS) >= cb.providers.CONTENT_LOSSES


def test_the_usage_counts_are_the_count_literal():
    """``Count`` names exactly the integer fields of ``Usage``, the ones a usage reader may fill."""
    counts = tuple(f.name for f in attrs.fields(_contract.Usage) if f.name != "raw")
    assert counts == get_args(_usage.Count)


def _classes(*modules: ModuleType) -> set[type]:
    return {v for m in modules for v in vars(m).values() if isinstance(v, type) and attrs.has(v)}


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    """The values of a Literal annotation, ``X | None`` unwrapped; ``()`` when it is no Literal."""
    if get_origin(annotation) in (typing.Union, UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        return _literal_values(inner[0]) if len(inner) == 1 else ()
    return get_args(annotation) if get_origin(annotation) is typing.Literal else ()


CHOICE_FIELDS = sorted(
    (
        (cls, field)
        for cls in _classes(cb, cb.streaming, cb.providers, _contract)
        for field in attrs.fields(cls)
        if isinstance(rule := field.metadata.get("rule"), _rules.Rule) and rule.kind.name == "choice"
    ),
    key=lambda pair: (pair[0].__name__, pair[1].name),
)


def test_the_choice_fields_are_found():
    """The walk below sees every choice field: a role, an outcome, a streamed kind and a stop reason."""
    assert {f.name for _, f in CHOICE_FIELDS} >= {"role", "outcome", "kind", "stop_reason"}


@pytest.mark.parametrize(("cls", "field"), CHOICE_FIELDS, ids=[f"{c.__name__}.{f.name}" for c, f in CHOICE_FIELDS])
def test_each_choice_rule_is_its_fields_literal(cls: type, field: attrs.Attribute[Any]):
    """A field's ``choice`` rule allows exactly the values its annotation's Literal names, in order."""
    assert not isinstance(field.type, str), "the model resolves its annotations where it declares them"
    annotation = field.type
    assert field.metadata["rule"].choices == _literal_values(annotation)
