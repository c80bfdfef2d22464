r"""The grammar of the format's strings, each written once and emitted for Python's ``re`` and for JSON Schema.

A :class:`Pattern` is one regular expression in two dialects. ``python`` is what the library's checks compile
and ``fullmatch``: runs are possessive (``++``, ``*+``: the alternatives of a run never overlap, so giving back
characters could never make a match, and a run of a character class is matched in one step), groups are named
where a check reads them, and a non-ASCII character is any one, the check testing its category in code (faster
than a class of every refused character). ``ecma()`` is what the JSON Schema holds: the subset of syntax that
ECMA-262 (with or without the ``u`` flag) and Python's ``re`` read the same way (``\uXXXX`` escapes in classes,
``\s`` only in ``[\s\S]``, no ``\d``/``\w``/``\p{...}``, no possessive runs), with the refused characters as
classes computed from the running Python's Unicode database by the same predicates the checks call. The
character categories and the base64 length are stated here once too.

>>> URI.python.startswith("[A-Za-z]"), URI.schema().endswith("$(?!\\n)")
(True, True)
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from typing import Literal, TypeAlias

__all__ = [
    "ASCII_IDENTIFIER",
    "ASCII_IDENTIFIER_CHARS",
    "B64_ZERO_LOW_2",
    "B64_ZERO_LOW_4",
    "BASE64",
    "CATEGORY_NAMES",
    "FILENAME_BAD_CATEGORIES",
    "FILENAME_SEPARATORS",
    "IDENTIFIER_BAD_CATEGORIES",
    "LOOSE_URL",
    "MAX_FILENAME_BYTES",
    "MAX_IDENTIFIER_CHARS",
    "MAX_MEDIA_TYPE_CHARS",
    "MEDIA_TYPE",
    "METADATA_KEY_MIN_CHARS",
    "METADATA_KEY_PROBLEM",
    "NAME_FIRST",
    "NAME_MORE",
    "NAME_REST",
    "NFKC_DELIMITERS",
    "SCHEME_FIRST",
    "SCHEME_REST",
    "TTL_MAX",
    "URI",
    "URI_WITHOUT_TARGET",
    "URL",
    "Pattern",
    "bad_in_filename",
    "bad_in_identifier",
    "base64_chars",
    "bmp_class",
    "nfkc_delimiter",
]

MAX_IDENTIFIER_CHARS = 256
MAX_MEDIA_TYPE_CHARS = 1024
MAX_FILENAME_BYTES = 255
#: The longest time to live a cache breakpoint holds, in seconds: the largest signed 32-bit integer (about 68
#: years), which every provider's field and every encoder can hold (Anthropic's longest is an hour).
TTL_MAX = 2**31 - 1
#: The fewest characters a metadata key holds, and the words for a shorter key: the format refuses an empty key.
METADATA_KEY_MIN_CHARS = 1
METADATA_KEY_PROBLEM = (
    "metadata keys must not be empty" if METADATA_KEY_MIN_CHARS == 1
    else f"metadata keys must hold at least {METADATA_KEY_MIN_CHARS} characters"
)

# -------------------------------------------------------------------------------- characters

Category: TypeAlias = Literal["Cc", "Cf", "Cs", "Zs", "Zl", "Zp"]
#: Unicode categories refused in identifiers and in URLs: controls, format characters, surrogates, separators.
IDENTIFIER_BAD_CATEGORIES: frozenset[Category] = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"})
#: Unicode categories refused in file names, where spaces are allowed inside.
FILENAME_BAD_CATEGORIES: frozenset[Category] = frozenset({"Cc", "Cf", "Cs"})
FILENAME_SEPARATORS = "/\\"
#: How a problem names a refused category.
CATEGORY_NAMES: dict[str, str] = {"Cc": "control", "Cf": "format", "Cs": "lone surrogate", "Zs": "space",
                                  "Zl": "line separator", "Zp": "paragraph separator"}  # fmt: skip
#: What NFKC normalisation must not make of a host's characters: urlsplit refuses such a host.
NFKC_DELIMITERS = "/?#@:"


def bad_in_identifier(ch: str) -> bool:
    """Whether ``ch`` may not appear in an identifier (nor, non-ASCII, in a URL): whitespace or a bad category."""
    return ch.isspace() or unicodedata.category(ch) in IDENTIFIER_BAD_CATEGORIES


def bad_in_filename(ch: str) -> bool:
    """Whether ``ch`` may not appear in a file name at all (separators are refused with words of their own)."""
    return unicodedata.category(ch) in FILENAME_BAD_CATEGORIES


def nfkc_delimiter(ch: str) -> bool:
    """Whether NFKC normalisation turns ``ch`` into text holding a URL delimiter (FULLWIDTH COLON does)."""
    return any(d in unicodedata.normalize("NFKC", ch) for d in NFKC_DELIMITERS)


def bad_in_host(ch: str) -> bool:
    """Whether a non-ASCII ``ch`` may not appear in a URL's host: as in a URL, or NFKC makes it a delimiter."""
    return bad_in_identifier(ch) or nfkc_delimiter(ch)


def _class_body(codepoints: Iterable[int]) -> str:
    r"""The inside of a character class matching ``codepoints``, as ``\uXXXX`` escapes and ranges."""
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
def bmp_class(test: Callable[[str], bool]) -> str:
    """The class body of every Basic Multilingual Plane character (surrogates aside) that passes ``test``."""
    return _class_body(c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF and test(chr(c)))


#: The ASCII characters an identifier may hold: the printable ones but the space.
ASCII_IDENTIFIER_CHARS = "".join(chr(c) for c in range(0x80) if not bad_in_identifier(chr(c)))
#: One of them, as a pattern's character class.
ASCII_IDENTIFIER = f"[{_class_body(map(ord, ASCII_IDENTIFIER_CHARS))}]"

# -------------------------------------------------------------------------------- patterns


class Pattern:
    """One regular expression in its two dialects: ``python`` for ``re.fullmatch``, ``ecma()`` for a schema.

    ``char`` marks a single character class, which a run takes a run at a time in Python. (A plain slotted
    class: there are a few dozen, made at import, where an attrs class would cost more than the rest of them.)
    """

    __slots__ = ("_ecma", "char", "python")

    def __init__(self, python: str, ecma: Callable[[], str], *, char: bool = False) -> None:
        self.python = python
        self._ecma = ecma
        self.char = char

    def __repr__(self) -> str:
        return f"Pattern({self.python!r})"

    def ecma(self) -> str:
        """The pattern in the portable dialect (built on first use: the character classes take a moment)."""
        return self._ecma()

    def schema(self) -> str:
        """The whole-string JSON Schema ``pattern`` (``$`` alone would also match before a final newline)."""
        return f"^{self.ecma()}$(?!\\n)"


def _same(text: str) -> Pattern:
    return Pattern(text, lambda: text)


def _pattern(part: str | Pattern) -> Pattern:
    return part if isinstance(part, Pattern) else _same(part)


def seq(*parts: str | Pattern) -> Pattern:
    """The parts one after the other; a string is regular-expression text both dialects read the same way."""
    items = [_pattern(p) for p in parts]
    return Pattern("".join(p.python for p in items), lambda: "".join(p.ecma() for p in items))


def alt(*parts: str | Pattern) -> Pattern:
    """One of the parts."""
    items = [_pattern(p) for p in parts]
    return Pattern(
        "(?:" + "|".join(p.python for p in items) + ")", lambda: "(?:" + "|".join(p.ecma() for p in items) + ")"
    )


def named(name: str, part: Pattern) -> Pattern:
    """``part`` as a group the Python check reads by ``name``; the schema needs no name."""
    return Pattern(f"(?P<{name}>{part.python})", lambda: f"(?:{part.ecma()})")


def run(*alternatives: str | Pattern, least: int = 0) -> Pattern:
    """Any number of the alternatives (at least one where ``least``), which must never overlap.

    In Python the run is possessive, and a character class among the alternatives (text in brackets) is
    taken a run at a time (``[...]++``); the schema repeats one alternative at a time.
    """
    items = [_pattern(p) for p in alternatives]
    quantifier = "+" if least else "*"
    python = "|".join(p.python + "++" if p.char or _one_class(p.python) else p.python for p in items)
    return Pattern(f"(?:{python}){quantifier}+", lambda: f"(?:{'|'.join(p.ecma() for p in items)}){quantifier}")


def _one_class(text: str) -> bool:
    """Whether ``text`` is a single character class: in brackets, with only escaped brackets inside."""
    return text[:1] == "[" and text[-1:] == "]" and text.count("[") - text.count("\\[") == 1


def non_ascii(bad: Callable[[str], bool]) -> Pattern:
    """One non-ASCII character for which ``bad`` is false; the Python check tests ``bad`` in code."""
    return Pattern(r"[^\u0000-\u007f]", lambda: f"[^\\u0000-\\u007f{bmp_class(bad)}]", char=True)


END = Pattern(r"\Z", lambda: "$(?!\\n)")

# -------------------------------------------------------------------------------- the grammars

_PCT = "%[0-9A-Fa-f]{2}"
#: A URI scheme's first character and the rest (RFC 3986); the strategies draw from the same classes.
SCHEME_FIRST, SCHEME_REST = "[A-Za-z]", r"[A-Za-z0-9+.\-]"
_SCHEME = f"{SCHEME_FIRST}{SCHEME_REST}*"

# RFC 3986: unreserved, sub-delims, ":" and "@", "/" and "?", percent-encoded octets, and "[" "]" for IP literals.
_URI_CHARS = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]"
#: An absolute URI of any scheme with a non-empty target ("//" alone or a bare fragment is none).
URI = seq(_SCHEME, ":(?!//", END, ")", run(_URI_CHARS, _PCT, least=1), "(?:#", run(_URI_CHARS, _PCT), ")?")
#: A URI but for its target: the words for what ``URI`` refuses.
URI_WITHOUT_TARGET = seq(_SCHEME, ":(?://|#", run(_URI_CHARS, _PCT), ")?")

# The parts of an http(s) URL that urllib.parse reads and can refuse.
#: A port urlsplit(url).port reads: 0 to 65535, in at most five digits.
PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
_H16 = r"[0-9A-Fa-f]{1,4}"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_LS32 = rf"(?:{_H16}:{_H16}|{_OCTET}(?:\.{_OCTET}){{3}})"
#: RFC 3986 IPv6address, the only IP literal urlsplit takes in brackets here (an IPv4 address in brackets, a
#: zone id and IPvFuture are refused).
IPV6 = "(?:" + "|".join([
    rf"(?:{_H16}:){{6}}{_LS32}",
    rf"::(?:{_H16}:){{5}}{_LS32}",
    rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"

# An http(s) URL: RFC 3986 characters plus non-ASCII letters (IRIs), a host, no userinfo.
_HTTP = "[Hh][Tt][Tt][Pp][Ss]?://"
_IRI_RUN = run(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]", _PCT, non_ascii(bad_in_identifier))
_HOST_NAME = run(r"[A-Za-z0-9\-._~!$&'()*+,;=]", _PCT, non_ascii(bad_in_host), least=1)
_URL_TAIL = seq("(?:[/?]", _IRI_RUN, ")?(?:#", _IRI_RUN, ")?")
#: An absolute http or https URL with a host (an IPv6 address in brackets, or a name) and a port up to 65535.
URL = seq(_HTTP, named("host", alt(rf"\[{IPV6}\]", _HOST_NAME)), f"(?::{PORT}?)?", _URL_TAIL)
#: The same with any bracketed host and any port: what matches it and not ``URL`` has one of those two wrong.
_ANY_BRACKETED = seq(r"\[", run("[0-9A-Fa-f:.]"), r"\]")
LOOSE_URL = seq(_HTTP, named("host", alt(_ANY_BRACKETED, _HOST_NAME)), "(?::", run("[0-9]"), ")?", _URL_TAIL)

# RFC 6838 restricted names; RFC 9110 parameters (token or quoted-string values, optional whitespace around ";").
#: A media type's restricted name (RFC 6838): its first character, the rest, and how many more at the most.
NAME_FIRST, NAME_REST, NAME_MORE = "[A-Za-z0-9]", r"[A-Za-z0-9!#$&^_.+\-]", 126
_NAME = f"{NAME_FIRST}{NAME_REST}{{0,{NAME_MORE}}}"
_TOKEN = r"[!#$%&'*+\-.^_`|~A-Za-z0-9]+"  # noqa: S105 - an RFC 9110 token, not a password
_QUOTED = r'"(?:[\t !#-\[\]-~\u0080-\u00ff]|\\[\t -~\u0080-\u00ff])*"'
#: An RFC 6838 ``type/subtype`` with optional parameters; a ``*`` subtype, but not ``*/*``.
MEDIA_TYPE = seq(_NAME, "/", alt(_NAME, r"\*"), rf"(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))*")

#: The standard base64 alphabet (RFC 4648 section 4), in the order of the values its characters stand for.
B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: The characters that may stand before "==" (their low four bits are pad bits, zero) and before "=" (two bits).
B64_ZERO_LOW_4 = "".join(c for i, c in enumerate(B64_ALPHABET) if i & 0x0F == 0)
B64_ZERO_LOW_2 = "".join(c for i, c in enumerate(B64_ALPHABET) if i & 0x03 == 0)
_B64 = "[A-Za-z0-9+/]"
#: Canonical, padded standard base64: whole quanta, then a padded one whose pad bits are zero.
BASE64 = _same(f"(?:{_B64}{{4}})*(?:{_B64}{{2}}[{B64_ZERO_LOW_2}]=|{_B64}[{B64_ZERO_LOW_4}]==)?")


def base64_chars(max_bytes: int) -> int:
    """The length of the base64 text of ``max_bytes`` bytes: the longest a binary field's text may be.

    >>> base64_chars(1), base64_chars(3), base64_chars(32 * 1024 * 1024)
    (4, 4, 44739244)
    """
    return 4 * ((max_bytes + 2) // 3)
