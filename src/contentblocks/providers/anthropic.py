"""Anthropic Messages API: conversations to and from the ``system`` and ``messages`` request fields.

What maps where, and every degradation, is in the docs page ``providers/anthropic``. In short:

- system and developer messages become the top-level ``system`` prompt; tool messages become user messages
  carrying ``tool_result`` blocks (``is_error`` for failed and denied outcomes);
- native fields with no neutral home (``cache_control``, document ``title``, a citation's coordinates...) are
  kept in metadata as ``anthropic/<field>`` and written back verbatim;
- ``thinking`` signatures and ``redacted_thinking`` data are marked as issued by ``"anthropic"`` and sent back
  only to Anthropic; ``redacted_thinking.data`` is held as its UTF-8 bytes in ``ReasoningBlock.redacted``;
- Anthropic blocks with no neutral equivalent (server tool use, search results...) are kept verbatim as JSON
  blocks flagged ``anthropic/native_block``.

>>> import contentblocks as cb
>>> from contentblocks.providers import anthropic
>>> conversation = cb.Conversation(messages=[
...     cb.Message(role="system", content="Be brief."),
...     cb.Message(role="user", content="Hi"),
... ])
>>> payload = anthropic.to_provider(conversation).payload
>>> payload["system"]
[{'type': 'text', 'text': 'Be brief.'}]
>>> payload["messages"]
[{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}]
"""

from __future__ import annotations

from typing import Any

from .._messages import Conversation, Message
from ._anthropic_read import read_conversation, read_response
from ._anthropic_write import write_conversation
from ._contract import Converted

__all__ = ["ISSUER", "from_provider", "from_response", "to_provider"]

#: The issuer recorded on reasoning read from Anthropic, and the default target issuer of ``to_provider``.
#: Anthropic does not tie signatures to a model, so the provider name alone is recorded.
ISSUER = "anthropic"


def to_provider(conversation: Conversation, *, strict: bool = False, issuer: str | None = None) -> Converted:
    """The ``system`` and ``messages`` request fields carrying ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: raise ``LossError`` instead of returning losses.
        issuer: who may receive reasoning signatures and redacted reasoning (``"anthropic"`` by default);
            reasoning issued by anyone else is dropped and reported.

    Returns:
        ``Converted(payload, losses)``: ``payload`` holds ``messages`` and, when there are instructions,
        ``system``, as plain JSON-ready values.

    Raises:
        LossError: with ``strict=True``, when anything would be dropped or degraded.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import anthropic
    >>> thought = cb.ReasoningBlock(text="Let me think", signature="sig", metadata={"contentblocks/issuer": "openai"})
    >>> result = anthropic.to_provider(cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Hi"),
    ...     cb.Message(role="assistant", content=[thought, cb.TextBlock(text="Hello")]),
    ... ]))
    >>> result.payload["messages"][1]
    {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Hello'}]}
    >>> print(result.losses[0])
    $[1].content[0]: reasoning state issued by 'openai' is only sent back to it, not to 'anthropic'; dropped
    """
    payload, recorder = write_conversation(conversation, ISSUER if issuer is None else issuer)
    return recorder.finish(payload, strict=strict)


def from_provider(payload: dict[str, Any]) -> Conversation:
    """A conversation from Anthropic request fields (``system`` and ``messages``; other fields are ignored).

    A user message mixing ``tool_result`` blocks with other content is split into a tool message and a user
    message; the second part is flagged ``anthropic/same_message`` so ``to_provider`` joins them again.

    Raises:
        ValidationError: when the payload is not Anthropic's shape or holds an invalid value, with the path
            into the payload.

    >>> from contentblocks.providers import anthropic
    >>> conversation = anthropic.from_provider({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    >>> [message.role for message in conversation]
    ['system', 'user']
    """
    return read_conversation(payload)


def from_response(response: dict[str, Any]) -> Message:
    """One assistant message from a Messages API response body.

    ``id``, ``model``, ``stop_reason``, ``stop_sequence`` (when set) and ``usage`` are kept in the message
    metadata as ``anthropic/<field>``; they describe the response, so ``to_provider`` neither sends nor
    reports them.

    >>> from contentblocks.providers import anthropic
    >>> message = anthropic.from_response({
    ...     "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    ...     "content": [{"type": "text", "text": "Hello!"}], "stop_reason": "end_turn", "stop_sequence": None,
    ...     "usage": {"input_tokens": 5, "output_tokens": 2},
    ... })
    >>> message.content[0].text, message.metadata["anthropic/stop_reason"]
    ('Hello!', 'end_turn')
    """
    return read_response(response)
