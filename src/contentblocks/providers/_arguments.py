"""Tool-call arguments as JSON text: parsed when a block can hold their value, else kept raw and flagged.

Shared by every adapter and stream reader: ``json_text`` writes a held value compactly, ``parse_json_text`` reads
JSON text into a value a block can hold (``holds_json``), and ``read_arguments``/``raw_arguments`` carry a tool
call's JSON-string arguments both ways, byte for byte. Providers that send arguments as a JSON object
(Anthropic's ``input``, Gemini's ``args``) go through ``raw_input`` and ``object_input``: an object no block can
hold is kept as its text under the same flag, ``RAW_ARGUMENTS``, and parsed back into the object on the way out.
Any other provider value kept in a JSON block (a provider-run item, a Gemini tool's response) takes the same
road under ``JSON_TEXT`` (``raw_input(value, JSON_TEXT)``); ``value_of`` and ``text_of`` give it back to a writer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._api import _c_dumps, parse_json
from .._checks._rules import DEFAULT_LIMITS
from .._conversion._kernels import MISS, freeze
from .._errors import ValidationError
from .._json._values import thaw
from .._model._classes import JsonBlock

__all__ = [
    "JSON_TEXT",
    "RAW_ARGUMENTS",
    "holds_json",
    "json_text",
    "object_input",
    "parse_json_text",
    "raw_arguments",
    "raw_input",
    "read_arguments",
    "text_of",
    "value_of",
]

#: Tool call metadata flag: the input is the raw text of arguments no block can hold as a value. The OpenAI Chat
#: adapter's name, which every writer knows: OpenAI's send the text as the arguments, Anthropic's and Gemini's
#: parse it back into the object (``object_input``).
RAW_ARGUMENTS = "openai/invalid_arguments"
#: JSON block metadata flag: the value is the JSON text of a provider value no block can hold as a value (a
#: 30-digit integer in a provider-run item). Writers send the value parsed back from it (``value_of``), or the
#: text as it is where JSON goes as text (``text_of``).
JSON_TEXT = "contentblocks/json_text"

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
        return raw, {RAW_ARGUMENTS: True}
    return value, ({} if _is_json_text(value, raw) else {"openai/arguments": raw})


def _is_json_text(value: Any, raw: str) -> bool:
    r"""``json_text(value) == raw``, asked of the C writer where it can answer.

    For ASCII text with no ``\u`` escape and no DEL the two agree: the ASCII writer escapes a control character,
    DEL or a non-ASCII character as ``\u`` (the other writer leaves DEL and non-ASCII as they are), so equal text
    means the value holds none of them, and for such a value both writers give the same text. Other text is
    written by ``json`` to compare.

    >>> _is_json_text({"a": [1, "é"]}, '{"a":[1,"é"]}'), _is_json_text({"a": "é"}, '{"a":"\\u00e9"}')
    (True, False)
    >>> _is_json_text({"a": 1}, '{"a":1}'), _is_json_text({"a": 1}, '{"a": 1}')
    (True, False)
    """
    if _c_dumps is not None and raw.isascii() and "\\u" not in raw and "\x7f" not in raw:
        written = _c_dumps(value, MISS)
        if written is not MISS:
            return written == raw  # type: ignore[no-any-return]
    return json_text(value) == raw


def raw_arguments(value: Any, metadata: Mapping[str, Any]) -> str:
    """The JSON-string arguments for a tool call's input, from the metadata ``read_arguments`` gave.

    Kept raw text is used while it still says the same as the input; an invalid-arguments string is sent as is.

    >>> kept = {"openai/arguments": '{"a": 1}'}
    >>> raw_arguments({"a": 1}, kept), raw_arguments({"a": 2}, kept)
    ('{"a": 1}', '{"a":2}')
    >>> raw_arguments("{x", {"openai/invalid_arguments": True})
    '{x'
    """
    if metadata.get(RAW_ARGUMENTS) is True and type(value) is str:
        return value
    kept = metadata.get("openai/arguments")
    if type(kept) is str:
        ok, parsed = parse_json_text(kept)
        if ok and json_text(parsed) == json_text(value):
            return kept
    return json_text(value)


# keys sorted: the text is the same whichever order a dict or an SDK object's dump gave the members in
_object_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def raw_input(value: Any, flag: str = RAW_ARGUMENTS) -> tuple[Any, dict[str, Any]]:
    """A tool input sent as a JSON object, as a block holds it, and the flag of one kept as its JSON text.

    A model may fill the object with what no block holds: a 30-digit order number, ``1e400`` (read as
    infinity), nesting past the depth limit. Refusing the reply for it would end an agent's run on one odd
    token, so such an input is kept as its compact JSON text (keys sorted, non-finite numbers written ``Infinity``, as
    Python's ``json`` writes them), flagged ``flag`` (``RAW_ARGUMENTS`` unless told), and the rest of the
    reply reads. A value with
    no JSON text at all (a cycle or a value nested past the recursion limit, built in Python) or holding a
    string no text holds (a lone surrogate) is given back as it is, for the block to refuse at its path.

    >>> raw_input({"order": 12}), raw_input({"order": 123456789012345678901234567890})
    (({'order': 12}, {}), ('{"order":123456789012345678901234567890}', {'openai/invalid_arguments': True}))
    """
    if holds_json(value):
        return value, {}
    try:
        text = _object_text(value)
        text.encode()  # a lone surrogate is refused in the value itself, where its path says which member
    except (ValueError, TypeError, RecursionError):
        return value, {}
    return text, {flag: True}


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) != len(pairs):
        msg = "duplicate key"
        raise ValueError(msg)
    return dict(pairs)


def _parsed(value: object, metadata: Mapping[str, Any], flag: str) -> tuple[bool, Any]:
    """``(True, value)`` for text flagged ``flag`` that parses as ``raw_input`` writes, else ``(False, None)``.

    The text is read as Python's ``json`` reads it (integers of any size, ``Infinity``), duplicate keys refused.
    """
    if metadata.get(flag) is not True or type(value) is not str:
        return False, None
    try:
        return True, json.loads(value, object_pairs_hook=_unique)
    except (ValueError, RecursionError):
        return False, None


def object_input(value: object, metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON object a flagged raw-text input says, for a provider that takes arguments as an object.

    ``None`` unless the input is text flagged ``RAW_ARGUMENTS`` whose JSON is an object, so that an input read
    from Anthropic or Gemini goes back exactly as it came.

    >>> object_input('{"order":123456789012345678901234567890}', {RAW_ARGUMENTS: True})
    {'order': 123456789012345678901234567890}
    >>> object_input('{"a": 1, "a": 2}', {RAW_ARGUMENTS: True}), object_input('[1]', {RAW_ARGUMENTS: True})
    (None, None)
    """
    ok, parsed = _parsed(value, metadata, RAW_ARGUMENTS)
    return parsed if ok and type(parsed) is dict else None


def value_of(block: JsonBlock) -> Any:
    """A JSON block's value as plain Python: parsed back from its text when it was kept as text.

    >>> item = {"type": "mcp_tool_use", "input": {"n": 10**30}}
    >>> text, flags = raw_input(item, JSON_TEXT)
    >>> block = JsonBlock(value=text, metadata={"anthropic/native_block": True, **flags})
    >>> value_of(block) == item, text_of(block) == text, value_of(JsonBlock(value=[1]))
    (True, True, [1])
    """
    ok, parsed = _parsed(block.value, block.metadata, JSON_TEXT)
    return parsed if ok else thaw(block.value)


def text_of(block: JsonBlock) -> str:
    """The JSON text a JSON block is written as where JSON goes as text: its value's, or the text it was kept as."""
    ok, _ = _parsed(block.value, block.metadata, JSON_TEXT)
    return block.value if ok else json_text(block.value)
