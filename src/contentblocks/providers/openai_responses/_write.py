"""Writing neutral messages as Responses ``input`` items, reporting every loss with its kind.

Blocks that share an ``openai/id`` are written back as one item, in place, so a reasoning item stays right before
the item it produced; JSON blocks flagged ``openai/input_item`` are their item again. Metadata goes out only as a
field the item or part type declares (``WIRE``); the rest is reported as ``metadata_not_sent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._json._values import thaw
from ..._model._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BytesSource,
    CitedUri,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._approvals import writing_without_approvals
from .._arguments import text_of, value_of
from .._compaction import compaction_as_text
from .._contract import ISSUER_KEY, issuer_matches
from .._documents import report_locations, report_other_sources
from .._extras import BOOKKEEPING
from .._native import RESPONSES, foreign_reason, foreign_state, replay_refusal
from .._part_breakpoints import OPENAI_RESPONSES, Breakpoints
from .._search_results import without_search_results
from .._server_tools import SERVER_BLOCKS
from .._shapes import fits
from .._toolkit import b64encode, key_path, raw_arguments
from ._annotations import annotations_for, kept_annotations
from ._approvals import CALL_FIELDS, RESPONSE_ID, SCOPE, kept_natively, request_item, response_item
from ._fields import NS, TARGET, WIRE, flags
from ._files import write_file
from ._native import FLAG, IMAGE_CALL, ITEM_TYPE
from ._reasoning_items import ReasoningWriting, sends_reasoning
from ._server import ServerWriting


def is_plain(blocks: Sequence[Block]) -> bool:
    """Whether ``blocks`` is one text block with no citations, metadata or breakpoint (a string's worth of content)."""
    if len(blocks) != 1 or type(blocks[0]) is not TextBlock:
        return False
    return not blocks[0].metadata and not blocks[0].citations and blocks[0].cache is None


class Writer(ServerWriting, ReasoningWriting):
    """Writes one conversation's items for a target issuer (``"openai"`` or ``"openai/<model family>"``)."""

    namespace = NS
    target = TARGET
    own_state = frozenset(key for key in BOOKKEEPING if key.startswith(f"{NS}/"))
    others_bookkeeping = BOOKKEEPING - own_state
    allow_lists = WIRE

    def __init__(self, issuer: str) -> None:
        super().__init__()
        self.issuer = issuer
        #: the calls of the assistant message being written that an approval request proposes, by id
        self.proposed: dict[str, ServerToolCallBlock] = {}
        #: the breakpoints, marked on the input parts as they are written
        self.cache = Breakpoints(self.loss, OPENAI_RESPONSES)

    def position_label(self, position: str) -> str:
        """Input and output messages are both a message to the reader of a loss."""
        return "message" if position.endswith("message") else position

    def citation_losses(self, path: str, block: TextBlock, *, carried: bool) -> None:
        """Report what the written annotations (or their absence, ``carried=False``) lose of the citations."""
        if carried:
            report_locations(block.citations, path, self.loss, "annotations")
            report_other_sources(block.citations, path, self.loss, "annotations")
        for k, c in enumerate(block.citations):
            where = f"{path}.citations[{k}]"
            if not carried:
                self.loss(
                    where,
                    f"citations have no place here in a {TARGET} request (only output_text with an item id)",
                    "content_dropped",
                )
                continue
            if c.quote is not None:
                self.loss(f"{where}.quote", "annotations carry no quote; dropped", "content_dropped")
            if c.start is None:
                self.loss(where, "annotations need a span; the whole text is given as the span", "content_degraded")
            elif type(c.source) is not CitedUri and c.end != c.start:
                self.loss(
                    f"{where}.end", "a file_citation marks one index; the span's end is dropped", "content_degraded"
                )

    def replays(self, block: JsonBlock) -> bool:
        """Whether an assistant JSON block is a provider-run item sent back verbatim (see ``providers._native``)."""
        return FLAG in block.metadata and replay_refusal(block, RESPONSES, role="assistant", issuer=self.issuer) is None

    def as_json_text(self, block: JsonBlock, where: str, reason: str, role: str) -> str | None:
        """The JSON text a JSON block of a ``role`` message is written as, reporting the degradation.

        ``None`` when the block is a provider-run item of another provider (its state: dropped, never text).
        A block flagged ``openai/input_item`` that is no item this adapter may replay says why in the reason.
        """
        foreign = foreign_state(block, "openai_responses")
        if foreign is not None:
            self.loss(where, foreign_reason(foreign, block, TARGET), "state_not_replayed")
            return None
        if FLAG in block.metadata:
            refusal = replay_refusal(block, RESPONSES, role=role, issuer=self.issuer)
            if refusal is not None and refusal.kind == "state_not_replayed":
                self.loss(where, refusal.reason, refusal.kind)
                return None
            if refusal is not None:
                reason = f"flagged {FLAG}, but {refusal.reason}; {reason}"
        self.loss(where, reason, "content_degraded")
        self.report(where, block.metadata, {FLAG})
        return text_of(block)

    def input_parts(self, blocks: Sequence[Block], path: str, *, tool_output: bool = False) -> list[Any]:
        """Input parts for user, system and developer content (and list-form tool output)."""
        out: list[Any] = []
        for j, block in enumerate(blocks):
            where = f"{path}.content[{j}]"
            if type(block) is TextBlock:
                self.citation_losses(where, block, carried=False)
                out.append(self.extras({"type": "input_text", "text": block.text}, block.metadata, where, "input_text"))
            elif type(block) is FileBlock:
                out.append(write_file(block, where, self, tool_output=tool_output))
            elif type(block) is JsonBlock:
                reason = "JSON content is written as JSON text (input_text); reads back as text"
                text = self.as_json_text(block, where, reason, "tool" if tool_output else "user")
                if text is None:
                    continue
                out.append({"type": "input_text", "text": text})
            else:
                continue
            self.cache.part(out[-1], where)
        return out

    def decision(self, block: ApprovalResponseBlock, where: str, *, alone: bool) -> dict[str, Any]:
        """The ``mcp_approval_response`` item of a decision; ``alone`` when its message holds decisions only."""
        if not alone:
            reason = f"a {TARGET} approval decision is an item of its own; it reads back in a user message of its own"
            self.loss(where, reason, "order_changed")
        self.report(where, block.metadata, {RESPONSE_ID})
        return response_item(block)

    def user_items(self, message: Message, path: str) -> list[Any]:
        """A user message holding decisions: each decision's item, then a message item of the rest, if any."""
        alone = all(type(b) is ApprovalResponseBlock for b in message.content)
        items: list[Any] = [
            self.decision(b, f"{path}.content[{j}]", alone=alone)
            for j, b in enumerate(message.content)
            if type(b) is ApprovalResponseBlock
        ]
        if alone:
            self.report(path, message.metadata)
            return items
        return [*items, self.message_item(message, path)]  # its input parts leave the decisions out

    def message_item(self, message: Message, path: str) -> dict[str, Any]:
        """A ``message`` item of the user, system or developer role."""
        meta = message.metadata
        item: dict[str, Any] = {"type": "message", "role": message.role}
        if meta.get(f"{NS}/content") == "string" and is_plain(message.content):
            item["content"] = message.content[0].text  # type: ignore[union-attr]
            position = "easy_message"
        else:
            item["content"] = self.input_parts(message.content, path)
            position = "message" if f"{NS}/status" in meta else "easy_message"
        if f"{NS}/type" in meta and meta[f"{NS}/type"] is None:
            del item["type"]
        return self.extras(item, meta, path, position, flags(meta, "content", "type", "input_item"))

    def output_item(self, group: list[tuple[int, TextBlock | RefusalBlock]], path: str) -> dict[str, Any]:
        """An assistant ``message`` output item: the blocks that share its id, as its parts."""
        item: dict[str, Any] = {"id": group[0][1].metadata[f"{NS}/id"], "type": "message", "role": "assistant"}
        parts = []
        for j, block in group:
            where, meta = f"{path}.content[{j}]", block.metadata
            if type(block) is RefusalBlock:
                part: dict[str, Any] = {"type": "refusal", "refusal": block.text}
            else:
                assert type(block) is TextBlock  # noqa: S101 - narrowed for mypy
                kind = "input_text" if meta.get(f"{NS}/part") == "input_text" else "output_text"
                part = {"type": kind, "text": block.text}
                kept = meta.get(f"{NS}/annotations")
                part["annotations"] = annotations_for(block.text, block.citations, kept)
                if not (kept_annotations(kept) and part["annotations"] == kept):  # verbatim: nothing lost
                    self.citation_losses(where, block, carried=True)
            for key in ("status", "phase"):
                if f"{NS}/{key}" not in meta:
                    continue
                if fits(meta[f"{NS}/{key}"], WIRE["output_message"][key]):
                    item.setdefault(key, thaw(meta[f"{NS}/{key}"]))
                else:
                    self.loss(key_path(where, f"{NS}/{key}"), self.misfit("output_message")(key), "metadata_not_sent")
            skip = flags(meta, "id", "status", "phase", "annotations", "part")
            parts.append(self.extras(part, meta, where, part["type"], skip))
            self.cache.part(parts[-1], where)  # an input text of the assistant's takes one, its output none
        item["content"] = parts
        item.setdefault("status", "completed")
        return item

    def assistant_items(self, message: Message, path: str) -> list[Any]:
        """Items for an assistant message: output messages, reasoning, calls and kept items, in order."""
        items: list[Any] = []
        group: list[Any] = []
        group_key: tuple[str, Any] = ("", None)
        self.replayed = self.replayed_calls(message.content)
        asked = {b.tool_call_id for b in message.content if type(b) is ApprovalRequestBlock}
        self.proposed = {
            b.tool_call_id: b for b in message.content if type(b) is ServerToolCallBlock and b.tool_call_id in asked
        }

        def close() -> None:
            nonlocal group, group_key
            if group_key[0] == "message":
                items.append(self.output_item(group, path))
            elif group_key[0] == "reasoning":
                items.append(self.reasoning_item(group, path))
            group, group_key = [], ("", None)

        for j, block in enumerate(message.content):
            where = f"{path}.content[{j}]"
            item_id = block.metadata.get(f"{NS}/id")
            key: tuple[str, Any] = ("", None)
            if type(block) in (TextBlock, RefusalBlock) and type(item_id) is str:
                key = ("message", item_id)
            elif type(block) is ReasoningBlock:
                if not sends_reasoning(block, self.issuer):
                    close()
                    self.drop_reasoning(block, where)
                    continue
                key = ("reasoning", item_id)
            if key != group_key or not key[0]:
                close()
                group_key = key
            if key[0]:
                group.append((j, block))
            elif type(block) is ServerToolCallBlock and block.tool_call_id in self.proposed:
                self.report(where, block.metadata, CALL_FIELDS)  # its request's item carries it
            elif type(block) is ApprovalRequestBlock:  # one that goes back (the others are gone, see ``_approvals``)
                self.report(where, block.metadata)
                items.append(request_item(block, self.proposed[block.tool_call_id]))
            elif isinstance(block, SERVER_BLOCKS):
                items.extend(self.server_tool(block, where, j))
            else:
                items.extend(self.single_item(block, where))
        close()
        self.report(path, message.metadata)
        return items

    def single_item(self, block: Block, where: str) -> list[Any]:
        """The item of an assistant block that is an item of its own (a call, text without an id, kept items)."""
        meta = block.metadata
        if type(block) is ToolCallBlock:
            item = {
                "type": "function_call",
                "call_id": block.tool_call_id,
                "name": block.tool_name,
                "arguments": raw_arguments(block.input, meta),
            }
            return [self.extras(item, meta, where, "function_call", flags(meta, "arguments", "invalid_arguments"))]
        if type(block) is JsonBlock and self.replays(block):
            self.report(where, meta, {FLAG})
            return [value_of(block)]
        message: dict[str, Any] = {"type": "message", "role": "assistant"}
        if type(block) is TextBlock:
            self.citation_losses(where, block, carried=False)
            message["content"] = block.text
            if f"{NS}/type" in meta and meta[f"{NS}/type"] is None:
                del message["type"]
            self.cache.last(message, where, "content", "input_text")  # its breakpoint makes the text a part
            return [self.extras(message, meta, where, "easy_message", flags(meta, "content", "type"))]
        if type(block) is RefusalBlock:
            self.loss(where, "a refusal needs an output message item id; written as assistant text", "content_degraded")
            self.report(where, meta)
            message["content"] = block.text
            self.cache.last(message, where, "content", "input_text")
            return [message]
        if type(block) is JsonBlock:
            text = self.as_json_text(
                block, where, "JSON content is written as JSON text; reads back as text", "assistant"
            )
            if text is None:
                return []
            message["content"] = text
            self.cache.last(message, where, "content", "input_text")
            return [message]
        if type(block) is FileBlock and (image := self.generated_image(block, where)) is not None:
            return [image]
        if type(block) is CompactionBlock:
            return self.compaction_item(block, where)
        reason = f"an assistant {type(block).__name__} has no place in a {TARGET} request; dropped"
        self.loss(where, reason, "content_dropped")
        return []

    def compaction_item(self, block: CompactionBlock, where: str) -> list[Any]:
        """OpenAI's own compaction as its item again; any other as its summary's text (see ``_compaction``)."""
        meta = block.metadata
        encrypted = meta.get(f"{NS}/encrypted_content")
        if not issuer_matches(meta.get(ISSUER_KEY), self.issuer) or type(encrypted) is not str:
            text = compaction_as_text(self, block, where, own=True)
            return [] if text is None else self.single_item(text, where)
        item: dict[str, Any] = {"type": "compaction", "encrypted_content": encrypted}
        if block.summary is not None:
            reason = f"a {TARGET} compaction item has no summary; the summary is dropped (the state is sent)"
            self.loss(f"{where}.summary", reason, "content_dropped")
        # ``created_by`` is the response's word on who made the item: the input item has no such field.
        return [self.extras(item, meta, where, "compaction", flags(meta, "encrypted_content", "created_by"))]

    def generated_image(self, block: FileBlock, where: str) -> dict[str, Any] | None:
        """The ``image_generation_call`` item an assistant file read from one goes back as, else ``None``."""
        meta = block.metadata
        item_id = meta.get(f"{NS}/id")
        if meta.get(ITEM_TYPE) != "image_generation_call" or type(item_id) is not str:
            return None
        if type(block.source) is not BytesSource:
            return None
        if block.filename is not None:
            self.loss(f"{where}.filename", "an image_generation_call has no file name; dropped", "content_dropped")
        item = {"type": "image_generation_call", "id": item_id, "result": b64encode(block.source.data)}
        self.finish(item, meta, where, IMAGE_CALL, flags(meta, "id", "item_type"))
        item.setdefault("status", "completed")
        return item

    def tool_items(self, message: Message, path: str) -> list[Any]:
        """A ``function_call_output`` item per tool result."""
        items = []
        for j, block in enumerate(message.content):
            where = f"{path}.content[{j}]"
            if type(block) is ApprovalResponseBlock:
                items.append(self.decision(block, where, alone=False))
                continue
            assert type(block) is ToolResultBlock  # noqa: S101 - a tool message carries tool results and decisions
            meta = block.metadata
            if block.outcome != "succeeded":
                reason = f"function_call_output has no error flag; the {block.outcome} outcome reads back as succeeded"
                self.loss(f"{where}.outcome", reason, "content_degraded")
            listed = meta.get(f"{NS}/output_list") is True
            output: Any
            if not block.content and not listed:
                output = ""
            elif is_plain(block.content) and not listed:
                output = block.content[0].text  # type: ignore[union-attr]
            else:
                output = self.input_parts(block.content, where, tool_output=True)
            item = {"type": "function_call_output", "call_id": block.tool_call_id, "output": output}
            self.cache.last(item, where, "output", "input_text")  # the result's own breakpoint, after its parts
            items.append(self.extras(item, meta, where, "function_call_output", flags(meta, "output_list")))
        self.report(path, message.metadata)
        return items

    def write(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The ``instructions`` and ``input`` of a request carrying ``messages`` (see ``_approvals`` for approvals)."""
        keep = kept_natively(messages, self.issuer)
        return writing_without_approvals(messages, self.losses.losses, TARGET, self._write, keep, SCOPE)[0]

    def _write(self, messages: Sequence[Message]) -> dict[str, Any]:
        messages = without_search_results(messages, self.loss, "the Responses API")
        payload: dict[str, Any] = {}
        items: list[Any] = []
        for i, message in enumerate(messages):
            path = f"$[{i}]"
            self.cache.expect(message, path)
            written = len(items)
            # a leading plain system message is the instructions, unless its metadata says more than bookkeeping or
            # it holds a breakpoint (instructions take none; a system message item's input text does)
            plain_system = message.role == "system" and not message.metadata.keys() - self.others_bookkeeping
            if i == 0 and plain_system and is_plain(message.content) and message.cache is None:
                payload["instructions"] = message.content[0].text  # type: ignore[union-attr]
            elif message.role == "assistant":
                items.extend(self.assistant_items(message, path))
            elif message.role == "tool":
                items.extend(self.tool_items(message, path))
            elif message.role == "user" and ApprovalResponseBlock in map(type, message.content):
                items.extend(self.user_items(message, path))
            else:
                items.append(self.message_item(message, path))
            last = items[-1] if len(items) > written and isinstance(items[-1], dict) else None
            key = "output" if last is not None and last.get("type") == "function_call_output" else "content"
            self.cache.last(last, path, key, "input_text")
            self.cache.done(path)
        payload["input"] = items
        return payload
