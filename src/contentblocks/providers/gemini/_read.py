"""Reading Gemini ``contents`` (wire form, after ``_shapes.canonical``) into neutral blocks and messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import (
    Block,
    BytesSource,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    ReferenceSource,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    kind_name,
)
from .._arguments import JSON_TEXT, raw_input
from .._contract import ISSUER_KEY
from .._toolkit import b64decode, build, fail, field, identifier, is_filename, reroot, within
from ._code import read_code
from ._code import read_result as read_code_result
from ._tool_parts import read_tool_call, read_tool_response
from ._wire import DATA_KINDS, FILE_PART_EXTRAS, NS, PART_EXTRAS, RESPONSE_EXTRAS

__all__ = ["GENERATED", "ISSUER", "NS", "SIG", "content_blocks", "read_contents", "tool_response"]

ISSUER = "gemini"
SIG = f"{NS}/thought_signature"
GENERATED = f"{NS}/generated_id"
_USER_BLOCKS = (TextBlock, FileBlock, JsonBlock, ToolResultBlock)


def _media(native: Mapping[str, Any], path: str, *, inline: bool, meta: dict[str, Any]) -> FileBlock:
    """A file block for an ``inlineData`` or ``fileData`` object; ``meta`` holds the part's extras."""
    mime = field(native, "mimeType", str, path)
    if inline:
        source: Any = BytesSource(data=b64decode(field(native, "data", str, path), f"{path}.data"))
    else:
        try:
            source = ReferenceSource(id=field(native, "fileUri", str, path), provider=NS)
        except ValidationError as e:  # the id is the file URI: its problem is reported there
            raise reroot(e, f"{path}.fileUri", "$.id") from None
    name = native.get("displayName")
    filename = name if is_filename(name) else None
    if name is not None and filename is None:  # kept verbatim: not a valid neutral file name
        meta = {**meta, f"{NS}/displayName": name}
    return build(FileBlock, path, media_type=mime, source=source, filename=filename, metadata=meta)


def tool_response(response: Mapping[str, Any], path: str = "$") -> tuple[str, list[Any], dict[str, Any]]:
    """The outcome, content and flags a ``functionResponse.response`` object (at ``path``) reads as.

    ``output`` is a success and ``error`` a failure: a non-empty string is a text block, a list of non-empty
    strings one text block each, any other value a JSON block. Any other object is one JSON block, flagged
    ``gemini/response: "object"``. A value no block holds (nested too deep, a NaN, a 30-digit integer) is kept
    as its JSON text, flagged ``contentblocks/json_text``; a string no text holds (a lone surrogate) is reported
    at its path in the response.

    >>> status, blocks, extra = tool_response({"output": {"n": float("nan")}})
    >>> status, blocks[0].value, dict(blocks[0].metadata), extra
    ('succeeded', '{"n":NaN}', {'contentblocks/json_text': True}, {})
    >>> tool_response({"output": ["fine", chr(0xD800)]}, "$.response")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.response.output[1]: contains a lone surrogate (not a Unicode character)
    """
    meta: dict[str, Any] = {}
    key = "error" if "error" in response else "output"
    if set(response) - {key}:
        meta[f"{NS}/response"] = "object"
        return "succeeded", [_block(dict(response), path)], meta
    outcome = "failed" if key == "error" else "succeeded"
    if key not in response:
        return outcome, [], meta
    value, where = response[key], f"{path}.{key}"
    content: list[Any] = []
    if type(value) is str and value:
        content.append(_block(value, where))
    elif type(value) is list and value and all(type(v) is str and v for v in value):
        content.extend(_block(v, f"{where}[{i}]") for i, v in enumerate(value))
        meta[f"{NS}/output"] = "list" if len(value) > 1 else "list1"
    elif value is not None:
        content.append(_block(value, where))
    elif key == "output":
        meta[f"{NS}/output"] = None
    return outcome, content, meta


def _block(value: Any, path: str) -> TextBlock | JsonBlock:
    """The text (a string) or JSON block for a response value at ``path``; a problem in it is reported there.

    A value no block holds (a tool's 30-digit order number) is kept as its JSON text, flagged
    ``contentblocks/json_text``, and written back to Gemini as the value it was.
    """
    text = type(value) is str and value != ""  # an empty string is a JSON value: no text block is empty
    try:
        if text:
            return TextBlock(text=value)
        held, flags = raw_input(value, JSON_TEXT)
        return JsonBlock(value=held, metadata=flags)
    except ValidationError as e:
        raise reroot(e, path, "$.text" if text else "$.value") from None


def _answered(pending: list[ToolCallBlock], call_id: str | None, name: str) -> ToolCallBlock | None:
    """The open call a response answers: the one with its id, else the oldest of its name (one without an id first).

    A response id that matches no open call answers, by name, only a call that came without an id: the request
    echoed the id the reader generated for it, which Gemini never issued; that id is not kept.
    """
    if call_id is not None:
        match = next((c for c in pending if c.tool_call_id == call_id and type(c) is ToolCallBlock), None)
        if match is not None:
            return match
    named = [c for c in pending if c.tool_name == name and type(c) is ToolCallBlock]
    generated = next((c for c in named if c.metadata.get(GENERATED) is True), None)
    return generated if generated is not None or call_id is not None else next(iter(named), None)


def _result(fr: Mapping[str, Any], path: str, pending: list[ToolCallBlock], meta: dict[str, Any]) -> ToolResultBlock:
    name, call_id = identifier(fr, "name", path), identifier(fr, "id", path, optional=True)
    match = _answered(pending, call_id, name)
    if match is None:
        raise fail(path, "answers no earlier functionCall")
    pending.remove(match)
    if match.tool_call_id != call_id:
        meta[GENERATED] = True
    response = fr.get("response")
    if response is None:
        raise fail(f"{path}.response", "required field missing")
    outcome, content, flags = tool_response(response, f"{path}.response")
    meta.update(flags)
    meta.update({f"{NS}/{k}": fr[k] for k in RESPONSE_EXTRAS if k in fr})
    for j, sub in enumerate(fr.get("parts", [])):
        where = f"{path}.parts[{j}]"
        extras = {f"{NS}/{k}": sub[k] for k in FILE_PART_EXTRAS if k in sub}
        kinds = [k for k in ("inlineData", "fileData") if k in sub]
        if len(kinds) != 1:
            raise fail(where, "a function response part holds one of inlineData or fileData")
        kind = kinds[0]
        content.append(_media(sub[kind], f"{where}.{kind}", inline=kind == "inlineData", meta=extras))
    return build(
        ToolResultBlock,
        path,
        tool_call_id=match.tool_call_id,
        tool_name=match.tool_name,
        outcome=outcome,
        content=tuple(content),
        metadata=meta,
    )


def _signature(part: Mapping[str, Any], path: str) -> Any:
    """The part's ``thoughtSignature``, or ``None``; one a reasoning block refuses is reported at its own key."""
    signature = part.get("thoughtSignature")
    if signature is not None:
        try:
            ReasoningBlock(signature=signature)
        except ValidationError as e:
            raise reroot(e, f"{path}.thoughtSignature", "$.signature") from None
    return signature


def _text(part: Mapping[str, Any], path: str, issuer: str, meta: dict[str, Any], signature: Any) -> Block:
    text = part["text"]
    if text == "":
        if signature is None:  # nothing to hold but the part itself: kept as it was, so it goes back the same
            return JsonBlock(value="", metadata={**meta, f"{NS}/part": "text"})
        return ReasoningBlock(signature=signature, metadata={**meta, ISSUER_KEY: issuer, f"{NS}/text": ""})
    if part.get("thought") is True:
        meta.pop(f"{NS}/thought")
        return build(
            ReasoningBlock, f"{path}.text", text=text, signature=signature, metadata={**meta, ISSUER_KEY: issuer}
        )
    if signature is not None:
        meta.update({SIG: signature, ISSUER_KEY: issuer})
    return build(TextBlock, f"{path}.text", text=text, metadata=meta)


def _call(fc: Mapping[str, Any], where: str, call_id: str, meta: dict[str, Any]) -> ToolCallBlock:
    """The block of a ``functionCall``; args no block can hold are kept as their text (``raw_input``)."""
    name, args = identifier(fc, "name", where), fc.get("args")
    value, flags = (None, {}) if args is None else raw_input(args)
    try:
        return ToolCallBlock(tool_call_id=call_id, tool_name=name, input=value, metadata={**meta, **flags})
    except ValidationError as e:  # the input is the args: a problem in it is reported there
        at_args = [(f"{where}.args{p[7:]}" if within(p, "$.input") else where + p[1:], m) for p, m in e.errors]
        raise ValidationError(at_args, omitted=e.omitted) from None


def part_block(
    part: Mapping[str, Any], path: str, issuer: str, pending: list[ToolCallBlock], call_id: str, *, model: bool = True
) -> Block:
    """The block for one part; ``pending`` holds the calls not yet answered, ``call_id`` the id for one without.

    A server-side tool invocation (``toolCall``, ``toolResponse``) is a block of its own in a ``model`` content,
    where Gemini puts it; elsewhere, or with an id no block holds, it stays the JSON block it always was.
    """
    kinds = [k for k in DATA_KINDS if k in part]
    if len(kinds) > 1:
        raise fail(path, f"a part holds one kind of content; this one holds {kinds[0]} and {kinds[1]}")
    meta: dict[str, Any] = {f"{NS}/{k}": part[k] for k in PART_EXTRAS if k in part}
    signature = _signature(part, path)
    if not kinds:
        if signature is None:
            raise fail(path, f"a part with no content (it needs one of {', '.join(DATA_KINDS)})")
        return ReasoningBlock(signature=signature, metadata={**meta, ISSUER_KEY: issuer})
    kind = kinds[0]
    if kind == "text":
        return _text(part, path, issuer, meta, signature)
    if signature is not None:
        meta.update({SIG: signature, ISSUER_KEY: issuer})
    where = f"{path}.{kind}"
    if kind in ("inlineData", "fileData"):
        return _media(part[kind], where, inline=kind == "inlineData", meta=meta)
    if kind == "functionCall":
        fc = part[kind]
        meta.update({f"{NS}/{k}": fc[k] for k in ("willContinue", "partialArgs") if k in fc})
        if "id" in fc:
            call_id = identifier(fc, "id", where)
        else:
            meta[GENERATED] = True
        call = _call(fc, where, call_id, meta)
        pending.append(call)
        return call
    if kind == "functionResponse":
        return _result(part[kind], where, pending, meta)
    if kind == "executableCode" and type(part[kind]) is dict:
        return read_code(part[kind], where, meta, pending, call_id, issuer)
    if kind == "codeExecutionResult" and type(part[kind]) is dict:
        return read_code_result(part[kind], where, meta, pending, call_id, issuer)
    if kind in ("toolCall", "toolResponse") and model and type(part[kind]) is dict:
        read = read_tool_call if kind == "toolCall" else read_tool_response
        try:
            return read(part[kind], where, dict(meta), pending, call_id, issuer)
        except ValidationError:  # an id no block holds: the part stays the JSON block it was before Gemini 3
            pass
    value, flags = raw_input(part[kind], JSON_TEXT)  # a part no block holds is kept as its JSON text
    return build(JsonBlock, where, value=value, metadata={**meta, f"{NS}/part": kind, **flags})


def content_blocks(
    content: Mapping[str, Any], path: str, issuer: str, pending: list[ToolCallBlock], ids: str
) -> list[Block]:
    """The blocks of one content's parts (``ids`` prefixes the ids given to calls without one)."""
    parts = content.get("parts")
    if not parts:
        raise fail(f"{path}.parts", "required field missing" if parts is None else "a content needs at least one part")
    model = content.get("role") == "model"
    blocks = [
        part_block(p, f"{path}.parts[{j}]", issuer, pending, f"{ids}{j}", model=model) for j, p in enumerate(parts)
    ]
    for j, block in enumerate(blocks):
        if isinstance(block, ToolResultBlock) if model else not isinstance(block, _USER_BLOCKS):
            what = kind_name(type(block))
            raise fail(f"{path}.parts[{j}]", f"a {what} part has no place in a {'model' if model else 'user'} content")
    return blocks


def read_contents(contents: list[dict[str, Any]], system: Mapping[str, Any] | None) -> list[Message]:
    """Messages for a request's ``systemInstruction`` and ``contents``.

    A user content splits into a tool message (its ``functionResponse`` parts) and user messages (the rest);
    the later pieces carry ``gemini/same_content`` so they are written back into one content.
    """
    messages: list[Message] = []
    if system is not None:
        blocks = content_blocks(system, "$.systemInstruction", ISSUER, [], "gemini_call_system_")
        for j, block in enumerate(blocks):
            if type(block) is not TextBlock:
                raise fail(f"$.systemInstruction.parts[{j}]", "the system instruction holds text parts only")
        head = {f"{NS}/role": system["role"]} if "role" in system else {}
        messages.append(build(Message, "$.systemInstruction", role="system", content=tuple(blocks), metadata=head))
    pending: list[ToolCallBlock] = []
    for i, content in enumerate(contents):
        path = f"$.contents[{i}]"
        role = content.get("role")
        if role not in ("user", "model", None):
            raise fail(f"{path}.role", "expected user or model")
        blocks = content_blocks(content, path, ISSUER, pending, f"gemini_call_{i}_")
        if role == "model":
            messages.append(build(Message, path, role="assistant", content=tuple(blocks)))
            continue
        runs: list[tuple[str, list[Block]]] = []
        for block in blocks:
            kind = "tool" if type(block) is ToolResultBlock else "user"
            if runs and runs[-1][0] == kind:
                runs[-1][1].append(block)
            else:
                runs.append((kind, [block]))
        for r, (kind, run) in enumerate(runs):
            meta: dict[str, Any] = {f"{NS}/same_content": True} if r else {}
            if role is None and not r:
                meta[f"{NS}/role"] = None
            messages.append(build(Message, path, role=kind, content=tuple(run), metadata=meta))
    return messages
