"""What the Anthropic request types take, position by position: the allow-lists and the shapes of their fields.

The adapter keeps every native field it does not map in metadata as ``anthropic/<field>``; only the fields listed
here for a position go back into a request, and only when their value has the shape the request type gives them
(a stored ``cache_control`` of ``5`` is not sent). The shapes follow the SDK's request TypedDicts
(``anthropic.types.TextBlockParam`` and the like), written in the shared shape vocabulary so that no SDK is
imported at run time.

>>> from contentblocks.providers._shapes import fits
>>> fits({"type": "ephemeral", "ttl": "1h"}, EXTRAS["text"]["cache_control"])
True
>>> fits({"type": "persistent"}, EXTRAS["text"]["cache_control"]), "latency_ms" in EXTRAS["text"]
(False, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._positions import position
from .._shapes import BOOL, INT, OBJECT, STR, Choice, Kind, ListOf, Nullable, OneOf, Struct, fits
from .._toolkit import drop_nulls

__all__ = [
    "CITATION_FIELDS",
    "EXTRAS",
    "NS",
    "absent_nulls",
    "request_citation",
]

NS = "anthropic"

_CACHE_CONTROL = Struct(
    "CacheControlEphemeralParam", {"type": Choice("ephemeral"), "ttl": Choice("5m", "1h")}, required={"type"}
)
_DIRECT = Struct("DirectCallerParam", {"type": Choice("direct")}, required={"type"})
_SERVER = Struct(
    "ServerToolCallerParam",
    {"type": Choice("code_execution_20250825", "code_execution_20260120"), "tool_id": STR},
    required={"type", "tool_id"},
)
_CALLER = OneOf("caller", (_DIRECT, _SERVER), lambda value: _DIRECT if value.get("type") == "direct" else _SERVER)

#: The native fields the adapter writes back from ``anthropic/<field>`` metadata, per position (the native
#: block type, or ``"message"`` for a message), with the shape each takes. A field the adapter maps itself
#: (``text``, ``source``, ``signature``...) is not listed: metadata never overrides it.
EXTRAS: dict[str, dict[str, Kind]] = {
    "text": {"cache_control": _CACHE_CONTROL},
    "image": {
        "cache_control": _CACHE_CONTROL,
        "transformations": Struct("ImageTransformationsParam", {"oversized_image": Choice("downsize", "error")}),
    },
    "document": {
        "cache_control": _CACHE_CONTROL,
        "citations": Struct("CitationsConfigParam", {"enabled": BOOL}),
        "context": STR,
        "title": STR,
    },
    "search_result": {
        "cache_control": _CACHE_CONTROL,
        "citations": Struct("CitationsConfigParam", {"enabled": BOOL}),
        "title": STR,
    },
    "thinking": {},
    "redacted_thinking": {},
    "compaction": {
        "cache_control": _CACHE_CONTROL,
        "encrypted_content": STR,
        "signature": STR,
        "tool_changes": ListOf(
            Struct(
                "ToolChange",
                {"type": Choice("tool_addition", "tool_removal"), "tool": OBJECT, "cache_control": _CACHE_CONTROL},
                required={"type", "tool"},
            )
        ),
    },
    "tool_use": {"cache_control": _CACHE_CONTROL, "caller": _CALLER, "toolset_name": STR},
    "server_tool_use": {"cache_control": _CACHE_CONTROL, "caller": _CALLER},
    "mcp_tool_use": {"cache_control": _CACHE_CONTROL, "server_name": STR},
    "tool_result": {"cache_control": _CACHE_CONTROL, "toolset_name": STR},
    "message": {},
}

_LOCATION: dict[str, Kind] = {"cited_text": STR, "document_index": INT, "document_title": Nullable(STR)}

#: The fields of each citation kind a request takes back (``anthropic.types.TextCitationParam``), with their
#: shapes. ``document_title`` and ``title`` are required but nullable; ``file_id`` is in responses only.
CITATION_FIELDS: dict[str, dict[str, Kind]] = {
    "char_location": {**_LOCATION, "start_char_index": INT, "end_char_index": INT},
    "page_location": {**_LOCATION, "start_page_number": INT, "end_page_number": INT},
    "content_block_location": {**_LOCATION, "start_block_index": INT, "end_block_index": INT},
    "web_search_result_location": {
        "cited_text": STR,
        "encrypted_index": STR,
        "title": Nullable(STR),
        "url": STR,
    },
    "search_result_location": {
        "cited_text": STR,
        "source": STR,
        "title": Nullable(STR),
        "search_result_index": INT,
        "start_block_index": INT,
        "end_block_index": INT,
    },
}
_RESPONSE_ONLY = frozenset({"file_id"})


def request_citation(raw: Any) -> dict[str, Any] | None:
    """The request form of a native citation (as a response or a request gave it), or ``None`` if it has none.

    Responses give citations a ``file_id`` the request type does not take, and ``model_dump()``/``to_dict()``
    may leave out a ``null`` title the request type requires: the request form drops the first and writes the
    second. A kind this adapter does not know, an unknown field or a value of the wrong shape gives ``None``.

    >>> request_citation({"type": "char_location", "cited_text": "Hi", "document_index": 0,
    ...                   "start_char_index": 0, "end_char_index": 2, "file_id": None})
    {'type': 'char_location', 'cited_text': 'Hi', 'document_index': 0, 'document_title': None, \
'start_char_index': 0, 'end_char_index': 2}
    >>> request_citation({"type": "char_location", "cited_text": "Hi"}) is None
    True
    """
    fields = _citation_fields(raw)
    if fields is None or any(key != "type" and key not in fields and key not in _RESPONSE_ONLY for key in raw):
        return None
    out: dict[str, Any] = {"type": raw["type"]}
    for key, shape in fields.items():
        value = raw.get(key)
        if not fits(value, shape):
            return None
        out[key] = value
    return out


def read_citation_fields(raw: dict[str, Any], path: str) -> None:
    """Read a citation of a known kind's fields as the SDK does, changing ``raw`` (a copy) in place.

    The API always sends a citation's title (``document_title``, ``title``), ``null`` when there is none, and an
    SDK object dumps a missing one as ``null``: a missing title is completed as ``null``. An integer field is
    read as ``providers._positions`` says (``-0.0`` is 0; a bool, which the SDK would read as 0 or 1, is refused
    at its path), so a dict and the SDK object built from it keep the same citation.

    >>> citation = {"type": "page_location", "cited_text": "Hi", "document_index": -0.0}
    >>> read_citation_fields(citation, "$.citations[0]")
    >>> citation["document_title"], citation["document_index"]
    (None, 0)
    """
    for key, shape in (_citation_fields(raw) or {}).items():
        if isinstance(shape, Nullable) and key not in raw:
            raw[key] = None
        elif shape is INT and key in raw:
            number = position(raw[key], f"{path}.{key}")
            if number is not None:
                raw[key] = number


def _citation_fields(raw: object) -> dict[str, Kind] | None:
    """The fields of a citation of a kind this adapter knows, by the ``type`` of ``raw``; else ``None``."""
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    return CITATION_FIELDS.get(kind) if type(kind) is str else None


def _required_null(member: str, parent: Mapping[str, Any]) -> bool:
    """Whether ``member`` of ``parent`` is a citation field whose request type requires it, ``null`` or not."""
    fields = _citation_fields(parent)
    return fields is not None and isinstance(fields.get(member.rpartition(".")[2]), Nullable)


def _tool_input(member: str, _parent: Mapping[str, Any]) -> bool:
    """Whether ``member`` is a tool's input: user data, where ``null`` means ``null``."""
    return member.rpartition(".")[2] == "input"


def absent_nulls(value: Any) -> Any:
    """``value`` without the object members that are ``null``: an SDK's way of writing "not set".

    ``model_dump()`` writes ``null`` for every optional field left unset (``"caller": None``, ``"page_age":
    None``), ``to_dict()`` leaves them out; both forms must read to the same block, and the request types take
    most of those fields as absent only. This is the toolkit's ``drop_nulls`` with two Anthropic exceptions,
    kept as they are: a tool's ``input`` (user data, where ``null`` means ``null``) and the nullable titles of a
    citation (its request form requires them).

    >>> absent_nulls({"type": "server_tool_use", "caller": None, "input": {"q": None}})
    {'type': 'server_tool_use', 'input': {'q': None}}
    """
    return drop_nulls(value, keep=_required_null, verbatim=_tool_input)
