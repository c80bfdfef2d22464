"""Generated conversations with arbitrary metadata: OpenAI Chat payloads fit the SDK's request types exactly."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import CONTENT_LOSSES, LOSS_KINDS, LossError, openai_chat
from contentblocks.providers._media import lower_media_type
from contentblocks.providers.openai_chat._checks import RULES
from provider_checks import assert_documented, documented_reasons, examples, json_keys, stamped
from providers.request_walk import walk

sdk = pytest.importorskip("openai")

MESSAGES = list[sdk.types.chat.ChatCompletionMessageParam]
REASONS = documented_reasons("openai_chat.md")
SETTINGS = examples(40)

#: Keys in the adapter's namespace: fields the request has somewhere, the adapter's own flags, fields it has
#: nowhere (what a user or the stream accumulator stores), and another OpenAI adapter's flags.
NAMESPACE_KEYS = [
    "openai/latency_ms",
    "openai/index",
    "openai/caller",
    "openai/name",
    "openai/refusal",
    "openai/function_call",
    "openai/audio",
    "openai/prompt_cache_breakpoint",
    "openai/detail",
    "openai/filename",
    "openai/content",
    "openai/content_list",
    "openai/refusal_part",
    "openai/custom_tool",
    "openai/arguments",
    "openai/invalid_arguments",
    "openai/file_data_base64",
    "openai/annotated",
    "openai/other_annotations",
    "openai/type",
    "openai/part",
    "openai/id",
]
#: Values of the right shape for some of those fields, so the allowed path is taken too.
GOOD_VALUES = [
    None,
    True,
    "",
    [],
    "alice",
    "low",
    "original",
    "string",
    {"mode": "explicit"},
    {"mode": "explicit", "ttl": "12h"},
    {"mode": "explicit", "ttl": "1d"},
    {"id": "audio_1"},
    {"id": "audio_1", "transcript": "Hi", "data": "AA==", "expires_at": 1},
    {"name": "f", "arguments": "{}"},
    {"name": "f"},
]
EXTRAS = st.dictionaries(
    st.sampled_from(NAMESPACE_KEYS) | strategies.identifiers(),
    st.sampled_from(GOOD_VALUES) | strategies.json_values(max_depth=2, max_leaves=4),
    max_size=4,
)
FORBIDDEN = {"latency_ms", "index", "caller", "transcript", "expires_at", "parsed", "parsed_arguments"}


#: Generated conversations whose messages and blocks carry arbitrary metadata, namespace keys included.
STAMPED = stamped(strategies.conversations(max_messages=6, max_text_size=12, max_binary_size=8), EXTRAS)


@SETTINGS
@given(STAMPED, st.sampled_from(["drop", "user_message"]))
def test_the_strict_walk_refuses_nothing(conversation, files):
    """Whatever the metadata, the payload has only fields the SDK's request types declare, of their types."""
    converted = openai_chat.to_provider(conversation, tool_result_files=files)
    assert walk(converted.payload["messages"], MESSAGES) == []
    assert not json_keys(converted.payload) & FORBIDDEN
    assert_documented(REASONS, converted.losses)
    assert all(loss.kind in LOSS_KINDS for loss in converted.losses)


@SETTINGS
@given(STAMPED, st.sampled_from(["drop", "user_message"]))
def test_same_provider_replay_of_any_payload_reports_nothing(conversation, files):
    """A payload read back and sent again to Chat Completions is the same payload, with no loss of any kind."""
    payload = openai_chat.to_provider(conversation, tool_result_files=files).payload
    again = openai_chat.to_provider(openai_chat.from_provider(payload), strict=LOSS_KINDS, tool_result_files=files)
    assert again.payload == payload
    assert again.losses == ()


def _without_format_flags(block: Any) -> Any:
    """A block without the flags that only record the shape of Chat's JSON (a refusal part, a list of parts)."""
    meta = {k: v for k, v in block.metadata.items() if k not in {"openai/refusal_part", "openai/content_list"}}
    return attrs.evolve(block, metadata=meta)


@SETTINGS
@given(strategies.conversations(max_messages=6, max_text_size=12, max_binary_size=8))
def test_strict_raises_exactly_on_content_losses_and_lossless_reads_back_equal(conversation):
    """strict=True raises exactly when a content loss occurs; a conversation sent with no loss reads back equal."""
    converted = openai_chat.to_provider(conversation, tool_result_files="user_message")
    content = [loss for loss in converted.losses if loss.kind in CONTENT_LOSSES]
    with pytest.raises(LossError) if content else contextlib.nullcontext():
        openai_chat.to_provider(conversation, strict=True, tool_result_files="user_message")
    if not converted.losses:
        back = openai_chat.from_provider(converted.payload)
        assert [_without_format_flags(b) for m in back for b in m.content] == [
            attrs.evolve(b, media_type=lower_media_type(b.media_type)) if type(b) is cb.FileBlock else b
            for m in conversation
            for b in m.content
        ]  # media types are case-insensitive: Chat is sent them lower-cased, with no loss


def _resolve(conversation: cb.Conversation, path: str) -> Any:
    """The message or block a rejection's path names (``$``, ``$[i]``, ``$[i].content[j]``...)."""
    assert re.fullmatch(r"\$(\[\d+\]|\.content\[\d+\])*", path), path
    node: Any = conversation
    for attribute, index in re.findall(r"(\.content)?\[(\d+)\]", path):
        node = (node.content if attribute else node)[int(index)]
    return node


@SETTINGS
@given(STAMPED, st.sampled_from(["drop", "user_message"]))
def test_preflight_names_known_rules_at_real_places(conversation, files):
    """Every rejection over any conversation names a documented rule and a place that exists in the conversation."""
    for rejection in openai_chat.preflight(conversation, tool_result_files=files):
        assert rejection.rule in RULES
        _resolve(conversation, rejection.path)
