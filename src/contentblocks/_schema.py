r"""A JSON Schema (Draft 2020-12) of the wire format, for validators in other languages and for tool descriptions.

The schema says as much of the contract as JSON Schema can: closed objects, ``const`` tags, required keys,
the role table, the reasoning rules, citation spans given together, and patterns for identifiers, media
types, URLs, URIs, file names and canonical base64. It cannot say everything (tool-call pairing, span
bounds against the text, lone surrogates, nesting depth and node counts, 64-bit integers, and a few
Unicode and byte-length details; ``docs/schema.md`` lists them): :func:`contentblocks.structure` remains
the authority, and the schema never rejects a value that it accepts. Unions are ``anyOf`` lists of
definitions whose tags are distinct constants, so at most one matches (``anyOf`` stops at the first match and
is understood by more tools than ``oneOf``).

Patterns use the subset of regular-expression syntax that ECMA-262 (with or without the ``u`` flag) and
Python's ``re`` read the same way: ``\uXXXX`` escapes in character classes, ``\s`` only in ``[\s\S]`` (any
character), no ``\d``/``\w``/``\p{...}``. Each ends in ``$(?!\n)``: in Python a ``$`` also matches before a
final newline.
Character classes are computed from the running Python's Unicode database, as the library's own checks are.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, get_args

import attrs

from ._blocks import (
    Block,
    BytesSource,
    Citation,
    CitationSource,
    CitedReference,
    CitedUri,
    FileBlock,
    FileSource,
    JsonBlock,
    Outcome,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultContent,
    UrlSource,
)
from ._messages import KIND_NAMES, ROLE_BLOCKS, Conversation, Message
from ._rules import MAX_FILENAME_BYTES, MAX_IDENTIFIER_CHARS, MAX_MEDIA_TYPE_CHARS, Limits

__all__ = ["DRAFT_2020_12", "SCHEMA_TARGETS", "json_schema", "schema_command"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

_CLASSES: tuple[type, ...] = (
    TextBlock, RefusalBlock, FileBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock, JsonBlock,
    BytesSource, UrlSource, ReferenceSource, Citation, CitedUri, CitedReference, Message, Conversation,
)
_UNIONS: tuple[tuple[object, str], ...] = (
    (Block, "Block"), (ToolResultContent, "ToolResultContent"), (FileSource, "FileSource"),
    (CitationSource, "CitationSource"),
)

#: The names ``contentblocks schema NAME`` understands: the three wire documents, then every class and union.
SCHEMA_TARGETS: dict[str, object] = {
    "block": Block,
    "message": Message,
    "conversation": Conversation,
    **{cls.__name__: cls for cls in _CLASSES},
    **{name: union for union, name in _UNIONS},
}

_END = r"$(?!\n)"  # end of string, also under Python's re, where "$" matches before a final newline
_B64 = "[A-Za-z0-9+/]"


# -------------------------------------------------------------------------------- character classes


def _class_body(codepoints: Iterable[int]) -> str:
    r"""The inside of a regex character class matching ``codepoints``, as ``\uXXXX`` escapes and ranges."""
    points = sorted(set(codepoints))
    parts: list[str] = []
    i = 0
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1] == points[j] + 1:
            j += 1
        parts.append(f"\\u{points[i]:04x}" if i == j else f"\\u{points[i]:04x}-\\u{points[j]:04x}")
        i = j + 1
    return "".join(parts)


@functools.cache
def _bmp(test: Callable[[str], bool]) -> str:
    """The class body of every Basic Multilingual Plane character (surrogates aside) that passes ``test``."""
    return _class_body(c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF and test(chr(c)))


def _is_space(ch: str) -> bool:
    return ch.isspace()


def _is_identifier_bad(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in {"Cc", "Cf", "Zs", "Zl", "Zp"}


def _is_url_bad_non_ascii(ch: str) -> bool:
    return not ch.isascii() and _is_identifier_bad(ch)


def _is_filename_bad(ch: str) -> bool:
    return ch in "/\\" or unicodedata.category(ch) in {"Cc", "Cf"}


def _is_filename_edge_bad(ch: str) -> bool:
    return _is_filename_bad(ch) or ch.isspace()


# -------------------------------------------------------------------------------- string rules


def _identifier() -> dict[str, Any]:
    return {
        "description": "A tool call id, tool name or provider: no whitespace, control or format characters.",
        "type": "string", "minLength": 1, "maxLength": MAX_IDENTIFIER_CHARS,
        "pattern": f"^[^{_bmp(_is_identifier_bad)}]+{_END}",
    }


def _trimmed(max_chars: int, description: str) -> dict[str, Any]:
    edge = f"[^{_bmp(_is_space)}]"
    return {
        "description": description, "type": "string", "minLength": 1, "maxLength": max_chars,
        "pattern": rf"^{edge}(?:[\s\S]*{edge})?{_END}",
    }


def _media_type() -> dict[str, Any]:
    name = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+\-]{0,126}"
    tchars = r"[!#$%&'*+\-.^_`|~A-Za-z0-9]+"
    quoted = r'"(?:[\t !#-\[\]-~\u0080-\u00ff]|\\[\t -~\u0080-\u00ff])*"'
    return {
        "description": "An RFC 6838 type/subtype with optional parameters; a '*' subtype is allowed, '*/*' is not.",
        "type": "string", "minLength": 1, "maxLength": MAX_MEDIA_TYPE_CHARS,
        "pattern": rf"^{name}/(?:{name}|\*)(?:[ \t]*;[ \t]*{tchars}=(?:{tchars}|{quoted}))*{_END}",
    }


def _http_url(max_chars: int) -> dict[str, Any]:
    non_ascii = f"[^\\u0000-\\u007f{_bmp(_is_url_bad_non_ascii)}]"
    iri = rf"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{{2}}|{non_ascii})"
    host = rf"(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{{2}}|{non_ascii})+)"
    return {
        "description": "An absolute http or https URL with a host, without userinfo or whitespace (never fetched).",
        "type": "string", "minLength": 1, "maxLength": max_chars,
        "pattern": rf"^[Hh][Tt][Tt][Pp][Ss]?://{host}(?::[0-9]*)?(?:[/?]{iri}*)?(?:#{iri}*)?{_END}",
    }


def _uri(max_chars: int) -> dict[str, Any]:
    char = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]|%[0-9A-Fa-f]{2})"
    return {
        "description": "An absolute URI of any scheme with a non-empty target, in RFC 3986 characters only.",
        "type": "string", "minLength": 1, "maxLength": max_chars,
        "pattern": rf"^[A-Za-z][A-Za-z0-9+.\-]*:(?!//$){char}+(?:#{char}*)?{_END}",
    }


def _filename() -> dict[str, Any]:
    edge = f"[^{_bmp(_is_filename_edge_bad)}]"
    return {
        "description": "A base name: no '/', '\\', control or format characters, no outer whitespace, "
        "at most 255 UTF-8 bytes.",
        "type": "string", "minLength": 1, "maxLength": MAX_FILENAME_BYTES,
        "pattern": f"^{edge}(?:[^{_bmp(_is_filename_bad)}]*{edge})?{_END}",
        "not": {"enum": [".", ".."]},
    }


def _base64(max_bytes: int) -> dict[str, Any]:
    max_chars = 4 * ((max_bytes + 2) // 3)
    schema: dict[str, Any] = {
        "description": f"Canonical, padded standard base64 (RFC 4648 section 4) of at most {max_bytes} bytes.",
        "type": "string", "contentEncoding": "base64", "maxLength": max_chars,
        # Pad bits are zero: before "==" the character's low four bits, before "=" its low two bits.
        "pattern": f"^(?:{_B64}{{4}})*(?:{_B64}{{2}}[AEIMQUYcgkosw048]=|{_B64}[AQgw]==)?{_END}",
    }
    if max_bytes % 3:  # the longest string allowed decodes to more than max_bytes unless it is padded enough
        schema["if"] = {"minLength": max_chars}
        schema["then"] = {"pattern": ("==" if max_bytes % 3 == 1 else "=") + _END}
    return schema


# -------------------------------------------------------------------------------- objects


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _object(description: str, required: list[str], properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"description": description, "type": "object", "required": required, "properties": properties,
            "additionalProperties": False, **extra}


def _block(tag: str, description: str, required: list[str], fields: dict[str, Any], **extra: Any) -> dict[str, Any]:
    properties = {"type": {"const": tag}, **fields, "metadata": _ref("Metadata")}
    return _object(description, ["type", *required], properties, **extra)


def _role_rules() -> list[dict[str, Any]]:
    rules = []
    for role, classes in ROLE_BLOCKS.items():
        tags = [KIND_NAMES[cls] for cls in classes]
        listed: dict[str, Any] = {"type": "array", "items": {"properties": {"type": {"enum": tags}}}}
        content = {"anyOf": [{"type": "string"}, listed]} if "text" in tags else listed
        rules.append({"if": {"required": ["role"], "properties": {"role": {"const": role}}},
                      "then": {"properties": {"content": content}}})
    return rules


def _definitions(limits: Limits) -> dict[str, Any]:
    text_max = limits.max_text_chars
    text = {"type": "string", "minLength": 1, "maxLength": text_max}
    offset = {"type": "integer", "minimum": 0}
    # Inside a text block a span ends within the text, so within the text limit (a lone citation has no text).
    within_text = {"properties": {"start": {"maximum": text_max}, "end": {"maximum": text_max}}}
    reference = _trimmed(limits.max_uri_chars, "An opaque, non-empty reference without surrounding whitespace.")
    metadata = {
        "description": "Provider-native and application state: non-empty string keys, JSON values.",
        "type": "object", "propertyNames": {"minLength": 1, "maxLength": text_max},
        "additionalProperties": _ref("JsonValue"),
    }
    json_value = {
        "description": f"Any JSON value; the library also keeps integers within [-2**63, 2**64-1] and nesting "
        f"within {limits.max_depth} containers, which a schema cannot check.",
        "type": ["null", "boolean", "number", "string", "array", "object"], "maxLength": text_max,
        "items": _ref("JsonValue"), "propertyNames": {"maxLength": text_max}, "additionalProperties": _ref("JsonValue"),
    }
    citation = _object(
        "A cited source and, optionally, the span of the block's text it supports (in code points).",
        ["source"],
        {"source": _ref("CitationSource"), "title": _ref("Title"), "quote": _ref("Text"),
         "start": offset, "end": offset},
        dependentRequired={"start": ["end"], "end": ["start"]},
    )
    either = {"anyOf": [{"required": ["text"]}, {"required": ["signature"]}]}
    reasoning = _block(
        "reasoning", "Model reasoning: text, a signature, or redacted bytes (which exclude the other two).", [],
        {"text": _ref("Text"), "signature": _ref("Text"), "redacted": {"$ref": "#/$defs/Base64", "minLength": 1}},
        anyOf=[*either["anyOf"], {"required": ["redacted"]}], dependentSchemas={"redacted": {"not": either}},
    )
    call_keys = {"tool_call_id": _ref("Identifier"), "tool_name": _ref("Identifier")}
    return {
        "Block": {"description": "Any content block, told apart by its type.",
                  "anyOf": [_ref(cls.__name__) for cls in KIND_NAMES]},
        "TextBlock": _block("text", "Text, with optional citations.", ["text"],
                            {"text": _ref("Text"),
                             "citations": {"type": "array", "items": {**_ref("Citation"), **within_text}}}),
        "RefusalBlock": _block("refusal", "The model declined.", ["text"], {"text": _ref("Text")}),
        "FileBlock": _block(
            "file", "A file or media: inline bytes, a URL or a provider-hosted reference.", ["media_type", "source"],
            {"media_type": _ref("MediaType"), "source": _ref("FileSource"), "filename": _ref("Filename")}),
        "ReasoningBlock": reasoning,
        "ToolCallBlock": _block("tool_call", "A call the model makes to a tool.",
                                ["tool_call_id", "tool_name", "input"], {**call_keys, "input": _ref("JsonValue")}),
        "ToolResultBlock": _block(
            "tool_result", "What a tool call gave back, and how it ended.",
            ["tool_call_id", "tool_name", "outcome", "content"],
            {**call_keys, "outcome": {"enum": list(get_args(Outcome))},
             "content": {"type": "array", "items": _ref("ToolResultContent")}}),
        "JsonBlock": _block("json", "A JSON value.", ["value"], {"value": _ref("JsonValue")}),
        "ToolResultContent": {"description": "A block a tool result may carry: text, file or json.",
                              "anyOf": [_ref("TextBlock"), _ref("FileBlock"), _ref("JsonBlock")]},
        "FileSource": {"description": "Where a file's bytes are.",
                       "anyOf": [_ref("BytesSource"), _ref("UrlSource"), _ref("ReferenceSource")]},
        "BytesSource": _object("Inline bytes, as base64.", ["type", "data"],
                               {"type": {"const": "base64"}, "data": _ref("Base64")}),
        "UrlSource": _object("A remote file, never fetched by the library.", ["type", "url"],
                             {"type": {"const": "url"}, "url": _http_url(limits.max_uri_chars)}),
        "ReferenceSource": _object("A provider-hosted file.", ["type", "id"],
                                   {"type": {"const": "reference"}, "id": _ref("Reference"),
                                    "provider": _ref("Identifier")}),
        "Citation": citation,
        "CitationSource": {"description": "What a citation points at.",
                           "anyOf": [_ref("CitedUri"), _ref("CitedReference")]},
        "CitedUri": _object("An absolute URI, never resolved.", ["kind", "value"],
                            {"kind": {"const": "uri"}, "value": _uri(limits.max_uri_chars)}),
        "CitedReference": _object("An identifier whose meaning belongs to the provider or host.", ["kind", "value"],
                                  {"kind": {"const": "reference"}, "value": _ref("Reference")}),
        "Message": _object(
            "One turn: a role and the blocks it may carry (a string is one text block).", ["role", "content"],
            {"role": {"enum": list(ROLE_BLOCKS)},
             "content": {"anyOf": [text, {"type": "array", "minItems": 1, "items": _ref("Block")}]},
             "metadata": _ref("Metadata")},
            allOf=_role_rules(),
        ),
        "Conversation": {"description": "Messages in order (tool calls and results must pair up, see the docs).",
                         "type": "array", "items": _ref("Message")},
        "Metadata": metadata,
        "JsonValue": json_value,
        "Text": {"description": "Free text: any characters, at least one.", **text},
        "Title": _trimmed(text_max, "Text without leading or trailing whitespace."),
        "Reference": reference,
        "Identifier": _identifier(),
        "MediaType": _media_type(),
        "Filename": _filename(),
        "Base64": _base64(limits.max_binary_bytes),
    }


# -------------------------------------------------------------------------------- public entry points


def _target_name(target: object) -> str:
    for union, name in _UNIONS:
        if target is union or (type(target) is type(union) and target == union):
            return name
    if isinstance(target, type) and target in _CLASSES:
        return target.__name__
    msg = f"no schema for {target!r}; expected cb.Block, cb.Message, cb.Conversation, a union or a block class"
    raise TypeError(msg)


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

    >>> from contentblocks._schema import schema_command
    >>> schema_command("conversation")["$defs"]["Conversation"]["type"]
    'array'
    """
    target = SCHEMA_TARGETS.get(target_name)
    if target is None:
        msg = f"unknown schema target {target_name!r}; choose one of: {', '.join(SCHEMA_TARGETS)}"
        raise ValueError(msg)
    return json_schema(target)
