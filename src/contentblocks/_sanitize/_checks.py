"""The checks of what a file source names: a URL's scheme and literal host, a reference's id, inline size.

Hosts are judged on the URL's text alone: nothing is resolved. A name that resolves to a private address
passes (DNS is the caller's business: an egress proxy that checks the resolved address, and pins it for the
connection, is the defence); these checks only refuse what the text itself says is internal.

>>> from contentblocks._sanitize._checks import host_refusal
>>> host_refusal("[::1]", private_hosts=False)
'the host is a loopback address'
>>> host_refusal("0x7f.1", private_hosts=False)
'the host is a number that is not a plain dotted IPv4 address (read as an address by some clients)'
>>> host_refusal("example.com", private_hosts=False) is None
True
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from .._model._classes import BytesSource, FileSource, ReferenceSource, UrlSource
from ._policy import SanitizePolicy

__all__ = ["METADATA_ADDRESSES", "METADATA_NAMES", "host_refusal", "source_refusal"]

#: Cloud instance metadata services by address: AWS, Azure, GCP, OCI and others (IPv4), AWS over IPv6,
#: Alibaba Cloud.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
#: Cloud instance metadata services by name.
METADATA_NAMES = frozenset({"metadata.google.internal", "metadata", "metadata.goog", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.internal"})
#: Names that are local by definition (RFC 6761, RFC 6762, ICANN's .internal, RFC 8375).
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "local", "internal", "home.arpa"})
# A last label that the WHATWG URL parser reads as a number: the whole host is then read as an IPv4 address.
_NUMERIC_LABEL = re.compile(r"(?:[0-9]+|0[xX][0-9a-fA-F]*)")


def _address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address, *, private_hosts: bool) -> str | None:
    if address in METADATA_ADDRESSES:
        return "the host is a cloud metadata endpoint"
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
        if embedded is not None:
            return _address_refusal(embedded, private_hosts=private_hosts)
    if address.is_unspecified:
        return "the host is the unspecified address"
    if private_hosts:
        return None
    for test, what in (("is_loopback", "a loopback"), ("is_link_local", "a link-local"),
                       ("is_private", "a private"), ("is_multicast", "a multicast"), ("is_reserved", "a reserved")):
        if getattr(address, test):
            return f"the host is {what} address"
    if not address.is_global:
        return "the host is not a global address"
    return None


def host_refusal(host: str, *, private_hosts: bool) -> str | None:
    """Why a URL's literal host (as written, brackets kept for IPv6) is refused, or None if it is not."""
    host = host.lower()
    if host.startswith("["):
        try:
            address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return "the host is not a plain IPv6 address"
        return _address_refusal(address, private_hosts=private_hosts)
    name = host.removesuffix(".")
    labels = name.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        try:
            address = ipaddress.IPv4Address(name)
        except ValueError:
            return "the host is a number that is not a plain dotted IPv4 address (read as an address by some clients)"
        return _address_refusal(address, private_hosts=private_hosts)
    if name in METADATA_NAMES:
        return "the host is a cloud metadata endpoint"
    if not private_hosts and (name in _LOCAL_NAMES or name.endswith(_LOCAL_SUFFIXES)):
        return "the host is a local name"
    return None


def _netloc_host(netloc: str) -> str:
    """The host of a netloc with no userinfo (the URL rule refuses userinfo): brackets kept, port cut."""
    if netloc.startswith("["):
        return netloc[: netloc.find("]") + 1]
    return netloc.partition(":")[0]


def source_refusal(source: FileSource, policy: SanitizePolicy) -> str | None:
    """Why a file source is refused under ``policy`` (a reason a server log can show), or None if it is kept."""
    if isinstance(source, UrlSource):
        parts = urlsplit(source.url)
        scheme = parts.scheme.lower()
        if scheme not in policy.url_schemes:
            return f"the URL scheme {scheme!r} is not allowed"
        host = _netloc_host(parts.netloc)
        if host.lower().rstrip(".") in policy.allowed_hosts:
            return None
        return host_refusal(host, private_hosts=policy.private_hosts)
    if isinstance(source, ReferenceSource):
        if source.id in policy.reference_ids:
            return None
        return "a provider-hosted file reference whose id is not in the policy's allow-list"
    if isinstance(source, BytesSource) and len(source.data) > policy.max_inline_bytes:
        return f"an inline file of {len(source.data)} bytes, over the policy's {policy.max_inline_bytes}"
    return None
