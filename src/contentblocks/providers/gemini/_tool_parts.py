r"""Gemini's server-side tool invocations as neutral blocks: a ``toolCall`` Gemini ran, and its ``toolResponse``.

Gemini 3 returns these parts when a request combines built-in tools (Google Search, URL context, Google Maps,
File Search) with function calling (``toolConfig.includeServerSideToolInvocations``). Both sit in the model
content, and the client sends them back there on the next turn, with their ids, so that the model keeps the
context of the search it made (https://ai.google.dev/gemini-api/docs/tool-combination).

A ``toolCall`` is a :class:`~contentblocks.ServerToolCallBlock` whose input is its ``args``; a ``toolResponse``
a :class:`~contentblocks.ServerToolResultBlock` that succeeded and holds its ``response`` object as one JSON
block, which any provider can read. The tool is named by a neutral name where one says the same thing as
another provider's (``GOOGLE_SEARCH_WEB`` is ``web_search``, as Anthropic and Responses name theirs), by its
type in lower case otherwise; the native ``toolType`` rides in ``gemini/toolType``, which is also what tells
the writer that the blocks came from these parts.

>>> pending = []
>>> call = read_tool_call({"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["Utqiagvik"]}},
...                       "$.parts[0].toolCall", {}, pending, "g_0", "gemini")
>>> result = read_tool_response({"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"results": []}},
...                             "$.parts[1].toolResponse", {}, pending, "g_1", "gemini")
>>> (call.tool_name, result.tool_call_id, result.content[0].value == {"results": []})
('web_search', 's1', True)
>>> native_tool_part(call)
('toolCall', {'id': 's1', 'toolType': 'GOOGLE_SEARCH_WEB', 'args': {'queries': ['Utqiagvik']}})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._checks._rules import IDENTIFIER
from ..._json._values import thaw
from ..._model._classes import JsonBlock, ServerToolCallBlock, ServerToolResultBlock
from .._arguments import JSON_TEXT, object_input, raw_input, value_of
from .._contract import ISSUER_KEY
from .._toolkit import build, identifier
from ._wire import NS

__all__ = ["TOOL_TYPE", "answered", "native_tool_part", "read_tool_call", "read_tool_response"]

#: The native ``toolType`` of a block read from a ``toolCall`` or ``toolResponse`` part (``None`` when it had none).
TOOL_TYPE = f"{NS}/toolType"
_GENERATED = f"{NS}/generated_id"
#: The tool types another provider has a tool of the same name for.
_NAMES = {
    "GOOGLE_SEARCH_WEB": "web_search",
    "GOOGLE_SEARCH_IMAGE": "image_search",
    "URL_CONTEXT": "url_context",
    "GOOGLE_MAPS": "google_maps",
    "FILE_SEARCH": "file_search",
}
#: The name of a tool whose type says nothing a name can hold.
_UNNAMED = "gemini_tool"


def _tool_name(tool_type: object) -> str:
    if tool_type in _NAMES:
        return _NAMES[tool_type]
    if type(tool_type) is str and tool_type and IDENTIFIER.check(tool_type.lower()) is None:
        return tool_type.lower()
    return _UNNAMED


def _own_id(native: Mapping[str, Any], path: str, meta: dict[str, Any], call_id: str) -> str:
    """The part's id, or ``call_id`` flagged as made up when it has none."""
    if "id" in native:
        return str(identifier(native, "id", path))
    meta[_GENERATED] = True
    return call_id


def answered(pending: list[Any], own: str | None, *, tool_parts: bool) -> ServerToolCallBlock | None:
    """The call a result of id ``own`` answers, taken out of ``pending`` (``None`` when it answers none in view).

    That is the call of that id, or, for a result without one, the latest call not yet answered; among the calls
    of ``toolCall`` parts, or among those of code execution, as ``tool_parts`` says.
    """
    calls = [c for c in pending if type(c) is ServerToolCallBlock and (TOOL_TYPE in c.metadata) is tool_parts]
    match = next((c for c in calls if c.tool_call_id == own), None) if own is not None else None
    if match is None and own is None and calls:
        match = calls[-1]
    if match is not None:
        pending.remove(match)
    return match


def read_tool_call(
    native: Mapping[str, Any], path: str, meta: dict[str, Any], pending: list[Any], call_id: str, issuer: str
) -> ServerToolCallBlock:
    """A ``toolCall`` part's block (``meta`` holds the part's own extras); it joins ``pending``."""
    call_id = _own_id(native, path, meta, call_id)
    value, flags = (None, {}) if native.get("args") is None else raw_input(native["args"])
    tool_type = native.get("toolType")
    metadata = {**meta, TOOL_TYPE: tool_type, ISSUER_KEY: issuer, **flags}
    call = build(
        ServerToolCallBlock, path, tool_call_id=call_id, tool_name=_tool_name(tool_type), input=value, metadata=metadata
    )
    pending.append(call)
    return call


def read_tool_response(
    native: Mapping[str, Any], path: str, meta: dict[str, Any], pending: list[Any], call_id: str, issuer: str
) -> ServerToolResultBlock:
    """A ``toolResponse`` part's block, answering the ``toolCall`` of its id (or the latest one, when it has none)."""
    own = identifier(native, "id", path, optional=True)
    match = answered(pending, own, tool_parts=True)
    result_id = _own_id(native, path, meta, match.tool_call_id if match is not None else call_id)
    tool_type = native.get("toolType")
    content = []
    if native.get("response") is not None:
        value, flags = raw_input(native["response"], JSON_TEXT)
        content.append(build(JsonBlock, f"{path}.response", value=value, metadata=flags))
    return build(
        ServerToolResultBlock,
        path,
        tool_call_id=result_id,
        tool_name=match.tool_name if match is not None else _tool_name(tool_type),
        outcome="succeeded",
        content=content,
        metadata={**meta, TOOL_TYPE: tool_type, ISSUER_KEY: issuer},
    )


def native_tool_part(block: ServerToolCallBlock | ServerToolResultBlock) -> tuple[str, dict[str, Any]] | None:
    """The part kind and value Gemini takes ``block`` back as, or ``None`` when it came from no such part.

    A call's input must be an object (or none); a result must have succeeded and hold no more than one JSON
    block holding an object. The caller has checked that Gemini ran the tool.
    """
    tool_type = block.metadata.get(TOOL_TYPE, ...)
    if tool_type is not None and type(tool_type) is not str:
        return None  # no such part (``...``), or a type no part holds
    native: dict[str, Any] = {}
    if block.metadata.get(_GENERATED) is not True:
        native["id"] = block.tool_call_id
    if tool_type is not None:
        native["toolType"] = tool_type
    if type(block) is ServerToolCallBlock:
        if block.input is not None:
            args = thaw(block.input) if isinstance(block.input, Mapping) else object_input(block.input, block.metadata)
            if type(args) is not dict:
                return None
            native["args"] = args
        return "toolCall", native
    assert type(block) is ServerToolResultBlock  # noqa: S101 - narrowed for mypy
    if block.outcome != "succeeded" or len(block.content) > 1:
        return None
    if block.content:
        held = block.content[0]
        response = value_of(held) if type(held) is JsonBlock else None
        if type(response) is not dict:
            return None
        native["response"] = response
    return "toolResponse", native
