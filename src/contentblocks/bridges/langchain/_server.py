"""LangChain's blocks of a tool the provider ran (``server_tool_call``, its chunk, ``server_tool_result``), both ways.

LangChain's v1 standard content blocks hold a provider-run tool as data in an ``AIMessage``'s content, whichever
provider ran it, and its chat models send them back to their own provider only: so the bridge reads them as
server calls and results, and writes every server block as them, its issuer kept (``contentblocks/issuer``, from
the message's ``model_provider`` or, when the block names another, in the block's ``extras``).

A result's ``output`` is any value: a string reads as a text part, a list as a part per item, anything else as
one JSON part, and back. An output those parts would not give back as it was (an empty list, one item in a list)
is kept as ``langchain/output`` and written back while the parts are not edited. LangChain's result names no tool:
the name is its call's (read earlier in the history), else kept in ``extras`` as ``contentblocks/tool_name``.

>>> read_server({"type": "server_tool_call", "id": "s1", "name": "web_search", "args": {"q": "x"}},
...             Origin("anthropic", "anthropic"), {})["metadata"]
{'contentblocks/issuer': 'anthropic'}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ..._conversion._kernels import thaw
from ..._errors import ValidationError
from ..._model._classes import Block, JsonBlock, ServerToolCallBlock, ServerToolResultBlock, TextBlock
from ...providers._contract import ISSUER_KEY, LossRecorder
from ...providers._toolkit import fail
from .._wire import block, structure
from ._citations import extras_taken
from ._fields import ISSUER_EXTRA, NAMESPACE, Origin
from ._handout import Metadata, finish, meta_of

__all__ = ["KINDS", "TOOL_NAME_EXTRA", "WRITTEN_CALLS", "read_server", "write_call", "write_result"]

#: The v1 blocks of a tool the provider ran.
KINDS = frozenset({"server_tool_call", "server_tool_call_chunk", "server_tool_result"})
#: In a ``server_tool_result``'s ``extras``: the tool's name, where no call read before it names it.
TOOL_NAME_EXTRA = "contentblocks/tool_name"
#: While writing a history: the server calls written so far, id -> tool name (as the reader will know them).
WRITTEN_CALLS: ContextVar[dict[str, str] | None] = ContextVar("contentblocks_langchain_server_calls", default=None)
_CHUNK = "server_tool_call_chunk"
_OUTCOMES = {"success": "succeeded", "error": "failed"}
_STATUS = {"succeeded": "success", "failed": "error", "denied": "error", "interrupted": "error"}
_ABSENT: Any = object()  # an output not given

Wire = dict[str, Any]


def _rest(item: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    return {**metadata, **{NAMESPACE + key: value for key, value in item.items()}}


def _issuer(item: dict[str, Any], origin: Origin) -> dict[str, Any]:
    """The issuer metadata of a server item: the one its ``extras`` name, else its message's provider's."""
    extras = item.get("extras")
    named = isinstance(extras, dict) and ISSUER_EXTRA in extras
    (issuer,) = extras_taken(item, ISSUER_EXTRA)
    issuer = issuer if named else origin.issuer
    return {} if issuer is None else {ISSUER_KEY: issuer}


def _parts(output: Any) -> list[Wire]:
    """The result's parts for an ``output``: a text per non-empty string, JSON for anything else."""
    if output is _ABSENT:
        return []
    values = output if isinstance(output, list) else [output]
    return [block("text", text=v) if isinstance(v, str) and v else block("json", value=v) for v in values]


def _output(parts: list[tuple[bool, Any]]) -> Any:
    """The ``output`` for parts given as (is JSON, value): one part as itself where it reads back so, else a list."""
    if not parts:
        return _ABSENT
    if len(parts) == 1 and not (parts[0][0] and (isinstance(parts[0][1], list) or parts[0][1] == "")):
        return parts[0][1]
    return [value for _, value in parts]


def _same(a: Any, b: Any) -> bool:
    if a is _ABSENT or b is _ABSENT:
        return a is b
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


def read_server(item: dict[str, Any], origin: Origin, names: dict[str, str]) -> Wire:
    """The server call or result a LangChain block holds (``KeyError``, ``TypeError`` or ``ValidationError`` if none).

    ``names`` maps the server calls read so far to their tools; a call read here is added.
    """
    item = dict(item)
    kind = item.pop("type")
    metadata = _issuer(item, origin)
    if kind == "server_tool_result":
        (name,) = extras_taken(item, TOOL_NAME_EXTRA)
        call_id = item.pop("tool_call_id")
        name = name or names.get(call_id)
        if name is None:
            raise fail("$.tool_call_id", "a server tool result names no tool, and no call read before it does")
        status = item.pop("status")
        if status not in _OUTCOMES:
            raise fail("$.status", "expected 'success' or 'error'")
        output = item.pop("output", _ABSENT)
        content = _parts(output)
        if not _same(_output([(p["type"] == "json", p.get("value", p.get("text"))) for p in content]), output):
            item["output"] = output  # kept as ``langchain/output``
        return block("server_tool_result", tool_call_id=call_id, tool_name=name, outcome=_OUTCOMES[status],
                     content=content, metadata=_rest(item, metadata))
    args = item.pop("args")
    if kind == _CHUNK:
        metadata[NAMESPACE + "type"] = kind
        try:
            value = json.loads(args)
        except (TypeError, ValueError):
            value = args
        if not isinstance(args, str) or json.dumps(value) != args:
            metadata[NAMESPACE + "args"] = args
        args = value
    elif not isinstance(args, dict):
        raise fail("$.args", "a server tool call's args are an object")
    wire = block("server_tool_call", tool_call_id=item.pop("id"), tool_name=item.pop("name"), input=args,
                 metadata=_rest(item, metadata))
    names[wire["tool_call_id"]] = wire["tool_name"]
    return wire


def _issuer_extras(meta: Metadata, origin: Origin) -> dict[str, Any]:
    issuer = meta.take(ISSUER_KEY)
    return {} if issuer == origin.issuer else {ISSUER_EXTRA: issuer}


def _parses_to(text: object, value: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        return _same(json.loads(text), value)
    except ValueError:
        return bool(text == value)


def write_call(block: ServerToolCallBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin) -> Any:
    """A ``server_tool_call`` (a ``server_tool_call_chunk`` with the JSON text of an input that is no object)."""
    extras = _issuer_extras(meta, origin)
    value = thaw(block.input)
    kind = meta.take(NAMESPACE + "type")
    item: dict[str, Any] = {"type": "server_tool_call", "id": block.tool_call_id, "name": block.tool_name}
    if kind == _CHUNK or not isinstance(value, dict):
        if kind != _CHUNK:
            losses.add(f"{path}.input", "LangChain's server tool calls take an object; written as a "
                       "server_tool_call_chunk with its JSON text", "content_degraded")  # fmt: skip
        text = meta.take(NAMESPACE + "args")
        if not _parses_to(text, value):
            meta.taken.discard(NAMESPACE + "args")
            text = json.dumps(value)
        item.update(type=_CHUNK, args=text)
    else:
        if kind is not None:
            meta.taken.discard(NAMESPACE + "type")  # reported: no other block holds a server call
        item["args"] = value
    calls = WRITTEN_CALLS.get()
    if calls is not None:
        calls[block.tool_call_id] = block.tool_name
    meta.state("LangChain")
    return finish(item, meta, extras)


def _written_parts(block: ServerToolResultBlock, path: str, losses: LossRecorder,
                   file_item: Callable[[Block, str], Any]) -> list[tuple[bool, Any]]:  # fmt: skip
    parts: list[tuple[bool, Any]] = []
    for index, part in enumerate(block.content):
        where = f"{path}.content[{index}]"
        if isinstance(part, TextBlock):
            meta = meta_of(part.metadata, where, losses)
            parts.append((False, part.text))
            if part.citations:
                losses.add(f"{where}.citations", "LangChain's server tool output holds no citations",
                           "content_dropped")
            meta.done("in a server tool result's output")
        elif isinstance(part, JsonBlock):
            meta = meta_of(part.metadata, where, losses)
            parts.append((True, thaw(part.value)))
            if isinstance(part.value, str) and part.value:
                losses.add(where, "LangChain's server tool output holds a JSON string as text; read back as text",
                           "content_degraded")
            meta.done("in a server tool result's output")
        else:  # a file (search results are text by now)
            losses.add(where, "LangChain's server tool output is any JSON; a file is written as its file block, "
                       "read back as JSON", "content_degraded")  # fmt: skip
            parts.append((True, file_item(part, where)))
    return parts


def _reads_to(output: Any, block: ServerToolResultBlock) -> bool:
    """Whether a kept ``output`` reads to the result's parts (it was not edited since)."""
    try:
        return [structure(p, Block) for p in _parts(output)] == list(block.content)  # type: ignore[arg-type]
    except ValidationError:
        return False


def write_result(block: ServerToolResultBlock, path: str, losses: LossRecorder, meta: Metadata, origin: Origin,
                 file_item: Callable[[Block, str], Any]) -> Any:  # fmt: skip
    """A ``server_tool_result``: its status, its parts as ``output``, its tool's name where no call says it."""
    extras = _issuer_extras(meta, origin)
    if (WRITTEN_CALLS.get() or {}).get(block.tool_call_id) != block.tool_name:
        extras[TOOL_NAME_EXTRA] = block.tool_name
    if block.outcome in ("denied", "interrupted"):
        losses.add(f"{path}.outcome", f"LangChain has no {block.outcome} outcome; written as an error",
                   "content_degraded")
    item: dict[str, Any] = {"type": "server_tool_result", "tool_call_id": block.tool_call_id,
                            "status": _STATUS[block.outcome]}
    kept = meta.take(NAMESPACE + "output", _ABSENT)
    if kept is not _ABSENT and _reads_to(kept, block):
        output = kept
    else:
        meta.taken.discard(NAMESPACE + "output")
        output = _output(_written_parts(block, path, losses, file_item))
    if output is not _ABSENT:
        item["output"] = output
    meta.state("LangChain")
    return finish(item, meta, extras)
