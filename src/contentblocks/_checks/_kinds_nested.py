"""The nested kinds of value: an instance of a class or union (``ONE``) and a sequence of them (``MANY``).

Like the value kinds of ``_kinds``, each is asked by every backend; a field of either kind names the classes
it holds by its annotation, and the wire plan (``_plan``) gives the union they are told apart in and, for a
message's content, the class a string stands for.
"""

# ruff: noqa: ARG002 - each kind overrides the methods whose arguments it needs; the rest keep the signature
from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

import attrs

from .._errors import describe_type, with_article
from .._schema._parts import DEFINITIONS
from ._kinds import FLAG_NONEMPTY, FLAG_OPTIONAL, FLAG_REQUIRED, Kernel, Kind, Problems, bind_text_rule

if TYPE_CHECKING:
    from .._conversion._plan import WireField
    from ._instances import FieldPlan
    from ._kinds import Entry, Predicate
    from ._rules import Limits

__all__ = ["MANY", "ONE", "check_items", "one_of_names"]


def _members(annotation: Any) -> tuple[type, ...]:
    """The classes an annotation admits: ``A | B`` gives both, ``A | None`` gives ``A``."""
    args = typing.get_args(annotation)
    if not args:
        return (annotation,)
    return tuple(a for a in args if a is not type(None))


def one_of_names(classes: tuple[type, ...]) -> str:
    """``a A`` (or ``an A``), ``A or B``, ``A, B or C``: the classes a value may be, for a message."""
    names = [c.__name__ for c in classes]
    return with_article(names[0]) if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _target(plan: WireField) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{plan.accepts[0].__name__ if plan.union is None else plan.union.name}"}


@attrs.frozen
class _One(Kind):
    """An instance of the class or union the field is annotated with."""

    def accepts(self, hint: Any) -> tuple[type, ...]:
        return _members(hint)

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        if value is None and plan.optional:
            return value
        if not isinstance(value, plan.accepts):
            problems.append((path, f"expected {one_of_names(plan.accepts)}, got {describe_type(value)}"))
        return value

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key, union = plan.key, plan.union
        if plan.optional:  # absent is None; null is refused; anything else is read as when required
            required = self.structure(attrs.evolve(plan, optional=False, omitted=""), var, prefix, ns, limits)
            return [f"{var} = raw.get({key!r}, MISSING)", f"if {var} is MISSING:", f"    {var} = None",
                    f"elif {var} is None:", f"    problems.append(('.{key}', NULL_OPTIONAL))",
                    "else:", *[f"    {line}" for line in required]]  # fmt: skip
        if union is None:
            return [f"{var} = nested(raw, {key!r}, problems, structure_{plan.accepts[0].__name__})"]
        # The member's body called straight away when the tag names one; anything else through the union's.
        ns[f"{prefix}get"] = ns[f"members_{union.name}"].get
        return [f"{var} = raw.get({key!r}, MISSING)",
                f"tag = {var}.get({union.key!r}) if type({var}) is dict else None",
                f"body = {prefix}get(tag) if type(tag) is str else None",
                "if body is not None:", "    before = len(problems)", f"    {var} = body({var}, problems)",
                "    if len(problems) != before:", f"        prefix_since(problems, before, '.{key}')",
                "else:", f"    {var} = nested(raw, {key!r}, problems, union_{union.name})"]  # fmt: skip

    def written(self, plan: WireField, value: str) -> str:
        if plan.union is None:
            return f"unstructure_{plan.accepts[0].__name__}({value})"
        return f"by_class[type({value})]({value})"

    def shape(self, plan: WireField) -> str:
        return "optional_object" if plan.omitted else "object"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("one", FLAG_OPTIONAL if plan.optional else 0)

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        return _target(plan)


def check_items(problems: Problems, path: str, value: Any, plan: FieldPlan) -> tuple[Any, ...]:
    """A ``many`` field's value as a tuple of instances of ``plan.accepts``; a problem for anything else."""
    rule = plan.rule
    if type(value) is str and plan.shorthand is not None:
        if not value:
            problems.append((path, "must not be empty"))
            return ()
        return (plan.shorthand.cls(text=value),)
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


def _shorthand_lines(plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
    """A string stands for one instance: it fills the shorthand class's text field, the rest keep their defaults."""
    key, short = plan.key, plan.shorthand
    assert short is not None  # noqa: S101 - the caller's test
    ns[f"{prefix}new_short"] = ns["unchecked"](short.cls)
    ns.update({f"{prefix}default_{i}": default for i, default in enumerate(short.defaults)})
    given = ", ".join(var if i == short.index else f"{prefix}default_{i}" for i in range(len(short.defaults)))
    fast = bind_text_rule(short.text.rule, var, prefix, ns, limits)
    return [f"if type({var}) is str:", f"    if {fast}:", f"        {var} = ({prefix}new_short({given}),)",
            "    else:", f"        read_text(raw, {key!r}, problems, {prefix}rule, {prefix}max, False)",
            f"        {var} = ()", f"elif {var} is MISSING:", f"    problems.append(('.{key}', MISSING_KEY))",
            f"    {var} = ()", f"elif type({var}) is not list and plain_container({var})[0] != 2:",
            (f"    problems.append(('.{key}', 'expected a string or an array of {plan.rule.items}, got '"
             f" + describe_type({var})))"), f"    {var} = ()"]  # fmt: skip


def _array_lines(plan: WireField, var: str, prefix: str, ns: dict[str, Any]) -> list[str]:
    """Read the array in ``var``: a list of objects in one inline loop, calling each item's body by its tag.

    At the first item that is not an object (of a known tag, in a union), and for anything but a list, the
    rest is read by ``rest_items`` with the union's body, which words each problem; nothing is read twice.
    Each item read adds one to ``out``, so its length is the index of the item being read.
    """
    key, union = plan.key, plan.union
    target = f"structure_{plan.accepts[0].__name__}" if union is None else f"union_{union.name}"
    find, call, indent = [], target, "        "
    if union is not None:  # the member's body called straight away when the tag names one
        ns[f"{prefix}get"] = ns[f"members_{union.name}"].get
        get = f"{prefix}get(tag) if type(tag) is str else None"
        find = [f"        tag = item.get({union.key!r})", f"        body = {get}", "        if body is not None:"]
        call, indent = "body", "            "
    return [f"if type({var}) is list:", "    out = []", "    n = len(problems)",
            f"    for item in {var}:", "        if type(item) is dict:",
            *[f"    {line}" for line in find],
            f"    {indent}out.append({call}(item, problems))", f"    {indent}if len(problems) != n:",
            f"    {indent}    if n < cap:",
            f"    {indent}        prefix_since(problems, n, f'.{key}[{{len(out) - 1}}]')",
            f"    {indent}    n = len(problems)", f"    {indent}continue",
            f"        {var} = rest_items({var}, '.{key}', problems, {target}, len(out), out, cap)", "        break",
            "    else:", f"        {var} = tuple(out)",
            "else:", f"    {var} = rest_items({var}, '.{key}', problems, {target}, 0, [], cap)"]  # fmt: skip


@attrs.frozen
class _Many(Kind):
    """A sequence of instances of the class or union the field's items are annotated with."""

    def accepts(self, hint: Any) -> tuple[type, ...]:
        return _members(typing.get_args(hint)[0])

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        return check_items(problems, path, value, plan)

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key = plan.key
        lines = [f"{var} = raw.get({key!r}, MISSING)"]
        if plan.shorthand is not None:
            lines += _shorthand_lines(plan, var, prefix, ns, limits)
        elif plan.required:
            lines += [f"if {var} is MISSING:", f"    problems.append(('.{key}', MISSING_KEY))", f"    {var} = ()"]
        else:
            lines += [f"if {var} is MISSING:", f"    {var} = ()", f"elif {var} is None:",
                      f"    problems.append(('.{key}', NULL_OPTIONAL))", f"    {var} = ()"]  # fmt: skip
        read = _array_lines(plan, var, prefix, ns)
        if plan.rule.nonempty:
            ns[f"{prefix}empty"] = plan.rule.nonempty
            read = ["before = len(problems)", *read, f"if not {var} and len(problems) == before:",
                    f"    problems.append(('.{key}', {prefix}empty))"]  # fmt: skip
        return [*lines, "else:", *[f"    {line}" for line in read]]

    def written(self, plan: WireField, value: str) -> str:
        item = f"unstructure_{plan.accepts[0].__name__}(x)" if plan.union is None else "by_class[type(x)](x)"
        return f"[{item} for x in {value}]"

    def shape(self, plan: WireField) -> str:
        return "nonempty_objects" if plan.omitted else "objects"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("many", (FLAG_REQUIRED if plan.required else 0) | (FLAG_NONEMPTY if plan.rule.nonempty else 0))

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        array: dict[str, Any] = {"type": "array", "items": _target(plan)}
        if plan.rule.nonempty:
            array["minItems"] = 1
        if plan.shorthand is not None:
            return {"anyOf": [DEFINITIONS[plan.shorthand.text.rule.schema](limits), array]}
        return array


ONE = _One("one")
MANY = _Many("many")
