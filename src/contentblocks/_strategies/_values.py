"""Hypothesis strategies for the leaves of blocks: strings, identifiers, URIs, media types, JSON values.

Everything here is valid by construction (no rule of the library is used as a filter), so that a
generated value the library rejects points at a bug in the library, not in the strategy. The public
names are re-exported by :mod:`contentblocks.strategies`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st

from .._checks._grammar import (
    FILENAME_BAD_CATEGORIES,
    FILENAME_SEPARATORS,
    IDENTIFIER_BAD_CATEGORIES,
    METADATA_KEY_MIN_CHARS,
    NAME_FIRST,
    NAME_MORE,
    NAME_REST,
    SCHEME_FIRST,
    SCHEME_REST,
)

__all__ = [
    "binaries",
    "filenames",
    "free_texts",
    "identifiers",
    "json_values",
    "media_types",
    "metadata",
    "opaque_references",
    "redacted_binaries",
    "trimmed_texts",
    "uris",
    "urls",
]

_NO_SURROGATES = st.characters(codec="utf-8")
_CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
_ASTRAL = st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, codec="utf-8")
_WHITESPACE = " \t\n\r\x0b\x0c\u00a0\u2028\u3000"

#: Strings that have broken text handling somewhere before: NUL, astral characters, combining marks,
#: bidi controls, a byte order mark, a zero-width joiner sequence, whitespace only.
SPECIAL_TEXTS = (
    " ",
    "\t\n ",
    "\x00",
    "a\x00b",
    "\U0001f600",
    "\U0010ffff",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
    "\u200b",
    "\u202eevil",
    "e\u0301",
    "\r\n",
    "\ufeff",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "null",
    '{"type": "text"}',
)


@cache
def free_texts(*, min_size: int = 1, max_size: int = 40) -> st.SearchStrategy[str]:
    """Free text (``text``, ``quote``, ``signature``): any characters but lone surrogates, NUL included."""
    max_size = max(max_size, min_size)
    options = [
        st.text(_NO_SURROGATES, min_size=min_size, max_size=max_size),
        st.text(_CJK, min_size=max(min_size, 1), max_size=max_size),
        st.text(_ASTRAL, min_size=max(min_size, 1), max_size=max_size),
        st.text(st.sampled_from(_WHITESPACE), min_size=max(min_size, 1), max_size=max_size),
        st.sampled_from([s for s in SPECIAL_TEXTS if min_size <= len(s) <= max_size]),
    ]
    return st.one_of(options)


@cache
def trimmed_texts(*, max_size: int = 30) -> st.SearchStrategy[str]:
    """Non-empty text without leading or trailing whitespace (titles, opaque references)."""
    return st.one_of(
        st.text(_NO_SURROGATES, min_size=1, max_size=max_size).map(str.strip).filter(bool),
        st.sampled_from(["report:2026", "doc 3", "\u6587\u732e", "a", "x\x00y", "\U0001f4c4 notes"]),
    )


# Identifiers: no whitespace, control, format, surrogate or separator characters.
_IDENTIFIER_CHARS = st.characters(exclude_categories=sorted(IDENTIFIER_BAD_CATEGORIES), codec="utf-8")
_SPECIAL_IDENTIFIERS = (
    "a",
    "x" * 256,
    "\u5de5" * 256,
    "\U0001f527" * 256,
    "call_0123456789",
    "toolu_01A09q90qw90lq917835lq9",
    "get-weather.v2",
    "call:1/2",
    "\u5de5\u5177",
    "\U0001f527",
)


@cache
def identifiers(*, max_size: int = 24) -> st.SearchStrategy[str]:
    """Tool call ids and tool names: 1-256 characters, none of them whitespace, control or format characters."""
    return st.one_of(
        st.from_regex(r"[A-Za-z0-9_\-.:]{1,24}", fullmatch=True),
        st.text(_IDENTIFIER_CHARS, min_size=1, max_size=min(max_size, 256)).filter(
            lambda s: not any(c.isspace() for c in s)
        ),
        st.sampled_from(_SPECIAL_IDENTIFIERS),
    )


@cache
def opaque_references() -> st.SearchStrategy[str]:
    """A file reference id or citation reference: non-empty, no surrounding whitespace."""
    return st.one_of(
        st.sampled_from([
            "file_011CNha8iCJcU1wXNR6q4V8w",
            "file-BK7bzQj3FfZFXr7DbL6xJwfo",
            "https://generativelanguage.googleapis.com/v1beta/files/abc-123",
            "s3://bucket/key with spaces.pdf",
            "0",
        ]),
        trimmed_texts(),
    )


# RFC 3986 characters outside the percent sign, and percent-encoded octets.
_URI_CHAR = st.one_of(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?"),
    st.sampled_from(["%20", "%E2%82%AC", "%2F", "%00", "%ff"]),
)
_URI_FIRST = st.one_of(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@?"),
    st.sampled_from(["%20", "%C3%A9"]),
)


@cache
def uris() -> st.SearchStrategy[str]:
    """Absolute URIs of any scheme, RFC 3986 characters only, with a non-empty target and maybe a fragment."""
    return _uri()


@st.composite
def _uri(draw: st.DrawFn) -> str:
    scheme = draw(st.one_of(
        st.sampled_from(["https", "http", "file", "urn", "doi", "mailto", "s3", "gs", "x-app+v1.0", "HTTPS"]),
        st.from_regex(f"{SCHEME_FIRST}{SCHEME_REST}{{0,8}}", fullmatch=True),
    ))
    if draw(st.booleans()):
        # hierarchical: scheme://authority/path (the authority may be empty for file:///)
        authority = draw(st.sampled_from(["", "example.com", "[::1]", "user@host:8080", "h"]))
        path = draw(st.lists(_URI_CHAR, min_size=0 if authority else 1, max_size=12).map("".join))
        rest = f"//{authority}/{path}" if not authority else f"//{authority}" + (f"/{path}" if path else "")
    else:
        # opaque: urn:isbn:..., doi:10.1000/182, mailto:a@b
        rest = draw(_URI_FIRST) + draw(st.lists(_URI_CHAR, max_size=16).map("".join))
    fragment = draw(st.one_of(st.just(""), st.lists(_URI_CHAR, max_size=6).map(lambda cs: "#" + "".join(cs))))
    return f"{scheme}:{rest}{fragment}"


_HOSTS = st.one_of(
    st.sampled_from(["example.com", "EXAMPLE.org", "localhost", "127.0.0.1", "[::1]", "[2001:db8::7]",
                     "xn--bcher-kva.example", "b\u00fccher.example", "a.b.c.d.e", "h"]),
    st.from_regex(r"[a-z0-9](?:[a-z0-9\-]{0,10}[a-z0-9])?(?:\.[a-z]{2,6}){0,2}", fullmatch=True),
)
_PATH_CHAR = st.one_of(
    st.sampled_from("abcXYZ0189-._~!$&'()*+,;=:@/"),
    st.sampled_from(["%20", "%2F", "caf\u00e9", "\u65e5\u672c", "\U0001f600"]),
)


@cache
def urls() -> st.SearchStrategy[str]:
    """Absolute http(s) URLs with a host, maybe a port, path, query and fragment; no userinfo, no whitespace."""
    return _url()


@st.composite
def _url(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["https", "http"]))
    host = draw(_HOSTS)
    port = draw(st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}")))
    path = draw(st.one_of(st.just(""), st.lists(_PATH_CHAR, max_size=10).map(lambda cs: "/" + "".join(cs))))
    query = draw(st.one_of(st.just(""), st.lists(_PATH_CHAR, max_size=6).map(lambda cs: "?" + "".join(cs))))
    fragment = draw(st.one_of(st.just(""), st.lists(_PATH_CHAR, max_size=4).map(lambda cs: "#" + "".join(cs))))
    return f"{scheme}://{host}{port}{path}{query}{fragment}"


_RESTRICTED_NAME = st.from_regex(f"{NAME_FIRST}{NAME_REST}{{0,{min(20, NAME_MORE)}}}", fullmatch=True)
_PARAMETERS = st.sampled_from([
    "; charset=utf-8",
    ";charset=UTF-8",
    '; name="a quoted \\" value"',
    "; q=0.5; level=1",
    '; boundary="--- x ---"',
])


@cache
def media_types(*, wildcard: bool = False) -> st.SearchStrategy[str]:
    """RFC 6838 media types, case kept, maybe with parameters; ``type/*`` subtypes too when ``wildcard`` is true."""
    return _media_type(wildcard)


@st.composite
def _media_type(draw: st.DrawFn, wildcard: bool) -> str:
    common = ["image/png", "image/jpeg", "application/pdf", "audio/wav", "text/plain", "video/mp4",
              "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Text/HTML",
              "application/ld+json", "a/b", "x" * 127 + "/" + "y" * 127]
    if wildcard:
        common += ["image/*", "audio/*", "video/*"]
    base = draw(st.one_of(
        st.sampled_from(common),
        st.tuples(_RESTRICTED_NAME, _RESTRICTED_NAME).map("/".join),
    ))
    parameters = draw(st.lists(_PARAMETERS, max_size=2).map("".join))
    return base + parameters


_FILENAME_CHARS = st.characters(
    exclude_categories=sorted(FILENAME_BAD_CATEGORIES), exclude_characters=FILENAME_SEPARATORS, codec="utf-8"
)
_SPECIAL_FILENAMES = (
    "a",
    "report.pdf",
    ".hidden",
    "...",
    "a" * 255,
    "\u00e9" * 127 + "a",
    "\U0001f600" * 63 + "abc",
    "\u65e5\u672c\u8a9e.txt",
    "name with spaces.png",
    "x.tar.gz",
)


@cache
def filenames() -> st.SearchStrategy[str]:
    """Base names of 1-255 UTF-8 bytes: no separators, controls or format characters, no outer whitespace."""
    generated = (
        st.text(_FILENAME_CHARS, min_size=1, max_size=40)
        .map(str.strip)
        .filter(lambda s: s not in {"", ".", ".."} and len(s.encode("utf-8")) <= 255)
    )
    return st.one_of(generated, st.sampled_from(_SPECIAL_FILENAMES))


@cache
def binaries(*, max_size: int = 64) -> st.SearchStrategy[bytes]:
    """Bytes with the base64 edge sizes (0-3 bytes, where the padding changes) well represented."""
    return st.one_of(st.binary(max_size=3), st.binary(max_size=max(max_size, 0)))


@cache
def redacted_binaries(*, max_size: int = 64) -> st.SearchStrategy[bytes]:
    """Non-empty bytes for redacted reasoning."""
    return st.one_of(st.binary(min_size=1, max_size=3), st.binary(min_size=1, max_size=max(max_size, 1)))


_INT_EDGES = st.sampled_from([0, 1, -1, 2**53, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, 2**31])
_JSON_SCALARS: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    _INT_EDGES,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e300, 5e-324, -1.5]),
    free_texts(min_size=0, max_size=12),
)
_JSON_KEYS = st.one_of(free_texts(min_size=0, max_size=8), st.sampled_from(["", "type", "a", "\x00", "\U0001f511"]))


@cache
def json_values(*, max_depth: int = 4, max_leaves: int = 20) -> st.SearchStrategy[Any]:
    """JSON values as plain Python: null, booleans, 64-bit-range ints, finite floats, strings, lists, dicts.

    Args:
        max_depth: most containers nested inside one another (0 gives scalars only).
        max_leaves: most values inside containers, over the whole value.

    >>> from hypothesis import given, settings
    >>> import contentblocks as cb
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.json_values())
    ... def check(value):
    ...     assert cb.JsonBlock(value=value) == cb.JsonBlock(value=value)
    >>> check()
    """
    return _json_values(max_depth, max_leaves)


_KINDS = st.integers(0, 2)
_SIZES = [st.integers(0, n) for n in range(6)]


@st.composite
def _json_values(draw: st.DrawFn, max_depth: int, max_leaves: int) -> Any:
    budget = [max_leaves]

    def value(depth: int) -> Any:
        can_nest = depth < max_depth and budget[0] > 0
        kind = draw(_KINDS) if can_nest else 0
        if kind == 0:
            return draw(_JSON_SCALARS)
        size = draw(_SIZES[min(budget[0], 5)])
        budget[0] -= size
        if kind == 1:
            return [value(depth + 1) for _ in range(size)]
        obj = {}
        for _ in range(size):
            key = draw(_JSON_KEYS)
            if key not in obj:
                obj[key] = value(depth + 1)
        return obj

    return value(0)


_METADATA_KEYS = st.one_of(
    st.sampled_from([key for key in ("app/trace_id", "anthropic/signature_issuer", "openai/item_id", "k", "\u952e",
                                     " spaced key ") if len(key) >= METADATA_KEY_MIN_CHARS]),
    free_texts(min_size=METADATA_KEY_MIN_CHARS, max_size=12),
)


@cache
def metadata(*, max_size: int = 4) -> st.SearchStrategy[dict[str, Any]]:
    """Metadata objects: non-empty string keys, JSON values; empty about half the time.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.metadata())
    ... def check(value):
    ...     assert all(type(key) is str and key for key in value)
    >>> check()
    """
    return st.one_of(
        st.just({}),
        st.dictionaries(_METADATA_KEYS, json_values(max_depth=3, max_leaves=8), min_size=1, max_size=max_size),
    )
