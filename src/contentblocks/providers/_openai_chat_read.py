"""Reading OpenAI Chat Completions JSON (request messages and ChatCompletion bodies) into neutral messages."""

from __future__ import annotations

from typing import Any

from .._api import file_from_data_url
from .._blocks import (
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from .._errors import ValidationError
from .._messages import Conversation, Message
from .._rules import check_filename
from ._toolkit import (
    build,
    decode_base64,
    field,
    is_clean,
    is_uri,
    json_text,
    obj,
    parse_json_text,
    require,
    take_extras,
)

__all__ = [
    "ARGUMENTS",
    "AUDIO_FORMATS",
    "CUSTOM",
    "DETAIL",
    "FILE_DATA_BASE64",
    "INVALID_ARGUMENTS",
    "LIST",
    "NS",
    "REFUSAL_PART",
    "RESPONSE_FIELDS",
    "read_conversation",
    "read_response",
]

NS = "openai"
#: Message or tool-result flag: the native content was a list of parts where a string would have done.
LIST = "openai/content_list"
#: Tool-call flag: the model's ``arguments`` were not valid JSON; ``input`` holds them as a string, verbatim.
INVALID_ARGUMENTS = "openai/invalid_arguments"
#: Tool-call metadata: the exact ``arguments`` text, when it differs from the compact JSON of ``input``.
ARGUMENTS = "openai/arguments"
#: Tool-call flag: a ``custom`` tool call, whose free-text input is held as a string.
CUSTOM = "openai/custom_tool"
#: Refusal flag: the refusal was a content part, not the message's ``refusal`` field.
REFUSAL_PART = "openai/refusal_part"
#: File metadata: an image part's ``detail``.
DETAIL = "openai/detail"
#: File flag: ``file_data`` was bare base64 rather than a data URL.
FILE_DATA_BASE64 = "openai/file_data_base64"
#: Response fields kept in message metadata by ``from_response``.
RESPONSE_FIELDS = ("id", "model", "finish_reason", "usage")
AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}


def _text_part(raw: dict[str, Any], path: str) -> TextBlock:
    return build(TextBlock, path, text=field(raw, "text", str, path), metadata=take_extras(raw, {"type", "text"}, NS))


def _parts(content: list[Any], path: str, allowed: set[str]) -> list[Any]:
    blocks: list[Any] = []
    for k, item in enumerate(content):
        part_path = f"{path}[{k}]"
        part = obj(item, part_path)
        kind = field(part, "type", str, part_path)
        require(kind in allowed, f"{part_path}.type", f"expected one of: {', '.join(sorted(allowed))}")
        if kind == "text":
            blocks.append(_text_part(part, part_path))
        elif kind == "refusal":
            metadata = {REFUSAL_PART: True, **take_extras(part, {"type", "refusal"}, NS)}
            blocks.append(
                build(RefusalBlock, part_path, text=field(part, "refusal", str, part_path), metadata=metadata)
            )
        elif kind == "image_url":
            blocks.append(_image(part, part_path))
        elif kind == "input_audio":
            blocks.append(_audio(part, part_path))
        else:
            blocks.append(_file(part, part_path))
    return blocks


def _from_data_url(url: str, path: str, filename: str | None = None) -> FileBlock:
    try:
        return file_from_data_url(url, filename=filename)
    except ValidationError as e:
        raise ValidationError([(path, m) for _, m in e.errors]) from None


def _image(part: dict[str, Any], path: str) -> FileBlock:
    image = obj(part.get("image_url"), f"{path}.image_url")
    url = field(image, "url", str, f"{path}.image_url")
    extra = set(image) - {"url", "detail"}
    require(not extra, f"{path}.image_url", "unknown field in image_url")
    metadata = take_extras(part, {"type", "image_url"}, NS)
    if "detail" in image:
        metadata[DETAIL] = image["detail"]
    if url[:5].lower() == "data:":
        block = _from_data_url(url, f"{path}.image_url.url")
        return build(FileBlock, path, media_type=block.media_type, source=block.source, metadata=metadata)
    source = build(UrlSource, f"{path}.image_url", url=url)
    return build(FileBlock, path, media_type="image/*", source=source, metadata=metadata)


def _audio(part: dict[str, Any], path: str) -> FileBlock:
    audio = obj(part.get("input_audio"), f"{path}.input_audio")
    audio_path = f"{path}.input_audio"
    require(set(audio) <= {"data", "format"}, audio_path, "unknown field in input_audio")
    fmt = field(audio, "format", str, audio_path)
    data = decode_base64(field(audio, "data", str, audio_path), f"{audio_path}.data")
    media_type = AUDIO_FORMATS.get(fmt, f"audio/{fmt}")
    metadata = take_extras(part, {"type", "input_audio"}, NS)
    return build(FileBlock, path, media_type=media_type, source=BytesSource(data=data), metadata=metadata)


def _file(part: dict[str, Any], path: str) -> FileBlock:
    file = obj(part.get("file"), f"{path}.file")
    file_path = f"{path}.file"
    require(set(file) <= {"file_id", "file_data", "filename"}, file_path, "unknown field in file")
    metadata = take_extras(part, {"type", "file"}, NS)
    filename = field(file, "filename", str, file_path, optional=True)
    if filename is not None and check_filename(filename) is not None:
        metadata[f"{NS}/filename"] = filename  # kept verbatim: not a valid neutral file name
        filename = None
    source: BytesSource | UrlSource | ReferenceSource
    if "file_id" in file:
        require("file_data" not in file, file_path, "file_id and file_data are exclusive")
        source = build(ReferenceSource, file_path, id=field(file, "file_id", str, file_path), provider=NS)
        media_type = "application/octet-stream"
    else:
        file_data = field(file, "file_data", str, file_path)
        if file_data[:5].lower() == "data:":
            block = _from_data_url(file_data, f"{file_path}.file_data")
            source, media_type = block.source, block.media_type
        else:
            source = BytesSource(data=decode_base64(file_data, f"{file_path}.file_data"))
            media_type = "application/octet-stream"
            metadata[FILE_DATA_BASE64] = True
    return build(FileBlock, path, media_type=media_type, source=source, filename=filename, metadata=metadata)


def _tool_call(raw: object, path: str) -> ToolCallBlock:
    raw = obj(raw, path)
    kind = field(raw, "type", str, path)
    require(kind in {"function", "custom"}, f"{path}.type", "expected function or custom")
    inner_path = f"{path}.{kind}"
    inner = obj(raw.get(kind), inner_path)
    require(set(inner) <= {"name", "arguments", "input"}, inner_path, "unknown field")
    metadata = take_extras(raw, {"type", "id", kind}, NS)
    name = field(inner, "name", str, inner_path)
    if kind == "custom":
        value: Any = field(inner, "input", str, inner_path)
        metadata[CUSTOM] = True
    else:
        arguments = field(inner, "arguments", str, inner_path)
        ok, value = parse_json_text(arguments)
        if not ok:
            value = arguments
            metadata[INVALID_ARGUMENTS] = True
        elif arguments != json_text(value):
            metadata[ARGUMENTS] = arguments
    return build(
        ToolCallBlock, path, tool_call_id=field(raw, "id", str, path), tool_name=name, input=value, metadata=metadata
    )


def _citations(annotations: list[Any], text: str, path: str) -> tuple[Citation, ...]:
    """``url_citation`` annotations as citations; a span that does not fit the text is left out."""
    out = []
    for k, item in enumerate(annotations):
        note = obj(item, f"{path}[{k}]")
        if note.get("type") != "url_citation":
            continue
        cite = obj(note.get("url_citation"), f"{path}[{k}].url_citation")
        url, title = cite.get("url"), cite.get("title")
        start, end = cite.get("start_index"), cite.get("end_index")
        source: CitedUri | CitedReference
        if type(url) is str and is_uri(url):
            source = CitedUri(value=url)
        else:
            require(is_clean(url), f"{path}[{k}].url_citation.url", "expected a URL")
            source = CitedReference(value=str(url))
        span = type(start) is int and type(end) is int and 0 <= start <= end <= len(text)
        out.append(
            Citation(
                source=source,
                title=title if is_clean(title) else None,
                start=start if span else None,
                end=end if span else None,
            )
        )
    return tuple(out)


def _assistant(raw: dict[str, Any], path: str, names: dict[str, str]) -> Message:
    known = {"role", "content", "refusal", "tool_calls", "annotations"}
    metadata = take_extras(raw, known, NS)
    blocks: list[Any] = []
    content = raw.get("content")
    if type(content) is str and content:
        citations = _citations(
            field(raw, "annotations", list, path, optional=True) or [], content, f"{path}.annotations"
        )
        blocks.append(build(TextBlock, f"{path}.content", text=content, citations=citations))
    elif type(content) is list and content:
        metadata[LIST] = True
        blocks.extend(_parts(content, f"{path}.content", {"text", "refusal"}))
    elif "content" in raw:
        metadata[f"{NS}/content"] = content  # null, "" or []: kept verbatim
    refusal = raw.get("refusal")
    if type(refusal) is str and refusal:
        blocks.append(build(RefusalBlock, f"{path}.refusal", text=refusal))
    elif "refusal" in raw:
        metadata[f"{NS}/refusal"] = refusal
    calls = field(raw, "tool_calls", list, path, optional=True)
    if calls:
        for k, call in enumerate(calls):
            block = _tool_call(call, f"{path}.tool_calls[{k}]")
            names[block.tool_call_id] = block.tool_name
            blocks.append(block)
    elif calls is not None:
        metadata[f"{NS}/tool_calls"] = calls
    require(bool(blocks), path, "the message carries no content, refusal or tool call")
    return build(Message, path, role="assistant", content=blocks, metadata=metadata)


def _tool(raw: dict[str, Any], path: str, names: dict[str, str]) -> Message:
    tool_call_id = field(raw, "tool_call_id", str, path)
    require(tool_call_id in names, f"{path}.tool_call_id", "answers no earlier tool call")
    content = field(raw, "content", (str, list), path)
    metadata = take_extras(raw, {"role", "tool_call_id", "content"}, NS)
    if type(content) is str:
        blocks = [build(TextBlock, f"{path}.content", text=content)] if content else []
    else:
        metadata[LIST] = True
        blocks = _parts(content, f"{path}.content", {"text"})
    result = build(
        ToolResultBlock,
        path,
        tool_call_id=tool_call_id,
        tool_name=names[tool_call_id],
        outcome="succeeded",
        content=blocks,
        metadata=metadata,
    )
    return build(Message, path, role="tool", content=[result])


def _message(raw: object, path: str, names: dict[str, str]) -> Message:
    raw = obj(raw, path)
    role = field(raw, "role", str, path)
    if role == "assistant":
        return _assistant(raw, path, names)
    if role == "tool":
        return _tool(raw, path, names)
    require(
        role in {"system", "developer", "user"}, f"{path}.role", "expected system, developer, user, assistant or tool"
    )
    content = field(raw, "content", (str, list), path)
    metadata = take_extras(raw, {"role", "content"}, NS)
    if type(content) is str:
        blocks: list[Any] = [build(TextBlock, f"{path}.content", text=content)]
    else:
        metadata[LIST] = True
        allowed = {"text", "image_url", "input_audio", "file"} if role == "user" else {"text"}
        blocks = _parts(content, f"{path}.content", allowed)
    return build(Message, path, role=role, content=blocks, metadata=metadata)


def read_conversation(payload: object) -> Conversation:
    """``{"messages": [...]}`` as a conversation; other request fields are not read."""
    payload = obj(payload, "$")
    names: dict[str, str] = {}
    messages = [_message(raw, f"$.messages[{i}]", names) for i, raw in enumerate(field(payload, "messages", list, "$"))]
    return Conversation(messages=tuple(messages))


def read_response(response: object) -> Message:
    """A ChatCompletion body's first choice as one assistant message, with the response fields in metadata."""
    response = obj(response, "$")
    choices = field(response, "choices", list, "$")
    require(bool(choices), "$.choices", "the response has no choices")
    choice = obj(choices[0], "$.choices[0]")
    raw = obj(choice.get("message"), "$.choices[0].message")
    require(raw.get("role", "assistant") == "assistant", "$.choices[0].message.role", "expected assistant")
    message = _assistant(raw, "$.choices[0].message", {})
    metadata = dict(message.metadata)
    for key in RESPONSE_FIELDS:
        value = choice.get(key) if key == "finish_reason" else response.get(key)
        if value is not None:
            metadata[f"{NS}/{key}"] = value
    return Message(role="assistant", content=message.content, metadata=metadata)
