"""Approvals: the model asks before a tool runs, and the client answers.

A tool may need a person's (or a policy's) consent before it runs. The assistant turn that makes the call also
holds an :class:`ApprovalRequestBlock` naming it; a later user or tool message holds the
:class:`ApprovalResponseBlock` that approves or denies it. Until then the call waits: an agent loop must not
run it, and :meth:`Conversation.pending_tool_calls` leaves it out (:meth:`Conversation.pending_approvals` lists
what waits). A denied call is answered by a tool result whose outcome is ``denied``. The pairing rules (a
request names a call of its own message, a response answers one earlier request) are checked with the tool
pairing of the conversation, in ``_growth``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .._checks._instances import resolve_annotations
from .._checks._rules import FLAG, FREE_TEXT, IDENTIFIER, ONE_OF
from ._values import CacheBreakpoint, Value, metadata_field, ruled

__all__ = ["ApprovalRequestBlock", "ApprovalResponseBlock"]


@attrs.frozen(kw_only=True)
class ApprovalRequestBlock(Value):
    """The model asks for approval before the call ``tool_call_id`` of the same message runs.

    ``approval_id`` names the request, so that a response can answer it; it is unique in a conversation. The
    call may be one the client runs (a tool call) or one the provider would run (a server tool call, such as a
    remote MCP call).

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="delete_file", input={"path": "a.txt"})
    >>> ask = cb.ApprovalRequestBlock(approval_id="ap_1", tool_call_id="c1")
    >>> history = cb.Conversation(messages=[cb.Message(role="assistant", content=[call, ask])])
    >>> [a.approval_id for a in history.pending_approvals()], history.pending_tool_calls()
    (['ap_1'], ())
    """

    approval_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    tool_call_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class ApprovalResponseBlock(Value):
    """The client's decision on the request ``approval_id``: ``approved`` or not, with an optional ``reason``.

    It sits in a user message (a person decided) or a tool message (the tool runtime relays the decision, as the
    Vercel AI SDK does), after the request it answers; each request is answered once.

    >>> import contentblocks as cb
    >>> call = cb.ToolCallBlock(tool_call_id="c1", tool_name="delete_file", input={"path": "a.txt"})
    >>> ask = cb.ApprovalRequestBlock(approval_id="ap_1", tool_call_id="c1")
    >>> yes = cb.ApprovalResponseBlock(approval_id="ap_1", approved=True)
    >>> history = cb.Conversation(messages=[
    ...     cb.Message(role="assistant", content=[call, ask]), cb.Message(role="user", content=[yes]),
    ... ])
    >>> history.pending_approvals(), [c.tool_call_id for c in history.pending_tool_calls()]
    ((), ['c1'])
    """

    approval_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    approved: bool = attrs.field(metadata=ruled(FLAG))
    reason: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


resolve_annotations(globals())
