"""Typed, provider-neutral content blocks for LLM chat and tool messages.

Frozen attrs classes hold the data; cattrs hooks turn raw dicts and JSON into blocks and back, strictly.

>>> import contentblocks as cb
>>> message = cb.structure({"role": "user", "content": "What is in this picture?"}, cb.Message)
>>> cb.dumps(message)
'{"role":"user","content":[{"type":"text","text":"What is in this picture?"}]}'
"""

from __future__ import annotations

from ._api import dumps, file_from_data_url, loads, normalize, structure, unstructure
from ._checks._rules import Limits
from ._conversion._converter import configure_converter, make_converter
from ._conversion._kernels import speedups_enabled
from ._errors import ValidationError, format_exception, transform_error
from ._history import TokenEstimator, estimate_tokens, prune, repair, total_usage, window
from ._json._values import JsonArray, JsonObject, JsonValue
from ._model._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BlockRange,
    BytesSource,
    CacheBreakpoint,
    CharacterRange,
    Citation,
    CitationLocation,
    CitationSource,
    CitedReference,
    CitedUri,
    CompactionBlock,
    FileBlock,
    FileSource,
    JsonBlock,
    Message,
    Outcome,
    PageRange,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    Role,
    SearchResultBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultContent,
    UrlSource,
)
from ._model._conversation import Conversation
from ._sanitize import SanitizePolicy, UnansweredCalls, sanitize
from ._schema._document import json_schema
from ._sealing import Keyring, SealCheck, SealKey, SealStatus, seal, verify_seals
from ._transcripts._checker import Checker, CheckResult, Problem, check_conversation

__all__ = [
    "ApprovalRequestBlock",
    "ApprovalResponseBlock",
    "Block",
    "BlockRange",
    "BytesSource",
    "CacheBreakpoint",
    "CharacterRange",
    "CheckResult",
    "Checker",
    "Citation",
    "CitationLocation",
    "CitationSource",
    "CitedReference",
    "CitedUri",
    "CompactionBlock",
    "Conversation",
    "FileBlock",
    "FileSource",
    "JsonArray",
    "JsonBlock",
    "JsonObject",
    "JsonValue",
    "Keyring",
    "Limits",
    "Message",
    "Outcome",
    "PageRange",
    "Problem",
    "ReasoningBlock",
    "ReferenceSource",
    "RefusalBlock",
    "Role",
    "SanitizePolicy",
    "SealCheck",
    "SealKey",
    "SealStatus",
    "SearchResultBlock",
    "ServerToolCallBlock",
    "ServerToolResultBlock",
    "TextBlock",
    "TokenEstimator",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolResultContent",
    "UnansweredCalls",
    "UrlSource",
    "ValidationError",
    "check_conversation",
    "configure_converter",
    "dumps",
    "estimate_tokens",
    "file_from_data_url",
    "format_exception",
    "json_schema",
    "loads",
    "make_converter",
    "normalize",
    "prune",
    "repair",
    "sanitize",
    "seal",
    "speedups_enabled",
    "structure",
    "total_usage",
    "transform_error",
    "unstructure",
    "verify_seals",
    "window",
]


# The public classes are documented, shown and pickled as the facade's: ``contentblocks.TextBlock``.
for _public in [globals()[_name] for _name in __all__]:
    if isinstance(_public, type) and _public.__module__.startswith(f"{__name__}._"):
        _public.__module__ = __name__
del _public


def __getattr__(name: str) -> str:
    if name == "__version__":
        from importlib.metadata import version  # noqa: PLC0415 - only when asked

        return version("contentblocks")
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
