"""Reading Gemini ``contents`` (and a ``generateContent`` response) into neutral messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .._blocks import (
    Block,
    BytesSource,
    Citation,
    CitedUri,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    ReferenceSource,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._errors import ValidationError
from .._messages import Message
from ._toolkit import take_extras
from ._toolkit import b64decode, fail, utf8_to_index
from ._contract import ISSUER_KEY

NS = "gemini"
ISSUER = "gemini"
SIG = f"{NS}/thought_signature"
#: Part fields that carry a block of their own; any other part becomes a JSON block tagged ``gemini/part``.
KINDS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
#: Part fields written back from metadata (``gemini/<field>``) beside the block's own field.
PART_EXTRAS = ("videoMetadata", "mediaResolution", "partMetadata")
_URI_SAFE = "%:/?#[]@!$&'()*+,;=-._~"


def _obj(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(path, "expected an object")
    return value


def _media(native: Mapping[str, Any], path: str, *, inline: bool) -> FileBlock:
    mime = native.get("mimeType")
    if type(mime) is not str:
        raise fail(f"{path}.mimeType", "expected a string")
    meta = take_extras(native, {"mimeType", "data", "fileUri", "displayName"}, NS)
    if inline:
        source: Any = BytesSource(data=b64decode(native.get("data"), f"{path}.data"))
    else:
        uri = native.get("fileUri")
        if type(uri) is not str:
            raise fail(f"{path}.fileUri", "expected a string")
        source = ReferenceSource(id=uri, provider=NS)
    name = native.get("displayName")
    if name is not None:
        try:
            return FileBlock(media_type=mime, source=source, filename=name, metadata=meta)
        except ValidationError:
            meta[f"{NS}/displayName"] = name
    return FileBlock(media_type=mime, source=source, metadata=meta)


def _response(fr: Mapping[str, Any], path: str) -> tuple[str, list[Any], dict[str, Any]]:
    """The outcome, the text/JSON content and flags of a ``functionResponse.response`` object."""
    response = fr.get("response", {})
    if not isinstance(response, Mapping):
        raise fail(f"{path}.response", "expected an object")
    meta: dict[str, Any] = {}
    outcome = "failed" if "error" in response else "succeeded"
    key = "error" if "error" in response else "output"
    content: list[Any] = []
    if set(response) - {key}:
        content.append(JsonBlock(value=dict(response)))
        meta[f"{NS}/response"] = "object"
        return "succeeded", content, meta
    value = response.get(key)
    if key not in response:
        return outcome, content, meta
    if type(value) is str and value:
        content.append(TextBlock(text=value))
    elif type(value) is list and value and all(type(v) is str and v for v in value):
        content.extend(TextBlock(text=v) for v in value)
        meta[f"{NS}/output"] = "list" if len(value) > 1 else "list1"
    elif value is not None:
        content.append(JsonBlock(value=value))
    elif key == "output":
        meta[f"{NS}/output"] = None
    return outcome, content, meta


def part_block(
    part: Mapping[str, Any], path: str, issuer: str, pending: list[ToolCallBlock], index: tuple[int, int]
) -> Block:
    """The block for one part (``pending`` holds the calls not yet answered, for responses without ids)."""
    kind = next((k for k in KINDS if k in part), None)
    meta: dict[str, Any] = {}
    signature = part.get("thoughtSignature")
    if signature is not None:
        b64decode(signature, f"{path}.thoughtSignature")
    for key in PART_EXTRAS:
        if key in part:
            meta[f"{NS}/{key}"] = part[key]
    if kind is None or (kind == "text" and part.get("text") == ""):
        if kind is None and signature is not None and set(part) <= {"thoughtSignature", "thought"}:
            kind = "text"
        if kind == "text":
            if signature is None:
                raise fail(f"{path}.text", "an empty text part without a signature")
            meta.update({ISSUER_KEY: issuer, f"{NS}/text": part.get("text")})
            if "thought" in part:
                meta[f"{NS}/thought"] = part["thought"]
            return ReasoningBlock(signature=signature, metadata=meta)
        other = next((k for k in part if k not in ("thought", "thoughtSignature", *PART_EXTRAS)), None)
        if other is None:
            raise fail(path, "a part with no content")
        meta[f"{NS}/part"] = other
        if signature is not None:
            meta.update({SIG: signature, ISSUER_KEY: issuer})
        return JsonBlock(value=part[other], metadata=meta)
    if signature is not None and not (kind == "text" and part.get("thought") is True):
        meta.update({SIG: signature, ISSUER_KEY: issuer})
    if kind == "text":
        text = part["text"]
        if type(text) is not str:
            raise fail(f"{path}.text", "expected a string")
        if part.get("thought") is True:
            meta[ISSUER_KEY] = issuer
            return ReasoningBlock(text=text, signature=signature, metadata=meta)
        if "thought" in part:
            meta[f"{NS}/thought"] = part["thought"]
        return TextBlock(text=text, metadata=meta)
    if kind in ("inlineData", "fileData"):
        file = _media(_obj(part[kind], f"{path}.{kind}"), f"{path}.{kind}", inline=kind == "inlineData")
        return FileBlock(
            media_type=file.media_type, source=file.source, filename=file.filename, metadata={**file.metadata, **meta}
        )
    if kind == "functionCall":
        fc = _obj(part[kind], f"{path}.functionCall")
        meta.update(take_extras(fc, {"id", "name", "args"}, NS))
        call_id = fc.get("id")
        if call_id is None:
            call_id = f"gemini_call_{index[0]}_{index[1]}"
            meta[f"{NS}/generated_id"] = True
        call = ToolCallBlock(tool_call_id=call_id, tool_name=fc.get("name"), input=fc.get("args"), metadata=meta)  # type: ignore[arg-type]
        pending.append(call)
        return call
    fr = _obj(part[kind], f"{path}.functionResponse")
    name, call_id = fr.get("name"), fr.get("id")
    match = next(
        (c for c in pending if (c.tool_call_id == call_id if call_id is not None else c.tool_name == name)), None
    )
    if match is None:
        raise fail(f"{path}.functionResponse", "answers no earlier functionCall")
    pending.remove(match)
    if call_id is None:
        meta[f"{NS}/generated_id"] = True
    outcome, content, flags = _response(fr, f"{path}.functionResponse")
    meta.update(flags)
    meta.update(take_extras(fr, {"id", "name", "response", "parts"}, NS))
    for j, raw in enumerate(fr.get("parts", [])):
        sub = _obj(raw, f"{path}.functionResponse.parts[{j}]")
        where = f"{path}.functionResponse.parts[{j}]"
        if "inlineData" in sub:
            content.append(_media(_obj(sub["inlineData"], where), f"{where}.inlineData", inline=True))
        elif "fileData" in sub:
            content.append(_media(_obj(sub["fileData"], where), f"{where}.fileData", inline=False))
        else:
            raise fail(where, "expected inlineData or fileData")
    return ToolResultBlock(
        tool_call_id=match.tool_call_id,
        tool_name=match.tool_name,
        outcome=outcome,  # type: ignore[arg-type]
        content=tuple(content),
        metadata=meta,
    )


def read_contents(contents: object, system: object, issuer: str = ISSUER) -> list[Message]:
    """Messages for ``systemInstruction`` and ``contents``.

    A user content splits into a tool message (its ``functionResponse`` parts) and user messages (the rest);
    the later pieces carry ``gemini/same_content`` so they are written back into one content.
    """
    messages: list[Message] = []
    if system is not None:
        sys = _obj(system, "$.systemInstruction")
        parts = sys.get("parts", [])
        texts = [
            TextBlock(text=_obj(p, f"$.systemInstruction.parts[{j}]").get("text"))  # type: ignore[arg-type]
            for j, p in enumerate(parts)
        ]
        head = {f"{NS}/role": sys["role"]} if "role" in sys else {}
        messages.append(Message(role="system", content=tuple(texts), metadata=head))
    if not isinstance(contents, list):
        raise fail("$.contents", "expected a list")
    pending: list[ToolCallBlock] = []
    for i, raw in enumerate(contents):
        path = f"$.contents[{i}]"
        content = _obj(raw, path)
        role = content.get("role")
        if role not in ("user", "model", None):
            raise fail(f"{path}.role", "expected user or model")
        parts = content.get("parts")
        if not isinstance(parts, list) or not parts:
            raise fail(f"{path}.parts", "expected a non-empty list")
        blocks = [
            part_block(_obj(p, f"{path}.parts[{j}]"), f"{path}.parts[{j}]", issuer, pending, (i, j))
            for j, p in enumerate(parts)
        ]
        if role == "model":
            messages.append(Message(role="assistant", content=tuple(blocks)))
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
            messages.append(Message(role=kind, content=tuple(run), metadata=meta))  # type: ignore[arg-type]
    return messages


def grounding_citations(blocks: list[Block], candidate: Mapping[str, Any]) -> list[Block]:
    """Attach ``groundingMetadata`` supports and ``citationMetadata`` to the text blocks they cite.

    Both count UTF-8 bytes on the wire: grounding segments within the part at ``partIndex``, citation
    metadata within the candidate's text (its non-thought text parts joined); spans become code points.
    """
    extra: dict[int, list[Citation]] = {}
    grounding = candidate.get("groundingMetadata") or {}
    chunks = grounding.get("groundingChunks") or []
    for support in grounding.get("groundingSupports") or []:
        seg = support.get("segment") or {}
        j = seg.get("partIndex", 0)
        if not (0 <= j < len(blocks)) or type(blocks[j]) is not TextBlock:
            continue
        text = blocks[j].text
        start, end = utf8_to_index(text, seg.get("startIndex", 0)), utf8_to_index(text, seg.get("endIndex", 0))
        for k in support.get("groundingChunkIndices") or []:
            chunk = chunks[k] if 0 <= k < len(chunks) else {}
            ref = chunk.get("web") or chunk.get("retrievedContext") or chunk.get("maps") or {}
            _add(extra, j, ref.get("uri"), ref.get("title"), start, end)
    texts = [(j, b.text) for j, b in enumerate(blocks) if type(b) is TextBlock]
    for c in (candidate.get("citationMetadata") or {}).get("citations") or []:
        start_b, end_b = c.get("startIndex", 0), c.get("endIndex", 0)
        offset = 0
        for j, text in texts:
            size = len(text.encode("utf-8", "surrogatepass"))
            if offset <= start_b < offset + size or (start_b == offset + size and j == texts[-1][0]):
                _add(
                    extra,
                    j,
                    c.get("uri"),
                    c.get("title"),
                    utf8_to_index(text, start_b - offset),
                    utf8_to_index(text, min(end_b, offset + size) - offset),
                )
                break
            offset += size
    out = list(blocks)
    for j, cites in extra.items():
        b = out[j]
        assert type(b) is TextBlock  # noqa: S101 - only text blocks get citations
        out[j] = TextBlock(text=b.text, citations=b.citations + tuple(cites), metadata=b.metadata)
    return out


def _add(extra: dict[int, list[Citation]], j: int, uri: object, title: object, start: int, end: int) -> None:
    if type(uri) is str and not uri.isascii():
        uri = quote(uri, safe=_URI_SAFE)  # an IRI (non-ASCII path): percent-encode as RFC 3986 requires
    try:
        name = (title.strip() or None) if type(title) is str else None
        extra.setdefault(j, []).append(Citation(source=CitedUri(value=uri), title=name, start=start, end=end))  # type: ignore[arg-type]
    except ValidationError:
        return
