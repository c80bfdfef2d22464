"""The MCP tool-result adapter: golden results, the SDK's CallToolResult, losses and their kinds, the allow-list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import LOSS_KINDS, LossError, mcp
from contentblocks.providers._media import lower_media_type
from provider_checks import assert_documented, documented_reasons, examples, stamp

mcp_types = pytest.importorskip("mcp.types")
pydantic = pytest.importorskip("pydantic")

RESULTS = json.loads((Path(__file__).parent / "fixtures" / "mcp" / "results.json").read_text(encoding="utf-8"))
REASONS = documented_reasons("mcp.md")


def validate(payload: dict[str, Any]) -> None:
    """The payload is a valid ``mcp.types.CallToolResult`` whose every key the SDK keeps (it ignores unknown
    keys, so a key it does not have would be missing from its dump: the check refuses extra keys)."""
    model = mcp_types.CallToolResult.model_validate(payload)
    assert model.model_dump(by_alias=True, exclude_unset=True, mode="json") == payload


def read(result: Any) -> cb.ToolResultBlock:
    return mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="tool")


@pytest.mark.parametrize("index", range(len(RESULTS)))
def test_golden_results_round_trip(index):
    """Each golden CallToolResult is valid for the SDK and reads and writes back identically, with no loss."""
    result = RESULTS[index]
    validate(result)
    converted = mcp.to_call_tool_result(read(result), strict=LOSS_KINDS)
    assert converted.payload == result
    assert converted.losses == ()


def test_golden_blocks():
    """Content items become the blocks the specification describes."""
    weather, structured, error, media = (read(r) for r in RESULTS)
    assert weather.outcome == "succeeded"
    assert weather.metadata["mcp/is_error"] is False
    assert structured.content[-1] == cb.JsonBlock(
        value={"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    )
    assert error.outcome == "failed"
    image, audio, link, url_link, text_resource, blob = media.content
    assert image.source == cb.BytesSource(data=b"\x89PNG\r\n\x1a\n")
    assert image.metadata["mcp/annotations"] == {"audience": ["user"], "priority": 0.9}
    assert audio.media_type == "audio/wav"
    assert link.source == cb.ReferenceSource(id="file:///project/src/main.rs", provider="mcp")
    assert link.filename == "main.rs"
    assert url_link.source == cb.UrlSource(url="https://example.com/reports/q3.pdf")
    assert url_link.filename is None
    assert url_link.metadata["mcp/name"] == "Reports / Q3 (final)"
    assert text_resource.text.startswith("fn main()")
    assert text_resource.metadata["mcp/resource"]["uri"] == "file:///project/src/main.rs"
    assert blob.source == cb.BytesSource(data=b"\x00\x01\x02")
    assert media.metadata["mcp/_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}


def test_losses_as_documented():
    """A result with what MCP cannot carry reports exactly the documented losses, each with its kind."""
    block = cb.ToolResultBlock(
        tool_call_id="c",
        tool_name="t",
        outcome="denied",
        content=[
            cb.JsonBlock(value={"a": 1}),
            cb.TextBlock(
                text="x", citations=[cb.Citation(source=cb.CitedReference(value="doc-1"))], metadata={"app/k": 1}
            ),
            cb.JsonBlock(value=[1, 2]),
            cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), filename="a.png"),
            cb.FileBlock(media_type="application/pdf", source=cb.ReferenceSource(id="file-9", provider="openai")),
        ],
    )
    converted = mcp.to_call_tool_result(block)
    assert [(loss.path, loss.reason, loss.kind) for loss in converted.losses] == [
        ("$.content[0]", "structuredContent stands apart from content; reads back as the last part", "order_changed"),
        ("$.content[1].citations", "MCP content carries no citations; dropped", "content_dropped"),
        (
            '$.content[1].metadata["app/k"]',
            "metadata has no place in the Model Context Protocol request; not sent",
            "metadata_not_sent",
        ),
        (
            "$.content[2]",
            "only one JSON object fits structuredContent; this JSON is written as text",
            "content_degraded",
        ),
        ("$.content[3].filename", "inline MCP content has no filename; dropped", "content_dropped"),
        (
            "$.content[4].source.provider",
            "a file id issued by 'openai' becomes a resource_link URI",
            "content_degraded",
        ),
        (
            "$.content[4].filename",
            "a resource_link needs a name; the URI's last segment is given, read back as the filename",
            "content_degraded",
        ),
        ("$.outcome", "MCP has no denied outcome; written as isError, reads back as failed", "content_degraded"),
    ]
    assert_documented(REASONS, converted.losses)
    validate(converted.payload)
    assert converted.payload["isError"] is True
    assert converted.payload["structuredContent"] == {"a": 1}
    with pytest.raises(LossError):
        mcp.to_call_tool_result(block, strict=True)


def test_inline_file_of_other_type_is_a_blob_resource():
    """An inline file that is neither image nor audio is an embedded blob resource, and reads back the same."""
    block = cb.ToolResultBlock(
        tool_call_id="c",
        tool_name="t",
        outcome="succeeded",
        content=[cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF"))],
    )
    payload = mcp.to_call_tool_result(block, strict=LOSS_KINDS).payload
    validate(payload)
    assert payload["content"][0]["type"] == "resource"
    assert mcp.from_call_tool_result(payload, tool_call_id="c", tool_name="t") == block


def test_an_icon_without_its_src_is_not_sent():
    """``mcp/icons`` holding an icon without ``src`` (which the SDK requires) is reported, never sent."""
    link = cb.FileBlock(
        media_type="image/png",
        source=cb.UrlSource(url="https://example.com/a.png"),
        filename="a.png",
        metadata={"mcp/type": "resource_link", "mcp/icons": [{}]},
    )
    block = cb.ToolResultBlock(tool_call_id="c", tool_name="t", outcome="succeeded", content=[link])
    converted = mcp.to_call_tool_result(block)
    validate(converted.payload)
    assert "icons" not in converted.payload["content"][0]
    assert [loss.kind for loss in converted.losses] == ["metadata_not_sent"]


def test_structured_content_of_any_json_goes_back_as_it_came():
    """A structuredContent that is not an object (allowed from protocol 2026-07-28 on) reads and writes back."""
    result = {"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": [1, 2]}
    converted = mcp.to_call_tool_result(read(result), strict=LOSS_KINDS)
    assert converted.payload == result
    validate(converted.payload)


def test_extras_go_out_only_where_the_item_has_the_field():
    """An ``mcp/<field>`` is written only on an item whose type has that field and when its value fits."""
    block = cb.ToolResultBlock(
        tool_call_id="c",
        tool_name="t",
        outcome="succeeded",
        content=[
            cb.TextBlock(
                text="hi", metadata={"mcp/annotations": {"priority": 0.5}, "mcp/title": "T", "mcp/latency_ms": 3}
            ),
            cb.FileBlock(
                media_type="text/plain",
                source=cb.UrlSource(url="https://a.io/x.txt"),
                filename="x.txt",
                metadata={"mcp/title": "X", "mcp/size": "big", "mcp/caller": None},
            ),
        ],
        metadata={"mcp/_meta": {"k": 1}, "mcp/index": 0},
    )
    converted = mcp.to_call_tool_result(block)
    assert converted.payload == {
        "content": [
            {"type": "text", "text": "hi", "annotations": {"priority": 0.5}},
            {
                "type": "resource_link",
                "uri": "https://a.io/x.txt",
                "name": "x.txt",
                "mimeType": "text/plain",
                "title": "X",
            },
        ],
        "_meta": {"k": 1},
    }
    assert [loss.path for loss in converted.losses] == [
        '$.content[0].metadata["mcp/title"]',
        '$.content[0].metadata["mcp/latency_ms"]',
        '$.content[1].metadata["mcp/size"]',
        '$.content[1].metadata["mcp/caller"]',
        '$.metadata["mcp/index"]',
    ]
    assert {loss.kind for loss in converted.losses} == {"metadata_not_sent"}
    validate(converted.payload)


def test_sdk_check_rejects_malformed():
    """The SDK validation used here rejects a missing field and an unknown key."""
    with pytest.raises(pydantic.ValidationError):
        validate({"content": [{"type": "image", "data": "AAAA"}]})
    with pytest.raises(AssertionError):
        validate({"content": [], "unknownField": 1})


@pytest.mark.parametrize(
    ("result", "path", "message"),
    [
        ({"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}, "$.content[0].data", None),
        (
            {"content": [{"type": "text", "text": "x", "lang": "en"}]},
            "$.content[0].lang",
            "unknown key (a TextContent has: type, text, annotations, _meta)",
        ),
        (
            {"content": [{"type": "video", "data": "AA=="}]},
            "$.content[0]",
            "expected a content item of type text, image, audio, resource_link or resource",
        ),
        ({"content": [{"type": "resource_link", "uri": "file:///a"}]}, "$.content[0].name", "required field missing"),
        ({"structuredContent": {}}, "$.content", "required field missing"),
        ({"content": [], "isError": "yes"}, "$.isError", "expected a boolean"),
        (
            {"content": [], "resultType": "input_required"},
            "$.resultType",
            "a 'input_required' result is not a tool's final result; only a complete one is read",
        ),
        (
            {"content": [{"type": "resource", "resource": {"uri": "file:///a"}}]},
            "$.content[0].resource",
            "expected a TextResourceContents or BlobResourceContents",
        ),
    ],
)
def test_malformed_results_name_the_result_path(result, path, message):
    """A malformed result raises ValidationError at the result's own path, saying what is wrong."""
    with pytest.raises(cb.ValidationError) as info:
        read(result)
    ((got_path, got_message),) = info.value.errors
    assert got_path == path
    assert message is None or got_message == message


STRAYS = ("mcp/latency_ms", "mcp/index", "mcp/caller")
FIELDS = (
    "annotations",
    "_meta",
    "title",
    "description",
    "size",
    "icons",
    "resource",
    "name",
    "type",
    "mimeType",
    "is_error",
    "structured",
)
extra_metadata = st.dictionaries(
    st.one_of(st.sampled_from(STRAYS), st.sampled_from(FIELDS).map(lambda f: f"mcp/{f}")),
    st.one_of(st.none(), strategies.json_values(max_depth=2, max_leaves=4)),
    max_size=3,
)


@st.composite
def decorated_results(draw: st.DrawFn) -> cb.ToolResultBlock:
    """Generated tool results whose blocks carry arbitrary metadata, much of it in ``mcp/``."""
    block = draw(strategies.tool_result_blocks(max_text_size=12, max_binary_size=8))
    return stamp(block, draw, extra_metadata)


@examples(60)
@given(decorated_results())
def test_generated_results_validate_and_are_stable(block):
    """Any tool result, whatever its metadata, gives a valid CallToolResult, documented losses, every stray key
    reported, and a payload that reads back to itself with no loss."""
    converted = mcp.to_call_tool_result(block)
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    reported = {loss.path for loss in converted.losses if loss.kind == "metadata_not_sent"}
    strays = {f'$.metadata["{k}"]' for k in STRAYS if k in block.metadata}
    strays |= {
        f'$.content[{j}].metadata["{k}"]' for j, b in enumerate(block.content) for k in STRAYS if k in b.metadata
    }
    assert strays <= reported
    back = mcp.from_call_tool_result(converted.payload, tool_call_id=block.tool_call_id, tool_name=block.tool_name)
    assert mcp.to_call_tool_result(back, strict=LOSS_KINDS).payload == converted.payload


def with_provider(block: cb.ToolResultBlock) -> cb.ToolResultBlock:
    """The block as it reads back: a reference with no provider is read as an ``mcp`` resource, media types lower."""
    content = [
        attrs.evolve(b, source=cb.ReferenceSource(id=b.source.id, provider="mcp"))
        if type(b) is cb.FileBlock and type(b.source) is cb.ReferenceSource and b.source.provider is None
        else b
        for b in block.content
    ]
    content = [
        attrs.evolve(b, media_type=lower_media_type(b.media_type)) if type(b) is cb.FileBlock else b for b in content
    ]
    return attrs.evolve(block, content=content)


@examples(40)
@given(strategies.tool_result_blocks(max_text_size=12, max_binary_size=8))
def test_a_result_without_losses_reads_back_the_same(block):
    """A tool result written with no loss reads back as the same block (a reference gains the ``mcp`` provider)."""
    converted = mcp.to_call_tool_result(block)
    if not converted.losses:
        back = mcp.from_call_tool_result(converted.payload, tool_call_id=block.tool_call_id, tool_name=block.tool_name)
        assert back == with_provider(block)
