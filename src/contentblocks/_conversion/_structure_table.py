"""The C structurer's table, derived from the same declarations as the generated structure functions.

Each class of ``_plan.CLASSES`` becomes a ``ClassRecord``; each field a ``FieldRecord`` of generic terms: its
kernel, key, flags, one argument, a text limit or a target, and a shorthand. A text rule whose fast check names
a C kernel (``_kinds.FastText.kernel``) is checked there; any other runs as a predicate compiled from the rule's
own fast condition. A cross rule carries its Python check and its cannot-fail form. The C reads each record by
its field names, which it lists in ``_speedups.STRUCTURER["records"]`` (a test holds the two to each other), and
refuses a record that lacks one, so a field renamed or reordered on one side fails loudly, never silently.
The walk misses on anything else, and the generated function then reads the value and words its problems, so
the table holds no rule of its own: only what each declaration already says.

The C module says what its walk can run (``_speedups.STRUCTURER``: field kinds, text checks, fields and cross
rules per class). A class it cannot run whole (a field of a kind added to the rules later, say) is in the
table as a target only, each of its objects a miss, and a text check without a kernel runs as a predicate:
``fallbacks`` lists both, so that a plan falling off the fast path is seen (a test holds the list), never
silent. A new kind of rule needs the generator, never the C code.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from .._checks._grammar import base64_chars
from .._checks._instances import Shorthand
from .._checks._kinds import bind_text_rule
from .._checks._rules import DEFAULT_LIMITS, CrossRule, Limits
from .._model._wire import TAGGED, UNIONS
from . import _kernels
from ._plan import CLASSES, WireField, wire_plan

__all__ = ["RECORDS", "AllowedTypes", "Bounds", "ClassRecord", "CrossRecord", "Fallback", "FieldRecord",
           "ShorthandRecord", "UnionRecord", "fallbacks", "structurer"]



def _target(plan: WireField) -> int:
    """A field's target in the table: the index of its class, or ``-1 - index`` of its union."""
    return CLASSES.index(plan.accepts[0]) if plan.union is None else -1 - UNIONS.index(plan.union)


def _predicate(plan: WireField, limits: Limits) -> Any:
    """Whether a string is valid for a text rule the C walk does not know: its fast condition, else its problem.

    Both are the rule's own; the walk has checked that the value is an exact str.
    """
    ns: dict[str, Any] = {"surrogate": _kernels.find_surrogate}
    fast = bind_text_rule(plan.rule, "v", "p_", ns, limits)
    exec(f"def accepts(v):\n    return ({fast}) or p_problem(v, p_max) is None\n", ns)  # noqa: S102
    return ns["accepts"]


class ShorthandRecord(NamedTuple):
    """A string that stands for one instance of a class: its text goes in one field, the rest are defaults."""

    cls: int
    field: int
    defaults: tuple[Any, ...]


class FieldRecord(NamedTuple):
    """One field for the C walk: its kernel, key, flags and argument, its text limit or target, its shorthand."""

    kernel: str
    key: str
    flags: int
    arg: Any
    limit: int
    target: int  # a class's index, or -1 - the index of a union
    shorthand: ShorthandRecord | None


class AllowedTypes(NamedTuple):
    """The ``allowed_types`` cannot-fail form: which classes the items field may hold for each key."""

    key_field: int
    items_field: int
    allowed: dict[str, frozenset[type]]


class CrossRecord(NamedTuple):
    """A cross rule: its Python check, the fields it reads and needs given, and the form in which it cannot fail."""

    check: Any
    fields: tuple[int, ...]
    given: tuple[int, ...]
    form: str
    arg: int | AllowedTypes | None


class ClassRecord(NamedTuple):
    """A class of the table; ``fields`` None makes it a target only, each of its objects a miss."""

    cls: type
    tag: str | None
    fields: tuple[FieldRecord, ...] | None
    cross_rules: tuple[CrossRecord, ...]


class UnionRecord(NamedTuple):
    """A union: the key of its tag and the index of the class each tag names."""

    key: str
    members: dict[str, int]


class Bounds(NamedTuple):
    """The limits the walk applies itself."""

    max_chars: int
    max_depth: int
    max_nodes: int
    max_bytes: int
    max_base64: int


#: The records by the names the C module gives them.
RECORDS: dict[str, type[tuple[Any, ...]]] = {
    "allowed_types": AllowedTypes, "bounds": Bounds, "class": ClassRecord, "cross_rule": CrossRecord,
    "field": FieldRecord, "shorthand": ShorthandRecord, "union": UnionRecord,
}


class Fallback(NamedTuple):
    """What the C walk leaves to Python: a whole class (``key`` None), or one field's text check."""

    cls: type
    key: str | None
    reason: str


def _field(cls: type, plan: WireField, limits: Limits, can: dict[str, Any], out: list[Fallback]) -> FieldRecord | None:
    """The field's record: its kind's kernel, flags and argument, its limit or target, and its shorthand."""
    kernel = plan.rule.kind.table(plan, limits, _predicate)
    if kernel is None or kernel.name not in can["field_kinds"]:
        return None
    arg = kernel.arg
    named = arg[0] if isinstance(arg, tuple) else arg  # a kernel's name, alone or with its characters
    if kernel.name == "string" and not (isinstance(named, str) and named in can["text_checks"]):
        arg = arg if callable(arg) else _predicate(plan, limits)
        out.append(Fallback(cls, plan.key, "its text check runs as a Python predicate: C has no kernel for it"))
    target = _target(plan) if plan.accepts else 0
    return FieldRecord(kernel.name, plan.key, kernel.flags, arg, kernel.limit, target, _shorthand(plan.shorthand))


def _shorthand(short: Shorthand | None) -> ShorthandRecord | None:
    return None if short is None else ShorthandRecord(CLASSES.index(short.cls), short.index, short.defaults)


def _cross(names: list[str], cross: CrossRule) -> CrossRecord:
    fields = tuple(names.index(f) for f in cross.fields)
    given = tuple(names.index(f) for f in cross.given)
    form = cross.cannot_fail
    arg: int | AllowedTypes | None = None
    if form is not None and form.form == "empty":
        arg = names.index(form.field)
    elif form is not None and form.form == "allowed_types":
        arg = AllowedTypes(names.index(form.field), names.index(form.items), form.allowed)
    return CrossRecord(cross.check, fields, given, "never" if form is None else form.form, arg)


def _class(cls: type, limits: Limits, can: dict[str, Any], out: list[Fallback]) -> ClassRecord:
    plans, cross_rules = wire_plan(cls)
    tag = None if cls not in TAGGED else TAGGED[cls][0]
    checks: list[Fallback] = []  # the text checks called back for, where the class runs in C at all
    fields = tuple(_field(cls, p, limits, can, checks) for p in plans)
    missing = [p for p, f in zip(plans, fields, strict=True) if f is None]
    if missing:
        kinds = ", ".join(f"{p.key} ({p.rule.kind.name})" for p in missing)
        out.append(Fallback(cls, None, f"C has no kernel for the kind of field {kinds}"))
    elif len(fields) > can["max_fields"] or len(cross_rules) > can["max_cross_rules"]:
        out.append(Fallback(cls, None, "more fields or cross rules than the C walk holds"))
    else:
        out += checks
        names = [p.key for p in plans]
        return ClassRecord(cls, tag, fields, tuple(_cross(names, c) for c in cross_rules))  # type: ignore[arg-type]
    return ClassRecord(cls, tag, None, ())  # a target only: the class is left to its generated function


def _table(limits: Limits) -> tuple[tuple[ClassRecord, ...], tuple[Fallback, ...]]:
    """The classes' entries for the C walk, and what it leaves to Python."""
    assert _kernels.speedups is not None  # noqa: S101 - callers check
    out: list[Fallback] = []
    classes = tuple(_class(cls, limits, _kernels.speedups.STRUCTURER, out) for cls in CLASSES)
    return classes, tuple(out)


def fallbacks(limits: Limits = DEFAULT_LIMITS) -> tuple[Fallback, ...]:
    """What the C structurer leaves to Python under ``limits``: whole classes, and text checks it calls back for.

    Without the accelerator, every class: the generated functions then do all of it.
    """
    if _kernels.speedups is None:
        return tuple(Fallback(cls, None, "the C accelerator is not in use") for cls in CLASSES)
    return _table(limits)[1]


@functools.cache
def structurer(limits: Limits, *, native_binary: bool) -> Any:
    """The C structurer for one set of limits and binary mode, or None where the accelerator is not in use."""
    if _kernels.speedups is None:
        return None
    classes = _table(limits)[0]
    unions = tuple(UnionRecord(u.key, {tag: CLASSES.index(c) for tag, c in u.members.items()}) for u in UNIONS)
    bounds = Bounds(limits.max_text_chars, limits.max_depth, limits.max_nodes, limits.max_binary_bytes,
                    base64_chars(limits.max_binary_bytes))
    return _kernels.speedups.structurer(classes, unions, bounds, native_binary, _kernels.MISS)
