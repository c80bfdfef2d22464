"""Google Gemini ``generateContent``: a conversation as ``systemInstruction`` and ``contents`` (REST, camelCase).

Reading: ``systemInstruction`` is the leading system message; a ``model`` content is one assistant message;
a ``user`` content is a user message, or a tool message for its ``functionResponse`` parts (a content that
mixes both splits, the later pieces marked ``gemini/same_content`` so they are written back together).

- ``thought: true`` text parts are reasoning blocks; ``thoughtSignature`` (base64 on the wire, kept as that
  text) is the reasoning block's ``signature``, and on any other part (text, function call...) it is kept per
  block in ``gemini/thought_signature``. Either way the issuer is recorded (``gemini``, or
  ``gemini/<model family>`` from a response's ``modelVersion``) and the signature is written only to a
  matching target: otherwise it is dropped and reported. Parallel function calls of one turn stay in one
  content, and only the first call carries a signature.
- ``functionCall.id`` is optional: a call without one gets a stable id (``gemini_call_<content>_<part>``)
  and ``gemini/generated_id``, so writing back omits it again; a response without an id answers the oldest
  open call of its name.
- ``functionResponse.response`` holds ``output`` (success) or ``error`` (the failed outcome): a string is a
  text block, a list of strings one text block each, any other value a JSON block; media in ``parts``
  become file blocks.
- Parts this adapter has no block for (``executableCode``, ``codeExecutionResult``...) are JSON blocks
  tagged ``gemini/part`` and written back as they were.
- Grounding and citation metadata (UTF-8 byte offsets) become citations with code-point spans in
  ``from_response``; requests carry no citations, so ``to_provider`` reports them as lost.

The per-block losses are listed in ``docs/providers/gemini.md``.

>>> import contentblocks as cb
>>> from contentblocks.providers import gemini
>>> conversation = gemini.from_provider({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
>>> conversation[0].content
(TextBlock(text='Hi', citations=(), metadata=JsonObject({})),)
>>> gemini.to_provider(conversation).payload
{'contents': [{'role': 'user', 'parts': [{'text': 'Hi'}]}]}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._messages import Conversation, Message
from ._toolkit import fail, model_family
from ._contract import Converted, LossRecorder
from ._gemini_read import ISSUER, NS, grounding_citations, read_contents
from ._gemini_write import write

__all__ = ["from_provider", "from_response", "to_provider"]


def to_provider(conversation: Conversation, *, strict: bool = False, issuer: str | None = None) -> Converted:
    """The ``systemInstruction`` and ``contents`` request fields for ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: raise ``LossError`` instead of returning losses.
        issuer: the target for thought signatures, ``"gemini"`` or ``"gemini/<model family>"`` (``"gemini"``
            when not given); signatures issued by anyone else are dropped and reported.

    Raises:
        LossError: when ``strict`` and anything would be dropped or degraded.
    """
    rec = LossRecorder()
    payload = write(tuple(conversation), rec, issuer or ISSUER)
    return rec.finish(payload, strict=strict)


def from_provider(payload: Mapping[str, Any]) -> Conversation:
    """The conversation held by a request's ``systemInstruction`` and ``contents``.

    Raises:
        ValidationError: when the payload is malformed.
    """
    if not isinstance(payload, Mapping):
        raise fail("$", "expected an object")
    return Conversation(messages=tuple(read_contents(payload.get("contents", []), payload.get("systemInstruction"))))


def from_response(response: Mapping[str, Any]) -> Message:
    """The first candidate of a ``generateContent`` response as an assistant message, with its citations.

    Signatures are issued by ``gemini/<model family>`` when the response names its ``modelVersion``. The
    candidate's ``finishReason``, the ``modelVersion``, the ``responseId`` and the raw ``groundingMetadata``
    are kept in the message metadata (``gemini/finishReason``...).

    Raises:
        ValidationError: when the response is malformed or has no candidate content.
    """
    if not isinstance(response, Mapping):
        raise fail("$", "expected an object")
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], Mapping):
        raise fail("$.candidates", "expected a non-empty list of candidates")
    candidate = candidates[0]
    version = response.get("modelVersion")
    issuer = f"{ISSUER}/{model_family(version)}" if type(version) is str and version else ISSUER
    content = candidate.get("content")
    if not isinstance(content, Mapping):
        raise fail("$.candidates[0].content", "expected an object")
    messages = read_contents([{**content, "role": "model"}], None, issuer)
    blocks = grounding_citations(list(messages[0].content), candidate)
    meta: dict[str, Any] = {}
    for key in ("finishReason", "groundingMetadata"):
        if key in candidate:
            meta[f"{NS}/{key}"] = candidate[key]
    for key in ("modelVersion", "responseId"):
        if key in response:
            meta[f"{NS}/{key}"] = response[key]
    return Message(role="assistant", content=tuple(blocks), metadata=meta)
