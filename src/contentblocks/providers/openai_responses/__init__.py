"""OpenAI Responses API: a conversation as ``instructions`` and ``input`` items, a response as a typed ``Reply``.

A request's ``input`` is a flat list of items. Reading it, ``message`` items of the user, system and developer
roles become one message each; consecutive assistant items (output messages, ``reasoning``, ``function_call``,
the tools OpenAI runs, such as a ``web_search_call``, each a server tool call and its result, and every item type
with no neutral block) become one assistant message; consecutive ``function_call_output`` items become one tool
message. ``instructions`` is the leading system
message. Provider fields with no neutral home are kept in metadata under ``openai/<field>`` and written back
where the request type has that field, so payload -> conversation -> payload is the identity for every item this
adapter reads, and a response's output sent straight back reports no loss at all.

The mapping, the losses with their kinds and the pre-send rules are listed in ``docs/providers/openai_responses.md``.

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_responses
>>> reply = openai_responses.from_response({
...     "id": "resp_1", "model": "gpt-5", "status": "completed",
...     "output": [
...         {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-opaque"},
...         {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather",
...          "arguments": '{"city":"Paris"}', "status": "completed"},
...     ],
...     "usage": {"input_tokens": 12, "output_tokens": 30, "total_tokens": 42},
... })
>>> reply.stop_reason, reply.usage.total_tokens
('tool_use', 42)
>>> [call.tool_call_id for call in reply.message.tool_calls()]
['call_1']
>>> conversation = cb.Conversation(messages=[cb.Message(role="user", content="Weather in Paris?"), reply.message])
>>> answer = cb.ToolResultBlock(tool_call_id="call_1", tool_name="weather", outcome="succeeded",
...                             content=[cb.TextBlock(text="21 °C")])
>>> conversation = conversation.append(cb.Message(role="tool", content=[answer]))
>>> converted = openai_responses.to_provider(conversation, strict=cb.providers.LOSS_KINDS)
>>> [item.get("type") for item in converted.payload["input"]]
['message', 'reasoning', 'function_call', 'function_call_output']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from ..._model._classes import Message, TextBlock
from ..._model._conversation import Conversation
from ..._sealing import Keyring, SealKey
from .._approvals import restore_paths
from .._argument_checks import (
    conversation_argument,
    flag_argument,
    issuer_argument,
    reading_argument,
    strict_argument,
    string_argument,
)
from .._contract import Converted, LossKind, Rejection, Reply
from .._part_breakpoints import OPENAI_RESPONSES, read_markers
from .._provenance import with_provenance
from .._toolkit import fail, field, obj, plain
from .._usage import read_usage
from ._approvals import local_approvals
from ._checks import rejections
from ._fields import ISSUER
from ._read import REQUEST_ITEMS, RESPONSE_ITEMS, read_items
from ._reply import USAGE_COUNTS, stop_reason
from ._request import OpenAIResponsesRequest
from ._write import Writer

__all__ = ["OpenAIResponsesRequest", "from_provider", "from_response", "preflight", "to_provider"]

#: The name a :class:`~contentblocks.providers.Reply` gives this adapter.
PROVIDER = "openai_responses"


def to_provider(
    conversation: Conversation,
    *,
    strict: bool | Iterable[LossKind] = False,
    issuer: str | None = None,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> Converted[OpenAIResponsesRequest]:
    """The ``instructions`` and ``input`` request fields for ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: which loss kinds raise instead of being returned: ``True`` for the content kinds, or the kinds
            named (``LOSS_KINDS`` for every loss).
        issuer: the target for reasoning state (``"openai"`` when not given, or ``"openai/<model family>"``);
            reasoning issued by anyone else is dropped and reported.
        keys: the server's ``cb.SealKey`` or ``cb.Keyring``: provider state (signatures, redacted reasoning,
            provider-run items) is then sent only from messages whose seal verifies, so that its issuer is a
            sealed fact (see ``docs/security.md``). Without keys the recorded issuer is believed, which is
            right only for a history that never left the server.
        context: the context the messages were sealed with (only with ``keys``).

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind (``None`` or raw dicts for the conversation, a string
            for ``strict``), before anything is written; raw dicts go through ``cb.structure(raw, cb.Conversation)``.

    >>> import contentblocks as cb
    >>> conversation = cb.Conversation(messages=[
    ...     cb.Message(role="system", content="Be brief."),
    ...     cb.Message(role="user", content="Hi", metadata={"app/trace": "t1"}),
    ... ])
    >>> converted = to_provider(conversation)
    >>> converted.payload["instructions"], converted.payload["input"][0]["content"]
    ('Be brief.', [{'type': 'input_text', 'text': 'Hi'}])
    >>> [(loss.path, loss.kind) for loss in converted.losses]
    [('$[1].metadata["app/trace"]', 'metadata_not_sent')]
    """
    call = "openai_responses.to_provider"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    writer = Writer(issuer_argument(issuer, call) or ISSUER)
    conversation, rejected = with_provenance(conversation, keys, context, call)
    payload = writer.write(tuple(conversation))
    return writer.losses.finish(cast("OpenAIResponsesRequest", payload), strict=raising, before=rejected)


def from_provider(payload: Mapping[str, Any]) -> Conversation:
    """The conversation held by a request's ``instructions`` and ``input`` fields.

    ``input`` may also be a string (one user message). Item types with no neutral block are kept verbatim as JSON
    blocks flagged ``openai/input_item`` and sent back in place.

    Raises:
        ValidationError: when the payload is malformed, with the path of the item (``$.input[2].call_id``).
    """
    payload = obj(plain(reading_argument(payload, "Responses request fields", "openai_responses.from_provider")), "$")
    head: list[Message] = []
    instructions = field(payload, "instructions", str, "$", optional=True)
    if instructions:  # "" (pydantic-ai sends it) instructs nothing: no message, as no text block is empty
        head.append(Message(role="system", content=(TextBlock(text=instructions),)))
    items = payload.get("input", [])
    if type(items) is str:
        items = [{"role": "user", "content": items}]
    if not isinstance(items, list):
        raise fail("$.input", "expected a list of items or a string")
    return read_markers(read_items(items, head, "$.input", REQUEST_ITEMS), OPENAI_RESPONSES)


def from_response(response: object) -> Reply:
    """What a response says: its assistant message, why it stopped, its usage, model and id.

    ``response`` is the SDK's ``Response`` (or ``ParsedResponse``) itself, or any dict form of it:
    ``model_dump()``, ``model_dump(mode="json")``, ``to_dict()``, ``json.loads(to_json())``. The message is
    ``None`` when the output holds nothing to read. A tool OpenAI ran (a web search, file search, code
    interpreter, image generation or MCP call) is a server tool call and its result, the item kept in the
    result's ``openai/server_item``; output items with no neutral block (computer calls, MCP tool lists, ...) are
    kept in place as JSON blocks flagged ``openai/input_item``. Either way the message sent back is the output
    again. The message's metadata holds nothing about the response itself.

    Raises:
        ValidationError: when the response is malformed, with the path of the output item (``$.output[0].id``).
    """
    raw = obj(plain(reading_argument(response, "a Responses API response", "openai_responses.from_response")), "$")
    output = field(raw, "output", list, "$")
    messages = tuple(read_items(output, [], "$.output", RESPONSE_ITEMS))
    reason, provider_reason = stop_reason(raw, output)
    return Reply(
        message=messages[0] if messages else None,
        stop_reason=reason,
        provider_stop_reason=provider_reason,
        usage=read_usage(raw.get("usage"), USAGE_COUNTS, "$.usage"),
        model=field(raw, "model", str, "$", optional=True),
        response_id=field(raw, "id", str, "$", optional=True),
        provider=PROVIDER,
    )


def preflight(
    conversation: Conversation | Sequence[Message],
    *,
    issuer: str | None = None,
    store: bool = True,
    previous_response_id: str | None = None,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> tuple[Rejection, ...]:
    """What the Responses API would refuse in ``conversation``, before the request is made.

    Args:
        conversation: the conversation to send, or a plain sequence of messages (a history trimmed to a window,
            which a ``Conversation`` would refuse to hold when a result lost its call).
        issuer: the target for reasoning state, as for ``to_provider``.
        store: the request's ``store`` (the API's default is ``True``).
        previous_response_id: the request's ``previous_response_id``: results may then answer calls of that
            stored response.
        keys: as for ``to_provider``: state from a message whose seal does not verify is not sent, so it
            cannot count where a rule needs it.
        context: as for ``to_provider``.

    Returns:
        One :class:`~contentblocks.providers.Rejection` per broken rule (``openai_responses/<rule>``), in order.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="weather", input={})
    >>> question = cb.Message(role="user", content="Hi")
    >>> pending = cb.Conversation(messages=[question, cb.Message(role="assistant", content=[call])])
    >>> [(rejection.path, rejection.rule) for rejection in preflight(pending)]
    [('$[1].content[0]', 'openai_responses/call-needs-output')]
    """
    call = "openai_responses.preflight"
    conversation_argument(conversation, call)
    target = issuer_argument(issuer, call) or ISSUER
    string_argument(previous_response_id, "previous_response_id", call, optional=True)
    store = flag_argument(store, "store", call)
    conversation, _ = with_provenance(conversation, keys, context, call)
    conversation, paths, _ = local_approvals(conversation, target)
    found = rejections(tuple(conversation), target=target, store=store, continued=previous_response_id is not None)
    return tuple(restore_paths(found, paths))
