"""The wire plan: each field's wire facts, derived once from the declarations and the wire description.

``_checks._instances.plan_of`` reads a class's declarations into one record per field (its key, rule and
default, the classes it may hold, the instance a string stands for); this module extends that record with what
the wire makes of them: whether the key is required, when it is left out on the way out, and the union a
nested value is told apart in. The generator
(``_gen``), the C structurer's table (``_structure_table``) and the schema (``_schema``) read these facts,
and none of them derives its own.
"""

from __future__ import annotations

import functools

import attrs

from .._checks._instances import FieldPlan, plan_of
from .._checks._rules import CrossRule
from .._model._wire import ALWAYS_WRITTEN, UNIONS, Union

__all__ = ["CLASSES", "WireField", "nested_classes", "union_for", "wire_plan"]


def union_for(classes: tuple[type, ...]) -> Union | None:
    """The wire union whose members are exactly ``classes`` (a field's ``accepts``), or None for one class."""
    wanted = set(classes)
    for union in UNIONS:
        if set(union.members.values()) == wanted:
            return union
    return None


@attrs.frozen(kw_only=True)
class WireField(FieldPlan):
    """One field of a class as the wire carries it: its plan (``key``, ``rule``...) and its wire facts.

    ``omitted`` says when its key is left out on the way out: ``"none"`` (an optional value, absent as None),
    ``"empty"`` (a default that is empty: ``()``, empty metadata) or ``""`` (always written). A required key
    must be present on the way in; every other key may be left out. ``union`` is the union that tells the
    classes of a nested value apart (None for one class).
    """

    required: bool
    omitted: str
    union: Union | None


def _field(cls: type, plan: FieldPlan) -> WireField:
    required = plan.default is attrs.NOTHING or plan.key in ALWAYS_WRITTEN.get(cls, ())
    omitted = "none" if plan.optional else "" if required else "empty"
    union = union_for(plan.accepts) if plan.accepts else None
    return WireField(**attrs.asdict(plan, recurse=False), required=required, omitted=omitted, union=union)


@functools.cache
def wire_plan(cls: type) -> tuple[tuple[WireField, ...], tuple[CrossRule, ...]]:
    """The wire facts of each field of ``cls`` that carries a rule, in field order, and its cross rules.

    >>> import contentblocks as cb
    >>> [(f.key, f.required, f.omitted) for f in wire_plan(cb.Citation)[0]][:3]
    [('source', True, ''), ('other_sources', False, 'empty'), ('title', False, 'none')]
    """
    plans, cross_rules = plan_of(cls)
    return tuple(_field(cls, plan) for plan in plans), cross_rules


def _reachable() -> tuple[type, ...]:
    """Every class with an object form on the wire: a message's, found from its fields' rules."""
    from .._model._classes import Message  # noqa: PLC0415 - the root of every object on the wire

    order: list[type] = []
    stack: list[type] = [Message]
    while stack:
        cls = stack.pop()
        if cls in order:
            continue
        order.append(cls)
        for plan in plan_of(cls)[0]:
            stack.extend(reversed(plan.accepts))
    return tuple(order)


#: Every class with an object form on the wire, in the order their functions are generated.
CLASSES: tuple[type, ...] = _reachable()


@functools.cache
def nested_classes(cls: type) -> tuple[type, ...]:
    """The classes whose objects an object of ``cls`` may hold at any depth, ``cls`` itself left out.

    >>> import contentblocks as cb
    >>> [c.__name__ for c in nested_classes(cb.TextBlock)]
    ['CacheBreakpoint', 'Citation', 'PageRange', 'CharacterRange', 'BlockRange', 'CitedUri', 'CitedReference']
    """
    found: set[type] = set()
    stack = [cls]
    while stack:
        for plan in plan_of(stack.pop())[0]:
            new = [c for c in plan.accepts if c not in found]
            found.update(new)
            stack.extend(new)
    return tuple(c for c in CLASSES if c in found and c is not cls)
