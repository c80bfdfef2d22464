"""Prune: what is old made small, the shape of the history kept, each pruned thing reported."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._conversion._unchecked import unchecked
from .._model._classes import (
    ApprovalRequestBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._model._conversation import Conversation
from .._sanitize._walk import NATIVE_FLAGS
from .._sealing import SEAL_KEY
from ..providers._contract import Converted, Loss
from ._turns import conversation_argument, conversation_turn_starts, trusted

__all__ = ["PRUNED_RESULT_TEXT", "file_note", "prune"]

#: The text of the stub that replaces an old tool result's content.
PRUNED_RESULT_TEXT = "[This tool result was pruned from the history to save space.]"

_STUB = (TextBlock(text=PRUNED_RESULT_TEXT),)
# Pruned messages and stubs are built from valid parts (blocks of valid messages, of kinds their role allows):
# their fields need no check again.
_new_message = unchecked(Message)
_new_result = unchecked(ToolResultBlock)
_NOTE_PREFIX = "[A file was pruned from the history to save space: "
_STUBBED = "an old tool result's content pruned; a stub keeps its pairing"
_new_loss = unchecked(Loss)  # each loss is of a valid kind: no check again
_PRUNED_ROLES = frozenset({"user", "assistant", "tool"})  # system and developer messages are never pruned


def file_note(block: FileBlock) -> TextBlock:
    """The text block that stands for a pruned file: its media type and name, so the model knows it was there.

    >>> import contentblocks as cb
    >>> pdf = cb.FileBlock(media_type="application/pdf", source=cb.UrlSource(url="https://example.com/a.pdf"),
    ...                    filename="a.pdf")
    >>> file_note(pdf).text
    '[A file was pruned from the history to save space: application/pdf, a.pdf]'
    """
    named = f", {block.filename}" if block.filename else ""
    return TextBlock(text=f"{_NOTE_PREFIX}{block.media_type}{named}]")


class _Pruner:
    def __init__(self, *, reasoning: bool, tool_results: bool, files: bool, state: bool) -> None:
        self.reasoning, self.tool_results, self.files, self.state = reasoning, tool_results, files, state
        self.losses: list[Loss] = []
        # the kinds of block that may be pruned from a user or assistant message
        self.kinds = frozenset(kind for kind, on in ((ReasoningBlock, reasoning), (JsonBlock, state),
                                                     (ServerToolCallBlock, state), (ServerToolResultBlock, state),
                                                     (FileBlock, files)) if on)
        self.kinds_with_calls = self.kinds - {ReasoningBlock}
        self.notes: dict[tuple[str, str | None], TextBlock] = {}

    def lose(self, path: str, reason: str, kind: Any) -> None:
        self.losses.append(_new_loss(path, reason, kind))

    def note(self, block: FileBlock) -> TextBlock:
        """``file_note(block)``, made once for each media type and name (the same image is often sent again)."""
        key = (block.media_type, block.filename)
        note = self.notes.get(key)
        if note is None:
            note = self.notes[key] = file_note(block)
        return note

    def block(self, block: Any, path: str, *, signs_calls: bool, assistant: bool) -> Any:
        """The block kept, changed (a file as a note, a result as a stub) or ``None`` when it is dropped."""
        kind = type(block)
        if kind is ReasoningBlock and self.reasoning and not signs_calls:
            kind_lost = "content_dropped" if block.text is not None else "state_not_replayed"
            self.lose(path, "old reasoning pruned", kind_lost)
            return None
        if kind is JsonBlock and self.state and assistant and not NATIVE_FLAGS.isdisjoint(block.metadata):
            self.lose(path, "an old provider-run item (provider state) pruned", "state_not_replayed")
            return None
        if (kind is ServerToolCallBlock or kind is ServerToolResultBlock) and self.state:
            self.lose(path, "an old tool the provider ran pruned (its call and result go together)",
                      "content_dropped")
            return None
        if kind is FileBlock and self.files:
            self.lose(path, "an old file pruned; a text note says what it was", "content_dropped")
            note = self.note(block)
            return note if block.cache is None else TextBlock(text=note.text, cache=block.cache)  # the breakpoint stays
        if kind is ToolResultBlock and self.tool_results and block.content and not _stub(block):
            self.lose(f"{path}.content", _STUBBED, "content_dropped")
            return _new_result(block.tool_call_id, block.tool_name, block.outcome, _STUB, block.cache, block.metadata)
        return block

    def results(self, message: Message, i: int) -> Message:
        """A tool message with each result's content as the stub (its results are all there is to prune)."""
        content: tuple[ToolResultBlock, ...] = message.content  # type: ignore[assignment]  # and approval decisions
        if all(type(block) is not ToolResultBlock or not block.content or _stub(block) for block in content):
            return message
        new = []
        for j, block in enumerate(content):
            if type(block) is ToolResultBlock and block.content and not _stub(block):
                self.lose(f"$[{i}].content[{j}].content", _STUBBED, "content_dropped")
                new.append(
                    _new_result(block.tool_call_id, block.tool_name, block.outcome, _STUB, block.cache, block.metadata)
                )
            else:
                new.append(block)
        if SEAL_KEY in message.metadata:  # no longer as sealed
            return Message(role="tool", content=new, cache=message.cache, metadata=_unsealed(message.metadata))
        return _new_message("tool", tuple(new), message.cache, message.metadata)  # type: ignore[no-any-return]

    def message(self, message: Message, i: int) -> Message | None:
        """The message pruned (``None`` when nothing of it is left); called for the messages ``candidates`` finds."""
        if message.role == "tool":
            return self.results(message, i)
        # Reasoning that signed tool calls stays: Anthropic and OpenAI refuse calls replayed without it.
        signs_calls = message.role == "assistant" and any(type(b) is ToolCallBlock for b in message.content)
        assistant = message.role == "assistant"
        # A provider-run call an approval request names stays with it: the request must name a call of its message.
        asked = {b.tool_call_id for b in message.content if type(b) is ApprovalRequestBlock}
        content = [
            b if asked and type(b) is ServerToolCallBlock and b.tool_call_id in asked
            else self.block(b, f"$[{i}].content[{j}]", signs_calls=signs_calls, assistant=assistant)
            for j, b in enumerate(message.content)
        ]
        if all(new is old for new, old in zip(content, message.content, strict=True)):
            return message
        kept = [b for b in content if b is not None]
        if not kept:
            return None  # every block of it is reported
        if SEAL_KEY in message.metadata:  # no longer as sealed
            return Message(role=message.role, content=kept, cache=message.cache, metadata=_unsealed(message.metadata))
        return _new_message(message.role, tuple(kept), message.cache, message.metadata)  # type: ignore[no-any-return]

    def candidates(self, messages: Sequence[Message]) -> list[int]:
        """The indexes of the messages that may hold something to prune, found from their roles and block types.

        Most messages hold nothing to prune; one comprehension passes over them without a call each.
        """
        kinds, with_calls, results = self.kinds, self.kinds_with_calls, self.tool_results
        return [
            i for i, m in enumerate(messages)
            if (role := m.role) in _PRUNED_ROLES and (
                results if role == "tool" else not (
                    with_calls if ToolCallBlock in (types := set(map(type, m.content))) else kinds
                ).isdisjoint(types))
        ]


def _unsealed(metadata: Any) -> Any:
    return {k: v for k, v in metadata.items() if k != SEAL_KEY}


def _stub(block: ToolResultBlock) -> bool:
    content = block.content
    return len(content) == 1 and type(content[0]) is TextBlock and content[0].text == PRUNED_RESULT_TEXT


def prune(
    conversation: Conversation | Sequence[Message],
    *,
    keep_turns: int = 2,
    reasoning: bool = True,
    tool_results: bool = True,
    files: bool = True,
    state: bool = True,
) -> Converted[Conversation]:
    """The history with what is older than the last ``keep_turns`` turns made small, and each thing pruned.

    Turns are those :func:`~contentblocks.window` cuts at (each starts at a user message; a call and its
    result are in one turn). In the older turns:

    - ``reasoning``: reasoning blocks are dropped, except in an assistant message with tool calls, since the
      reasoning signed them (Anthropic refuses a replayed tool call without its thinking, OpenAI's Responses
      refuses a function call whose reasoning item it references is missing);
    - ``tool_results``: each tool result's content becomes one text block saying it was pruned; the result,
      its id, tool name and outcome stay, so the pairing holds;
    - ``files``: each file block of a user or assistant message becomes a text note of its media type and
      name (a file inside a tool result goes with the result's content);
    - ``state``: JSON blocks of assistant messages flagged as provider-run items (provider state) are dropped, and so
      are the calls and results of tools a provider ran (``content_dropped``: a result's readable content goes too).

    A message left with no block is dropped. System and developer messages are never pruned. Each pruned
    block is a loss at its path in the history given: ``content_dropped`` for reasoning text, files and result
    content, ``state_not_replayed`` for reasoning with no text and provider-run items. A changed message loses
    its seal entry. Pruning a pruned history changes nothing more.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="search", input={"q": "attrs"})
    >>> found = cb.ToolResultBlock(tool_call_id="c1", tool_name="search", outcome="succeeded",
    ...                            content=[cb.TextBlock(text="attrs is a Python package... " * 100)])
    >>> history = cb.Conversation(messages=[
    ...     cb.Message(role="user", content="What is attrs?"),
    ...     cb.Message(role="assistant", content=[cb.ReasoningBlock(text="Search it."), call]),
    ...     cb.Message(role="tool", content=[found]),
    ...     cb.Message(role="assistant", content=[cb.ReasoningBlock(text="Sum up."), cb.TextBlock(text="A library.")]),
    ...     cb.Message(role="user", content="Thanks!"),
    ... ])
    >>> pruned = cb.prune(history, keep_turns=1)
    >>> pruned.payload[2].tool_results()[0].content[0].text
    '[This tool result was pruned from the history to save space.]'
    >>> for loss in pruned.losses:
    ...     print(loss)
    $[2].content[0].content: an old tool result's content pruned; a stub keeps its pairing
    $[3].content[0]: old reasoning pruned
    >>> cb.prune(pruned.payload, keep_turns=1).losses
    ()

    .. versionadded:: 2026.12.0
    """
    conversation = conversation_argument(conversation, "prune")
    if type(keep_turns) is not int or keep_turns < 0:
        msg = f"keep_turns must be a non-negative int, got {keep_turns!r}"
        raise ValueError(msg)
    for name, flag in (("reasoning", reasoning), ("tool_results", tool_results), ("files", files), ("state", state)):
        if type(flag) is not bool:
            msg = f"{name} must be a bool, got {type(flag).__name__}"
            raise TypeError(msg)
    messages = conversation.messages
    starts = conversation_turn_starts(conversation)
    boundary = starts[-keep_turns] if 0 < keep_turns <= len(starts) else (0 if keep_turns else len(messages))
    pruner = _Pruner(reasoning=reasoning, tool_results=tool_results, files=files, state=state)
    out: list[Message | None] = list(messages)
    emptied = False  # whether a message was left with no block
    for i in pruner.candidates(messages[:boundary]):
        out[i] = new = pruner.message(messages[i], i)
        emptied = emptied or new is None
    if not pruner.losses:
        return Converted(conversation)
    kept = [m for m in out if m is not None] if emptied else out
    return Converted(trusted(kept), tuple(pruner.losses))  # type: ignore[arg-type]  # no None once emptied
