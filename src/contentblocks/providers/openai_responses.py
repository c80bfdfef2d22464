"""OpenAI Responses API: a conversation as ``instructions`` and ``input`` items, and a response as a message.

A request's ``input`` is a flat list of items. Reading it, ``message`` items of the user, system and
developer roles become one message each; consecutive assistant items (output messages, ``reasoning`` and
``function_call`` items) become one assistant message; consecutive ``function_call_output`` items become
one tool message. ``instructions`` is the leading system message.

Provider-native fields with no neutral home are kept in metadata under ``openai/<field>`` and written back,
so payload → conversation → payload is the identity for every item and part this adapter reads:

- item ids: ``openai/id`` on every block an item produced. Blocks that share an id are written back as one
  item, in place, so a reasoning item stays immediately before the item it produced.
- ``reasoning`` items: a reasoning block per ``summary`` part, then one per ``content`` part
  (``openai/reasoning_part: "content"``); ``encrypted_content`` is the first block's ``signature``, issued by
  ``"openai"`` (``contentblocks/issuer``). An item with nothing visible and no encrypted content (kept
  server-side) becomes a block whose signature is the item id: the handle the issuer needs back. Reasoning
  is written only for an issuer that matches; otherwise it is dropped and reported, never turned into text.
- ``function_call.arguments`` is JSON text: parsed into ``input``. When compact JSON would not reproduce it
  byte for byte, the raw text is kept in ``openai/arguments`` and sent back verbatim while it still says the
  same. Invalid JSON (a model can produce it) is the ``input`` as a raw string, flagged
  ``openai/invalid_arguments`` (as in the OpenAI Chat adapter), and sent back verbatim.
- annotations: URL and file citations become citations (code-point spans); the annotation list is kept in
  ``openai/annotations`` when the citations alone would not rebuild it, and sent back while they still do.

The per-block losses are listed in ``docs/providers/openai_responses.md``.

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_responses
>>> conversation = cb.Conversation(messages=[
...     cb.Message(role="system", content="Be brief."),
...     cb.Message(role="user", content="Hi"),
... ])
>>> payload = openai_responses.to_provider(conversation).payload
>>> payload["instructions"], payload["input"][0]["content"]
('Be brief.', [{'type': 'input_text', 'text': 'Hi'}])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import TextBlock
from .._messages import Conversation, Message
from ._toolkit import fail
from ._contract import Converted, LossRecorder
from ._responses_read import ISSUER, NS, read_items
from ._responses_write import write

__all__ = ["from_provider", "from_response", "to_provider"]

#: Output item types read by ``from_response``; others are kept in the message's ``openai/output`` metadata.
_READ = frozenset({"message", "reasoning", "function_call"})


def to_provider(conversation: Conversation, *, strict: bool = False, issuer: str | None = None) -> Converted:
    """The ``instructions`` and ``input`` request fields for ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: raise ``LossError`` instead of returning losses.
        issuer: the target for reasoning state (``"openai"`` when not given); encrypted reasoning issued by
            anyone else is dropped and reported.

    Raises:
        LossError: when ``strict`` and anything would be dropped or degraded.
    """
    rec = LossRecorder()
    payload = write(tuple(conversation), rec, issuer or ISSUER)
    return rec.finish(payload, strict=strict)


def from_provider(payload: Mapping[str, Any]) -> Conversation:
    """The conversation held by a request's ``instructions`` and ``input`` fields.

    ``input`` may also be a string (one user message).

    Raises:
        ValidationError: when the payload is malformed or holds an item type this adapter does not read.
    """
    if not isinstance(payload, Mapping):
        raise fail("$", "expected an object")
    head: list[Message] = []
    instructions = payload.get("instructions")
    if instructions is not None:
        if type(instructions) is not str:
            raise fail("$.instructions", "expected a string")
        head.append(Message(role="system", content=(TextBlock(text=instructions),)))
    items = payload.get("input", [])
    if type(items) is str:
        items = [{"role": "user", "content": items}]
    if not isinstance(items, list):
        raise fail("$.input", "expected a list of items or a string")
    return read_items(items, head)


def from_response(response: Mapping[str, Any]) -> Message:
    """The assistant message of a response body (its ``output`` items).

    The response ``id`` and ``model`` are kept in the message metadata (``openai/response_id``,
    ``openai/model``); output items of other types (web search calls...) in ``openai/output``.

    Raises:
        ValidationError: when the response is malformed or has no message, reasoning or call in its output.
    """
    if not isinstance(response, Mapping):
        raise fail("$", "expected an object")
    output = response.get("output")
    if not isinstance(output, list):
        raise fail("$.output", "expected a list of output items")
    known = [item for item in output if isinstance(item, Mapping) and item.get("type") in _READ]
    conversation = read_items(known, [])
    if len(conversation) != 1:
        raise fail("$.output", "no assistant output to read")
    meta: dict[str, Any] = {}
    for key, name in (("id", "response_id"), ("model", "model")):
        if key in response:
            meta[f"{NS}/{name}"] = response[key]
    others = [item for item in output if item not in known]
    if others:
        meta[f"{NS}/output"] = others
    return Message(role="assistant", content=conversation[0].content, metadata=meta)
