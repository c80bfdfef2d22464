"""What a server accepts from an untrusted history: :class:`SanitizePolicy` and its presets."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypeAlias, get_args

import attrs

from .._model._classes import Outcome, TextBlock, ToolResultBlock

__all__ = ["UNANSWERED_CALLS", "UNSEALED_ROLES", "SanitizePolicy", "UnansweredCalls", "stand_in_result"]

UnansweredCalls: TypeAlias = Literal["failed", "denied", "interrupted", "drop"]
"""What becomes of a tool call whose result is missing: answered as failed, denied or interrupted, or dropped."""

#: Every choice of :data:`UnansweredCalls`.
UNANSWERED_CALLS: tuple[UnansweredCalls, ...] = get_args(UnansweredCalls)


def stand_in_result(call_id: str, tool_name: str, unanswered: UnansweredCalls, text: str) -> ToolResultBlock:
    """The result answering a call that has none: of the outcome ``unanswered`` names (``failed`` for ``drop``).

    ``text`` says why (``sanitize`` and ``repair`` each have their own words).
    """
    outcome: Outcome = "failed" if unanswered == "drop" else unanswered
    return ToolResultBlock(tool_call_id=call_id, tool_name=tool_name, outcome=outcome, content=[TextBlock(text=text)])

#: The roles an unsealed message may ever have: ``system`` and ``developer`` come from the server alone.
UNSEALED_ROLES = frozenset({"user", "assistant", "tool"})


def _strings(value: Iterable[str]) -> frozenset[str]:
    if isinstance(value, (str, bytes)):
        msg = f"expected a collection of strings, got a {type(value).__name__}"
        raise TypeError(msg)
    items = frozenset(value)
    for item in items:
        if type(item) is not str:
            msg = f"expected strings, got a {type(item).__name__}"
            raise TypeError(msg)
    return items


def _lowered(value: Iterable[str]) -> frozenset[str]:
    return frozenset(item.lower() for item in _strings(value))


def _hosts(value: Iterable[str]) -> frozenset[str]:
    return frozenset(host.lower().rstrip(".") for host in _strings(value))


def _check_roles(_instance: object, _attribute: object, roles: frozenset[str]) -> None:
    if not roles <= UNSEALED_ROLES:
        extra = ", ".join(sorted(roles - UNSEALED_ROLES))
        msg = f"an unsealed message may be user, assistant or tool, never {extra} (those come from the server)"
        raise ValueError(msg)


def _check_size(_instance: object, _attribute: object, size: Any) -> None:
    if type(size) is not int or size < 0:
        msg = "max_inline_bytes must be a non-negative int"
        raise TypeError(msg)


def _check_unanswered(_instance: object, _attribute: object, value: Any) -> None:
    if value not in UNANSWERED_CALLS:
        msg = f"unanswered_calls must be one of {', '.join(map(repr, UNANSWERED_CALLS))}, got {value!r}"
        raise ValueError(msg)


def _check_bool(_instance: object, attribute: Any, value: Any) -> None:
    if type(value) is not bool:
        msg = f"{attribute.name} must be a bool, got {type(value).__name__}"
        raise TypeError(msg)


@attrs.frozen(kw_only=True)
class SanitizePolicy:
    """What :func:`~contentblocks.sanitize` keeps of the messages a client sent that the server did not seal.

    A sealed message (its seal verifies with the server's keys and context) is kept as it is, whatever the
    policy says; everything below is about the other messages. Every field has a safe default; the presets
    :meth:`browser_client` and :meth:`internal_service` name the two common sources.

    Whatever the policy, an unsealed message never keeps a ``system`` or ``developer`` role, provider state
    (reasoning signatures and redacted bytes, JSON blocks flagged as provider-run items), a namespaced metadata
    key (``<provider>/...`` or ``contentblocks/...``), a tool call (no result to it could be believed) or a
    tool result that answers no open call of a sealed assistant message.

    Attributes:
        roles: the roles an unsealed message may have, among ``user``, ``assistant`` and ``tool``; a message
            of any other role is dropped.
        keep_user_metadata: whether the client's own metadata keys (those without a ``/``) are kept.
        url_schemes: the URL schemes a ``url`` file source may use (``https`` alone by default).
        allowed_hosts: hosts (names or IP literals, compared in lower case) a file URL may name even though
            the checks below would refuse them, such as an internal file server.
        private_hosts: whether loopback, private, link-local and other non-global IP literals and local names
            (``localhost``, ``*.internal``, ``*.local``) are allowed; cloud metadata endpoints are refused
            unless listed in ``allowed_hosts``.
        reference_ids: the ids of provider-hosted files (``reference`` sources: ``file-abc``, ``s3://...``) the
            client may name; a reference to any other id is dropped.
        max_inline_bytes: the largest inline (``base64``) file kept, in decoded bytes.
        unanswered_calls: what becomes of a sealed tool call whose result the history held but sanitize refused
            (edited, unsealed where the policy takes no tool turns, or naming another tool): ``"failed"`` (the
            default), ``"denied"`` or ``"interrupted"`` answers it with a result of that outcome saying so, right
            after the tool messages that follow the call; ``"drop"`` removes the call from its message (which then
            loses its seal entry, since it is no longer as sealed). Either way the history stays sendable. A
            sealed call the history holds no result for is left as it is: a pending call of a turn the
            server paused (``pending_tool_calls()`` lists it).

    >>> import contentblocks as cb
    >>> cb.SanitizePolicy.browser_client().roles
    frozenset({'user'})
    >>> cb.SanitizePolicy.browser_client(reference_ids=["file-abc"]).reference_ids
    frozenset({'file-abc'})
    >>> cb.SanitizePolicy(roles=["system"])
    Traceback (most recent call last):
    ValueError: an unsealed message may be user, assistant or tool, never system (those come from the server)

    .. versionadded:: 2026.11.0
    """

    roles: frozenset[str] = attrs.field(converter=_strings, validator=_check_roles)
    keep_user_metadata: bool = attrs.field(default=False, validator=_check_bool)
    url_schemes: frozenset[str] = attrs.field(default=frozenset({"https"}), converter=_lowered)
    allowed_hosts: frozenset[str] = attrs.field(default=frozenset(), converter=_hosts)
    private_hosts: bool = attrs.field(default=False, validator=_check_bool)
    reference_ids: frozenset[str] = attrs.field(default=frozenset(), converter=_strings)
    max_inline_bytes: int = attrs.field(default=5 * 1024 * 1024, validator=_check_size)
    unanswered_calls: UnansweredCalls = attrs.field(default="failed", validator=_check_unanswered)

    @classmethod
    def browser_client(cls, **changes: Any) -> SanitizePolicy:
        """A browser or mobile client: its own user turns only, no metadata of its own, files up to 5 MiB.

        Assistant turns and tool results come back only where the server sealed them. ``changes`` sets fields.
        """
        return cls(**{"roles": frozenset({"user"}), **changes})

    @classmethod
    def internal_service(cls, **changes: Any) -> SanitizePolicy:
        """A trusted service of the same system: user, assistant and tool turns, its metadata, files up to 20 MiB.

        Provider state, system content and tool results that answer no sealed call are still dropped: a
        service that means to replay state seals it. ``changes`` sets fields.
        """
        defaults = {"roles": UNSEALED_ROLES, "keep_user_metadata": True, "max_inline_bytes": 20 * 1024 * 1024}
        return cls(**{**defaults, **changes})
