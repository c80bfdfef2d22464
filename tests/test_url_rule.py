"""The URL rule (``UrlSource.url``): every URL it accepts is one ``urllib.parse`` reads without raising."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks._checks._patterns import check_url
from hostile_strategies import url_candidates

REFUSED = [
    "https://a:65536/",
    "https://a:99999999/",
    "https://a:" + "0" * 5000 + "80/",
    "https://[.]/",
    "https://[1.2.3.4]/",
    "https://[::1::2]/",
    "https://[12345::]/",
    "https://[1:2:3:4:5:6:7:8:9]/",
    "https://[]/",
    "https://a\uff03b/",  # FULLWIDTH NUMBER SIGN: "#" under NFKC
    "https://\uff1a/",  # FULLWIDTH COLON
    "https://x\ufe55y/",  # SMALL COLON
]
ACCEPTED = [
    "https://a:65535/",
    "https://a:0/",
    "https://a:/",
    "https://[::1]:443/x",
    "https://[::ffff:1.2.3.4]/",
    "https://[1:2:3:4:5:6:7:8]/",
    "https://[1::]/",
    "https://b\u00fccher.example/",
]


def _url_source(url: str) -> dict[str, object]:
    return {"type": "file", "media_type": "image/png", "source": {"type": "url", "url": url}}


@pytest.mark.parametrize("url", REFUSED)
def test_urls_urllib_cannot_read_are_refused(url: str) -> None:
    """A port past 65535, a bracketed host that is not an IPv6 address, NFKC delimiters in the host: refused."""
    assert check_url(url, 10_000) is not None
    with pytest.raises(cb.ValidationError, match=r"\$\.source\.url"):
        cb.structure(_url_source(url), cb.Block)
    with pytest.raises(cb.ValidationError):
        cb.UrlSource(url=url)


@pytest.mark.parametrize("url", ACCEPTED)
def test_urls_at_the_edges_are_accepted(url: str) -> None:
    """Port 65535, an empty port, IPv6 literals (IPv4 embedded too) and IRIs pass, and urllib reads them."""
    assert cb.structure(_url_source(url), cb.Block).source.url == url
    parts = urlsplit(url)
    assert (parts.hostname, parts.port) is not None


@given(url_candidates())
def test_every_accepted_url_has_a_port_and_hostname_urllib_reads(url: str) -> None:
    """Whatever URL the rule accepts, urlsplit(url).port and .hostname do not raise."""
    if check_url(url, 10_000) is not None:
        return
    parts = urlsplit(url)
    _ = parts.port, parts.hostname
    assert cb.UrlSource(url=url).url == url


def test_the_json_schema_pattern_draws_the_same_line() -> None:
    """The JSON Schema's URL pattern, built from the same port and IPv6 grammar, refuses and accepts the same URLs."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = cb.json_schema()
    validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/Url"})
    assert [url for url in REFUSED if validator.is_valid(url)] == []
    assert [url for url in ACCEPTED if not validator.is_valid(url)] == []
