"""Helpers shared by the OpenAI Responses, Gemini and MCP adapters: base64, offsets, JSON arguments, paths.

>>> utf8_to_index("héllo", 3), index_to_utf8("héllo", 2)
(2, 3)
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from .._errors import ValidationError
from ._common import decode_base64, json_text, parse_json_text

__all__ = [
    "b64decode",
    "b64encode",
    "fail",
    "index_to_utf8",
    "model_family",
    "raw_arguments",
    "read_arguments",
    "utf8_to_index",
]


def fail(path: str, message: str) -> ValidationError:
    """A ``ValidationError`` at ``path`` (for reading a malformed provider payload)."""
    return ValidationError([(path, message)])


def b64encode(data: bytes) -> str:
    """Standard padded base64 text of ``data``."""
    return base64.b64encode(data).decode("ascii")


def b64decode(text: object, path: str) -> bytes:
    """Decode canonical standard base64 (the library's own rule); a ``ValidationError`` at ``path`` otherwise.

    >>> b64decode("aGk=", "$.data")
    b'hi'
    """
    if type(text) is not str:
        raise fail(path, "expected a base64 string")
    return decode_base64(text, path)


def utf8_to_index(text: str, offset: int) -> int:
    """The code-point index of UTF-8 byte ``offset`` in ``text`` (an offset inside a character rounds down).

    >>> utf8_to_index("日本語", 6)
    2
    """
    encoded = text.encode("utf-8", "surrogatepass")
    offset = max(0, min(offset, len(encoded)))
    return len(encoded[:offset].decode("utf-8", "ignore"))


def index_to_utf8(text: str, index: int) -> int:
    """The UTF-8 byte offset of code-point ``index`` in ``text``.

    >>> index_to_utf8("日本語", 2)
    6
    """
    return len(text[:index].encode("utf-8", "surrogatepass"))


def read_arguments(raw: str) -> tuple[Any, dict[str, Any]]:
    """A tool call's input from its JSON-string arguments, and the ``openai/…`` metadata that keeps them exact.

    Valid JSON gives its value, and the raw text in ``openai/arguments`` only when compact JSON would not
    reproduce it byte for byte. Invalid JSON (a model can produce it) gives the raw string itself as the input,
    flagged ``openai/invalid_arguments`` (the OpenAI Chat adapter's convention), so it is sent back verbatim.

    >>> read_arguments('{"a":1}'), read_arguments('{"a": 1}'), read_arguments('{"a": ')
    (({'a': 1}, {}), ({'a': 1}, {'openai/arguments': '{"a": 1}'}), ('{"a": ', {'openai/invalid_arguments': True}))
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


_VERSION_TAIL = re.compile(r"(-(preview|exp|latest)\b.*|-\d{3}|-\d{2}-\d{4})\Z")


def model_family(model: str) -> str:
    """A model name without its release suffix, so a signature's issuer names the family.

    >>> model_family("gemini-2.5-flash-preview-05-20"), model_family("gemini-2.0-flash-001")
    ('gemini-2.5-flash', 'gemini-2.0-flash')
    """
    return _VERSION_TAIL.sub("", model) or model
