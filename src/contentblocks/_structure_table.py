"""The C structurer's table, derived from the same declarations as the generated structure functions.

Each class of ``_plan.CLASSES`` becomes ``(cls, tag key or None, fields, cross rules)``; each field a tuple of
generic terms: its kind, key, flags, one argument and a target or limit, and a shorthand. A text rule whose
fast condition the C walk knows by name (``_kinds.KNOWN_FAST``) is checked there; any other runs as a
predicate compiled from the rule's own fast condition. A cross rule carries its Python check and its
cannot-fail form. The walk misses on anything else, and the generated function then reads the value and
words its problems, so the table holds no rule of its own: only what each declaration already says. A class
with a field of a kind the walk does not read (a kind added to the rules later) is in the table as a target
only, each of its objects a miss: a new kind of rule needs the generator, never the C code.
"""

from __future__ import annotations

import functools
from typing import Any

from . import _kernels
from ._grammar import base64_chars
from ._patterns import ascii_identifier
from ._plan import CLASSES, Shorthand, WireField, wire_plan
from ._rules import CrossRule, Limits
from ._wire import TAGGED, UNIONS

__all__ = ["structurer"]

#: The names a rule's fast condition may use besides the value, its limit and its problem.
_FAST_NAMES = {"surrogate": _kernels.find_surrogate, "ascii_identifier": ascii_identifier}


def _target(plan: WireField) -> int:
    """A field's target in the table: the index of its class, or ``-1 - index`` of its union."""
    return CLASSES.index(plan.accepts[0]) if plan.union is None else -1 - UNIONS.index(plan.union)


def _predicate(plan: WireField, limits: Limits) -> Any:
    """Whether a string is valid for a text rule the C walk does not know: its fast condition, else its problem.

    Both are the rule's own; the walk has checked that the value is an exact str.
    """
    ns: dict[str, Any] = {**_FAST_NAMES, "limit": plan.rule.max_chars(limits), "problem": plan.rule.problem}
    fast = plan.rule.fast_condition("v", "limit", "problem")
    exec(f"def accepts(v):\n    return ({fast}) or problem(v, limit) is None\n", ns)  # noqa: S102
    return ns["accepts"]


def _field(plan: WireField, limits: Limits) -> tuple[Any, ...] | None:
    """The field's entry: its kind's kernel, flags and argument, then its limit or target, and its shorthand."""
    kernel = plan.rule.kind.table(plan, limits, _predicate)
    if kernel is None:
        return None
    name, flags, arg, limit = kernel
    return (name, plan.key, flags, arg, _target(plan) if plan.accepts else limit, _shorthand(plan.shorthand))


def _shorthand(short: Shorthand | None) -> tuple[int, int, tuple[Any, ...]] | None:
    """(class, field, defaults) for a string that stands for one instance of a class, or None."""
    return None if short is None else (CLASSES.index(short.cls), short.index, short.defaults)


def _cross(names: list[str], cross: CrossRule) -> tuple[Any, ...]:
    fields = tuple(names.index(f) for f in cross.fields)
    given = tuple(names.index(f) for f in cross.given)
    form = cross.cannot_fail
    if form is None:
        return (cross.check, fields, given, "never", None)
    if form.form == "empty":
        return (cross.check, fields, given, "empty", names.index(form.field))
    if form.form == "allowed_types":
        arg = (names.index(form.field), names.index(form.items), form.allowed)
        return (cross.check, fields, given, "allowed_types", arg)
    return (cross.check, fields, given, form.form, None)


def _class(cls: type, limits: Limits) -> tuple[Any, ...]:
    plans, cross_rules = wire_plan(cls)
    tag = None if cls not in TAGGED else TAGGED[cls][0]
    fields = tuple(_field(p, limits) for p in plans)
    if None in fields:  # a field of a kind without a C kernel: the class is left to its generated function
        return (cls, tag, None, ())
    names = [p.key for p in plans]
    return (cls, tag, fields, tuple(_cross(names, c) for c in cross_rules))


@functools.cache
def structurer(limits: Limits, *, native_binary: bool) -> Any:
    """The C structurer for one set of limits and binary mode, or None where the accelerator is not in use."""
    if _kernels.speedups is None:
        return None
    classes = tuple(_class(cls, limits) for cls in CLASSES)
    unions = tuple((u.key, {tag: CLASSES.index(c) for tag, c in u.members.items()}) for u in UNIONS)
    bounds = (limits.max_text_chars, limits.max_depth, limits.max_nodes, limits.max_binary_bytes,
              base64_chars(limits.max_binary_bytes))
    return _kernels.speedups.structurer(classes, unions, bounds, native_binary, _kernels.MISS)
