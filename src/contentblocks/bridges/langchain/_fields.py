"""What the LangChain bridge keeps where: its metadata keys, each message's defaults, issuers and file kinds.

A LangChain field with no neutral home is kept as ``langchain/<field>`` in the metadata of the message (or, for a
``ToolMessage``, of the tool result; for a content block, of the block) it became, when it differs from
LangChain's default; the writer gives it back to the same place. A neutral field LangChain has no field for (a
citation's reference source, a file's provider, a reasoning issuer LangChain's ``model_provider`` does not say)
goes into the block's ``extras`` under a ``contentblocks/`` key: ``extras`` is LangChain's place for data its
standard keys do not name.

>>> message_fields({"type": "ai", "content": "", "id": "run-1", "name": None, "additional_kwargs": {}})
{'langchain/id': 'run-1'}
>>> block_kind("image/png"), block_kind("application/pdf")
('image', 'file')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ...providers._toolkit import model_family

__all__ = [
    "CLASSES",
    "CONTENT_LIST",
    "DEVELOPER",
    "ISSUER_EXTRA",
    "NAMESPACE",
    "NATIVE",
    "NO_ORIGIN",
    "OUTSIDE",
    "PLAIN",
    "PROVIDER_EXTRA",
    "REFERENCE_EXTRA",
    "Origin",
    "block_kind",
    "byte_offsets",
    "issuer_of",
    "message_fields",
    "origin_of",
]

NAMESPACE = "langchain/"
#: On a JSON block: a content item with no neutral block (``server_tool_call``, ``non_standard``, a provider's own
#: format), kept verbatim and written back as it was.
NATIVE = "langchain/native_block"
#: On a text block read from a plain string item of a content list (rather than a ``text`` block).
PLAIN = "langchain/plain"
#: On a message (or tool result) whose content was a list where a string would have said the same.
CONTENT_LIST = "langchain/content_list"
#: On a tool call read from ``AIMessage.tool_calls`` (or ``invalid_tool_calls``) alone, with no block in a list
#: content: written to the list only.
OUTSIDE = "langchain/outside_content"
#: LangChain's mark of an OpenAI developer message on a ``SystemMessage`` (``convert_to_messages`` sets it).
DEVELOPER = ("__openai_role__", "developer")

ISSUER_EXTRA = "contentblocks/issuer"
PROVIDER_EXTRA = "contentblocks/provider"
REFERENCE_EXTRA = "contentblocks/reference"

#: LangChain's message classes by their ``type``, and the role each becomes.
CLASSES: Mapping[str, tuple[str, str]] = {
    "human": ("HumanMessage", "user"),
    "HumanMessageChunk": ("HumanMessageChunk", "user"),
    "system": ("SystemMessage", "system"),
    "SystemMessageChunk": ("SystemMessageChunk", "system"),
    "ai": ("AIMessage", "assistant"),
    "AIMessageChunk": ("AIMessageChunk", "assistant"),
    "tool": ("ToolMessage", "tool"),
    "ToolMessageChunk": ("ToolMessageChunk", "tool"),
}

#: Message fields read into blocks rather than kept as ``langchain/`` metadata.
_MAPPED = frozenset({"content", "tool_calls", "invalid_tool_calls", "tool_call_id", "status"})
_DEFAULTS: Mapping[str, Any] = {
    "type": None, "name": None, "id": None, "additional_kwargs": {}, "response_metadata": {}, "usage_metadata": None,
    "tool_call_chunks": [], "chunk_position": None, "artifact": None,
}
_PLAIN_TYPES = frozenset({"human", "system", "ai", "tool"})

#: LangChain's ``model_provider`` (in ``response_metadata``) and the issuer the adapters record for it.
_ISSUERS: Mapping[str, str] = {"anthropic": "anthropic", "openai": "openai", "google_genai": "gemini",
                               "google_vertexai": "gemini", "google_anthropic_vertex": "anthropic",
                               "bedrock_converse": "bedrock", "bedrock": "bedrock"}


def message_fields(dumped: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a dumped message with no neutral home and no default value, as ``langchain/`` metadata.

    A plain class's ``type`` is its default (the role says it); a chunk's is kept, so it is written back a chunk.
    """
    kept = {}
    for key, value in dumped.items():
        if key in _MAPPED:
            continue
        if key == "type":
            if value in _PLAIN_TYPES:
                continue
        elif key in _DEFAULTS and _DEFAULTS[key] == value:
            continue
        kept[NAMESPACE + key] = value
    return kept


class Origin(NamedTuple):
    """Who wrote a message, as its ``response_metadata`` says.

    ``provider`` is LangChain's ``model_provider``; ``issuer`` the one the adapters record for reasoning state
    from that provider (with the model family, where the provider ties state to it).
    """

    provider: str | None
    issuer: str | None


NO_ORIGIN = Origin(None, None)


def origin_of(response_metadata: object) -> Origin:
    """The origin a message's ``response_metadata`` names (``model_provider``, and ``model_name`` for Gemini).

    >>> origin_of({"model_provider": "google_genai", "model_name": "gemini-2.5-flash-preview-05-20"})
    Origin(provider='google_genai', issuer='gemini/gemini-2.5-flash')
    >>> origin_of({"model_provider": "anthropic", "model_name": "claude-sonnet-4-5"}), origin_of(None)
    (Origin(provider='anthropic', issuer='anthropic'), Origin(provider=None, issuer=None))
    """
    if not isinstance(response_metadata, Mapping) or not isinstance(
        provider := response_metadata.get("model_provider"), str
    ):
        return NO_ORIGIN
    issuer = issuer_of(provider)
    if issuer == "gemini" and isinstance(model := response_metadata.get("model_name"), str) and model:
        issuer = f"gemini/{model_family(model)}"  # as the Gemini adapter records it: signatures are per family
    return Origin(provider, issuer)


def issuer_of(provider: str | None) -> str | None:
    """The issuer recorded for reasoning state a LangChain ``model_provider`` returned.

    >>> issuer_of("google_genai"), issuer_of("anthropic"), issuer_of("xai"), issuer_of(None)
    ('gemini', 'anthropic', 'xai', None)
    """
    return None if provider is None else _ISSUERS.get(provider, provider)


def byte_offsets(provider: str | None) -> bool:
    """Whether LangChain's citation offsets count UTF-8 bytes in a message of ``provider``, not code points.

    LangChain documents ``start_index`` and ``end_index`` as indices into the text block's string (code points,
    as ours), and its OpenAI and Anthropic translators keep them so; its Gemini translator passes Gemini's
    grounding segments through as they are, and Gemini counts UTF-8 bytes.

    >>> byte_offsets("google_genai"), byte_offsets("openai"), byte_offsets(None)
    (True, False, False)
    """
    return provider in {"google_genai", "google_vertexai"}


def block_kind(media_type: str) -> str:
    """The LangChain block type that holds a file of ``media_type``: ``image``, ``audio``, ``video`` or ``file``."""
    top = media_type.split("/", 1)[0].lower()
    return top if top in {"image", "audio", "video"} else "file"
