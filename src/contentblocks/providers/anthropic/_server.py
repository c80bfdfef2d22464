"""Anthropic's own tools (web search and fetch, code execution, tool search, the MCP connector) as neutral blocks.

A ``server_tool_use`` or ``mcp_tool_use`` block is a :class:`~contentblocks.ServerToolCallBlock`; a result
(``web_search_tool_result``, ``code_execution_tool_result``...) a :class:`~contentblocks.ServerToolResultBlock`
holding what a model can read of it: program output as text, output files by their Anthropic file id, a
fetched page as a file, each search hit as a text citing its page. The result block itself, which holds what
only Anthropic reads (encrypted search results and their page ages), rides along whole in the metadata
(``anthropic/server_result``) and goes back verbatim to Anthropic only (see ``_server_tools``).

>>> result = read_result({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1", "content": {
...     "type": "code_execution_result", "stdout": "4", "stderr": "", "return_code": 0, "content": []}},
...     "$.content[1]", {}, lambda raw, path: None)
>>> result.tool_name, result.outcome, [block.text for block in result.content]
('code_execution', 'succeeded', ['4'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from ..._errors import ValidationError
from ..._json._values import thaw
from ..._model._classes import (
    Citation,
    CitedUri,
    FileBlock,
    JsonBlock,
    Outcome,
    ReferenceSource,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolResultContent,
)
from .._arguments import raw_input
from .._contract import ISSUER_KEY
from .._native import ANTHROPIC, replay_refusal
from .._toolkit import OCTET, build, identifier, is_title, is_uri, require
from ._fields import NS

__all__ = ["CALL_KINDS", "RESULT", "RESULT_KINDS", "TYPE", "read_call", "read_result", "replay_result"]

#: The native blocks of a call of a tool Anthropic runs.
CALL_KINDS = frozenset({"server_tool_use", "mcp_tool_use"})
#: The native blocks of such a tool's result: the result kinds among the blocks Anthropic runs (``_native``).
RESULT_KINDS = frozenset(kind for kind in ANTHROPIC.state if kind.endswith("_tool_result"))
#: Metadata of a result: the native result block, replayed to Anthropic as it came.
RESULT = f"{NS}/server_result"
#: Metadata of a call that was not a ``server_tool_use`` (an ``mcp_tool_use``): its native type.
TYPE = f"{NS}/block_type"

ReadDocument = Callable[[dict[str, Any], str], Any]


def read_call(raw: dict[str, Any], path: str, names: dict[str, str]) -> ServerToolCallBlock:
    """A ``server_tool_use`` or ``mcp_tool_use`` block; an input no block holds is kept as its JSON text."""
    require("input" in raw, f"{path}.input", "required field missing")
    value, flags = raw_input(raw["input"])
    kind = raw["type"]
    metadata = {ISSUER_KEY: NS, **{f"{NS}/{k}": v for k, v in raw.items() if k not in {"type", "id", "name", "input"}}}
    if kind != "server_tool_use":
        metadata[TYPE] = kind
    call = build(
        ServerToolCallBlock,
        path,
        tool_call_id=identifier(raw, "id", path),
        tool_name=identifier(raw, "name", path),
        input=value,
        metadata={**metadata, **flags},
    )
    names[call.tool_call_id] = call.tool_name
    return call


def read_result(
    raw: dict[str, Any], path: str, names: Mapping[str, str], read_document: ReadDocument
) -> ServerToolResultBlock | None:
    """A result block of a tool Anthropic ran, or ``None`` when its native form is no JSON value a block holds.

    Its tool is the one its call named, or the result's kind without ``_tool_result`` when the call is not in
    view (a reply read block by block). ``read_document`` reads a fetched page's ``document`` block.
    """
    tool_use_id = identifier(raw, "tool_use_id", path)
    kind: str = raw["type"]
    name = names.get(tool_use_id) or kind.removesuffix("_tool_result")
    content = raw.get("content")
    outcome, readable = _readable(content, f"{path}.content", read_document)
    if raw.get("is_error") is True:
        outcome = "failed"
    try:
        return ServerToolResultBlock(
            tool_call_id=tool_use_id,
            tool_name=name,
            outcome=outcome,
            content=readable,
            metadata={ISSUER_KEY: NS, RESULT: raw},
        )
    except ValidationError:
        return None  # the caller keeps the block verbatim, as any block with no neutral form


def _readable(content: object, path: str, read_document: ReadDocument) -> tuple[Outcome, list[ToolResultContent]]:
    """The outcome a result's ``content`` says, and what a model can read of it.

    A part no block holds is left out: the native result, kept whole, still has it.
    """
    blocks: list[Any] = []
    outcome: Outcome = "succeeded"
    if type(content) is str:
        blocks.append(_text(content))
    elif type(content) is list:
        for k, item in enumerate(content):
            blocks.append(_item(item, f"{path}[{k}]", read_document))
    elif type(content) is dict:
        kind = content.get("type")
        if type(kind) is str and kind.endswith("_error"):
            outcome = "failed"
            blocks.append(_text(f"{kind}: {content.get('error_code')}"))
        elif "return_code" in content:  # code_execution_result, bash_code_execution_result
            outcome = "succeeded" if content.get("return_code") == 0 else "failed"
            blocks += [_text(content.get("stdout")), _text(content.get("stderr"))]
            for output in content.get("content") or ():
                blocks.append(_output_file(output))
        elif kind == "web_fetch_result" and type(content.get("content")) is dict:
            blocks.append(_quiet(read_document, content["content"], f"{path}.content"))
        else:
            blocks.append(_json(content))
    return outcome, [block for block in blocks if isinstance(block, (TextBlock, FileBlock, JsonBlock))]


def _item(item: object, path: str, read_document: ReadDocument) -> object:
    if type(item) is not dict:
        return _json(item)
    kind = item.get("type")
    if kind == "text":
        return _text(item.get("text"))
    if kind == "web_search_result":
        return _search_hit(item)
    if kind == "document":
        return _quiet(read_document, item, path)
    return _json(item)


def _search_hit(item: dict[str, Any]) -> TextBlock | None:
    """A search hit as its title (or URL), citing the page; its encrypted content stays in the native result."""
    url, title = item.get("url"), item.get("title")
    if type(url) is not str or not is_uri(url):
        return None
    label = cast("str", title) if is_title(title) else url
    try:
        citation = Citation(source=CitedUri(value=url), title=label if label != url else None)
        return TextBlock(text=label, citations=[citation])
    except ValidationError:
        return None


def _output_file(output: object) -> FileBlock | None:
    file_id = output.get("file_id") if type(output) is dict else None
    try:
        return FileBlock(media_type=OCTET, source=ReferenceSource(id=file_id, provider=NS))  # type: ignore[arg-type]
    except ValidationError:
        return None


def _text(value: object) -> TextBlock | None:
    if type(value) is not str or not value:
        return None
    try:
        return TextBlock(text=value)
    except ValidationError:
        return None


def _json(value: object) -> JsonBlock | None:
    """A part with no readable form of its own, as JSON without what only Anthropic reads (encrypted fields)."""
    try:
        JsonBlock(value=value)  # bounds its depth and size before the recursive walk below reads it
        return JsonBlock(value=_without_encrypted(value))
    except ValidationError:
        return None


def _quiet(read: ReadDocument, raw: dict[str, Any], path: str) -> FileBlock | None:
    """A fetched document as a file block; one the adapter keeps verbatim only (a content source) is left out."""
    try:
        block = read(raw, path)
    except ValidationError:
        return None
    return block if type(block) is FileBlock else None


def _without_encrypted(value: object) -> object:
    if type(value) is dict:
        return {k: _without_encrypted(v) for k, v in value.items() if "encrypted" not in k}
    if type(value) is list:
        return [_without_encrypted(v) for v in value]
    return value



def replay_result(block: ServerToolResultBlock) -> tuple[dict[str, Any] | None, str]:
    """The native result to send back for ``block`` (which Anthropic issued), or ``None`` and why it is not sent.

    The native result goes back as the verbatim items do (``_native.replay_refusal``): a result kind Anthropic
    runs, in an assistant message, with no URL that fails the URL rule; and it must answer the block's own call.
    """
    native = block.metadata.get(RESULT)
    if not isinstance(native, Mapping) or native.get("tool_use_id") != block.tool_call_id:
        return None, f"{RESULT} is not the result of call {block.tool_call_id}"
    try:
        view = JsonBlock(value=native, metadata={ANTHROPIC.flag: True, ISSUER_KEY: block.metadata.get(ISSUER_KEY)})
    except ValidationError:
        return None, f"{RESULT} is not a JSON value"
    refusal = replay_refusal(view, ANTHROPIC, role="assistant")
    if refusal is not None or native.get("type") not in RESULT_KINDS:
        return None, refusal.reason if refusal is not None else f"{native.get('type')!r} is no result kind"
    return thaw(native), ""
