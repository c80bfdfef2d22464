"""JSON values: strict validation with an explicit stack, and the read-only containers blocks hold.

A JSON value inside a block is built from :class:`JsonObject` and :class:`JsonArray`, read-only subclasses
of ``dict`` and ``list``: they compare equal to plain dicts and lists, ``json`` and ``orjson`` write them as
they are, and neither the caller's containers nor the block's can be changed through the other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from ._accel import MISS, speedups
from ._errors import describe_type, join_key
from ._rules import find_surrogate, has_lone_surrogate

if TYPE_CHECKING:
    from ._rules import Limits

__all__ = [
    "JsonArray",
    "JsonObject",
    "JsonValue",
    "freeze",
    "json_key",
    "plain_container",
    "speedups_enabled",
    "thaw",
]

JsonValue: TypeAlias = "bool | int | float | str | JsonArray | JsonObject | list[Any] | dict[str, Any] | None"
"""A JSON value: what ``input``, ``value`` and metadata values hold (``tuple`` counts as an array)."""

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1


def _read_only(_self: object, *_args: object, **_kwargs: object) -> NoReturn:
    msg = "JSON values inside blocks are read-only; copy() gives a mutable plain copy"
    raise TypeError(msg)


class JsonObject(dict[str, Any]):
    """A read-only JSON object, as held inside blocks.

    It is a ``dict`` for reading, comparison and serialisation; every mutating method raises ``TypeError``.
    ``copy()`` returns a plain, mutable ``dict`` (shallow); ``copy.copy`` and ``copy.deepcopy`` return the
    object itself, since it cannot change.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={"city": "Paris"})
    >>> call.input["city"]
    'Paris'
    >>> call.input["city"] = "Rome"
    Traceback (most recent call last):
    TypeError: JSON values inside blocks are read-only; copy() gives a mutable plain copy
    """

    __slots__ = ("_key",)

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        msg = "JsonObject is built by the library; pass a plain dict to a block instead"
        raise TypeError(msg)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __copy__(self) -> JsonObject:
        return self

    def __deepcopy__(self, memo: object) -> JsonObject:
        return self

    def __reduce__(self) -> tuple[Callable[[list[tuple[str, Any]]], JsonObject], tuple[list[tuple[str, Any]]]]:
        return (_object_from_items, (list(dict.items(self)),))

    def __repr__(self) -> str:
        return f"JsonObject({dict.__repr__(self)})"


class JsonArray(list[Any]):
    """A read-only JSON array, as held inside blocks: a ``list`` for reading, every mutator raises ``TypeError``."""

    __slots__ = ("_key",)

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        msg = "JsonArray is built by the library; pass a plain list to a block instead"
        raise TypeError(msg)

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _read_only
    __iadd__ = __imul__ = _read_only

    def __copy__(self) -> JsonArray:
        return self

    def __deepcopy__(self, memo: object) -> JsonArray:
        return self

    def __reduce__(self) -> tuple[Callable[[list[Any]], JsonArray], tuple[list[Any]]]:
        return (_array_from_items, (list.copy(self),))

    def __repr__(self) -> str:
        return f"JsonArray({list.__repr__(self)})"


_new_object = JsonObject.__new__
_new_array = JsonArray.__new__
_dict_init = dict.__init__
_list_init = list.__init__


def _object_from_items(items: list[tuple[str, Any]]) -> JsonObject:
    obj = _new_object(JsonObject)
    _dict_init(obj, items)
    return obj


def _array_from_items(items: list[Any]) -> JsonArray:
    arr = _new_array(JsonArray)
    _list_init(arr, items)
    return arr


EMPTY_OBJECT = _object_from_items([])
_NO_KEY: Any = object()


if speedups is not None:
    speedups.setup(JsonObject, JsonArray)
# Module globals looked up at each call, so that tests can compare both paths in one process.
_c_freeze: Callable[..., Any] | None = speedups.freeze if speedups is not None else None
_c_thaw: Callable[[Any, Any], Any] | None = speedups.thaw if speedups is not None else None


def speedups_enabled() -> bool:
    """Whether the optional C accelerator is in use (JSON values, base64, instances and ``cb.dumps``' text in C).

    It is built on install where a C compiler is found; without one, or with the environment variable
    ``CONTENTBLOCKS_PURE_PYTHON`` set (at install or at import), the same pure-Python walks run. Results are
    identical either way; only the speed differs.

    >>> import contentblocks as cb
    >>> cb.speedups_enabled() in (True, False)
    True
    """
    return speedups is not None


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


def plain_container(value: Any) -> tuple[int, Any]:
    """``(1, obj)`` for an object, ``(2, seq)`` for an array, ``(0, value)`` for anything else.

    A subclass of ``dict``, ``list`` or ``tuple`` is copied through the base class's own C methods, so none
    of its overrides (``__iter__``, ``__len__``, ``keys``...) runs; only the real type is consulted, never
    ``__class__``.
    """
    t = type(value)
    if t is dict or t is JsonObject:
        return 1, value
    if t is list or t is tuple or t is JsonArray:
        return 2, value
    if issubclass(t, dict):
        return 1, dict(dict.items(value))
    if issubclass(t, list):
        return 2, list(list.__iter__(value))
    if issubclass(t, tuple):
        return 2, list(tuple.__iter__(value))
    return 0, value


def freeze(value: object, path: str, limits: Limits, problems: list[tuple[str, str]], *, extra_depth: int = 0) -> Any:
    """Validate a JSON value and return a read-only copy built of JsonObject and JsonArray.

    Problems are appended to ``problems`` with their paths; the return value is meaningless when any were
    added. The walk uses an explicit stack, checks every container's size before entering it, and stops at
    the depth limit, so cycles and hostile nesting end in a problem, not a RecursionError.

    With the C accelerator, a valid value built of exact built-in types is copied in C; anything else (a
    problem, a subclass) comes back as a miss and takes the Python walk, which words every problem.
    """
    if _c_freeze is not None:
        frozen = _c_freeze(value, limits.max_text_chars, limits.max_depth + extra_depth, limits.max_nodes, MISS)
        if frozen is not MISS:
            return frozen
    kind, value = plain_container(value)
    if kind == 0:
        message = _leaf_problem(value, type(value), limits.max_text_chars)
        if message is not None:
            problems.append((path, message))
        return value
    flat = _freeze_flat(value, kind, limits)
    if flat is not None:
        return flat
    walk = _Walk(limits, problems)
    return _freeze_container(value, kind, path, walk, limits.max_depth + extra_depth)


_isfinite = math.isfinite
_dict_items = dict.items
_dict_keys = dict.keys
_dict_values = dict.values


def _freeze_flat(value: Any, kind: int, limits: Limits) -> Any:  # noqa: C901, PLR0912 - unrolled on purpose
    """The read-only copy of a container that holds only valid scalars, or None to take the full walk.

    Most JSON values in blocks are small, flat objects (tool inputs, metadata): this path checks their keys
    and values without the walk's bookkeeping, gives up at the first nested container or doubtful value, and
    copies the container in one C call. ``value`` is an exact dict, list or tuple (see ``plain_container``).
    """
    if len(value) + 1 > limits.max_nodes:
        return None
    max_chars = limits.max_text_chars
    surrogate = find_surrogate
    if kind == 1:
        for key in _dict_keys(value):
            if type(key) is not str or len(key) > max_chars or (not key.isascii() and surrogate(key)):
                return None
        items = _dict_values(value)
    else:
        items = value
    for item in items:
        t = type(item)
        if t is str:
            if len(item) > max_chars or (not item.isascii() and surrogate(item)):
                return None
        elif t is int:
            if not INT_MIN <= item <= INT_MAX:
                return None
        elif t is float:
            if not _isfinite(item):
                return None
        elif t is not bool and item is not None:
            return None
    if kind == 1:
        out = _new_object(JsonObject)
        _dict_init(out, value)
        return out
    out_list = _new_array(JsonArray)
    _list_init(out_list, value)
    return out_list


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
    new_object, new_array, dict_init, list_init = _new_object, _new_array, _dict_init, _list_init
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
            dict_init(frozen, out)
        else:
            frozen = new_array(JsonArray)
            list_init(frozen, out)
        if not stack:
            return frozen
        parent = stack[-1]
        if parent[2]:
            parent[1][frame[3]] = frozen
        else:
            parent[1].append(frozen)
    return None  # pragma: no cover - the loop returns


def _child_path(path: str, key: object, is_object: bool) -> str:
    if is_object:
        return join_key(path, key)  # type: ignore[arg-type]
    return f"{path}[{key}]"


def thaw(value: Any) -> Any:
    """A plain ``dict``/``list`` deep copy of a JSON value held in a block (scalars are returned as they are).

    Containers are copied at C speed one level at a time, walking with an explicit stack; scalars are
    immutable and shared. A container holding no container is copied in one C call. The C accelerator, when
    built, copies the whole value (this walk remains for values nested deeper than it recurses).
    """
    if _c_thaw is not None:
        thawed = _c_thaw(value, MISS)
        if thawed is not MISS:
            return thawed
    return _thaw_walk(value)


def _thaw_walk(value: Any) -> Any:
    t = type(value)
    if t is JsonObject:
        if _FROZEN_TYPES.isdisjoint(map(type, dict.values(value))):
            return dict(value)
        root: Any = dict(value)
    elif t is JsonArray:
        if _FROZEN_TYPES.isdisjoint(map(type, value)):
            return list(value)
        root = list(value)
    else:
        return value
    stack = [root]
    push = stack.append
    while stack:
        container = stack.pop()
        pairs = container.items() if type(container) is dict else enumerate(container)
        for key, item in pairs:
            t = type(item)
            if t is JsonObject:
                copy: Any = dict(item)
            elif t is JsonArray:
                copy = list(item)
            else:
                continue
            container[key] = copy
            push(copy)
    return root


_FROZEN_TYPES = frozenset({JsonObject, JsonArray})
_key_dumps = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":"), sort_keys=True
).encode


def json_key(value: Any) -> str:
    """A string that is equal for two JSON values exactly when their wire forms are equal.

    ``1``, ``1.0`` and ``true`` get different keys (``==`` in Python says they are equal); object key order
    does not matter. The key of a read-only container is computed once and cached.
    """
    t = type(value)
    if t is JsonObject or t is JsonArray:
        try:
            return value._key  # type: ignore[no-any-return]
        except AttributeError:
            key = _key_dumps(value)
            object.__setattr__(value, "_key", key)
            return key
    return _key_dumps(value)
