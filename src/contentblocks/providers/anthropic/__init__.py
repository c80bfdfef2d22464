"""Anthropic Messages API: conversations to and from the ``system`` and ``messages`` request fields, and replies.

What maps where, and every degradation, is in the docs page ``providers/anthropic``. In short:

- system and developer messages become the top-level ``system`` prompt; tool messages become user messages
  carrying ``tool_result`` blocks (``is_error`` for failed and denied outcomes);
- native fields with no neutral home (``cache_control``, document ``title``, a citation's coordinates...) are
  kept in metadata as ``anthropic/<field>``; only the fields the request type has at that position, with the
  shape it gives them, are written back (``EXTRAS`` in ``_fields``): any other metadata stays local and is
  reported;
- ``thinking`` signatures and ``redacted_thinking`` data are marked as issued by ``"anthropic"`` and sent back
  only to Anthropic; ``redacted_thinking.data`` is held as its UTF-8 bytes in ``ReasoningBlock.redacted``;
- Anthropic blocks with no neutral equivalent (server tool use, search results...) are kept verbatim as JSON
  blocks flagged ``anthropic/native_block``.

Every reading function takes the SDK's own objects (``anthropic.types.Message``, its content blocks) as well as
every dict form they dump to; the SDK is never imported.

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

from collections.abc import Iterable
from typing import Any, cast

from ..._model._conversation import Conversation
from ..._sealing import Keyring, SealKey
from .._argument_checks import conversation_argument, flag_argument, issuer_argument, reading_argument, strict_argument
from .._contract import Converted, LossKind, Rejection, Reply
from .._provenance import with_provenance
from ._checks import RULES, check
from ._read import read_conversation
from ._reply import read_reply
from ._request import (
    AnthropicAssistantMessage,
    AnthropicMessage,
    AnthropicRequest,
    AnthropicSystemBlock,
    AnthropicSystemMessage,
    AnthropicUserMessage,
)
from ._write import write_conversation

__all__ = [
    "ISSUER",
    "RULES",
    "AnthropicAssistantMessage",
    "AnthropicMessage",
    "AnthropicRequest",
    "AnthropicSystemBlock",
    "AnthropicSystemMessage",
    "AnthropicUserMessage",
    "from_provider",
    "from_response",
    "preflight",
    "to_provider",
]

#: The issuer recorded on reasoning read from Anthropic, and the default target issuer of ``to_provider``.
#: Anthropic does not tie signatures to a model, so the provider name alone is recorded.
ISSUER = "anthropic"


def to_provider(
    conversation: Conversation,
    *,
    strict: bool | Iterable[LossKind] = False,
    issuer: str | None = None,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> Converted[AnthropicRequest]:
    """The ``system`` and ``messages`` request fields carrying ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: which loss kinds raise ``LossError`` instead of being returned: ``True`` for the content kinds
            (``content_dropped``, ``content_degraded``), or the kinds named.
        issuer: who may receive reasoning signatures and redacted reasoning (``"anthropic"`` by default);
            reasoning issued by anyone else is dropped and reported.
        keys: the server's ``cb.SealKey`` or ``cb.Keyring``: provider state (signatures, redacted reasoning,
            provider-run items) is then sent only from messages whose seal verifies, so that its issuer is a
            sealed fact (see ``docs/security.md``). Without keys the recorded issuer is believed, which is
            right only for a history that never left the server.
        context: the context the messages were sealed with (only with ``keys``).

    Returns:
        ``Converted(payload, losses)``: ``payload`` holds ``messages`` and, when there are instructions,
        ``system``, as plain JSON-ready values.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind (``None`` or raw dicts for the conversation, a string
            for ``strict``), before anything is written; raw dicts go through ``cb.structure(raw, cb.Conversation)``.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import anthropic
    >>> thought = cb.ReasoningBlock(text="Let me think", signature="sig", metadata={"contentblocks/issuer": "openai"})
    >>> result = anthropic.to_provider(cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Hi", metadata={"app/latency_ms": 12}),
    ...     cb.Message(role="assistant", content=[thought, cb.TextBlock(text="Hello")]),
    ... ]))
    >>> result.payload["messages"][1]
    {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Hello'}]}
    >>> [(loss.kind, loss.path) for loss in result.losses]
    [('metadata_not_sent', '$[0].metadata["app/latency_ms"]'), ('state_not_replayed', '$[1].content[0]')]
    >>> print(result.losses[1].reason)
    reasoning state issued by 'openai' is sent back only to its issuer, not to 'anthropic'; dropped
    """
    call = "anthropic.to_provider"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    target = issuer_argument(issuer, call)
    conversation, rejected = with_provenance(conversation, keys, context, call)
    written = write_conversation(conversation, ISSUER if target is None else target)
    return written.losses.finish(cast("AnthropicRequest", written.payload), strict=raising, before=rejected)


def from_provider(payload: Any) -> Conversation:
    """A conversation from Anthropic request fields (``system`` and ``messages``; other fields are ignored).

    A user message mixing ``tool_result`` blocks with other content is split into a tool message and a user
    message; the second part is flagged ``anthropic/same_message`` so ``to_provider`` joins them again. A
    ``"role": "system"`` message inside ``messages`` becomes a system message flagged ``anthropic/in_messages``
    and is written back in place. Content blocks may be the SDK's response objects (``response.content``).

    Raises:
        ValidationError: when the payload is not Anthropic's shape or holds an invalid value, with the path
            into the payload.

    >>> from contentblocks.providers import anthropic
    >>> conversation = anthropic.from_provider({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    >>> [message.role for message in conversation]
    ['system', 'user']
    """
    return read_conversation(reading_argument(payload, "Anthropic request fields", "anthropic.from_provider"))


def from_response(response: Any) -> Reply:
    """A Messages API response as a ``Reply``: the assistant message, stop reason, usage, model and id.

    ``response`` is an ``anthropic.types.Message`` or any dict form of one (``model_dump()``,
    ``model_dump(mode="json")``, ``to_dict()``, ``json.loads(to_json())``); all read the same. An empty
    ``content`` gives ``message=None``. The message carries no metadata about the response, so sending it back
    to Anthropic reports no loss. ``stop_sequence``, ``stop_details``, ``container`` and ``diagnostics`` are not
    kept (read them from the response itself).

    Raises:
        ValidationError: when the response is not a Messages API response, with the path into it.

    >>> from contentblocks.providers import anthropic
    >>> reply = anthropic.from_response({
    ...     "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    ...     "content": [{"type": "text", "text": "Hello!", "citations": None}], "stop_reason": "end_turn",
    ...     "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 3},
    ... })
    >>> reply.message.content[0].text, reply.stop_reason, reply.usage.cache_read_tokens, reply.response_id
    ('Hello!', 'end_turn', 3, 'msg_1')
    >>> anthropic.from_response({"type": "message", "role": "assistant", "content": []}).message is None
    True
    """
    return read_reply(reading_argument(response, "a Messages API response", "anthropic.from_response"))


def preflight(
    conversation: Conversation,
    *,
    thinking: bool = False,
    issuer: str | None = None,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> tuple[Rejection, ...]:
    """What the Messages API would refuse in the request ``to_provider(conversation, issuer=issuer)`` writes.

    Args:
        conversation: the conversation about to be sent.
        thinking: whether the request turns extended thinking on: the last assistant turn, when it calls a tool,
            must then start with its (unmodified) thinking block.
        issuer: as for ``to_provider``: reasoning another issuer produced is not sent, and so cannot count as
            the thinking block a tool call needs.
        keys: as for ``to_provider``: state from a message whose seal does not verify is not sent, so it
            cannot count where a rule needs it.
        context: as for ``to_provider``.

    Returns:
        One ``Rejection`` per problem, each naming its rule (``RULES`` lists them; the docs page gives the
        source of each) and the path of the block in ``conversation``; ``()`` when nothing is refused.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import anthropic
    >>> call = cb.ToolCallBlock(tool_call_id="toolu_1", tool_name="get_weather", input={"city": "Paris"})
    >>> result = cb.ToolResultBlock(tool_call_id="toolu_1", tool_name="get_weather", outcome="succeeded",
    ...                             content=[cb.TextBlock(text="15 C")])
    >>> history = cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Weather in Paris?"),
    ...     cb.Message(role="assistant", content=[call]),
    ...     cb.Message(role="user", content="Quick, please."),
    ...     cb.Message(role="tool", content=[result]),
    ... ])
    >>> for rejection in anthropic.preflight(history):
    ...     print(rejection)
    $[3].content[0]: tool results must come first in their turn, before any other block (anthropic/tool-results-first)
    """
    call = "anthropic.preflight"
    conversation_argument(conversation, call)
    target = issuer_argument(issuer, call)
    conversation, _ = with_provenance(conversation, keys, context, call)
    written = write_conversation(conversation, ISSUER if target is None else target)
    return check(written, thinking=flag_argument(thinking, "thinking", call))
