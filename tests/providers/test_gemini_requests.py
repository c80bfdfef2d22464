"""Gemini requests hold only what Gemini's request types have: metadata goes out through the allow-list only."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import LOSS_KINDS, gemini
from contentblocks.providers.gemini._wire import CALL_EXTRAS, FILE_PART_EXTRAS, PART_EXTRAS, RESPONSE_EXTRAS
from provider_checks import assert_documented, documented_reasons, examples, stamped
from providers.test_gemini import validate

pytest.importorskip("google.genai.types")

REASONS = documented_reasons("gemini.md")
#: Keys in the adapter's namespace that name no request field: what a user or another tool may have stored.
STRAYS = ("gemini/latency_ms", "gemini/index", "gemini/caller")
FIELDS = sorted(
    {*PART_EXTRAS, *CALL_EXTRAS, *RESPONSE_EXTRAS, *FILE_PART_EXTRAS}
    | {"thought_signature", "part", "role", "displayName", "text", "same_content", "generated_id", "output", "response"}
)
#: Values that fit their field, so the allow-list lets them through.
FITTING = {
    "gemini/videoMetadata": {"fps": 1.5, "startOffset": "1s"},
    "gemini/thought": False,
    "gemini/partMetadata": {"source": "notes.txt"},
    "gemini/willContinue": True,
    "gemini/scheduling": "SILENT",
    "gemini/mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"},
    "gemini/part": "executableCode",
}
namespaced = st.dictionaries(
    st.one_of(st.sampled_from(STRAYS), st.sampled_from(FIELDS).map(lambda f: f"gemini/{f}")),
    st.one_of(st.none(), strategies.json_values(max_depth=2, max_leaves=4)),
    max_size=3,
)
extra_metadata = st.one_of(
    namespaced,
    st.dictionaries(st.sampled_from(sorted(FITTING)), st.just(None)).map(lambda d: {k: FITTING[k] for k in d}),
    st.just({"gemini/latency_ms": 812, "gemini/index": 0, "gemini/caller": None}),
)


#: Generated conversations whose messages and blocks carry arbitrary metadata, much of it in ``gemini/``.
DECORATED = stamped(strategies.conversations(max_messages=5, max_text_size=12, max_binary_size=8), extra_metadata)


def stray_paths(conversation: cb.Conversation) -> set[str]:
    """Where the conversation holds a stray ``gemini/`` key: each must be reported, for none can be sent."""
    found = set()

    def visit(path: str, metadata: Any) -> None:
        found.update(f'{path}.metadata["{key}"]' for key in STRAYS if key in metadata)

    for i, message in enumerate(conversation):
        visit(f"$[{i}]", message.metadata)
        for j, block in enumerate(message.content):
            visit(f"$[{i}].content[{j}]", block.metadata)
            for k, inner in enumerate(getattr(block, "content", ())):
                visit(f"$[{i}].content[{j}].content[{k}]", inner.metadata)
    return found


@pytest.mark.filterwarnings("ignore:.* is not a valid:UserWarning")  # the SDK takes enum values it does not know
@examples(60)
@given(DECORATED)
def test_the_strict_walk_refuses_nothing_whatever_the_metadata(conversation):
    """With any metadata, the payload holds only fields of Gemini's request types, and every stray key is reported."""
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    reported = {loss.path for loss in converted.losses if loss.kind == "metadata_not_sent"}
    # a dropped block is reported once, its metadata with it
    dropped = tuple(f"{loss.path}." for loss in converted.losses if loss.kind in ("content_dropped", "approval_not_sent"))
    assert {path for path in stray_paths(conversation) if not path.startswith(dropped)} <= reported


def test_fitting_extras_go_out_and_others_stay_local():
    """An allowed field with a value that fits is written; a wrong value or a stray key is reported, not sent."""
    call = cb.ToolCallBlock(
        tool_call_id="c1",
        tool_name="f",
        input={},
        metadata={
            "gemini/willContinue": True,
            "gemini/videoMetadata": {"fps": 2.0},
            "gemini/partMetadata": "not an object",
            "gemini/latency_ms": 40,
            "gemini/caller": None,
        },
    )
    conversation = cb.Conversation(
        messages=[cb.Message(role="user", content="go"), cb.Message(role="assistant", content=[call])]
    )
    converted = gemini.to_provider(conversation)
    assert converted.payload["contents"][1]["parts"] == [
        {"functionCall": {"id": "c1", "name": "f", "args": {}, "willContinue": True}, "videoMetadata": {"fps": 2.0}}
    ]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[1].content[0].metadata["gemini/partMetadata"]', "metadata_not_sent"),
        ('$[1].content[0].metadata["gemini/latency_ms"]', "metadata_not_sent"),
        ('$[1].content[0].metadata["gemini/caller"]', "metadata_not_sent"),
    ]
    validate(converted.payload)


def test_flags_with_wrong_values_do_not_break_the_request():
    """A format flag holding a value the adapter never writes is not obeyed: the request stays valid."""
    blocks = [
        cb.JsonBlock(value={"a": 1}, metadata={"gemini/part": "latency_ms"}),
        cb.TextBlock(
            text="x",
            metadata={
                "gemini/thought": "yes",
                "gemini/thought_signature": "not base64!",
                "contentblocks/issuer": "gemini",
            },
        ),
        cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89"), metadata={"gemini/displayName": 7}),
    ]
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=blocks)])
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    assert converted.payload["contents"][0]["parts"] == [
        {"text": '{"a":1}'},
        {"text": "x"},
        {"inlineData": {"mimeType": "image/png", "data": "iQ=="}},
    ]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0]", "content_degraded"),
        ('$[0].content[1].metadata["gemini/thought_signature"]', "state_not_replayed"),
        ('$[0].content[1].metadata["gemini/thought"]', "metadata_not_sent"),
        ('$[0].content[2].metadata["gemini/displayName"]', "metadata_not_sent"),
    ]
    with pytest.raises(cb.providers.LossError):
        gemini.to_provider(conversation, strict=LOSS_KINDS)
