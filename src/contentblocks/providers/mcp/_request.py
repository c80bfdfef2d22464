"""The shape of the ``CallToolResult`` ``to_call_tool_result`` writes, as a TypedDict (wire names, camelCase).

The items of ``content`` are ``Any`` (``TextContent``, ``ImageContent``, ``AudioContent``, ``ResourceLink`` and
``EmbeddedResource`` dicts); ``mcp.types.CallToolResult.model_validate(converted.payload)`` reads it. No SDK is
imported here.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

__all__ = ["McpCallToolResult"]

class McpCallToolResult(TypedDict, total=False):
    """A ``CallToolResult``, as ``to_call_tool_result`` writes it.

    ``content`` always; ``structuredContent`` for a JSON block, ``isError`` for a failed or denied outcome (or a
    ``false`` read from the wire), ``_meta`` from ``mcp/_meta``.
    """

    content: Required[list[Any]]
    structuredContent: dict[str, Any]
    isError: bool
    _meta: dict[str, Any]
