"""The tools OpenAI runs (web search, file search, code interpreter, image generation, remote MCP) as neutral blocks.

A ``web_search_call``, ``file_search_call``, ``code_interpreter_call``, ``image_generation_call`` or ``mcp_call``
item is one call and its result at once: it becomes a :class:`~contentblocks.ServerToolCallBlock` and a
:class:`~contentblocks.ServerToolResultBlock` sharing the item's ``id``. The call's input is what the model asked
for (the search action, the queries, the code, the MCP arguments); the result holds what any model can read of
the run (each source as a text citing its URL, each file search hit as its text citing the file, the logs, the
images as files, the MCP output). The item itself rides in the result's metadata (``openai/server_item``, without
a generated image's base64, which is the file), issued by ``openai``, and goes back to OpenAI verbatim and only
there (see ``_server_tools`` and ``docs/security.md``).

The outcome is the item's ``status``: ``completed`` is succeeded, ``failed`` failed, and every other status
(``incomplete``, or one that says the run had not finished: ``in_progress``, ``searching``, ``interpreting``,
``generating``, ``calling``) interrupted; an MCP call with an ``error`` failed. An item with no id, an unknown
status, or a value no block holds stays the verbatim JSON block it was before (``_native``).

>>> call, result = read_pair({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {
...     "type": "search", "query": "Oslo", "sources": [{"type": "url", "url": "https://yr.no/oslo"}]}}, "$.output[0]")
>>> call.tool_name, call.input["query"], result.outcome, result.content[0].citations[0].source.value
('web_search', 'Oslo', 'succeeded', 'https://yr.no/oslo')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from ..._errors import ValidationError
from ..._json._values import thaw
from ..._model._classes import (
    Block,
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    JsonBlock,
    Outcome,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolResultContent,
    UrlSource,
)
from .._arguments import RAW_ARGUMENTS, raw_input, read_arguments
from .._contract import ISSUER_KEY
from .._extras import PayloadWriter
from .._native import RESPONSES, replay_refusal
from .._server_tools import issued_to, readable
from .._toolkit import b64decode, b64encode, build, is_reference, is_title, is_uri, key_path
from ._fields import ISSUER, NS, TARGET
from ._native import FLAG, image_type, normalize

__all__ = ["ITEM", "SERVER_ITEMS", "SERVER_LABEL", "TOOLS", "ServerWriting", "read_pair", "replay_item"]

#: The neutral tool name of each item type read as a call and its result.
TOOLS: Mapping[str, str] = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "mcp_call": "mcp",  # the call names its tool: the block takes that name
}
#: The item types read as a call and its result.
SERVER_ITEMS = frozenset(TOOLS)
#: Metadata of a result: the item it was read from, sent back to OpenAI as it came.
ITEM = f"{NS}/server_item"
#: Metadata of an MCP call: the label of the MCP server that ran the tool.
SERVER_LABEL = f"{NS}/server_label"

_OUTCOMES: Mapping[str, Outcome] = {
    "completed": "succeeded",
    "failed": "failed",
    "incomplete": "interrupted",
    # the run had not finished when the item was written (a response cut short, or a stream's item)
    "in_progress": "interrupted",
    "searching": "interrupted",
    "interpreting": "interrupted",
    "generating": "interrupted",
    "calling": "interrupted",
}

Parts = list[ToolResultContent | None]


def _text(value: object, cited: Citation | None = None) -> TextBlock | None:
    if type(value) is not str or not value:
        return None
    try:
        return TextBlock(text=value, citations=(cited,) if cited is not None else ())
    except ValidationError:
        return None


def _cited_url(url: object, label: object = None) -> TextBlock | None:
    """A text naming a page (its title, or its URL) that cites it; ``None`` for no usable URL."""
    if not is_uri(url):
        return None
    title = label if is_title(label) else None
    return _text(title or url, Citation(source=CitedUri(value=url), title=title))  # type: ignore[arg-type]


def _web_search(item: Mapping[str, Any]) -> tuple[Any, Parts]:
    action = item.get("action")
    if not isinstance(action, Mapping):
        return {}, []
    parts: Parts = []
    for source in action.get("sources") or ():
        if isinstance(source, Mapping) and "url" in source:
            parts.append(_cited_url(source.get("url")))
        elif isinstance(source, Mapping):  # an API source ("oai-sports"...): its name, citing nothing
            parts.append(_text(source.get("name")))
    if action.get("type") != "search":  # open_page, find_in_page: the page the model read
        parts.append(_cited_url(action.get("url")))
    return action, parts


def _file_search(item: Mapping[str, Any]) -> tuple[Any, Parts]:
    parts: Parts = []
    for hit in item.get("results") or ():
        if not isinstance(hit, Mapping):
            continue
        file_id, name = hit.get("file_id"), hit.get("filename")
        cited = None
        if is_reference(file_id):
            cited = Citation(source=CitedReference(value=cast("str", file_id)), title=name if is_title(name) else None)
        parts.append(_text(hit.get("text"), cited))
    return {"queries": item.get("queries", [])}, parts


def _code_interpreter(item: Mapping[str, Any]) -> tuple[Any, Parts]:
    parts: Parts = []
    for output in item.get("outputs") or ():
        if not isinstance(output, Mapping):
            continue
        if output.get("type") == "logs":
            parts.append(_text(output.get("logs")))
        elif output.get("type") == "image":
            parts.append(_url_file(output.get("url")))
    wanted = {key: item[key] for key in ("code", "container_id") if key in item}
    return wanted, parts


def _url_file(url: object) -> FileBlock | None:
    try:
        return FileBlock(media_type="image/*", source=UrlSource(url=url))  # type: ignore[arg-type]
    except (ValidationError, TypeError):
        return None


def _image_generation(item: Mapping[str, Any]) -> tuple[Any, Parts]:
    """The settings the image was made with as the input; the image (strict base64, a known type) as a file."""
    wanted = {k: v for k, v in item.items() if k not in ("type", "id", "status", "result", "error")}
    result = item.get("result")
    parts: Parts = _error_parts(item["error"]) if "error" in item else []
    if type(result) is str:  # a result that is no image is refused: the caller keeps the item verbatim
        data = b64decode(result, "$.result")
        media_type = image_type(item, data)
        if media_type is None:
            raise ValueError("not an image of a known type")
        parts.append(FileBlock(media_type=media_type, source=BytesSource(data=data)))
    return wanted, parts


def _error_parts(error: object) -> Parts:
    """An error as text: a string as it is, an error object as ``<type>: <message>``, else its JSON."""
    if type(error) is str:
        return [_text(error)]
    if isinstance(error, Mapping) and type(error.get("message")) is str:
        return [_text(f"{error.get('type')}: {error['message']}")]
    try:
        return [JsonBlock(value=error)]
    except ValidationError:
        return []


def _mcp(item: Mapping[str, Any]) -> tuple[Any, Parts]:
    return None, [_text(item.get("output")), *(_error_parts(item["error"]) if "error" in item else ())]


_READERS: Mapping[str, Callable[[Mapping[str, Any]], tuple[Any, Parts]]] = {
    "web_search_call": _web_search,
    "file_search_call": _file_search,
    "code_interpreter_call": _code_interpreter,
    "image_generation_call": _image_generation,
    "mcp_call": _mcp,
}


def read_pair(raw: Mapping[str, Any], path: str) -> tuple[ServerToolCallBlock, ServerToolResultBlock] | None:
    """The call and result an item of ``SERVER_ITEMS`` at ``path`` is, or ``None`` when it is none this maps.

    A ``None`` item is kept verbatim by the caller, as an item of a type with no neutral block is.
    """
    kind = raw.get("type")
    if type(kind) is not str or kind not in SERVER_ITEMS:
        return None
    try:
        item = normalize(raw, kind)  # a value past the walk's bounds: the caller's verbatim block says why
    except ValidationError:
        return None
    status = item.get("status", "completed")  # an mcp_call may leave it out
    item_id = item.get("id")
    if type(item_id) is not str or type(status) is not str or status not in _OUTCOMES:
        return None
    outcome = _OUTCOMES[status]
    metadata: dict[str, Any] = {ISSUER_KEY: ISSUER}
    try:
        wanted, parts = _READERS[kind](item)
        name: Any = TOOLS[kind]
        if kind == "mcp_call":
            name, server = item.get("name"), item.get("server_label")
            arguments = item.get("arguments")
            wanted, flags = read_arguments(arguments) if type(arguments) is str else raw_input(arguments)
            metadata.update(flags)
            if server is not None:
                metadata[SERVER_LABEL] = server
        else:
            wanted, flags = raw_input(wanted)
            metadata.update(flags)
        if "error" in item:
            outcome = "failed"
        call = build(ServerToolCallBlock, path, tool_call_id=item_id, tool_name=name, input=wanted, metadata=metadata)
        stored = {k: v for k, v in item.items() if not (kind == "image_generation_call" and k == "result" and v)}
        result = ServerToolResultBlock(
            tool_call_id=item_id,
            tool_name=call.tool_name,
            outcome=outcome,
            content=[part for part in parts if part is not None],
            metadata={ISSUER_KEY: ISSUER, ITEM: stored},
        )
    except (ValidationError, TypeError, ValueError):
        return None
    return call, result


def replay_item(block: ServerToolResultBlock, issuer: str) -> tuple[dict[str, Any] | None, str]:
    """The item to send back for ``block`` (which OpenAI ran), or ``None`` and why it is not sent.

    The item goes back as the verbatim items do (``providers._native.replay_refusal``): an item type OpenAI runs,
    in an assistant message, with no URL that fails the URL rule, issued to ``issuer``; and it must be the item of
    the block's own call. A generated image's base64 is the one file of the result's content.
    """
    native = block.metadata.get(ITEM)
    if not isinstance(native, Mapping) or native.get("id") != block.tool_call_id:
        return None, f"{ITEM} is not the item of call {block.tool_call_id}"
    if native.get("type") not in SERVER_ITEMS:
        return None, f"{ITEM} is no item of a tool OpenAI runs"
    item = thaw(native)
    if native.get("type") == "image_generation_call" and "result" not in native:
        files = [b for b in block.content if type(b) is FileBlock and type(b.source) is BytesSource]
        if len(files) != 1 or len(block.content) != 1:
            return None, "the result of an image_generation_call holds no one generated image"
        item["result"] = b64encode(files[0].source.data)  # type: ignore[union-attr]
    try:
        view = JsonBlock(value=item, metadata={FLAG: True, ISSUER_KEY: block.metadata.get(ISSUER_KEY)})
    except ValidationError:
        return None, f"{ITEM} is not a JSON value"
    refusal = replay_refusal(view, RESPONSES, role="assistant", issuer=issuer)
    if refusal is not None:
        return None, refusal.reason
    return item, ""


class ServerWriting(PayloadWriter):
    """What the Responses writer does with a tool a provider ran: OpenAI's as its item, any other as content.

    The writer sets ``issuer`` and, for each assistant message, ``replayed`` (``replayed_calls``); it gives
    ``single_item``, which writes what a result's content becomes.
    """

    issuer: str
    replayed: Mapping[str, int] = {}

    def single_item(self, block: Block, where: str) -> list[Any]:  # pragma: no cover - the writer's
        raise NotImplementedError

    def replayed_calls(self, blocks: Sequence[Block]) -> dict[str, int]:
        """The calls whose result, among ``blocks``, goes back as OpenAI's item: call id -> the result's index."""
        out: dict[str, int] = {}
        for j, block in enumerate(blocks):
            if type(block) is not ServerToolResultBlock or block.tool_call_id in out:
                continue
            if issued_to(block, self.issuer) and replay_item(block, self.issuer)[0] is not None:
                out[block.tool_call_id] = j
        return out

    def server_tool(self, block: ServerToolCallBlock | ServerToolResultBlock, where: str, j: int) -> list[Any]:
        """The items for the block at index ``j`` of its message: its item, nothing, or its readable content."""
        if not issued_to(block, self.issuer):
            parts = readable(block, where, self.loss, TARGET, self.own_state)
            return [item for part, at in parts for item in self.single_item(part, at)]
        if type(block) is ServerToolCallBlock:
            if block.tool_call_id in self.replayed:  # its item is the one its result sends
                self.report(where, block.metadata, {SERVER_LABEL, RAW_ARGUMENTS, f"{NS}/arguments"})
                return []
            reason = f"a {block.tool_name} call OpenAI ran goes back only in the item its result holds; dropped"
            self.loss(where, reason, "content_dropped")
            return []
        assert type(block) is ServerToolResultBlock  # noqa: S101 - narrowed for mypy
        item, why = replay_item(block, self.issuer)
        if item is not None and self.replayed.get(block.tool_call_id) == j:
            self.report(where, block.metadata, {ITEM})
            return [item]
        if item is not None:
            why = f"the item of call {block.tool_call_id} is sent with an earlier result"
        if ITEM in block.metadata:
            self.loss(key_path(where, ITEM), f"the item OpenAI ran is not sent back: {why}", "state_not_replayed")
        reason = f"the {block.tool_name} result OpenAI ran is sent as its content, without its item"
        self.loss(where, reason, "content_degraded")
        self.report(where, block.metadata, {ITEM})
        parts = ((part, f"{where}.content[{k}]") for k, part in enumerate(block.content))
        return [item for part, at in parts for item in self.single_item(part, at)]
