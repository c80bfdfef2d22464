"""Approvals a target has no place for: taken out before a writer runs, each reported, every path kept.

An approval request and its decision are between a client and its tool runtime: no model reads them (the Vercel
AI SDK's own providers leave them out of a request too), and what the model reads of an approved or denied call
is the call and its result. So a target without approvals gets neither, and each is reported
``approval_not_sent``; a breakpoint on one is reported ``hint_not_sent``. A message that held only approvals (a
user's decision) goes, and with it nothing a provider would take: the call and its result then stand next to each
other, as every provider wants.

The writers then write the rest. Their losses point into what they were given, which has fewer blocks and
messages; :func:`restore_paths` puts each loss's path back into the conversation as the caller gave it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs

from .._model._classes import ApprovalRequestBlock, ApprovalResponseBlock, Message, ServerToolCallBlock
from .._model._conversation import Conversation
from ._contract import ISSUER_KEY, Loss, Rejection
from ._extras import BOOKKEEPING, FORMAT_FLAGS
from ._toolkit import key_path

__all__ = [
    "APPROVAL_BLOCKS",
    "Keep",
    "MessagesT",
    "PathMap",
    "restore_path",
    "restore_paths",
    "server_approvals",
    "without_approvals",
    "writing_without_approvals",
]

PathT = TypeVar("PathT", Loss, Rejection)
T = TypeVar("T")

#: The approval blocks' classes (a set, for a C-speed test of a message's block types).
APPROVAL_BLOCKS = frozenset({ApprovalRequestBlock, ApprovalResponseBlock})

MessagesT = TypeVar("MessagesT", bound=Sequence[Message])
#: For each message written, its index in the caller's conversation and, per block kept, the block's index there.
PathMap = list[tuple[int, list[int]]]
#: Which approval blocks a target keeps (a native form): given the block, its message's index and its own there.
Keep = Callable[[Any, int, int], bool]

#: The metadata a writer never reports: the issuer, format flags and bookkeeping (a seal) hold nothing of their own.
_NEVER_REPORTED = frozenset({ISSUER_KEY}) | FORMAT_FLAGS | BOOKKEEPING


def _never(_block: Any, _message: int, _index: int) -> bool:
    return False


def without_approvals(
    messages: MessagesT, target: str, keep: Keep = _never, scope: str = ""
) -> tuple[MessagesT, PathMap | None, list[Loss]]:
    """``messages`` without the approval blocks ``keep`` refuses, the map back to the given paths, and the losses.

    ``scope`` says which approvals a target that keeps some has (``" but for ..."``), for the reasons.

    When nothing is taken out, the same object comes back with no map (the common case costs one pass of type
    tests); a ``Conversation`` for a ``Conversation``, else a tuple.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="rm", input={})
    >>> ask = cb.ApprovalRequestBlock(approval_id="a1", tool_call_id="c1")
    >>> yes = cb.ApprovalResponseBlock(approval_id="a1", approved=True)
    >>> history = cb.Conversation(messages=[cb.Message(role="assistant", content=[ask, call]),
    ...                                     cb.Message(role="user", content=[yes])])
    >>> written, paths, losses = without_approvals(history, "Gemini")
    >>> [len(m.content) for m in written], paths
    ([1], [(0, [1])])
    >>> [(loss.path, loss.kind) for loss in losses]
    [('$[0].content[0]', 'approval_not_sent'), ('$[1].content[0]', 'approval_not_sent')]
    """
    approvals = APPROVAL_BLOCKS
    if all(approvals.isdisjoint(map(type, m.content)) for m in messages):
        return messages, None, []
    losses: list[Loss] = []
    written: list[Message] = []
    paths: PathMap = []
    for i, message in enumerate(messages):
        if approvals.isdisjoint(map(type, message.content)):
            written.append(message)
            paths.append((i, list(range(len(message.content)))))
            continue
        kept = [j for j, b in enumerate(message.content) if type(b) not in approvals or keep(b, i, j)]
        if len(kept) == len(message.content):
            written.append(message)
            paths.append((i, kept))
            continue
        for j, block in enumerate(message.content):
            if j not in kept:
                _report(losses, f"$[{i}].content[{j}]", block, f"{target} has no approvals{scope}")
        if kept:
            written.append(attrs.evolve(message, content=[message.content[j] for j in kept]))
            paths.append((i, kept))
            continue
        for key in [key for key in message.metadata if key not in _NEVER_REPORTED]:
            reason = f"{target} gets no message for approvals alone; its metadata stays local"
            losses.append(Loss(key_path(f"$[{i}]", key), reason, "metadata_not_sent"))
        if message.cache is not None:
            reason = f"{target} gets no message for approvals alone; its cache breakpoint is not sent"
            losses.append(Loss(f"$[{i}].cache", reason, "hint_not_sent"))
    if not losses and len(written) == len(messages) and all(a is b for a, b in zip(written, messages, strict=True)):
        return messages, None, []  # every approval kept
    out = Conversation(messages=written) if isinstance(messages, Conversation) else tuple(written)
    return out, paths, losses  # type: ignore[return-value]


def server_approvals(messages: Sequence[Message]) -> Keep:
    """Keeps the requests that name a tool the provider runs, and the first decision on each in a user message.

    Those pair within their own message and a later user turn, apart from the client's tool calls and results.
    Any other approval goes, broken ones included (a second request of an id, a decision on no request), so that
    what is kept pairs whatever the history was.
    """
    asked: set[str] = set()
    kept_ids: set[str] = set()  # the kept requests not yet decided
    kept: set[tuple[int, int]] = set()  # where: a broken history may hold one message object twice
    for i, message in enumerate(messages):
        for j, block in enumerate(message.content):
            if type(block) is ApprovalRequestBlock and block.approval_id not in asked:
                asked.add(block.approval_id)  # taken, even when not kept: a later request of it is a second one
                if message.role == "assistant" and any(
                    type(b) is ServerToolCallBlock and b.tool_call_id == block.tool_call_id for b in message.content
                ):
                    kept.add((i, j))
                    kept_ids.add(block.approval_id)
            elif type(block) is ApprovalResponseBlock and message.role == "user" and block.approval_id in kept_ids:
                kept_ids.discard(block.approval_id)  # decided: a second decision goes
                kept.add((i, j))
    return lambda _block, i, j: (i, j) in kept


def _report(losses: list[Loss], path: str, block: Any, why: str) -> None:
    what = "approval request" if type(block) is ApprovalRequestBlock else "approval decision"
    reason = f"{why}; the {what} stays local (the model reads the call and its result)"
    losses.append(Loss(path, reason, "approval_not_sent"))
    if block.cache is not None:
        reason = f"{why}; a cache breakpoint on an approval is not sent"
        losses.append(Loss(f"{path}.cache", reason, "hint_not_sent"))


def restore_path(path: str, paths: PathMap) -> str:
    """A path into the messages written, as a path into the conversation given."""
    return _restored(path, _parse(path), paths)[0]


def _restored(path: str, at: tuple[int, int, int], paths: PathMap) -> tuple[str, tuple[int, int]]:
    """``path`` (whose message and block ``_parse`` gave, and where its rest starts) moved back, and its position."""
    message, block, rest = at
    if not 0 <= message < len(paths):
        return path, (message, block)
    given, kept = paths[message]
    if block < 0:
        return f"$[{given}]{path[rest:]}", (given, -1)
    block = kept[block] if block < len(kept) else block
    return f"$[{given}].content[{block}]{path[rest:]}", (given, block)


def restore_paths(found: Sequence[PathT], paths: PathMap | None) -> list[PathT]:
    """Losses or rejections with each path moved from the messages written back to the conversation given."""
    if paths is None:
        return list(found)
    return [item for _, item in _moved(found, paths)]


def _moved(found: Sequence[PathT], paths: PathMap) -> list[tuple[tuple[int, int], PathT]]:
    """Each item moved back, with its position there; an item whose path stays the same is itself."""
    out = []
    for item in found:
        at = _parse(item.path)
        path, position = _restored(item.path, at, paths)
        if path == item.path:
            out.append((position, item))
        elif type(item) is Loss:  # the common case, built directly: ``attrs.evolve`` looks its fields up each time
            out.append((position, Loss(path, item.reason, item.kind)))
        else:
            out.append((position, attrs.evolve(item, path=path)))
    return out


def writing_without_approvals(
    messages: MessagesT,
    losses: list[Loss],
    target: str,
    write: Callable[[MessagesT], T],
    keep: Keep = _never,
    scope: str = "",
) -> tuple[T, PathMap | None]:
    """``write`` of ``messages`` without the approvals ``keep`` refuses, and the map back to the paths given.

    ``losses`` is the writer's own list: what ``write`` adds to it is moved back to the paths given, and merged
    with the losses of the approvals taken out, message by message. The caller moves any other path the writer
    keeps (with the map returned).
    """
    kept, paths, local = without_approvals(messages, target, keep, scope)
    first = len(losses)
    losses.extend(local)
    start = len(losses)
    written = write(kept)
    if paths is not None:  # one parse of each path moves it back and places it among the approvals' losses
        placed = [(_parse(loss.path)[:2], loss) for loss in local] + _moved(losses[start:], paths)
        placed.sort(key=lambda pair: pair[0])  # stable: each block's losses as found
        losses[first:] = [loss for _, loss in placed]
    return written, paths


def _parse(path: str) -> tuple[int, int, int]:
    """The message and block ``path`` names (``-1`` for none) and where the rest of it starts.

    Read without a regular expression: it runs on every loss of a conversation that holds an approval.
    """
    end = path.find("]")
    if not path.startswith("$[") or end < 0 or not path[2:end].isdecimal():
        return (-1, -1, 0)
    message = int(path[2:end])
    if path.startswith(".content[", end + 1):
        close = path.find("]", end + 10)
        block = path[end + 10 : close]
        if close > 0 and block.isdecimal():
            return (message, int(block), close + 1)
    return (message, -1, end + 1)
