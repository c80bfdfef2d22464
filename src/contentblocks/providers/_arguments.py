"""Tool-call arguments as JSON text: parsed when a block can hold their value, else kept raw and flagged.

Shared by every adapter and stream reader: ``json_text`` writes a held value compactly, ``parse_json_text`` reads
JSON text into a value a block can hold (``holds_json``), and ``read_arguments``/``raw_arguments`` carry a tool
call's JSON-string arguments both ways, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._api import parse_json
from .._errors import ValidationError
from .._kernels import freeze
from .._rules import DEFAULT_LIMITS

__all__ = ["holds_json", "json_text", "parse_json_text", "raw_arguments", "read_arguments"]

_compact = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """Compact JSON text of a validated JSON value (what a block holds), non-ASCII kept as it is.

    >>> json_text({"city": "Zürich", "days": [1, 2.0]})
    '{"city":"Zürich","days":[1,2.0]}'
    """
    return _compact(value)


def parse_json_text(text: str, *, holdable: bool = True) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is strict JSON (no NaN, no duplicate keys), else ``(False, None)``.

    With ``holdable`` (the default) the value must also be one a block holds (``holds_json``): JSON text with a
    30-digit integer, ``1e400`` or nesting past the depth limit is valid JSON that no block can carry, so it is
    refused like invalid text. ``holdable=False`` reads any strict JSON, for a reader that hands the value on
    to one that keeps it raw.

    >>> parse_json_text('{"a": 1}'), parse_json_text("{'a': 1}"), parse_json_text('[1e400]')
    ((True, {'a': 1}), (False, None), (False, None))
    >>> parse_json_text('[1e400]', holdable=False)
    (True, [inf])
    """
    try:
        value = parse_json(text)
    except ValidationError:
        return False, None
    if holdable and not holds_json(value):
        return False, None
    return True, value


def holds_json(value: object) -> bool:
    """Whether a block can hold ``value`` as a JSON value (integers in 64 bits, finite floats, bounded depth).

    >>> holds_json({"order": 12345}), holds_json({"order": 123456789012345678901234567890})
    (True, False)
    """
    problems: list[tuple[str, str]] = []
    freeze(value, "$", DEFAULT_LIMITS, problems)
    return not problems


def read_arguments(raw: str) -> tuple[Any, dict[str, Any]]:
    """A tool call's input from its JSON-string arguments, and the ``openai/…`` metadata that keeps them exact.

    Valid JSON gives its value, and the raw text in ``openai/arguments`` only when compact JSON would not
    reproduce it byte for byte. Invalid JSON (a model can produce it), and valid JSON a block cannot hold (a
    30-digit order number, ``1e400``), give the raw string itself as the input, flagged
    ``openai/invalid_arguments`` (the OpenAI Chat adapter's convention), so it is sent back verbatim.

    >>> read_arguments('{"a":1}'), read_arguments('{"a": 1}'), read_arguments('{"a": ')
    (({'a': 1}, {}), ({'a': 1}, {'openai/arguments': '{"a": 1}'}), ('{"a": ', {'openai/invalid_arguments': True}))
    >>> read_arguments('{"order": 123456789012345678901234567890}')
    ('{"order": 123456789012345678901234567890}', {'openai/invalid_arguments': True})
    """
    ok, value = parse_json_text(raw)
    if not ok:
        return raw, {"openai/invalid_arguments": True}
    return value, ({} if json_text(value) == raw else {"openai/arguments": raw})


def raw_arguments(value: Any, metadata: Mapping[str, Any]) -> str:
    """The JSON-string arguments for a tool call's input, from the metadata ``read_arguments`` gave.

    Kept raw text is used while it still says the same as the input; an invalid-arguments string is sent as is.

    >>> kept = {"openai/arguments": '{"a": 1}'}
    >>> raw_arguments({"a": 1}, kept), raw_arguments({"a": 2}, kept)
    ('{"a": 1}', '{"a":2}')
    >>> raw_arguments("{x", {"openai/invalid_arguments": True})
    '{x'
    """
    if metadata.get("openai/invalid_arguments") is True and type(value) is str:
        return value
    kept = metadata.get("openai/arguments")
    if type(kept) is str:
        ok, parsed = parse_json_text(kept)
        if ok and json_text(parsed) == json_text(value):
            return kept
    return json_text(value)
