r"""A JSON Schema (Draft 2020-12) of the wire format, for validators in other languages and for tool descriptions.

The schema is derived from the declarations: each class's fields and their rules (``_rules`` names the
definition of every string and JSON rule, ``_schema_parts`` builds them), its cross rules and the wire
description (``_wire``: tags, unions, keys). It says as much of the contract as JSON Schema can: closed
objects, ``const`` tags, required keys, the role table, the reasoning rules, citation spans given together,
and patterns for identifiers, media types, URLs, URIs, file names and canonical base64. It cannot say
everything (tool-call pairing, span bounds against the text, lone surrogates, nesting depth and node counts,
64-bit integers, and a few Unicode and byte-length details; ``docs/schema.md`` lists them):
:func:`contentblocks.structure` remains the authority, and the schema never rejects a value that it accepts.
Unions are ``anyOf`` lists of definitions whose tags are distinct constants, so at most one matches.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

import attrs

from .._checks._rules import PAGE_RANGE, RANGE, REASONING_SHAPE, SPAN, SPAN_WITHIN_TEXT, TTL, CrossRule, Limits
from .._conversion._plan import CLASSES, wire_plan
from .._model._classes import ROLE_BLOCKS, Block, Message
from .._model._conversation import Conversation
from .._model._wire import TAGGED, UNIONS, union_of
from ._parts import DEFINITIONS

__all__ = ["DRAFT_2020_12", "SCHEMA_TARGETS", "json_schema", "schema_command"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

_CLASSES: tuple[type, ...] = (*CLASSES, Conversation)

#: The names ``contentblocks schema NAME`` understands: the three wire documents, then every class and union.
SCHEMA_TARGETS: dict[str, object] = {
    "block": Block,
    "message": Message,
    "conversation": Conversation,
    **{cls.__name__: cls for cls in _CLASSES},
    **{union.name: union.alias for union in UNIONS},
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _description(obj: object) -> str:
    """The first line of a docstring: what the class or alias is, said once."""
    return (obj.__doc__ or "").strip().split("\n")[0]


def _span_together(_limits: Limits) -> dict[str, Any]:
    return {"dependentRequired": {"start": ["end"], "end": ["start"]}}


def _span_within_text(limits: Limits) -> dict[str, Any]:
    # Inside a text block a span ends within the text, so within the text limit (a lone citation has no text).
    within = {"properties": {"start": {"maximum": limits.max_text_chars}, "end": {"maximum": limits.max_text_chars}}}
    return {"allOf": [{"properties": {"citations": {"items": within}}}]}


def _ordered_ends(_limits: Limits) -> dict[str, Any]:
    # JSON Schema cannot compare two values: the schema says only what "start < end" means for a reader.
    return {"$comment": "start < end: the range holds at least one item and end is excluded"}


def _reasoning(_limits: Limits) -> dict[str, Any]:
    either = {"anyOf": [{"required": ["text"]}, {"required": ["signature"]}]}
    return {"anyOf": [*either["anyOf"], {"required": ["redacted"]}], "dependentSchemas": {"redacted": {"not": either}}}


def _role_table(_limits: Limits) -> dict[str, Any]:
    rules = []
    for role, classes in ROLE_BLOCKS.items():
        tags = [TAGGED[cls][1] for cls in classes]
        listed: dict[str, Any] = {"type": "array", "items": {"properties": {"type": {"enum": tags}}}}
        content = {"anyOf": [{"type": "string"}, listed]} if "text" in tags else listed
        rules.append({"if": {"required": ["role"], "properties": {"role": {"const": role}}},
                      "then": {"properties": {"content": content}}})
    return {"allOf": rules}


#: What each cross rule adds to its object's schema; tool-call pairing and a range's order cannot be said in JSON
#: Schema.
_CROSS: dict[CrossRule, Callable[[Limits], dict[str, Any]]] = {
    SPAN: _span_together,
    SPAN_WITHIN_TEXT: _span_within_text,
    RANGE: _ordered_ends,
    PAGE_RANGE: _ordered_ends,
    REASONING_SHAPE: _reasoning,
    TTL: lambda _limits: {},  # the bounds are the Ttl definition's: the rule only words them for both paths
    Message.__cross_rules__[0]: _role_table,
}


def _object(cls: type, limits: Limits) -> dict[str, Any]:
    fields, cross_rules = wire_plan(cls)
    tag = TAGGED.get(cls)
    required = [tag[0]] if tag is not None else []
    properties: dict[str, Any] = {tag[0]: {"const": tag[1]}} if tag is not None else {}
    for plan in fields:
        properties[plan.key] = plan.rule.kind.schema(plan, limits)
        if plan.required:
            required.append(plan.key)
    schema: dict[str, Any] = {"description": _description(cls), "type": "object", "required": required,
                              "properties": properties, "additionalProperties": False}
    for cross in cross_rules:
        schema.update(_CROSS[cross](limits))
    return schema


def _definitions(limits: Limits) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for union in UNIONS:
        defs[union.name] = {"description": f"Any {union.noun} of: {', '.join(union.members)}, told apart by its "
                            f"{union.key}.", "anyOf": [_ref(cls.__name__) for cls in union.members.values()]}
    for cls in CLASSES:
        defs[cls.__name__] = _object(cls, limits)
    defs["Conversation"] = {"description": _description(Conversation), "type": "array", "items": _ref("Message")}
    for name, build in DEFINITIONS.items():
        defs[name] = build(limits)
    return defs


def _reachable(defs: dict[str, Any], root: str) -> dict[str, Any]:
    """The definitions ``root`` refers to, directly or not, in the order of ``defs``."""
    seen = {root}
    stack: list[Any] = [defs[root]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in seen:
                seen.add(ref[8:])
                stack.append(defs[ref[8:]])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return {name: schema for name, schema in defs.items() if name in seen}


def _target_name(target: object) -> str:
    union = union_of(target)
    if union is not None:
        return union.name
    if isinstance(target, type) and target in _CLASSES:
        return target.__name__
    msg = f"no schema for {target!r}; expected cb.Block, cb.Message, cb.Conversation, a union or a block class"
    raise TypeError(msg)


def json_schema(target: object = Block, *, limits: Limits | None = None, **options: int) -> dict[str, Any]:
    """A JSON Schema (Draft 2020-12) of the wire form of ``target``, as a new plain dict.

    Args:
        target: ``cb.Block``, ``cb.Message``, ``cb.Conversation``, a union (``cb.ToolResultContent``,
            ``cb.FileSource``, ``cb.CitationSource``) or one class (``cb.TextBlock``, ``cb.Citation``...).
        limits: the limits of the converter whose input the schema describes; the defaults otherwise.
        options: or, like :func:`contentblocks.make_converter`, any of ``max_text_chars``,
            ``max_binary_bytes`` and ``max_uri_chars`` (``max_depth`` and ``max_nodes`` are accepted but
            cannot be expressed).

    Returns:
        ``{"$schema": ..., "$ref": "#/$defs/<Name>", "$defs": {...}}`` with one definition per class reached.

    Raises:
        TypeError: for a target that is not part of the wire format.
        ValueError: for an unknown option, an invalid limit, or both ``limits`` and options.

    A schema never rejects what :func:`contentblocks.structure` accepts, but it accepts a few things that
    ``structure`` rejects (``docs/schema.md`` lists them): ``structure`` is the authority.

    >>> import contentblocks as cb
    >>> schema = cb.json_schema(cb.Message)
    >>> schema["$ref"], schema["$defs"]["TextBlock"]["properties"]["type"]
    ('#/$defs/Message', {'const': 'text'})
    >>> cb.json_schema(cb.TextBlock, max_text_chars=100)["$defs"]["Text"]["maxLength"]
    100

    .. versionadded:: 2026.11.0
    """
    name = _target_name(target)
    if limits is not None and options:
        msg = "give either limits or keyword options, not both"
        raise ValueError(msg)
    if limits is None:
        unknown = set(options) - {field.name for field in attrs.fields(Limits)}
        if unknown:
            msg = f"unknown option(s): {', '.join(sorted(unknown))}"
            raise ValueError(msg)
        limits = Limits(**options)
    return {
        "$schema": DRAFT_2020_12,
        "title": f"contentblocks {name}",
        "$comment": f"Character classes follow Unicode {unicodedata.unidata_version}. contentblocks.structure "
        "is the authority: it also checks what a schema cannot (tool-call pairing, citation spans against "
        "the text, lone surrogates, JSON nesting and node limits, 64-bit integers).",
        "$ref": f"#/$defs/{name}",
        # A JSON round trip: plain JSON all through, and no part shared with another (deepcopy would keep aliases).
        "$defs": json.loads(json.dumps(_reachable(_definitions(limits), name))),
    }


def schema_command(target_name: str) -> dict[str, Any]:
    """The schema ``contentblocks schema TARGET_NAME`` prints: ``block``, ``message``, ``conversation`` or a class.

    Raises:
        ValueError: for a name that is not in ``SCHEMA_TARGETS`` (the message lists the choices).

    >>> from contentblocks._schema._document import schema_command
    >>> schema_command("conversation")["$defs"]["Conversation"]["type"]
    'array'
    """
    target = SCHEMA_TARGETS.get(target_name)
    if target is None:
        msg = f"unknown schema target {target_name!r}; choose one of: {', '.join(SCHEMA_TARGETS)}"
        raise ValueError(msg)
    return json_schema(target)
