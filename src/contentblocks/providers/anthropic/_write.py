"""Writing neutral blocks as Anthropic Messages request JSON, recording every loss with its kind."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ..._json._values import thaw
from ..._model._classes import (
    Block,
    BytesSource,
    CitedReference,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    SearchResultBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ..._model._conversation import Conversation
from .._approvals import restore_path, writing_without_approvals
from .._arguments import object_input, text_of, value_of
from .._cache import HINT, inner_breakpoints
from .._compaction import compaction_as_text
from .._contract import ISSUER_KEY, LossRecorder, issued_by, issuer_matches
from .._documents import report_document_fields
from .._extras import PayloadWriter
from .._media import lower_media_type
from .._native import ANTHROPIC, foreign_reason, foreign_state, replay_refusal
from .._search_results import result_without_search_results
from .._server_tools import SERVER_BLOCKS, issued_to, readable
from .._toolkit import b64encode, block_path, is_uri
from ._cache import Marks
from ._fields import EXTRAS, NS, request_citation
from ._read import IN_MESSAGES, NATIVE, SAME, STRING, derive_citation, media_type_read_back
from ._server import CALL_KINDS, RESULT, TYPE, replay_result

__all__ = ["Written", "write_conversation"]

TARGET = "Anthropic"
_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
_CITATIONS = f"{NS}/citations"
_IS_ERROR = f"{NS}/is_error"
_FLAGS = frozenset({STRING, SAME, IN_MESSAGES})
_VERBATIM_PART_CACHE = "the result goes back as Anthropic sent it, which holds no cache breakpoint; not sent"


class Written(NamedTuple):
    """A conversation written as request fields, with where each payload block came from.

    ``origins[n][k]`` is the path in the neutral conversation of block ``k`` of ``payload["messages"][n]`` (a
    string content counts as one block): the pre-send checks report problems at those paths. ``refused`` lists
    the JSON blocks flagged ``anthropic/native_block`` that were not sent as blocks, with why.
    """

    payload: dict[str, Any]
    losses: LossRecorder
    origins: list[list[str]]
    refused: Sequence[tuple[str, str]] = ()


class _Writer(PayloadWriter):
    """One conversion: the target issuer, the loss recorder and the origins of the blocks written."""

    namespace = NS
    target = TARGET
    own_state = frozenset({_CITATIONS})
    allow_lists = EXTRAS

    def __init__(self, issuer: str) -> None:
        super().__init__()
        self.issuer = issuer
        self.origins: list[list[str]] = []
        self.refused: list[tuple[str, str]] = []
        self.marks = Marks(self.loss)
        self.in_system = False  # whether the blocks written now go to the system prompt
        #: the calls whose result goes to Anthropic as its content: each goes as nothing, not as a dangling call
        self.unreplayed: set[str] = set()

    # ------------------------------------------------------------------------------------------- text

    def text(self, block: TextBlock, path: str) -> dict[str, Any]:
        native: dict[str, Any] = {"type": "text", "text": block.text}
        sent = self._native_citations(block)
        if sent is not None:
            native["citations"] = sent
            return self.extras(native, block.metadata, path, "text", frozenset({_CITATIONS}))
        for k, _ in enumerate(block.citations):
            self.loss(
                f"{path}.citations[{k}]",
                "Anthropic accepts back only the citations it issued, with their native coordinates; "
                "this citation has none (or they no longer match), so it is dropped and the text kept",
                "content_dropped",
            )
        # The native coordinates go with the citations they belong to: reported once, as the citations above.
        skip = frozenset({_CITATIONS}) if block.citations else frozenset()
        return self.extras(native, block.metadata, path, "text", skip)

    @staticmethod
    def _native_citations(block: TextBlock) -> list[dict[str, Any]] | None:
        """The stored native citations in their request form, when they still match the neutral ones."""
        stored = thaw(block.metadata.get(_CITATIONS))
        if not isinstance(stored, list) or len(stored) != len(block.citations):
            return None
        out = []
        for raw, citation in zip(stored, block.citations, strict=True):
            native = request_citation(raw)
            if native is None or derive_citation(native) != citation:
                return None
            out.append(native)
        return out

    # ------------------------------------------------------------------------------------------- files

    def file(self, block: FileBlock, path: str) -> dict[str, Any] | None:
        media_type, source = lower_media_type(block.media_type), block.source  # RFC 6838: case-insensitive
        is_image = media_type.split("/", 1)[0].strip().lower() == "image"
        native: dict[str, Any]
        if isinstance(source, ReferenceSource):
            if source.provider not in {None, NS}:
                self.loss(
                    path,
                    f"a file held by {source.provider!r} cannot be named in an Anthropic request; dropped",
                    "content_dropped",
                )
                return None
            native = {"type": "image" if is_image else "document", "source": {"type": "file", "file_id": source.id}}
        elif isinstance(source, UrlSource):
            if is_image:
                native = {"type": "image", "source": {"type": "url", "url": source.url}}
            elif media_type == "application/pdf":
                native = {"type": "document", "source": {"type": "url", "url": source.url}}
            else:
                self.loss(
                    path, f"Anthropic takes URLs only for images and PDFs, not {media_type}; dropped", "content_dropped"
                )
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
                    f"{path}.media_type",
                    f"Anthropic sends no media type with this source; reads back as {read_back}",
                    "content_degraded",
                )
        if native["type"] == "document":
            self._document_fields(native, block, path)
        else:
            report_document_fields(block, path, self.loss, "an Anthropic image")
            if block.filename is not None:
                self.loss(f"{path}.filename", "Anthropic has no file name field here; dropped", "content_dropped")
        return self.extras(native, block.metadata, path, native["type"])

    def _document_fields(self, native: dict[str, Any], block: FileBlock, path: str) -> None:
        """A document's title, context and citations switch; its file name as the title when it has none."""
        if block.title is not None:
            native["title"] = block.title
        if block.context is not None:
            native["context"] = block.context
        if block.citable is not None:
            native["citations"] = {"enabled": block.citable}
        if block.filename is None:
            return
        if block.title is None and f"{NS}/title" not in block.metadata:
            native["title"] = block.filename
            self.loss(f"{path}.filename", "sent as the document title; reads back as the title", "content_degraded")
        else:
            reason = "an Anthropic document has a title but no file name; dropped"
            self.loss(f"{path}.filename", reason, "content_dropped")

    def _inline(self, block: FileBlock, source: BytesSource, path: str, *, is_image: bool) -> dict[str, Any] | None:
        media_type = lower_media_type(block.media_type)
        if is_image:
            if media_type not in _IMAGE_TYPES:
                self.loss(
                    path,
                    f"Anthropic takes inline images only as JPEG, PNG, GIF or WebP, not {media_type}; dropped",
                    "content_dropped",
                )
                return None
            data = b64encode(source.data)
            return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
        if media_type == "application/pdf":
            data = b64encode(source.data)
            return {"type": "document", "source": {"type": "base64", "media_type": media_type, "data": data}}
        if media_type.split("/", 1)[0].strip().lower() == "text":
            try:
                text = source.data.decode("utf-8")
            except UnicodeDecodeError:
                self.loss(
                    path,
                    "Anthropic takes inline text documents as UTF-8 only; this file is not UTF-8; dropped",
                    "content_dropped",
                )
                return None
            if media_type != "text/plain":
                self.loss(f"{path}.media_type", f"sent as a text/plain document (was {media_type})", "content_degraded")
            return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}
        self.loss(
            path,
            f"Anthropic takes inline files only as images, PDFs and text, not {media_type}; dropped",
            "content_dropped",
        )
        return None

    def search_result(self, block: SearchResultBlock, path: str) -> dict[str, Any]:
        """A ``search_result`` block: its source as the string Anthropic takes, its text parts, its citations switch.

        Anthropic requires a title: a result without one is sent with its source as the title (reported, since it
        reads back as the title).
        """
        source = block.source.value
        native: dict[str, Any] = {"type": "search_result", "source": source}
        if block.title is not None:
            native["title"] = block.title
        elif type(block.metadata.get(f"{NS}/title")) is not str:  # else that native title goes back
            native["title"] = source
            reason = "Anthropic requires a search result title; the source is sent as the title (reads back as it)"
            self.loss(f"{path}.title", reason, "content_degraded")
        if isinstance(block.source, CitedReference) and is_uri(source):
            reason = "Anthropic's search result source is a string; this reference reads back as a URI"
            self.loss(f"{path}.source", reason, "content_degraded")
        native["content"] = []
        for k, part in enumerate(block.content):
            text = self.text(part, f"{path}.content[{k}]")
            self.marks.block(text, part.cache, f"{path}.content[{k}]", system=self.in_system)
            native["content"].append(text)
        if block.citable is not None:
            native["citations"] = {"enabled": block.citable}
        return self.extras(native, block.metadata, path, "search_result")

    # ------------------------------------------------------------------------------------------- the rest

    def reasoning(self, block: ReasoningBlock, path: str) -> dict[str, Any] | None:
        issuer = block.metadata.get(ISSUER_KEY)
        if block.signature is None and block.redacted is None:
            self.loss(
                path,
                "reasoning without a signature cannot be sent to Anthropic; dropped (never sent as text)",
                "content_dropped",
            )
            return None
        if not issuer_matches(issuer, self.issuer):
            self.loss(
                path,
                f"reasoning state {issued_by(issuer)} is sent back only to its issuer, not to {self.issuer!r}; dropped",
                "state_not_replayed",
            )
            return None
        native: dict[str, Any]
        if block.redacted is not None:
            try:
                native = {"type": "redacted_thinking", "data": block.redacted.decode("utf-8")}
            except UnicodeDecodeError:
                self.loss(
                    path,
                    "redacted reasoning is not Anthropic's (its bytes are not a UTF-8 string); dropped",
                    "state_not_replayed",
                )
                return None
        else:
            native = {"type": "thinking", "thinking": block.text or "", "signature": block.signature}
        return self.extras(native, block.metadata, path, native["type"])

    def compaction(self, block: CompactionBlock, path: str) -> dict[str, Any] | None:
        """Anthropic's own compaction goes back as it came; any other as its summary's text (see ``_compaction``)."""
        if issuer_matches(block.metadata.get(ISSUER_KEY), self.issuer):
            native = {"type": "compaction", "content": block.summary}
            return self.extras(native, block.metadata, path, "compaction")
        text = compaction_as_text(self, block, path, own=True)
        return None if text is None else self.text(text, path)

    def tool_call(self, block: ToolCallBlock, path: str) -> dict[str, Any]:
        # an input kept as its text because no block could hold it goes back as the object it was
        value = object_input(block.input, block.metadata)
        if value is None:
            value = thaw(block.input)
        if type(value) is not dict:
            value = {"value": value}
            self.loss(
                f"{path}.input",
                'Anthropic tool input is an object; sent wrapped as {"value": input}',
                "content_degraded",
            )
        native = {"type": "tool_use", "id": block.tool_call_id, "name": block.tool_name, "input": value}
        return self.extras(native, block.metadata, path, "tool_use")

    def json(self, block: JsonBlock, path: str, role: str) -> dict[str, Any] | None:
        """A JSON block: Anthropic's own provider-run block where ``_native`` allows it, else its JSON text.

        ``role`` is the role of the message holding the block (``"tool"`` inside a tool result). Another
        provider's run item is its state: dropped, never written as text.
        """
        foreign = foreign_state(block, NS)
        if foreign is not None:
            self.loss(path, foreign_reason(foreign, block, TARGET), "state_not_replayed")
            return None
        reason = "Anthropic has no JSON block; sent as JSON text (reads back as a text block)"
        if NATIVE in block.metadata:
            refusal = replay_refusal(block, ANTHROPIC, role=role, issuer=self.issuer)
            if refusal is None:
                return self.finish(value_of(block), block.metadata, path, {}, frozenset({NATIVE}))
            self.refused.append((path, refusal.reason))
            if refusal.kind == "state_not_replayed":
                self.loss(path, refusal.reason, refusal.kind)
                return None
            reason = f"flagged {NATIVE}, but {refusal.reason}; sent as JSON text (reads back as a text block)"
        self.loss(path, reason, "content_degraded")
        return self.extras({"type": "text", "text": text_of(block)}, block.metadata, path, "text")

    def refusal(self, block: RefusalBlock, path: str) -> dict[str, Any]:
        self.loss(path, "Anthropic has no refusal block (a refusal is a stop reason); sent as text", "content_degraded")
        return self.extras({"type": "text", "text": block.text}, block.metadata, path, "text")

    def tool_result(self, block: ToolResultBlock, path: str) -> dict[str, Any]:
        native: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_call_id}
        content = []
        for k, item in enumerate(block.content):
            built = self.block(item, f"{path}.content[{k}]", "tool")
            if type(built) is dict:  # a tool result holds no tool another provider ran
                content.append(built)
        string = block.metadata.get(STRING) is True
        if string and (_plain_text(content) is not None or not content):
            native["content"] = _plain_text(content) or ""
        elif content:
            native["content"] = content
        skip = {STRING} if string else set()
        if block.outcome != "succeeded":
            native["is_error"] = True
            if type(block.metadata.get(_IS_ERROR)) is bool:
                skip.add(_IS_ERROR)
        elif block.metadata.get(_IS_ERROR) is False:
            native["is_error"] = False
            skip.add(_IS_ERROR)
        if block.outcome in ("denied", "interrupted"):
            self.loss(
                f"{path}.outcome",
                f"Anthropic has no {block.outcome} status: sent as an error result (reads back as failed)",
                "content_degraded",
            )
        return self.extras(native, block.metadata, path, "tool_result", frozenset(skip))

    def server_tool(
        self, block: ServerToolCallBlock | ServerToolResultBlock, path: str
    ) -> dict[str, Any] | list[dict[str, Any]] | None:
        """A tool Anthropic ran, as it came; one it did not run (or cannot take back) as its readable content."""
        if issued_to(block, self.issuer):
            if type(block) is ServerToolCallBlock and block.tool_call_id in self.unreplayed:
                pass  # its result goes as text: the call goes as nothing (``readable`` reports it)
            elif type(block) is ServerToolCallBlock:
                kind = block.metadata.get(TYPE, "server_tool_use")
                if kind in CALL_KINDS:
                    value = object_input(block.input, block.metadata)
                    native = {"type": kind, "id": block.tool_call_id, "name": block.tool_name,
                              "input": thaw(block.input) if value is None else value}  # fmt: skip
                    return self.extras(native, block.metadata, path, kind, frozenset({TYPE}))
            else:
                assert type(block) is ServerToolResultBlock  # noqa: S101 - narrowed for mypy
                result, refusal = replay_result(block)
                if result is not None:
                    for where, _ in inner_breakpoints(block, path):
                        self.loss(where, _VERBATIM_PART_CACHE, HINT)
                    return self.finish(result, block.metadata, path, {}, frozenset({RESULT}))
                self.refused.append((path, refusal))
        written = []
        if type(block) is ServerToolResultBlock:  # Anthropic takes search results in user turns and tool results
            block = result_without_search_results(block, path, self.loss, "Anthropic's assistant turn")
        for item, item_path in readable(block, path, self.loss, TARGET, self.own_state):
            one = self.block(item, item_path, "assistant")
            if type(one) is dict:  # a result's content is text, files and JSON: one block each
                written.append(one)
        return written

    def block(self, block: Block, path: str, role: str) -> dict[str, Any] | list[dict[str, Any]] | None:
        """Any block of a message of ``role``, with its cache breakpoint.

        ``None`` when it is dropped (the loss is already recorded); a tool another provider ran is the list of
        blocks its readable content becomes, the breakpoint on the last of them.
        """
        if isinstance(block, SERVER_BLOCKS):
            native = self.server_tool(block, path)
            last = native[-1] if isinstance(native, list) and native else None if isinstance(native, list) else native
            self.marks.block(last, block.cache, path, system=self.in_system)
            return native
        one = self._block(block, path, role)
        self.marks.block(one, block.cache, path, system=self.in_system)
        return one

    def _block(self, block: object, path: str, role: str) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return self.text(block, path)
        if isinstance(block, FileBlock):
            return self.file(block, path)
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, path)
        if isinstance(block, ToolCallBlock):
            return self.tool_call(block, path)
        if isinstance(block, JsonBlock):
            return self.json(block, path, role)
        if isinstance(block, RefusalBlock):
            return self.refusal(block, path)
        if isinstance(block, CompactionBlock):
            return self.compaction(block, path)
        if isinstance(block, SearchResultBlock):
            return self.search_result(block, path)
        assert isinstance(block, ToolResultBlock)  # noqa: S101 - the union is closed
        return self.tool_result(block, path)

    # ------------------------------------------------------------------------------------------- messages

    def conversation(self, conversation: Conversation) -> dict[str, Any]:
        self.unreplayed = {
            block.tool_call_id
            for message in conversation
            for block in message.content
            if type(block) is ServerToolResultBlock
            and not (issued_to(block, self.issuer) and replay_result(block)[0] is not None)
        }
        system: list[dict[str, Any]] = []
        system_string = False
        messages: list[dict[str, Any]] = []
        for i, message in enumerate(conversation):
            path = block_path(i)
            if message.role == "system" and message.metadata.get(IN_MESSAGES) is True:
                self._message(message, i, messages)
            elif message.role in {"system", "developer"}:
                if messages:
                    self.loss(
                        path,
                        "Anthropic takes instructions only in the top-level system prompt; moved there",
                        "order_changed",
                    )
                if message.role == "developer":
                    self.loss(
                        f"{path}.role",
                        "Anthropic has no developer role; sent as system text (reads back as system)",
                        "content_degraded",
                    )
                system_string = not system and message.metadata.get(STRING) is True
                self.in_system = True
                written = [self.block(b, block_path(i, j), "system") for j, b in enumerate(message.content)]
                self.in_system = False
                system.extend(n for n in written if isinstance(n, dict))  # text blocks: always written
                self.marks.message(system[len(system) - len(written):], message.cache, path, system=True)
                self.report(path, message.metadata, _FLAGS)
            else:
                self._message(message, i, messages)
        self.marks.limit()
        payload: dict[str, Any] = {}
        if system:
            text = _plain_text(system)
            payload["system"] = text if system_string and text is not None else system
        payload["messages"] = messages
        return payload

    def _message(self, message: Message, index: int, messages: list[dict[str, Any]]) -> None:
        role = {"assistant": "assistant", "system": "system"}.get(message.role, "user")
        content: list[dict[str, Any]] = []
        origins: list[str] = []
        for j, block in enumerate(message.content):
            native = self.block(block, block_path(index, j), message.role)
            written = native if isinstance(native, list) else [] if native is None else [native]
            content.extend(written)
            origins.extend([block_path(index, j)] * len(written))
        self.report(block_path(index), message.metadata, _FLAGS)
        self.marks.message(content, message.cache, block_path(index), system=False)
        if not content:  # every block's loss is reported; a message with nothing left is not sent
            return
        if message.metadata.get(SAME) is True and messages and messages[-1]["role"] == role:
            previous = messages[-1]
            if type(previous["content"]) is str:
                previous["content"] = [{"type": "text", "text": previous["content"]}]
            previous["content"].extend(content)
            self.origins[-1].extend(origins)
            return
        text = _plain_text(content)
        string = message.metadata.get(STRING) is True and text is not None
        messages.append({"role": role, "content": text if string else content})
        self.origins.append(origins)


def _plain_text(content: list[dict[str, Any]]) -> str | None:
    """The text of a content list that is exactly one bare text block (the string shorthand), else ``None``."""
    if len(content) == 1 and content[0].keys() == {"type", "text"} and content[0]["type"] == "text":
        return content[0]["text"]  # type: ignore[no-any-return]
    return None


def write_conversation(conversation: Conversation, issuer: str) -> Written:
    """The Anthropic request fields for ``conversation``, the losses recorded on the way and the blocks' origins."""
    writer = _Writer(issuer)
    payload, paths = writing_without_approvals(conversation, writer.losses.losses, "Anthropic", writer.conversation)
    if paths is not None:
        writer.origins = [[restore_path(at, paths) for at in blocks] for blocks in writer.origins]
    return Written(payload, writer.losses, writer.origins, writer.refused)
