"""Items this adapter has no neutral block for, kept verbatim as JSON blocks and sent back in place.

A web search, file search, code interpreter, MCP, computer, shell or custom tool call (and every other item type
the neutral model has no block for) is read as a ``JsonBlock`` holding the item, flagged ``openai/input_item``,
in the assistant message it is part of. Written to the Responses API it is the same item again, at the same
place, so a reasoning item stays right before the item it produced, as long as ``providers._native`` allows it
(an item OpenAI runs itself, in an assistant message, with valid URLs); anything else is JSON text. Another
target drops the item, as state of OpenAI, and reports it (``state_not_replayed``).

An SDK dump writes ``null`` for every unset optional field (``model_dump()``), where the API itself omits the
field (``to_dict()``); most of those fields do not accept ``null`` back. So a ``null`` member is dropped, except
where the request type requires the member and allows ``null`` (``KEEP_NULL``); free-form JSON members (a tool's
JSON schema, a tool search's arguments: ``OPAQUE``) are kept exactly as they are. Both tables are the request
types' own (``ResponseInputItemParam``); the tests derive them from the SDK and compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._model import JsonBlock
from .._toolkit import build, drop_nulls
from ._fields import NS, SDK_NAMES

#: The flag on a JSON block holding a Responses item verbatim.
FLAG = f"{NS}/input_item"

#: Members (dotted, list levels left out) that the request type requires and that may be ``null``, by item type.
KEEP_NULL: Mapping[str, frozenset[str]] = {
    "additional_tools": frozenset({"tools.parameters", "tools.strict"}),
    "code_interpreter_call": frozenset({"code", "outputs"}),
    "computer_call": frozenset({"action.keys", "actions.keys"}),
    "image_generation_call": frozenset({"result", "error.code", "error.param"}),
    "tool_search_output": frozenset({"tools.parameters", "tools.strict"}),
}

#: Members holding free-form JSON (typed ``object`` in the request type), copied without a change, by item type.
OPAQUE: Mapping[str, frozenset[str]] = {
    "additional_tools": frozenset(
        {
            "tools.filters.filters",
            "tools.output_schema",
            "tools.parameters",
            "tools.tools.output_schema",
            "tools.tools.parameters",
        }
    ),
    "configuration_update": frozenset({"text.format.schema"}),
    "mcp_call": frozenset({"error.content"}),
    "mcp_list_tools": frozenset({"tools.annotations", "tools.input_schema"}),
    "tool_search_call": frozenset({"arguments"}),
    "tool_search_output": frozenset(
        {
            "tools.filters.filters",
            "tools.output_schema",
            "tools.parameters",
            "tools.tools.output_schema",
            "tools.tools.parameters",
        }
    ),
}

_NOTHING: frozenset[str] = frozenset()


def normalize(item: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The item as the API wrote it: unset ``null`` members dropped, the SDK's Python names made wire names.

    This is the toolkit's ``drop_nulls`` with the request types' own exceptions for this item type: the ``null``
    members ``KEEP_NULL`` lists stay, the ``OPAQUE`` members are copied without a change. Like it, the walk is
    bounded, so neither a deeply nested item nor a cycle built in Python can run away.

    >>> search = {"type": "web_search_call", "id": "ws_1", "action": {"type": "search", "query": None}}
    >>> normalize(search, "web_search_call")
    {'type': 'web_search_call', 'id': 'ws_1', 'action': {'type': 'search'}}
    >>> normalize({"type": "image_generation_call", "id": "ig_1", "result": None}, "image_generation_call")
    {'type': 'image_generation_call', 'id': 'ig_1', 'result': None}
    """
    keep, opaque = KEEP_NULL.get(kind, _NOTHING), OPAQUE.get(kind, _NOTHING)
    return drop_nulls(  # type: ignore[no-any-return]
        item,
        keep=lambda member, _: member in keep,
        verbatim=lambda member, _: member in opaque,
        rename=SDK_NAMES,
    )


def native_block(raw: Mapping[str, Any], kind: str, path: str) -> JsonBlock:
    """A JSON block holding the item of type ``kind`` at ``path``."""
    return build(JsonBlock, path, value=normalize(raw, kind), metadata={FLAG: True})
