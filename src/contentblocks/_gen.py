"""Structure and unstructure functions generated from the declarations, the way cattrs' ``gen`` makes hooks.

For each class, the generator reads its fields' wire plan (``_plan.wire_plan``), its cross rules and its wire
description (``_wire``) and writes the source of one function, which it compiles once per converter (limits and
binary mode), registers with ``linecache`` so that tracebacks show it, and runs against a namespace binding
every name it uses. A structure function tests each field's common valid value inline and calls a reader
(``_readers``) only for the rest; it builds the instance with ``_unchecked`` (the C instance maker, or in pure
Python the Python maker's lines inline), since it has applied the class's rules itself. An unstructure function
writes the keys in order, leaving out the ones that hold their default. The C unstructurer's table
(:func:`shapes`) comes from the same plans, as does the C structurer's (``_structure_table``), which takes the
valid values before these functions see them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import _kernels
from ._errors import describe_type
from ._json import EMPTY_OBJECT, plain_container
from ._patterns import ascii_identifier
from ._plan import CLASSES, WireField, nested_classes, union_for, wire_plan
from ._raw import MISSING, prefix_since, unknown_keys
from ._readers import Readers, read_text, tagged
from ._rules import MISSING_KEY, NULL_OPTIONAL, Limits, Rule, expected_one_of
from ._source import run_source
from ._unchecked import construction, unchecked
from ._wire import ARRAYS, TAGGED, UNIONS, keys_of, listing

__all__ = [
    "CLASSES",
    "ByClass",
    "StructureBodies",
    "generate_structure_bodies",
    "generate_unstructure_functions",
    "nested_classes",
    "shapes",
    "structure_bodies",
    "union_for",
    "unstructure_functions",
]


# ------------------------------------------------------------------------------------------- structure


class StructureBodies:
    """The generated structure bodies of one converter: by class, and one dispatching body per union."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.by_class: dict[type, Callable[..., Any]] = {c: namespace[f"structure_{c.__name__}"] for c in CLASSES}
        self.unions: dict[str, Callable[..., Any]] = {u.name: namespace[f"union_{u.name}"] for u in UNIONS}


def _bind_text_rule(rule: Rule, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> str:
    """Bind a text rule, its bound and its check under ``prefix``; the inline condition on ``var`` that uses them."""
    ns[f"{prefix}rule"] = rule
    ns[f"{prefix}max"] = rule.max_chars(limits)
    ns[f"{prefix}problem"] = rule.problem
    return rule.fast_condition(var, f"{prefix}max", f"{prefix}problem")


def _text_field(plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
    key, optional = plan.key, plan.omitted == "none"
    fast = _bind_text_rule(plan.rule, var, prefix, ns, limits)
    slow = f"{var} = read_text(raw, {key!r}, problems, {prefix}rule, {prefix}max, {optional})"
    if optional:
        return [f"{var} = raw.get({key!r}, MISSING)", f"if {var} is MISSING:", f"    {var} = None",
                f"elif not ({fast}):", f"    {slow}"]
    return [f"{var} = raw.get({key!r}, MISSING)", f"if not ({fast}):", f"    {slow}"]


def _many_field(plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
    key, union = plan.key, plan.union
    if union is None:
        read = f"items({var}, '.{key}', problems, structure_{plan.accepts[0].__name__})"
    else:
        ns[f"{prefix}get"] = ns[f"members_{union.name}"].get
        read = f"tagged_items({var}, '.{key}', problems, {prefix}get, union_{union.name})"
    lines = [f"{var} = raw.get({key!r}, MISSING)"]
    if plan.shorthand is not None:
        short = plan.shorthand
        # The string fills the one field of the shorthand class that has no default; the rest keep theirs.
        ns[f"{prefix}new_short"] = unchecked(short.cls)
        ns.update({f"{prefix}default_{i}": default for i, default in enumerate(short.defaults)})
        given = ", ".join(var if i == short.index else f"{prefix}default_{i}" for i in range(len(short.defaults)))
        fast = _bind_text_rule(short.text.rule, var, prefix, ns, limits)
        lines += [f"if type({var}) is str:", f"    if {fast}:", f"        {var} = ({prefix}new_short({given}),)",
                  "    else:",
                  f"        read_text(raw, {key!r}, problems, {prefix}rule, {prefix}max, False)",
                  f"        {var} = ()"]
        lines += [f"elif {var} is MISSING:", f"    problems.append(('.{key}', MISSING_KEY))", f"    {var} = ()"]
        lines += [f"elif type({var}) is not list and plain_container({var})[0] != 2:",
                  (f"    problems.append(('.{key}', 'expected a string or an array of {plan.rule.items}, got '"
                   f" + describe_type({var})))"), f"    {var} = ()"]
    elif plan.required:
        lines += [f"if {var} is MISSING:", f"    problems.append(('.{key}', MISSING_KEY))", f"    {var} = ()"]
    else:
        lines += [f"if {var} is MISSING:", f"    {var} = ()", f"elif {var} is None:",
                  f"    problems.append(('.{key}', NULL_OPTIONAL))", f"    {var} = ()"]
    if plan.rule.nonempty:
        ns[f"{prefix}empty"] = plan.rule.nonempty
        return [*lines, "else:", "    before = len(problems)", f"    {var} = {read}",
                f"    if not {var} and len(problems) == before:", f"        problems.append(('.{key}', {prefix}empty))"]
    return [*lines, "else:", f"    {var} = {read}"]


def _field_lines(cls: type, plan: WireField, ns: dict[str, Any], limits: Limits) -> list[str]:
    kind, key = plan.rule.kind, plan.key
    var, prefix = f"v_{key}", f"{cls.__name__}_{key}_"
    if kind == "text":
        return _text_field(plan, var, prefix, ns, limits)
    if kind == "choice":
        ns[f"{prefix}choices"] = frozenset(plan.rule.choices)
        ns[f"{prefix}words"] = expected_one_of(plan.rule)
        return [f"{var} = raw.get({key!r}, MISSING)", f"if type({var}) is not str or {var} not in {prefix}choices:",
                f"    problems.append(('.{key}', MISSING_KEY if {var} is MISSING else {prefix}words))"]
    if kind == "binary":
        return [f"{var} = read_binary(raw, {key!r}, problems, {plan.omitted == 'none'}, {plan.rule.nonempty!r})"]
    if kind == "json":
        return [f"{var} = raw.get({key!r}, MISSING)", f"if {var} is MISSING:",
                f"    problems.append(('.{key}', MISSING_KEY))", "else:",
                f"    {var} = freeze({var}, '.{key}', limits, problems)"]
    if kind == "metadata":
        return [f"{var} = EMPTY_OBJECT if {key!r} not in raw else read_metadata(raw, problems)"]
    if kind == "offset":
        return [f"{var} = raw.get({key!r})", f"if {var} is None and {key!r} in raw:",
                f"    problems.append(('.{key}', NULL_OPTIONAL))"]
    if kind == "one":
        union = plan.union
        if union is None:
            return [f"{var} = nested(raw, {key!r}, problems, structure_{plan.accepts[0].__name__})"]
        # The member's body called straight away when the tag names one; anything else through the union's.
        ns[f"{prefix}get"] = ns[f"members_{union.name}"].get
        return [f"{var} = raw.get({key!r}, MISSING)",
                f"tag = {var}.get({union.key!r}) if type({var}) is dict else None",
                f"body = {prefix}get(tag) if type(tag) is str else None",
                "if body is not None:", "    before = len(problems)", f"    {var} = body({var}, problems)",
                "    if len(problems) != before:", f"        prefix_since(problems, before, '.{key}')",
                "else:", f"    {var} = nested(raw, {key!r}, problems, union_{union.name})"]
    if kind == "many":
        return _many_field(plan, var, prefix, ns, limits)
    msg = f"no structure code for a {kind!r} rule"  # pragma: no cover - every kind of _rules is above
    raise TypeError(msg)


def _structure_source(cls: type, ns: dict[str, Any], limits: Limits) -> str:
    name = cls.__name__
    fields, cross_rules = wire_plan(cls)
    allowed = frozenset(keys_of(cls))
    ns[f"{name}_allowed"], ns[f"{name}_fits"], ns[f"{name}_listing"] = allowed, allowed.issuperset, listing(cls)
    ns[f"new_{name}"] = unchecked(cls)
    body = [f"if not {name}_fits(raw):", f"    unknown_keys(problems, '', raw, {name}_allowed, {name}_listing, cap)"]
    for plan in fields:
        body += _field_lines(cls, plan, ns, limits)
    for i, cross in enumerate(cross_rules):
        ns[f"{name}_cross_{i}"] = cross.check
        values = [f"v_{f}" for f in cross.fields] + [f"raw.get({f!r})" for f in cross.given]
        call = f"{name}_cross_{i}(problems, '', {', '.join(values)})"
        if cross.cannot_fail is not None:
            ns[f"{name}_cross_{i}_allowed"] = cross.cannot_fail.allowed
            condition = cross.cannot_fail.source(cross.fields, "v_{}".format, f"{name}_cross_{i}_allowed")
            body += [f"if not ({condition}):", f"    {call}"]
        else:
            body.append(call)
    values = [f"v_{p.key}" for p in fields]
    if _kernels.speedups is None:  # no C instance maker: the Python maker's lines inline save a call per object
        lines, bindings = construction(cls, [p.key for p in fields], values, f"{name}_")
        ns.update(bindings)
        body += [*lines, "return self"]
    else:
        body.append(f"return new_{name}({', '.join(values)})")
    return f"def structure_{name}(raw, problems):\n" + "".join(f"    {line}\n" for line in body)


@functools.cache
def structure_bodies(limits: Limits, *, native_binary: bool) -> StructureBodies:
    """The structure bodies for one set of limits and binary mode, generated once and shared."""
    return generate_structure_bodies(limits, native_binary=native_binary, replaced={})


def generate_structure_bodies(
    limits: Limits, *, native_binary: bool, replaced: dict[type, Callable[..., Any]]
) -> StructureBodies:
    """The structure bodies, with the bodies in ``replaced`` used for their classes wherever these are nested.

    The generated functions look their nested bodies up in their namespace when they run, so a class's entry
    there (and in its unions' member tables) is all that changes: the source is the same for every converter.
    """
    readers = Readers(limits, native_binary=native_binary)
    ns: dict[str, Any] = {
        "MISSING": MISSING, "MISSING_KEY": MISSING_KEY, "NULL_OPTIONAL": NULL_OPTIONAL, "EMPTY_OBJECT": EMPTY_OBJECT,
        "surrogate": _kernels.find_surrogate, "ascii_identifier": ascii_identifier, "unknown_keys": unknown_keys,
        "cap": limits.max_errors, "limits": limits, "freeze": _kernels.freeze, "read_text": read_text,
        "describe_type": describe_type, "plain_container": plain_container, "read_binary": readers.binary,
        "read_metadata": readers.metadata, "items": readers.items, "tagged_items": readers.tagged_items,
        "nested": readers.nested, "prefix_since": prefix_since,
    }  # fmt: skip
    # The unions' member tables exist before the functions that bind them, and are filled once those exist;
    # the functions look the union bodies up when they run.
    for union in UNIONS:
        ns[f"members_{union.name}"] = {}
    source = "\n\n".join(_structure_source(cls, ns, limits) for cls in CLASSES)
    run_source(source, ns, "structure")
    ns.update({f"structure_{cls.__name__}": body for cls, body in replaced.items()})
    for union in UNIONS:
        members = ns[f"members_{union.name}"]
        members.update({tag: ns[f"structure_{cls.__name__}"] for tag, cls in union.members.items()})
        # A narrower union names the tags of its wider one that it excludes ("cannot hold refusal blocks").
        known = frozenset(t for u in UNIONS if u.noun == union.noun for t in u.members) if union.holder else frozenset()
        ns[f"union_{union.name}"] = tagged(members, union.where, union.key, union.holder, known)
    return StructureBodies(ns)


# ------------------------------------------------------------------------------------------- unstructure


#: The condition on ``v`` under which a field's key is left out, by ``WireField.omitted``.
_OMITTED = {"": "", "none": "v is None", "empty": "not v"}


def _written(plan: WireField, value: str) -> str:
    """The expression that writes a field's value."""
    kind = plan.rule.kind
    if kind in ("json", "metadata"):
        return f"thaw({value})"
    if kind == "binary":
        return f"binary({value})"
    if kind == "one":
        if plan.union is None:
            return f"unstructure_{plan.accepts[0].__name__}({value})"
        return f"by_class[type({value})]({value})"
    if kind == "many":
        item = f"unstructure_{plan.accepts[0].__name__}(x)" if plan.union is None else "by_class[type(x)](x)"
        return f"[{item} for x in {value}]"
    return value


def _unstructure_source(cls: type) -> str:
    name = cls.__name__
    fields = wire_plan(cls)[0]
    if cls in ARRAYS:
        plan = next(p for p in fields if p.key == ARRAYS[cls])
        return f"def unstructure_{name}(obj):\n    return {_written(plan, f'obj.{plan.key}')}\n"
    tag = TAGGED.get(cls)
    literal = [f"{tag[0]!r}: {tag[1]!r}"] if tag is not None else []
    rest: list[str] = []
    for plan in fields:
        omitted = _OMITTED[plan.omitted]
        if not omitted and not rest:  # a key before any optional one goes in the literal, in order
            literal.append(f"{plan.key!r}: {_written(plan, f'obj.{plan.key}')}")
        elif not omitted:
            rest.append(f"out[{plan.key!r}] = {_written(plan, f'obj.{plan.key}')}")
        else:
            rest += [f"v = obj.{plan.key}", f"if not ({omitted}):", f"    out[{plan.key!r}] = {_written(plan, 'v')}"]
    body = [f"out = {{{', '.join(literal)}}}", *rest, "return out"]
    return f"def unstructure_{name}(obj):\n" + "".join(f"    {line}\n" for line in body)


class ByClass(dict[type, Callable[[Any], Any]]):
    """Functions by exact class; a subclass (found by no exact lookup) takes its nearest base's function."""

    def __missing__(self, cls: type) -> Callable[[Any], Any]:
        for base in cls.__mro__[1:]:
            if base in self:
                return dict.__getitem__(self, base)
        raise KeyError(cls)


@functools.cache
def unstructure_functions(*, native_binary: bool, plain_json: bool) -> ByClass:
    """One generated unstructure function per class, by class (subclasses find their base's).

    With ``plain_json=False`` JSON values come out as the blocks' own read-only containers (dict and list
    subclasses), for serialisers that write them at once: no copy is made.
    """
    return generate_unstructure_functions(native_binary=native_binary, plain_json=plain_json, replaced={})


def generate_unstructure_functions(
    *, native_binary: bool, plain_json: bool, replaced: dict[type, Callable[[Any], Any]]
) -> ByClass:
    """The unstructure functions, with the functions in ``replaced`` used for their classes, nested or not."""
    by_class = ByClass()
    ns: dict[str, Any] = {
        "thaw": _kernels.thaw if plain_json else _keep,
        "binary": _keep if native_binary else _kernels.b64encode,
        "by_class": by_class,
    }
    classes = (*CLASSES, *ARRAYS)
    run_source("\n\n".join(_unstructure_source(cls) for cls in classes), ns, "unstructure")
    ns.update({f"unstructure_{cls.__name__}": function for cls, function in replaced.items()})
    by_class.update({cls: ns[f"unstructure_{cls.__name__}"] for cls in classes})
    return by_class


def _keep(value: Any) -> Any:
    return value


def _shape(cls: type) -> tuple[tuple[str, str | None, Any], ...]:
    fields = wire_plan(cls)[0]
    if cls in ARRAYS:
        return (("list", None, ARRAYS[cls]),)
    tag = TAGGED.get(cls)
    out: list[tuple[str, str | None, Any]] = [("const", tag[0], tag[1])] if tag is not None else []
    for plan in fields:
        kind, omitted = plan.rule.kind, plan.omitted
        if kind in ("text", "choice", "offset"):
            shape = "optional_attr" if omitted else "attr"
        elif kind == "binary":
            shape = "optional_binary" if omitted else "binary"
        elif kind == "json":
            shape = "thawed"
        elif kind == "metadata":
            shape = "nonempty_thawed"
        elif kind == "one":
            shape = "object"
        else:
            shape = "nonempty_objects" if omitted else "objects"
        out.append((shape, plan.key, plan.key))
    return tuple(out)


def shapes() -> dict[type, tuple[tuple[str, str | None, Any], ...]]:
    """The table the C unstructurer walks: per class, its keys in order as (kind, key, attribute) or a tag."""
    return {cls: _shape(cls) for cls in (*CLASSES, *ARRAYS)}
