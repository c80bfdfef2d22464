"""The OpenAI Agents SDK's history (``RunItem`` objects and the input items ``Runner.run`` takes) and a conversation.

What maps where, and every loss, is in the docs page ``bridges/openai_agents``. In short:

- the SDK's history is a list of OpenAI Responses input items (``result.to_input_list()``), so the bridge reads
  and writes them with ``contentblocks.providers.openai_responses``, as a request's ``input`` list: every item
  the adapter reads comes back equal, and the adapter's losses are the bridge's;
- what only the SDK knows is kept as ``openai_agents/`` metadata: the agent a ``RunItem`` came from
  (``openai_agents/agent`` on its message) and a handoff's ends (``openai_agents/handoff`` on its call and
  result). Input items have no place for them, so ``to_items`` reports them as ``metadata_not_sent``.

The SDK is imported on the first call, never when ``contentblocks`` is imported.

>>> import contentblocks as cb
>>> from contentblocks.bridges import openai_agents as bridge
>>> items = bridge.to_items(cb.Conversation(messages=[cb.Message(role="user", content="Hi")])).payload
>>> items
[{'type': 'message', 'role': 'user', 'content': [{'type': 'input_text', 'text': 'Hi'}]}]
>>> bridge.from_items(items)[0].text()
'Hi'
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from ..._errors import ValidationError
from ..._model._conversation import Conversation
from ...providers import openai_responses
from ...providers._argument_checks import conversation_argument, reading_argument, strict_argument
from ...providers._contract import Converted, Loss, LossKind, LossRecorder
from .._shared import require_version
from ._items import NS, annotate, input_item

if TYPE_CHECKING:
    from agents import TResponseInputItem

__all__ = ["SUPPORTED", "from_items", "from_messages", "to_items", "to_messages"]

#: The openai-agents versions the bridge is tested with (the ``openai-agents`` extra pins the same range).
SUPPORTED = ">=0.24,<0.25"
_LOWEST, _BELOW = (0, 24), (0, 25)
_NOT_SENT = "the Agents SDK's input items have no place for what only a RunItem holds; not sent"


@functools.cache
def _sdk() -> Any:
    """The SDK's ``agents.items`` module, once the installed version is checked (on the first call only)."""
    require_version("openai_agents", "openai-agents", SUPPORTED, "openai-agents", _LOWEST, _BELOW)
    return importlib.import_module("agents.items")


def from_items(items: Any) -> Conversation:
    """A conversation from an Agents SDK history: input-item dicts, the SDK's pydantic items, or ``RunItem`` objects.

    ``items`` is what ``result.to_input_list()`` returns (the input of the next ``Runner.run``), or
    ``result.new_items``, or a mix. Each ``RunItem`` is read as its ``to_input_item()``, its agent's name kept as
    ``openai_agents/agent`` on the message it joins (a list of names, in order, when a message holds the items of
    several agents), and a handoff's agents as ``openai_agents/handoff`` on the call and its result. Item types
    with no neutral block (MCP approvals, hosted tool calls, ...) are kept whole as JSON blocks flagged
    ``openai/input_item``, as the Responses adapter keeps them. Like the adapters' readers, this returns the
    conversation itself: nothing is lost.

    Raises:
        ValidationError: when an item is malformed, with its path (``$[2].call_id``), or is a ``ToolApprovalItem``
            (a pending approval, which the SDK itself refuses to turn into input).
        ImportError: when openai-agents is missing, or its version is outside ``SUPPORTED``.

    >>> from contentblocks.bridges import openai_agents as bridge
    >>> conversation = bridge.from_items([
    ...     {"role": "user", "content": "Weather in Paris?"},
    ...     {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Paris"}'},
    ...     {"type": "function_call_output", "call_id": "c1", "output": "18 C"},
    ... ])
    >>> conversation[1].content[0].input, conversation[2].content[0].tool_name
    (JsonObject({'city': 'Paris'}), 'weather')
    """
    sdk = _sdk()
    items = reading_argument(items, "an Agents SDK history", "openai_agents.from_items")
    if not isinstance(items, (list, tuple)):
        raise ValidationError([("$", "expected a list of items")])
    read = [input_item(value, f"$[{i}]", sdk) for i, value in enumerate(items)]
    try:
        conversation = openai_responses.from_provider({"input": [item.raw for item in read]})
    except ValidationError as e:
        raise ValidationError([(path.replace("$.input", "$", 1), message) for path, message in e.errors],
                              omitted=e.omitted) from None  # fmt: skip
    return annotate(conversation, read)


def to_items(
    conversation: Conversation, *, strict: bool | Iterable[LossKind] = False
) -> Converted[list[TResponseInputItem]]:
    """The input items carrying ``conversation`` that ``Runner.run(agent, input=...)`` takes, and what did not survive.

    The items are the Responses adapter's ``input`` (a leading system message, which the adapter would send as
    ``instructions``, is written as a ``system`` message item here, since ``Runner.run`` takes the agent's
    instructions from the agent), and the losses are the adapter's, with its kinds and ``strict=``.

    Raises:
        LossError: when a loss of a kind ``strict`` names would occur.
        TypeError: when an argument is of the wrong kind.
        ImportError: when openai-agents is missing, or its version is outside ``SUPPORTED``.

    >>> import contentblocks as cb
    >>> from contentblocks.bridges import openai_agents as bridge
    >>> result = bridge.to_items(cb.Conversation(messages=[
    ...     cb.Message(role="system", content="Be brief."),
    ...     cb.Message(role="user", content="Hi", metadata={"openai_agents/agent": "Triage"}),
    ... ]))
    >>> result.payload[0]
    {'type': 'message', 'role': 'system', 'content': [{'type': 'input_text', 'text': 'Be brief.'}]}
    >>> [(loss.path, loss.kind) for loss in result.losses]
    [('$[1].metadata["openai_agents/agent"]', 'metadata_not_sent')]
    """
    call = "openai_agents.to_items"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    _sdk()
    converted = openai_responses.to_provider(conversation)
    payload = converted.payload
    head = []
    if "instructions" in payload:  # as the adapter writes a system message it must keep in place
        text = {"type": "input_text", "text": payload["instructions"]}
        head.append({"type": "message", "role": "system", "content": [text]})
    # the adapter's losses as they are (a history carries thousands), but this bridge's own keys, said in its words
    losses = tuple(Loss(loss.path, _NOT_SENT, loss.kind) if loss.kind == "metadata_not_sent" and f'["{NS}/' in loss.path
                   else loss for loss in converted.losses)  # fmt: skip
    items = cast("list[TResponseInputItem]", head + list(payload["input"]))
    return LossRecorder().finish(items, strict=raising, before=losses)


#: The verbs every bridge has: ``from_messages`` is ``from_items``, ``to_messages`` is ``to_items``.
from_messages = from_items
to_messages = to_items
