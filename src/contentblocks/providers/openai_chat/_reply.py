"""Reading a ChatCompletion (the SDK object or any of its dump forms) into a typed ``Reply``."""

from __future__ import annotations

from typing import Any

from ..._model._classes import Message, RefusalBlock
from .._contract import Reply, StopReason, Usage
from .._toolkit import build, fail, field, obj, plain, present, require
from .._usage import Count, read_usage
from ._dialects import Dialect
from ._keys import CONTENT, NS
from ._read import assistant_content

__all__ = ["PROVIDER", "STOP_REASONS", "read_chat_usage", "read_reply"]

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


#: The counts a ChatCompletion's ``usage`` documents and the ``Usage`` field each fills (``None``: ``raw`` only).
_COUNTS: dict[str, Count | None] = {
    "prompt_tokens": "input_tokens",
    "completion_tokens": "output_tokens",
    "total_tokens": "total_tokens",
    "prompt_tokens_details.cached_tokens": "cache_read_tokens",
    "prompt_tokens_details.cache_write_tokens": "cache_write_tokens",
    "completion_tokens_details.reasoning_tokens": "reasoning_tokens",
    "completion_tokens_details.accepted_prediction_tokens": None,
    "completion_tokens_details.audio_tokens": None,
    "completion_tokens_details.rejected_prediction_tokens": None,
    "completion_tokens_details.text_tokens": None,
    "prompt_tokens_details.audio_tokens": None,
    "prompt_tokens_details.image_tokens": None,
    "prompt_tokens_details.text_tokens": None,
}


def read_chat_usage(raw: object, path: str) -> Usage | None:
    """A ChatCompletion's (or a chunk's) ``usage``, read at ``path`` (see ``read_usage``)."""
    return read_usage(raw, _COUNTS, path)


#: What an empty reply's message may hold beside nothing: ``content: ""``, ``refusal: ""``, ``annotations: []`` and
#: an empty reasoning field (a reply cut by the length limit or the content filter before a word), so nothing is lost.
_EMPTY: dict[str, tuple[Any, ...]] = {
    CONTENT: ("", []),
    f"{NS}/refusal": ("",),
    f"{NS}/annotations": ([],),
    f"{NS}/reasoning_content": ("",),  # an OpenAI-compatible server's empty reasoning, in any dialect
    f"{NS}/reasoning": ("",),
    f"{NS}/reasoning_details": ([],),
}


def _message(raw: dict[str, Any], path: str, dialect: Dialect) -> Message | None:
    """The reply's assistant message, or ``None`` when it holds nothing (no content, refusal or tool call).

    A message with no blocks may still carry empty fields (``_EMPTY``); any other field (audio with no
    transcript, a field the adapter does not know) would be lost with it, so it is refused by name.
    """
    require(raw.get("role", "assistant") in ("assistant", None), f"{path}.role", "expected assistant")
    blocks, metadata = assistant_content(raw, path, {}, dialect)
    if blocks:
        return build(Message, path, role="assistant", content=blocks, metadata=metadata)
    if leftover := sorted(key for key, value in metadata.items() if value not in _EMPTY.get(key, ())):
        raise fail(path, f"a message with no content cannot hold its other fields ({len(leftover)} of them)")
    return None


def read_reply(response: object, choice: int, dialect: Dialect) -> Reply:
    """A ChatCompletion's choice ``choice`` (or a bare ``ChatCompletionMessage``) as a ``Reply`` in ``dialect``."""
    raw = obj(plain(response), "$")
    if "choices" not in raw and "role" in raw:  # a ChatCompletionMessage on its own
        return Reply(message=_message(raw, "$", dialect), provider=PROVIDER)
    raw = present(raw)
    choices = field(raw, "choices", list, "$")
    require(0 <= choice < len(choices), "$.choices", f"the response has no choice {choice}")
    path = f"$.choices[{choice}]"
    picked = present(obj(plain(choices[choice]), path))
    message = _message(field(picked, "message", dict, path), f"{path}.message", dialect)
    finish = field(picked, "finish_reason", str, path, optional=True)
    stop: StopReason | None = None if finish is None else STOP_REASONS.get(finish, "other")
    if stop == "end_turn" and message is not None and any(isinstance(b, RefusalBlock) for b in message.content):
        stop = "refusal"
    return Reply(
        message=message,
        stop_reason=stop,
        provider_stop_reason=finish,
        usage=read_chat_usage(raw.get("usage"), "$.usage"),
        model=field(raw, "model", str, "$", optional=True),
        response_id=field(raw, "id", str, "$", optional=True),
        provider=PROVIDER,
    )
