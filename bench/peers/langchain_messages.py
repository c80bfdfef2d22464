"""The corpus as langchain-core messages, timed through ``messages_from_dict`` and ``messages_to_dict``.

What a careful langchain-core user would write: ``SystemMessage``, ``HumanMessage`` and ``AIMessage`` whose
content is a list of langchain's standard content blocks (``text`` with ``citation`` annotations, ``reasoning``
with the signature in its ``extras``, ``refusal``, ``image`` and ``file`` with ``base64``, ``url`` or
``file_id`` and ``mime_type``, and ``non_standard`` for a JSON value, ``server_tool_call`` and ``server_tool_result`` for a tool the provider ran),
the assistant's tool calls in
``AIMessage.tool_calls``, and one ``ToolMessage`` per tool result (``tool_call_id``, ``name``, ``status``) whose
content lists the result's text as strings and its other parts as blocks. What has no field goes where
langchain's own provider translators put it: ``extras`` for block metadata, a citation's reference (not URL)
and a file's name and provider, the reasoning's ``extras["redacted_content"]`` for redacted reasoning, and
``additional_kwargs["metadata"]`` for a message's metadata. Load is ``messages_from_dict(json.loads(text))``
and dump ``json.dumps(messages_to_dict(messages))``, as langchain's docs store a chat history; the dict form is
what ``messages_to_dict`` returns.

What langchain-core cannot hold, and so is lost in the mapping: a tool call's metadata (``AIMessage`` keeps
only name, args, id and type of a tool call); a tool result's own metadata and the metadata of its text parts;
a JSON block's metadata and any JSON value that is not an object (``non_standard`` holds a dict); the
difference between a failed and a denied tool result (``status`` is ``success`` or ``error``); which tool
results came in one message (a message's metadata goes with its first result); the ``developer`` role (a
``SystemMessage``); approval requests and decisions (langchain's human-in-the-loop keeps them in a graph's
interrupts and the ``Command`` that resumes it, not in messages, so they are left out, as the bridge does). Content blocks are typed dicts, which langchain does not check: the load checks the
message fields' types and nothing inside the content, so none of the wire format's rules is checked.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

from . import Peer
from ._common import search_result_text

__all__ = ["messages", "peer"]

NAME = "langchain-core"
_STATUS = {"succeeded": "success", "failed": "error", "denied": "error"}


def _with_extras(block: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    extras = {k: v for k, v in extras.items() if v is not None}
    return {**block, "extras": extras} if extras else block


def _citation(citation: dict[str, Any]) -> dict[str, Any]:
    source = citation["source"]
    out: dict[str, Any] = {"type": "citation"}
    if source["kind"] == "uri":
        out["url"] = source["value"]
    renames = {"title": "title", "quote": "cited_text", "start": "start_index", "end": "end_index"}
    out.update({theirs: citation[ours] for ours, theirs in renames.items() if ours in citation})
    return _with_extras(out, {"document_id": source["value"]} if source["kind"] == "reference" else {})


def _file(block: dict[str, Any]) -> dict[str, Any]:
    source, media_type = block["source"], block["media_type"]
    out: dict[str, Any] = {"type": "image" if media_type.startswith("image/") else "file", "mime_type": media_type}
    extras = {"filename": block.get("filename"), "metadata": block.get("metadata")}
    if source["type"] == "base64":
        out["base64"] = source["data"]
    elif source["type"] == "url":
        out["url"] = source["url"]
    else:
        out["file_id"] = source["id"]
        extras["provider"] = source.get("provider")
    return _with_extras(out, extras)


def _block(block: dict[str, Any]) -> dict[str, Any]:
    kind, metadata = block["type"], {"metadata": block.get("metadata")}
    if kind == "text":
        out: dict[str, Any] = {"type": "text", "text": block["text"]}
        if "citations" in block:
            out["annotations"] = [_citation(c) for c in block["citations"]]
        return _with_extras(out, metadata)
    if kind == "reasoning":
        out = {"type": "reasoning", "reasoning": block["text"]} if "text" in block else {"type": "reasoning"}
        return _with_extras(out, {"signature": block.get("signature"), "redacted_content": block.get("redacted"),
                                  **metadata})
    if kind == "refusal":
        return _with_extras({"type": "refusal", "refusal": block["text"]}, metadata)
    if kind == "file":
        return _file(block)
    if kind == "compaction":  # langchain has no compaction block: a provider's own block is non_standard
        return {"type": "non_standard", "value": block}
    if kind == "server_tool_call":
        return _with_extras({"type": "server_tool_call", "id": block["tool_call_id"], "name": block["tool_name"],
                             "args": block["input"]}, metadata)
    if kind == "server_tool_result":
        status = "success" if block["outcome"] == "succeeded" else "error"
        return _with_extras({"type": "server_tool_result", "tool_call_id": block["tool_call_id"], "status": status,
                             "output": [_result_part(p) for p in block["content"]]}, metadata)
    return {"type": "non_standard", "value": block["value"]}


def _result_part(part: dict[str, Any]) -> str | dict[str, Any]:
    if part["type"] == "search_result":  # LangChain has none: the text the bridge writes
        return search_result_text(part)
    return part["text"] if part["type"] == "text" else _block(part)


def _messages(message: dict[str, Any]) -> list[BaseMessage]:
    role, content = message["role"], message["content"]
    kwargs = {"additional_kwargs": {"metadata": message["metadata"]}} if "metadata" in message else {}
    if role == "tool":
        results = [result for result in content if result["type"] == "tool_result"]  # no approval decisions
        return [ToolMessage(content=[_result_part(p) for p in result["content"]], tool_call_id=result["tool_call_id"],
                            name=result["tool_name"], status=_STATUS[result["outcome"]], **(kwargs if i == 0 else {}))
                for i, result in enumerate(results)]
    if role == "assistant":
        calls = [{"type": "tool_call", "name": b["tool_name"], "args": b["input"], "id": b["tool_call_id"]}
                 for b in content if b["type"] == "tool_call"]
        blocks = [_block(b) for b in content if b["type"] not in ("tool_call", "approval_request")]
        return [AIMessage(content=blocks, tool_calls=calls, **kwargs)]
    message_type = HumanMessage if role == "user" else SystemMessage
    return [message_type(content=[_block(b) for b in content], **kwargs)]


def messages(raw: list[dict[str, Any]]) -> list[BaseMessage]:
    """The corpus's messages as langchain-core messages (the mapping of the module docstring)."""
    return [out for message in raw for out in _messages(message)]


def peer(raw: list[dict[str, Any]]) -> Peer:
    """langchain-core's form of ``raw`` and the calls its docs store a chat history with."""
    loads, dumps = json.loads, json.dumps
    form = messages_to_dict(messages(raw))
    return Peer(
        name=NAME,
        form=form,
        text=dumps(form),
        structure=messages_from_dict,
        unstructure=messages_to_dict,
        loads=lambda text: messages_from_dict(loads(text)),
        dumps=lambda history: dumps(messages_to_dict(history)),
    )
