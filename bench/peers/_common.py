"""Rules both peers share: patterns, strict canonical base64, the role table and tool-call pairing.

Only rules a user of pydantic or msgspec would write cheaply are modelled: field types, tags, required and
optional keys, unknown keys refused, non-empty strings, identifier and media-type patterns, canonical base64,
the reasoning and citation-span rules, the role table, and tool-call pairing over a conversation.
Not modelled: lone-surrogate checks, URL and URI grammar beyond a prefix pattern, filename rules, JSON value
depth and node limits, and errors that list every problem with its path.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterable
from typing import Any

# Identifiers: 1-256 characters, no whitespace, control or common format characters.
# The character class reads the same in Python's re and in Rust's regex (pydantic-core).
_ID_CLASS = "[^\\s\\x00-\\x1f\\x7f-\\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]"
IDENTIFIER_PATTERN_RE = f"^{_ID_CLASS}{{1,256}}\\Z"  # Python re (msgspec): \Z, since $ allows a final newline
IDENTIFIER_PATTERN_RUST = f"^{_ID_CLASS}{{1,256}}$"  # Rust regex (pydantic): $ is the very end
_NAME = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+\-]{0,126}"
_TOKEN = r"[!#$%&'*+\-.^_`|~A-Za-z0-9]+"  # noqa: S105 - an RFC 9110 token, not a password
_MEDIA = rf"{_NAME}/(?:{_NAME}|\*)(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|\"[^\"]*\"))*"
MEDIA_TYPE_PATTERN_RE = f"^{_MEDIA}\\Z"
MEDIA_TYPE_PATTERN_RUST = f"^{_MEDIA}$"
URL_PATTERN_RE = r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/@]+(?:/\S*)?\Z"
URL_PATTERN_RUST = r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/@]+(?:/\S*)?$"
URI_PATTERN_RE = r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+\Z"
URI_PATTERN_RUST = r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$"

ROLE_TAGS: dict[str, frozenset[str]] = {
    "system": frozenset({"text"}),
    "developer": frozenset({"text"}),
    "user": frozenset({"text", "file", "json", "search_result", "approval_response"}),
    "assistant": frozenset({"text", "refusal", "file", "reasoning", "tool_call", "json", "compaction",
                            "server_tool_call", "server_tool_result", "approval_request"}),
    "tool": frozenset({"tool_result", "approval_response"}),
}

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def decode_base64(value: Any) -> bytes:
    """Strict, canonical, padded standard base64 (what the spec asks), or ValueError."""
    if type(value) is bytes:  # built in Python
        return value
    if type(value) is not str or len(value) % 4 or not value.isascii():
        raise ValueError("not canonical base64")
    try:
        data = binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        raise ValueError("not canonical base64") from None
    if value.endswith("=="):
        if _B64[value[-3]] & 0x0F:
            raise ValueError("not canonical base64: non-zero pad bits")
    elif value.endswith("=") and _B64[value[-2]] & 0x03:
        raise ValueError("not canonical base64: non-zero pad bits")
    return data


def encode_base64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def search_result_text(block: dict[str, Any]) -> str:
    """A search result as the text the bridges write for frameworks that have none (title, source, its text)."""
    head = f"Search result: {block['title']}\nSource: " if "title" in block else "Search result from "
    return f"{head}{block['source']['value']}\n\n" + "\n\n".join(part["text"] for part in block["content"])


def check_roles(role: str, tags: Iterable[str]) -> None:
    allowed = ROLE_TAGS[role]
    for tag in tags:
        if tag not in allowed:
            raise ValueError(f"a {role} message cannot carry {tag} blocks")


def check_span(start: int | None, end: int | None) -> None:
    if (start is None) != (end is None):
        raise ValueError("start and end come together")
    if start is not None and not 0 <= start <= end:  # type: ignore[operator]
        raise ValueError("span must satisfy 0 <= start <= end")


def check_reasoning(text: object, signature: object, redacted: object) -> None:
    if text is None and signature is None and redacted is None:
        raise ValueError("reasoning needs text, a signature or redacted bytes")
    if redacted is not None and (text is not None or signature is not None):
        raise ValueError("redacted reasoning carries neither text nor a signature")


def check_pairing(messages: Iterable[Any], call_cls: type, result_cls: type) -> None:
    """Tool call ids unique; every result answers an earlier, unanswered call with the same name."""
    calls: dict[str, str] = {}
    answered: set[str] = set()
    for message in messages:
        for block in message.content:
            kind = type(block)
            if kind is call_cls:
                if block.tool_call_id in calls:
                    raise ValueError("duplicate tool call id")
                calls[block.tool_call_id] = block.tool_name
            elif kind is result_cls:
                name = calls.get(block.tool_call_id)
                if name is None or block.tool_call_id in answered or name != block.tool_name:
                    raise ValueError("tool result answers no earlier, unanswered call of that tool")
                answered.add(block.tool_call_id)
