"""Reading a Messages API response (an ``anthropic.types.Message`` or any of its dict forms) as a ``Reply``."""

from __future__ import annotations

from typing import Any

from ..._errors import ValidationError
from ..._messages import Message
from .._contract import Reply, StopReason, Usage
from .._toolkit import build, field, obj, plain, require
from ._fields import NS, absent_nulls
from ._read import read_block

__all__ = ["STOP_REASONS", "read_reply"]

#: Anthropic's stop reasons in the neutral vocabulary; a value not listed here reads as ``"other"`` (its own
#: value stays in ``Reply.provider_stop_reason``). ``model_context_window_exceeded`` is a cut-off like
#: ``max_tokens``: the reply is valid but incomplete.
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause",
    "refusal": "refusal",
}

_COUNTS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_input_tokens": "cache_read_tokens",
    "cache_creation_input_tokens": "cache_write_tokens",
}


def _count(raw: dict[str, Any], key: str, path: str) -> int | None:
    value = field(raw, key, int, path, optional=True)
    require(value is None or value >= 0, f"{path}.{key}", "expected a non-negative integer")
    return value  # type: ignore[no-any-return]


def _usage(response: dict[str, Any]) -> Usage | None:
    """Token counts as Anthropic reports them, and the whole usage object (nulls left out) as ``raw``."""
    raw = field(response, "usage", dict, "$", optional=True)
    if raw is None:
        return None
    raw = absent_nulls(raw)
    counts = {ours: _count(raw, theirs, "$.usage") for theirs, ours in _COUNTS.items()}
    details = field(raw, "output_tokens_details", dict, "$.usage", optional=True) or {}
    reasoning = _count(details, "thinking_tokens", "$.usage.output_tokens_details")
    try:
        return Usage(**counts, reasoning_tokens=reasoning, raw=raw)
    except ValidationError as e:  # a value in the usage object that is not JSON (NaN, a lone surrogate)
        raise ValidationError([("$.usage" + p[len("$.raw") :], m) for p, m in e.errors], omitted=e.omitted) from None


def read_reply(response: object) -> Reply:
    """A Messages API response as a ``Reply``: its content as one assistant message (``None`` when empty)."""
    response = obj(plain(response), "$")
    kind = field(response, "type", str, "$", optional=True)
    require(kind in {None, "message"}, "$.type", "expected message (a Messages API response)")
    role = field(response, "role", str, "$", optional=True)
    require(role in {None, "assistant"}, "$.role", "expected assistant")
    content = field(response, "content", list, "$")
    blocks = [read_block(item, f"$.content[{k}]") for k, item in enumerate(content)]
    message = build(Message, "$", role="assistant", content=blocks) if blocks else None
    stop = field(response, "stop_reason", str, "$", optional=True)
    return Reply(
        message=message,
        stop_reason=None if stop is None else STOP_REASONS.get(stop, "other"),
        provider_stop_reason=stop,
        usage=_usage(response),
        model=field(response, "model", str, "$", optional=True),
        response_id=field(response, "id", str, "$", optional=True),
        provider=NS,
    )
