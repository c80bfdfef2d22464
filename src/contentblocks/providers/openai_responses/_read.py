"""Reading Responses items (a request's ``input``, a response's ``output``) into neutral messages.

Every error names the item's own path: ``$.input[3].call_id`` for a request, ``$.output[0].arguments`` for a
response. An explicit ``null`` is an absent field; a part type this adapter does not read is refused by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model._classes import (
    Block,
    CompactionBlock,
    FileBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ..._model._conversation import Conversation
from .._contract import ISSUER_KEY
from .._extras import take_extras
from .._toolkit import build, fail, field, identifier, obj, plain, read_arguments, require
from ._annotations import annotations_for, citations_from_annotations
from ._approvals import read_request, read_response
from ._fields import ISSUER, NS, PARSED, present
from ._files import read_file
from ._native import native_block
from ._server import SERVER_ITEMS, read_pair

#: The item types read into blocks of their own; every other type is kept verbatim (see ``_native``).
REQUEST_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "compaction"})
#: The same for a response's output, which is the assistant's side only.
RESPONSE_ITEMS = frozenset({"message", "reasoning", "function_call", "compaction"})


def _part(raw: object, path: str, kinds: tuple[str, ...]) -> dict[str, Any]:
    part = present(obj(raw, path))
    kind = field(part, "type", str, path)
    require(kind in kinds, f"{path}.type", f"not a part type this adapter reads ({', '.join(kinds)})")
    return part


def input_part(raw: object, path: str) -> TextBlock | FileBlock:
    """One ``input_text``, ``input_image`` or ``input_file`` part."""
    part = _part(raw, path, ("input_text", "input_image", "input_file"))
    if part["type"] == "input_text":
        text = field(part, "text", str, path)
        return build(TextBlock, path, text=text, metadata=take_extras(part, {"type", "text"}, NS))
    return read_file(part, path)


def output_part(raw: object, path: str, item_meta: Mapping[str, Any]) -> TextBlock | RefusalBlock | None:
    """An ``output_text`` (annotations become citations) or ``refusal`` part; ``None`` for empty text."""
    part = _part(raw, path, ("output_text", "refusal", "input_text"))
    if part["type"] == "refusal":
        text = field(part, "refusal", str, path)
        return build(
            RefusalBlock, path, text=text, metadata={**item_meta, **take_extras(part, {"type", "refusal"}, NS)}
        )
    text = field(part, "text", str, path)
    annotations = field(part, "annotations", list, path, optional=True)
    if not text and not annotations:
        return None  # nothing to read, and a text block is never empty
    meta = {**item_meta, **take_extras(part, {"type", "text", "annotations"} | PARSED, NS)}
    if part["type"] == "input_text":
        meta[f"{NS}/part"] = "input_text"
    citations = citations_from_annotations(text, annotations or [])
    if annotations and annotations != annotations_for(text, citations, None):
        meta[f"{NS}/annotations"] = annotations
    return build(TextBlock, path, text=text, citations=citations, metadata=meta)


def reasoning_blocks(item: Mapping[str, Any], path: str) -> list[ReasoningBlock]:
    """A reasoning item: a block per summary and content part; the encrypted content is the first signature."""
    item_id = field(item, "id", str, path)
    base = {
        f"{NS}/id": item_id,
        ISSUER_KEY: ISSUER,
        **take_extras(item, {"type", "id", "summary", "content", "encrypted_content"}, NS),
    }
    texts: list[tuple[str, dict[str, Any]]] = []
    for kind, key in (("summary_text", "summary"), ("reasoning_text", "content")):
        parts = field(item, key, list, path, optional=key == "content") or []
        for j, raw in enumerate(parts):
            part = _part(raw, f"{path}.{key}[{j}]", (kind,))
            unknown = sorted(set(part) - {"type", "text"})
            require(not unknown, f"{path}.{key}[{j}]", f"not a field this adapter reads: {', '.join(unknown)[:80]}")
            meta = {f"{NS}/reasoning_part": "content"} if key == "content" else {}
            texts.append((field(part, "text", str, f"{path}.{key}[{j}]"), {**base, **meta}))
    if item.get("content") == []:
        base[f"{NS}/content"] = []
    encrypted = field(item, "encrypted_content", str, path, optional=True)
    signature = encrypted or None
    if encrypted == "":
        base[f"{NS}/encrypted_content"] = ""
    if not texts:
        # Nothing visible: the encrypted content, or else the item id (kept server-side), is the handle to send back.
        return [build(ReasoningBlock, path, signature=signature or item_id, metadata=base)]
    blocks = []
    for j, (text, part_meta) in enumerate(texts):
        meta = {**part_meta, **base} if j == 0 else part_meta
        sig = signature if j == 0 else None
        if not text:
            meta[f"{NS}/text"] = ""
            sig = sig or item_id
        blocks.append(build(ReasoningBlock, path, text=text or None, signature=sig, metadata=meta))
    return blocks


def compaction(item: Mapping[str, Any], path: str) -> CompactionBlock | None:
    """A ``compaction`` item: encrypted state alone (its ``id``, ``encrypted_content`` and ``created_by``).

    ``None`` for one without encrypted content, which the caller keeps verbatim instead
    (https://platform.openai.com/docs/api-reference/responses/compacted-object).
    """
    if type(item.get("encrypted_content")) is not str:
        return None
    return build(CompactionBlock, path, metadata={ISSUER_KEY: ISSUER, **take_extras(item, {"type"}, NS)})


def function_call(item: Mapping[str, Any], path: str) -> ToolCallBlock:
    """A ``function_call`` item; invalid JSON arguments are kept verbatim as the input (``read_arguments``)."""
    call_id, name = identifier(item, "call_id", path), identifier(item, "name", path)
    value, kept = read_arguments(field(item, "arguments", str, path))
    meta = {**take_extras(item, {"type", "call_id", "name", "arguments"} | PARSED, NS), **kept}
    return build(ToolCallBlock, path, tool_call_id=call_id, tool_name=name, input=value, metadata=meta)


def function_call_output(item: Mapping[str, Any], path: str, names: Mapping[str, str]) -> ToolResultBlock:
    """A ``function_call_output`` item; its tool name is the name of the earlier call it answers."""
    call_id = item.get("call_id")
    require(type(call_id) is str, f"{path}.call_id", "required field missing (a result must name the call it answers)")
    name = names.get(call_id)  # type: ignore[arg-type]
    require(name is not None, f"{path}.call_id", "answers no earlier function_call")
    output = field(item, "output", (str, list), path)
    meta = take_extras(item, {"type", "call_id", "output"}, NS)
    content: list[Any] = []
    if type(output) is str:
        if output:
            content.append(TextBlock(text=output))
    else:
        content = [input_part(p, f"{path}.output[{j}]") for j, p in enumerate(output)]
        if len(content) <= 1 and all(type(b) is TextBlock and not b.metadata for b in content):
            meta[f"{NS}/output_list"] = True
    return build(
        ToolResultBlock,
        path,
        tool_call_id=call_id,
        tool_name=name,
        outcome="succeeded",
        content=tuple(content),
        metadata=meta,
    )


def message_item(item: Mapping[str, Any], path: str) -> tuple[str, list[Block], dict[str, Any]]:
    """A ``message`` item: its role, its blocks and the message metadata (item fields with no neutral home)."""
    role = field(item, "role", str, path)
    require(
        role in ("user", "system", "developer", "assistant"),
        f"{path}.role",
        "expected user, system, developer or assistant",
    )
    content = field(item, "content", (str, list), path)
    item_meta = take_extras(item, {"type", "role", "content"}, NS)
    if "type" not in item:
        item_meta[f"{NS}/type"] = None
    if role == "assistant":
        if type(content) is str:
            if item_meta or not content:
                item_meta[f"{NS}/content"] = "string"
            return role, [build(TextBlock, path, text=content, metadata=item_meta)] if content else [], {}
        parts = [output_part(p, f"{path}.content[{j}]", item_meta) for j, p in enumerate(content)]
        return role, [b for b in parts if b is not None], {}
    require(len(content) > 0, f"{path}.content", "must not be empty")
    if type(content) is str:
        item_meta[f"{NS}/content"] = "string"
        return role, [TextBlock(text=content)], item_meta
    return role, [input_part(p, f"{path}.content[{j}]") for j, p in enumerate(content)], item_meta


class _Runs:
    """Groups the flat item list into messages: assistant items (messages, reasoning, calls) form one message."""

    def __init__(self, head: list[Message]) -> None:
        self.messages = list(head)
        self.run: list[Block] = []
        self.role = ""

    def flush(self) -> None:
        if self.run:
            self.messages.append(Message(role=self.role, content=tuple(self.run)))  # type: ignore[arg-type]
        self.run, self.role = [], ""

    def add(self, role: str, blocks: list[Block]) -> None:
        if role != self.role:
            self.flush()
            self.role = role
        self.run.extend(blocks)


def read_items(items: list[Any], head: list[Message], root: str, kinds: frozenset[str]) -> Conversation:
    """The conversation of ``items`` (at ``root``, e.g. ``$.input``) after the ``head`` messages.

    A tool OpenAI ran (``_server.SERVER_ITEMS``) is a call and its result; other item types outside ``kinds`` are
    kept verbatim as JSON blocks in the assistant message they are part of. An item may be the SDK's own object
    (``input += response.output``, as OpenAI's guides do).
    """
    runs = _Runs(head)
    names: dict[str, str] = {}
    answered: set[str] = set()
    asked: set[str] = set()  # the approval requests read so far, and those decided
    decided: set[str] = set()
    for i, raw in enumerate(items):
        path = f"{root}[{i}]"
        native = obj(plain(raw), path)
        item = present(native)
        kind = item.get("type", "message" if "role" in item else "item_reference")
        if type(kind) is not str:
            raise fail(f"{path}.type", "expected a string")
        if kind == "item_reference":
            require(
                type(item.get("id")) is str,
                f"{path}.id",
                "required field missing (an item with no type and no role is an item reference)",
            )
        compacted = compaction(item, path) if kind == "compaction" else None
        pair = read_pair(native, path) if kind in SERVER_ITEMS else None
        request = read_request(item) if kind == "mcp_approval_request" else None
        decision = read_response(item, asked) if kind == "mcp_approval_response" else None
        if pair is not None:
            runs.add("assistant", list(pair))
        elif request is not None and request[1].approval_id not in asked:
            asked.add(request[1].approval_id)
            runs.add("assistant", list(request))
        elif decision is not None and decision.approval_id not in decided:
            decided.add(decision.approval_id)
            runs.add("user", [decision])
        elif kind not in kinds or (kind == "compaction" and compacted is None):
            runs.add("assistant", [native_block(native, kind, path)])
        elif compacted is not None:
            runs.add("assistant", [compacted])
        elif kind == "message":
            role, blocks, meta = message_item(item, path)
            if role == "assistant":
                runs.add("assistant", blocks)
                continue
            require(
                kinds is REQUEST_ITEMS, f"{path}.role", "expected assistant (a response's output is the assistant's)"
            )
            runs.flush()
            if role == "system" and not runs.messages and not meta:
                meta[f"{NS}/input_item"] = True
            runs.messages.append(build(Message, path, role=role, content=tuple(blocks), metadata=meta))
        elif kind == "reasoning":
            runs.add("assistant", list(reasoning_blocks(item, path)))
        elif kind == "function_call":
            call = function_call(item, path)
            require(call.tool_call_id not in names, f"{path}.call_id", "a call id an earlier function_call has")
            names[call.tool_call_id] = call.tool_name
            runs.add("assistant", [call])
        else:
            result = function_call_output(item, path, names)
            require(result.tool_call_id not in answered, f"{path}.call_id", "answers a call an earlier output answers")
            answered.add(result.tool_call_id)
            runs.add("tool", [result])
    runs.flush()
    return Conversation(messages=tuple(runs.messages))
