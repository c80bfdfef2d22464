"""Writing neutral blocks as Anthropic Messages request JSON, recording every loss."""

from __future__ import annotations

import base64
from typing import Any

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
from .._json import thaw
from .._messages import Conversation, Message
from ._anthropic_read import NATIVE, NS, RESPONSE_FIELDS, SAME, STRING, derive_citation, media_type_read_back
from ._toolkit import PayloadWriter, json_text, put_extras, report_metadata
from ._contract import ISSUER_KEY, LossRecorder, issuer_matches

__all__ = ["write_conversation"]

TARGET = "Anthropic"
_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
_CITATIONS = f"{NS}/citations"
_IS_ERROR = f"{NS}/is_error"
_RESPONSE_KEYS = {f"{NS}/{key}" for key in RESPONSE_FIELDS}


class _Writer(PayloadWriter):
    """One conversion: the target issuer and the loss recorder."""

    namespace = NS
    target = TARGET

    def __init__(self, issuer: str) -> None:
        super().__init__()
        self.issuer = issuer

    # ------------------------------------------------------------------------------------------- text

    def text(self, block: TextBlock, path: str) -> dict[str, Any]:
        native: dict[str, Any] = {"type": "text", "text": block.text}
        stored = block.metadata.get(_CITATIONS, _MISSING)
        skip = set()
        if stored is not _MISSING:
            skip.add(_CITATIONS)
            if self._citations_match(stored, block):
                native["citations"] = thaw(stored)
                return self.finish(native, block.metadata, path, skip)
        for k, _ in enumerate(block.citations):
            self.loss(
                f"{path}.citations[{k}]",
                "Anthropic accepts back only the citations it issued, with their native coordinates; "
                "this citation has none (or they no longer match), so it is dropped and the text kept",
            )
        return self.finish(native, block.metadata, path, skip)

    @staticmethod
    def _citations_match(stored: Any, block: TextBlock) -> bool:
        if stored is None:
            return not block.citations
        if type(stored) is not list and not isinstance(stored, list):
            return False
        if len(stored) != len(block.citations):
            return False
        for raw, citation in zip(stored, block.citations, strict=True):
            if not isinstance(raw, dict):
                return False
            try:
                if derive_citation(raw) != citation:
                    return False
            except ValueError:
                return False
        return True

    # ------------------------------------------------------------------------------------------- files

    def file(self, block: FileBlock, path: str) -> dict[str, Any] | None:
        media_type, source = block.media_type, block.source
        is_image = media_type.split("/", 1)[0].strip().lower() == "image"
        native: dict[str, Any]
        if isinstance(source, ReferenceSource):
            if source.provider not in {None, NS}:
                self.loss(path, f"a file held by {source.provider!r} cannot be named in an Anthropic request; dropped")
                return None
            native = {"type": "image" if is_image else "document", "source": {"type": "file", "file_id": source.id}}
        elif isinstance(source, UrlSource):
            if is_image:
                native = {"type": "image", "source": {"type": "url", "url": source.url}}
            elif media_type == "application/pdf":
                native = {"type": "document", "source": {"type": "url", "url": source.url}}
            else:
                self.loss(path, f"Anthropic takes URLs only for images and PDFs, not {media_type}; dropped")
                return None
        else:
            built = self._inline(block, source, path, is_image=is_image)
            if built is None:
                return None
            native = built
        if not isinstance(source, BytesSource):
            # URL and file sources carry no media type: reading back can only name the kind.
            read_back = media_type_read_back(is_image=is_image, url=isinstance(source, UrlSource))
            if media_type != read_back:
                self.loss(
                    f"{path}.media_type", f"Anthropic sends no media type with this source; reads back as {read_back}"
                )
        if block.filename is not None:
            if native["type"] == "document" and f"{NS}/title" not in block.metadata:
                native["title"] = block.filename
                self.loss(f"{path}.filename", "sent as the document title; reads back as anthropic/title metadata")
            else:
                self.loss(f"{path}.filename", "Anthropic has no file name field here; dropped")
        return self.finish(native, block.metadata, path)

    def _inline(self, block: FileBlock, source: BytesSource, path: str, *, is_image: bool) -> dict[str, Any] | None:
        media_type = block.media_type
        if is_image:
            if media_type not in _IMAGE_TYPES:
                self.loss(
                    path, f"Anthropic takes inline images only as JPEG, PNG, GIF or WebP, not {media_type}; dropped"
                )
                return None
            return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": _b64(source.data)}}
        if media_type == "application/pdf":
            return {
                "type": "document",
                "source": {"type": "base64", "media_type": media_type, "data": _b64(source.data)},
            }
        if media_type.split("/", 1)[0].strip().lower() == "text":
            try:
                text = source.data.decode("utf-8")
            except UnicodeDecodeError:
                self.loss(path, "Anthropic takes inline text documents as UTF-8 only; this file is not UTF-8; dropped")
                return None
            if media_type != "text/plain":
                self.loss(f"{path}.media_type", f"sent as a text/plain document (was {media_type})")
            return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}
        self.loss(path, f"Anthropic takes inline files only as images, PDFs and text, not {media_type}; dropped")
        return None

    # ------------------------------------------------------------------------------------------- the rest

    def reasoning(self, block: ReasoningBlock, path: str) -> dict[str, Any] | None:
        issuer = block.metadata.get(ISSUER_KEY)
        if block.signature is None and block.redacted is None:
            self.loss(path, "reasoning without a signature cannot be sent to Anthropic; dropped (never sent as text)")
            return None
        if not issuer_matches(issuer, self.issuer):
            who = repr(issuer) if type(issuer) is str else "an unknown issuer"
            self.loss(path, f"reasoning state issued by {who} is only sent back to it, not to {self.issuer!r}; dropped")
            return None
        native: dict[str, Any]
        if block.redacted is not None:
            try:
                native = {"type": "redacted_thinking", "data": block.redacted.decode("utf-8")}
            except UnicodeDecodeError:
                self.loss(path, "redacted reasoning is not Anthropic's (its bytes are not a UTF-8 string); dropped")
                return None
        else:
            native = {"type": "thinking", "thinking": block.text or "", "signature": block.signature}
        return self.finish(native, block.metadata, path)

    def tool_call(self, block: ToolCallBlock, path: str) -> dict[str, Any]:
        value = thaw(block.input)
        if type(value) is not dict:
            value = {"value": value}
            self.loss(f"{path}.input", 'Anthropic tool input is an object; sent wrapped as {"value": input}')
        native = {"type": "tool_use", "id": block.tool_call_id, "name": block.tool_name, "input": value}
        return self.finish(native, block.metadata, path)

    def json(self, block: JsonBlock, path: str) -> dict[str, Any]:
        value = block.value
        if block.metadata.get(NATIVE) is True and isinstance(value, dict) and type(value.get("type")) is str:
            return self.finish(thaw(value), block.metadata, path, {NATIVE})
        self.loss(path, "Anthropic has no JSON block; sent as JSON text (reads back as a text block)")
        return self.finish({"type": "text", "text": json_text(value)}, block.metadata, path)

    def refusal(self, block: RefusalBlock, path: str) -> dict[str, Any]:
        self.loss(path, "Anthropic has no refusal block (a refusal is a stop reason); sent as text")
        return self.finish({"type": "text", "text": block.text}, block.metadata, path)

    def tool_result(self, block: ToolResultBlock, path: str) -> dict[str, Any]:
        native: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_call_id}
        content = []
        for k, item in enumerate(block.content):
            item_path = f"{path}.content[{k}]"
            built = self.text(item, item_path) if isinstance(item, TextBlock) else self.block(item, item_path)
            if built is not None:
                content.append(built)
        if block.metadata.get(STRING) is True and _plain_text(content) is not None:
            native["content"] = _plain_text(content)
        elif block.metadata.get(STRING) is True and not content:
            native["content"] = ""
        elif content:
            native["content"] = content
        if block.outcome != "succeeded":
            native["is_error"] = True
        if block.outcome == "denied":
            self.loss(
                f"{path}.outcome", "Anthropic has no denied status: sent as an error result (reads back as failed)"
            )
        skip = {STRING} if block.metadata.get(STRING) is True else set()
        if block.outcome != "succeeded" and _IS_ERROR in block.metadata:
            skip.add(_IS_ERROR)
        return self.finish(native, block.metadata, path, skip)

    def block(self, block: object, path: str) -> dict[str, Any] | None:
        """Any block but a tool result; ``None`` when it is dropped (the loss is already recorded)."""
        if isinstance(block, TextBlock):
            return self.text(block, path)
        if isinstance(block, FileBlock):
            return self.file(block, path)
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, path)
        if isinstance(block, ToolCallBlock):
            return self.tool_call(block, path)
        if isinstance(block, JsonBlock):
            return self.json(block, path)
        if isinstance(block, RefusalBlock):
            return self.refusal(block, path)
        assert isinstance(block, ToolResultBlock)  # noqa: S101 - the union is closed
        return self.tool_result(block, path)

    # ------------------------------------------------------------------------------------------- messages

    def conversation(self, conversation: Conversation) -> dict[str, Any]:
        system: list[dict[str, Any]] = []
        system_string = False
        messages: list[dict[str, Any]] = []
        for i, message in enumerate(conversation):
            path = f"$[{i}]"
            if message.role in {"system", "developer"}:
                if messages:
                    self.loss(path, "Anthropic takes instructions only in the top-level system prompt; moved there")
                if message.role == "developer":
                    self.loss(
                        f"{path}.role", "Anthropic has no developer role; sent as system text (reads back as system)"
                    )
                system_string = not system and message.metadata.get(STRING) is True
                system.extend(self.text(b, f"{path}.content[{j}]") for j, b in enumerate(message.content))  # type: ignore[arg-type]
                report_metadata(self.losses, path, message.metadata, {STRING}, TARGET)
                continue
            self._message(message, path, messages)
        payload: dict[str, Any] = {}
        if system:
            text = _plain_text(system)
            payload["system"] = text if system_string and text is not None else system
        payload["messages"] = messages
        return payload

    def _message(self, message: Message, path: str, messages: list[dict[str, Any]]) -> None:
        role = "assistant" if message.role == "assistant" else "user"
        content = [
            built
            for j, block in enumerate(message.content)
            if (built := self.block(block, f"{path}.content[{j}]")) is not None
        ]
        used = {STRING, SAME} | (_RESPONSE_KEYS if role == "assistant" else set())
        if not content:
            self.loss(path, "nothing in this message can be sent to Anthropic; the message is left out")
            report_metadata(self.losses, path, message.metadata, used, TARGET)
            return
        if message.metadata.get(SAME) is True and messages and messages[-1]["role"] == role:
            previous = messages[-1]
            if type(previous["content"]) is str:
                previous["content"] = [{"type": "text", "text": previous["content"]}]
            previous["content"].extend(content)
            report_metadata(self.losses, path, message.metadata, used, TARGET)
            return
        native: dict[str, Any] = {"role": role, "content": content}
        text = _plain_text(content)
        if message.metadata.get(STRING) is True and text is not None:
            native["content"] = text
        used |= put_extras(native, message.metadata, NS, used)
        report_metadata(self.losses, path, message.metadata, used, TARGET)
        messages.append(native)


_MISSING = object()


def _plain_text(content: list[dict[str, Any]]) -> str | None:
    """The text of a content list that is exactly one bare text block (the string shorthand), else ``None``."""
    if len(content) == 1 and content[0].keys() == {"type", "text"} and content[0]["type"] == "text":
        return content[0]["text"]  # type: ignore[no-any-return]
    return None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def write_conversation(conversation: Conversation, issuer: str) -> tuple[dict[str, Any], LossRecorder]:
    """The Anthropic request fields for ``conversation`` and the losses recorded on the way."""
    writer = _Writer(issuer)
    payload = writer.conversation(conversation)
    return payload, writer.losses
