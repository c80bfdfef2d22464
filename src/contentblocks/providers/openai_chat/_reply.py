"""Reading a ChatCompletion (the SDK object or any of its dump forms) into a typed ``Reply``."""

from __future__ import annotations

from typing import Any

from ..._blocks import RefusalBlock
from ..._errors import ValidationError
from ..._messages import Message
from .._contract import Reply, StopReason, Usage
from .._toolkit import build, fail, field, obj, plain, require
from ._keys import CONTENT
from ._read import assistant_content, present

__all__ = ["PROVIDER", "STOP_REASONS", "read_reply"]

PROVIDER = "openai_chat"

#: ``finish_reason`` in the neutral vocabulary. ``stop`` covers both a natural end and a stop sequence (the
#: API does not say which), and a reply whose message holds a refusal stopped because the model declined.
STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}


def _count(raw: dict[str, Any], key: str, path: str) -> int | None:
    value = field(raw, key, int, path, optional=True)
    require(value is None or value >= 0, f"{path}.{key}", "expected a non-negative integer")
    return value  # type: ignore[no-any-return]


def _details(raw: dict[str, Any], key: str, path: str) -> tuple[dict[str, Any], str]:
    return field(raw, key, dict, path, optional=True) or {}, f"{path}.{key}"


def _no_nulls(value: Any) -> Any:
    """``value`` with every ``null`` object member left out, at any depth (``null`` is absent in usage)."""
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    return value


def read_usage(raw: object, path: str = "$.usage") -> Usage | None:
    """The reply's token counts: prompt, completion and total, cached prompt and reasoning tokens, plus raw."""
    if raw is None:
        return None
    usage = obj(plain(raw), path)
    prompt, prompt_path = _details(usage, "prompt_tokens_details", path)
    completion, completion_path = _details(usage, "completion_tokens_details", path)
    counts = {
        "input_tokens": _count(usage, "prompt_tokens", path),
        "output_tokens": _count(usage, "completion_tokens", path),
        "total_tokens": _count(usage, "total_tokens", path),
        "cache_read_tokens": _count(prompt, "cached_tokens", prompt_path),
        "cache_write_tokens": _count(prompt, "cache_write_tokens", prompt_path),
        "reasoning_tokens": _count(completion, "reasoning_tokens", completion_path),
    }
    try:
        return Usage(**counts, raw=_no_nulls(usage))
    except ValidationError as e:  # a value in the usage object that is not JSON (NaN, a lone surrogate)
        raise ValidationError([(path + p[len("$.raw") :], m) for p, m in e.errors], omitted=e.omitted) from None


def _message(raw: dict[str, Any], path: str) -> Message | None:
    """The reply's assistant message, or ``None`` when it holds nothing (no content, refusal or tool call)."""
    require(raw.get("role", "assistant") in {"assistant", None}, f"{path}.role", "expected assistant")
    blocks, metadata = assistant_content(raw, path, {})
    if blocks:
        return build(Message, path, role="assistant", content=blocks, metadata=metadata)
    if leftover := sorted(set(metadata) - {CONTENT}):
        raise fail(path, f"a message with no content cannot hold its other fields ({len(leftover)} of them)")
    return None


def read_reply(response: object, choice: int) -> Reply:
    """A ChatCompletion's choice ``choice`` (or a bare ``ChatCompletionMessage``) as a ``Reply``."""
    raw = obj(plain(response), "$")
    if "choices" not in raw and "role" in raw:  # a ChatCompletionMessage on its own
        return Reply(message=_message(raw, "$"), provider=PROVIDER)
    raw = present(raw)
    choices = field(raw, "choices", list, "$")
    require(0 <= choice < len(choices), "$.choices", f"the response has no choice {choice}")
    path = f"$.choices[{choice}]"
    picked = present(obj(plain(choices[choice]), path))
    message = _message(field(picked, "message", dict, path), f"{path}.message")
    finish = field(picked, "finish_reason", str, path, optional=True)
    stop: StopReason | None = None if finish is None else STOP_REASONS.get(finish, "other")
    if stop == "end_turn" and message is not None and any(isinstance(b, RefusalBlock) for b in message.content):
        stop = "refusal"
    return Reply(
        message=message,
        stop_reason=stop,
        provider_stop_reason=finish,
        usage=read_usage(raw.get("usage")),
        model=field(raw, "model", str, "$", optional=True),
        response_id=field(raw, "id", str, "$", optional=True),
        provider=PROVIDER,
    )
