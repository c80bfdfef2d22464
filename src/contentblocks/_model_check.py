"""The one check every model class and stream event runs when built in Python: field rules, then cross rules.

It reads the declarations (each field's rule in its attrs metadata, the class's ``__cross_rules__``) once
per class into a plan, and applies them with the default limits, gathering every problem into one
``ValidationError``. Values are held as the rules say: lists become tuples, ``bytearray`` becomes ``bytes``,
JSON values become read-only copies.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import attrs

from ._errors import ValidationError, describe_type, with_article
from ._freeze import freeze, freeze_metadata
from ._json import JsonObject
from ._rules import DEFAULT_LIMITS, CrossRule, Limits, Rule, expected_one_of, text_problem

__all__ = ["FieldPlan", "check_instance", "check_items", "plan_of", "resolve_annotations"]

Problems = list[tuple[str, str]]


@attrs.frozen(kw_only=True)
class FieldPlan:
    """One field as its rule applies: optional when its default is None; ``accepts`` for instances in it."""

    name: str
    rule: Rule
    optional: bool
    #: The field's default (``None``, ``()``, empty metadata), where the key may be left out; else attrs.NOTHING.
    default: Any
    #: ``one`` and ``many``: the classes a value (or an item) may be; the union's members, in order.
    accepts: tuple[type, ...] = ()
    #: ``many`` with ``shorthand``: the class a string stands for.
    shorthand: type | None = None


def _members(annotation: Any) -> tuple[type, ...]:
    """The classes an annotation admits: ``A | B`` gives both, ``A | None`` gives ``A``."""
    args = typing.get_args(annotation)
    if not args:
        return (annotation,)
    return tuple(a for a in args if a is not type(None))


Plan = tuple[tuple[FieldPlan, ...], tuple[CrossRule, ...]]
_plans: dict[type, Plan] = {}


def plan_of(cls: type) -> Plan:
    """The fields of ``cls`` that carry a rule, in field order, and its cross rules (worked out once per class)."""
    try:
        return _plans[cls]
    except KeyError:
        pass
    from ._model import TextBlock  # noqa: PLC0415 - the classes exist by the time one is first built

    plans = []
    for field in attrs.fields(cls):
        rule: Rule | None = field.metadata.get("rule")
        if rule is None:
            continue
        # The model resolves its annotations where they are written (``resolve_annotations``); a subclass's
        # own new field may still hold a string.
        hint = typing.get_type_hints(cls)[field.name] if isinstance(field.type, str) else field.type
        accepts: tuple[type, ...] = ()
        if rule.kind == "one":
            accepts = _members(hint)
        elif rule.kind == "many":
            accepts = _members(typing.get_args(hint)[0])
        plans.append(
            FieldPlan(
                name=field.name,
                rule=rule,
                optional=field.default is None,
                accepts=accepts,
                shorthand=TextBlock if rule.shorthand else None,
                default=field.default,
            )
        )
    plan = _plans[cls] = tuple(plans), tuple(getattr(cls, "__cross_rules__", ()))
    return plan


def resolve_annotations(namespace: dict[str, Any]) -> None:
    """Resolve the annotations of every attrs class in a model module's ``namespace``, where they are written.

    The public classes then take ``contentblocks`` as their module (for ``help()``, reprs and pickling), whose
    namespace does not hold the names their annotations use.
    """
    for value in list(namespace.values()):
        if isinstance(value, type) and attrs.has(value) and value.__module__ == namespace["__name__"]:
            attrs.resolve_types(value)


def _text(problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
    if value is None and plan.optional:
        return value
    rule = plan.rule
    message = text_problem(rule, value, rule.max_chars(limits))
    if message is not None:
        problems.append((path, message))
    return value


def _choice(problems: Problems, path: str, value: Any, plan: FieldPlan, _limits: Limits) -> Any:
    if value is None and plan.optional:
        return value
    if type(value) is not str or value not in plan.rule.choices:
        problems.append((path, expected_one_of(plan.rule)))
    return value


def _binary(problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
    if value is None and plan.optional:
        return value
    if isinstance(value, (bytearray, memoryview)):
        value = bytes(value)
    if type(value) is not bytes:
        problems.append((path, f"expected bytes, got {describe_type(value)}"))
    elif not value and plan.rule.nonempty:
        problems.append((path, plan.rule.nonempty))
    elif len(value) > limits.max_binary_bytes:
        problems.append((path, f"more than {limits.max_binary_bytes:,} bytes"))
    return value


def _scalar(problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
    if value is None and plan.optional:
        return value
    message = plan.rule.problem(value, plan.rule.max_chars(limits))  # type: ignore[misc]
    if message is not None:
        problems.append((path, message))
    return value


def _json(problems: Problems, path: str, value: Any, _plan: FieldPlan, limits: Limits) -> Any:
    return freeze(value, path, limits, problems)


def _metadata(problems: Problems, path: str, value: Any, _plan: FieldPlan, limits: Limits) -> Any:
    if type(value) is JsonObject and not value:
        return value
    return freeze_metadata(problems, path, value, limits)


def _offset(_problems: Problems, _path: str, value: Any, _plan: FieldPlan, _limits: Limits) -> Any:
    return value  # a span's ends are ruled together, by the class's cross rule


def one_of_names(classes: tuple[type, ...]) -> str:
    """``a A`` (or ``an A``), ``A or B``, ``A, B or C``: the classes a value may be, for a message."""
    names = [c.__name__ for c in classes]
    return with_article(names[0]) if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _one(problems: Problems, path: str, value: Any, plan: FieldPlan, _limits: Limits) -> Any:
    if not isinstance(value, plan.accepts):
        problems.append((path, f"expected {one_of_names(plan.accepts)}, got {describe_type(value)}"))
    return value


def check_items(problems: Problems, path: str, value: Any, plan: FieldPlan) -> tuple[Any, ...]:
    """A ``many`` field's value as a tuple of instances of ``plan.accepts``; a problem for anything else."""
    rule = plan.rule
    if type(value) is str and plan.shorthand is not None:
        if not value:
            problems.append((path, "must not be empty"))
            return ()
        return (plan.shorthand(text=value),)
    if not isinstance(value, (list, tuple)):
        either = "a string or " if plan.shorthand is not None else ""
        problems.append((path, f"expected {either}a list of {rule.items}, got {describe_type(value)}"))
        return ()
    items = tuple(value)
    for i, item in enumerate(items):
        if not isinstance(item, plan.accepts):
            problems.append((f"{path}[{i}]", f"expected {rule.item}, got {describe_type(item)}"))
    if not items and rule.nonempty:
        problems.append((path, rule.nonempty))
    return items


def _many(problems: Problems, path: str, value: Any, plan: FieldPlan, _limits: Limits) -> Any:
    return check_items(problems, path, value, plan)


_BY_KIND: dict[str, Callable[[Problems, str, Any, FieldPlan, Limits], Any]] = {
    "text": _text,
    "choice": _choice,
    "binary": _binary,
    "json": _json,
    "metadata": _metadata,
    "offset": _offset,
    "scalar": _scalar,
    "one": _one,
    "many": _many,
}


def check_instance(obj: object, limits: Limits = DEFAULT_LIMITS) -> None:
    """Apply the declared rules to a new instance, holding each value as its rule says.

    Raises:
        ValidationError: listing every problem, with paths from the instance (``$.citations[0].end``).
    """
    fields, cross_rules = plan_of(type(obj))
    problems: Problems = []
    given = {name: getattr(obj, name) for cross in cross_rules for name in cross.given}
    for plan in fields:
        value = getattr(obj, plan.name)
        held = _BY_KIND[plan.rule.kind](problems, f"$.{plan.name}", value, plan, limits)
        if held is not value:
            object.__setattr__(obj, plan.name, held)
    for cross in cross_rules:
        cross.check(problems, "$", *[getattr(obj, name) for name in cross.fields], *[given[n] for n in cross.given])
    if problems:
        raise ValidationError(problems)
