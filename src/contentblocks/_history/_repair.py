"""Repair: a broken history made sendable, every change reported as a ``Loss``.

The pairing a provider accepts is stricter than the one a ``Conversation`` checks: every provider wants each
call's result in the tool messages right after the assistant message that made the call, and every call
answered. Repair reads the history once to pair results with calls (renaming duplicate ids, dropping
orphans), then writes it once with each call message followed by its results.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping, Sequence
from itertools import pairwise, repeat
from operator import itemgetter
from typing import Any, Literal, TypeAlias

import attrs

from .._model._classes import Message, ReasoningBlock, ToolCallBlock, ToolResultBlock
from .._model._conversation import Conversation, tool_summary
from .._model._growth import ToolBlockSummary
from .._sanitize._policy import UNANSWERED_CALLS, UnansweredCalls, stand_in_result
from .._sealing import SEAL_KEY
from ..providers._approvals import restore_paths, server_approvals, without_approvals
from ..providers._contract import Converted, Loss, LossKind
from ._turns import paired

__all__ = ["MERGING_PROVIDERS", "UNANSWERED_RESULT_TEXT", "RepairTarget", "repair"]

#: What the result repair writes for a call the history holds no result for says to the model.
UNANSWERED_RESULT_TEXT = "This call has no result in the conversation's history; the tool was not run again."

RepairTarget: TypeAlias = Literal["anthropic", "gemini", "mcp", "openai_chat", "openai_responses"]
"""The providers ``repair(..., provider=...)`` knows."""

#: The providers that refuse consecutive assistant messages (Gemini: a model turn with function calls must
#: follow a user or function-response turn), for which repair merges them.
MERGING_PROVIDERS = frozenset({"gemini"})
#: How the reasons of approvals taken out name a repaired history (see ``providers._approvals``).
_SENDABLE, _SCOPE = "a history repaired for a provider", " but for the tools the provider runs"

_PROVIDERS = frozenset({"anthropic", "gemini", "mcp", "openai_chat", "openai_responses"})
_MAX_ID = 256
_ID = itemgetter(1)  # the id of a tool block's summary
_Tools: TypeAlias = Sequence[tuple[bool, str, str, int]]  # a message's tool blocks: (is_call, id, name, index)


def _messages(value: object) -> Sequence[Message]:
    if isinstance(value, Conversation):
        return value.messages
    if isinstance(value, (list, tuple)) and all(map(isinstance, value, repeat(Message))):
        return value
    msg = f"repair() takes a Conversation or a sequence of Message, got {type(value).__name__}"
    raise TypeError(msg)


class _Pairing:
    """The first pass: a unique id for every call, and for every result the call it answers (or none)."""

    def __init__(self, messages: Sequence[Message], losses: list[Loss]) -> None:
        self.losses = losses
        summary = tool_summary(messages, 0)  # the messages with tool blocks only
        self.ids: dict[tuple[int, int], str] = {}  # (message, block) of a renamed call -> its id in the result
        self.target: dict[tuple[int, int], str] = {}  # (message, block) of a kept result -> the id it answers
        self.answers: dict[str, tuple[int, int]] = {}  # call id -> (message, block) of the result answering it
        self.names: dict[str, str] = {}  # call id (in the result) -> tool name
        self.where: dict[str, tuple[int, int]] = {}  # call id -> (message, block) of its call
        self.tools: dict[int, Sequence[tuple[bool, str, str, int]]] = dict(summary)  # message -> its tool blocks
        self.renamed: set[int] = set()  # the messages with a call or result whose id changes
        ids, target, answers, names, where, renamed = (self.ids, self.target, self.answers, self.names, self.where,
                                                       self.renamed)
        taken: set[str] | None = None  # every id a call is written with, once one is renamed
        latest: dict[str, str] = {}  # id as written -> the id of the newest call written with it
        for i, tools in summary:
            for is_call, written, name, j in tools:
                if is_call:
                    new = written
                    if new in names:  # used by an earlier call
                        if taken is None:
                            taken = {t[1] for _, tools in summary for t in tools if t[0]}
                        new = _fresh(new, taken, names)
                        reason = f"a tool call id used by an earlier call; renamed {new!r} with its result"
                        losses.append(Loss(f"$[{i}].content[{j}].tool_call_id", reason, "content_degraded"))
                        renamed.add(i)
                        ids[i, j] = new
                    latest[written] = new
                    names[new] = name
                    where[new] = (i, j)
                    continue
                answered = latest.get(written)
                if answered is not None and answered not in answers and names[answered] == name:
                    answers[answered] = (i, j)
                    target[i, j] = answered
                else:
                    self.drop(i, j, answered)
                if answered != written:
                    renamed.add(i)

    def path(self, call_id: str) -> str:
        """The path of a call in the history given."""
        i, j = self.where[call_id]
        return f"$[{i}].content[{j}]"

    def drop(self, i: int, j: int, call_id: str | None) -> None:
        """Report a result dropped: it answers no earlier call, a call answered already, or another tool's call."""
        if call_id is None:
            reason = "a tool result answering no earlier call; dropped"
        elif call_id in self.answers:
            reason = "a tool result for a call already answered; dropped"
        else:
            reason = "a tool result naming another tool than its call; dropped"
        self.losses.append(Loss(f"$[{i}].content[{j}]", reason, "content_dropped"))
        self.renamed.add(i)  # a dropped result changes its message too


def _fresh(call_id: str, taken: set[str], used: Container[str]) -> str:
    n = 1
    while True:
        suffix = f"~{n}"
        candidate = call_id[: _MAX_ID - len(suffix)] + suffix
        if candidate not in taken and candidate not in used:
            taken.add(candidate)
            return candidate
        n += 1


class _Writer:
    """The second pass: each message written once, each call message followed by the results of its calls."""

    def __init__(self, messages: Sequence[Message], pairing: _Pairing, unanswered: UnansweredCalls) -> None:
        self.messages = messages
        self.pairing = pairing
        self.unanswered = unanswered
        self.losses = pairing.losses
        self.out: list[Message] = []
        self.origins: list[int] = []  # the index in ``messages`` each written message comes from
        self.summary: list[ToolBlockSummary] = []  # the tool blocks of what is written, for its check

    def write(self, message: Message, origin: int) -> None:
        """Write a message with tool blocks (``run`` writes the others); its blocks are known if it is as it was."""
        at = len(self.out)
        self.out.append(message)
        self.origins.append(origin)
        if message is self.messages[origin]:
            tools = self.pairing.tools.get(origin)
            if tools is not None:  # a tool message with no block has none
                self.summary.append((at, tools))
        else:
            self.summary.extend(tool_summary((message,), at))

    def run(self) -> list[Message]:
        messages, pairing, out, origins, summary = self.messages, self.pairing, self.out, self.origins, self.summary
        tools, renamed = pairing.tools, pairing.renamed
        last = len(messages) - 1
        for i, message in enumerate(messages):
            role = message.role
            if role == "tool":
                continue  # written after the call message its results answer
            if role != "assistant" or i not in tools:  # no tool block: nothing for ``summary``
                out.append(message)
                origins.append(i)
                continue
            k = i + 1
            if (k <= last and messages[k].role == "tool" and (k == last or messages[k + 1].role != "tool")
                    and i not in renamed and k not in renamed and _same_ids(tools[i], tools.get(k))):
                # The common case: one tool message right after, answering each call in order, ids kept.
                at = len(out)
                out += (message, messages[k])
                origins += (i, k)
                summary += ((at, tools[i]), (at + 1, tools[k]))
            else:
                self.calls(i, message)
        return out

    def calls(self, i: int, message: Message) -> None:
        pairing = self.pairing
        if i not in pairing.renamed:  # the common case: ids kept, and each call answered (or answered now)
            ids = [call_id for is_call, call_id, _, _ in pairing.tools[i] if is_call]
            if self.unanswered != "drop" or all(call_id in pairing.answers for call_id in ids):
                self.write(message, i)
                self.results(i, ids)
                return
        content: list[Any] = []
        call_ids: list[str] = []
        dropped: list[str] = []
        for j, block in enumerate(message.content):
            if type(block) is not ToolCallBlock:
                content.append(block)
                continue
            call_id = pairing.ids.get((i, j), block.tool_call_id)
            if call_id not in pairing.answers and self.unanswered == "drop":
                reason = "a tool call with no result; dropped"
                self.losses.append(Loss(f"$[{i}].content[{j}]", reason, "content_dropped"))
                dropped.append(call_id)
                continue
            call_ids.append(call_id)
            content.append(block if call_id == block.tool_call_id else attrs.evolve(block, tool_call_id=call_id))
        if not call_ids:  # every call dropped: the reasoning that signed them goes with them
            content = self.unsigned(i, message, content)
        if not content:
            return
        changed = len(content) != len(message.content) or any(
            a is not b for a, b in zip(content, message.content, strict=True)
        )
        if changed:
            metadata = {k: v for k, v in message.metadata.items() if k != SEAL_KEY}  # no longer as sealed
            self.write(Message(role="assistant", content=content, cache=message.cache, metadata=metadata), i)
        else:
            self.write(message, i)
        if call_ids:
            self.results(i, call_ids)

    def unsigned(self, i: int, message: Message, content: list[Any]) -> list[Any]:
        for j, block in enumerate(message.content):
            if type(block) is ReasoningBlock:
                kind: LossKind = "content_dropped" if block.text is not None else "state_not_replayed"
                reason = "reasoning that signed tool calls dropped for having no result; dropped with them"
                self.losses.append(Loss(f"$[{i}].content[{j}]", reason, kind))
        return [block for block in content if type(block) is not ReasoningBlock]

    def results(self, i: int, call_ids: list[str]) -> None:
        """The tool messages right after message ``i``: those there already, then moved results, then stand-ins."""
        messages, pairing = self.messages, self.pairing
        mine = set(call_ids)
        placed: set[str] = set()
        k = i + 1
        while k < len(messages) and messages[k].role == "tool":
            placed |= self.following(k, mine)
            k += 1
        extra: list[ToolResultBlock] = []
        for call_id in call_ids:
            if call_id in placed:
                continue
            if call_id in pairing.answers:
                m, j = pairing.answers[call_id]
                block = self.messages[m].content[j]
                reason = "a tool result moved up to follow the message of its call, as providers require"
                self.losses.append(Loss(f"$[{m}].content[{j}]", reason, "order_changed"))
                extra.append(_answering(block, call_id))
            else:
                extra.append(self.stand_in(call_id))
        if extra:
            self.write(Message(role="tool", content=extra), i)

    def following(self, k: int, mine: set[str]) -> set[str]:
        """Write what tool message ``k`` holds for the calls ``mine``; the ids of those calls it answers."""
        message, pairing = self.messages[k], self.pairing
        tools = pairing.tools.get(k, ())
        if k not in pairing.renamed and all(call_id in mine for _, call_id, _, _ in tools):
            self.write(message, k)  # every result of it answers one of those calls, under its own id
            return {call_id for _, call_id, _, _ in tools}
        placed: set[str] = set()
        content = []
        for j, block in enumerate(message.content):
            call_id = pairing.target.get((k, j))
            if call_id is not None and call_id in mine:
                placed.add(call_id)
                content.append(_answering(block, call_id))
        if len(content) == len(message.content) and all(a is b for a, b in zip(content, message.content, strict=True)):
            self.write(message, k)
        elif content:
            metadata = _unsealed(message.metadata)
            self.write(Message(role="tool", content=content, cache=message.cache, metadata=metadata), k)
        return placed

    def stand_in(self, call_id: str) -> ToolResultBlock:
        result = stand_in_result(call_id, self.pairing.names[call_id], self.unanswered, UNANSWERED_RESULT_TEXT)
        reason = f"a tool call with no result; answered as {result.outcome}"
        self.losses.append(Loss(self.pairing.path(call_id), reason, "content_degraded"))
        return result


def _same_ids(calls: _Tools, results: _Tools | None) -> bool:
    """Whether the results answer the calls one for one, in order (most often: one call, one result)."""
    if results is None or len(calls) != len(results):
        return False
    if len(calls) == 1:
        return calls[0][1] == results[0][1]
    return list(map(_ID, calls)) == list(map(_ID, results))


def _with_breakpoint(message: Message) -> tuple[Any, ...]:
    """The blocks of a message merged into another, its breakpoint (which stands after its last block) on that block.

    The merged message's own ``cache`` is the last message's; a last block with a breakpoint of its own keeps it.
    """
    last = message.content[-1]
    if message.cache is None or last.cache is not None:
        return message.content
    return (*message.content[:-1], attrs.evolve(last, cache=message.cache))


def _answering(block: Any, call_id: str) -> ToolResultBlock:
    """A paired result, with the id of its call (renamed when the call was)."""
    result: ToolResultBlock = block if call_id == block.tool_call_id else attrs.evolve(block, tool_call_id=call_id)
    return result


def _unsealed(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    return {k: v for k, v in metadata.items() if k != SEAL_KEY} if SEAL_KEY in metadata else metadata


def _merge(messages: list[Message], origins: list[int], losses: list[Loss]) -> list[Message]:
    """Consecutive assistant messages as one: their blocks in order, the first one's metadata kept."""
    out: list[Message] = []
    k = 0
    while k < len(messages):
        end = k + 1
        if messages[k].role == "assistant":
            while end < len(messages) and messages[end].role == "assistant":
                end += 1
        if end - k == 1:
            out.append(messages[k])
            k = end
            continue
        first = messages[k]
        metadata = dict(_unsealed(first.metadata))
        for n in range(k + 1, end):
            path = f"$[{origins[n]}]"
            reason = "an assistant message merged into the one before it (Gemini refuses consecutive model turns)"
            losses.append(Loss(path, reason, "content_degraded"))
            for key, value in messages[n].metadata.items():
                if key != SEAL_KEY and metadata.setdefault(key, value) != value:
                    reason = "metadata of a merged assistant message whose key the message before it sets"
                    where = f"{path}.metadata[{json.dumps(key, ensure_ascii=False)}]"
                    losses.append(Loss(where, reason, "metadata_not_sent"))
        content = [block for m in messages[k : end - 1] for block in _with_breakpoint(m)]
        content.extend(messages[end - 1].content)
        out.append(Message(role="assistant", content=content, cache=messages[end - 1].cache, metadata=metadata))
        k = end
    return out


def _in_place(messages: Sequence[Message], *, merging: bool) -> bool:
    """Whether a valid conversation needs no repair: each call answered in the tool messages right after it.

    It reads only the messages with tool blocks (as the conversation's own check does), so a history that
    needs nothing costs about one check.
    """
    open_calls: set[str] = set()
    following = -1  # the index where the run of tool messages answering ``open_calls`` goes on
    for m, tools in tool_summary(messages, 0):
        if messages[m].role == "tool":
            if m != following:
                return False
            for _, call_id, _, _ in tools:
                open_calls.discard(call_id)  # the conversation's check saw it answer an open call
            following = m + 1
        else:
            if open_calls:
                return False
            open_calls = {call_id for _, call_id, _, _ in tools}
            following = m + 1
    if open_calls:
        return False
    if merging:
        return not any(a.role == b.role == "assistant" for a, b in pairwise(messages))
    return True


def repair(
    conversation: Conversation | Sequence[Message],
    *,
    unanswered: UnansweredCalls = "failed",
    provider: RepairTarget | None = None,
) -> Converted[Conversation]:
    """A history every provider accepts the tool pairing of, and each change made to it.

    ``conversation`` may be a ``Conversation`` or any sequence of messages, including the broken ones a
    ``Conversation`` refuses (a trimmed history whose result lost its call, duplicate call ids). Repair:

    - drops a result that answers no earlier call, a call already answered, or names another tool than its
      call (``content_dropped``);
    - renames a call id that an earlier call used, and its result with it (``content_degraded``);
    - moves each result to the tool messages right after the message of its call, where every provider
      wants it (``order_changed``): a ``Conversation`` allows a later answer, after a user message;
    - answers each call with no result with a result of outcome ``unanswered`` (``"failed"`` by default,
      ``"denied"`` or ``"interrupted"``) saying so (``content_degraded``), or with ``"drop"`` removes the call,
      and the reasoning of its message when no call of it is left, since that reasoning signed the calls
      (``content_dropped``);
    - with ``provider="gemini"``, merges consecutive assistant messages (Gemini refuses a model turn with
      function calls right after another model turn); the other providers combine or accept them, and a
      merge costs the messages' own metadata and seals, so it is done only where needed.

    Paths of the losses are in the history as given (a merge is reported at the message merged into the
    one before it, ``content_degraded``). A message that changes loses its seal entry (it is no
    longer as sealed). A history that needs nothing comes back as it is, with no loss, so a second repair
    changes nothing.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"})
    >>> history = [cb.Message(role="user", content="Weather in Oslo?"), cb.Message(role="assistant", content=[call])]
    >>> fixed = cb.repair(history)
    >>> [(r.tool_call_id, r.outcome) for r in fixed.payload[-1].tool_results()]
    [('c1', 'failed')]
    >>> for loss in fixed.losses:
    ...     print(loss, loss.kind)
    $[1].content[0]: a tool call with no result; answered as failed content_degraded
    >>> cb.repair(fixed.payload).losses
    ()

    .. versionadded:: 2026.12.0
    """
    messages = _messages(conversation)
    if unanswered not in UNANSWERED_CALLS:
        msg = f"unanswered must be one of {', '.join(map(repr, UNANSWERED_CALLS))}, got {unanswered!r}"
        raise ValueError(msg)
    if provider is not None and provider not in _PROVIDERS:
        msg = f"provider must be one of {', '.join(sorted(_PROVIDERS))} or None, got {provider!r}"
        raise ValueError(msg)
    given = messages
    messages, paths, local = without_approvals(messages, _SENDABLE, server_approvals(messages), _SCOPE)
    if paths is None and isinstance(conversation, Conversation) and _in_place(
        messages, merging=provider in MERGING_PROVIDERS
    ):
        return Converted(conversation)
    losses: list[Loss] = []
    writer = _Writer(messages, _Pairing(messages, losses), unanswered)
    out = writer.run()
    if provider in MERGING_PROVIDERS:
        out = _merge(out, writer.origins, losses)
    if not losses and paths is None and isinstance(conversation, Conversation) and len(out) == len(given):
        return Converted(conversation)
    found = (*local, *restore_paths(losses, paths))
    if provider in MERGING_PROVIDERS or paths is not None:  # merged, or approvals kept: checked whole
        return Converted(Conversation(messages=out), found)
    return Converted(paired(out, writer.summary), found)
