"""What the Anthropic request types take, position by position: the allow-lists and the shapes of their fields.

The adapter keeps every native field it does not map in metadata as ``anthropic/<field>``; only the fields listed
here for a position go back into a request, and only when their value has the shape the request type gives them
(a stored ``cache_control`` of ``5`` is not sent). The shapes follow the SDK's request TypedDicts
(``anthropic.types.TextBlockParam`` and the like), written out here so that no SDK is imported at run time.

>>> EXTRAS["text"]["cache_control"]({"type": "ephemeral", "ttl": "1h"})
True
>>> EXTRAS["text"]["cache_control"]({"type": "persistent"}), "latency_ms" in EXTRAS["text"]
(False, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._rules import DEFAULT_LIMITS

__all__ = [
    "CITATION_FIELDS",
    "EXTRAS",
    "NS",
    "Check",
    "absent_nulls",
    "request_citation",
]

NS = "anthropic"

Check = Callable[[Any], bool]
"""Whether a (thawed) JSON value has the shape a request field takes."""


def _is_str(value: Any) -> bool:
    return type(value) is str


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_bool(value: Any) -> bool:
    return type(value) is bool


def _str_or_null(value: Any) -> bool:
    return value is None or type(value) is str


def _literal(*values: str) -> Check:
    return lambda value: type(value) is str and value in values


def _record(required: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """An object with every ``required`` key, and otherwise only ``optional`` keys, each of its shape."""
    optional = optional or {}

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        if any(key not in value or not shape(value[key]) for key, shape in required.items()):
            return False
        return all(key in required or (key in optional and optional[key](item)) for key, item in value.items())

    return check


def _any_of(*checks: Check) -> Check:
    return lambda value: any(check(value) for check in checks)


_CACHE_CONTROL = _record({"type": _literal("ephemeral")}, {"ttl": _literal("5m", "1h")})
_CALLER = _any_of(
    _record({"type": _literal("direct")}),
    _record({"type": _literal("code_execution_20250825", "code_execution_20260120"), "tool_id": _is_str}),
)

#: The native fields the adapter writes back from ``anthropic/<field>`` metadata, per position (the native
#: block type, or ``"message"`` for a message), with the shape each takes. A field the adapter maps itself
#: (``text``, ``source``, ``signature``...) is not listed: metadata never overrides it.
EXTRAS: dict[str, dict[str, Check]] = {
    "text": {"cache_control": _CACHE_CONTROL},
    "image": {
        "cache_control": _CACHE_CONTROL,
        "transformations": _record({}, {"oversized_image": _literal("downsize", "error")}),
    },
    "document": {
        "cache_control": _CACHE_CONTROL,
        "citations": _record({}, {"enabled": _is_bool}),
        "context": _is_str,
        "title": _is_str,
    },
    "thinking": {},
    "redacted_thinking": {},
    "tool_use": {"cache_control": _CACHE_CONTROL, "caller": _CALLER, "toolset_name": _is_str},
    "tool_result": {"cache_control": _CACHE_CONTROL, "toolset_name": _is_str},
    "message": {},
}

_LOCATION = {"cited_text": _is_str, "document_index": _is_int, "document_title": _str_or_null}

#: The fields of each citation kind a request takes back (``anthropic.types.TextCitationParam``), with their
#: shapes. ``document_title`` and ``title`` are required but nullable; ``file_id`` is in responses only.
CITATION_FIELDS: dict[str, dict[str, Check]] = {
    "char_location": {**_LOCATION, "start_char_index": _is_int, "end_char_index": _is_int},
    "page_location": {**_LOCATION, "start_page_number": _is_int, "end_page_number": _is_int},
    "content_block_location": {**_LOCATION, "start_block_index": _is_int, "end_block_index": _is_int},
    "web_search_result_location": {
        "cited_text": _is_str,
        "encrypted_index": _is_str,
        "title": _str_or_null,
        "url": _is_str,
    },
    "search_result_location": {
        "cited_text": _is_str,
        "source": _is_str,
        "title": _str_or_null,
        "search_result_index": _is_int,
        "start_block_index": _is_int,
        "end_block_index": _is_int,
    },
}
_NULLABLE = frozenset({"document_title", "title"})
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
    if not isinstance(raw, dict):
        return None
    fields = CITATION_FIELDS.get(raw.get("type"))  # type: ignore[arg-type]
    if fields is None or any(key != "type" and key not in fields and key not in _RESPONSE_ONLY for key in raw):
        return None
    out: dict[str, Any] = {"type": raw["type"]}
    for key, shape in fields.items():
        value = raw.get(key)
        if value is None and key not in _NULLABLE:
            return None
        if not shape(value):
            return None
        out[key] = value
    return out


def absent_nulls(value: Any) -> Any:
    """``value`` without the object members that are ``null``: an SDK's way of writing "not set".

    ``model_dump()`` writes ``null`` for every optional field left unset (``"caller": None``, ``"page_age":
    None``), ``to_dict()`` leaves them out; both forms must read to the same block, and the request types take
    most of those fields as absent only. Two things are kept as they are: a tool's ``input`` (user data, where
    ``null`` means ``null``) and the nullable titles of a citation (its request form requires them). The walk
    uses an explicit stack; a value deeper or larger than the library's JSON limits is returned unchanged, for
    the block built from it to report.

    >>> absent_nulls({"type": "server_tool_use", "caller": None, "input": {"q": None}})
    {'type': 'server_tool_use', 'input': {'q': None}}
    """
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, holder, 0, 0)]
    nodes = 0
    while stack:
        item, parent, key, depth = stack.pop()
        nodes += 1
        if nodes > DEFAULT_LIMITS.max_nodes or depth > DEFAULT_LIMITS.max_depth:
            return value
        if isinstance(item, dict):
            keep = _NULLABLE if item.get("type") in CITATION_FIELDS else frozenset()
            copy: dict[Any, Any] = {}
            parent[key] = copy
            for name, member in item.items():
                if member is None and name not in keep:
                    continue
                copy[name] = member
                if name != "input":
                    stack.append((member, copy, name, depth + 1))
        elif isinstance(item, (list, tuple)):
            items = list(item)
            parent[key] = items
            stack.extend((member, items, index, depth + 1) for index, member in enumerate(items))
        else:
            parent[key] = item
    return holder[0]
