"""The OpenAI SDK's ``accumulate_delta`` for Chat Completions chunks, with appends in O(1) and every value checked.

The stream reader merges each chunk's delta into the message accumulated so far exactly as the SDK's accumulator
does (``openai.lib.streaming._deltas``), so that a stream folds to what ``from_response`` reads of the completion
the SDK would build; strings grow as lists of pieces (``_Str``) and lists of indexed objects merge by index.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any

from .._checks._rules import DEFAULT_LIMITS
from .._errors import describe_type
from ..providers._toolkit import field, obj
from ._errors import fail

__all__ = ["check_index", "check_json", "check_members", "merge", "plain"]


class _Str:
    """A string that deltas append to: pieces, joined once when the message is read."""

    __slots__ = ("pieces",)

    def __init__(self, first: str) -> None:
        self.pieces = [first]


class _Items(list[Any]):
    """A list the deltas extend, knowing whether it holds only scalars (strings and numbers) without a scan."""

    __slots__ = ("scalars",)

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        self.scalars = _scalars(items)

    def extend_with(self, items: list[Any]) -> None:
        self.extend(items)
        self.scalars = self.scalars and _scalars(items)


def _scalars(items: list[Any]) -> bool:
    return all(isinstance(x, (str, int, float)) for x in items)


#: How deep a chunk's member (a choice's delta, the chunk's ``usage``) may nest: the adapter keeps no deeper
#: value (as metadata it would refuse it), the accumulator recurses, and the SDK cannot dump a much deeper one.
_MAX_DEPTH = DEFAULT_LIMITS.max_depth + 1
_SCALARS = (str, int, float, bool, type(None))


def check_json(value: object, path: str) -> None:
    """Refuse ``value`` unless it is JSON nested at most ``_MAX_DEPTH`` containers deep (walked with a stack).

    A number that is not finite is refused too: an SDK chunk holding one would dump it as ``null`` while the
    SDK's accumulator reads the number itself, so the two would build different completions.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            members: Iterable[object] = item.values()
            if not all(type(key) is str for key in item):
                raise fail(path, "an object with a key that is not a string")
        elif isinstance(item, list):
            members = item
        elif not isinstance(item, _SCALARS) or (type(item) is float and not math.isfinite(item)):
            raise fail(path, f"not a JSON value: {describe_type(item)}")
        else:
            continue
        if depth >= _MAX_DEPTH:
            raise fail(path, f"nested deeper than {_MAX_DEPTH} containers")
        stack.extend((member, depth + 1) for member in members)


_PLAIN = frozenset({str, int, bool, type(None)})


def check_members(raw: dict[str, Any], path: str, skip: str = "") -> None:
    """``check_json`` of each member of ``raw`` but ``skip``, at the member's path (a plain scalar needs none)."""
    for key, value in raw.items():
        if type(value) not in _PLAIN and key != skip:
            check_json(value, f"{path}.{key}")


def check_index(index: int, path: str) -> None:
    """Refuse a list entry's index that is negative, or past what a list can hold (the SDK's ``OverflowError``)."""
    if not 0 <= index <= sys.maxsize:
        raise fail(f"{path}.index", f"must be from 0 to {sys.maxsize}")


def _own(value: Any) -> Any:
    """A delta's value as the accumulator holds it: strings become appendable, ``null`` members are left out."""
    if type(value) is str:
        return _Str(value)
    if isinstance(value, dict):
        return {key: _own(member) for key, member in value.items() if member is not None}
    if isinstance(value, list):
        return _Items([_own(item) if isinstance(item, dict) else item for item in value])
    return value


def _indexed(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(item, dict) and "index" in item for item in value)


def merge(acc: dict[str, Any], delta: dict[str, Any], path: str) -> None:
    """``accumulate_delta`` of the SDK (``openai.lib.streaming._deltas``), with appends in O(1).

    A ``null`` member is absent (the SDK merges ``to_dict()``, which leaves unset fields out, so every dump form
    merges alike); a value of another type than the one held is ignored, as the SDK ignores it.
    """
    for key, value in delta.items():
        if value is None:
            continue
        if acc.get(key) is None:
            if not _indexed(value):
                acc[key] = _own(value)
                continue
            acc[key] = _Items([])
        old = acc[key]
        if key in {"index", "type"}:
            acc[key] = _own(value)
        elif isinstance(old, _Str) and type(value) is str:
            old.pieces.append(value)
        elif isinstance(old, (int, float)) and isinstance(value, (int, float)):
            acc[key] = old + value
        elif isinstance(old, dict) and isinstance(value, dict):
            merge(old, value, f"{path}.{key}")
        elif isinstance(old, _Items) and isinstance(value, list):
            _merge_list(old, value, f"{path}.{key}")


def _merge_list(old: _Items, value: list[Any], path: str) -> None:
    """A list of primitives grows at the end; a list of indexed objects merges each entry into its index.

    An index past the end appends, as the SDK's ``list.insert`` does; see ``check_index`` for those refused.
    """
    if old.scalars and (old or not _indexed(value)):
        old.extend_with(_own(value))
        return
    for k, entry in enumerate(value):
        entry_path = f"{path}[{k}]"
        index = field(obj(entry, entry_path), "index", int, entry_path)
        check_index(index, entry_path)
        if index < len(old):
            merge(obj(old[index], entry_path), entry, entry_path)
        else:
            old.extend_with([_own(entry)])


def plain(value: Any) -> Any:
    """The accumulated value as plain JSON again."""
    if isinstance(value, _Str):
        return "".join(value.pieces)
    if isinstance(value, dict):
        return {key: plain(member) for key, member in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
