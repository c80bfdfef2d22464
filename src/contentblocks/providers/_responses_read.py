"""Reading OpenAI Responses input items (and response output items) into neutral messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _api
from .._blocks import (
    Block,
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from .._errors import ValidationError
from .._messages import Conversation, Message
from ._toolkit import take_extras
from ._toolkit import b64decode, fail, read_arguments
from ._contract import ISSUER_KEY

NS = "openai"
ISSUER = "openai"
OCTET = "application/octet-stream"


def _str(item: Mapping[str, Any], key: str, path: str) -> str:
    value = item.get(key)
    if type(value) is not str:
        raise fail(f"{path}.{key}", "expected a string")
    return value


def _obj(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(path, "expected an object")
    return value


def _list(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(path, "expected a list")
    return value


def citations_from_annotations(text: str, annotations: list[Any]) -> tuple[Citation, ...]:
    """Citations for the annotations that have one (URL and file citations); the others have none."""
    out = []
    for ann in annotations:
        if not isinstance(ann, Mapping):
            continue
        kind = ann.get("type")
        try:
            if kind == "url_citation":
                title = ann.get("title") or None
                out.append(
                    Citation(
                        source=CitedUri(value=ann["url"]), title=title, start=ann["start_index"], end=ann["end_index"]
                    )
                )
            elif kind in ("file_citation", "container_file_citation"):
                start = ann.get("start_index", ann.get("index"))
                end = ann.get("end_index", start)
                title = ann.get("filename") or None
                out.append(Citation(source=CitedReference(value=ann["file_id"]), title=title, start=start, end=end))
        except (ValidationError, KeyError):
            continue
    return tuple(c for c in out if c.start is None or (c.end is not None and c.end <= len(text)))


def _file(part: Mapping[str, Any], path: str) -> FileBlock:
    kind = part["type"]
    meta: dict[str, Any] = {}
    filename = part.get("filename")
    if kind == "input_image":
        meta.update(take_extras(part, {"type", "image_url", "file_id"}, NS))
        url, file_id = part.get("image_url"), part.get("file_id")
        if type(url) is str and url[:5].lower() == "data:":
            block = _api.file_from_data_url(url)
            media_type, source = block.media_type, block.source
        elif type(url) is str:
            media_type, source = "image/*", UrlSource(url=url)
        elif type(file_id) is str:
            media_type, source = "image/*", ReferenceSource(id=file_id, provider=NS)
        else:
            raise fail(path, "an input_image needs image_url or file_id")
        return FileBlock(media_type=media_type, source=source, metadata=meta)
    meta.update(take_extras(part, {"type", "file_id", "file_url", "file_data", "filename"}, NS))
    data, file_url, file_id = part.get("file_data"), part.get("file_url"), part.get("file_id")
    media_type = OCTET
    if type(data) is str and data[:5].lower() == "data:":
        block = _api.file_from_data_url(data)
        media_type, source = block.media_type, block.source
    elif type(data) is str:
        source = BytesSource(data=b64decode(data, f"{path}.file_data"))
        meta[f"{NS}/file_data"] = "base64"
    elif type(file_url) is str:
        source = UrlSource(url=file_url)
    elif type(file_id) is str:
        source = ReferenceSource(id=file_id, provider=NS)
    else:
        raise fail(path, "an input_file needs file_data, file_url or file_id")
    if media_type.startswith("image/"):
        meta[f"{NS}/part"] = "input_file"
    if filename is not None:
        try:
            return FileBlock(media_type=media_type, source=source, filename=filename, metadata=meta)
        except ValidationError:
            meta[f"{NS}/filename"] = filename
    return FileBlock(media_type=media_type, source=source, metadata=meta)


def input_part(part: object, path: str) -> TextBlock | FileBlock:
    """One ``input_text``, ``input_image`` or ``input_file`` part."""
    part = _obj(part, path)
    kind = part.get("type")
    if kind == "input_text":
        return TextBlock(text=_str(part, "text", path), metadata=take_extras(part, {"type", "text"}, NS))
    if kind in ("input_image", "input_file"):
        return _file(part, path)
    raise fail(f"{path}.type", "expected input_text, input_image or input_file")


def output_part(part: object, path: str, item_meta: Mapping[str, Any]) -> TextBlock | RefusalBlock:
    """One ``output_text`` (annotations become citations) or ``refusal`` part of an assistant message."""
    part = _obj(part, path)
    kind = part.get("type")
    if kind == "refusal":
        meta = {**item_meta, **take_extras(part, {"type", "refusal"}, NS)}
        return RefusalBlock(text=_str(part, "refusal", path), metadata=meta)
    if kind not in ("output_text", "input_text"):
        raise fail(f"{path}.type", "expected output_text or refusal")
    text = _str(part, "text", path)
    meta = {**item_meta, **take_extras(part, {"type", "text", "annotations"}, NS)}
    if kind == "input_text":
        meta[f"{NS}/part"] = "input_text"
    annotations = _list(part.get("annotations", []), f"{path}.annotations")
    citations = citations_from_annotations(text, annotations)
    from ._responses_write import annotations_for  # noqa: PLC0415 - the two halves refer to each other

    if "annotations" not in part or annotations != annotations_for(text, citations, None):
        meta[f"{NS}/annotations"] = annotations if "annotations" in part else None
    return TextBlock(text=text, citations=citations, metadata=meta)


def reasoning_blocks(item: Mapping[str, Any], path: str, issuer: str) -> list[ReasoningBlock]:
    """A reasoning item: a block per summary and content part; the encrypted content is the first signature."""
    item_id = _str(item, "id", path)
    base = {
        f"{NS}/id": item_id,
        ISSUER_KEY: issuer,
        **take_extras(item, {"type", "id", "summary", "content", "encrypted_content"}, NS),
    }
    texts: list[tuple[str, dict[str, Any]]] = []
    for kind, key in (("summary_text", "summary"), ("reasoning_text", "content")):
        for j, raw in enumerate(_list(item.get(key, []), f"{path}.{key}")):
            part = _obj(raw, f"{path}.{key}[{j}]")
            if part.get("type") != kind:
                raise fail(f"{path}.{key}[{j}].type", f"expected {kind}")
            meta = dict(base)
            if key == "content":
                meta[f"{NS}/reasoning_part"] = "content"
            texts.append((_str(part, "text", f"{path}.{key}[{j}]"), meta))
    if "content" in item and not item["content"]:
        base[f"{NS}/content"] = []
    encrypted = item.get("encrypted_content")
    signature = encrypted if type(encrypted) is str and encrypted else None
    if encrypted is not None and signature is None:
        base[f"{NS}/encrypted_content"] = encrypted
    if not texts:
        # Nothing visible: the encrypted content, or else the item id (kept server-side), is the handle to send back.
        return [ReasoningBlock(signature=signature or item_id, metadata=base)]
    blocks = []
    for j, (text, part_meta) in enumerate(texts):
        meta = {**part_meta, **base} if j == 0 else part_meta
        sig = signature if j == 0 else None
        if not text:
            meta[f"{NS}/text"] = ""
            sig = sig or item_id
        blocks.append(ReasoningBlock(text=text or None, signature=sig, metadata=meta))
    return blocks


def function_call(item: Mapping[str, Any], path: str) -> ToolCallBlock:
    """A ``function_call`` item; invalid JSON arguments are kept verbatim (see the module docs)."""
    raw = _str(item, "arguments", path)
    value, kept = read_arguments(raw)
    meta = {**take_extras(item, {"type", "call_id", "name", "arguments"}, NS), **kept}
    return ToolCallBlock(
        tool_call_id=_str(item, "call_id", path), tool_name=_str(item, "name", path), input=value, metadata=meta
    )


def function_call_output(item: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    """A ``function_call_output`` item; its tool name comes from the call it answers."""
    call_id = _str(item, "call_id", path)
    name = names.get(call_id, item.get("name"))
    if type(name) is not str:
        raise fail(f"{path}.call_id", "answers no earlier function_call")
    output = item.get("output")
    meta = take_extras(item, {"type", "call_id", "output"}, NS)
    content: list[Any] = []
    if type(output) is str:
        if output:
            content.append(TextBlock(text=output))
    else:
        parts = _list(output, f"{path}.output")
        content = [input_part(p, f"{path}.output[{j}]") for j, p in enumerate(parts)]
        if len(content) <= 1 and all(type(b) is TextBlock and not b.metadata for b in content):
            meta[f"{NS}/output_list"] = True
    return ToolResultBlock(
        tool_call_id=call_id, tool_name=name, outcome="succeeded", content=tuple(content), metadata=meta
    )


def message_item(item: Mapping[str, Any], path: str) -> tuple[str, list[Block], dict[str, Any]]:
    """A ``message`` item: its role, its blocks and the message metadata (item fields with no neutral home)."""
    role = item.get("role")
    if role not in ("user", "system", "developer", "assistant"):
        raise fail(f"{path}.role", "expected user, system, developer or assistant")
    content = item.get("content")
    item_meta = take_extras(item, {"type", "role", "content"}, NS)
    if "type" not in item:
        item_meta[f"{NS}/type"] = None
    if role == "assistant":
        if type(content) is str:
            if item_meta or not content:
                item_meta[f"{NS}/content"] = "string"
            return role, [TextBlock(text=content, metadata=item_meta)] if content else [], {}
        parts = _list(content, f"{path}.content")
        return role, [output_part(p, f"{path}.content[{j}]", item_meta) for j, p in enumerate(parts)], {}
    if type(content) is str:
        item_meta[f"{NS}/content"] = "string"
        return role, [TextBlock(text=content)], item_meta
    parts = _list(content, f"{path}.content")
    return role, [input_part(p, f"{path}.content[{j}]") for j, p in enumerate(parts)], item_meta


def read_items(items: list[Any], head: list[Message], issuer: str = ISSUER) -> Conversation:
    """Group the flat item list into messages: assistant items (messages, reasoning, calls) form one message."""
    messages = list(head)
    names: dict[str, str] = {}
    run: list[Block] = []
    run_role = ""

    def flush() -> None:
        nonlocal run, run_role
        if run:
            messages.append(Message(role=run_role, content=tuple(run)))  # type: ignore[arg-type]
        run, run_role = [], ""

    def add(role: str, blocks: list[Block]) -> None:
        nonlocal run_role
        if role != run_role:
            flush()
            run_role = role
        run.extend(blocks)

    for i, raw in enumerate(items):
        path = f"$.input[{i}]"
        item = _obj(raw, path)
        kind = item.get("type", "message")
        if kind == "message":
            role, blocks, meta = message_item(item, path)
            if role == "assistant":
                add("assistant", blocks)
            else:
                flush()
                if role == "system" and not messages and not meta:
                    meta[f"{NS}/input_item"] = True
                messages.append(Message(role=role, content=tuple(blocks), metadata=meta))  # type: ignore[arg-type]
        elif kind == "reasoning":
            add("assistant", list(reasoning_blocks(item, path, issuer)))
        elif kind == "function_call":
            call = function_call(item, path)
            names[call.tool_call_id] = call.tool_name
            add("assistant", [call])
        elif kind == "function_call_output":
            add("tool", [function_call_output(item, path, names)])
        else:
            raise fail(
                f"{path}.type",
                "not an item type this adapter reads (message, reasoning, function_call, function_call_output)",
            )
    flush()
    return Conversation(messages=tuple(messages))
