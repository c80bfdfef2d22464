"""Writing neutral messages as Gemini ``systemInstruction`` and ``contents``, reporting every loss with its kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._json._values import thaw
from ..._model._classes import (
    Block,
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
from .._approvals import writing_without_approvals
from .._arguments import JSON_TEXT, RAW_ARGUMENTS, object_input, text_of, value_of
from .._cache import report_breakpoints
from .._compaction import compaction_as_text
from .._contract import ISSUER_KEY, issued_by, issuer_matches
from .._documents import report_document_fields
from .._extras import PayloadWriter, put_extras
from .._media import lower_media_type
from .._native import GEMINI, foreign_reason, foreign_state, replay_refusal
from .._search_results import without_search_results
from .._server_tools import SERVER_BLOCKS, issued_to, readable
from .._shapes import BYTES, Kind, fits
from .._toolkit import b64encode, key_path
from ._code import OUTCOME, native_code
from ._grounding import GROUNDING_TOOLS
from ._pairing import Pairing, Written
from ._read import GENERATED, NS, SIG, tool_response
from ._tool_parts import TOOL_TYPE, native_tool_part
from ._wire import CALL_EXTRAS, FILE_PART_EXTRAS, JSON_KINDS, PART_EXTRAS, RESPONSE_EXTRAS

__all__ = ["TARGET", "Writer"]

TARGET = "Gemini"
_NO_BREAKPOINT = "Gemini has no cache breakpoint in a request (its explicit caches are a separate API); not sent"
_PART = f"{NS}/part"
_NAME = f"{NS}/displayName"
_ROLE = f"{NS}/role"
#: The values ``Content.role`` documents ("Must be either 'user' or 'model'"): all ``gemini/role`` may write.
_ROLES = ("user", "model")


def _name_used(block: FileBlock) -> frozenset[str]:
    """``{gemini/displayName}`` when ``media`` writes it (a string, for a file without a filename), else nothing."""
    return frozenset({_NAME}) if block.filename is None and type(block.metadata.get(_NAME)) is str else frozenset()


def _same(blocks: Sequence[Block]) -> list[tuple[type, object]]:
    """What a reader sees of text and JSON blocks (kind and value): a tool result against its reading back."""
    return [(type(b), b.text if type(b) is TextBlock else b.value) for b in blocks]  # type: ignore[union-attr]


class Writer(PayloadWriter):
    """Writes one conversation, then says where each content came from.

    ``origins`` holds the message each content starts at, ``sources`` each content's parts with the blocks they
    were written from, ``dropped`` the messages with nothing Gemini accepts (``preflight`` reads all three).
    """

    namespace = NS
    target = TARGET
    own_state = frozenset({SIG, TOOL_TYPE})

    def __init__(self, issuer: str) -> None:
        super().__init__()
        self.issuer = issuer
        self.origins: list[int] = []
        self.sources: list[list[Written]] = []
        self.dropped: list[int] = []
        self.pairing = Pairing()

    def _citations(self, where: str, block: TextBlock) -> None:
        if block.citations and not issuer_matches(block.metadata.get(ISSUER_KEY), NS):
            self.loss(
                f"{where}.citations",
                "a Gemini request carries no citations (they exist only in responses); dropped",
                "content_dropped",
            )

    def _signature(self, part: dict[str, Any], block: Block, where: str) -> None:
        sig = block.metadata.get(SIG)
        if sig is None:
            return
        issuer = block.metadata.get(ISSUER_KEY)
        if not fits(sig, BYTES):
            self.loss(key_path(where, SIG), "a thought signature that is not base64 is not sent", "state_not_replayed")
        elif issuer_matches(issuer, self.issuer):
            part["thoughtSignature"] = sig
        else:
            reason = f"a thought signature {issued_by(issuer)} is not sent to {self.issuer!r}; dropped"
            self.loss(key_path(where, SIG), reason, "state_not_replayed")

    def media(self, block: FileBlock, where: str) -> dict[str, Any]:
        """A part holding an ``inlineData`` or ``fileData`` object for a file block."""
        source, meta = block.source, block.metadata
        if type(source) is BytesSource:
            key, native = "inlineData", {"mimeType": lower_media_type(block.media_type), "data": b64encode(source.data)}
        elif type(source) is UrlSource:
            reason = "a URL is sent as fileData.fileUri; it reads back as a reference source"
            self.loss(f"{where}.source", reason, "content_degraded")
            key, native = "fileData", {"mimeType": lower_media_type(block.media_type), "fileUri": source.url}
        else:
            assert isinstance(source, ReferenceSource)  # noqa: S101 - the last source kind
            if source.provider not in (None, NS):
                reason = f"a file id issued by {source.provider!r} is sent to Gemini as it is"
                self.loss(f"{where}.source.provider", reason, "content_degraded")
            key, native = "fileData", {"mimeType": lower_media_type(block.media_type), "fileUri": source.id}
        name = block.filename if block.filename is not None else meta.get(_NAME)
        if type(name) is str:
            native["displayName"] = name
        report_document_fields(block, where, self.loss, "Gemini")
        return {key: native}

    def _tool_result(self, block: ToolResultBlock, where: str) -> dict[str, Any]:
        meta = block.metadata
        # where each value and each file sits in the content: losses name a block by its own index
        value_at = [j for j, b in enumerate(block.content) if type(b) is not FileBlock]
        file_at = [j for j, b in enumerate(block.content) if type(b) is FileBlock]
        values = [block.content[j] for j in value_at]
        if block.outcome in ("denied", "interrupted"):
            reason = f"Gemini has no {block.outcome} outcome; written as an error, reads back as failed"
            self.loss(f"{where}.outcome", reason, "content_degraded")
        key = "output" if block.outcome == "succeeded" else "error"
        response: dict[str, Any]
        if (
            meta.get(f"{NS}/response") == "object"
            and len(values) == 1
            and type(values[0]) is JsonBlock
            and isinstance(value := value_of(values[0]), dict)
        ):
            response = value
        elif not values:
            response = {key: None} if (block.outcome != "succeeded" or f"{NS}/output" in meta) else {}
        else:
            items = [b.text if type(b) is TextBlock else value_of(b) for b in values]  # type: ignore[arg-type]
            listed = len(items) > 1 or meta.get(f"{NS}/output") == "list1"
            response = {key: items if listed else items[0]}
        if _same(tool_response(response)[1]) != _same(values):
            reason = "text and JSON content are written as one response value; they read back differently"
            self.loss(f"{where}.content", reason, "content_degraded")
        for j, b in zip(value_at, values, strict=True):
            if type(b) is TextBlock:
                self._citations(f"{where}.content[{j}]", b)
            self.report(f"{where}.content[{j}]", b.metadata)
        if file_at and value_at and file_at[0] < value_at[-1]:
            reason = "files go in functionResponse.parts after the response; their order changes"
            self.loss(f"{where}.content", reason, "order_changed")
        fr: dict[str, Any] = {"name": block.tool_name, "response": response}
        if self.pairing.sends_id(block):
            fr = {"id": block.tool_call_id, **fr}
        if file_at:
            fr["parts"] = []
            for j in file_at:
                f, path = block.content[j], f"{where}.content[{j}]"
                assert type(f) is FileBlock  # noqa: S101 - narrowed for mypy
                sub = self.media(f, path)
                self.finish(sub, f.metadata, path, FILE_PART_EXTRAS, _name_used(f))
                fr["parts"].append(sub)
        return fr

    def _reasoning(self, block: ReasoningBlock, where: str) -> dict[str, Any]:
        part: dict[str, Any] = {}
        if block.redacted is not None:
            reason = "redacted reasoning has no place in a Gemini request; dropped"
            self.loss(f"{where}.redacted", reason, "state_not_replayed")
            return part
        if block.text is not None:
            part = {"text": block.text, "thought": True}
        elif block.metadata.get(f"{NS}/text") == "":
            part["text"] = ""
        if block.signature is not None:
            issuer = block.metadata.get(ISSUER_KEY)
            if not issuer_matches(issuer, self.issuer):
                reason = f"a signature {issued_by(issuer)} is not sent to {self.issuer!r}; dropped"
                self.loss(f"{where}.signature", reason, "state_not_replayed")
            elif not fits(block.signature, BYTES):
                self.loss(
                    f"{where}.signature", "a thought signature that is not base64 is not sent", "state_not_replayed"
                )
            else:
                part["thoughtSignature"] = block.signature
        if "thoughtSignature" not in part and "text" in part and not part["text"]:
            del part["text"]  # an empty text was only the carrier of the signature
        return part

    def parts(self, block: Block, where: str, role: str) -> list[Written]:
        """The parts ``block`` becomes: one, or none when nothing of it can be sent.

        A tool another provider ran (or one Gemini cannot take back) becomes the parts of its readable content;
        Gemini's own grounding (Google Search, URL context) becomes nothing, as a request has no place for it.
        """
        if isinstance(block, SERVER_BLOCKS):
            own = issued_to(block, self.issuer)
            tool_part = TOOL_TYPE in block.metadata
            if own and not tool_part and block.tool_name in GROUNDING_TOOLS:
                # grounding is response-only (a request has no groundingMetadata): nothing Gemini takes is lost
                self.report(where, block.metadata, {GENERATED, GROUNDING_TOOLS[block.tool_name]})
                return []
            native = (native_tool_part(block) if tool_part else native_code(block)) if own else None
            if native is None:
                readable_parts = readable(block, where, self.loss, TARGET, self.own_state)
                return [one for item, at in readable_parts for one in self.parts(item, at, role)]
            code: dict[str, Any] = {native[0]: native[1]}
            self._signature(code, block, where)
            skip = frozenset({SIG, GENERATED, OUTCOME, TOOL_TYPE, JSON_TEXT, RAW_ARGUMENTS})
            self.finish(code, block.metadata, where, PART_EXTRAS, skip)
            return [(code, block, where)]
        part = self.part(block, where, role)
        return [(part, block, where)] if part else []

    def part(self, block: Block, where: str, role: str) -> dict[str, Any] | None:
        """The part for one block of a ``role`` message, or ``None`` when nothing of it can be sent (see losses)."""
        if type(block) is CompactionBlock:  # its summary as text, its state reported (see ``_compaction``)
            text = compaction_as_text(self, block, where)
            return None if text is None else {"text": text.text}
        meta = block.metadata
        inner: tuple[dict[str, Any], Mapping[str, Kind]] | None = None  # the call or response, and its allow-list
        skip = frozenset({SIG})
        part: dict[str, Any]
        if type(block) is TextBlock:
            part = {"text": block.text}
            self._citations(where, block)
        elif type(block) is RefusalBlock:
            self.loss(where, "Gemini has no refusal part; written as text, reads back as text", "content_degraded")
            part = {"text": block.text}
        elif type(block) is ReasoningBlock:
            part = self._reasoning(block, where)
            self.finish(part, meta, where, PART_EXTRAS if part else {})
            return part or None
        elif type(block) is FileBlock:
            part = self.media(block, where)
            skip = skip | _name_used(block)
        elif type(block) is ToolCallBlock:
            fc: dict[str, Any] = {"name": block.tool_name}
            if self.pairing.call(block):
                fc = {"id": block.tool_call_id, **fc}
            if isinstance(block.input, dict):
                fc["args"] = thaw(block.input)
            elif (raw := object_input(block.input, meta)) is not None:
                fc["args"] = raw  # args the wire format could not hold, kept as text: sent as they came
            elif block.input is not None:
                reason = 'functionCall.args is an object; the input is sent as {"input": ...}'
                self.loss(f"{where}.input", reason, "content_degraded")
                fc["args"] = {"input": thaw(block.input)}
            part = {"functionCall": fc}
            inner = (fc, CALL_EXTRAS)
        elif type(block) is JsonBlock:
            foreign = foreign_state(block, NS)
            if foreign is not None:
                self.loss(where, foreign_reason(foreign, block, TARGET), "state_not_replayed")
                return None
            kind = meta.get(_PART)
            # an empty text is plain text anywhere; a part Gemini runs itself goes back only where replay allows
            refusal = None if kind == "text" else replay_refusal(block, GEMINI, role=role, issuer=self.issuer)
            if refusal is not None and refusal.kind == "state_not_replayed":
                self.loss(where, refusal.reason, refusal.kind)
                return None
            if type(kind) is str and kind in JSON_KINDS and fits(value_of(block), JSON_KINDS[kind]) and refusal is None:
                part = {kind: value_of(block)}
            else:
                reason = "JSON content is written as JSON text; reads back as text"
                if refusal is not None and _PART in meta:
                    reason = f"tagged {_PART}, but {refusal.reason}; {reason}"
                self.loss(where, reason, "content_degraded")
                part = {"text": text_of(block)}
            skip = skip | {_PART}
        else:
            assert type(block) is ToolResultBlock  # noqa: S101 - the last block kind
            fr = self._tool_result(block, where)
            part = {"functionResponse": fr}
            inner = (fr, RESPONSE_EXTRAS)
        self._signature(part, block, where)
        if inner is not None:  # the call's or the response's own fields first, then the part's
            native, allowed = inner
            skip = skip | put_extras(native, meta, NS, allowed, skip)
        self.finish(part, meta, where, PART_EXTRAS, skip)
        return part

    def write(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The ``systemInstruction`` and ``contents`` of a request carrying ``messages`` (approvals stay local)."""
        return writing_without_approvals(messages, self.losses.losses, TARGET, self._write)[0]

    def _write(self, messages: Sequence[Message]) -> dict[str, Any]:
        messages = without_search_results(messages, self.loss, TARGET)
        payload: dict[str, Any] = {}
        contents: list[dict[str, Any]] = []
        lead = 0
        for i, message in enumerate(messages):
            report_breakpoints(self.loss, message, f"$[{i}]", _NO_BREAKPOINT)
        while lead < len(messages) and messages[lead].role in ("system", "developer"):
            lead += 1
        if lead:
            parts: list[Any] = []
            for i, message in enumerate(messages[:lead]):
                if message.role == "developer":
                    reason = "Gemini has one system instruction; developer text goes into it"
                    self.loss(f"$[{i}].role", reason, "content_degraded")
                elif i:
                    self.loss(f"$[{i}]", "system messages are merged into one systemInstruction", "content_degraded")
                parts.extend(self.part(b, f"$[{i}].content[{j}]", message.role) for j, b in enumerate(message.content))
                self.report(f"$[{i}]", message.metadata)
            system: dict[str, Any] = {"parts": parts}
            role = messages[0].metadata.get(_ROLE)
            if role in _ROLES:
                system = {"role": role, **system}
            elif role is not None:
                reason = "systemInstruction.role takes only user or model (as Content.role documents); not sent"
                self.loss(key_path("$[0]", _ROLE), reason, "metadata_not_sent")
            payload["systemInstruction"] = system
        ends_with_tool = False  # whether the last content written ends with a tool message
        for i, message in enumerate(messages[lead:], start=lead):
            path = f"$[{i}]"
            if message.role in ("system", "developer"):
                reason = f"Gemini has no {message.role} turn after the start; written as a user turn"
                self.loss(f"{path}.role", reason, "content_degraded")
            written: list[Written] = []
            for j, block in enumerate(message.content):
                written += self.parts(block, f"{path}.content[{j}]", message.role)
            parts = [p for p, _, _ in written]
            self.report(path, message.metadata)
            role = "model" if message.role == "assistant" else "user"
            if not parts:
                self.dropped.append(i)
                continue
            tool_run, ends_with_tool = ends_with_tool and message.role == "tool", message.role == "tool"
            if (
                (message.metadata.get(f"{NS}/same_content") is True or tool_run)
                and contents
                and contents[-1].get("role", "user") == role
            ):  # one content: a user content split on reading, or parallel results sent one tool message each
                contents[-1]["parts"].extend(parts)
                self.sources[-1].extend(written)
                continue
            content: dict[str, Any] = {"role": role, "parts": parts}
            if role == "user" and f"{NS}/role" in message.metadata and message.metadata[f"{NS}/role"] is None:
                del content["role"]
            contents.append(content)
            self.origins.append(i)
            self.sources.append(written)
        payload["contents"] = contents
        self._pair(contents)
        return payload

    def _pair(self, contents: list[dict[str, Any]]) -> None:
        """Put the responses without an id of each content in the order of their calls (see ``_pairing``)."""
        for content, written in zip(contents, self.sources, strict=True):
            for where in self.pairing.order(written):
                reason = "Gemini pairs responses without an id with their calls by order; sent in the calls' order"
                self.loss(where, reason, "order_changed")
            content["parts"] = [p for p, _, _ in written]
