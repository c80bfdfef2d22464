"""The contentblocks wire format as msgspec structs: frozen, tagged on ``type`` (``kind`` for citation sources).

What a careful msgspec user would write: ``Struct(frozen=True, forbid_unknown_fields=True, omit_defaults=True)``
with a tag per class, ``Meta`` constraints for non-empty strings and patterns, ``Any`` for JSON values, native
base64 ``bytes`` (msgspec decodes and encodes them itself, strictly: padding required, standard alphabet, no
whitespace; it does accept non-zero pad bits, which the spec refuses), lists for sequences (``to_builtins`` keeps tuples as
tuples, and the wire has lists), and ``__post_init__`` for the rules that span
fields (citation spans, reasoning, roles); tool-call pairing is checked once over the decoded conversation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import orjson
from msgspec import Meta

from . import Peer
from ._common import (
    IDENTIFIER_PATTERN_RE,
    MEDIA_TYPE_PATTERN_RE,
    URI_PATTERN_RE,
    URL_PATTERN_RE,
    check_pairing,
    check_reasoning,
    check_roles,
    check_span,
)

__all__ = ["Block", "Message", "convert", "decode_json", "encode_json", "peer", "to_builtins"]

NonEmpty = Annotated[str, Meta(min_length=1, max_length=10_000_000)]
Identifier = Annotated[str, Meta(pattern=IDENTIFIER_PATTERN_RE)]
Stripped = Annotated[str, Meta(min_length=1, pattern=r"^\S(?:.*\S)?\Z")]
Metadata = dict[Annotated[str, Meta(min_length=1)], Any]


class _Struct(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, tag_field="type"):
    pass


class CitedUri(_Struct, tag_field="kind", tag="uri"):
    value: Annotated[str, Meta(max_length=8192, pattern=URI_PATTERN_RE)]


class CitedReference(_Struct, tag_field="kind", tag="reference"):
    value: Stripped


class Citation(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    source: CitedUri | CitedReference
    other_sources: list[CitedUri | CitedReference] = []
    title: Stripped | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None

    def __post_init__(self) -> None:
        check_span(self.start, self.end)


class TextBlock(_Struct, tag="text"):
    text: NonEmpty
    citations: list[Citation] = []
    metadata: Metadata = {}

    def __post_init__(self) -> None:
        if self.citations:
            length = len(self.text)
            for citation in self.citations:
                if citation.end is not None and citation.end > length:
                    raise ValueError("span ends after the text")


class RefusalBlock(_Struct, tag="refusal"):
    text: NonEmpty
    metadata: Metadata = {}


class BytesSource(_Struct, tag="base64"):
    data: bytes


class UrlSource(_Struct, tag="url"):
    url: Annotated[str, Meta(max_length=8192, pattern=URL_PATTERN_RE)]


class ReferenceSource(_Struct, tag="reference"):
    id: Stripped
    provider: Identifier | None = None


class FileBlock(_Struct, tag="file"):
    media_type: Annotated[str, Meta(max_length=1024, pattern=MEDIA_TYPE_PATTERN_RE)]
    source: BytesSource | UrlSource | ReferenceSource
    filename: Annotated[str, Meta(min_length=1, max_length=255, pattern=r"^[^/\\\x00-\x1f]+\Z")] | None = None
    metadata: Metadata = {}


class ReasoningBlock(_Struct, tag="reasoning"):
    text: NonEmpty | None = None
    signature: NonEmpty | None = None
    redacted: Annotated[bytes, Meta(min_length=1)] | None = None
    metadata: Metadata = {}

    def __post_init__(self) -> None:
        check_reasoning(self.text, self.signature, self.redacted)


class ToolCallBlock(_Struct, tag="tool_call"):
    tool_call_id: Identifier
    tool_name: Identifier
    input: Any
    metadata: Metadata = {}


class JsonBlock(_Struct, tag="json"):
    value: Any
    metadata: Metadata = {}


class SearchResultBlock(_Struct, tag="search_result", kw_only=True):
    source: CitedUri | CitedReference
    title: Stripped | None = None
    content: Annotated[list[TextBlock], Meta(min_length=1)]
    citable: bool | None = None
    metadata: Metadata = {}


class ToolResultBlock(_Struct, tag="tool_result"):
    tool_call_id: Identifier
    tool_name: Identifier
    outcome: Literal["succeeded", "failed", "denied", "interrupted"]
    content: list[TextBlock | FileBlock | JsonBlock | SearchResultBlock]
    metadata: Metadata = {}


class ServerToolCallBlock(_Struct, tag="server_tool_call"):
    tool_call_id: Identifier
    tool_name: Identifier
    input: Any
    metadata: Metadata = {}


class ServerToolResultBlock(_Struct, tag="server_tool_result"):
    tool_call_id: Identifier
    tool_name: Identifier
    outcome: Literal["succeeded", "failed", "denied", "interrupted"]
    content: list[TextBlock | FileBlock | JsonBlock | SearchResultBlock]
    metadata: Metadata = {}


class ApprovalRequestBlock(_Struct, tag="approval_request"):
    approval_id: Identifier
    tool_call_id: Identifier
    metadata: Metadata = {}


class ApprovalResponseBlock(_Struct, tag="approval_response"):
    approval_id: Identifier
    approved: bool
    reason: NonEmpty | None = None
    metadata: Metadata = {}


class CompactionBlock(_Struct, tag="compaction"):
    summary: NonEmpty | None = None
    metadata: Metadata = {}


Block = (
    TextBlock | RefusalBlock | FileBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | JsonBlock
    | SearchResultBlock | CompactionBlock | ServerToolCallBlock | ServerToolResultBlock | ApprovalRequestBlock
    | ApprovalResponseBlock
)
TAGS: dict[type, str] = {cls: cls.__struct_config__.tag for cls in Block.__args__}  # type: ignore[attr-defined]


class Message(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[list[Block], Meta(min_length=1)]
    metadata: Metadata = {}

    def __post_init__(self) -> None:
        check_roles(self.role, [TAGS[type(block)] for block in self.content])


Conversation = list[Message]
_decoder = msgspec.json.Decoder(Conversation)
_encoder = msgspec.json.Encoder()


def convert(raw: Any) -> list[Message]:
    """Wire dicts to structs (base64 strings decoded to bytes), then tool-call pairing."""
    messages = msgspec.convert(raw, Conversation)
    check_pairing(messages, ToolCallBlock, ToolResultBlock)
    return messages


def decode_json(data: bytes) -> list[Message]:
    """JSON bytes to structs, then tool-call pairing."""
    messages = _decoder.decode(data)
    check_pairing(messages, ToolCallBlock, ToolResultBlock)
    return messages


def to_builtins(messages: list[Message]) -> Any:
    """Structs to wire dicts and lists (bytes as base64 text)."""
    return msgspec.to_builtins(messages)


def encode_json(messages: list[Message]) -> bytes:
    return _encoder.encode(messages)


def peer(raw: list[dict[str, Any]]) -> Peer:
    """The corpus as it is (these structs hold the wire format) and the four calls above."""
    return Peer(name="msgspec", form=raw, text=orjson.dumps(raw), structure=convert, unstructure=to_builtins,
                loads=decode_json, dumps=encode_json)
