"""The Agents SDK's own layer over Responses input items: ``RunItem`` objects, their agents and handoffs.

The items themselves are the Responses API's, read and written by ``providers.openai_responses``; this module
turns what the SDK hands out into those items, and records what only the SDK knows (which agent produced an item,
which calls are handoffs) as ``openai_agents/`` metadata on the messages and blocks the items become.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..._errors import ValidationError
from ..._model._classes import Block, Message, ToolCallBlock, ToolResultBlock
from ..._model._conversation import Conversation
from ...providers.openai_responses._approvals import read_request, read_response
from ...providers.openai_responses._read import REQUEST_ITEMS, read_items

__all__ = ["NS", "Item", "annotate", "input_item"]

#: The bridge's metadata namespace.
NS = "openai_agents"


@attrs.define(slots=True)
class Item:
    """One history item as a Responses input item, with what the SDK said about it besides."""

    raw: Any
    agent: str | None = None
    #: ``{"from": ..., "to": ...}`` for a handoff's call or output (``to`` only on the output).
    handoff: dict[str, str] | None = None


def _agent_name(agent: object) -> str | None:
    name = getattr(agent, "name", None)
    return name if type(name) is str else None


def input_item(value: object, path: str, sdk: Any) -> Item:
    """``value`` (an input-item dict, an SDK pydantic item, or a ``RunItem``) as the input item the SDK replays.

    A pydantic item is dumped as the SDK's ``to_input_item`` dumps a raw item (set fields only, no ``created_by``),
    so an item read from either form writes back the same.
    """
    if isinstance(value, sdk.ToolApprovalItem):
        msg = "a ToolApprovalItem is a pending approval, not history (the SDK refuses to make it an input item)"
        raise ValidationError([(path, msg)])
    if isinstance(value, sdk.RunItemBase):
        item = Item(value.to_input_item(), _agent_name(value.agent))
        if isinstance(value, sdk.HandoffCallItem):
            item.handoff = {"from": item.agent} if item.agent else {}
        elif isinstance(value, sdk.HandoffOutputItem):
            ends = {"from": _agent_name(value.source_agent), "to": _agent_name(value.target_agent)}
            item.handoff = {k: v for k, v in ends.items() if v is not None}
        item.raw = _dumped(item.raw)
        return item
    return Item(_dumped(value))


def _dumped(value: object) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is None or isinstance(value, Mapping):
        return value
    payload = dump(exclude_unset=True, mode="json", by_alias=True)
    payload.pop("created_by", None)
    return payload


def _group(raw: object, asked: set[str] | None = None) -> str | None:
    """The message an item joins: ``"assistant"``, ``"tool"`` or ``"user"`` runs, ``None`` for a message of its own.

    ``asked`` gathers the approval requests read so far, as the Responses reader does: a decision on one of them
    joins a user run (see ``openai_responses._approvals``), any other stays a verbatim block of the assistant's.
    """
    if not isinstance(raw, Mapping):
        return "assistant"
    kind = raw.get("type", "message" if "role" in raw else "item_reference")
    if kind == "message" and raw.get("role") != "assistant":
        return None
    if asked is not None and kind == "mcp_approval_request" and (pair := read_request(raw)) is not None:
        asked.add(pair[1].approval_id)
    if asked is not None and kind == "mcp_approval_response" and (decision := read_response(raw, asked)) is not None:
        asked.discard(decision.approval_id)  # decided: a second decision on it stays verbatim
        return "user"
    return "tool" if kind == "function_call_output" else "assistant"


def _groups(items: list[Item]) -> list[list[Item]]:
    groups: list[list[Item]] = []
    last: str | None = None
    asked: set[str] = set()
    for item in items:
        key = _group(item.raw, asked)
        if key is None or key != last:
            groups.append([])
        groups[-1].append(item)
        last = key
    return groups


def _handoff(block: Block, handoffs: Mapping[str, dict[str, str]]) -> Block:
    if isinstance(block, (ToolCallBlock, ToolResultBlock)) and block.tool_call_id in handoffs:
        return attrs.evolve(block, metadata={**block.metadata, f"{NS}/handoff": handoffs[block.tool_call_id]})
    return block


def _call_id(raw: object) -> str | None:
    call_id = raw.get("call_id") if isinstance(raw, Mapping) else None
    return call_id if type(call_id) is str else None


def annotate(conversation: Conversation, items: list[Item]) -> Conversation:
    """``conversation`` (read from ``items``) with each message's agents and each handoff's ends as metadata."""
    if all(item.agent is None and item.handoff is None for item in items):
        return conversation
    groups = _groups(items)
    if len(groups) != len(conversation):
        # an assistant run whose items hold no block (an empty message) made no message: drop its group
        groups = [g for g in groups if _group(g[0].raw) != "assistant" or read_items([i.raw for i in g], [], "$",
                                                                                       REQUEST_ITEMS).messages]
    messages = []
    for message, group in zip(conversation, groups, strict=True):
        handoffs = {call_id: item.handoff for item in group if item.handoff is not None
                    if (call_id := _call_id(item.raw)) is not None}  # fmt: skip
        agents = list(dict.fromkeys(item.agent for item in group if item.agent is not None))
        metadata = dict(message.metadata)
        if agents:
            metadata[f"{NS}/agent"] = agents[0] if len(agents) == 1 else agents
        content = tuple(_handoff(block, handoffs) for block in message.content) if handoffs else message.content
        messages.append(Message(role=message.role, content=content, cache=message.cache, metadata=metadata))
    return Conversation(messages=messages)
