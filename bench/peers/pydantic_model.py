"""The contentblocks wire format as pydantic v2 models: frozen, strict, unknown keys refused, tagged on ``type``.

What a careful pydantic user would write: discriminated unions on the tag, ``StringConstraints`` for non-empty
strings and patterns, ``JsonValue`` for JSON values, a strict canonical base64 type for binary, and small
validators for the rules that span fields (citation spans, reasoning, roles, tool-call pairing).
Sequences are lists, as most pydantic models have them (strict mode accepts only a tuple for a tuple field in
Python mode, and a lax tuple field copies); the models are frozen, so fields cannot be reassigned.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    PlainValidator,
    StringConstraints,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

from . import Peer
from ._common import (
    IDENTIFIER_PATTERN_RUST,
    MEDIA_TYPE_PATTERN_RUST,
    URI_PATTERN_RUST,
    URL_PATTERN_RUST,
    check_pairing,
    check_reasoning,
    check_roles,
    check_span,
    decode_base64,
    encode_base64,
)

__all__ = ["DUMP_OPTIONS", "Block", "Conversation", "Message", "adapter", "peer"]

NonEmpty = Annotated[str, StringConstraints(min_length=1, max_length=10_000_000)]
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN_RUST)]
Stripped = Annotated[str, StringConstraints(min_length=1, pattern=r"^\S(?:.*\S)?$")]
Base64Bytes = Annotated[bytes, PlainValidator(decode_base64), PlainSerializer(encode_base64, return_type=str)]
Metadata = dict[Annotated[str, StringConstraints(min_length=1)], JsonValue]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")


class CitedUri(_Model):
    kind: Literal["uri"]
    value: Annotated[str, StringConstraints(max_length=8192, pattern=URI_PATTERN_RUST)]


class CitedReference(_Model):
    kind: Literal["reference"]
    value: Stripped


class Citation(_Model):
    source: Annotated[CitedUri | CitedReference, Field(discriminator="kind")]
    other_sources: list[Annotated[CitedUri | CitedReference, Field(discriminator="kind")]] = []
    title: Stripped | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None

    @model_validator(mode="after")
    def _span(self) -> Citation:
        check_span(self.start, self.end)
        return self


class TextBlock(_Model):
    type: Literal["text"]
    text: NonEmpty
    citations: list[Citation] = []
    metadata: Metadata = {}

    @field_validator("citations")
    @classmethod
    def _within_text(cls, citations: list[Citation], info: ValidationInfo) -> list[Citation]:
        text = info.data.get("text")
        if text is not None:
            for citation in citations:
                if citation.end is not None and citation.end > len(text):
                    raise ValueError("span ends after the text")
        return citations


class RefusalBlock(_Model):
    type: Literal["refusal"]
    text: NonEmpty
    metadata: Metadata = {}


class BytesSource(_Model):
    type: Literal["base64"]
    data: Base64Bytes


class UrlSource(_Model):
    type: Literal["url"]
    url: Annotated[str, StringConstraints(max_length=8192, pattern=URL_PATTERN_RUST)]


class ReferenceSource(_Model):
    type: Literal["reference"]
    id: Stripped
    provider: Identifier | None = None


class FileBlock(_Model):
    type: Literal["file"]
    media_type: Annotated[str, StringConstraints(max_length=1024, pattern=MEDIA_TYPE_PATTERN_RUST)]
    source: Annotated[BytesSource | UrlSource | ReferenceSource, Field(discriminator="type")]
    filename: Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=r"^[^/\\\x00-\x1f]+$")] | None = None
    metadata: Metadata = {}


class ReasoningBlock(_Model):
    type: Literal["reasoning"]
    text: NonEmpty | None = None
    signature: NonEmpty | None = None
    redacted: Base64Bytes | None = None
    metadata: Metadata = {}

    @model_validator(mode="after")
    def _one_of(self) -> ReasoningBlock:
        check_reasoning(self.text, self.signature, self.redacted)
        if self.redacted == b"":
            raise ValueError("redacted reasoning holds at least one byte")
        return self


class ToolCallBlock(_Model):
    type: Literal["tool_call"]
    tool_call_id: Identifier
    tool_name: Identifier
    input: JsonValue
    metadata: Metadata = {}


class JsonBlock(_Model):
    type: Literal["json"]
    value: JsonValue
    metadata: Metadata = {}


class CompactionBlock(_Model):
    type: Literal["compaction"]
    summary: NonEmpty | None = None
    metadata: Metadata = {}


class SearchResultBlock(_Model):
    type: Literal["search_result"]
    source: Annotated[CitedUri | CitedReference, Field(discriminator="kind")]
    title: Stripped | None = None
    content: Annotated[list[TextBlock], Field(min_length=1)]
    citable: bool | None = None
    metadata: Metadata = {}


ToolResultContent = Annotated[TextBlock | FileBlock | JsonBlock | SearchResultBlock, Field(discriminator="type")]


class ToolResultBlock(_Model):
    type: Literal["tool_result"]
    tool_call_id: Identifier
    tool_name: Identifier
    outcome: Literal["succeeded", "failed", "denied", "interrupted"]
    content: list[ToolResultContent]
    metadata: Metadata = {}


class ServerToolCallBlock(_Model):
    type: Literal["server_tool_call"]
    tool_call_id: Identifier
    tool_name: Identifier
    input: JsonValue
    metadata: Metadata = {}


class ServerToolResultBlock(_Model):
    type: Literal["server_tool_result"]
    tool_call_id: Identifier
    tool_name: Identifier
    outcome: Literal["succeeded", "failed", "denied", "interrupted"]
    content: list[ToolResultContent]
    metadata: Metadata = {}


class ApprovalRequestBlock(_Model):
    type: Literal["approval_request"]
    approval_id: Identifier
    tool_call_id: Identifier
    metadata: Metadata = {}


class ApprovalResponseBlock(_Model):
    type: Literal["approval_response"]
    approval_id: Identifier
    approved: bool
    reason: NonEmpty | None = None
    metadata: Metadata = {}


Block = Annotated[
    TextBlock | RefusalBlock | FileBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | JsonBlock
    | SearchResultBlock | CompactionBlock | ServerToolCallBlock | ServerToolResultBlock | ApprovalRequestBlock
    | ApprovalResponseBlock,
    Field(discriminator="type"),
]


class Message(_Model):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[list[Block], Field(min_length=1)]
    metadata: Metadata = {}

    @model_validator(mode="after")
    def _roles(self) -> Message:
        check_roles(self.role, [block.type for block in self.content])
        return self


def _paired(messages: list[Message]) -> list[Message]:
    check_pairing(messages, ToolCallBlock, ToolResultBlock)
    return messages


Conversation = Annotated[list[Message], AfterValidator(_paired)]

adapter: TypeAdapter[Any] = TypeAdapter(Conversation)
"""Validates and dumps a conversation: ``validate_python``, ``validate_json``, ``dump_python``, ``dump_json``."""

DUMP_OPTIONS: dict[str, Any] = {"exclude_defaults": True}
"""The canonical form omits empty optionals; every tag is a required field, so it is never left out."""


def peer(raw: list[dict[str, Any]]) -> Peer:
    """The corpus as it is (these models hold the wire format) and the adapter's calls on it."""
    dump_python, dump_json = adapter.dump_python, adapter.dump_json
    return Peer(
        name="pydantic",
        form=raw,
        text=orjson.dumps(raw),
        structure=adapter.validate_python,
        unstructure=lambda conversation: dump_python(conversation, **DUMP_OPTIONS),
        loads=adapter.validate_json,
        dumps=lambda conversation: dump_json(conversation, **DUMP_OPTIONS),
    )
