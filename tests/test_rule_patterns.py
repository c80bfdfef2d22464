"""The string checks of ``_patterns`` against plain versions of the same rule.

The URI and URL patterns use possessive runs so that they match in one pass; these tests check that they
accept exactly the strings that the plain patterns (written one character at a time) accept, and that a
long hostile string is refused in linear time. The surrogate check, which asks the UTF-8 encoder, is held to
a regular expression's scan.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contentblocks import _patterns

_URI_CHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]|%[0-9A-Fa-f]{2})"
PLAIN_URI = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*:(?P<rest>{_URI_CHARS}*(?:#{_URI_CHARS}*)?)")
_IRI_CHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])"
_HOST = rf"(?:\[{_patterns.IPV6}\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{{2}}|[^\x00-\x7f])+)"
PLAIN_URL = re.compile(
    rf"[Hh][Tt][Tt][Pp][Ss]?://{_HOST}(?::{_patterns.PORT}?)?(?:[/?]{_IRI_CHAR}*)?(?:#{_IRI_CHAR}*)?")

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
    value = prefix + text
    plain = PLAIN_URI.fullmatch(value)
    fast = _patterns._URI.fullmatch(value)
    assert (plain is None) == (fast is None)
    if plain is not None:
        assert fast.group("rest") == plain.group("rest")


@given(PREFIXES, TEXTS)
def test_url_pattern_is_the_plain_grammar(prefix, text):
    value = prefix + text
    assert (PLAIN_URL.fullmatch(value) is None) == (_patterns._URL.fullmatch(value) is None)


def test_long_hostile_strings_are_refused_in_linear_time():
    for value in ("a:" + "%2" * 20_000 + "#", "https://h/" + "a" * 40_000 + " ", "https://" + "é" * 40_000 + "#%"):
        started = time.perf_counter()
        assert _patterns._URI.fullmatch(value) is None or _patterns._URL.fullmatch(value) is None
        assert time.perf_counter() - started < 0.5


SURROGATE = re.compile("[\ud800-\udfff]")


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())))
def test_find_surrogate_is_the_scan(text):
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
