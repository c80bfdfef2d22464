"""Writing neutral messages as OpenAI Responses input items, reporting every loss."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._blocks import (
    Block,
    BytesSource,
    Citation,
    CitedUri,
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
from ._toolkit import data_url, json_text, put_extras, report_metadata
from ._toolkit import b64encode, raw_arguments
from ._contract import ISSUER_KEY, LossRecorder, issuer_matches
from ._responses_read import NS, OCTET

TARGET = "Responses API"
# Adapter flags: metadata that steers writing and is never a wire field of its own.
REASONING = ("id", "reasoning_part", "text", "content")


#: The wire fields of each item and part type that metadata (``openai/<field>``) may give back.
WIRE = {
    "message": {"status", "phase"},
    "input_text": {"prompt_cache_breakpoint"},
    "input_image": {"detail", "prompt_cache_breakpoint"},
    "input_file": {"detail", "prompt_cache_breakpoint"},
    "output_text": {"logprobs"},
    "refusal": set(),
    "reasoning": {"status", "encrypted_content"},
    "function_call": {"id", "status", "namespace", "caller", "async"},
    "function_call_output": {"id", "status", "name", "namespace", "caller"},
}


def _flags(meta: Any, *names: str) -> set[str]:
    """The adapter flags among ``meta``'s keys (consumed by the writer, never sent as fields)."""
    return {f"{NS}/{name}" for name in names} & set(meta)


def _put(native: dict[str, Any], meta: Any) -> set[str]:
    """Write back the ``openai/<field>`` metadata that is a wire field of this item or part type."""
    allowed = WIRE.get(native.get("type", "message"), set())
    picked = {k: v for k, v in meta.items() if k.startswith(f"{NS}/") and k[len(NS) + 1 :] in allowed}
    return put_extras(native, picked, NS)


def annotations_for(text: str, citations: Sequence[Citation], kept: object) -> list[Any]:
    """The ``annotations`` of an ``output_text`` part: ``kept`` verbatim while it still gives these citations."""
    from ._responses_read import citations_from_annotations  # noqa: PLC0415 - the two halves refer to each other

    if isinstance(kept, list) and citations_from_annotations(text, kept) == tuple(citations):
        return thaw(kept)  # type: ignore[no-any-return]
    out: list[Any] = []
    for c in citations:
        start = 0 if c.start is None else c.start
        end = len(text) if c.end is None else c.end
        if type(c.source) is CitedUri:
            out.append(
                {
                    "type": "url_citation",
                    "url": c.source.value,
                    "title": c.title or "",
                    "start_index": start,
                    "end_index": end,
                }
            )
        else:
            out.append({"type": "file_citation", "file_id": c.source.value, "filename": c.title or "", "index": start})
    return out


def _citation_losses(rec: LossRecorder, path: str, block: TextBlock, *, carried: bool) -> None:
    for k, c in enumerate(block.citations):
        where = f"{path}.citations[{k}]"
        if not carried:
            rec.add(where, f"citations have no place here in a {TARGET} request (only output_text with an item id)")
            continue
        if c.quote is not None:
            rec.add(f"{where}.quote", "annotations carry no quote; dropped")
        if c.start is None:
            rec.add(where, "annotations need a span; the whole text is given as the span")
        elif type(c.source) is not CitedUri and c.end != c.start:
            rec.add(f"{where}.end", "a file_citation marks one index; the span's end is dropped")


def file_part(block: FileBlock, path: str, rec: LossRecorder, *, tool_output: bool) -> dict[str, Any]:
    """An ``input_image`` (image types) or ``input_file`` part for a file block."""
    meta, source = block.metadata, block.source
    image = block.media_type.startswith("image/") and meta.get(f"{NS}/part") != "input_file"
    if type(source) is BytesSource:
        if image:
            part: dict[str, Any] = {"type": "input_image", "image_url": data_url(block.media_type, source.data)}
        elif meta.get(f"{NS}/file_data") == "base64":
            part = {"type": "input_file", "file_data": b64encode(source.data)}
        else:
            part = {"type": "input_file", "file_data": data_url(block.media_type, source.data)}
    elif type(source) is UrlSource:
        part = (
            {"type": "input_image", "image_url": source.url}
            if image
            else {"type": "input_file", "file_url": source.url}
        )
    else:
        assert isinstance(source, ReferenceSource)  # noqa: S101 - the last source kind
        if source.provider not in (None, NS):
            rec.add(f"{path}.source.provider", f"a file id issued by {source.provider!r} is sent to OpenAI as it is")
        part = {"type": "input_image", "file_id": source.id} if image else {"type": "input_file", "file_id": source.id}
    if type(source) is not BytesSource:
        default = "image/*" if image else OCTET
        if block.media_type != default:
            rec.add(f"{path}.media_type", f"a URL or file id part carries no media type; reads back as {default}")
    if block.filename is not None:
        if image:
            rec.add(f"{path}.filename", "input_image has no filename; dropped")
        else:
            part["filename"] = block.filename
    if image and not tool_output:
        part.setdefault("detail", meta.get(f"{NS}/detail", "auto"))
    used = _put(part, meta) | _flags(meta, "part", "file_data", "detail")
    report_metadata(rec, path, meta, used, TARGET)
    return part


def input_parts(blocks: Sequence[Block], path: str, rec: LossRecorder, *, tool_output: bool = False) -> list[Any]:
    """Input parts for user, system and developer content (and list-form tool output)."""
    out: list[Any] = []
    for j, block in enumerate(blocks):
        where = f"{path}.content[{j}]"
        if type(block) is TextBlock:
            part = {"type": "input_text", "text": block.text}
            _citation_losses(rec, where, block, carried=False)
            used = _put(part, block.metadata)
            report_metadata(rec, where, block.metadata, used, TARGET)
            out.append(part)
        elif type(block) is FileBlock:
            out.append(file_part(block, where, rec, tool_output=tool_output))
        elif type(block) is JsonBlock:
            rec.add(where, "JSON content is written as JSON text (input_text); reads back as text")
            report_metadata(rec, where, block.metadata, (), TARGET)
            out.append({"type": "input_text", "text": json_text(block.value)})
    return out


def _message_item(message: Message, path: str, rec: LossRecorder) -> dict[str, Any]:
    meta = message.metadata
    item: dict[str, Any] = {"type": "message", "role": message.role}
    blocks = message.content
    plain = len(blocks) == 1 and type(blocks[0]) is TextBlock and not blocks[0].metadata and not blocks[0].citations
    if meta.get(f"{NS}/content") == "string" and plain:
        item["content"] = blocks[0].text  # type: ignore[union-attr]
    else:
        item["content"] = input_parts(blocks, path, rec)
    used = _put(item, meta) | _flags(meta, "content", "type", "input_item")
    if f"{NS}/type" in meta:
        del item["type"]
    report_metadata(rec, path, meta, used, TARGET)
    return item


def _output_item(blocks: list[tuple[int, TextBlock | RefusalBlock]], path: str, rec: LossRecorder) -> dict[str, Any]:
    first = blocks[0][1].metadata
    item: dict[str, Any] = {"id": first[f"{NS}/id"], "type": "message", "role": "assistant"}
    parts = []
    for j, block in blocks:
        where = f"{path}.content[{j}]"
        if type(block) is RefusalBlock:
            part: dict[str, Any] = {"type": "refusal", "refusal": block.text}
        else:
            assert type(block) is TextBlock  # noqa: S101 - narrowed for mypy
            part = {"type": block.metadata.get(f"{NS}/part", "output_text"), "text": block.text}
            kept = block.metadata.get(f"{NS}/annotations", [])
            if kept is not None or block.citations:
                part["annotations"] = annotations_for(block.text, block.citations, kept)
            _citation_losses(rec, where, block, carried=not (isinstance(kept, list) and part["annotations"] == kept))
        for key in ("status", "phase"):
            if f"{NS}/{key}" in block.metadata:
                item.setdefault(key, thaw(block.metadata[f"{NS}/{key}"]))
        used = _put(part, block.metadata)
        used |= _flags(block.metadata, "id", "status", "phase", "annotations", "part")
        report_metadata(rec, where, block.metadata, used, TARGET)
        parts.append(part)
    item["content"] = parts
    item.setdefault("status", "completed")
    return item


def _reasoning_item(blocks: list[tuple[int, ReasoningBlock]], path: str, rec: LossRecorder) -> dict[str, Any]:
    first = blocks[0][1]
    item_id = first.metadata[f"{NS}/id"]
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    content: list[Any] = []
    for j, block in blocks:
        where = f"{path}.content[{j}]"
        if block.text is not None or block.metadata.get(f"{NS}/text") == "":
            kind = block.metadata.get(f"{NS}/reasoning_part")
            target, tag = (content, "reasoning_text") if kind == "content" else (item["summary"], "summary_text")
            target.append({"type": tag, "text": block.text or ""})
        if block.signature is not None and block.signature != item_id:
            if j == blocks[0][0]:
                item["encrypted_content"] = block.signature
            else:
                rec.add(f"{where}.signature", "only the first block of a reasoning item carries its encrypted content")
        if block.redacted is not None:
            rec.add(f"{where}.redacted", "redacted reasoning has no place in a Responses request; dropped")
        if j != blocks[0][0]:
            report_metadata(
                rec, where, block.metadata, set(first.metadata) | _flags(block.metadata, *REASONING), TARGET
            )
    if content or first.metadata.get(f"{NS}/content") == []:
        item["content"] = content
    used = _put(item, first.metadata)
    report_metadata(
        rec, f"{path}.content[{blocks[0][0]}]", first.metadata, used | _flags(first.metadata, *REASONING), TARGET
    )
    return item


def _drop_reasoning(block: ReasoningBlock, where: str, target: str, rec: LossRecorder) -> None:
    issuer = block.metadata.get(ISSUER_KEY)
    if f"{NS}/id" in block.metadata and not issuer_matches(issuer, target):
        why = f"reasoning issued by {issuer!r} is not sent to {target!r}; dropped"
    else:
        why = (
            f"reasoning from another provider has no place in a {TARGET} request (it needs an OpenAI item id); dropped"
        )
    rec.add(where, why)


def assistant_items(message: Message, path: str, rec: LossRecorder, target: str) -> list[Any]:
    """Items for an assistant message: output messages, reasoning items and function calls, in order."""
    items: list[Any] = []
    group: list[Any] = []
    group_key: tuple[str, Any] = ("", None)

    def close() -> None:
        nonlocal group, group_key
        if group_key[0] == "message":
            items.append(_output_item(group, path, rec))
        elif group_key[0] == "reasoning":
            items.append(_reasoning_item(group, path, rec))
        group, group_key = [], ("", None)

    for j, block in enumerate(message.content):
        where = f"{path}.content[{j}]"
        item_id = block.metadata.get(f"{NS}/id")
        if type(block) in (TextBlock, RefusalBlock) and type(item_id) is str:
            key: tuple[str, Any] = ("message", item_id)
        elif type(block) is ReasoningBlock:
            if type(item_id) is not str or not issuer_matches(block.metadata.get(ISSUER_KEY), target):
                close()
                _drop_reasoning(block, where, target, rec)
                continue
            key = ("reasoning", item_id)
        else:
            key = ("", None)
        if key != group_key or not key[0]:
            close()
            group_key = key
        if key[0]:
            group.append((j, block))
            continue
        items.extend(_single_item(block, where, rec))
    close()
    if message.metadata:
        report_metadata(rec, path, message.metadata, (), TARGET)
    return items


def _single_item(block: Block, where: str, rec: LossRecorder) -> list[Any]:
    meta = block.metadata
    if type(block) is ToolCallBlock:
        item = {
            "type": "function_call",
            "call_id": block.tool_call_id,
            "name": block.tool_name,
            "arguments": raw_arguments(block.input, meta),
        }
        used = _put(item, meta) | _flags(meta, "arguments", "invalid_arguments")
        report_metadata(rec, where, meta, used, TARGET)
        return [item]
    if type(block) in (TextBlock, RefusalBlock, JsonBlock):
        if type(block) is RefusalBlock:
            rec.add(where, "a refusal needs an output message item id; written as assistant text")
            text = block.text
        elif type(block) is JsonBlock:
            rec.add(where, "JSON content is written as JSON text; reads back as text")
            text = json_text(block.value)
        else:
            assert type(block) is TextBlock  # noqa: S101 - narrowed for mypy
            text = block.text
            _citation_losses(rec, where, block, carried=False)
        message: dict[str, Any] = {"type": "message", "role": "assistant", "content": text}
        used = (_put(message, meta) | _flags(meta, "content", "type")) if type(block) is TextBlock else set()
        if type(block) is TextBlock and f"{NS}/type" in meta:
            del message["type"]
        report_metadata(rec, where, meta, used, TARGET)
        return [message]
    rec.add(where, f"an assistant {type(block).__name__} has no place in a {TARGET} request; dropped")
    return []


def tool_items(message: Message, path: str, rec: LossRecorder) -> list[Any]:
    """A ``function_call_output`` item per tool result."""
    items = []
    for j, block in enumerate(message.content):
        where = f"{path}.content[{j}]"
        assert type(block) is ToolResultBlock  # noqa: S101 - a tool message carries tool results only
        meta = block.metadata
        if block.outcome != "succeeded":
            rec.add(
                f"{where}.outcome",
                f"function_call_output has no error flag; the {block.outcome} outcome reads back as succeeded",
            )
        content = block.content
        listed = meta.get(f"{NS}/output_list") is True
        output: Any
        if not content and not listed:
            output = ""
        elif (
            len(content) == 1
            and type(content[0]) is TextBlock
            and not content[0].metadata
            and not content[0].citations
            and not listed
        ):
            output = content[0].text
        else:
            output = input_parts(content, where, rec, tool_output=True)
        item = {"type": "function_call_output", "call_id": block.tool_call_id, "output": output}
        used = _put(item, meta) | _flags(meta, "output_list")
        report_metadata(rec, where, meta, used, TARGET)
        items.append(item)
    if message.metadata:
        report_metadata(rec, path, message.metadata, (), TARGET)
    return items


def write(messages: Sequence[Message], rec: LossRecorder, target: str) -> dict[str, Any]:
    """The ``instructions`` and ``input`` of a request carrying ``messages``."""
    payload: dict[str, Any] = {}
    items: list[Any] = []
    for i, message in enumerate(messages):
        path = f"$[{i}]"
        blocks = message.content
        if (
            i == 0
            and message.role == "system"
            and not message.metadata
            and len(blocks) == 1
            and type(blocks[0]) is TextBlock
            and not blocks[0].metadata
            and not blocks[0].citations
        ):
            payload["instructions"] = blocks[0].text
        elif message.role == "assistant":
            items.extend(assistant_items(message, path, rec, target))
        elif message.role == "tool":
            items.extend(tool_items(message, path, rec))
        else:
            items.append(_message_item(message, path, rec))
    payload["input"] = items
    return payload
