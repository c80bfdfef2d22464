"""The checks of the wire format's strings: each ``check_*`` says what is wrong with a value, or None.

They never echo the value and never coerce it: they validate raw strings, not parsed or normalised copies
(``urllib.parse`` silently drops tabs and newlines, so it is not used here). The grammars and character
categories they check are those of ``_grammar``, which the JSON Schema reads too. ``_rules`` names the checks
in the declarations; nothing else calls them to decide validity.
"""

from __future__ import annotations

import binascii
import re
import unicodedata
from collections.abc import Callable

from ._grammar import (
    ASCII_IDENTIFIER,
    B64_ZERO_LOW_2,
    B64_ZERO_LOW_4,
    CATEGORY_NAMES,
    FILENAME_BAD_CATEGORIES,
    FILENAME_SEPARATORS,
    IDENTIFIER_BAD_CATEGORIES,
    LOOSE_URL,
    MAX_FILENAME_BYTES,
    MAX_IDENTIFIER_CHARS,
    MAX_MEDIA_TYPE_CHARS,
    MEDIA_TYPE,
    NFKC_DELIMITERS,
    URI,
    URI_WITHOUT_TARGET,
    URL,
    bad_in_identifier,
    base64_chars,
    nfkc_delimiter,
)

__all__ = [
    "ascii_identifier",
    "check_base64",
    "check_filename",
    "check_free_text",
    "check_identifier",
    "check_media_type",
    "check_no_surrounding_space",
    "check_uri",
    "check_url",
    "find_surrogate",
    "has_lone_surrogate",
]

_search_surrogate = re.compile("[\ud800-\udfff]").search
_encode = str.encode  # not the method of a subclass, which could say anything
_ENCODE_CHECK_MAX = 65_536


def find_surrogate(value: str) -> bool:
    r"""Whether a string holds a surrogate code point (a lone surrogate: Python strings hold no pairs).

    For the paths that test ``isascii()`` first; the converter binds the C scan instead where the accelerator
    is built. UTF-8 refuses exactly the surrogates, and encoding runs at several times the speed of a regular
    expression's scan; strings longer than 64 Ki characters are scanned instead, so that the check never
    allocates more than a quarter of a megabyte.

    >>> find_surrogate("caf\u00e9"), find_surrogate("half a pair: \ud83d")
    (False, True)
    """
    if len(value) > _ENCODE_CHECK_MAX:
        return _search_surrogate(value) is not None
    try:
        _encode(value)
    except UnicodeEncodeError:
        return True
    return False


def has_lone_surrogate(value: str) -> bool:
    """Whether ``value`` holds a surrogate code point (which no UTF-8 encoder accepts)."""
    return not value.isascii() and find_surrogate(value)


def check_free_text(value: str, max_chars: int) -> str | None:
    """Any characters but lone surrogates, at most ``max_chars`` of them; emptiness is the caller's rule."""
    if len(value) > max_chars:
        return f"longer than {max_chars:,} characters"
    if has_lone_surrogate(value):
        return "contains a lone surrogate (not a Unicode character)"
    return None


def check_no_surrounding_space(value: str, max_chars: int) -> str | None:
    """Non-empty, no leading or trailing whitespace, no lone surrogates."""
    if not value:
        return "must not be empty"
    problem = check_free_text(value, max_chars)
    if problem is not None:
        return problem
    if value[0].isspace() or value[-1].isspace():
        return "has leading or trailing whitespace"
    return None


#: A whole ASCII identifier (SPEC §2): the common case, one regex call; anything else goes to check_identifier.
ascii_identifier: Callable[[str], object] = re.compile(f"{ASCII_IDENTIFIER}{{1,{MAX_IDENTIFIER_CHARS}}}").fullmatch


def check_identifier(value: str) -> str | None:
    """1-256 characters, none of them whitespace, control, format or surrogate characters."""
    if not value:
        return "must not be empty"
    if len(value) > MAX_IDENTIFIER_CHARS:
        return f"longer than {MAX_IDENTIFIER_CHARS} characters"
    if value.isascii():
        if ascii_identifier(value) is None:
            return "contains whitespace or a control character"
        return None
    for ch in value:
        if ch.isspace():
            return "contains whitespace"
        category = unicodedata.category(ch)
        if category in IDENTIFIER_BAD_CATEGORIES:
            return f"contains a {CATEGORY_NAMES[category]} character (U+{ord(ch):04X})"
    return None


_URI = re.compile(URI.python)
#: A whole URI of at most any length: the match that ``check_uri`` runs once the length is checked.
uri_match: Callable[[str], object] = _URI.fullmatch


def check_uri(value: str, max_chars: int) -> str | None:
    """An absolute URI of any scheme with a non-empty target, in RFC 3986 characters only."""
    if len(value) > max_chars:
        return f"longer than {max_chars:,} characters"
    if _URI.fullmatch(value) is not None:
        return None
    if ":" not in value:
        return "not an absolute URI (no scheme)"
    if re.fullmatch(URI_WITHOUT_TARGET.python, value) is not None:  # compiled when first needed, then cached
        return "not an absolute URI: nothing after the scheme"
    return "not an absolute URI: needs a scheme and RFC 3986 characters only (percent-encode the rest)"


_URL = re.compile(URL.python)
_DATA_URL = re.compile(r"\s*data:", re.IGNORECASE)


def _url_problem(value: str) -> str:
    """What is wrong with a URL that ``_URL`` refuses: its IP literal, its port, or its shape."""
    loose = re.fullmatch(LOOSE_URL.python, value)  # compiled when first needed, then cached
    if loose is None:
        return "not an absolute http or https URL with a host (and no userinfo)"
    if loose.group("host").startswith("["):
        return "the host in brackets is not an IPv6 address"
    return "the port is not a number from 0 to 65535 (of at most 5 digits)"


def check_url(value: str, max_chars: int) -> str | None:
    """An absolute http or https URL with a host, no userinfo and no whitespace; ``data:`` gets a hint."""
    if not value:
        return "must not be empty"
    if len(value) > max_chars:
        return f"longer than {max_chars:,} characters"
    if _DATA_URL.match(value):
        return "a data: URL is not a remote URL; use a base64 source (contentblocks.file_from_data_url makes one)"
    match = _URL.fullmatch(value)
    if match is None:
        if not value.isascii() and any(bad_in_identifier(ch) for ch in value):
            return "contains whitespace, control or format characters"
        return _url_problem(value)
    if not value.isascii():
        if any(bad_in_identifier(ch) for ch in value if not ch.isascii()):
            return "contains whitespace, control or format characters"
        host = match.group("host")
        if not host.isascii() and any(nfkc_delimiter(ch) for ch in host if not ch.isascii()):
            return f"the host holds a character that NFKC normalisation makes a URL delimiter ({NFKC_DELIMITERS})"
    return None


_MEDIA_TYPE = re.compile(MEDIA_TYPE.python)


def check_media_type(value: str) -> str | None:
    """An RFC 6838 ``type/subtype`` with optional parameters; a ``*`` subtype, but not ``*/*``."""
    if not value:
        return "must not be empty"
    if len(value) > MAX_MEDIA_TYPE_CHARS:
        return f"longer than {MAX_MEDIA_TYPE_CHARS} characters"
    if _MEDIA_TYPE.fullmatch(value) is None:
        if value.startswith("*/"):
            return "only the subtype may be '*' (and '*/*' is not a media type)"
        return "not an RFC 6838 media type (type/subtype, then optional '; name=value' parameters)"
    return None


def check_filename(value: str) -> str | None:  # noqa: C901 - one rule per line of the spec
    """A base name of 1-255 UTF-8 bytes with no separators, controls, format characters or outer spaces."""
    if not value:
        return "must not be empty"
    if has_lone_surrogate(value[: MAX_FILENAME_BYTES + 1]):
        return "contains a lone surrogate"
    if len(value) > MAX_FILENAME_BYTES or len(value.encode("utf-8")) > MAX_FILENAME_BYTES:
        return "longer than 255 UTF-8 bytes"
    if value in {".", ".."}:
        return "'.' and '..' are not file names"
    if any(separator in value for separator in FILENAME_SEPARATORS):
        return "must be a base name (no '/' or '\\')"
    if value[0].isspace() or value[-1].isspace():
        return "has leading or trailing whitespace"
    if value.isascii():
        if not value.isprintable():
            return "contains a control character"
        return None
    for ch in value:
        category = unicodedata.category(ch)
        if category in FILENAME_BAD_CATEGORIES:
            return f"contains a {CATEGORY_NAMES[category]} character (U+{ord(ch):04X})"
    return None


def check_base64(value: str, max_bytes: int) -> bytes | str:
    """Decode strict, canonical, padded standard base64; return the bytes, or a message saying what is wrong.

    The length is checked before anything is decoded, so an oversized string costs nothing. This is the
    reference decoder and the wording of every problem (binascii's strict mode and the pad bits); the
    converter tries the C decoder first where it is built.
    """
    if len(value) > base64_chars(max_bytes):
        return f"more than {max_bytes:,} bytes once decoded"
    if len(value) % 4:
        if value[:5].lower() == "data:":
            return "not canonical base64: a data: URL prefix (contentblocks.file_from_data_url handles data URLs)"
        return "not canonical base64: the length is not a multiple of 4 (missing padding or stray characters)"
    if not value.isascii():
        return "not canonical base64: non-ASCII characters"
    try:
        data = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError) as e:
        if value[:5].lower() == "data:":
            return "not canonical base64: a data: URL prefix (contentblocks.file_from_data_url handles data URLs)"
        reason = str(e).rstrip(".").lower() if isinstance(e, binascii.Error) else "invalid characters"
        return f"not canonical base64: {reason}"
    if len(data) > max_bytes:
        return f"more than {max_bytes:,} bytes once decoded"
    if "=" in value[:-2]:  # strict mode still takes a whole quantum of padding ("AAAA====")
        return "not canonical base64: excess padding"
    if value.endswith("=") and not (value[-3] in B64_ZERO_LOW_4 if value[-2] == "=" else value[-2] in B64_ZERO_LOW_2):
        return "not canonical base64: non-zero pad bits"
    return data
