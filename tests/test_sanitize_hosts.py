"""The sanitizer's file-source checks: URL schemes and literal hosts, references, with no DNS."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks._sanitize import host_refusal, source_refusal
from hostile_strategies import url_candidates

BROWSER = cb.SanitizePolicy.browser_client()

REFUSED = [
    "http://example.com/a.png",  # not https
    "https://127.0.0.1/a.png",
    "https://localhost:8080/admin",
    "https://api.localhost/",
    "https://10.0.0.5/",
    "https://192.168.1.1/",
    "https://172.16.0.1/",
    "https://100.64.0.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://169.254.1.1/",
    "https://0.0.0.0/",
    "https://[::]/",
    "https://[::1]/",
    "https://[fe80::1]/",
    "https://[fd00:ec2::254]/latest/meta-data/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://METADATA.GOOGLE.INTERNAL./",
    "https://printer.local/",
    "https://2130706433/",  # 127.0.0.1 as one number
    "https://0x7f.1/",
    "https://0177.0.0.1/",
    "https://127.1/",
    "https://1.2.3.4.5/",
    "https://224.0.0.1/",
]
KEPT = ["https://example.com/a.png", "https://93.184.215.14/a", "https://[2606:4700::1111]/", "https://Example.COM./x",
        "https://cdn.example/0x7f"]


@pytest.mark.parametrize("url", REFUSED)
def test_internal_and_disguised_hosts_are_refused(url: str) -> None:
    """Loopback, private, link-local, unspecified, metadata, local names and numeric disguises are refused."""
    assert source_refusal(cb.UrlSource(url=url), BROWSER) is not None


@pytest.mark.parametrize("url", KEPT)
def test_public_hosts_are_kept(url: str) -> None:
    """A public name or global IP literal over https is kept."""
    assert source_refusal(cb.UrlSource(url=url), BROWSER) is None


def test_allowed_hosts_and_private_hosts_open_what_the_policy_names() -> None:
    """allowed_hosts opens named hosts; private_hosts opens private ranges but never a metadata endpoint."""
    policy = cb.SanitizePolicy.internal_service(allowed_hosts=["files.internal", "10.0.0.5"], url_schemes=["https", "http"])
    assert source_refusal(cb.UrlSource(url="http://files.internal/a"), policy) is None
    assert source_refusal(cb.UrlSource(url="https://10.0.0.5/a"), policy) is None
    assert source_refusal(cb.UrlSource(url="https://10.0.0.6/a"), policy) is not None
    private = cb.SanitizePolicy.internal_service(private_hosts=True)
    assert source_refusal(cb.UrlSource(url="https://10.0.0.6/a"), private) is None
    assert source_refusal(cb.UrlSource(url="https://localhost/a"), private) is None
    assert "metadata" in (source_refusal(cb.UrlSource(url="https://169.254.169.254/"), private) or "")
    assert "metadata" in (source_refusal(cb.UrlSource(url="https://metadata.google.internal/"), private) or "")


def test_references_are_kept_only_when_allow_listed() -> None:
    """A provider-hosted reference is refused unless its exact id is in reference_ids."""
    source = cb.ReferenceSource(id="file-abc", provider="openai")
    assert source_refusal(source, BROWSER) is not None
    assert source_refusal(source, BROWSER.browser_client(reference_ids={"file-abc"})) is None
    assert source_refusal(cb.ReferenceSource(id="file-abcd"), BROWSER.browser_client(reference_ids={"file-abc"}))


@settings(max_examples=200, deadline=None)
@given(st.ip_addresses())
def test_an_ip_literal_is_kept_only_when_it_is_global(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    """Every IP literal that ipaddress does not call global (or is multicast) is refused; no global one is."""
    host = f"[{address}]" if address.version == 6 else str(address)
    refused = host_refusal(host, private_hosts=False) is not None
    embedded = getattr(address, "ipv4_mapped", None) or getattr(address, "sixtofour", None)
    if embedded is None and getattr(address, "teredo", None):
        embedded = address.teredo[1]  # type: ignore[union-attr]
    judged = embedded or address
    assert refused == (not judged.is_global or judged.is_multicast or judged.is_reserved or judged.is_private)


@settings(max_examples=200, deadline=None)
@given(url_candidates())
def test_hostile_url_candidates_never_raise(url: str) -> None:
    """Every URL the URL rule accepts gets a verdict, never an exception."""
    try:
        source = cb.UrlSource(url=url)
    except cb.ValidationError:
        return
    verdict = source_refusal(source, BROWSER)
    assert verdict is None or isinstance(verdict, str)
