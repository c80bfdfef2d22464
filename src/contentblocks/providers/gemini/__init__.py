"""Google Gemini ``generateContent``: a conversation as ``systemInstruction`` and ``contents``, and replies.

Reading takes what google-genai hands you as it is: its ``GenerateContentResponse`` and ``Content`` objects
and every dict they dump to (``model_dump()``, ``model_dump(mode="json")``, ``to_json_dict()``, with or without
aliases: snake_case and camelCase alike, bytes as ``bytes`` or base64 in either alphabet), and the REST JSON.
An explicit ``null`` is an absent field. A field the adapter does not know is refused with its path, never read
as something else or dropped; part kinds without a block of their own (``executableCode``, ``toolCall``...)
are JSON blocks tagged ``gemini/part`` and go back as they came. Writing gives the REST form (camelCase,
standard base64), which the SDK accepts as well.

- ``thought: true`` text parts are reasoning blocks; ``thoughtSignature`` is the reasoning block's
  ``signature``, and on any other part it is kept in ``gemini/thought_signature``. The issuer is recorded
  (``gemini``, or ``gemini/<model family>`` for a response naming its ``modelVersion``) and a signature goes
  only to a matching target.
- ``functionCall.id`` is optional: a call without one gets a stable id and ``gemini/generated_id``; writing
  omits that id on the call and on every response answering it, and a response without an id answers the
  oldest open call of its name (responses to same-name calls go in the calls' order, so Gemini pairs them so).
- Consecutive tool messages are one content: Gemini takes the answers to one turn's calls together.
- ``functionResponse.response`` holds ``output`` (success) or ``error`` (failure).
- Grounding and citation metadata become citations, issued by Gemini: sending them back reports nothing.
- Google Search grounding and URL context are tools Gemini ran: a server tool call and result after the parts,
  the native object in ``gemini/grounding`` / ``gemini/url_context``; response-only, they send nothing back to Gemini.
- Part fields beside the content (``videoMetadata``, ``partMetadata``...) are kept in ``gemini/<field>`` and
  written back where the request has that field, and only when the value fits it (an allow-list per position);
  any other metadata stays local and is reported as ``metadata_not_sent``.

The losses, the reply mapping and the pre-send rules are listed in ``docs/providers/gemini.md``.

>>> import contentblocks as cb
>>> from contentblocks.providers import gemini
>>> conversation = gemini.from_provider({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
>>> conversation[0].content
(TextBlock(text='Hi', citations=(), cache=None, metadata=JsonObject({})),)
>>> gemini.to_provider(conversation).payload
{'contents': [{'role': 'user', 'parts': [{'text': 'Hi'}]}]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from ..._model._conversation import Conversation
from ..._sealing import Keyring, SealKey
from .._approvals import restore_paths, without_approvals
from .._argument_checks import (
    conversation_argument,
    flag_argument,
    index_argument,
    issuer_argument,
    reading_argument,
    strict_argument,
)
from .._contract import Converted, LossKind, Rejection, Reply
from .._provenance import with_provenance
from .._shapes import canonical, pick
from .._toolkit import fail, obj, plain
from ._checks import check
from ._read import ISSUER, read_contents
from ._reply import read_reply
from ._request import GeminiRequest
from ._wire import CONTENT
from ._write import Writer

__all__ = ["GeminiRequest", "from_provider", "from_response", "preflight", "to_provider"]


def to_provider(
    conversation: Conversation,
    *,
    strict: bool | Iterable[LossKind] = False,
    issuer: str | None = None,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> Converted[GeminiRequest]:
    """The ``systemInstruction`` and ``contents`` request fields for ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: the loss kinds that raise instead of being returned (``True``: the content kinds).
        issuer: the target for thought signatures, ``"gemini"`` or ``"gemini/<model family>"`` (``"gemini"``
            when not given); signatures issued by anyone else are dropped and reported.
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
    >>> from contentblocks.providers import gemini
    >>> reply = cb.Message(role="assistant", content=[cb.RefusalBlock(text="No.")])
    >>> converted = gemini.to_provider(cb.Conversation(messages=[reply]))
    >>> converted.payload["contents"], [loss.kind for loss in converted.losses]
    ([{'role': 'model', 'parts': [{'text': 'No.'}]}], ['content_degraded'])
    """
    call = "gemini.to_provider"
    conversation_argument(conversation, call)
    raising = strict_argument(strict, call)
    writer = Writer(issuer_argument(issuer, call) or ISSUER)
    conversation, rejected = with_provenance(conversation, keys, context, call)
    payload = writer.write(tuple(conversation))
    return writer.losses.finish(cast("GeminiRequest", payload), strict=raising, before=rejected)


def from_provider(payload: Mapping[str, Any] | Sequence[Any]) -> Conversation:
    r"""The conversation held by a request's ``systemInstruction`` and ``contents``.

    ``payload`` is the request (its other fields, such as ``tools`` or ``generationConfig``, are not read) or
    the list of contents alone; each content may be the SDK's ``Content`` object or any dict form of it.

    Raises:
        ValidationError: when the payload is malformed, with the path of the payload's own field.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import gemini
    >>> try:
    ...     gemini.from_provider([{"role": "model", "parts": [{"functionCall": {"name": "f", "arguments": "{}"}}]}])
    ... except cb.ValidationError as e:
    ...     print(*e.errors[0], sep="\n")
    $.contents[0].parts[0].functionCall.arguments
    unknown key (a FunctionCall has: id, args, name, partialArgs, willContinue)
    """
    raw = plain(reading_argument(payload, "Gemini request fields", "gemini.from_provider"))
    if isinstance(raw, list):
        raw = {"contents": raw}
    raw = obj(raw, "$")
    items = pick(raw, "contents")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise fail("$.contents", "expected an array")
    contents = [canonical(plain(c), CONTENT, f"$.contents[{i}]") for i, c in enumerate(items)]
    system = pick(raw, "systemInstruction")
    head = None if system is None else canonical(plain(system), CONTENT, "$.systemInstruction")
    return Conversation(messages=tuple(read_contents(contents, head)))


def from_response(response: object, *, candidate: int = 0) -> Reply:
    """The reply of a ``generateContent`` response: one candidate's message, stop reason, usage, model and id.

    ``response`` is the SDK's ``GenerateContentResponse`` or any dict form of it. The message is ``None`` when
    the candidate has no parts (a safety stop) or there is no candidate (a blocked prompt: the stop reason then
    comes from ``promptFeedback.blockReason``). ``STOP`` with function calls is the ``tool_use`` stop reason.

    Raises:
        ValidationError: when the response is malformed, with the path of the response's own field.

    >>> from contentblocks.providers import gemini
    >>> reply = gemini.from_response({
    ...     "candidates": [{"content": {"role": "model", "parts": [{"text": "Hi!"}]}, "finishReason": "STOP"}],
    ...     "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
    ...     "modelVersion": "gemini-2.5-flash", "responseId": "r-1",
    ... })
    >>> reply.message.content[0].text, reply.stop_reason, reply.usage.total_tokens, reply.model
    ('Hi!', 'end_turn', 5, 'gemini-2.5-flash')
    """
    call = "gemini.from_response"
    index = index_argument(candidate, "candidate", call)
    return read_reply(plain(reading_argument(response, "a generateContent response", call)), index)


def preflight(
    conversation: Conversation,
    *,
    issuer: str | None = None,
    require_signatures: bool = False,
    keys: SealKey | Keyring | None = None,
    context: str | bytes = b"",
) -> tuple[Rejection, ...]:
    """What Gemini would refuse in the request ``to_provider(conversation, issuer=issuer)`` makes, before it is sent.

    Args:
        conversation: the conversation to check.
        issuer: the target, as for ``to_provider`` (which signatures are sent depends on it).
        require_signatures: check the thought signatures Gemini 3 models require on function calls (the first
            call of each step of the current turn); earlier models do not validate them.
        keys: as for ``to_provider``: state from a message whose seal does not verify is not sent, so it
            cannot count where a rule needs it.
        context: as for ``to_provider``.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import gemini
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Paris"})
    >>> history = cb.Conversation(messages=[cb.Message(role="user", content="Paris?"),
    ...                                     cb.Message(role="assistant", content=[call])])
    >>> gemini.preflight(history)
    ()
    >>> [(r.path, r.rule) for r in gemini.preflight(history, require_signatures=True)]
    [('$[1].content[0]', 'gemini/thought-signature')]
    """
    call = "gemini.preflight"
    conversation_argument(conversation, call)
    target = issuer_argument(issuer, call) or ISSUER
    required = flag_argument(require_signatures, "require_signatures", call)
    conversation, _ = with_provenance(conversation, keys, context, call)
    conversation, paths, _ = without_approvals(conversation, "Gemini")
    return tuple(restore_paths(check(tuple(conversation), target, require_signatures=required), paths))
