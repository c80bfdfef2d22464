"""The MCP tool-result adapter: golden results, the SDK's CallToolResult, losses as documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import LossError, mcp
from provider_checks import assert_documented, documented_reasons

mcp_types = pytest.importorskip("mcp.types")
pydantic = pytest.importorskip("pydantic")

ROOT = Path(__file__).resolve().parents[2]
RESULTS = json.loads((Path(__file__).parent / "fixtures" / "mcp" / "results.json").read_text(encoding="utf-8"))


def validate(payload: dict[str, Any]) -> None:
    """The payload is a valid ``mcp.types.CallToolResult``, and the SDK keeps every key of it."""
    model = mcp_types.CallToolResult.model_validate(payload)
    assert model.model_dump(by_alias=True, exclude_unset=True, mode="json") == payload


REASONS = documented_reasons("mcp.md")


@pytest.mark.parametrize("index", range(len(RESULTS)))
def test_golden_results_round_trip(index):
    """Each golden CallToolResult is valid for the SDK and reads and writes back identically, with no loss."""
    result = RESULTS[index]
    validate(result)
    block = mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="tool")
    assert mcp.to_call_tool_result(block, strict=True).payload == result


def test_golden_blocks():
    """Content items become the blocks the specification describes."""
    weather, structured, error, media = (mcp.from_call_tool_result(r, tool_call_id="c", tool_name="t") for r in RESULTS)
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
    """A result with what MCP cannot carry reports exactly the documented losses."""
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
    assert [(loss.path, loss.reason) for loss in converted.losses] == [
        ("$.content[0]", "structuredContent stands apart from content; reads back as the last part"),
        ("$.content[1].citations", "MCP content carries no citations; dropped"),
        ('$.content[1].metadata["app/k"]', "metadata has no place in the Model Context Protocol request; not sent"),
        ("$.content[2]", "only one JSON object fits structuredContent; this JSON is written as text"),
        ("$.content[3].filename", "inline MCP content has no filename; dropped"),
        ("$.content[4].source.provider", "a file id issued by 'openai' becomes a resource_link URI"),
        (
            "$.content[4].filename",
            "a resource_link needs a name; the URI's last segment is given, read back as the filename",
        ),
        ("$.outcome", "MCP has no denied outcome; written as isError, reads back as failed"),
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
        content=[
            cb.FileBlock(media_type="application/pdf", source=cb.BytesSource(data=b"%PDF")),
        ],
    )
    payload = mcp.to_call_tool_result(block, strict=True).payload
    validate(payload)
    assert payload["content"][0]["type"] == "resource"
    assert mcp.from_call_tool_result(payload, tool_call_id="c", tool_name="t") == block


def test_sdk_check_rejects_malformed():
    """The SDK validation used here rejects a malformed result (a missing field, an unknown key)."""
    with pytest.raises(pydantic.ValidationError):
        validate({"content": [{"type": "image", "data": "AAAA"}]})
    with pytest.raises(AssertionError):
        validate({"content": [], "unknownField": 1})


def test_malformed_result_raises_validation_error():
    """A malformed result raises ValidationError with a path."""
    with pytest.raises(cb.ValidationError) as info:
        mcp.from_call_tool_result(
            {"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]},
            tool_call_id="c",
            tool_name="t",
        )
    assert info.value.errors[0][0] == "$.content[0].data"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(strategies.tool_result_blocks(max_text_size=12, max_binary_size=8))
def test_generated_results_validate_and_are_stable(block):
    """Any tool result gives a valid CallToolResult, documented losses, and a payload stable over a round trip."""
    converted = mcp.to_call_tool_result(block)
    validate(converted.payload)
    assert_documented(REASONS, converted.losses)
    back = mcp.from_call_tool_result(converted.payload, tool_call_id=block.tool_call_id, tool_name=block.tool_name)
    assert mcp.to_call_tool_result(back).payload == converted.payload
    if not converted.losses:
        assert back == with_provider(block)


def with_provider(block: cb.ToolResultBlock) -> cb.ToolResultBlock:
    """The block as it reads back: a reference with no provider is read as an ``mcp`` resource."""
    content = [
        cb.FileBlock(
            media_type=b.media_type,
            source=cb.ReferenceSource(id=b.source.id, provider="mcp"),
            filename=b.filename,
            metadata=b.metadata,
        )
        if type(b) is cb.FileBlock and type(b.source) is cb.ReferenceSource and b.source.provider is None
        else b
        for b in block.content
    ]
    return cb.ToolResultBlock(
        tool_call_id=block.tool_call_id,
        tool_name=block.tool_name,
        outcome=block.outcome,
        content=content,
        metadata=block.metadata,
    )
