"""What LangChain merges of a streamed reply: its ``AIMessageChunk``s, and the chunk blocks of one call.

A history saved from a stream may hold the chunks of one reply as messages of their own (the same ``id``), and
chunk blocks in an ``AIMessage``'s content: ``tool_call_chunk`` and ``server_tool_call_chunk``, each a piece of
one call's JSON arguments. LangChain merges them itself: ``AIMessageChunk.__add__`` sums chunks (their content
blocks of one ``index`` joined, string fields concatenated), and the sum of a stream's last chunk
(``chunk_position="last"``) turns the chunk blocks into calls whose ``args`` are their JSON text parsed. The
reader does the same: consecutive chunks of one ``id`` are summed with LangChain's own ``+``, and the chunk
blocks of one call (one ``index``, else one ``id``) are joined into the call LangChain's last chunk gives.
A text that does not parse to an object leaves the chunk blocks as they are.

>>> merged_calls([{"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a": ', "index": 0},
...               {"type": "tool_call_chunk", "id": None, "name": None, "args": "1}", "index": 0}])
[{'type': 'tool_call', 'name': 'f', 'args': {'a': 1}, 'id': 'c1'}]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["CHUNKS", "merged_calls", "summed"]

#: The chunk blocks of a call, and what LangChain's last chunk turns each into.
CHUNKS = {"tool_call_chunk": "tool_call", "server_tool_call_chunk": "server_tool_call"}


def summed(module: Any, messages: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """``messages`` with each run of consecutive ``AIMessageChunk``s of one ``id`` summed, as LangChain sums them.

    Also where each message of the result starts in ``messages``, so that a problem names the chunk it is in.
    """
    out: list[Any] = []
    starts: list[int] = []
    chunk = module.AIMessageChunk
    for index, item in enumerate(messages):
        if out and isinstance(item, chunk) and isinstance(out[-1], chunk) and item.id and item.id == out[-1].id:
            try:
                total = out[-1] + item
            except Exception:  # noqa: BLE001 - chunks LangChain cannot sum stay apart, as they were given
                total = None
            if total is not None:
                out[-1] = total
                continue
        out.append(item)
        starts.append(index)
    return out, starts


def _key(item: dict[str, Any]) -> tuple[str, str, Any] | None:
    """The call a chunk block is a piece of: its ``index``, else its ``id`` (None: a call of its own)."""
    if item.get("index") is not None:
        return item["type"], "index", item["index"]
    if item.get("id") is not None:
        return item["type"], "id", item["id"]
    return None


def _joined(pieces: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The call the chunk blocks ``pieces`` of one call make, or None when their text does not parse to an object."""
    text = ""
    for piece in pieces:
        args = piece.get("args")
        if args is None:
            continue
        if not isinstance(args, str):
            return None
        text += args
    try:
        args = json.loads(text) if text else {}
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    first = pieces[0]
    call_id = next((p["id"] for p in pieces if p.get("id") is not None), None)
    name = next((p["name"] for p in pieces if p.get("name") is not None), None)
    if first["type"] == "tool_call_chunk":  # as ``AIMessageChunk.init_tool_calls`` writes it
        call = {"type": "tool_call", "name": name or "", "args": args, "id": call_id}
        if "extras" in first:
            call["extras"] = first["extras"]
        return call
    # as ``init_server_tool_calls`` leaves it, but for the chunk's type: a chunk the reader keeps as one
    keys = {k: v for p in pieces for k, v in p.items() if v is not None and k not in {"args", "id", "name"}}
    return {**keys, "type": first["type"], "id": call_id, "name": name, "args": text}


def merged_calls(content: list[Any]) -> list[Any]:
    """``content`` with the chunk blocks of each call joined into one, where the first of them was."""
    groups: dict[tuple[str, str, Any], list[dict[str, Any]]] = {}
    for item in content:
        if isinstance(item, dict) and item.get("type") in CHUNKS and (key := _key(item)) is not None:
            groups.setdefault(key, []).append(item)
    if not groups:
        return content
    joined = {id(pieces[0]): (call, pieces) for pieces in groups.values()
              if (call := _joined(pieces)) is not None and (len(pieces) > 1 or pieces[0]["type"] == "tool_call_chunk")}
    gone = {id(piece) for _, pieces in joined.values() for piece in pieces[1:]}
    return [joined[id(item)][0] if id(item) in joined else item for item in content if id(item) not in gone]
