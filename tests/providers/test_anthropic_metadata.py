"""Metadata reaches an Anthropic request only through the allow-list, with the shape the request type gives it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import anthropic
from contentblocks.providers._contract import ISSUER_KEY
from contentblocks.providers._extras import FORMAT_FLAGS
from contentblocks.providers._toolkit import key_path
from contentblocks.providers.anthropic._write import write_conversation
from provider_checks import assert_documented, examples, stamped
from providers.test_anthropic import REASONS, request_problems

#: Keys in the adapter's namespace (fields it may write, fields it must not, its own flags) and others'.
#: ``anthropic/native_block`` is left out: it is not a field but the promise that a JSON block's value is an
#: Anthropic block, sent verbatim (see ``test_a_native_block_flag_sends_only_a_block``).
KEYS = st.sampled_from(
    [
        "anthropic/latency_ms",
        "anthropic/index",
        "anthropic/caller",
        "anthropic/cache_control",
        "anthropic/title",
        "anthropic/context",
        "anthropic/citations",
        "anthropic/toolset_name",
        "anthropic/transformations",
        "anthropic/is_error",
        "anthropic/signature",
        "anthropic/text",
        "anthropic/type",
        "anthropic/input",
        "anthropic/role",
        "anthropic/string_content",
        "anthropic/same_message",
        "anthropic/in_messages",
        "app/trace_id",
        "openai/index",
    ]
)
#: Arbitrary JSON, and the values the allow-listed fields take (so that some are sent).
VALUES = st.one_of(
    strategies.json_values(max_depth=2, max_leaves=4),
    st.sampled_from(
        [
            {"type": "ephemeral"},
            {"type": "ephemeral", "ttl": "1h"},
            {"type": "ephemeral", "ttl": "2d"},
            {"type": "direct"},
            {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
            {"enabled": True},
            {"oversized_image": "downsize"},
            "a title",
            None,
            True,
            False,
        ]
    ),
)
EXTRA = st.dictionaries(KEYS, VALUES, max_size=3)
#: Keys never sent and never reported: every adapter's format flags (a drawn key may be another provider's,
#: such as ``mcp/type``: Hypothesis also draws the string constants of the code under test) and the issuer.
FLAGS = FORMAT_FLAGS | {ISSUER_KEY}


#: A generated conversation whose messages, blocks and tool result parts carry drawn metadata too.
WITH_METADATA = stamped(strategies.conversations(max_messages=4), EXTRA)


def natives(conversation: cb.Conversation, payload: dict[str, Any], origins: list[list[str]]) -> dict[str, Any]:
    """The native block each top-level neutral block became, by its path (system text blocks included)."""
    found = {
        at: block
        for message, paths in zip(payload["messages"], origins, strict=True)
        for block, at in zip(message["content"] if isinstance(message["content"], list) else [None], paths, strict=True)
    }
    system = payload.get("system")
    if isinstance(system, list):
        paths = [
            f"$[{i}].content[{j}]"
            for i, m in enumerate(conversation)
            # a developer message always goes to ``system``; only a system message flagged in_messages stays in place
            if m.role == "developer" or (m.role == "system" and m.metadata.get("anthropic/in_messages") is not True)
            for j, _ in enumerate(m.content)
        ]
        found.update(zip(paths, system, strict=True))
    return found


def _another_providers_flag(role: str, *, block: bool) -> cb.Conversation:
    """A one-message conversation whose text block (or message) carries MCP's ``mcp/type`` flag."""
    flag = {"mcp/type": None}
    text = cb.TextBlock(text="0", metadata=flag if block else {})
    return cb.Conversation(messages=[cb.Message(role=role, content=[text], metadata={} if block else flag)])


@examples(30)
@given(WITH_METADATA)
@example(_another_providers_flag("system", block=True))
@example(_another_providers_flag("user", block=False))
def test_metadata_is_sent_only_where_the_request_type_has_it(conversation):
    """Over any metadata, the payload fits the request type, and each entry is sent as its field or reported."""
    written = write_conversation(conversation, "anthropic")
    assert request_problems(written.payload) == []
    assert_documented(REASONS, written.losses.losses)
    # an entry sent changed (a cache_control over the limit, or raised to the lifetime of a later one) is reported
    reported = {loss.path for loss in written.losses.losses if loss.kind in {"metadata_not_sent", "hint_not_sent"}}
    dropped = {loss.path for loss in written.losses.losses
               if loss.kind in {"content_dropped", "state_not_replayed", "approval_not_sent"}}
    found = natives(conversation, written.payload, written.origins)
    for i, message in enumerate(conversation):
        for key in message.metadata:  # no message-level field takes metadata
            assert key in FLAGS or key_path(f"$[{i}]", key) in reported, key
        for j, block in enumerate(message.content):
            at = f"$[{i}].content[{j}]"
            native = found.get(at) or {}
            for key, value in block.metadata.items():
                name = key.removeprefix("anthropic/")
                if key == "anthropic/citations":  # sent in the request form of each citation, or reported with them
                    sent = "citations" in native or any(p.startswith(f"{at}.citations[") for p in dropped)
                else:
                    sent = key != name and native.get(name) == value
                # a dropped block is reported once, its metadata with it
                covered = at in dropped or key_path(at, key) in reported
                # a cache_control entry the block's cache field stands for is reported with the field when changed
                covered = covered or (key == "anthropic/cache_control" and f"{at}.cache" in reported)
                assert key in FLAGS or sent or covered, (at, key)


def test_stored_bookkeeping_is_not_sent():
    """``latency_ms``, ``index`` and a ``caller: null`` kept from an old dump stay local and are each reported."""
    call = cb.ToolCallBlock(
        tool_call_id="toolu_1",
        tool_name="get_weather",
        input={"city": "Paris"},
        metadata={"anthropic/latency_ms": 120, "anthropic/index": 0, "anthropic/caller": None},
    )
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[call])]))
    assert converted.payload["messages"][0]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    ]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[0].metadata["anthropic/caller"]', "metadata_not_sent"),
        ('$[0].content[0].metadata["anthropic/latency_ms"]', "metadata_not_sent"),
        ('$[0].content[0].metadata["anthropic/index"]', "metadata_not_sent"),
    ]
    assert converted.losses[0].reason == "not a valid Anthropic caller for a tool_use; not sent"


@pytest.mark.parametrize(
    ("block", "key", "value", "sent"),
    [
        (cb.TextBlock(text="x"), "cache_control", {"type": "ephemeral", "ttl": "5m"}, True),
        (cb.TextBlock(text="x"), "cache_control", {"type": "ephemeral", "ttl": "1d"}, False),
        (cb.TextBlock(text="x"), "cache_control", {"type": "ephemeral", "scope": "org"}, False),
        (cb.TextBlock(text="x"), "title", "Doc", False),
        (cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF")), "title", "Doc", True),
        (cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF")), "title", 7, False),
        (
            cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF")),
            "citations",
            {"enabled": True},
            True,
        ),
        (
            cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"PNG")),
            "transformations",
            {"oversized_image": "error"},
            True,
        ),
        (cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"PNG")), "context", "why", False),
        (cb.ToolCallBlock(tool_call_id="t", tool_name="f", input={}), "toolset_name", "files", True),
        (
            cb.ToolCallBlock(tool_call_id="t", tool_name="f", input={}),
            "caller",
            {"type": "code_execution_20260120", "tool_id": "srvtoolu_2"},
            True,
        ),
        (cb.ToolCallBlock(tool_call_id="t", tool_name="f", input={}), "caller", {"type": "direct", "x": 1}, False),
        (
            cb.ReasoningBlock(signature="sig", metadata={"contentblocks/issuer": "anthropic"}),
            "cache_control",
            {"type": "ephemeral"},
            False,
        ),
    ],
)
def test_allow_listed_fields_are_sent_only_with_their_shape(block, key, value, sent):
    """A field is written from metadata only at a position that has it, and only with a value of its shape."""
    block = attrs.evolve(block, metadata={**block.metadata, f"anthropic/{key}": value})
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[block])]))
    native = converted.payload["messages"][0]["content"][0]
    assert (native.get(key) == value) is sent
    assert [loss.kind for loss in converted.losses] == ([] if sent else ["metadata_not_sent"])
    assert request_problems(converted.payload) == []


def test_a_native_block_flag_sends_only_a_block():
    """The native flag sends a JSON block's value verbatim only when it is a block; otherwise it is JSON text."""
    native = cb.JsonBlock(
        value={"type": "container_upload", "file_id": "file_1"}, metadata={"anthropic/native_block": True}
    )
    not_a_block = cb.JsonBlock(value=[1, 2], metadata={"anthropic/native_block": True})
    converted = anthropic.to_provider(
        cb.Conversation(messages=[cb.Message(role="user", content=[native, not_a_block])])
    )
    assert converted.payload["messages"][0]["content"] == [
        {"type": "container_upload", "file_id": "file_1"},
        {"type": "text", "text": "[1,2]"},
    ]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [("$[0].content[1]", "content_degraded")]


def test_stored_citations_of_the_wrong_shape_are_not_sent():
    """Native citations that no longer fit the request type are not sent: the neutral citations are reported."""
    citation = cb.Citation(source=cb.CitedReference(value="document:0"), quote="Green.")
    stored = [
        {
            "type": "char_location",
            "cited_text": "Green.",
            "document_index": 0,
            "start_char_index": "0",
            "end_char_index": 6,
            "document_title": None,
        }
    ]
    text = cb.TextBlock(text="Green.", citations=[citation], metadata={"anthropic/citations": stored})
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[text])]))
    assert converted.payload["messages"][0]["content"] == [{"type": "text", "text": "Green."}]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0].citations[0]", "content_dropped")
    ]
    alone = cb.TextBlock(text="Green.", metadata={"anthropic/citations": 5})
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[alone])]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[0].metadata["anthropic/citations"]', "metadata_not_sent")
    ]


def test_a_cache_field_in_place_of_cache_control_metadata_is_reported():
    """The ``cache`` field wins over an ``anthropic/cache_control`` entry; a different entry is reported, not lost."""
    other = {"type": "ephemeral", "ttl": "1h"}
    text = cb.TextBlock(text="x", cache=cb.CacheBreakpoint(), metadata={"anthropic/cache_control": other})
    written = write_conversation(cb.Conversation(messages=[cb.Message(role="user", content=[text])]), "anthropic")
    assert written.payload["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert [(loss.path, loss.kind) for loss in written.losses.losses] == [
        (key_path("$[0].content[0]", "anthropic/cache_control"), "metadata_not_sent")
    ]
    assert_documented(REASONS, written.losses.losses)
    same = attrs.evolve(text, metadata={"anthropic/cache_control": {"type": "ephemeral"}})
    written = write_conversation(cb.Conversation(messages=[cb.Message(role="user", content=[same])]), "anthropic")
    assert not written.losses.losses
