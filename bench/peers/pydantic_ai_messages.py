"""The corpus as a pydantic-ai message history, timed through ``ModelMessagesTypeAdapter``.

What a careful pydantic-ai user would write: a system message is a ``ModelRequest`` of ``SystemPromptPart``\\ s;
a user message a ``ModelRequest`` holding one ``UserPromptPart`` whose content lists ``str`` (``TextContent``
where the text has metadata), ``StructuredContent`` for JSON, ``BinaryContent`` for inline bytes,
``ImageUrl``/``DocumentUrl`` for links and ``UploadedFile`` for provider references (the filename as the file's
``identifier``, block metadata as ``vendor_metadata``); an assistant message a ``ModelResponse`` of
``ThinkingPart`` (text and signature), ``TextPart`` (with pydantic-ai's citations: a URI is a
``WebCitationSource``, a reference a ``DocumentCitationSource``, the quote its excerpt, the span a
``ContentCitationAnchor``), ``ToolCallPart``, and a tool the provider ran as ``NativeToolCallPart`` and
``NativeToolReturnPart`` (the provider's own result as its content, as pydantic-ai's Anthropic model keeps it,
and the issuer as its ``provider_name``); a tool message a ``ModelRequest`` of ``ToolReturnPart``\\ s, one
per result, with its outcome, and content listing ``str`` for text, the JSON value itself, and the file items.
Redacted reasoning is a ``ThinkingPart`` with an empty text, ``id="redacted_thinking"`` and the bytes' base64 as
its signature, and a refusal is the response's ``finish_reason="content_filter"`` with the text in its
``provider_details["refusal"]``: both as pydantic-ai's own Anthropic and OpenAI models write them. Metadata goes
to the part's ``metadata`` or ``provider_details`` and the message's ``metadata``. Every timestamp is fixed,
so that the form is the same from run to run. The form is what ``ModelMessagesTypeAdapter`` dumps with its
defaults (``dump_python(mode="json")`` and ``dump_json``), which writes every field, nulls included.

What pydantic-ai cannot hold, and so is lost in the mapping: citations on a user's text and on a tool
result's text; metadata on a tool result's text and JSON parts and on a refusal (and on the text of a system
prompt the part's own ``metadata`` is used); the difference between a tool result's JSON part and a plain
mapping; the ``developer`` role (a ``SystemPromptPart``); a filename (it takes the place of pydantic-ai's
``identifier``, which is otherwise a hash of the content); an empty citation span (pydantic-ai's anchors
need ``start < end``: the citation keeps no anchor); a provider reference without a provider
(``UploadedFile`` needs one: ``openai`` is named) and Gemini's name for its provider (``google``); the place of
a refusal among the blocks (it becomes a property of the whole response); approval requests and decisions
(pydantic-ai keeps them in ``DeferredToolRequests`` and ``DeferredToolResults``, outside the history, so they are
left out, as the bridge does). The rules it does not check:
identifiers, media types, URLs and URIs, canonical base64, non-empty strings, citation spans, the role table,
tool-call pairing, JSON value limits, unknown keys.
"""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

from pydantic_ai.messages import (
    BinaryContent,
    Citation,
    CompactionPart,
    ContentCitationAnchor,
    DocumentCitationSource,
    DocumentUrl,
    ImageUrl,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    StructuredContent,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UploadedFile,
    UserPromptPart,
    WebCitationSource,
)

from . import Peer
from ._common import search_result_text

__all__ = ["history", "peer"]

NAME = "pydantic-ai"
TIMESTAMP = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
_OUTCOMES = {"succeeded": "success", "failed": "failed", "denied": "denied", "interrupted": "interrupted"}
_PROVIDERS = {"gemini": "google"}
_NO_PROVIDER = "openai"  # UploadedFile names a provider; the corpus's references without one get this


def _file(block: dict[str, Any]) -> BinaryContent | ImageUrl | DocumentUrl | UploadedFile:
    source, media_type = block["source"], block["media_type"]
    common: dict[str, Any] = {"media_type": media_type, "identifier": block.get("filename"),
                              "vendor_metadata": block.get("metadata")}
    if source["type"] == "base64":
        return BinaryContent(data=base64.b64decode(source["data"]), **common)
    if source["type"] == "url":
        url_type = ImageUrl if media_type.startswith("image/") else DocumentUrl
        return url_type(url=source["url"], **common)
    provider = source.get("provider")
    return UploadedFile(file_id=source["id"], provider_name=_PROVIDERS.get(provider, provider or _NO_PROVIDER),
                        **common)


def _citation(citation: dict[str, Any]) -> Citation:
    source, title = citation["source"], citation.get("title")
    excerpts = [citation["quote"]] if "quote" in citation else []
    cited: WebCitationSource | DocumentCitationSource
    if source["kind"] == "uri":
        cited = WebCitationSource(url=source["value"], title=title, excerpts=excerpts)
    else:
        cited = DocumentCitationSource(document_id=source["value"], title=title, excerpts=excerpts)
    start, end = citation.get("start"), citation.get("end")
    anchor = ContentCitationAnchor(start=start, end=end) if start is not None and start < end else None
    return Citation(sources=[cited], anchor=anchor)


def _user_item(block: dict[str, Any]) -> Any:
    kind = block["type"]
    if kind == "text":
        return TextContent(content=block["text"], metadata=block["metadata"]) if "metadata" in block else block["text"]
    if kind == "json":
        return StructuredContent(value=block["value"], metadata=block.get("metadata"))
    if kind == "file":
        return _file(block)
    raise ValueError(f"pydantic-ai holds no {kind} block in a user message")


def _result_item(part: dict[str, Any]) -> Any:
    kind = part["type"]
    if kind == "text":
        return part["text"]
    if kind == "json":
        return part["value"]
    if kind == "search_result":  # pydantic-ai has none: the text the bridge writes
        return search_result_text(part)
    return _file(part)


def _response(content: list[dict[str, Any]], metadata: dict[str, Any] | None) -> ModelResponse:
    parts: list[Any] = []
    refusal = None
    for block in content:
        kind, details = block["type"], block.get("metadata")
        if kind == "reasoning" and "redacted" in block:
            parts.append(ThinkingPart(content="", id="redacted_thinking", signature=block["redacted"],
                                      provider_details=details))
        elif kind == "reasoning":
            parts.append(ThinkingPart(content=block.get("text", ""), signature=block.get("signature"),
                                      provider_details=details))
        elif kind == "text":
            citations = [_citation(c) for c in block["citations"]] if "citations" in block else None
            parts.append(TextPart(content=block["text"], citations=citations, provider_details=details))
        elif kind == "tool_call":
            parts.append(ToolCallPart(tool_name=block["tool_name"], args=block["input"],
                                      tool_call_id=block["tool_call_id"], provider_details=details))
        elif kind == "refusal":
            refusal = block["text"]
        elif kind == "compaction":
            parts.append(_compaction(block))
        elif kind == "approval_request":  # outside the history in pydantic-ai (see the module)
            continue
        elif kind == "server_tool_call":
            parts.append(NativeToolCallPart(tool_name=block["tool_name"], args=block["input"],
                                            tool_call_id=block["tool_call_id"], provider_name=_issuer(block),
                                            provider_details=details))
        elif kind == "server_tool_result":
            parts.append(NativeToolReturnPart(tool_name=block["tool_name"], content=_server_content(block),
                                              tool_call_id=block["tool_call_id"], provider_name=_issuer(block),
                                              outcome=_OUTCOMES[block["outcome"]], timestamp=TIMESTAMP))
        else:
            raise ValueError(f"pydantic-ai holds no {kind} block in an assistant message")
    if refusal is None:
        return ModelResponse(parts=parts, timestamp=TIMESTAMP, metadata=metadata)
    return ModelResponse(parts=parts, timestamp=TIMESTAMP, metadata=metadata, finish_reason="content_filter",
                         provider_details={"refusal": refusal})


def _issuer(block: dict[str, Any]) -> str | None:
    return block.get("metadata", {}).get("contentblocks/issuer")


def _server_content(block: dict[str, Any]) -> Any:
    """What pydantic-ai's own models keep as a native tool's return: the provider's result, else the parts."""
    native = block.get("metadata", {}).get("anthropic/server_result")
    return native["content"] if native is not None else [_result_item(p) for p in block["content"]]


def _compaction(block: dict[str, Any]) -> CompactionPart:
    """A ``CompactionPart`` as pydantic-ai's own models write one: the summary, the provider and its state."""
    metadata = dict(block.get("metadata", {}))
    provider = metadata.pop("contentblocks/issuer", None)
    state = {key.split("/", 1)[1]: value for key, value in metadata.items() if key.startswith(f"{provider}/")}
    return CompactionPart(content=block.get("summary"), id=state.pop("id", None), provider_name=provider,
                          provider_details=state or None)


def _request(role: str, content: list[dict[str, Any]], metadata: dict[str, Any] | None) -> ModelRequest:
    parts: list[Any]
    if role in {"system", "developer"}:
        parts = [SystemPromptPart(content=b["text"], timestamp=TIMESTAMP, metadata=b.get("metadata")) for b in content]
    elif role == "user":
        parts = [UserPromptPart(content=[_user_item(b) for b in content], timestamp=TIMESTAMP)]
    else:
        parts = [ToolReturnPart(tool_name=b["tool_name"], content=[_result_item(p) for p in b["content"]],
                                tool_call_id=b["tool_call_id"], outcome=_OUTCOMES[b["outcome"]],
                                metadata=b.get("metadata"), timestamp=TIMESTAMP)
                 for b in content if b["type"] == "tool_result"]  # an approval decision is outside the history
    return ModelRequest(parts=parts, timestamp=TIMESTAMP, metadata=metadata)


def history(raw: list[dict[str, Any]]) -> list[ModelRequest | ModelResponse]:
    """The corpus's messages as pydantic-ai's requests and responses (the mapping of the module docstring)."""
    return [_response(m["content"], m.get("metadata")) if m["role"] == "assistant"
            else _request(m["role"], m["content"], m.get("metadata")) for m in raw]


def peer(raw: list[dict[str, Any]]) -> Peer:
    """pydantic-ai's form of ``raw`` and ``ModelMessagesTypeAdapter``'s calls, as a user stores a history."""
    adapter = ModelMessagesTypeAdapter
    messages = history(raw)
    dump_python, dump_json = adapter.dump_python, adapter.dump_json
    return Peer(
        name=NAME,
        form=dump_python(messages, mode="json"),
        text=dump_json(messages),
        structure=adapter.validate_python,
        unstructure=lambda m: dump_python(m, mode="json"),
        loads=adapter.validate_json,
        dumps=dump_json,
    )
