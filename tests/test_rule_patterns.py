"""The URI and URL patterns against plain, backtracking versions of the same grammar.

The patterns in ``_rules`` use possessive runs so that they match in one pass; these tests check that they
accept exactly the strings that the plain patterns (written one character at a time) accept, and that a
long hostile string is refused in linear time.
"""

from __future__ import annotations

import re
import time

from hypothesis import given
from hypothesis import strategies as st

from contentblocks import _patterns

_URI_CHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?\[\]]|%[0-9A-Fa-f]{2})"
PLAIN_URI = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*:(?P<rest>{_URI_CHARS}*(?:#{_URI_CHARS}*)?)")
_IRI_CHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])"
_HOST = r"(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])+)"
PLAIN_URL = re.compile(rf"[Hh][Tt][Tt][Pp][Ss]?://{_HOST}(?::[0-9]*)?(?:[/?]{_IRI_CHAR}*)?(?:#{_IRI_CHAR}*)?")

PIECES = st.sampled_from(
    ["a", "Z", "0", "9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@", "/",
     "?", "#", "[", "]", "%", "%2F", "%zz", "%4", "f", "F", " ", "\t", "\x00", "\x7f", "\xe9", "\u00a0", "\u2028",
     "\U0001f600", "<", '"', "\\", "^", "`", "{", "|", "}", "http://", "https://", "HTTP://", "//", "::", "1:", "x+y:"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=14).map("".join)
PREFIXES = st.sampled_from(["", "https://", "http://h", "https://[::1]", "mailto:", "urn:isbn:", "a:", "h:", "1a:"])


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
