r"""A function call's ``args`` that the wire format cannot hold, kept as their JSON text and sent back verbatim.

``functionCall.args`` is a JSON object, and Gemini may put in it what a neutral JSON value refuses: an integer
beyond 64 bits (a 30-digit order number) or, from a dict built in Python, a non-finite number. Refusing the
reply for it would end an agent's run on one odd token, so the call's input is then the args' compact JSON text
(``Infinity`` and ``NaN`` as Python's ``json`` writes them), flagged ``openai/invalid_arguments`` as every
adapter flags arguments that are not a JSON value: other providers get the text as it is, and Gemini gets the
object back, parsed from that text.

>>> text, flags = raw_input({"number": 123456789012345678901234567890})
>>> text, flags
('{"number":123456789012345678901234567890}', {'openai/invalid_arguments': True})
>>> sent_args(text, flags)
{'number': 123456789012345678901234567890}
>>> raw_input({"nested": [{"n": 1}]}) is None
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..._rules import DEFAULT_LIMITS

__all__ = ["RAW_ARGS", "raw_input", "sent_args"]

#: The flag of a call whose input is the raw text of its arguments (the OpenAI Chat adapter's name for it, which
#: every writer knows).
RAW_ARGS = "openai/invalid_arguments"

_LOW, _HIGH = -(2**63), 2**64 - 1


def _beyond(args: Mapping[str, Any]) -> bool:
    """Whether ``args`` holds a number the wire format refuses, and is otherwise shallow enough to write out.

    The walk uses an explicit stack bounded by the depth limit: a value nested deeper (or a cycle) is left for
    the block to refuse.
    """
    found = False
    stack: list[tuple[Any, int]] = [(args, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (Mapping, list, tuple)):
            if depth >= DEFAULT_LIMITS.max_depth:
                return False
            items = value.values() if isinstance(value, Mapping) else value
            stack.extend((item, depth + 1) for item in items)
        elif type(value) is int:
            found = found or not _LOW <= value <= _HIGH
        elif type(value) is float:
            found = found or not math.isfinite(value)
    return found


def raw_input(args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The input and flags for ``args`` holding a number the wire format refuses; ``None`` when they hold none."""
    if not _beyond(args):
        return None
    return json.dumps(args, ensure_ascii=False, separators=(",", ":")), {RAW_ARGS: True}


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = {key for key, _ in pairs}
    if len(keys) != len(pairs):
        msg = "duplicate key"
        raise ValueError(msg)
    return dict(pairs)


def sent_args(value: object, metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``args`` object for a call whose input is flagged raw text, or ``None`` when the text holds none.

    The text is parsed as Python's ``json`` reads it (integers of any size, ``Infinity``), duplicate keys refused.
    """
    if metadata.get(RAW_ARGS) is not True or type(value) is not str:
        return None
    try:
        parsed = json.loads(value, object_pairs_hook=_unique)
    except (ValueError, RecursionError):
        return None
    return parsed if type(parsed) is dict else None
