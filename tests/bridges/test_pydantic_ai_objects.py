"""The pydantic-ai bridge reads pydantic-ai's objects: what that reader keeps, and the file items it writes.

The reader reads each part's attributes rather than a JSON dump of the history; these tests pin that it reads
every value as pydantic-ai's JSON mode writes it, whatever a tool returned, and that the files the writer puts in
a tool return are pydantic-ai's file objects (a mapping shaped like one is a mapping to pydantic-ai).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks.bridges import pydantic_ai as bridge
from contentblocks.strategies import conversations

messages = pytest.importorskip("pydantic_ai.messages")

A = messages.ModelMessagesTypeAdapter
T = dt.datetime(2026, 1, 1, 12, 30, tzinfo=dt.UTC)


@dataclasses.dataclass
class Forecast:
    """A tool's own result type: pydantic-ai dumps it by its fields."""

    city: str
    at: dt.datetime
    raw: bytes


def _history(result: Any, args: Any = None) -> list[Any]:
    m = messages
    return [
        m.ModelRequest(parts=[m.UserPromptPart("Weather?", timestamp=T)]),
        m.ModelResponse(parts=[m.ToolCallPart("weather", args if args is not None else {"city": "Paris"}, "c1")],
                        timestamp=T),
        m.ModelRequest(parts=[m.ToolReturnPart("weather", result, "c1", timestamp=T)]),
    ]


@pytest.mark.parametrize("result", [
    {"at": T, "temps": (1.5, 2)},
    [Forecast("Paris", T, b"\x00\xff"), "text", {"n": float("nan")}],
    Forecast("Paris", T, b"\xfb\xff"),
    ("a", "b"),
    {"nested": {"when": dt.date(2026, 1, 2), "ok": True}},
], ids=["datetime-in-dict", "dataclass-in-list", "dataclass", "tuple", "date"])  # fmt: skip
def test_a_tools_own_types_read_as_their_json_form(result: Any) -> None:
    history = _history(result, args={"when": T, "city": "Paris"})
    from_objects = bridge.from_messages(history)
    assert from_objects == bridge.from_messages(json.loads(A.dump_json(history)))
    assert from_objects == bridge.from_messages(A.dump_python(history, mode="json"))


def test_plain_json_values_are_read_without_a_copy_of_their_own() -> None:
    history = _history({"temps": [1, 2.5, None], "city": "Paris"})
    read = bridge.from_messages(history)
    assert read[2].content[0].content[0].value == {"temps": [1, 2.5, None], "city": "Paris"}
    assert read[1].content[0].input == {"city": "Paris"}
    assert read[1].metadata["pydantic_ai/timestamp"] == "2026-01-01T12:30:00Z"


def test_a_tool_results_files_are_written_as_pydantic_ai_file_objects() -> None:
    files = [
        cb.FileBlock(media_type="text/csv", source=cb.ReferenceSource(id="file-1", provider="openai")),
        cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG")),
        cb.FileBlock(media_type="image/png", source=cb.UrlSource(url="https://example.com/a.png")),
    ]
    conversation = cb.Conversation(messages=[
        cb.Message(role="user", content="Files?"),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="files", input={})]),
        cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c1", tool_name="files", outcome="succeeded", content=files)]),
    ])  # fmt: skip
    history = bridge.to_messages(conversation).payload
    content = history[-1].parts[0].content
    kinds = (messages.UploadedFile, messages.BinaryContent, messages.ImageUrl)
    assert len(content) == len(kinds)
    assert all(isinstance(item, kind) for item, kind in zip(content, kinds, strict=True))
    # pydantic-ai keeps them files through its own dump and load, and so do we
    reloaded = A.validate_json(A.dump_json(history))
    assert all(isinstance(item, kind) for item, kind in zip(reloaded[-1].parts[0].content, kinds, strict=True))
    read = bridge.from_messages(history)
    assert read == bridge.from_messages(reloaded)
    assert read[2].content[0].content == tuple(files)


def test_a_mapping_shaped_like_a_file_in_a_tools_result_stays_a_mapping() -> None:
    shaped = {"kind": "uploaded-file", "file_id": "file-1", "provider_name": "openai"}
    read = bridge.from_messages(_history([shaped, "done"]))
    assert read[2].content[0].content[0] == cb.JsonBlock(value=shaped)


# --- the plain parts the writer builds as objects --------------------------------------------------------------


def _plain_history() -> cb.Conversation:
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Paris", "days": [1, 2]})
    return cb.Conversation(messages=[
        cb.Message(role="system", content="Be brief."),
        cb.Message(role="user", content="Weather in Paris?"),
        cb.Message(role="assistant", content=[cb.ReasoningBlock(text="Look it up.", signature="sig"),
                                              cb.TextBlock(text="Checking."), call]),
        cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c1", tool_name="weather", outcome="succeeded",
                                                            content=[cb.TextBlock(text="18 C")])]),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c2", tool_name="f", input=[1]),
                                              cb.ToolCallBlock(tool_call_id="c3", tool_name="g", input=None)]),
    ])  # fmt: skip


def test_plain_parts_are_the_objects_pydantic_ai_builds_from_their_json_form():
    """A part with nothing kept is built as its object, passed through by pydantic-ai's validator as it is:
    equal to the one that validator builds from the part's JSON form, timestamps and all."""
    payload = bridge.to_messages(_plain_history()).payload
    assert A.validate_python(A.dump_python(payload)) == payload
    built = [type(part).__name__ for message in payload for part in message.parts]
    assert built == ["SystemPromptPart", "UserPromptPart", "ThinkingPart", "TextPart", "ToolCallPart",
                     "ToolReturnPart", "ToolCallPart", "ToolCallPart"]  # fmt: skip
    assert [part.args for part in payload[-1].parts] == ["[1]", None]


@given(conversations())
def test_what_we_write_equals_what_pydantic_ai_validates_from_its_dump(conversation):
    payload = bridge.to_messages(conversation).payload
    assert A.validate_python(A.dump_python(payload)) == payload
