"""Reading OpenAI Chat Completions messages (request messages, and a reply's message) into neutral blocks.

An explicit ``null`` where the API documents an optional field is read as absent, so every dump form the SDK
produces (``model_dump()`` writes ``null`` for unset fields, ``to_dict()`` leaves them out) reads the same.
"""

from __future__ import annotations

from typing import Any

from ..._errors import join_key
from ..._model._classes import (
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    Message,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ..._model._conversation import Conversation
from .._extras import take_extras
from .._media import lower_media_type
from .._part_breakpoints import OPENAI_CHAT, OPENROUTER, read_markers
from .._positions import position
from .._toolkit import (
    OCTET,
    b64decode,
    build,
    drop_nulls,
    fail,
    field,
    identifier,
    is_filename,
    is_reference,
    is_title,
    is_uri,
    obj,
    plain,
    present,
    read_arguments,
    read_data_url,
    require,
)
from ._dialects import Dialect, read_reasoning
from ._keys import (
    ANNOTATED,
    AUDIO,
    AUDIO_FORMATS,
    CONTENT,
    CUSTOM,
    DETAIL,
    FILE_DATA_BASE64,
    FILENAME,
    LIST,
    NS,
    OTHER_ANNOTATIONS,
    REFUSAL_PART,
)

__all__ = ["assistant_content", "read_conversation"]

#: Fields of a reply's message that only the SDK's parsing helpers add: derived from ``content`` and
#: ``arguments``, so nothing is lost when they are not read.
_DERIVED_MESSAGE = frozenset({"parsed"})
_DERIVED_CALL = frozenset({"index"})  # the stream accumulator's position of the call in the list
_DERIVED_FUNCTION = frozenset({"parsed_arguments"})


def _unknown(raw: dict[str, Any], known: set[str], path: str, what: str) -> None:
    """Refuse the first field of ``raw`` that is not in ``known``, naming it in the path."""
    for key in raw:
        if key not in known:
            raise fail(join_key(path, key), f"unknown field: {what} has no such field")


def _text_part(raw: dict[str, Any], path: str) -> TextBlock:
    return build(TextBlock, path, text=field(raw, "text", str, path), metadata=take_extras(raw, {"type", "text"}, NS))


def _parts(content: list[Any], path: str, allowed: set[str]) -> list[Any]:
    blocks: list[Any] = []
    for k, item in enumerate(content):
        part_path = f"{path}[{k}]"
        part = present(obj(plain(item), part_path))
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


def _image(part: dict[str, Any], path: str) -> FileBlock:
    image_path = f"{path}.image_url"
    image = present(obj(part.get("image_url"), image_path))
    url = field(image, "url", str, image_path)
    _unknown(image, {"url", "detail"}, image_path, "image_url")
    metadata = take_extras(part, {"type", "image_url"}, NS)
    if "detail" in image:
        metadata[DETAIL] = image["detail"]
    if url[:5].lower() == "data:":
        block = read_data_url(url, f"{image_path}.url")
        return build(FileBlock, path, media_type=block.media_type, source=block.source, metadata=metadata)
    source = build(UrlSource, image_path, url=url)
    return build(FileBlock, path, media_type="image/*", source=source, metadata=metadata)


def _audio(part: dict[str, Any], path: str) -> FileBlock:
    audio_path = f"{path}.input_audio"
    audio = obj(part.get("input_audio"), audio_path)
    _unknown(audio, {"data", "format"}, audio_path, "input_audio")
    fmt = field(audio, "format", str, audio_path)
    data = b64decode(field(audio, "data", str, audio_path), f"{audio_path}.data")
    media_type = AUDIO_FORMATS.get(fmt.lower(), lower_media_type(f"audio/{fmt}"))
    metadata = take_extras(part, {"type", "input_audio"}, NS)
    return build(FileBlock, path, media_type=media_type, source=BytesSource(data=data), metadata=metadata)


def _file(part: dict[str, Any], path: str) -> FileBlock:
    file_path = f"{path}.file"
    file = present(obj(part.get("file"), file_path))
    _unknown(file, {"file_id", "file_data", "filename"}, file_path, "file")
    metadata = take_extras(part, {"type", "file"}, NS)
    filename = field(file, "filename", str, file_path, optional=True)
    if filename is not None and not is_filename(filename):
        metadata[FILENAME] = filename  # kept verbatim: not a valid neutral file name
        filename = None
    source: BytesSource | UrlSource | ReferenceSource
    if "file_id" in file:
        require("file_data" not in file, file_path, "file_id and file_data are exclusive")
        source = build(ReferenceSource, file_path, id=field(file, "file_id", str, file_path), provider=NS)
        media_type = OCTET
    else:
        file_data = field(file, "file_data", str, file_path)
        if file_data[:5].lower() == "data:":
            block = read_data_url(file_data, f"{file_path}.file_data")
            source, media_type = block.source, block.media_type
        else:
            source = BytesSource(data=b64decode(file_data, f"{file_path}.file_data"))
            media_type = OCTET
            metadata[FILE_DATA_BASE64] = True
    return build(FileBlock, path, media_type=media_type, source=source, filename=filename, metadata=metadata)


def _tool_call(item: object, path: str) -> ToolCallBlock:
    raw = {k: v for k, v in present(obj(plain(item), path)).items() if k not in _DERIVED_CALL}
    kind = field(raw, "type", str, path)
    require(kind in {"function", "custom"}, f"{path}.type", "expected function or custom")
    inner_path = f"{path}.{kind}"
    inner = {k: v for k, v in present(obj(raw.get(kind), inner_path)).items() if k not in _DERIVED_FUNCTION}
    _unknown(inner, {"name", "input" if kind == "custom" else "arguments"}, inner_path, kind)
    metadata = take_extras(raw, {"type", "id", kind}, NS)
    if kind == "custom":
        value: Any = field(inner, "input", str, inner_path)
        metadata[CUSTOM] = True
    else:
        value, kept = read_arguments(field(inner, "arguments", str, inner_path))
        metadata.update(kept)
    return build(
        ToolCallBlock,
        path,
        tool_call_id=identifier(raw, "id", path),
        tool_name=identifier(inner, "name", inner_path),
        input=value,
        metadata=metadata,
    )


def _citations(annotations: list[Any], text: str, path: str) -> tuple[tuple[Citation, ...], list[Any]]:
    """``url_citation`` annotations as citations, and the annotations of other kinds (kept verbatim).

    A span that does not fit the text is left out, and so is a title that is not clean; a span index is read as
    the SDK reads it (``position``). An annotation kept verbatim loses its ``null`` members, as every field does.
    """
    out, other = [], []
    for k, item in enumerate(annotations):
        note = obj(plain(item), f"{path}[{k}]")
        if note.get("type") != "url_citation":
            kept = drop_nulls(note)
            span = kept.get("url_citation")
            if isinstance(span, dict):  # the SDK reads its span as a citation's, whatever the annotation's type
                for key in ("start_index", "end_index"):
                    number = position(span.get(key), f"{path}[{k}].url_citation.{key}")
                    if number is not None:
                        span[key] = number
            other.append(kept)
            continue
        cite_path = f"{path}[{k}].url_citation"
        cite = present(obj(note.get("url_citation"), cite_path))
        url, title = field(cite, "url", str, cite_path), cite.get("title")
        start = position(cite.get("start_index"), f"{cite_path}.start_index")
        end = position(cite.get("end_index"), f"{cite_path}.end_index")
        source: CitedUri | CitedReference
        if is_uri(url):
            source = CitedUri(value=url)
        else:
            require(is_reference(url), f"{cite_path}.url", "expected a URL")
            source = CitedReference(value=url)
        span = start is not None and end is not None and 0 <= start <= end <= len(text)
        out.append(
            Citation(
                source=source,
                title=title if is_title(title) else None,
                start=start if span else None,
                end=end if span else None,
            )
        )
    return tuple(out), other


def _text_content(raw: dict[str, Any], content: str, path: str) -> TextBlock:
    annotations = field(raw, "annotations", list, path, optional=True) or []
    citations, other = _citations(annotations, content, f"{path}.annotations")
    metadata: dict[str, Any] = {ANNOTATED: True} if citations else {}
    if other:
        metadata[OTHER_ANNOTATIONS] = other
    return build(TextBlock, f"{path}.content", text=content, citations=citations, metadata=metadata)


def assistant_content(
    raw: dict[str, Any], path: str, names: dict[str, str], dialect: Dialect
) -> tuple[list[Any], dict[str, Any]]:
    """The blocks and metadata of an assistant message (a request message or a reply's), in Chat's order.

    The dialect's reasoning comes first, then ``content``, then the ``refusal`` field, then the tool calls. The
    transcript of reply audio is the content of a spoken reply (sent back as its content, beside the audio id).
    ``names`` gains each tool call's name, for the tool messages that answer it.
    """
    raw = {k: v for k, v in present(raw).items() if k not in _DERIVED_MESSAGE}
    content = field(raw, "content", (str, list), path, optional=True)
    reasoning, read, kept = read_reasoning(raw, path, dialect)
    known = {"role", "content", "refusal", "tool_calls", "audio", *read}
    if type(content) is str and content:
        known.add("annotations")  # read as the text's citations; beside anything else they are kept verbatim
    metadata = {**take_extras(raw, known, NS), **kept}
    blocks: list[Any] = list(reasoning)
    if type(content) is str and content:
        blocks.append(_text_content(raw, content, path))
    elif type(content) is list and content:
        metadata[LIST] = True
        blocks.extend(_parts(content, f"{path}.content", {"text", "refusal"}))
    elif content is not None:
        metadata[CONTENT] = content  # "" or []: kept so it is written back as it was
    if "audio" in raw:
        audio = present(obj(plain(raw["audio"]), f"{path}.audio"))
        field(audio, "id", str, f"{path}.audio")
        metadata[AUDIO] = audio
        transcript = field(audio, "transcript", str, f"{path}.audio", optional=True)
        if transcript and len(blocks) == len(reasoning):  # the words of a spoken reply are its content
            blocks.append(build(TextBlock, f"{path}.audio.transcript", text=transcript))
    refusal = field(raw, "refusal", str, path, optional=True)
    if refusal:
        blocks.append(build(RefusalBlock, f"{path}.refusal", text=refusal))
    elif refusal is not None:
        metadata[f"{NS}/refusal"] = refusal  # "": kept verbatim
    for k, call in enumerate(field(raw, "tool_calls", list, path, optional=True) or []):
        block = _tool_call(call, f"{path}.tool_calls[{k}]")
        names[block.tool_call_id] = block.tool_name
        blocks.append(block)
    require(
        len(blocks) > len(reasoning) or "function_call" not in raw,
        f"{path}.function_call",
        "a message holding only a deprecated function_call cannot be read; use tool calls",
    )
    return blocks, metadata


def _assistant(raw: dict[str, Any], path: str, names: dict[str, str], dialect: Dialect) -> Message:
    blocks, metadata = assistant_content(raw, path, names, dialect)
    require(bool(blocks), path, "the message carries no content, refusal, audio transcript or tool call")
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


_REQUIRED = frozenset({"role", "content", "tool_call_id"})


def _message(item: object, path: str, names: dict[str, str], dialect: Dialect) -> Message:
    raw = obj(plain(item), path)
    role = field(raw, "role", str, path)
    if role == "assistant":
        return _assistant(raw, path, names, dialect)
    raw = present(raw, _REQUIRED)
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


def read_conversation(payload: object, dialect: Dialect) -> Conversation:
    """``{"messages": [...]}`` as a conversation, reasoning read as ``dialect`` puts it; other fields are not read.

    A message may be an SDK object (a reply's ``ChatCompletionMessage`` appended to the history) or any of its
    dump forms.
    """
    payload = obj(plain(payload), "$")
    names: dict[str, str] = {}
    raws = field(payload, "messages", list, "$")
    messages = [_message(raw, f"$.messages[{i}]", names, dialect) for i, raw in enumerate(raws)]
    conversation = Conversation(messages=tuple(messages))
    form = OPENROUTER if dialect == "openrouter" else OPENAI_CHAT if dialect == "openai" else None
    return conversation if form is None else read_markers(conversation, form)
