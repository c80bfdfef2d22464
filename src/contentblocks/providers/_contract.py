"""The adapter contract every provider module follows: losses, replies, pre-send rejections and issuers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, Literal, TypeAlias, TypeVar, get_args

import attrs

from .._checks._rules import DEFAULT_LIMITS
from .._errors import ValidationError
from .._json._freeze import freeze_metadata
from .._json._values import JsonObject, json_key
from .._model._classes import Message

__all__ = [
    "AGENT_LOOP_STRICT",
    "CONTENT_LOSSES",
    "ISSUER_KEY",
    "LOSS_KINDS",
    "STOP_REASONS",
    "UNVERIFIED",
    "Converted",
    "EmptyReplyError",
    "Loss",
    "LossError",
    "LossKind",
    "LossRecorder",
    "Rejection",
    "Reply",
    "StopReason",
    "Usage",
    "issued_by",
    "issuer_matches",
    "raising_kinds",
]

#: Metadata key on reasoning blocks (and on any block carrying a provider signature) naming who issued the
#: signature or the redacted/encrypted reasoning: ``"anthropic"``, or ``"gemini/gemini-2.5-pro"`` where the
#: provider ties it to a model family.
ISSUER_KEY = "contentblocks/issuer"

#: The issuer recorded on the state of a message whose seal did not verify: it matches no target.
UNVERIFIED = "contentblocks/unverified"

LossKind: TypeAlias = Literal[
    "content_dropped",
    "content_degraded",
    "metadata_not_sent",
    "state_not_replayed",
    "order_changed",
    "seal_rejected",
    "hint_not_sent",
    "approval_not_sent",
]
"""What a loss did to the conversation.

- ``content_dropped``: content a reader would see (text, a file, a citation, a tool input) is not sent.
- ``content_degraded``: content is sent in another form and reads back differently (a refusal as text, JSON as
  its text, a denied outcome as an error).
- ``metadata_not_sent``: a metadata entry has no place in the target's request and stays local.
- ``state_not_replayed``: provider state (a signature, redacted or encrypted reasoning, an item id) is not sent
  to a target that did not issue it.
- ``order_changed``: everything is sent, in another order (a tool result's files after its output).
- ``seal_rejected``: a message's seal does not verify (the message was edited, sealed for another conversation,
  or sealed with a key the server does not hold), so the message is treated as unsealed; what that drops is
  reported beside it (see ``docs/security.md``).
- ``hint_not_sent``: a hint to the provider (a cache breakpoint) is not sent, or not as given (a time to live
  sent as the nearest the provider has, a breakpoint over the provider's limit): what the model reads is the same,
  only what the provider may cache changes.
- ``approval_not_sent``: an approval request or decision has no place in the target's request and stays local
  (approvals are between a client and its tool runtime; what the model reads is the call and its result).
"""

#: Every loss kind, in the order above.
LOSS_KINDS: tuple[LossKind, ...] = get_args(LossKind)

#: The kinds ``strict=True`` raises on: those that change what a reader of the conversation sees.
CONTENT_LOSSES: frozenset[LossKind] = frozenset({"content_dropped", "content_degraded"})

AGENT_LOOP_STRICT: frozenset[LossKind] = frozenset({"content_dropped"})
"""The strictness for an agent loop: ``to_provider(history, strict=AGENT_LOOP_STRICT)``.

An agent loop sends its history again on every turn, and a history is full of what no provider carries exactly
and nobody loses by: a tool's JSON output goes as its JSON text, a denied call as an error result, and another
provider's ids and state stay behind (``content_degraded``, ``state_not_replayed``). ``strict=True`` raises on the
first of those, so an agent could never run under it. What an agent must not do unaware is send a request with
content gone: a file the provider cannot take, a citation it has no place for. This raises on exactly that;
read ``losses`` for the rest.

>>> import contentblocks as cb
>>> from contentblocks.providers import anthropic
>>> call = cb.ToolCallBlock(tool_call_id="toolu_1", tool_name="lookup", input={})
>>> answer = cb.ToolResultBlock(tool_call_id="toolu_1", tool_name="lookup", outcome="succeeded",
...                             content=[cb.JsonBlock(value={"temperature": 18})])
>>> history = cb.Conversation(messages=[cb.Message(role="user", content="Weather?"),
...     cb.Message(role="assistant", content=[call]), cb.Message(role="tool", content=[answer])])
>>> [loss.kind for loss in anthropic.to_provider(history, strict=AGENT_LOOP_STRICT).losses]
['content_degraded']
"""

StopReason: TypeAlias = Literal[
    "end_turn", "max_tokens", "stop_sequence", "tool_use", "content_filter", "refusal", "pause", "error", "other"
]
"""Why a reply stopped, in words every provider maps to.

- ``end_turn``: the model finished its turn.
- ``max_tokens``: the output limit cut it off.
- ``stop_sequence``: one of the caller's stop sequences matched.
- ``tool_use``: the model asks for tool calls to be run.
- ``content_filter``: the provider's safety system stopped it.
- ``refusal``: the model declined.
- ``pause``: the provider paused a long turn, to be continued by sending it back.
- ``error``: the provider reports a failure for this reply.
- ``other``: a reason the vocabulary has no word for; ``Reply.provider_stop_reason`` says which.
"""

#: Every stop reason, in the order above.
STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)


def _kind(value: object) -> LossKind:
    if value not in LOSS_KINDS:
        msg = f"kind must be one of {', '.join(LOSS_KINDS)}"
        raise ValueError(msg)
    return value


@attrs.frozen
class Loss:
    """One field dropped or degraded when converting: where it was, what happened to it and why, and its kind.

    ``path`` is a JSON path into the neutral conversation, for example ``$[3].content[1].signature``.

    >>> loss = Loss("$[1].content[0]", "Gemini has no refusal part; written as text", "content_degraded")
    >>> print(loss)
    $[1].content[0]: Gemini has no refusal part; written as text
    >>> loss.kind
    'content_degraded'
    """

    path: str
    reason: str
    kind: LossKind = attrs.field(converter=_kind)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


PayloadT = TypeVar("PayloadT")


@attrs.frozen
class Converted(Generic[PayloadT]):
    """The result of ``to_provider``: the provider's request fields and what did not survive the trip.

    ``payload`` is typed as the provider's request shape: ``anthropic.to_provider`` gives a
    ``Converted[AnthropicRequest]``, whose payload unpacks into the SDK's call (``**converted.payload``) and
    type-checks there. It is a plain dict of JSON-ready values at run time.
    """

    payload: PayloadT
    losses: tuple[Loss, ...] = ()


class LossError(ValueError):
    """Raised by ``to_provider(..., strict=...)`` when a loss of a kind ``strict`` names would occur.

    ``losses`` holds the losses that raised; the others are not in it.
    """

    losses: tuple[Loss, ...]

    def __init__(self, losses: Iterable[Loss]) -> None:
        self.losses = tuple(losses)
        lines = [f"{len(self.losses)} field(s) would be lost:"]
        lines.extend(f"  {loss} [{loss.kind}]" for loss in self.losses[:20])
        if len(self.losses) > 20:
            lines.append(f"  ... and {len(self.losses) - 20} more")
        super().__init__("\n".join(lines))


def raising_kinds(strict: bool | Iterable[LossKind]) -> frozenset[LossKind]:
    """The loss kinds that raise for a ``strict=`` argument: none, the content kinds, or the kinds named.

    >>> sorted(raising_kinds(True))
    ['content_degraded', 'content_dropped']
    >>> raising_kinds(False)
    frozenset()
    >>> sorted(raising_kinds(["metadata_not_sent"]))
    ['metadata_not_sent']
    >>> raising_kinds(["lost"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: kind must be one of content_dropped, content_degraded, ...
    """
    if strict is True:
        return CONTENT_LOSSES
    if strict is False:
        return frozenset()
    return frozenset(_kind(kind) for kind in strict)


class LossRecorder:
    """Collects losses while an adapter converts; ``finish`` applies ``strict``."""

    __slots__ = ("losses",)

    def __init__(self) -> None:
        self.losses: list[Loss] = []

    def add(self, path: str, reason: str, kind: LossKind) -> None:
        """Record a loss of ``kind`` at ``path``."""
        self.losses.append(Loss(path, reason, kind))

    def finish(
        self, payload: PayloadT, *, strict: bool | Iterable[LossKind], before: tuple[Loss, ...] = ()
    ) -> Converted[PayloadT]:
        """The payload and its losses (``before`` first); ``LossError`` with those of the kinds ``strict`` names."""
        raising = raising_kinds(strict)
        losses = (*before, *self.losses)
        if fatal := [loss for loss in losses if loss.kind in raising]:
            raise LossError(fatal)
        return Converted(payload, losses)


def _count(value: object) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < 0:
        msg = "token counts are non-negative integers or None"
        raise ValueError(msg)
    return value


def _raw(value: Mapping[str, Any]) -> JsonObject:
    problems: list[tuple[str, str]] = []
    frozen = freeze_metadata(problems, "$.raw", value, DEFAULT_LIMITS)
    if problems:
        raise ValidationError(problems)
    return frozen


@attrs.frozen(kw_only=True)
class Usage:
    """Token counts of one reply, as the provider reports them (``None`` where it reports nothing).

    ``raw`` keeps the provider's own usage object, so a count the fields above do not name is not lost.

    >>> Usage(input_tokens=12, output_tokens=3, total_tokens=15).output_tokens
    3

    Usages add up, count by count, so the usage of an agent loop's replies is their ``sum()``: a count is
    ``None`` in the sum only when it is ``None`` in every term (a provider that reports no cached tokens adds
    nothing to them). The sum's ``raw`` is empty, since the providers' own objects do not add.

    >>> first = Usage(input_tokens=100, output_tokens=20, cache_read_tokens=80, raw={"id": 1})
    >>> second = Usage(input_tokens=130, output_tokens=5, reasoning_tokens=4)
    >>> total = sum([first, second])
    >>> total.input_tokens, total.output_tokens, total.cache_read_tokens, total.reasoning_tokens, total.total_tokens
    (230, 25, 80, 4, None)
    >>> total == first + second, dict(total.raw), sum([], Usage()) == Usage()
    (True, {}, True)

    .. versionchanged:: 2026.12.0
       ``+`` and ``sum()``.
    """

    input_tokens: int | None = attrs.field(default=None, converter=_count)
    output_tokens: int | None = attrs.field(default=None, converter=_count)
    cache_read_tokens: int | None = attrs.field(default=None, converter=_count)
    cache_write_tokens: int | None = attrs.field(default=None, converter=_count)
    reasoning_tokens: int | None = attrs.field(default=None, converter=_count)
    total_tokens: int | None = attrs.field(default=None, converter=_count)
    raw: Mapping[str, Any] = attrs.field(factory=dict, converter=_raw, eq=json_key)

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        counts: dict[str, Any] = {name: _plus(getattr(self, name), getattr(other, name)) for name in _COUNTS}
        return Usage(**counts)

    def __radd__(self, other: object) -> Usage:
        if other == 0 and type(other) is int:  # sum()'s start
            return self + Usage()
        return NotImplemented


_COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
           "total_tokens")


def _plus(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else a + b


@attrs.frozen(kw_only=True)
class Reply:
    """What reading one provider response gives, the same for every provider.

    Attributes:
        message: the assistant message, or ``None`` for a reply with no content.
        stop_reason: why the reply stopped, in the neutral vocabulary (``None`` when the response says nothing).
        provider_stop_reason: the provider's own value for it (``"end_turn"``, ``"STOP"``, ``"length"``...).
        usage: the token counts, or ``None`` when the response has none.
        model: the model that answered, as the response names it.
        response_id: the provider's id of the response.
        provider: who produced it: ``"anthropic"``, ``"openai_chat"``, ``"openai_responses"``, ``"gemini"``
            or ``"mcp"``.

    The message's metadata holds nothing about the response itself (its id, model, usage and stop reason are
    here), so sending ``reply.message`` back to the same provider reports no loss. ``require_message()`` is the
    message typed as a ``Message``, for code that goes on only with one:

    >>> import contentblocks as cb
    >>> Reply(message=cb.Message(role="assistant", content="Hi"), provider="anthropic").require_message().text()
    'Hi'
    >>> Reply(message=None, stop_reason="max_tokens", provider_stop_reason="length", provider="openai_chat",
    ...       response_id="chatcmpl-1").require_message()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    contentblocks.providers.EmptyReplyError: the openai_chat reply chatcmpl-1 has no message (stop reason ...)
    """

    message: Message | None
    stop_reason: StopReason | None = None
    provider_stop_reason: str | None = None
    usage: Usage | None = None
    model: str | None = None
    response_id: str | None = None
    provider: str

    def require_message(self) -> Message:
        """The assistant message, typed ``Message``; ``EmptyReplyError`` when the reply has none.

        A reply without content is a legal answer (a safety stop, a length cut-off before any output, a
        blocked prompt), so ``message`` stays optional; an agent loop that goes on only with a message calls
        this instead of checking for ``None``, and a type checker sees a ``Message``.
        """
        if self.message is None:
            raise EmptyReplyError(self)
        return self.message


class EmptyReplyError(ValueError):
    """Raised by :meth:`Reply.require_message` when the reply holds no message; ``reply`` is that reply.

    It is no ``ValidationError``: the response was read, and it says nothing. Its stop reason says why.
    """

    reply: Reply

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        named = f" {reply.response_id}" if reply.response_id else ""
        why = f"stop reason {reply.stop_reason!r}, the provider's {reply.provider_stop_reason!r}"
        super().__init__(f"the {reply.provider} reply{named} has no message ({why})")

    def __reduce__(self) -> tuple[type[EmptyReplyError], tuple[Reply]]:
        return type(self), (self.reply,)


@attrs.frozen
class Rejection:
    """Something a provider would refuse in a conversation, found before the request is made.

    ``rule`` names the provider's documented rule (each one is listed, with its source, on the provider's docs
    page), ``path`` is where in the conversation it is broken, and ``message`` says how.

    >>> print(Rejection("$[2]", "anthropic/empty-message", "a message carries no content Anthropic accepts"))
    $[2]: a message carries no content Anthropic accepts (anthropic/empty-message)
    """

    path: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} ({self.rule})"


def issuer_matches(recorded: object, target: str) -> bool:
    """Whether reasoning state issued by ``recorded`` may be sent to ``target``.

    Both are ``"provider"`` or ``"provider/model-family"``. They match when equal, or when ``target`` names
    only the provider and ``recorded`` is that provider's (the caller did not say which model it will call).
    An unknown issuer (``None`` or not a string) never matches: state of unknown origin is never replayed.

    >>> issuer_matches("anthropic", "anthropic")
    True
    >>> issuer_matches("gemini/gemini-2.5-pro", "gemini")
    True
    >>> issuer_matches("gemini/gemini-2.5-pro", "gemini/gemini-2.5-flash")
    False
    >>> issuer_matches("anthropic", "openai")
    False
    >>> issuer_matches(None, "anthropic")
    False
    """
    if type(recorded) is not str or not recorded:
        return False
    if recorded == target:
        return True
    return "/" not in target and recorded.split("/", 1)[0] == target


for _public in (Loss, Converted, LossError, Usage, Reply, EmptyReplyError, Rejection):
    _public.__module__ = "contentblocks.providers"


def issued_by(recorded: object) -> str:
    """How a loss reason names the origin of provider state, from its recorded issuer.

    >>> issued_by("openai"), issued_by(None)
    ("issued by 'openai'", 'issued by an unknown issuer')
    >>> issued_by(UNVERIFIED)
    'from a message whose seal did not verify'
    """
    if recorded == UNVERIFIED:
        return "from a message whose seal did not verify"
    return f"issued by {recorded!r}" if type(recorded) is str else "issued by an unknown issuer"
