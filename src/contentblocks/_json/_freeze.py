"""Freezing JSON values: strict validation and the read-only copy blocks hold, with every problem's path.

Two walks: a recursive one for the common valid value, which gives up at the first doubt, and the reference
walk with an explicit stack, which words every problem and ends cycles and hostile nesting in a problem, not
a RecursionError. The converter tries the C accelerator's copy first (``_kernels.freeze``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from .._checks._grammar import METADATA_KEY_MIN_CHARS, METADATA_KEY_PROBLEM
from .._checks._patterns import find_surrogate, has_lone_surrogate
from .._errors import describe_type, join_key
from .._source import run_source
from ._values import (
    EMPTY_OBJECT,
    INT_MAX,
    INT_MIN,
    JsonArray,
    JsonObject,
    plain_container,
)

if TYPE_CHECKING:
    from .._checks._rules import Limits

__all__ = ["add_node_limit_problem", "freeze", "freeze_metadata"]

_new_object = JsonObject.__new__
_new_array = JsonArray.__new__
_fill_object = dict.update  # the base classes' own methods, not the read-only overrides
_fill_array = list.extend
_NO_KEY: Any = object()


def freeze(value: object, path: str, limits: Limits, problems: list[tuple[str, str]], *, extra_depth: int = 0) -> Any:
    """Validate a JSON value and return a read-only copy built of JsonObject and JsonArray.

    Problems are appended to ``problems`` with their paths; the return value is meaningless when any were
    added. A valid value is copied by a recursive walk that gives up at the first doubt; the reference walk
    then reads the value again with an explicit stack, checks every container's size before entering it and
    stops at the depth limit, so cycles and hostile nesting end in a problem, not a RecursionError.

    The classes use this function; the converter tries the C accelerator's copy first (``_kernels.freeze``),
    which hands back anything but a valid value of exact built-in types.
    """
    walk = _VALID_WALKS.get(type(value))
    if walk is None:
        kind, value = plain_container(value)
        if kind == 0:
            message = _leaf_problem(value, type(value), limits.max_text_chars)
            if message is not None:
                problems.append((path, message))
            return value
        walk = _valid_object if kind == 1 else _valid_array
    max_depth = limits.max_depth + extra_depth
    try:
        return walk(value, 1, max_depth, limits.max_text_chars, [limits.max_nodes - 1])
    except _NodeLimit as limit:  # the first doubt: nothing before it to word, no need to walk again
        add_node_limit_problem(problems, path, limit.keys[::-1], limits)
        return None
    except (_Doubt, RecursionError):
        pass
    kind = 1 if walk is _valid_object else 2
    return _freeze_container(value, kind, path, _Walk(limits, problems), max_depth)


_isfinite = math.isfinite
_dict_items = dict.items


class _Doubt(Exception):  # noqa: N818 - not an error: the valid-path walk giving up
    """Raised by the valid-path walk at the first doubtful value: the reference walk takes over and words it."""


class _NodeLimit(_Doubt):
    """The valid-path walk's first doubt is a container past ``max_nodes``: its problem is worded at once.

    The walk has then read every value up to the limit, as the reference walk would again to reach the same
    problem; so the keys from the root to that container are gathered as the exception unwinds instead.
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[object] = []  # innermost first


def add_node_limit_problem(problems: list[tuple[str, str]], path: str, keys: list[object], limits: Limits) -> None:
    """Record the problem of a container past ``max_nodes``, reached from the value at ``path`` by ``keys``.

    Worded and placed as the reference walk does it (object keys are strings, array indexes ints).
    """
    if len(problems) < limits.max_errors:
        for key in keys:
            path = _child_path(path, key, type(key) is str)
    problems.append((path, f"more than {limits.max_nodes:,} values in one JSON value"))


# The valid path: most JSON values in blocks are small (tool inputs, metadata), and a walk that recurses and
# checks each key and scalar inline, without the reference walk's bookkeeping, reads them fastest. It raises
# Doubt at the first doubtful value (a problem, a subclass, a limit reached, recursion running out), and the
# reference walk then finds and words it. ``budget`` holds the values left before the node limit.
#
# It is two functions, one for objects and one for arrays, so that neither asks per item which kind it walks;
# both are generated from this one template, so each check is written once. The scalars are tested in the
# order they are most common in, each container is copied into its read-only class in one C call, and a
# container with containers in it is first copied into a plain dict or list that takes each child as it is
# frozen (setting them on the read-only copy would take a call through the base class for each). The builtins
# the loop calls for every item are parameters with themselves as defaults: locals, read in one step.
_VALID_WALK = """\
def valid_{kind}(value, depth, max_depth, max_chars, budget, type=type, len=len, str=str, float=float, int=int):
    budget[0] -= len(value)
    if budget[0] < 0:
        raise NodeLimit
    copy = None
{loop}
        t = type(item)
        if t is str:
            if len(item) > max_chars or (not item.isascii() and surrogate(item)):
                raise Doubt
        elif t is float:
            if not isfinite(item):
                raise Doubt
        elif t is int:
            if not INT_MIN <= item <= INT_MAX:
                raise Doubt
        elif item is None or t is bool:
            pass
        elif t is dict or t is list or t is tuple:
            if depth >= max_depth:
                raise Doubt
            if copy is None:
                copy = {plain}(value)
            try:
                if t is dict:
                    copy[key] = valid_object(item, depth + 1, max_depth, max_chars, budget)
                else:
                    copy[key] = valid_array(item, depth + 1, max_depth, max_chars, budget)
            except NodeLimit as limit:
                limit.keys.append(key)
                raise
        else:
            raise Doubt
    frozen = new({frozen})
    fill(frozen, value if copy is None else copy)
    return frozen
"""
_OBJECT_LOOP = """\
    for key, item in value.items():
        if type(key) is not str or len(key) > max_chars or (not key.isascii() and surrogate(key)):
            raise Doubt"""
_ARRAY_LOOP = """\
    key = -1
    for item in value:
        key += 1"""


def _valid_walks() -> tuple[Callable[..., Any], Callable[..., Any]]:
    objects = {"new": _new_object, "fill": _fill_object, "JsonObject": JsonObject}
    arrays = {"new": _new_array, "fill": _fill_array, "JsonArray": JsonArray}
    shared = {"Doubt": _Doubt, "NodeLimit": _NodeLimit, "surrogate": find_surrogate, "isfinite": _isfinite,
              "INT_MIN": INT_MIN, "INT_MAX": INT_MAX}  # fmt: skip
    object_source = _VALID_WALK.format(kind="object", loop=_OBJECT_LOOP, plain="dict", frozen="JsonObject")
    array_source = _VALID_WALK.format(kind="array", loop=_ARRAY_LOOP, plain="list", frozen="JsonArray")
    object_walk = run_source(object_source, {**shared, **objects}, "JSON object walk")["valid_object"]
    array_walk = run_source(array_source, {**shared, **arrays}, "JSON array walk")["valid_array"]
    for namespace in (object_walk.__globals__, array_walk.__globals__):
        namespace.update(valid_object=object_walk, valid_array=array_walk)
    return object_walk, array_walk


_valid_object, _valid_array = _valid_walks()
#: The valid-path walk for each exact container type (a subclass is first copied by ``plain_container``).
_VALID_WALKS: dict[type, Callable[..., Any]] = {
    dict: _valid_object, JsonObject: _valid_object, list: _valid_array, tuple: _valid_array, JsonArray: _valid_array
}


def _stack_path(root: str, stack: list[list[Any]], key: object = _NO_KEY) -> str:
    """The JSON path of the container on top of ``stack`` (or of its child ``key``), for a message."""
    path = root
    for parent, frame in pairwise(stack):
        path = _child_path(path, frame[3], parent[2])
    if key is not _NO_KEY:
        path = _child_path(path, key, stack[-1][2])
    return path


def _freeze_container(root: Any, root_kind: int, path: str, walk: _Walk, max_depth: int) -> Any:  # noqa: C901, PLR0912, PLR0915 - one flat loop is the point
    limits = walk.limits
    max_chars = limits.max_text_chars
    max_nodes = limits.max_nodes
    surrogate = find_surrogate
    isfinite = _isfinite
    new_object, new_array, fill_object, fill_array = _new_object, _new_array, _fill_object, _fill_array
    walk.nodes = 1 + len(root)
    if walk.nodes > max_nodes:
        walk.problems.append((path, f"more than {max_nodes:,} values in one JSON value"))
        return None
    if root_kind == 1:
        stack: list[list[Any]] = [[iter(_dict_items(root)), {}, True, None]]
    else:
        stack = [[enumerate(root), [], False, None]]
    while stack:
        frame = stack[-1]
        out: Any = frame[1]
        is_object = frame[2]
        pushed = False
        item: Any
        for key, item in frame[0]:
            if is_object and (type(key) is not str or len(key) > max_chars or (not key.isascii() and surrogate(key))):
                if type(key) is not str:
                    walk.add(path, stack, f"object keys must be strings, got {describe_type(key)}")
                else:
                    walk.add(path, stack, "an object key is too long or contains a lone surrogate")
                continue
            t = type(item)
            if t is str:
                ok = len(item) <= max_chars and (item.isascii() or not surrogate(item))
            elif t is int:
                ok = INT_MIN <= item <= INT_MAX
            elif t is float:
                ok = isfinite(item)
            elif t is bool or item is None:
                ok = True
            else:
                if t is dict:
                    kind = 1
                elif t is list or t is tuple:
                    kind = 2
                else:
                    kind, item = plain_container(item)  # noqa: PLW2901 - the same value, subclasses read safely
                if kind == 0:
                    walk.add(path, stack, f"not a JSON value: {describe_type(item)}", key)
                    continue
                if len(stack) >= max_depth:
                    message = f"nested deeper than {max_depth} containers (or a container holds itself)"
                    walk.add(path, stack, message, key)
                    return None
                walk.nodes += len(item)
                if walk.nodes > max_nodes:
                    walk.add(path, stack, f"more than {max_nodes:,} values in one JSON value", key)
                    return None
                if kind == 1:
                    stack.append([iter(_dict_items(item)), {}, True, key])
                else:
                    stack.append([enumerate(item), [], False, key])
                pushed = True
                break
            if not ok:
                walk.add(path, stack, _leaf_problem(item, t, max_chars) or "invalid value", key)
                continue
            if is_object:
                out[key] = item
            else:
                out.append(item)
        if pushed:
            continue
        # Built as a plain container, then frozen in one C call (faster than a slot call per value).
        stack.pop()
        if is_object:
            frozen: Any = new_object(JsonObject)
            fill_object(frozen, out)
        else:
            frozen = new_array(JsonArray)
            fill_array(frozen, out)
        if not stack:
            return frozen
        parent = stack[-1]
        if parent[2]:
            parent[1][frame[3]] = frozen
        else:
            parent[1].append(frozen)
    return None  # pragma: no cover - the loop returns


_ONE_CHAR_KEYS = METADATA_KEY_MIN_CHARS == 1  # then the one key too short is "", found by one lookup


def freeze_metadata(
    problems: list[tuple[str, str]], path: str, value: object, limits: Limits, freeze: Callable[..., Any] = freeze
) -> JsonObject:
    """Validate metadata (an object with string keys of ``METADATA_KEY_MIN_CHARS`` or more, and JSON values).

    The value is frozen with ``freeze``.
    """
    if type(value) is dict and value:
        # The common case, valid metadata: its copy holds exact str keys only, so measuring them runs no code
        # of the caller's. With a short key, the value is read again below, where the problems get their
        # order; without, the problems stand as found (a value past max_nodes is not walked twice).
        before = len(problems)
        frozen = freeze(value, path, limits, problems, extra_depth=1)
        if len(problems) == before and type(frozen) is JsonObject and (
            "" not in frozen if _ONE_CHAR_KEYS else min(map(len, frozen)) >= METADATA_KEY_MIN_CHARS
        ):
            return frozen
        if len(problems) != before and not _short_keys(value):
            return frozen if type(frozen) is JsonObject else EMPTY_OBJECT
        del problems[before:]
    kind, obj = plain_container(value)
    if kind != 1:
        problems.append((path, f"metadata must be an object, got {describe_type(value)}"))
        return EMPTY_OBJECT
    if not obj:
        return EMPTY_OBJECT
    problems.extend((join_key(path, key), METADATA_KEY_PROBLEM) for key in _short_keys(obj))
    # Metadata values are JSON values: the object itself adds one level to the depth they may use.
    frozen = freeze(obj, path, limits, problems, extra_depth=1)
    return frozen if type(frozen) is JsonObject else EMPTY_OBJECT


def _short_keys(obj: dict[Any, Any]) -> list[str]:
    """The keys of ``obj`` too short for metadata; only exact str keys, since the JSON walk words any other."""
    return [key for key in dict.keys(obj) if type(key) is str and len(key) < METADATA_KEY_MIN_CHARS]


def _child_path(path: str, key: object, is_object: bool) -> str:
    if is_object:
        return join_key(path, key)  # type: ignore[arg-type]
    return f"{path}[{key}]"


class _Walk:
    """The state of one validation walk: limits, problems found, values seen.

    Past ``max_errors`` problems, a problem is still recorded (so ``ValidationError.omitted`` counts it) but
    its path is not worked out, since it will not be shown.
    """

    __slots__ = ("limits", "nodes", "problems")

    def __init__(self, limits: Limits, problems: list[tuple[str, str]]) -> None:
        self.limits = limits
        self.problems = problems
        self.nodes = 0

    def add(self, root: str, stack: list[list[Any]], message: str, key: object = _NO_KEY) -> None:
        if len(self.problems) < self.limits.max_errors:
            self.problems.append((_stack_path(root, stack, key), message))
        else:
            self.problems.append((root, message))


def _leaf_problem(value: object, t: type, max_chars: int) -> str | None:
    """What is wrong with a non-container value, or None."""
    if t is str:
        if len(value) > max_chars:  # type: ignore[arg-type]
            return f"string longer than {max_chars:,} characters"
        if has_lone_surrogate(value):  # type: ignore[arg-type]
            return "string contains a lone surrogate (not a Unicode character)"
        return None
    if t is int:
        if INT_MIN <= value <= INT_MAX:  # type: ignore[operator]
            return None
        return "integer outside [-2**63, 2**64-1]"
    if t is float:
        if math.isfinite(value):  # type: ignore[arg-type]
            return None
        return "NaN and infinities are not JSON numbers"
    if t is bool or value is None:
        return None
    return f"not a JSON value: {describe_type(value)}"
