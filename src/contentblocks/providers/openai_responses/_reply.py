"""What a response says about itself: why it stopped (and, in ``USAGE_COUNTS``, which count is which).

The stop reason comes from ``status`` and ``incomplete_details.reason``; the provider's own value is the more
precise of the two (``"completed"``, ``"max_output_tokens"``, ``"failed"``...):

- ``completed``: ``tool_use`` when the output holds a ``function_call`` or a ``custom_tool_call``, ``refusal``
  when it holds a refusal part and no call, ``end_turn`` otherwise;
- ``incomplete``: ``max_tokens`` for ``max_output_tokens``, ``content_filter`` for ``content_filter``, ``other``
  for any other reason (``max_messages``, ``steered``);
- ``failed``: ``error``; any other status (``cancelled``, ``queued``, ``in_progress``): ``other``;
- no ``status``: ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._contract import StopReason
from .._toolkit import field, obj, require
from .._usage import Count
from ._fields import present

_INCOMPLETE: Mapping[str, StopReason] = {"max_output_tokens": "max_tokens", "content_filter": "content_filter"}
#: The output items that ask the caller to run a tool and send its output back (the function calling guide's
#: function and custom tool calls).
_CALLS = frozenset({"function_call", "custom_tool_call"})


def stop_reason(response: Mapping[str, Any], output: list[Any]) -> tuple[StopReason | None, str | None]:
    """The neutral stop reason of a response and the provider's own value for it.

    >>> stop_reason({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, [])
    ('max_tokens', 'max_output_tokens')
    >>> stop_reason({"status": "completed"}, [{"type": "function_call"}])
    ('tool_use', 'completed')
    """
    status = field(response, "status", str, "$", optional=True)
    if status is None:
        return None, None
    kinds = [item.get("type") for item in output if isinstance(item, Mapping)]
    if status == "completed":
        if not _CALLS.isdisjoint(kinds):
            return "tool_use", status
        refused = any(
            isinstance(part, Mapping) and part.get("type") == "refusal"
            for item in output
            if isinstance(item, Mapping) and item.get("type") == "message"
            for part in item.get("content") or ()
        )
        return ("refusal" if refused else "end_turn"), status
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = present(obj(details, "$.incomplete_details")).get("reason") if details is not None else None
        if reason is None:
            return "other", status
        require(type(reason) is str, "$.incomplete_details.reason", "expected a string")
        return _INCOMPLETE.get(reason, "other"), reason
    return ("error" if status == "failed" else "other"), status


#: The counts of a response's ``usage`` and the ``Usage`` field each fills.
USAGE_COUNTS: Mapping[str, Count] = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "input_tokens_details.cached_tokens": "cache_read_tokens",
    "input_tokens_details.cache_write_tokens": "cache_write_tokens",
    "output_tokens_details.reasoning_tokens": "reasoning_tokens",
    "total_tokens": "total_tokens",
}
