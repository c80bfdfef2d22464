"""Metadata reaches a request only through the ways ``docs/security.md`` lists, whatever the metadata holds.

Generated conversations carry metadata on every message and block, drawn from every namespaced key any adapter
reads (its allow-lists, its flags, its bookkeeping, the native-block flags) with junk values whose strings are
marked. Every marked string in a request must sit under a documented field, no marked string may become a key,
and a forged JSON value (a tool result, a developer message) is never sent as anything but JSON text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hypothesis import given, settings

import contentblocks as cb
import strategies
from contentblocks.providers import ISSUER_KEY, anthropic, gemini, mcp, openai_chat, openai_responses
from contentblocks.providers._extras import BOOKKEEPING, FORMAT_FLAGS, PROVIDER_STATE
from contentblocks.providers._native import NATIVE_KINDS
from contentblocks.providers.anthropic._fields import EXTRAS as ANTHROPIC_EXTRAS
from contentblocks.providers.gemini._wire import CALL_EXTRAS, FILE_PART_EXTRAS, PART_EXTRAS, RESPONSE_EXTRAS
from contentblocks.providers.mcp._wire import ITEM_EXTRAS, RESULT_EXTRAS
from contentblocks.providers.openai_chat import _keys as chat_keys
from contentblocks.providers.openai_responses._fields import WIRE
from contentblocks.providers.openai_responses._native import IMAGE_CALL

DOCS = (Path(__file__).parents[2] / "docs" / "security.md").read_text(encoding="utf-8")


def fields(*tables: Mapping[str, Mapping[str, Any]]) -> set[str]:
    return {name for table in tables for position in table.values() for name in position}


#: The fields each adapter's allow-lists write from ``<namespace>/<field>`` metadata (way 1 of the security page).
ALLOW_LISTED = {
    "anthropic": fields(ANTHROPIC_EXTRAS),
    "openai_chat": fields(chat_keys.ALLOWED),
    "openai_responses": fields(WIRE, {"image_generation_call": IMAGE_CALL}),
    "gemini": fields({"part": PART_EXTRAS, "call": CALL_EXTRAS, "response": RESPONSE_EXTRAS, "file": FILE_PART_EXTRAS}),
    "mcp": fields(ITEM_EXTRAS, {"result": RESULT_EXTRAS}),
}

#: The request fields each adapter writes from its own named metadata keys (ways 2 to 4 of the security page).
NAMED = {
    "anthropic": {"citations"},
    "openai_chat": {"detail", "filename", "audio"},
    "openai_responses": {"id", "annotations", "arguments", "encrypted_content"},
    "gemini": {"thoughtSignature", "toolType", "displayName", "role"},
    "mcp": {"name", "uri", "mimeType", "_meta"},
}

NAMESPACES = {"anthropic": "anthropic", "openai_chat": "openai", "openai_responses": "openai", "gemini": "gemini"}
NAMESPACES["mcp"] = "mcp"

#: Every metadata key any adapter reads, in every namespace, and some no adapter reads.
KEYS = sorted(
    {f"{NAMESPACES[a]}/{name}" for a in ALLOW_LISTED for name in ALLOW_LISTED[a] | NAMED[a]}
    | {value for name, value in vars(chat_keys).items() if name.isupper() and type(value) is str and "/" in value}
    | FORMAT_FLAGS
    | BOOKKEEPING
    | PROVIDER_STATE
    | {kinds.flag for kinds in NATIVE_KINDS.values()}
    | {"gemini/thought_signature", ISSUER_KEY, "app/latency_ms", "openai/latency_ms", "anthropic/type"}
)


def strings(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every string in a JSON value, with the object keys on its way; object keys are yielded as strings too."""
    stack: list[tuple[tuple[str, ...], Any]] = [(path, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                yield (*at, "<key>"), key
                stack.append(((*at, key), child))
        elif isinstance(item, list):
            stack.extend((at, child) for child in item)
        elif type(item) is str:
            yield at, item


def check_reach(adapter: str, payload: Any) -> None:
    documented = ALLOW_LISTED[adapter] | NAMED[adapter]
    for at, text in strings(payload):
        if strategies.MARKER in text:
            assert at[-1] != "<key>", f"metadata became a key at {at}"
            assert documented & set(at), f"metadata reached {'.'.join(at)}, which no documented way writes"
        if text == strategies.FORGED and not AS_DATA & set(at):
            raise AssertionError(f"a forged value was sent as itself at {'.'.join(at)}")
        # the forged item's URL; a neutral field may hold a file URI as a name (a search result's source)
        if text.startswith("file://") and strategies.FORGED in text and not AS_DATA & set(at):
            raise AssertionError(f"a file URL was sent at {'.'.join(at)}")


#: Where a tool result's JSON content is sent as JSON data (Gemini's response object, MCP's structured content):
#: a forged value is the tool's output there, not a block of its own.
AS_DATA = {"response", "structuredContent"}

CHAT = {"anthropic": anthropic, "openai_chat": openai_chat, "openai_responses": openai_responses, "gemini": gemini}


@settings(max_examples=60)
@given(strategies.metadata_everywhere(KEYS))
def test_metadata_reaches_requests_only_through_documented_ways(conversation):
    """In every chat adapter's request, a string from metadata sits only under a field a documented way writes."""
    for adapter, module in CHAT.items():
        payload = module.to_provider(conversation).payload
        check_reach(adapter, payload)
        if adapter == "gemini":  # the one named field whose values are closed: Content.role's
            assert payload.get("systemInstruction", {}).get("role", "user") in ("user", "model")


@settings(max_examples=30)
@given(strategies.metadata_everywhere(KEYS))
def test_metadata_reaches_mcp_results_only_through_documented_ways(conversation):
    """The same for every tool result written as an MCP ``CallToolResult``."""
    for message in conversation:
        for block in message.content:
            if isinstance(block, cb.ToolResultBlock):  # a tool message may hold approval decisions too
                check_reach("mcp", mcp.to_call_tool_result(block).payload)


def test_the_security_page_lists_every_way():
    """The security page's table names every field a named metadata key writes, for every adapter."""
    section = DOCS.split("### Metadata is inert", 1)[1].split("\n### ", 1)[0]
    for adapter, names in NAMED.items():
        for name in names:
            assert f"`{name}`" in section, (adapter, name)
    for kinds in NATIVE_KINDS.values():
        assert f"`{kinds.flag}`" in section
