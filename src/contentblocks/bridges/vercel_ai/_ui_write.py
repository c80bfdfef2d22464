"""A conversation to the SDK's ``UIMessage`` JSON, each loss recorded.

An assistant message joins the assistant ``UIMessage`` before it as its next step (after a ``step-start`` part)
unless it carries a ``vercel_ai/id`` or metadata of its own; a tool message's results go into the tool parts of
their calls in that ``UIMessage``, where the SDK keeps them.
"""

from __future__ import annotations

from typing import Any

from ..._conversion._kernels import thaw
from ..._model._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BytesSource,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UrlSource,
)
from ..._model._conversation import Conversation
from ...providers._approvals import APPROVAL_BLOCKS
from ...providers._compaction import compaction_summary
from ...providers._contract import LossRecorder
from ...providers._documents import report_document_fields
from ...providers._toolkit import block_path, data_url
from .._shared import report_breakpoints
from ._ui_outputs import STATES, output_fields
from ._ui_read import approval_id
from ._values import METADATA, NAMESPACE, NATIVE, Meta, meta_of, reasoning_metadata

__all__ = ["write_ui"]

#: The parts kept whole from a ``UIMessage`` (besides tool and data parts in a user message).
_NATIVE_PARTS = frozenset({"source-url", "source-document", "step-start", "dynamic-tool", "text", "reasoning",
                           "file"})
_SDK = "the Vercel AI SDK"  # how loss reasons name the target


def _text(block: TextBlock | RefusalBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:
    if isinstance(block, RefusalBlock):
        losses.add(path, "the SDK has no refusal part; written as text", "content_degraded")
    elif block.citations:
        losses.add(f"{path}.citations", "the SDK's text parts hold no citations (its sources hold no span)",
                   "content_dropped")
    return {"type": "text", "text": block.text, **meta.fields("state", "providerMetadata")}


def _reasoning(block: ReasoningBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    meta.take("contentblocks/issuer")
    part = {"type": "reasoning", "text": block.text or "", **meta.fields("state")}
    provider = reasoning_metadata(block, meta.take(NAMESPACE + "providerMetadata"), path, losses)
    if provider == {"": False}:
        meta.drop()
        return None
    if provider is not None:
        part["providerMetadata"] = provider
    return part


def _file(block: FileBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    source = block.source
    if isinstance(source, BytesSource):
        url = data_url(block.media_type, source.data)
    elif isinstance(source, UrlSource):
        url = source.url
    else:
        losses.add(path, "the SDK's file parts hold a URL; a provider's file id is not written", "content_dropped")
        meta.drop()
        return None
    report_document_fields(block, path, losses.add, "the SDK's file parts")
    part = {"type": "file", "mediaType": block.media_type, "url": url}
    if block.filename is not None:
        part["filename"] = block.filename
    return {**part, **meta.fields("providerMetadata")}


def _json(block: JsonBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    if meta.take(NATIVE) and isinstance(block.value, dict):
        kind = block.value.get("type")
        if isinstance(kind, str) and (kind in _NATIVE_PARTS or kind.startswith(("tool-", "data-"))):
            return dict(thaw(block.value))
        losses.add(path, "a ModelMessage part with no place in a UIMessage (a provider-run result, an approval "
                   "request); not written", "content_dropped")
        meta.drop()
        return None
    meta.taken.discard(NATIVE)
    name = meta.take(NAMESPACE + "data")
    part = {"type": f"data-{name if isinstance(name, str) and name else 'json'}"}
    if isinstance(data_id := meta.take(NAMESPACE + "data_id"), str):
        part["id"] = data_id
    return {**part, "data": thaw(block.value)}


def _call(block: ToolCallBlock | ServerToolCallBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any]:
    """A tool part; a tool the provider ran is one with ``providerExecuted: true``, whoever ran it."""
    if type(block) is ServerToolCallBlock:
        meta.state(_SDK)
        return {**_call(ToolCallBlock(tool_call_id=block.tool_call_id, tool_name=block.tool_name, input=block.input),
                        path, losses, meta), "providerExecuted": True}
    dynamic = meta.take(NAMESPACE + "dynamic") is True
    part: dict[str, Any] = {"type": "dynamic-tool", "toolName": block.tool_name} if dynamic else {
        "type": f"tool-{block.tool_name}"}
    part.update(toolCallId=block.tool_call_id, state=meta.take(NAMESPACE + "state", "input-available"))
    if meta.take(NAMESPACE + "input") is not False or block.input is not None:
        part["input"] = thaw(block.input)
    return {**part, **meta.fields("providerExecuted", "callProviderMetadata", "approval")}


def _compaction(block: CompactionBlock, path: str, losses: LossRecorder, meta: Meta) -> dict[str, Any] | None:
    summary = compaction_summary(block, path, "the SDK", losses.add, meta.taken)
    return None if summary is None else {"type": "text", "text": summary}


_PARTS: dict[type[Any], Any] = {TextBlock: _text, RefusalBlock: _text, ReasoningBlock: _reasoning,
                                FileBlock: _file, JsonBlock: _json, ToolCallBlock: _call, CompactionBlock: _compaction,
                                ServerToolCallBlock: _call}


def _part(block: Block, path: str, losses: LossRecorder) -> dict[str, Any] | None:
    meta = meta_of(block.metadata, path, losses)
    part = _PARTS[type(block)](block, path, losses, meta)
    meta.done("on this part")
    return part  # type: ignore[no-any-return]


class _Writer:
    def __init__(self, losses: LossRecorder) -> None:
        self.losses = losses
        self.out: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None  # the assistant UIMessage later steps and results join
        #: its tool parts by call id and whether the provider ran the tool (a provider's ids may be a client's)
        self.calls: dict[tuple[str, bool], dict[str, Any]] = {}
        self.steps: list[tuple[int, list[str]]] = []  # each assistant message: its index, its calls' ids
        self.placed: list[tuple[int, list[str]]] = []  # each tool message: its index, the ids it placed
        #: each approval request written and not yet decided: its call's part, its message's index, its path
        self.asked: dict[str, tuple[dict[str, Any], int, str]] = {}
        self.decided: list[tuple[dict[str, Any], ApprovalResponseBlock, str]] = []  # each decision, where it went

    def message(self, index: int, message: Message) -> None:
        """Write one message; its approvals then go into the tool parts of their calls."""
        self.write(index, message)
        if APPROVAL_BLOCKS.intersection(map(type, message.content)):
            self.approvals(index, message)

    def approvals(self, index: int, message: Message) -> None:
        """Each request into its call's part (``approval-requested``), each decision into the same part.

        The SDK keeps a call's approval in its tool part, a client call's and a provider-run one's alike: a request
        reads back right after its call, and a decision first in the tool message after the call's step; any other
        place is reported ``order_changed``. A request whose call is not in this message's parts has no place.
        """
        for at, block in enumerate(message.content):
            path = block_path(index, at)
            if type(block) is ApprovalRequestBlock:
                ran = any(type(b) is ServerToolCallBlock and b.tool_call_id == block.tool_call_id
                          for b in message.content)
                part = self.calls.get((block.tool_call_id, ran))
                denied = ran and part is not None and part.get("approval") == {  # its result, written already
                    "id": approval_id(block.tool_call_id), "approved": False, **_reason(part)}
                if message.role != "assistant" or part is None or ("approval" in part and not denied) or part.get(
                        "state") not in ("input-available", *STATES.values()):
                    self.losses.add(path, "a UIMessage holds an approval only in the part of a tool call of its "
                                    "message; not written", "approval_not_sent")
                    meta_of(block.metadata, path, self.losses).drop()
                    continue
                kind = ServerToolCallBlock if ran else ToolCallBlock
                later = any(type(b) is kind and b.tool_call_id == block.tool_call_id for b in message.content[at:])
                if later or not _after_its_call(message.content, at, kind, block.tool_call_id):
                    self.losses.add(path, "the SDK keeps an approval request in its call's part; read back right "
                                    "after the call", "order_changed")
                part["approval"] = {**part["approval"], "id": block.approval_id} if denied else {
                    "id": block.approval_id}
                if part["state"] == "input-available":
                    part["state"] = "approval-requested"
                self.asked[block.approval_id] = (part, index, path)
                meta_of(block.metadata, path, self.losses).done("on an approval request")
            elif type(block) is ApprovalResponseBlock:
                self.decide(index, message, at, block)

    def decide(self, index: int, message: Message, at: int, block: ApprovalResponseBlock) -> None:
        path = block_path(index, at)
        asked = self.asked.pop(block.approval_id, None)
        if asked is None:
            self.losses.add(path, "a UIMessage holds a decision only in the part of the call its request names; "
                            "not written", "approval_not_sent")
            meta_of(block.metadata, path, self.losses).drop()
            return
        part, step, _ = asked
        first = all(type(b) is ApprovalResponseBlock for b in message.content[:at])
        if not (message.role == "tool" and index == step + 1 and first):
            self.losses.add(path, "the SDK keeps a decision in its call's part; read back first in the tool "
                            "message after the call's step", "order_changed")
        part["approval"]["approved"] = block.approved
        if part["state"] == "approval-requested":
            part["state"] = "approval-responded"
        self.decided.append((part, block, path))
        meta_of(block.metadata, path, self.losses).done("on an approval decision")

    def write(self, index: int, message: Message) -> None:
        path = f"$[{index}]"
        meta = meta_of(message.metadata, path, self.losses)
        if message.role == "tool":
            self.results(index, message)
            meta.done("on a tool message (its results go into their calls' parts)")
            return
        if message.role == "developer":
            self.losses.add(f"{path}.role", "the SDK has no developer role; written as a system message",
                            "content_degraded")
        # a provider-run tool's result goes into its call's part (``server_results``), as the SDK keeps it
        results = [(at, b) for at, b in enumerate(message.content) if isinstance(b, ServerToolResultBlock)]
        parts = [_part(block, block_path(index, at), self.losses) for at, block in enumerate(message.content)
                 if type(block) is not ServerToolResultBlock and type(block) not in APPROVAL_BLOCKS]
        written = [part for part in parts if part is not None]
        starts = NAMESPACE + "id" in message.metadata or METADATA in message.metadata or any(
            not key.startswith((NAMESPACE, "contentblocks/")) for key in message.metadata)
        if message.role == "assistant":
            joins = self.open is not None and not starts
            if written and (meta.take(NAMESPACE + "step_start") is not False or joins):
                written.insert(0, {"type": "step-start"})
            elif not written:
                self.server_results(index, message, results)
                if results:  # the message is gone, its results in their calls' parts: its metadata has no place
                    meta.done("on a message of provider-run results, which join their calls' parts")
                else:
                    meta.drop()  # every block is reported dropped; so is the message's metadata
                return
            self.steps.append((index, [p["toolCallId"] for p in written if "toolCallId" in p and not _ran(p)]))
            if joins:
                assert self.open is not None  # noqa: S101 - joins says so
                self.open["parts"].extend(written)
                self.track(written)
                self.server_results(index, message, results)
                meta.done("on a step after the first")
                return
        if not written:
            meta.drop()  # every block is reported dropped; so is the message's metadata
            self.open = None
            return
        ui: dict[str, Any] = {"id": meta.take(NAMESPACE + "id") or f"msg-{index}",
                              "role": "assistant" if message.role == "assistant" else
                              "user" if message.role == "user" else "system"}
        if (own := meta.own()) is not None or METADATA in message.metadata:
            ui["metadata"] = own
        ui.update(meta.fields())
        ui["parts"] = written
        self.out.append(ui)
        self.open, self.calls = (ui, {}) if message.role == "assistant" else (None, {})
        self.track(written)
        self.server_results(index, message, results)
        meta.done("on a message")

    def track(self, parts: list[dict[str, Any]]) -> None:
        self.calls.update({(part["toolCallId"], _ran(part)): part for part in parts if "toolCallId" in part})

    def server_results(self, index: int, message: Message, results: list[tuple[int, ServerToolResultBlock]]) -> None:
        """Put each provider-run result of an assistant message into its call's part, as the SDK keeps it.

        A result whose call is not in the ``UIMessage`` (of the same tool, still open) has no part to go in: it is
        dropped. One that does not follow its call reads back right after it: reported ``order_changed``.
        """
        for position, result in results:
            path = block_path(index, position)
            part = self.calls.get((result.tool_call_id, True))
            name = None if part is None else part.get("toolName", part["type"][5:])
            if part is None or part.get("providerExecuted") is not True or part["state"] in STATES.values() or (
                    name != result.tool_name):
                self.losses.add(path, "the SDK keeps a provider-run result in its call's part, and no call of this id "
                                "and tool is in its UIMessage; not written", "content_dropped")
                meta_of(result.metadata, path, self.losses).drop()
                continue
            if not _after_its_call(message.content, position, ServerToolCallBlock, result.tool_call_id):
                self.losses.add(path, "the SDK keeps a provider-run result in its call's part; read back right after "
                                "the call", "order_changed")
            part.update(output_fields(result, path, self.losses, part.get("approval")))

    def results(self, index: int, message: Message) -> None:
        placed = []
        for position, block in enumerate(message.content):
            if type(block) is ApprovalResponseBlock:
                continue  # see ``approvals``
            assert isinstance(block, ToolResultBlock)  # noqa: S101 - the role table
            path = block_path(index, position)
            part = self.calls.get((block.tool_call_id, False))
            if part is None or part["state"] in STATES.values():
                self.losses.add(path, "the SDK keeps a result in its call's part, and no call of this id is in "
                                "the assistant message before; not written", "content_dropped")
                meta_of(block.metadata, path, self.losses).drop()
                continue
            part.update(output_fields(block, path, self.losses, part.get("approval")))
            placed.append(block.tool_call_id)
        self.placed.append((index, placed))

    def settle(self) -> None:
        """Give each decision its reason, once every result is in: a denied part holds one, its result's."""
        for part, block, path in self.decided:
            approval = part["approval"]
            if part["state"] != "output-denied":
                if block.reason is not None:
                    approval["reason"] = block.reason
                continue
            if block.approved:
                self.losses.add(f"{path}.approved", "the SDK's denied part holds a denial; this approval reads back "
                                "as one", "content_degraded")
                approval["approved"] = False
            if block.reason != approval.get("reason") and "reason" in approval:
                self.losses.add(path, "the SDK holds one reason for a denial, its result's; this decision reads back "
                                "with it", "content_degraded")
            elif block.reason is not None and "reason" not in approval:
                self.losses.add(f"{path}.reason", "the SDK holds one reason for a denial, its result's; this one is "
                                "not written", "content_dropped")

    def undecided(self) -> None:
        """Take back each request left without a decision on a call that ended: the SDK has no such part."""
        for part, _, path in self.asked.values():
            if part["state"] in STATES.values():
                approval = part.pop("approval")
                if part["state"] == "output-denied":  # the denial the SDK requires, under the id a writer gives one
                    reason = {"reason": approval["reason"]} if "reason" in approval else {}
                    part["approval"] = {"id": approval_id(part["toolCallId"]), "approved": False, **reason}
                self.losses.add(path, "a UIMessage holds a finished call's approval only with its decision; not "
                                "written", "approval_not_sent")

    def reorders(self) -> None:
        """Report each tool message that does not read back where it was: right after its calls' step."""
        answered = {call_id for _, ids in self.placed for call_id in ids}
        step_at = {index: [i for i in ids if i in answered] for index, ids in self.steps}
        for index, ids in self.placed:
            if ids and step_at.get(index - 1) != ids:
                self.losses.add(f"$[{index}]", "the SDK keeps results in their calls' parts; read back as one tool "
                                "message after the calls' step, in call order", "order_changed")


def _reason(part: dict[str, Any]) -> dict[str, Any]:
    """A denied part's reason, as its approval holds it (none when it has none)."""
    approval = part.get("approval")
    return {"reason": approval["reason"]} if isinstance(approval, dict) and "reason" in approval else {}


def _after_its_call(content: tuple[Block, ...], at: int, kind: type, call_id: str) -> bool:
    """Whether block ``at`` of ``content`` comes right after its call, a block of ``kind`` with ``call_id``.

    The call's approval request may stand between (before a provider-run result), as the SDK's parts read back.
    """
    while at and type(content[at - 1]) is ApprovalRequestBlock and content[at - 1].tool_call_id == call_id:  # type: ignore[union-attr]
        at -= 1
    before = content[at - 1] if at else None
    return type(before) is kind and before.tool_call_id == call_id  # type: ignore[union-attr]


def _ran(part: dict[str, Any]) -> bool:
    """Whether a tool part is of a tool the provider ran."""
    return part.get("providerExecuted") is True


def write_ui(conversation: Conversation, losses: LossRecorder) -> list[dict[str, Any]]:
    """The ``UIMessage`` list carrying ``conversation``."""
    writer = _Writer(losses)
    for index, message in enumerate(conversation.messages):
        report_breakpoints(losses.add, message, index, "a UIMessage has no cache breakpoint; not sent")
        writer.message(index, message)
    writer.settle()
    writer.undecided()
    writer.reorders()
    return writer.out
