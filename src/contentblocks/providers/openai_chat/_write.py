"""Writing neutral messages as OpenAI Chat Completions request messages, recording every loss with its kind.

Native extras kept in metadata go back only through the allow-lists of ``_keys``; every other metadata entry
stays local and is reported as ``metadata_not_sent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..._json._values import thaw
from ..._model._classes import (
    BytesSource,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ..._model._conversation import Conversation
from .._approvals import restore_path, writing_without_approvals
from .._arguments import text_of
from .._cache import report_breakpoints
from .._compaction import compaction_as_text
from .._documents import report_document_fields
from .._media import lower_media_type
from .._native import foreign_reason, foreign_state
from .._part_breakpoints import OPENAI_CHAT, OPENROUTER, Breakpoints
from .._search_results import without_search_results
from .._server_tools import SERVER_BLOCKS, readable
from .._toolkit import OCTET, b64encode, data_url, json_text, raw_arguments
from ._dialects import SPECS, Dialect, tool_turns
from ._keys import (
    ALLOWED,
    ANNOTATED,
    AUDIO,
    AUDIO_FORMATS,
    CONTENT,
    CUSTOM,
    DETAIL,
    DETAILS,
    FILE_DATA_BASE64,
    FILENAME,
    LIST,
    NS,
    OTHER_ANNOTATIONS,
    REFUSAL_PART,
    TARGET,
    audio_id,
)
from ._replay import ReasoningWriter

__all__ = ["Sent", "ToolResultFiles", "write_conversation"]

ToolResultFiles = Literal["drop", "user_message"]

_FORMATS = {media_type: fmt for fmt, media_type in AUDIO_FORMATS.items()}
#: The dialects whose server takes a breakpoint on content parts, and its form.
_BREAKPOINTS = {"openai": OPENAI_CHAT, "openrouter": OPENROUTER}
_TEXT_FLAGS = frozenset({ANNOTATED, OTHER_ANNOTATIONS})
_CALL_FLAGS = frozenset({f"{NS}/arguments", f"{NS}/invalid_arguments", CUSTOM})
_CONTENT = (TextBlock, JsonBlock, RefusalBlock)  # what goes into an assistant message's content

#: Where each payload message came from: the path of its message (or, for a tool message, of its tool result)
#: in the conversation, and the paths of the tool calls it carries, in order.
Sent = tuple[str, tuple[str, ...]]


def _plain_text(parts: list[dict[str, Any]]) -> bool:
    return len(parts) == 1 and parts[0].keys() == {"type", "text"}


class _Writer(ReasoningWriter):
    """One conversion: where files of tool results go, the messages written and where each came from."""

    namespace = NS
    target = TARGET

    def __init__(self, tool_result_files: ToolResultFiles, dialect: Dialect, issuer: str) -> None:
        super().__init__()
        self.dialect = dialect
        self.issuer = issuer
        self.replayed = frozenset()
        self.move_files = tool_result_files == "user_message"
        self.moved: list[dict[str, Any]] = []
        self.moved_from = ""
        self.messages: list[dict[str, Any]] = []
        self.sent: list[Sent] = []
        #: The breakpoints, marked as the parts are written (``None``: the dialect's server has none)
        self.cache = Breakpoints(self.loss, _BREAKPOINTS[dialect]) if dialect in _BREAKPOINTS else None

    def part(
        self, native: dict[str, Any], metadata: Mapping[str, Any], path: str, skip: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        """A content part with the extras its part type accepts (and its block's breakpoint, where it takes one)."""
        part = self.finish(native, metadata, path, ALLOWED[native["type"]], skip)
        if self.cache is not None:
            self.cache.part(part, path)
        return part

    def text(self, block: TextBlock, path: str) -> dict[str, Any]:
        if block.metadata.get(ANNOTATED) is not True:  # a Chat reply's own annotations are never sent back
            for k, _ in enumerate(block.citations):
                self.loss(
                    f"{path}.citations[{k}]",
                    "Chat Completions requests carry no annotations; citation dropped, text kept",
                    "content_dropped",
                )
        return self.part({"type": "text", "text": block.text}, block.metadata, path, _TEXT_FLAGS)

    def json_as_text(self, block: JsonBlock, path: str) -> dict[str, Any] | None:
        """A text part holding the block's JSON; ``None`` for a provider's run item (its state, never text)."""
        foreign = foreign_state(block, "openai_chat")
        if foreign is not None:
            self.loss(path, foreign_reason(foreign, block, TARGET), "state_not_replayed")
            return None
        reason = "Chat Completions has no JSON part; sent as JSON text (reads back as a text block)"
        self.loss(path, reason, "content_degraded")
        return self.part({"type": "text", "text": text_of(block)}, block.metadata, path)

    def file(self, block: FileBlock, path: str) -> dict[str, Any] | None:
        """A user content part for a file: image_url, input_audio or file; ``None`` when it cannot be sent."""
        media_type, source, meta = lower_media_type(block.media_type), block.source, block.metadata  # RFC 6838
        major = media_type.split("/", 1)[0].strip().lower()
        skip = {FILE_DATA_BASE64}  # and each kept field the part is written with
        native: dict[str, Any]
        if isinstance(source, ReferenceSource):
            if source.provider not in {None, NS}:
                reason = f"a file held by {source.provider!r} cannot be named in an OpenAI request; dropped"
                self.loss(path, reason, "content_dropped")
                return None
            if source.provider is None:
                reason = "a file reference naming no provider is sent as an OpenAI file id (reads back as 'openai')"
                self.loss(path, reason, "content_degraded")
            if media_type != OCTET:
                reason = f"a file id carries no media type in Chat Completions; {media_type} reads back as "
                self.loss(path, reason + OCTET, "content_degraded")
            native = {"type": "file", "file": {"file_id": source.id}}
        elif major == "image" and not (isinstance(source, BytesSource) and media_type == "image/*"):
            url = source.url if isinstance(source, UrlSource) else data_url(media_type, source.data)
            native = {"type": "image_url", "image_url": {"url": url}}
            detail = meta.get(DETAIL)
            if type(detail) is str and detail in DETAILS:  # another value stays local, and is reported
                native["image_url"]["detail"] = detail
                skip.add(DETAIL)
        elif isinstance(source, UrlSource):
            self.loss(
                path, f"Chat Completions takes URLs only for images, not {media_type}; dropped", "content_dropped"
            )
            return None
        elif major == "audio":
            fmt = _FORMATS.get(media_type)
            if fmt is None:
                reason = f"Chat Completions takes audio only as WAV or MP3 (audio/wav, audio/mpeg), not {media_type}"
                self.loss(path, reason, "content_dropped")
                return None
            native = {"type": "input_audio", "input_audio": {"data": b64encode(source.data), "format": fmt}}
        elif meta.get(FILE_DATA_BASE64) is True and media_type == OCTET:
            native = {"type": "file", "file": {"file_data": b64encode(source.data)}}
        else:
            native = {"type": "file", "file": {"file_data": data_url(media_type, source.data)}}
        if native["type"] == "file":
            if block.filename is not None:
                native["file"]["filename"] = block.filename
            elif type(meta.get(FILENAME)) is str:
                native["file"]["filename"] = meta[FILENAME]
                skip.add(FILENAME)
        elif block.filename is not None:
            reason = f"a Chat Completions {native['type']} part has no file name; dropped"
            self.loss(f"{path}.filename", reason, "content_degraded")
        report_document_fields(block, path, self.loss, "Chat Completions")
        return self.part(native, meta, path, frozenset(skip))

    def user_part(self, block: object, path: str) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self.text(block, path)
        if isinstance(block, FileBlock):
            return self.file(block, path)
        assert isinstance(block, JsonBlock)  # noqa: S101 - the roles allow nothing else
        return self.json_as_text(block, path)

    # ------------------------------------------------------------------------------------------- messages

    def emit(self, native: dict[str, Any], path: str, calls: tuple[str, ...] = ()) -> None:
        self.messages.append(native)
        self.sent.append((path, calls))

    def with_content(self, message: Message, parts: list[dict[str, Any]], path: str) -> dict[str, Any]:
        native: dict[str, Any] = {"role": message.role}
        native["content"] = parts[0]["text"] if message.metadata.get(LIST) is not True and _plain_text(parts) else parts
        return self.finish(native, message.metadata, path, ALLOWED[message.role], {LIST})

    def user(self, message: Message, path: str) -> dict[str, Any] | None:
        parts = [
            p for j, b in enumerate(message.content) if (p := self.user_part(b, f"{path}.content[{j}]")) is not None
        ]
        if not parts:  # every block was reported on its own; the message's metadata goes nowhere
            self.report(path, message.metadata, {LIST})
            return None
        return self.with_content(message, parts, path)

    def assistant(self, message: Message, index: int, path: str) -> None:
        audio = audio_id(message.metadata)
        blocks = message.content
        shown = [j for j, b in enumerate(blocks) if isinstance(b, _CONTENT) or type(b) is CompactionBlock]
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        call_paths: list[str] = []
        refusal: str | None = None
        self.start_reasoning()
        for j, given in enumerate(blocks):
            block_path = f"{path}.content[{j}]"
            block = given
            if type(given) is CompactionBlock:  # its summary as text, its state reported (see ``_compaction``)
                summary = compaction_as_text(self, given, block_path)
                if summary is None:
                    continue
                block = summary
            if isinstance(block, _CONTENT) and calls:
                reason = "Chat Completions puts content before tool calls; moved ahead of them"
                self.loss(block_path, reason, "order_changed")
            if isinstance(block, TextBlock):
                parts.append(self.text(block, block_path))
            elif isinstance(block, JsonBlock):
                if (part := self.json_as_text(block, block_path)) is not None:
                    parts.append(part)
            elif isinstance(block, RefusalBlock):
                # the refusal field is read back after the content: it takes only a refusal that comes last
                if block.metadata.get(REFUSAL_PART) is not True and refusal is None and j == shown[-1]:
                    refusal = block.text
                    self.report(block_path, block.metadata)
                else:
                    part = {"type": "refusal", "refusal": block.text}
                    parts.append(self.part(part, block.metadata, block_path, frozenset({REFUSAL_PART})))
            elif isinstance(block, ToolCallBlock):
                calls.append(self.tool_call(block, block_path))
                call_paths.append(block_path)
            elif isinstance(block, ReasoningBlock):
                self.reasoning(block, index, block_path, after_content=bool(parts or calls or refusal is not None))
            elif isinstance(block, SERVER_BLOCKS):
                for item, item_path in readable(block, block_path, self.loss, TARGET):
                    if isinstance(item, TextBlock):
                        parts.append(self.text(item, item_path))
                    elif isinstance(item, JsonBlock):
                        if (part := self.json_as_text(item, item_path)) is not None:
                            parts.append(part)
                    else:
                        reason = "Chat Completions takes no files from the assistant; dropped"
                        self.loss(item_path, reason, "content_dropped")
            else:
                self.loss(block_path, "Chat Completions takes no files from the assistant; dropped", "content_dropped")
        native: dict[str, Any] = {"role": "assistant", **self.reasoning_fields()}
        if parts:
            plain = message.metadata.get(LIST) is not True and _plain_text(parts)
            native["content"] = parts[0]["text"] if plain else parts
        elif (kept := message.metadata.get(CONTENT)) == "" or kept == []:
            native["content"] = thaw(kept)
        if refusal is not None:
            native["refusal"] = refusal
        if audio:
            native["audio"] = {"id": audio}
        if calls:
            native["tool_calls"] = calls
        skip = {LIST, CONTENT, AUDIO}
        if len(native) == 1 or (native.keys() == {"role", "content"} and not parts):
            self.report(path, message.metadata, skip)  # nothing left to send
            return
        if native.keys() - {"content"} == {"role", "audio"} and not parts:
            # An audio reference alone is no message a reader can hold (a message carries a block): not sent.
            self.report(path, message.metadata, {LIST, CONTENT})
            return
        self.finish(native, message.metadata, path, ALLOWED["assistant"], skip)
        self.emit(native, path, tuple(call_paths))

    def tool_call(self, block: ToolCallBlock, path: str) -> dict[str, Any]:
        meta = block.metadata
        if meta.get(CUSTOM) is True:
            if type(block.input) is not str:
                self.loss(
                    f"{path}.input", "a custom tool takes text; the input is sent as JSON text", "content_degraded"
                )
            text = block.input if type(block.input) is str else json_text(block.input)
            custom = {"name": block.tool_name, "input": text}
            native = {"id": block.tool_call_id, "type": "custom", "custom": custom}
            return self.finish(native, meta, path, {}, _CALL_FLAGS)
        function = {"name": block.tool_name, "arguments": raw_arguments(block.input, meta)}
        native = {"id": block.tool_call_id, "type": "function", "function": function}
        return self.finish(native, meta, path, {}, _CALL_FLAGS)

    def tool(self, message: Message, path: str) -> None:
        self.report(path, message.metadata)
        for j, result in enumerate(message.content):
            assert isinstance(result, ToolResultBlock)  # noqa: S101 - the role allows nothing else
            self.emit(self.tool_result(result, f"{path}.content[{j}]"), f"{path}.content[{j}]")

    def tool_result(self, block: ToolResultBlock, path: str) -> dict[str, Any]:
        if block.outcome != "succeeded":
            reason = f"Chat Completions tool messages have no status; the {block.outcome} outcome is lost"
            self.loss(f"{path}.outcome", reason, "content_degraded")
        parts: list[dict[str, Any]] = []
        files: list[dict[str, Any]] = []
        for k, item in enumerate(block.content):
            item_path = f"{path}.content[{k}]"
            if isinstance(item, TextBlock):
                parts.append(self.text(item, item_path))
            elif isinstance(item, JsonBlock):
                if (part := self.json_as_text(item, item_path)) is not None:
                    parts.append(part)
            elif self.move_files:
                part = self.file(item, item_path)  # type: ignore[arg-type] # search results are text by now
                if part is not None:
                    reason = "Chat Completions tool messages carry text only; moved into a following user message"
                    self.loss(item_path, reason, "order_changed")
                    files.append(part)
            else:
                self.loss(item_path, "Chat Completions tool messages carry text only; file dropped", "content_dropped")
        if files:
            label = f"Files returned by tool call {block.tool_call_id} ({block.tool_name}):"
            self.moved_from = self.moved_from or path
            self.moved.extend([{"type": "text", "text": label}, *files])
        native: dict[str, Any] = {"role": "tool", "tool_call_id": block.tool_call_id}
        if block.metadata.get(LIST) is True or len(parts) > 1 or any(p.keys() != {"type", "text"} for p in parts):
            native["content"] = parts
        else:
            native["content"] = parts[0]["text"] if parts else ""
        if self.cache is not None:
            self.cache.last(native, path)  # the result's own breakpoint, after its parts
        return self.finish(native, block.metadata, path, {}, {LIST})

    def flush_moved(self) -> None:
        if self.moved:
            self.emit({"role": "user", "content": self.moved}, self.moved_from)
            self.moved, self.moved_from = [], ""

    def conversation(self, conversation: Conversation) -> dict[str, Any]:
        if SPECS[self.dialect].replay == "tool_turns":
            roles = [(m.role, any(isinstance(b, ToolCallBlock) for b in m.content)) for m in conversation]
            self.replayed = tool_turns(roles)
        else:
            self.replayed = frozenset(range(len(conversation)))
        for i, message in enumerate(conversation):
            path = f"$[{i}]"
            if self.cache is None:
                reason = f"the {self.dialect} dialect's server takes no cache breakpoint in a request; not sent"
                report_breakpoints(self.loss, message, path, reason)
            else:
                self.cache.expect(message, path)
            self.message(message, i, path)
            if self.cache is not None:
                last = len(message.content) - 1
                self.cache.last(self._emitted(f"{path}.content[{last}]" if message.role == "tool" else path), path)
                self.cache.done(path)
        self.flush_moved()
        if self.cache is not None:
            self.cache.limit()
        return {"messages": self.messages}

    def message(self, message: Message, index: int, path: str) -> None:
        if message.role == "tool":
            self.tool(message, path)
            return
        self.flush_moved()
        if message.role == "assistant":
            self.assistant(message, index, path)
            return
        native = self.user(message, path) if message.role == "user" else self.instructions(message, path)
        if native is not None:
            self.emit(native, path)

    def _emitted(self, path: str) -> dict[str, Any] | None:
        """The last message written from the message (or tool result) at ``path``, if one was."""
        if self.sent and self.sent[-1][0] == path:
            return self.messages[-1]
        return None

    def instructions(self, message: Message, path: str) -> dict[str, Any]:
        parts = [self.text(block, f"{path}.content[{j}]") for j, block in enumerate(message.content)]  # type: ignore[arg-type]
        return self.with_content(message, parts, path)


def write_conversation(
    conversation: Conversation, tool_result_files: ToolResultFiles, dialect: Dialect = "openai", issuer: str = ""
) -> tuple[dict[str, Any], _Writer]:
    """The Chat Completions ``messages`` for ``conversation`` in ``dialect``, and the writer (its losses and ``sent``).

    ``issuer`` is the target of reasoning state: the dialect's name when empty.
    """
    writer = _Writer(tool_result_files, dialect, issuer or dialect)

    def write(messages: Conversation) -> dict[str, Any]:
        return writer.conversation(without_search_results(messages, writer.loss, "Chat Completions"))

    payload, paths = writing_without_approvals(conversation, writer.losses.losses, "Chat Completions", write)
    if paths is not None:
        writer.sent = [(restore_path(at, paths), tuple(restore_path(c, paths) for c in calls))
                       for at, calls in writer.sent]  # fmt: skip
    return payload, writer
