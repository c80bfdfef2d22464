"""The grammars of ``_grammar`` in both dialects, and the string checks of ``_patterns`` built on them.

The URI and URL patterns use possessive runs in Python so that they match in one pass; these tests check that
they accept exactly the strings that the plain patterns (written one character at a time) accept, that the
Python and the schema (ECMA) emission of every grammar accept the same strings, and that a long hostile
string is refused in linear time. The surrogate check, which asks the UTF-8 encoder, is held to a regular
expression's scan.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contentblocks._checks import _grammar, _patterns

_URI_CHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]|%[0-9A-Fa-f]{2})"
PLAIN_URI = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*:(?P<rest>{_URI_CHARS}*(?:#{_URI_CHARS}*)?)")
_IRI_CHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])"
_HOST = rf"(?:\[{_grammar.IPV6}\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{{2}}|[^\x00-\x7f])+)"
PLAIN_URL = re.compile(
    rf"[Hh][Tt][Tt][Pp][Ss]?://{_HOST}(?::{_grammar.PORT}?)?(?:[/?]{_IRI_CHAR}*)?(?:#{_IRI_CHAR}*)?")

PIECES = st.sampled_from(
    ["a", "Z", "0", "9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@", "/",
     "?", "#", "[", "]", "%", "%2F", "%zz", "%4", "f", "F", " ", "\t", "\x00", "\x7f", "\xe9", "\u00a0", "\u2028",
     "\U0001f600", "<", '"', "\\", "^", "`", "{", "|", "}", "http://", "https://", "HTTP://", "//", "::", "1:", "x+y:"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=14).map("".join)
PREFIXES = st.sampled_from(["", "https://", "http://h", "https://[::1]", "https://[1.2.3.4]", "https://h:65535",
                            "https://h:65536", "mailto:", "urn:isbn:", "a:", "h:", "1a:"])


@given(PREFIXES, TEXTS)
def test_uri_pattern_is_the_plain_grammar(prefix, text):
    """The URI pattern accepts exactly the plain grammar's URIs whose target is neither empty, "//" nor a fragment."""
    value = prefix + text
    plain = PLAIN_URI.fullmatch(value)
    with_target = plain is not None and plain.group("rest") not in {"", "//"} and plain.group("rest")[0] != "#"
    assert with_target == (_patterns._URI.fullmatch(value) is not None)
    without_target = plain is not None and not with_target
    assert without_target == (re.fullmatch(_grammar.URI_WITHOUT_TARGET.python, value) is not None)


@given(PREFIXES, TEXTS)
def test_url_pattern_is_the_plain_grammar(prefix, text):
    """The URL pattern, possessive in Python, accepts exactly what the plain URL grammar accepts."""
    value = prefix + text
    assert (PLAIN_URL.fullmatch(value) is None) == (_patterns._URL.fullmatch(value) is None)


def test_long_hostile_strings_are_refused_in_linear_time():
    """A long string that fails at its end is refused at once: no pattern backtracks over it."""
    for value in ("a:" + "%2" * 20_000 + "#", "https://h/" + "a" * 40_000 + " ", "https://" + "é" * 40_000 + "#%"):
        started = time.perf_counter()
        assert _patterns._URI.fullmatch(value) is None or _patterns._URL.fullmatch(value) is None
        assert time.perf_counter() - started < 0.5


SURROGATE = re.compile("[\ud800-\udfff]")


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())))
def test_find_surrogate_is_the_scan(text):
    """The encoder-based surrogate check finds exactly what a regular expression's scan finds."""
    assert _patterns.find_surrogate(text) is (SURROGATE.search(text) is not None)


class _Lying(str):
    __slots__ = ()

    def encode(self, *_args, **_kwargs):  # type: ignore[override]
        return b""


@pytest.mark.parametrize(
    "size", [_patterns._ENCODE_CHECK_MAX - 1, _patterns._ENCODE_CHECK_MAX, _patterns._ENCODE_CHECK_MAX + 1]
)
@pytest.mark.parametrize(
    ("tail", "found"), [("\ud800", True), ("a\udfff", True), ("\U0001f600", False), ("\ue000", False)]
)
def test_find_surrogate_on_both_sides_of_the_encoder_bound(size, tail, found):
    """Strings the encoder checks and longer ones the scan checks; a subclass's own encode() is never asked."""
    text = "\xe9" * (size - 1) + tail
    assert _patterns.find_surrogate(text) is found
    assert _patterns.find_surrogate(_Lying(text)) is found


# ------------------------------------------------------------------------- one grammar, two emissions

#: Each grammar, and whether it holds non-ASCII characters whose category the Python check tests in code.
GRAMMARS = {
    "URI": (_grammar.URI, False),
    "URI_WITHOUT_TARGET": (_grammar.URI_WITHOUT_TARGET, False),
    "URL": (_grammar.URL, True),
    "LOOSE_URL": (_grammar.LOOSE_URL, True),
    "MEDIA_TYPE": (_grammar.MEDIA_TYPE, False),
    "BASE64": (_grammar.BASE64, False),
}
# Pieces of media types and base64 beside those of URIs; non-ASCII ones good and bad, none an NFKC delimiter.
DIALECT_PIECES = st.one_of(
    PIECES,
    st.sampled_from(["text/plain", "image/*", "*/*", "; q=1", ';a="b\\"c"', "\t", "AQ==", "AR==", "AQI=", "QUJD",
                     "\x80", "\xff", "\u200b", "\u3000", "\ufeff", "\u00ad", "\u0600", "\U000e0001"]),
)  # fmt: skip
DIALECT_TEXTS = st.lists(DIALECT_PIECES, max_size=14).map("".join)


def python_accepts(pattern: _grammar.Pattern, checks_non_ascii: bool, value: str) -> bool:
    """What the Python emission accepts, with the category test its checks add for non-ASCII characters.

    The test is asked of Basic Multilingual Plane characters only: the schema cannot name a character outside
    it in a pattern both dialects read, and ``docs/schema.md`` lists that gap ("Format characters outside the
    Basic Multilingual Plane"), which ``test_the_schema_gap_is_only_outside_the_bmp`` pins.
    """
    if re.fullmatch(pattern.python, value) is None:
        return False
    return not (
        checks_non_ascii and any(_grammar.bad_in_identifier(ch) for ch in value if "\x7f" < ch <= "\uffff")
    )


@pytest.mark.parametrize("name", list(GRAMMARS))
@given(prefix=PREFIXES, text=DIALECT_TEXTS)
def test_both_emissions_of_a_grammar_accept_the_same_strings(name, prefix, text):
    """The Python pattern (with its category test) and the schema's pattern accept exactly the same strings."""
    pattern, checks_non_ascii = GRAMMARS[name]
    value = prefix + text
    assert python_accepts(pattern, checks_non_ascii, value) == (re.search(pattern.schema(), value) is not None)


def test_the_schema_gap_is_only_outside_the_bmp():
    """A URL with a tag character passes the schema and not the check: the one documented difference."""
    url = "https://example.com/\U000e0001"
    assert re.search(_grammar.URL.schema(), url) is not None
    assert _patterns.check_url(url, 2048) is not None
    assert re.search(_grammar.URL.schema(), "https://example.com/\u200b") is None


@pytest.mark.parametrize("bad", [_grammar.bad_in_identifier, _grammar.bad_in_host], ids=lambda f: f.__name__)
def test_a_non_ascii_class_is_its_predicate_on_the_bmp(bad):
    """The schema's class for "a non-ASCII character that is not bad" holds exactly the BMP characters it says."""
    schema = re.compile(_grammar.non_ascii(bad).ecma())
    python = re.compile(_grammar.non_ascii(bad).python)
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        assert (schema.fullmatch(ch) is not None) is (not ch.isascii() and not bad(ch)), f"U+{code:04X}"
        assert (python.fullmatch(ch) is not None) is (not ch.isascii()), f"U+{code:04X}"


def test_the_ascii_identifier_class_is_the_identifier_predicate():
    """The fast ASCII identifier check takes exactly the ASCII characters the identifier predicate allows."""
    allowed = {chr(c) for c in range(0x80) if not _grammar.bad_in_identifier(chr(c))}
    assert allowed == {chr(c) for c in range(0x21, 0x7F)}  # the printable characters but the space
    assert {chr(c) for c in range(0x80) if _patterns.ascii_identifier(chr(c))} == allowed


def test_the_base64_pad_characters_are_those_with_zero_pad_bits():
    """Before "==" four bits are padding and before "=" two: the characters allowed there have them zero."""
    assert _grammar.B64_ZERO_LOW_4 == "AQgw"
    assert _grammar.B64_ZERO_LOW_2 == "AEIMQUYcgkosw048"


@pytest.mark.parametrize("run_text", [r"[ab]{2}", r"[a][b]", "(?:[a])"])
def test_a_run_makes_only_a_lone_class_possessive(run_text):
    """Only an alternative that is one character class is taken a run at a time; anything else stays as written."""
    assert _grammar.run(run_text).python == f"(?:{run_text})*+"
    assert _grammar.run("[a-z]", least=1).python == "(?:[a-z]++)++"
