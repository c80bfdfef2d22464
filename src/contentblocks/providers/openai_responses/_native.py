"""Items this adapter has no neutral block for, kept verbatim as JSON blocks and sent back in place.

A computer, shell or custom tool call, an MCP tool list (and every other item type the neutral model has no block
for, or a tool OpenAI ran that ``_server`` cannot map) is read as a ``JsonBlock`` holding the item, flagged
``openai/input_item``, in the assistant message it is part of. Written to the Responses API it is the same item
again, at the same place, so a reasoning item stays right before the item it produced, as long as
``providers._native`` allows it (an item OpenAI runs itself, in an assistant message, with valid URLs); anything
else is JSON text. Another target drops the item, as state of OpenAI, and reports it (``state_not_replayed``).

An SDK dump writes ``null`` for every unset optional field (``model_dump()``), where the API itself omits the
field (``to_dict()``); most of those fields do not accept ``null`` back. So a ``null`` member is dropped, except
where the request type requires the member and allows ``null`` (``KEEP_NULL``); free-form JSON members (a tool's
JSON schema, a tool search's arguments: ``OPAQUE``) are kept exactly as they are. Both tables are the request
types' own (``ResponseInputItemParam``); the tests derive them from the SDK and compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import BytesSource, FileBlock, JsonBlock
from .._arguments import JSON_TEXT, raw_input
from .._shapes import STR, Choice, Kind, Nullable, fits
from .._toolkit import b64decode, build, drop_nulls
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


def native_block(raw: Mapping[str, Any], kind: str, path: str) -> JsonBlock | FileBlock:
    """The block for an item of type ``kind`` at ``path``: a JSON block holding it, or a generated image's file."""
    item = normalize(raw, kind)
    if kind == "image_generation_call":
        image = generated_image(item, path)
        if image is not None:
            return image
    value, flags = raw_input(item, JSON_TEXT)  # an item no block holds is kept as its JSON text
    return build(JsonBlock, path, value=value, metadata={FLAG: True, **flags})


#: The flag on a file block holding the image of an ``image_generation_call`` (its value is that item type).
ITEM_TYPE = f"{NS}/item_type"

#: The fields of an ``image_generation_call`` kept as ``openai/<field>`` beside its image, with their request
#: shapes (``response_input_item_param.ImageGenerationCall``); ``id`` and ``result`` are the block itself.
IMAGE_CALL: Mapping[str, Kind] = {
    "status": Choice("in_progress", "completed", "generating", "failed"),
    "action": Nullable(Choice("generate", "edit", "auto")),
    "background": Nullable(Choice("transparent", "opaque", "auto")),
    "output_format": Nullable(Choice("png", "webp", "jpeg", "gif", "svg")),
    "quality": Nullable(Choice("low", "medium", "high", "xhigh", "max", "auto")),
    "revised_prompt": Nullable(STR),
    "size": Nullable(STR),
}
_FORMATS = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif", "svg": "image/svg+xml"}


def generated_image(item: Mapping[str, Any], path: str) -> FileBlock | None:
    """The image an ``image_generation_call`` made, as a file block that goes back to OpenAI as the same item.

    The item id and the fields of ``IMAGE_CALL`` are kept as ``openai/<field>``; another provider gets the image
    as an assistant file. ``None`` (the item stays a JSON block) when there is no image, or a field this reading
    does not know (an ``error``), or when the image's type is neither given nor recognisable from its bytes.

    >>> item = {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="}
    >>> image = generated_image(item, "$.output[0]")
    >>> image.media_type, image.source.data[1:4], image.metadata["openai/id"]
    ('image/png', b'PNG', 'ig_1')
    """
    known = {"type", "id", "result", *IMAGE_CALL}
    result, item_id = item.get("result"), item.get("id")
    if type(result) is not str or not result or type(item_id) is not str or not set(item) <= known:
        return None
    if not all(fits(item[key], kind) for key, kind in IMAGE_CALL.items() if key in item):
        return None
    try:
        data = b64decode(result, f"{path}.result")
    except ValidationError:
        return None
    media_type = image_type(item, data)
    if media_type is None:
        return None
    metadata = {ITEM_TYPE: "image_generation_call", f"{NS}/id": item_id}
    metadata.update({f"{NS}/{key}": item[key] for key in IMAGE_CALL if key in item})
    return build(FileBlock, path, media_type=media_type, source=BytesSource(data=data), metadata=metadata)


def image_type(item: Mapping[str, Any], data: bytes) -> str | None:
    """The media type of a generated image: the one its ``output_format`` names, else the one its bytes show."""
    return _FORMATS.get(item.get("output_format")) or sniff_image(data)  # type: ignore[arg-type]


def sniff_image(data: bytes) -> str | None:
    """The media type of PNG, JPEG, GIF or WebP bytes, by their signature; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
