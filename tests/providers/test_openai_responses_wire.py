"""Responses requests hold only what the request types declare; metadata goes out only through the allow-list."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, openai_responses
from contentblocks.providers.openai_responses import _native
from provider_checks import assert_documented, documented_reasons, examples, json_keys, stamped
from providers.test_openai_responses import check_request

typing_extensions = pytest.importorskip("typing_extensions")
responses = pytest.importorskip("openai.types.responses")

REASONS = documented_reasons("openai_responses.md")
SETTINGS = examples(40)

#: Keys in the adapter's namespace with any value: fields the request has nowhere (what a user, a stream
#: accumulator or an old version of this adapter stored), the adapter's own flags, which must survive junk, and
#: the allow-listed fields, whose junk values must stay local.
JUNK_KEYS = [
    "openai/status",
    "openai/phase",
    "openai/prompt_cache_breakpoint",
    "openai/logprobs",
    "openai/encrypted_content",
    "openai/id",
    "openai/name",
    "openai/namespace",
    "openai/caller",
    "openai/async",
    "openai/latency_ms",
    "openai/index",
    "openai/item_id",
    "openai/response_id",
    "openai/model",
    "openai/output",
    "openai/usage",
    "openai/part",
    "openai/annotations",
    "openai/detail",
    "openai/file_data",
    "openai/type",
    "openai/content",
    "openai/text",
    "openai/reasoning_part",
    "openai/output_list",
    "openai/arguments",
    "openai/invalid_arguments",
    "openai/filename",
    "app/trace_id",
    "k",
]
#: Words that are no field of any Responses request item: they never appear as a key in a payload.
NEVER_KEYS = {"latency_ms", "item_id", "response_id", "model", "usage", "trace_id"}


@st.composite
def _extra(draw: st.DrawFn) -> dict[str, Any]:
    extra = draw(
        st.dictionaries(st.sampled_from(JUNK_KEYS), strategies.json_values(max_depth=2, max_leaves=4), max_size=3)
    )
    if draw(st.booleans()):
        extra["openai/caller"] = None  # what model_dump() writes for an unset caller
    return extra


def _item_ids(block: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Some reasoning made OpenAI's (an item id, the issuer), some text and refusals given an output message id."""
    if isinstance(block, cb.ReasoningBlock):
        ids = st.sampled_from(["rs_1", "rs_2"]).map(lambda item: {"openai/id": item, ISSUER_KEY: "openai"})
    elif isinstance(block, cb.TextBlock | cb.RefusalBlock):
        ids = st.sampled_from(["msg_1", "msg_2"]).map(lambda item: {"openai/id": item})
    else:
        return st.just({})
    return st.just({}) | ids


#: Conversations with namespaced metadata everywhere, and some blocks made parts of OpenAI items.
DECORATED = stamped(strategies.conversations(max_messages=5, max_text_size=12, max_binary_size=8), _extra(), _item_ids)


@SETTINGS
@given(DECORATED)
def test_generated_payloads_fit_the_request(conversation):
    """Any conversation with any metadata gives a payload the request types declare, key by key, and documented losses."""
    converted = openai_responses.to_provider(conversation)
    check_request(converted.payload)
    assert_documented(REASONS, converted.losses)
    assert not json_keys(converted.payload) & NEVER_KEYS
    for loss in converted.losses:
        assert ("metadata[" in loss.path) == (loss.kind == "metadata_not_sent"), loss


@SETTINGS
@given(strategies.conversations(max_messages=5, max_text_size=12, max_binary_size=8))
def test_payload_read_back_is_sent_without_loss(conversation):
    """A payload read with from_provider goes back to the Responses API unchanged and with no loss of any kind."""
    payload = openai_responses.to_provider(conversation).payload
    again = openai_responses.to_provider(openai_responses.from_provider(payload), strict=LOSS_KINDS)
    assert again.payload == payload


#: One metadata field per position where the request type has it, with a value of the right shape.
ALLOWED = [
    (
        "user list",
        cb.Message(role="user", content=[cb.TextBlock(text="a")], metadata={"openai/status": "completed"}),
        ("status",),
    ),
    (
        "user string",
        cb.Message(role="user", content="a", metadata={"openai/content": "string", "openai/phase": "commentary"}),
        ("phase",),
    ),
    (
        "input_text",
        cb.Message(
            role="user",
            content=[cb.TextBlock(text="a", metadata={"openai/prompt_cache_breakpoint": {"mode": "explicit"}})],
        ),
        ("content", 0, "prompt_cache_breakpoint"),
    ),
    (
        "input_image",
        cb.Message(
            role="user",
            content=[
                cb.FileBlock(
                    media_type="image/*", source=cb.UrlSource(url="https://a.io/x"), metadata={"openai/detail": "high"}
                )
            ],
        ),
        ("content", 0, "detail"),
    ),
    (
        "input_file",
        cb.Message(
            role="user",
            content=[
                cb.FileBlock(
                    media_type="application/octet-stream",
                    source=cb.ReferenceSource(id="file-1"),
                    metadata={"openai/detail": "low"},
                )
            ],
        ),
        ("content", 0, "detail"),
    ),
    (
        "output message",
        cb.Message(
            role="assistant",
            content=[cb.TextBlock(text="a", metadata={"openai/id": "msg_1", "openai/phase": "final_answer"})],
        ),
        ("phase",),
    ),
    (
        "output_text",
        cb.Message(
            role="assistant", content=[cb.TextBlock(text="a", metadata={"openai/id": "msg_1", "openai/logprobs": []})]
        ),
        ("content", 0, "logprobs"),
    ),
    (
        "easy assistant",
        cb.Message(role="assistant", content=[cb.TextBlock(text="a", metadata={"openai/phase": "commentary"})]),
        ("phase",),
    ),
    (
        "reasoning",
        cb.Message(
            role="assistant",
            content=[
                cb.ReasoningBlock(
                    signature="gAAA", metadata={"openai/id": "rs_1", ISSUER_KEY: "openai", "openai/status": "completed"}
                )
            ],
        ),
        ("status",),
    ),
    (
        "function_call",
        cb.Message(
            role="assistant",
            content=[
                cb.ToolCallBlock(
                    tool_call_id="c",
                    tool_name="f",
                    input={},
                    metadata={
                        "openai/id": "fc_1",
                        "openai/namespace": "ns",
                        "openai/caller": {"type": "direct"},
                        "openai/async": True,
                        "openai/status": "completed",
                    },
                )
            ],
        ),
        ("caller",),
    ),
]


@pytest.mark.parametrize(("name", "message", "where"), ALLOWED, ids=[a[0] for a in ALLOWED])
def test_allowed_fields_go_back(name, message, where):
    """A field the request type has at a position is written back from its metadata, with no loss reported."""
    converted = openai_responses.to_provider(cb.Conversation(messages=[message]), strict=LOSS_KINDS)
    check_request(converted.payload)
    value: Any = converted.payload["input"][0]
    for step in where:
        value = value[step]
    assert value is not None


def test_tool_output_fields_go_back():
    """A function_call_output takes its id, status, name, namespace and caller back; its image part its detail."""
    image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"x"), metadata={"openai/detail": "low"})
    meta = {
        "openai/id": "fco_1",
        "openai/status": "completed",
        "openai/name": "f",
        "openai/namespace": "ns",
        "openai/caller": None,
    }
    result = cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="succeeded", content=[image], metadata=meta)
    call = cb.ToolCallBlock(tool_call_id="c", tool_name="f", input={})
    conversation = cb.Conversation(
        messages=[cb.Message(role="assistant", content=[call]), cb.Message(role="tool", content=[result])]
    )
    item = openai_responses.to_provider(conversation, strict=LOSS_KINDS).payload["input"][1]
    assert {k: item[k] for k in ("id", "status", "name", "namespace", "caller")} == {k[7:]: v for k, v in meta.items()}
    assert item["output"][0]["detail"] == "low"


def test_fields_elsewhere_stay_local():
    """A field of another position, or a value its field does not take, is reported and not sent."""
    text = cb.TextBlock(text="a", metadata={"openai/namespace": "ns", "openai/caller": None, "openai/index": 0})
    image = cb.FileBlock(
        media_type="image/*", source=cb.UrlSource(url="https://a.io/x"), metadata={"openai/detail": "huge"}
    )
    message = cb.Message(role="user", content=[text, image], metadata={"openai/phase": 3, "openai/status": "completed"})
    converted = openai_responses.to_provider(cb.Conversation(messages=[message]))
    check_request(converted.payload)
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[0].content[0].metadata["openai/namespace"]', "metadata_not_sent"),
        ('$[0].content[0].metadata["openai/caller"]', "metadata_not_sent"),
        ('$[0].content[0].metadata["openai/index"]', "metadata_not_sent"),
        ('$[0].content[1].metadata["openai/detail"]', "metadata_not_sent"),
        ('$[0].metadata["openai/phase"]', "metadata_not_sent"),
    ]
    assert converted.payload["input"][0]["content"][1]["detail"] == "auto"


def _unwrap(tp: Any) -> tuple[Any, bool | None]:
    required = None
    wrappers = {
        typing.Required: True,
        typing_extensions.Required: True,
        typing.NotRequired: False,
        typing_extensions.NotRequired: False,
    }
    while get_origin(tp) in wrappers or get_origin(tp) is typing.Annotated:
        required = wrappers.get(get_origin(tp), required)
        tp = get_args(tp)[0]
    return tp, required


def _members(tp: Any) -> list[Any]:
    tp, _ = _unwrap(tp)
    if get_origin(tp) in (typing.Union, types.UnionType):
        return [m for a in get_args(tp) for m in _members(a)]
    origin = get_origin(tp)
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence) or "SequenceNotStr" in str(origin):
        return [m for a in get_args(tp) for m in _members(a)]
    return [tp]


def _tables() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """KEEP_NULL and OPAQUE, read from the SDK's request types: required-and-nullable members, free-form members."""
    keep: dict[str, set[str]] = {}
    opaque: dict[str, set[str]] = {}

    def visit(td: Any, kind: str, where: str, seen: frozenset[Any]) -> None:
        for key, hint in get_type_hints(td, include_extras=True).items():
            inner, required = _unwrap(hint)
            member = f"{where}.{key}" if where else key
            members = _members(inner)
            if (td.__total__ if required is None else required) and type(None) in members:
                keep.setdefault(kind, set()).add(member)
            for m in members:
                args = get_args(m) if get_origin(m) in (dict, collections.abc.Mapping) else ()
                if m is object or (args and args[1] is object):
                    opaque.setdefault(kind, set()).add(member)
                elif isinstance(m, type) and issubclass(m, dict) and hasattr(m, "__total__") and m not in seen:
                    visit(m, kind, member, seen | {m})

    for item in get_args(responses.ResponseInputItemParam):
        tag = get_type_hints(item).get("type")
        kind = get_args(_unwrap(tag)[0])[0] if tag is not None else item.__name__
        visit(item, kind, "", frozenset({item}))
    return keep, opaque


def test_null_tables_are_the_request_types():
    """Which nulls an item keeps, and which members are copied as they are, is what the SDK's request types say."""
    keep, opaque = _tables()
    assert {k: set(v) for k, v in _native.KEEP_NULL.items()} == keep
    assert {k: set(v) for k, v in _native.OPAQUE.items()} == opaque


def test_deep_items_do_not_exhaust_recursion():
    """A kept item nested deeper than the interpreter's recursion limit is read (and refused) without RecursionError."""
    deep: Any = "leaf"
    for _ in range(5000):
        deep = {"x": deep}
    with pytest.raises(cb.ValidationError):
        openai_responses.from_provider({"input": [{"type": "web_search_call", "id": "ws_1", "action": deep}]})


def test_cyclic_items_are_refused():
    """A kept item built in Python with a cycle is refused with ValidationError, not walked forever."""
    action: dict[str, Any] = {"type": "search"}
    action["self"] = action
    with pytest.raises(cb.ValidationError):
        openai_responses.from_provider({"input": [{"type": "web_search_call", "id": "ws_1", "action": action}]})
