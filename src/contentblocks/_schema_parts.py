r"""The JSON Schema definitions of the format's strings and JSON values, one per rule that names it.

A rule of ``_rules`` names its definition (``schema="Title"``); ``_schema`` puts the definitions that a
target reaches under ``$defs``. Patterns use the subset of regular-expression syntax that ECMA-262 (with or
without the ``u`` flag) and Python's ``re`` read the same way: ``\uXXXX`` escapes in character classes,
``\s`` only in ``[\s\S]`` (any character), no ``\d``/``\w``/``\p{...}``. Each ends in ``$(?!\n)``: in Python a
``$`` also matches before a final newline. Character classes are computed from the running Python's Unicode
database, as the library's own checks are.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from ._patterns import IPV6, MAX_FILENAME_BYTES, MAX_IDENTIFIER_CHARS, MAX_MEDIA_TYPE_CHARS, PORT, nfkc_delimiter
from ._rules import Limits

__all__ = ["DEFINITIONS"]

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


def _is_host_bad_non_ascii(ch: str) -> bool:
    return _is_url_bad_non_ascii(ch) or (not ch.isascii() and nfkc_delimiter(ch))


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
    host_non_ascii = f"[^\\u0000-\\u007f{_bmp(_is_host_bad_non_ascii)}]"
    host = rf"(?:\[{IPV6}\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{{2}}|{host_non_ascii})+)"
    return {
        "description": "An absolute http or https URL with a host (an IPv6 address in brackets, or a name), a port "
        "up to 65535, without userinfo or whitespace (never fetched).",
        "type": "string", "minLength": 1, "maxLength": max_chars,
        "pattern": rf"^[Hh][Tt][Tt][Pp][Ss]?://{host}(?::{PORT}?)?(?:[/?]{iri}*)?(?:#{iri}*)?{_END}",
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


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _text(limits: Limits) -> dict[str, Any]:
    return {"description": "Free text: any characters, at least one.", "type": "string", "minLength": 1,
            "maxLength": limits.max_text_chars}


def _metadata(limits: Limits) -> dict[str, Any]:
    return {
        "description": "Provider-native and application state: non-empty string keys, JSON values.",
        "type": "object", "propertyNames": {"minLength": 1, "maxLength": limits.max_text_chars},
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
    "Offset": lambda _limits: {"description": "A position in a text, in code points.", "type": "integer", "minimum": 0},
}
