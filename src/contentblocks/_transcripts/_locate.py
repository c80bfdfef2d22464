"""Find the line of a JSON path in JSON text, so the CLI can point at ``FILE:LINE``.

The text has already been parsed, so the scanner can assume it is valid JSON; it walks with an explicit
position and no recursion, skipping the values it does not need.
"""

from __future__ import annotations

import json
import re

__all__ = ["line_of", "split_path"]

_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*"(?:\.\.\.")?)\]')
_WS = " \t\r\n"


def split_path(path: str) -> list[str | int]:
    """``$.content[2]["a b"]`` → ``["content", 2, "a b"]``; stops at anything it cannot read."""
    steps: list[str | int] = []
    pos = 1 if path.startswith("$") else 0
    while pos < len(path):
        match = _STEP.match(path, pos)
        if match is None:
            break
        name, index, quoted = match.groups()
        if name is not None:
            steps.append(name)
        elif index is not None:
            steps.append(int(index))
        else:
            if quoted.endswith('..."'):
                break  # a truncated key preview cannot be matched
            steps.append(json.loads(quoted))
        pos = match.end()
    return steps


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _skip_string(text: str, i: int) -> int:
    """``i`` is at the opening quote; return the index after the closing one."""
    i += 1
    while True:
        j = text.index('"', i)
        backslashes = 0
        k = j - 1
        while text[k] == "\\":
            backslashes += 1
            k -= 1
        if backslashes % 2 == 0:
            return j + 1
        i = j + 1


def _skip_value(text: str, i: int) -> int:
    """Return the index just after the value that starts at ``i``."""
    depth = 0
    while True:
        ch = text[i]
        if ch == '"':
            i = _skip_string(text, i)
        elif ch in "[{":
            depth += 1
            i += 1
        elif ch in "]}":
            depth -= 1
            i += 1
        else:
            i += 1
            while i < len(text) and text[i] not in ',]}"[{' + _WS:
                i += 1
        if depth == 0:
            return i
        i = _skip_ws(text, i)
        if text[i] in ",:":
            i = _skip_ws(text, i + 1)


def _offset_of(text: str, steps: list[str | int]) -> int:  # noqa: C901, PLR0912 - one flat scanner
    """The offset of the deepest value on the path that exists in the text."""
    found = i = _skip_ws(text, 0)
    for step in steps:
        if i >= len(text):
            break
        if text[i] == "{" and isinstance(step, str):
            i = _skip_ws(text, i + 1)
            target = None
            while i < len(text) and text[i] == '"':
                end = _skip_string(text, i)
                key = json.loads(text[i:end])
                i = _skip_ws(text, _skip_ws(text, end) + 1)
                if key == step:
                    target = i
                    break
                i = _skip_ws(text, _skip_value(text, i))
                if text[i] == ",":
                    i = _skip_ws(text, i + 1)
            if target is None:
                break
            i = found = target
        elif text[i] == "[" and isinstance(step, int):
            i = _skip_ws(text, i + 1)
            for _ in range(step):
                if text[i] == "]":
                    break
                i = _skip_ws(text, _skip_value(text, i))
                if text[i] == ",":
                    i = _skip_ws(text, i + 1)
            if text[i] == "]":
                break
            found = i
        else:
            break
    return found


def line_of(text: str, path: str) -> int:
    """The 1-based line where the value at ``path`` (or its deepest existing ancestor) starts."""
    try:
        offset = _offset_of(text, split_path(path))
    except (ValueError, IndexError):  # pragma: no cover - the text was valid JSON; be safe anyway
        return 1
    return text.count("\n", 0, offset) + 1
