"""Writing neutral messages as OpenAI Chat Completions request messages, recording every loss."""

from __future__ import annotations

import base64
from typing import Any, Literal

from .._blocks import (
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
from .._json import json_key, thaw
from .._messages import Conversation, Message
from ._toolkit import PayloadWriter, data_url, json_text, parse_json_text, report_metadata
from ._contract import LossRecorder
from ._openai_chat_read import (
    ARGUMENTS,
    AUDIO_FORMATS,
    CUSTOM,
    DETAIL,
    FILE_DATA_BASE64,
    INVALID_ARGUMENTS,
    LIST,
    NS,
    REFUSAL_PART,
    RESPONSE_FIELDS,
)

_ID_MEDIA_TYPE = "application/octet-stream"  # what a file id reads back as

__all__ = ["ToolResultFiles", "write_conversation"]

ToolResultFiles = Literal["drop", "user_message"]
TARGET = "OpenAI Chat Completions"
_FORMATS = {media_type: fmt for fmt, media_type in AUDIO_FORMATS.items()}
_RESPONSE_KEYS = {f"{NS}/{key}" for key in RESPONSE_FIELDS}
_FILENAME = f"{NS}/filename"


class _Writer(PayloadWriter):
    """One conversion: where files of tool results go, and the loss recorder."""

    namespace = NS
    target = TARGET

    def __init__(self, tool_result_files: ToolResultFiles) -> None:
        super().__init__()
        self.move_files = tool_result_files == "user_message"
        self.moved: list[dict[str, Any]] = []

    def text(self, block: TextBlock, path: str) -> dict[str, Any]:
        for k, _ in enumerate(block.citations):
            self.loss(
                f"{path}.citations[{k}]", "Chat Completions requests carry no annotations; citation dropped, text kept"
            )
        return self.finish({"type": "text", "text": block.text}, block.metadata, path)

    def json_as_text(self, block: JsonBlock, path: str) -> dict[str, Any]:
        self.loss(path, "Chat Completions has no JSON part; sent as JSON text (reads back as a text block)")
        return self.finish({"type": "text", "text": json_text(block.value)}, block.metadata, path)

    def file(self, block: FileBlock, path: str) -> dict[str, Any] | None:
        """A user content part for a file: image_url, input_audio or file; ``None`` when it cannot be sent."""
        media_type, source = block.media_type, block.source
        major = media_type.split("/", 1)[0].strip().lower()
        skip: set[str] = set()
        native: dict[str, Any]
        if isinstance(source, ReferenceSource):
            if source.provider not in {None, NS}:
                self.loss(path, f"a file held by {source.provider!r} cannot be named in an OpenAI request; dropped")
                return None
            if source.provider is None:
                reason = "a file reference naming no provider is sent as an OpenAI file id (reads back as 'openai')"
                self.loss(path, reason)
            if media_type != _ID_MEDIA_TYPE:
                reason = f"a file id carries no media type in Chat Completions; {media_type} reads back as "
                self.loss(path, reason + _ID_MEDIA_TYPE)
            native = {"type": "file", "file": {"file_id": source.id}}
        elif major == "image" and not (isinstance(source, BytesSource) and media_type == "image/*"):
            url = source.url if isinstance(source, UrlSource) else data_url(media_type, source.data)
            native = {"type": "image_url", "image_url": {"url": url}}
            if DETAIL in block.metadata:
                native["image_url"]["detail"] = thaw(block.metadata[DETAIL])
                skip.add(DETAIL)
        elif isinstance(source, UrlSource):
            self.loss(path, f"Chat Completions takes URLs only for images, not {media_type}; dropped")
            return None
        elif major == "audio":
            fmt = _FORMATS.get(media_type)
            if fmt is None:
                self.loss(
                    path,
                    f"Chat Completions takes audio only as WAV or MP3 (audio/wav, audio/mpeg), not {media_type}",
                )
                return None
            native = {"type": "input_audio", "input_audio": {"data": _b64(source.data), "format": fmt}}
        elif block.metadata.get(FILE_DATA_BASE64) is True and media_type == "application/octet-stream":
            native = {"type": "file", "file": {"file_data": _b64(source.data)}}
            skip.add(FILE_DATA_BASE64)
        else:
            native = {"type": "file", "file": {"file_data": data_url(media_type, source.data)}}
        if native["type"] == "file":
            if block.filename is not None:
                native["file"]["filename"] = block.filename
            elif type(block.metadata.get(_FILENAME)) is str:
                native["file"]["filename"] = block.metadata[_FILENAME]
                skip.add(_FILENAME)
        elif block.filename is not None:
            self.loss(f"{path}.filename", f"a Chat Completions {native['type']} part has no file name; dropped")
        return self.finish(native, block.metadata, path, skip)

    def user_part(self, block: object, path: str) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self.text(block, path)
        if isinstance(block, FileBlock):
            return self.file(block, path)
        assert isinstance(block, JsonBlock)  # noqa: S101 - the roles allow nothing else
        return self.json_as_text(block, path)

    # ------------------------------------------------------------------------------------------- messages

    def instructions(self, message: Message, path: str) -> dict[str, Any]:
        parts = [self.text(block, f"{path}.content[{j}]") for j, block in enumerate(message.content)]  # type: ignore[arg-type]
        return self._with_content({"role": message.role}, parts, message, path)

    def user(self, message: Message, path: str) -> dict[str, Any] | None:
        parts = [
            p for j, b in enumerate(message.content) if (p := self.user_part(b, f"{path}.content[{j}]")) is not None
        ]
        if not parts:
            self.loss(path, "nothing in this message can be sent to Chat Completions; the message is left out")
            report_metadata(self.losses, path, message.metadata, {LIST}, TARGET)
            return None
        return self._with_content({"role": "user"}, parts, message, path)

    def _with_content(
        self, native: dict[str, Any], parts: list[dict[str, Any]], message: Message, path: str
    ) -> dict[str, Any]:
        use_string = message.metadata.get(LIST) is not True and len(parts) == 1 and parts[0].keys() == {"type", "text"}
        native["content"] = parts[0]["text"] if use_string else parts
        return self.finish(native, message.metadata, path, {LIST})

    def assistant(self, message: Message, path: str) -> dict[str, Any] | None:
        native: dict[str, Any] = {"role": "assistant"}
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        for j, block in enumerate(message.content):
            block_path = f"{path}.content[{j}]"
            if calls and isinstance(block, (TextBlock, RefusalBlock, JsonBlock)):
                self.loss(block_path, "Chat Completions puts content before tool calls; moved ahead of them")
            if isinstance(block, TextBlock):
                parts.append(self.text(block, block_path))
            elif isinstance(block, JsonBlock):
                parts.append(self.json_as_text(block, block_path))
            elif isinstance(block, RefusalBlock):
                if block.metadata.get(REFUSAL_PART) is not True and "refusal" not in native:
                    native["refusal"] = block.text
                    self.finish({}, block.metadata, block_path)
                else:
                    if block.metadata.get(REFUSAL_PART) is not True:
                        self.loss(block_path, "a message has one refusal field; sent as a refusal content part")
                    parts.append(
                        self.finish(
                            {"type": "refusal", "refusal": block.text}, block.metadata, block_path, {REFUSAL_PART}
                        )
                    )
            elif isinstance(block, ToolCallBlock):
                calls.append(self.tool_call(block, block_path))
            elif isinstance(block, ReasoningBlock):
                self.loss(block_path, "Chat Completions takes no reasoning back; dropped (never sent as text)")
            else:
                self.loss(block_path, "Chat Completions takes no files from the assistant; dropped")
        if parts:
            use_string = (
                message.metadata.get(LIST) is not True and len(parts) == 1 and parts[0].keys() == {"type", "text"}
            )
            native["content"] = parts[0]["text"] if use_string else parts
        if calls:
            native["tool_calls"] = calls
        if not parts and not calls and "refusal" not in native:
            self.loss(path, "nothing in this message can be sent to Chat Completions; the message is left out")
            report_metadata(self.losses, path, message.metadata, {LIST} | _RESPONSE_KEYS, TARGET)
            return None
        return self.finish(native, message.metadata, path, {LIST} | _RESPONSE_KEYS)

    def tool_call(self, block: ToolCallBlock, path: str) -> dict[str, Any]:
        meta = block.metadata
        skip = {ARGUMENTS, INVALID_ARGUMENTS, CUSTOM}
        if meta.get(CUSTOM) is True:
            text = block.input if type(block.input) is str else json_text(block.input)
            if type(block.input) is not str:
                self.loss(f"{path}.input", "a custom tool takes text; the input is sent as JSON text")
            native: dict[str, Any] = {
                "id": block.tool_call_id,
                "type": "custom",
                "custom": {"name": block.tool_name, "input": text},
            }
            return self.finish(native, meta, path, skip)
        arguments = json_text(block.input)
        if meta.get(INVALID_ARGUMENTS) is True and type(block.input) is str:
            arguments = block.input  # the model's own text, not valid JSON: sent back verbatim
        elif type(meta.get(ARGUMENTS)) is str:
            ok, value = parse_json_text(meta[ARGUMENTS])
            if ok and json_key(value) == json_key(block.input):
                arguments = meta[ARGUMENTS]
        function = {"name": block.tool_name, "arguments": arguments}
        return self.finish({"id": block.tool_call_id, "type": "function", "function": function}, meta, path, skip)

    def tool(self, message: Message, path: str, out: list[dict[str, Any]]) -> None:
        report_metadata(self.losses, path, message.metadata, (), TARGET)
        for j, result in enumerate(message.content):
            assert isinstance(result, ToolResultBlock)  # noqa: S101 - the role allows nothing else
            out.append(self.tool_result(result, f"{path}.content[{j}]"))

    def tool_result(self, block: ToolResultBlock, path: str) -> dict[str, Any]:
        if block.outcome != "succeeded":
            self.loss(
                f"{path}.outcome", f"Chat Completions tool messages have no status; the {block.outcome} outcome is lost"
            )
        parts: list[dict[str, Any]] = []
        files: list[dict[str, Any]] = []
        for k, item in enumerate(block.content):
            item_path = f"{path}.content[{k}]"
            if isinstance(item, TextBlock):
                parts.append(self.text(item, item_path))
            elif isinstance(item, JsonBlock):
                parts.append(self.json_as_text(item, item_path))
            elif self.move_files:
                part = self.file(item, item_path)
                if part is not None:
                    self.loss(
                        item_path, "Chat Completions tool messages carry text only; moved into a following user message"
                    )
                    files.append(part)
            else:
                self.loss(item_path, "Chat Completions tool messages carry text only; file dropped")
        if files:
            label = f"Files returned by tool call {block.tool_call_id} ({block.tool_name}):"
            self.moved.extend([{"type": "text", "text": label}, *files])
        native: dict[str, Any] = {"role": "tool", "tool_call_id": block.tool_call_id}
        if block.metadata.get(LIST) is True or len(parts) > 1 or any(p.keys() != {"type", "text"} for p in parts):
            native["content"] = parts
        else:
            native["content"] = parts[0]["text"] if parts else ""
        return self.finish(native, block.metadata, path, {LIST})

    def conversation(self, conversation: Conversation) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        for i, message in enumerate(conversation):
            path = f"$[{i}]"
            if message.role != "tool" and self.moved:
                messages.append({"role": "user", "content": self.moved})
                self.moved = []
            if message.role == "tool":
                self.tool(message, path, messages)
                continue
            if message.role in {"system", "developer"}:
                native: dict[str, Any] | None = self.instructions(message, path)
            elif message.role == "user":
                native = self.user(message, path)
            else:
                native = self.assistant(message, path)
            if native is not None:
                messages.append(native)
        if self.moved:
            messages.append({"role": "user", "content": self.moved})
        return {"messages": messages}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def write_conversation(
    conversation: Conversation, tool_result_files: ToolResultFiles
) -> tuple[dict[str, Any], LossRecorder]:
    """The Chat Completions ``messages`` for ``conversation`` and the losses recorded on the way."""
    writer = _Writer(tool_result_files)
    payload = writer.conversation(conversation)
    return payload, writer.losses
