"""The MCP adapter meets the ``mcp`` SDK: its CallToolResult objects, every dump form of them, and its types."""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, mcp
from contentblocks.providers._shapes import BOOL, FLOAT, INT, JSON, OBJECT, STR, ListOf, OneOf, Struct
from contentblocks.providers.mcp import _wire
from providers.test_mcp import validate

t = pytest.importorskip("mcp.types")
pydantic = pytest.importorskip("pydantic")


def sdk_result() -> Any:
    """A result built with the SDK's own types, holding every kind of content item."""
    return t.CallToolResult(
        content=[
            t.TextContent(type="text", text="21 °C in Zürich", _meta={"trace": "a1"}),
            t.ImageContent(
                type="image",
                data="iVBORw0KGgo=",
                mime_type="image/png",
                annotations=t.Annotations(audience=["user"], priority=0.5, last_modified="2025-05-03T14:30:00Z"),
            ),
            t.AudioContent(type="audio", data="UklGRiQAAABXQVZF", mime_type="audio/wav"),
            t.ResourceLink(
                type="resource_link",
                name="main.rs",
                uri="file:///src/main.rs",
                mime_type="text/x-rust",
                size=120,
                title="Main",
                icons=[t.Icon(src="https://example.com/rust.png", mime_type="image/png", sizes=["48x48"])],
            ),
            t.EmbeddedResource(
                type="resource",
                resource=t.BlobResourceContents(
                    uri="file:///logo.bin", blob="AAEC", mime_type="application/octet-stream"
                ),
            ),
            t.EmbeddedResource(
                type="resource",
                resource=t.TextResourceContents(uri="file:///notes.md", text="# Notes", _meta={"rev": 3}),
            ),
        ],
        structured_content={"temp_c": 21},
        is_error=False,
        _meta={"io.modelcontextprotocol/related-task": {"taskId": "t-1"}},
    )


def dump_forms(obj: Any) -> dict[str, Any]:
    """The object and every dict form the SDK gives of it (``meta``/``_meta``, ``is_error``/``isError``...)."""
    forms: dict[str, Any] = {"object": obj}
    for mode in ("python", "json"):
        for by_alias in (False, True):
            forms[f"model_dump_{mode}_by_alias={by_alias}"] = obj.model_dump(mode=mode, by_alias=by_alias)
    forms["model_dump_exclude_none"] = obj.model_dump(exclude_none=True)
    forms["model_dump_json_text"] = json.loads(obj.model_dump_json())
    forms["model_dump_json_text_by_alias"] = json.loads(obj.model_dump_json(by_alias=True, exclude_unset=True))
    return forms


def read(result: Any) -> cb.ToolResultBlock:
    return mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="weather")


@pytest.mark.parametrize("form", list(dump_forms(sdk_result())))
def test_every_dump_form_reads_the_same_block(form):
    """The SDK object and each of its dump forms read to one tool result block."""
    assert read(dump_forms(sdk_result())[form]) == read(sdk_result())


def test_an_sdk_result_is_read_for_what_it_is():
    """The SDK's result keeps its meta, annotations, resource fields and outcome."""
    block = read(sdk_result().model_dump())
    text, image, audio, link, blob, notes, structured = block.content
    assert text.metadata["mcp/_meta"] == {"trace": "a1"}
    assert image.metadata["mcp/annotations"] == {
        "audience": ["user"],
        "priority": 0.5,
        "lastModified": "2025-05-03T14:30:00Z",
    }
    assert (audio.media_type, link.filename, link.metadata["mcp/size"]) == ("audio/wav", "main.rs", 120)
    assert link.metadata["mcp/icons"] == [
        {"src": "https://example.com/rust.png", "mimeType": "image/png", "sizes": ["48x48"]}
    ]
    assert blob.source == cb.BytesSource(data=b"\x00\x01\x02")
    assert notes.metadata["mcp/resource"] == {"uri": "file:///notes.md", "_meta": {"rev": 3}}
    assert structured.value == {"temp_c": 21}
    assert (block.outcome, block.metadata["mcp/_meta"]) == (
        "succeeded",
        {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}},
    )


def test_an_sdk_result_goes_back_unchanged_with_no_loss():
    """The block written back reports no loss of any kind and the SDK reads it as the very same result."""
    converted = mcp.to_call_tool_result(read(sdk_result()), strict=LOSS_KINDS)
    validate(converted.payload)
    assert t.CallToolResult.model_validate(converted.payload) == sdk_result()


def test_explicit_nulls_are_absent_fields():
    """``null`` for an optional field (as ``model_dump()`` writes every unset one) reads as if it were not there."""
    nulls = {
        "content": [{"type": "text", "text": "x", "annotations": None, "_meta": None}],
        "structuredContent": None,
        "_meta": None,
    }
    assert read(nulls) == read({"content": [{"type": "text", "text": "x"}]})


def test_a_key_given_under_both_names_is_refused():
    """``_meta`` and ``meta`` (or ``isError`` and ``is_error``) in one object are one field given twice."""
    with pytest.raises(cb.ValidationError) as info:
        read({"content": [], "isError": True, "is_error": False})
    assert info.value.errors == [("$.is_error", "the field isError is given twice")]


_SCALARS = {str: STR, bool: BOOL, int: INT, float: FLOAT}


def _kind_of(annotation: Any) -> Any:
    """The table kind of a field annotation of the SDK (Optional removed; unions by their members)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType):
        if len(args) == 1:
            return _kind_of(args[0])
        if all(isinstance(a, type) and issubclass(a, pydantic.BaseModel) for a in args):
            return frozenset(json.dumps(_kind_of(a), sort_keys=True, default=sorted) for a in args)
        if all(typing.get_origin(a) is typing.Literal or a is str for a in args):
            return STR
        return _kind_of(args[0])
    if origin is list:
        return ("list", _kind_of(args[0]))
    if origin is dict:
        return OBJECT
    if origin is typing.Literal:
        return STR
    if annotation is typing.Any:
        return JSON
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return {v.alias or k: _kind_of(v.annotation) for k, v in annotation.model_fields.items()}
    return _SCALARS[annotation]


def _table_kind(kind: Any) -> Any:
    if isinstance(kind, Struct):
        return {k: _table_kind(v) for k, v in kind.fields.items()}
    if isinstance(kind, ListOf):
        return ("list", _table_kind(kind.item))
    if isinstance(kind, OneOf):
        return frozenset(json.dumps(_table_kind(m), sort_keys=True, default=sorted) for m in kind.members)
    return kind


def test_the_table_is_the_sdk_type():
    """The adapter's field table holds exactly the fields (by wire name) and kinds of the SDK's CallToolResult."""
    assert _table_kind(_wire.CALL_TOOL_RESULT) == _kind_of(t.CallToolResult)
