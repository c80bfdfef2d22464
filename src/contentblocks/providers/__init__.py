"""Provider adapters: move a conversation to and from a provider's own wire format, reporting every loss.

Each provider is a module with the same verbs:

- ``to_provider(conversation, *, strict=False, issuer=None) -> Converted``: the request fields that carry
  the conversation, as plain JSON-ready dicts typed as the provider's request (``Converted[AnthropicRequest]``),
  and every field dropped or degraded on the way.
- ``from_provider(payload) -> Conversation``: the same request fields read back.
- ``from_response(response) -> Reply``: a response (the SDK object or any dict of it) as a typed reply;
  ``reply.require_message()`` is its message, typed ``Message``.

Arguments from the caller's code of the wrong kind raise ``TypeError`` before any work; provider data of any
shape that cannot be read raises ``ValidationError`` with its path.

Nothing here sends a request: the adapters build and read payloads only, and no provider SDK is needed.
"""

from __future__ import annotations

from ._contract import (
    AGENT_LOOP_STRICT,
    CONTENT_LOSSES,
    ISSUER_KEY,
    LOSS_KINDS,
    STOP_REASONS,
    Converted,
    EmptyReplyError,
    Loss,
    LossError,
    LossKind,
    Rejection,
    Reply,
    StopReason,
    Usage,
    issuer_matches,
)

__all__ = [
    "AGENT_LOOP_STRICT",
    "CONTENT_LOSSES",
    "ISSUER_KEY",
    "LOSS_KINDS",
    "STOP_REASONS",
    "Converted",
    "EmptyReplyError",
    "Loss",
    "LossError",
    "LossKind",
    "Rejection",
    "Reply",
    "StopReason",
    "Usage",
    "issuer_matches",
]
