r"""The JSON Schema definitions of the format's strings and JSON values, one per rule that names it.

A rule of ``_rules`` names its definition (``schema="Title"``); ``_schema`` puts the definitions that a
target reaches under ``$defs``. Patterns use the subset of regular-expression syntax that ECMA-262 (with or
without the ``u`` flag) and Python's ``re`` read the same way: ``\uXXXX`` escapes in character classes,
``\s`` only in ``[\s\S]`` (any character), no ``\d``/``\w``/``\p{...}``. Each ends in ``$(?!\n)``: in Python a
``$`` also matches before a final newline. Character classes are computed from the running Python's Unicode
database, as the library's own checks are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._checks._grammar import (
    BASE64,
    FILENAME_SEPARATORS,
    MAX_FILENAME_BYTES,
    MAX_IDENTIFIER_CHARS,
    MAX_MEDIA_TYPE_CHARS,
    MEDIA_TYPE,
    METADATA_KEY_MIN_CHARS,
    TTL_MAX,
    URI,
    URL,
    bad_in_filename,
    bad_in_identifier,
    base64_chars,
    bmp_class,
)
from .._json._values import INT_MAX

if TYPE_CHECKING:
    from .._checks._rules import Limits

__all__ = ["DEFINITIONS"]

_END = r"$(?!\n)"  # end of string, also under Python's re, where "$" matches before a final newline


def _is_space(ch: str) -> bool:
    return ch.isspace()


def _is_filename_bad(ch: str) -> bool:
    return ch in FILENAME_SEPARATORS or bad_in_filename(ch)


def _is_filename_edge_bad(ch: str) -> bool:
    return _is_filename_bad(ch) or ch.isspace()


def _identifier() -> dict[str, Any]:
    return {
        "description": "A tool call id, tool name or provider: no whitespace, control or format characters.",
        "type": "string", "minLength": 1, "maxLength": MAX_IDENTIFIER_CHARS,
        "pattern": f"^[^{bmp_class(bad_in_identifier)}]+{_END}",
    }


def _trimmed(max_chars: int, description: str) -> dict[str, Any]:
    edge = f"[^{bmp_class(_is_space)}]"
    return {
        "description": description, "type": "string", "minLength": 1, "maxLength": max_chars,
        "pattern": rf"^{edge}(?:[\s\S]*{edge})?{_END}",
    }


def _media_type() -> dict[str, Any]:
    return {
        "description": "An RFC 6838 type/subtype with optional parameters; a '*' subtype is allowed, '*/*' is not.",
        "type": "string", "minLength": 1, "maxLength": MAX_MEDIA_TYPE_CHARS, "pattern": MEDIA_TYPE.schema(),
    }


def _http_url(max_chars: int) -> dict[str, Any]:
    return {
        "description": "An absolute http or https URL with a host (an IPv6 address in brackets, or a name), a port "
        "up to 65535, without userinfo or whitespace (never fetched).",
        "type": "string", "minLength": 1, "maxLength": max_chars, "pattern": URL.schema(),
    }


def _uri(max_chars: int) -> dict[str, Any]:
    return {
        "description": "An absolute URI of any scheme with a non-empty target, in RFC 3986 characters only.",
        "type": "string", "minLength": 1, "maxLength": max_chars, "pattern": URI.schema(),
    }


def _filename() -> dict[str, Any]:
    edge = f"[^{bmp_class(_is_filename_edge_bad)}]"
    return {
        "description": "A base name: no '/', '\\', control or format characters, no outer whitespace, "
        "at most 255 UTF-8 bytes.",
        "type": "string", "minLength": 1, "maxLength": MAX_FILENAME_BYTES,
        "pattern": f"^{edge}(?:[^{bmp_class(_is_filename_bad)}]*{edge})?{_END}",
        "not": {"enum": [".", ".."]},
    }


def _base64(max_bytes: int) -> dict[str, Any]:
    max_chars = base64_chars(max_bytes)
    schema: dict[str, Any] = {
        "description": f"Canonical, padded standard base64 (RFC 4648 section 4) of at most {max_bytes} bytes.",
        "type": "string", "contentEncoding": "base64", "maxLength": max_chars, "pattern": BASE64.schema(),
    }
    if max_bytes % 3:  # the longest string allowed decodes to more than max_bytes unless it is padded enough
        schema["if"] = {"minLength": max_chars}
        schema["then"] = {"pattern": ("==" if max_bytes % 3 == 1 else "=") + _END}
    return schema


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _text(limits: Limits) -> dict[str, Any]:
    return {"description": "Free text: any characters, at least one.", "type": "string", "minLength": 1,
            "maxLength": limits.max_text_chars}


def _metadata(limits: Limits) -> dict[str, Any]:
    return {
        "description": "Provider-native and application state: non-empty string keys, JSON values.",
        "type": "object", "propertyNames": {"minLength": METADATA_KEY_MIN_CHARS, "maxLength": limits.max_text_chars},
        "additionalProperties": _ref("JsonValue"),
    }


def _json_value(limits: Limits) -> dict[str, Any]:
    text_max = limits.max_text_chars
    return {
        "description": f"Any JSON value; the library also keeps integers within [-2**63, 2**64-1] and nesting "
        f"within {limits.max_depth} containers, which a schema cannot check.",
        "type": ["null", "boolean", "number", "string", "array", "object"], "maxLength": text_max,
        "items": _ref("JsonValue"), "propertyNames": {"maxLength": text_max}, "additionalProperties": _ref("JsonValue"),
    }


#: Each definition a rule names, built for a converter's limits.
DEFINITIONS: dict[str, Callable[[Limits], dict[str, Any]]] = {
    "Text": _text,
    "Title": lambda limits: _trimmed(limits.max_text_chars, "Text without leading or trailing whitespace."),
    "Reference": lambda limits: _trimmed(
        limits.max_uri_chars, "An opaque, non-empty reference without surrounding whitespace."
    ),
    "Uri": lambda limits: _uri(limits.max_uri_chars),
    "Url": lambda limits: _http_url(limits.max_uri_chars),
    "MediaType": lambda _limits: _media_type(),
    "Filename": lambda _limits: _filename(),
    "Identifier": lambda _limits: _identifier(),
    "Base64": lambda limits: _base64(limits.max_binary_bytes),
    "JsonValue": _json_value,
    "Metadata": _metadata,
    "Offset": lambda _limits: {"description": "A position in a text, in code points.", "type": "integer", "minimum": 0,
                               "maximum": INT_MAX},
    "Flag": lambda _limits: {"description": "A boolean: true or false, never 0 or 1.", "type": "boolean"},
    "Page": lambda _limits: {"description": "A page number, from 1 as printed.", "type": "integer", "minimum": 1,
                             "maximum": INT_MAX},
    "Ttl": lambda _limits: {"description": "A time to live in seconds.", "type": "integer", "minimum": 1,
                            "maximum": TTL_MAX},
    "Index": lambda _limits: {"description": "A position in a sequence, from 0.", "type": "integer", "minimum": 0,
                              "maximum": INT_MAX},
}
