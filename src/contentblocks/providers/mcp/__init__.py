"""MCP tool results: a ``CallToolResult`` as a tool result block, and back.

MCP has no conversation: a tool call's result is the only content it carries, so this module has
``to_call_tool_result`` and ``from_call_tool_result`` instead of the ``to_provider``, ``from_provider``
and ``from_response`` verbs of the other adapters. The MCP client names the call it made, so reading a
result takes the ``tool_call_id`` and ``tool_name`` it answers.

Reading takes the ``mcp`` SDK's ``CallToolResult`` object as it is, and every dict it dumps to
(``model_dump()`` with ``meta``, ``is_error``, ``mime_type``, or ``by_alias=True`` with ``_meta``, ``isError``,
``mimeType``; Python or JSON mode); an explicit ``null`` is an absent field. A key the SDK's types do not have
is refused with its path, never dropped.

- ``TextContent`` ↔ text; ``ImageContent`` and ``AudioContent`` (base64) ↔ inline files;
  ``ResourceLink`` ↔ a file by URL (``http(s)``) or by reference (any other URI scheme, provider
  ``mcp``), its ``name`` as the filename when it is a valid one; ``EmbeddedResource`` ↔ text (a text
  resource) or an inline file (a blob resource), its ``uri``, ``mimeType`` and ``_meta`` kept in ``mcp/resource``.
- ``structuredContent`` ↔ a JSON block (the last part when read); ``isError: true`` ↔ the failed outcome.
- ``_meta``, ``annotations`` and the other fields of an item with no neutral home are kept in metadata
  (``mcp/_meta``, ``mcp/annotations``...) and written back where the SDK's type has that field and the value
  fits it; any other metadata stays local and is reported as ``metadata_not_sent``.

The losses are listed in ``docs/providers/mcp.md``; ``to_call_tool_result`` reports them through a
``Converted`` like the other adapters.

>>> import contentblocks as cb
>>> from contentblocks.providers import mcp
>>> result = {"content": [{"type": "text", "text": "21 °C"}], "structuredContent": {"temp_c": 21}}
>>> block = mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="weather")
>>> [type(b).__name__ for b in block.content], block.outcome
(['TextBlock', 'JsonBlock'], 'succeeded')
>>> mcp.to_call_tool_result(block).payload == result
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from ..._model._classes import ToolResultBlock
from .._argument_checks import reading_argument, strict_argument, string_argument, tool_result_argument
from .._contract import Converted, LossKind
from .._shapes import canonical
from .._toolkit import plain
from ._read import read_result
from ._request import McpCallToolResult
from ._wire import CALL_TOOL_RESULT
from ._write import Writer

__all__ = ["McpCallToolResult", "from_call_tool_result", "to_call_tool_result"]


def from_call_tool_result(result: object, *, tool_call_id: str, tool_name: str) -> ToolResultBlock:
    """The tool result block for an MCP ``CallToolResult`` answering the call ``tool_call_id`` of ``tool_name``.

    ``result`` is the SDK's ``CallToolResult`` or any dict form of it. Only a complete result is a tool's answer:
    a ``resultType`` other than ``"complete"`` (an input request, a task) is refused.

    Raises:
        ValidationError: when the result is malformed, with the path of the result's own field.

    >>> from contentblocks.providers import mcp
    >>> mcp.from_call_tool_result({"content": [{"type": "text", "text": "hi", "lang": "en"}]},
    ...                           tool_call_id="c1", tool_name="greet")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.content[0].lang: unknown key (a TextContent has: type, text, annotations, _meta)
    """
    call = "mcp.from_call_tool_result"
    string_argument(tool_call_id, "tool_call_id", call)
    string_argument(tool_name, "tool_name", call)
    raw = canonical(plain(reading_argument(result, "a CallToolResult", call)), CALL_TOOL_RESULT, "$")
    return read_result(raw, tool_call_id, tool_name)


def to_call_tool_result(
    block: ToolResultBlock, *, strict: bool | Iterable[LossKind] = False
) -> Converted[McpCallToolResult]:
    """The MCP ``CallToolResult`` for a tool result block (in ``Converted.payload``), and what did not survive.

    Args:
        block: the tool result to send.
        strict: the loss kinds that raise instead of being returned (``True``: the content kinds).

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when ``block`` is no ``ToolResultBlock`` or ``strict`` is of the wrong kind (a string).
    """
    call = "mcp.to_call_tool_result"
    block = tool_result_argument(block, call)
    raising = strict_argument(strict, call)
    writer = Writer()
    payload = writer.write(block)
    return writer.losses.finish(cast("McpCallToolResult", payload), strict=raising)
