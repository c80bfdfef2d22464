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

from .._checks._rules import MISSING_KEY, NULL_OPTIONAL, Limits
from .._errors import describe_type
from .._json._freeze import freeze_metadata
from .._json._values import EMPTY_OBJECT, plain_container
from .._model._wire import ARRAYS, TAGGED, UNIONS, keys_of, listing
from .._source import run_source
from . import _kernels
from ._plan import CLASSES, WireField, nested_classes, union_for, wire_plan
from ._raw import MISSING, prefix_since, unknown_keys
from ._readers import nested, read_binary, read_text, rest_items, tagged
from ._unchecked import construction, unchecked

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


def _structure_source(cls: type, ns: dict[str, Any], limits: Limits) -> str:
    name = cls.__name__
    fields, cross_rules = wire_plan(cls)
    allowed = frozenset(keys_of(cls))
    ns[f"{name}_allowed"], ns[f"{name}_fits"], ns[f"{name}_listing"] = allowed, allowed.issuperset, listing(cls)
    ns[f"new_{name}"] = unchecked(cls)
    body = [f"if not {name}_fits(raw):", f"    unknown_keys(problems, '', raw, {name}_allowed, {name}_listing, cap)"]
    for plan in fields:
        body += plan.rule.kind.structure(plan, f"v_{plan.key}", f"{name}_{plan.key}_", ns, limits)
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
    ns: dict[str, Any] = {
        "MISSING": MISSING, "MISSING_KEY": MISSING_KEY, "NULL_OPTIONAL": NULL_OPTIONAL, "EMPTY_OBJECT": EMPTY_OBJECT,
        "surrogate": _kernels.find_surrogate, "unknown_keys": unknown_keys, "native_binary": native_binary,
        "cap": limits.max_errors, "limits": limits, "freeze": _kernels.freeze, "read_text": read_text,
        "describe_type": describe_type, "plain_container": plain_container, "read_binary": read_binary,
        "freeze_metadata": freeze_metadata, "rest_items": rest_items, "nested": nested, "prefix_since": prefix_since,
        "unchecked": unchecked,
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
    return plan.rule.kind.written(plan, value)


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
        shape = plan.rule.kind.shape(plan)
        out.append((shape, plan.key, plan.key))
    return tuple(out)


def shapes() -> dict[type, tuple[tuple[str, str | None, Any], ...]]:
    """The table the C unstructurer walks: per class, its keys in order as (kind, key, attribute) or a tag."""
    return {cls: _shape(cls) for cls in (*CLASSES, *ARRAYS)}
