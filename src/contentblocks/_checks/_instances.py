"""The one check every model class and stream event runs when built in Python: field rules, then cross rules.

It reads the declarations (each field's rule in its attrs metadata, the class's ``__cross_rules__``) once
per class into a plan, and applies them with the default limits, gathering every problem into one
``ValidationError``. Values are held as the rules say: lists become tuples, ``bytearray`` becomes ``bytes``,
JSON values become read-only copies.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs

from .._errors import ValidationError
from ._kinds_nested import check_items
from ._rules import DEFAULT_LIMITS, CrossRule, Limits, Rule

__all__ = ["FieldPlan", "Shorthand", "check_instance", "check_items", "plan_of", "resolve_annotations"]

Problems = list[tuple[str, str]]


@attrs.frozen(kw_only=True)
class FieldPlan:
    """One field as its rule applies: optional when its default is None; ``accepts`` for instances in it.

    ``key`` is the field's name, which is also its key on the wire; the wire plan (``_plan.WireField``) adds
    the facts only the wire description gives.
    """

    key: str
    rule: Rule
    optional: bool
    #: The field's default (``None``, ``()``, empty metadata), where the key may be left out; else attrs.NOTHING.
    default: Any
    #: ``one`` and ``many``: the classes a value (or an item) may be; the union's members, in order.
    accepts: tuple[type, ...] = ()
    #: ``many`` with a ``shorthand`` rule: the instance a string stands for.
    shorthand: Shorthand | None = None


@attrs.frozen(kw_only=True)
class Shorthand:
    """A string that stands for one instance of ``cls``: it fills field ``text`` (the one without a default).

    ``index`` is that field's place; ``defaults`` holds every field's default, None in its place.
    """

    cls: type
    text: FieldPlan
    index: int
    defaults: tuple[Any, ...]


Plan = tuple[tuple[FieldPlan, ...], tuple[CrossRule, ...]]
_plans: dict[type, Plan] = {}


def plan_of(cls: type) -> Plan:
    """The fields of ``cls`` that carry a rule, in field order, and its cross rules (worked out once per class)."""
    try:
        return _plans[cls]
    except KeyError:
        pass
    plans = []
    for field in attrs.fields(cls):
        rule: Rule | None = field.metadata.get("rule")
        if rule is None:
            continue
        # The model resolves its annotations where they are written (``resolve_annotations``); a subclass's
        # own new field may still hold a string.
        hint = typing.get_type_hints(cls)[field.name] if isinstance(field.type, str) else field.type
        accepts = rule.kind.accepts(hint)
        shorthand = None if rule.shorthand is None else _shorthand(rule.shorthand)
        plans.append(FieldPlan(key=field.name, rule=rule, optional=field.default is None, accepts=accepts,
                               shorthand=shorthand, default=field.default))  # fmt: skip
    plan = _plans[cls] = tuple(plans), tuple(getattr(cls, "__cross_rules__", ()))
    return plan


def _shorthand(cls: type) -> Shorthand:
    fields = plan_of(cls)[0]
    index = next(i for i, p in enumerate(fields) if p.default is attrs.NOTHING)
    defaults = tuple(None if i == index else p.default for i, p in enumerate(fields))
    return Shorthand(cls=cls, text=fields[index], index=index, defaults=defaults)


def resolve_annotations(namespace: dict[str, Any]) -> None:
    """Resolve the annotations of every attrs class in a model module's ``namespace``, where they are written.

    The public classes then take ``contentblocks`` as their module (for ``help()``, reprs and pickling), whose
    namespace does not hold the names their annotations use.
    """
    for value in list(namespace.values()):
        if isinstance(value, type) and attrs.has(value) and value.__module__ == namespace["__name__"]:
            attrs.resolve_types(value)


def check_instance(obj: object, limits: Limits = DEFAULT_LIMITS) -> None:
    """Apply the declared rules to a new instance, holding each value as its rule says.

    Raises:
        ValidationError: listing every problem, with paths from the instance (``$.citations[0].end``).
    """
    fields, cross_rules = plan_of(type(obj))
    problems: Problems = []
    given = {name: getattr(obj, name) for cross in cross_rules for name in cross.given}
    for plan in fields:
        value = getattr(obj, plan.key)
        held = plan.rule.kind.hold(problems, f"$.{plan.key}", value, plan, limits)
        if held is not value:
            object.__setattr__(obj, plan.key, held)
    for cross in cross_rules:
        cross.check(problems, "$", *[getattr(obj, name) for name in cross.fields], *[given[n] for n in cross.given])
    if problems:
        raise ValidationError(problems)
