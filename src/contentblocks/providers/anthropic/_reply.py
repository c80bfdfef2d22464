"""Reading a Messages API response (an ``anthropic.types.Message`` or any of its dict forms) as a ``Reply``."""

from __future__ import annotations

from ..._model._classes import Message
from .._contract import Reply, StopReason
from .._toolkit import build, field, obj, plain, require
from .._usage import Count, read_usage
from ._fields import NS
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

#: The counts a Messages API ``usage`` object documents and the ``Usage`` field each fills (``None``: ``raw`` only).
_COUNTS: dict[str, Count | None] = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_input_tokens": "cache_read_tokens",
    "cache_creation_input_tokens": "cache_write_tokens",
    "output_tokens_details.thinking_tokens": "reasoning_tokens",
    "cache_creation.ephemeral_5m_input_tokens": None,
    "cache_creation.ephemeral_1h_input_tokens": None,
    "server_tool_use.web_search_requests": None,
    "server_tool_use.web_fetch_requests": None,
}


def read_reply(response: object) -> Reply:
    """A Messages API response as a ``Reply``: its content as one assistant message (``None`` when empty).

    Empty text blocks are left out, so content of empty text alone is a reply with no message.
    """
    response = obj(plain(response), "$")
    kind = field(response, "type", str, "$", optional=True)
    require(kind in {None, "message"}, "$.type", "expected message (a Messages API response)")
    role = field(response, "role", str, "$", optional=True)
    require(role in {None, "assistant"}, "$.role", "expected assistant")
    content = field(response, "content", list, "$")
    names: dict[str, str] = {}
    read = (read_block(item, f"$.content[{k}]", names) for k, item in enumerate(content))
    blocks = [block for block in read if block is not None]  # an empty text block is left out
    message = build(Message, "$", role="assistant", content=blocks) if blocks else None
    stop = field(response, "stop_reason", str, "$", optional=True)
    return Reply(
        message=message,
        stop_reason=None if stop is None else STOP_REASONS.get(stop, "other"),
        provider_stop_reason=stop,
        usage=read_usage(response.get("usage"), _COUNTS, "$.usage"),
        model=field(response, "model", str, "$", optional=True),
        response_id=field(response, "id", str, "$", optional=True),
        provider=NS,
    )
