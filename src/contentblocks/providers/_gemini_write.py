"""Writing neutral messages as Gemini ``systemInstruction`` and ``contents``, reporting every loss."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._blocks import (
    Block,
    BytesSource,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from .._json import thaw
from .._messages import Message
from ._toolkit import json_text, report_metadata
from ._toolkit import b64encode
from ._contract import ISSUER_KEY, LossRecorder, issuer_matches
from ._gemini_read import NS, PART_EXTRAS, SIG, _response

TARGET = "Gemini"
FLAGS = {
    f"{NS}/{k}"
    for k in (
        "same_content",
        "role",
        "generated_id",
        "response",
        "output",
        "part",
        "text",
        "thought",
        "displayName",
        "thought_signature",
        *PART_EXTRAS,
    )
}


def _citations(rec: LossRecorder, where: str, block: TextBlock) -> None:
    if block.citations:
        rec.add(f"{where}.citations", "a Gemini request carries no citations (they exist only in responses); dropped")


def _extras(part: dict[str, Any], meta: Any) -> None:
    for key in PART_EXTRAS:
        if f"{NS}/{key}" in meta:
            part[key] = thaw(meta[f"{NS}/{key}"])


def _signature(part: dict[str, Any], block: Block, where: str, rec: LossRecorder, target: str) -> None:
    sig = block.metadata.get(SIG)
    if sig is None:
        return
    issuer = block.metadata.get(ISSUER_KEY)
    if issuer_matches(issuer, target):
        part["thoughtSignature"] = sig
    else:
        rec.add(
            f'{where}.metadata["{SIG}"]', f"a thought signature issued by {issuer!r} is not sent to {target!r}; dropped"
        )


def media(block: FileBlock, where: str, rec: LossRecorder) -> dict[str, Any]:
    """An ``inlineData`` or ``fileData`` part for a file block."""
    source, meta = block.source, block.metadata
    if type(source) is BytesSource:
        key, native = "inlineData", {"mimeType": block.media_type, "data": b64encode(source.data)}
    elif type(source) is UrlSource:
        rec.add(f"{where}.source", "a URL is sent as fileData.fileUri; it reads back as a reference source")
        key, native = "fileData", {"mimeType": block.media_type, "fileUri": source.url}
    else:
        assert isinstance(source, ReferenceSource)  # noqa: S101 - the last source kind
        if source.provider not in (None, NS):
            rec.add(f"{where}.source.provider", f"a file id issued by {source.provider!r} is sent to Gemini as it is")
        key, native = "fileData", {"mimeType": block.media_type, "fileUri": source.id}
    name = block.filename if block.filename is not None else meta.get(f"{NS}/displayName")
    if name is not None:
        native["displayName"] = name
    part = {key: native}
    _extras(part, meta)
    report_metadata(rec, where, meta, FLAGS, TARGET)
    return part


def _tool_result(block: ToolResultBlock, where: str, rec: LossRecorder) -> dict[str, Any]:
    meta = block.metadata
    values = [b for b in block.content if type(b) is not FileBlock]
    files = [b for b in block.content if type(b) is FileBlock]
    if block.outcome == "denied":
        rec.add(f"{where}.outcome", "Gemini has no denied outcome; written as an error, reads back as failed")
    key = "output" if block.outcome == "succeeded" else "error"
    response: dict[str, Any]
    if (
        meta.get(f"{NS}/response") == "object"
        and len(values) == 1
        and type(values[0]) is JsonBlock
        and isinstance(values[0].value, dict)
    ):
        response = thaw(values[0].value)
    elif not values:
        response = {key: None} if (block.outcome != "succeeded" or f"{NS}/output" in meta) else {}
    else:
        items = [b.text if type(b) is TextBlock else thaw(b.value) for b in values]  # type: ignore[union-attr]
        listed = len(items) > 1 or meta.get(f"{NS}/output") == "list1"
        response = {key: items if listed else items[0]}
    back = _response({"response": response}, where)[1]
    if [(type(b), getattr(b, "text", None), getattr(b, "value", None)) for b in back] != [
        (type(b), getattr(b, "text", None), getattr(b, "value", None)) for b in values
    ]:
        rec.add(
            f"{where}.content", "text and JSON content are written as one response value; they read back differently"
        )
    for j, b in enumerate(values):
        if type(b) is TextBlock:
            _citations(rec, f"{where}.content[{j}]", b)
        report_metadata(rec, f"{where}.content[{j}]", b.metadata, (), TARGET)
    if files and values and block.content.index(files[0]) < block.content.index(values[-1]):
        rec.add(f"{where}.content", "files go in functionResponse.parts after the response; their order changes")
    fr: dict[str, Any] = {"name": block.tool_name, "response": response}
    if meta.get(f"{NS}/generated_id") is not True:
        fr["id"] = block.tool_call_id
    for k, value in meta.items():
        field = k[len(NS) + 1 :]
        if k.startswith(f"{NS}/") and k not in FLAGS and field in ("willContinue", "scheduling"):
            fr[field] = thaw(value)
    if files:
        fr["parts"] = [media(f, f"{where}.content[{block.content.index(f)}]", rec) for f in files]
    report_metadata(rec, where, meta, FLAGS | {f"{NS}/willContinue", f"{NS}/scheduling"}, TARGET)
    return {"functionResponse": fr}


def _reasoning(block: ReasoningBlock, where: str, rec: LossRecorder, target: str) -> dict[str, Any] | None:
    meta = block.metadata
    issuer = meta.get(ISSUER_KEY)
    if block.redacted is not None:
        rec.add(f"{where}.redacted", "redacted reasoning has no place in a Gemini request; dropped")
        return None
    part: dict[str, Any] = {}
    if block.text is not None:
        part = {"text": block.text, "thought": True}
    elif f"{NS}/text" in meta:
        part["text"] = meta[f"{NS}/text"]
    if f"{NS}/thought" in meta:
        part["thought"] = meta[f"{NS}/thought"]
    if block.signature is not None:
        if issuer_matches(issuer, target):
            part["thoughtSignature"] = block.signature
        else:
            rec.add(f"{where}.signature", f"a signature issued by {issuer!r} is not sent to {target!r}; dropped")
    _extras(part, meta)
    report_metadata(rec, where, meta, FLAGS, TARGET)
    return part if ("text" in part or "thoughtSignature" in part) else None


def part_for(block: Block, where: str, rec: LossRecorder, target: str) -> dict[str, Any] | None:
    """The part for one block (``None`` when it is dropped)."""
    meta = block.metadata
    part: dict[str, Any] | None
    if type(block) is TextBlock:
        part = {"text": block.text}
        if f"{NS}/thought" in meta:
            part["thought"] = meta[f"{NS}/thought"]
        _citations(rec, where, block)
    elif type(block) is RefusalBlock:
        rec.add(where, "Gemini has no refusal part; written as text, reads back as text")
        part = {"text": block.text}
    elif type(block) is ReasoningBlock:
        return _reasoning(block, where, rec, target)
    elif type(block) is FileBlock:
        part = media(block, where, rec)
    elif type(block) is ToolCallBlock:
        fc: dict[str, Any] = {"name": block.tool_name}
        if meta.get(f"{NS}/generated_id") is not True:
            fc = {"id": block.tool_call_id, **fc}
        if block.input is not None:
            if isinstance(block.input, dict):
                fc["args"] = thaw(block.input)
            else:
                rec.add(f"{where}.input", 'functionCall.args is an object; the input is sent as {"input": ...}')
                fc["args"] = {"input": thaw(block.input)}
        for k in ("willContinue", "partialArgs"):
            if f"{NS}/{k}" in meta:
                fc[k] = thaw(meta[f"{NS}/{k}"])
        part = {"functionCall": fc}
        report_metadata(rec, where, meta, FLAGS | {f"{NS}/willContinue", f"{NS}/partialArgs"}, TARGET)
    elif type(block) is JsonBlock:
        kind = meta.get(f"{NS}/part")
        if type(kind) is str:
            part = {kind: thaw(block.value)}
        else:
            rec.add(where, "JSON content is written as JSON text; reads back as text")
            part = {"text": json_text(block.value)}
    else:
        assert type(block) is ToolResultBlock  # noqa: S101 - the last block kind
        return _tool_result(block, where, rec)
    if type(block) not in (FileBlock, ToolCallBlock):
        report_metadata(rec, where, meta, FLAGS, TARGET)
    _signature(part, block, where, rec, target)
    _extras(part, meta)
    return part


def _first_call_signature(parts: list[dict[str, Any]], path: str, rec: LossRecorder) -> None:
    """Parallel calls: only the first ``functionCall`` of a content may carry the signature."""
    calls = [p for p in parts if "functionCall" in p]
    for p in calls[1:]:
        if "thoughtSignature" in p:
            del p["thoughtSignature"]
            rec.add(path, "a thought signature on a later parallel functionCall is dropped (the first call carries it)")


def write(messages: Sequence[Message], rec: LossRecorder, target: str) -> dict[str, Any]:
    """The ``systemInstruction`` and ``contents`` of a request carrying ``messages``."""
    payload: dict[str, Any] = {}
    contents: list[dict[str, Any]] = []
    lead = 0
    while lead < len(messages) and messages[lead].role in ("system", "developer"):
        lead += 1
    if lead:
        parts: list[Any] = []
        for i, message in enumerate(messages[:lead]):
            if message.role == "developer":
                rec.add(f"$[{i}].role", "Gemini has one system instruction; developer text goes into it")
            elif i:
                rec.add(f"$[{i}]", "system messages are merged into one systemInstruction")
            for j, block in enumerate(message.content):
                parts.append(part_for(block, f"$[{i}].content[{j}]", rec, target))
            report_metadata(rec, f"$[{i}]", message.metadata, FLAGS, TARGET)
        system: dict[str, Any] = {"parts": parts}
        if f"{NS}/role" in messages[0].metadata:
            system = {"role": messages[0].metadata[f"{NS}/role"], **system}
        payload["systemInstruction"] = system
    for i, message in enumerate(messages[lead:], start=lead):
        path = f"$[{i}]"
        if message.role in ("system", "developer"):
            rec.add(f"{path}.role", f"Gemini has no {message.role} turn after the start; written as a user turn")
        parts = [p for j, b in enumerate(message.content) if (p := part_for(b, f"{path}.content[{j}]", rec, target))]
        report_metadata(rec, path, message.metadata, FLAGS, TARGET)
        role = "model" if message.role == "assistant" else "user"
        if not parts:
            rec.add(path, "nothing of this message could be sent; the turn is dropped")
            continue
        if message.metadata.get(f"{NS}/same_content") is True and contents and contents[-1].get("role", "user") == role:
            contents[-1]["parts"].extend(parts)
            continue
        content: dict[str, Any] = {"role": role, "parts": parts}
        if role == "user" and f"{NS}/role" in message.metadata and message.metadata[f"{NS}/role"] is None:
            del content["role"]
        if role == "model":
            _first_call_signature(parts, path, rec)
        contents.append(content)
    payload["contents"] = contents
    return payload
