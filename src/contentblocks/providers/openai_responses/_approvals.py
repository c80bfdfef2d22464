"""Remote MCP approvals: OpenAI asks before it runs an MCP tool, and the client answers.

An ``mcp_approval_request`` output item proposes an MCP call: it reads as the
:class:`~contentblocks.ServerToolCallBlock` it proposes (the tool's name and arguments, its server's label) and an
:class:`~contentblocks.ApprovalRequestBlock` naming it, both under the item's ``id`` and issued by ``openai``. The
client's ``mcp_approval_response`` input item reads as an :class:`~contentblocks.ApprovalResponseBlock` in a user
message; OpenAI then runs the call, and its ``mcp_call`` item (a call and result of their own) names the request
in ``approval_request_id``. Both go back natively, and only as they came: a request only to OpenAI, with its
call, and a decision only on a request that goes back (https://platform.openai.com/docs/guides/tools-remote-mcp).
A request whose item is not one this maps, or a decision on a request this read has not seen (one held by a
``previous_response_id``), stays the verbatim JSON block it was before.

>>> call, ask = read_request({"type": "mcp_approval_request", "id": "mcpr_1", "name": "roll",
...     "arguments": '{"dice": "2d4"}', "server_label": "dmcp"})
>>> call.tool_name, call.input["dice"], ask.approval_id == call.tool_call_id == "mcpr_1"
('roll', '2d4', True)
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import ApprovalRequestBlock, ApprovalResponseBlock, Message, ServerToolCallBlock
from .._approvals import Keep, MessagesT, PathMap, without_approvals
from .._arguments import RAW_ARGUMENTS, read_arguments
from .._contract import ISSUER_KEY, Loss, issuer_matches
from .._toolkit import raw_arguments
from ._fields import ISSUER, NS, TARGET
from ._server import SERVER_LABEL

__all__ = ["CALL_FIELDS", "RESPONSE_ID", "SCOPE", "kept_natively", "local_approvals", "native_approvals",
           "read_request", "read_response", "request_item", "response_item"]

#: Metadata of a decision: the input item's own ``id``, when it had one.
RESPONSE_ID = f"{NS}/id"


_REQUEST_KEYS = frozenset({"type", "id", "name", "server_label", "arguments"})


def read_request(item: Mapping[str, Any]) -> tuple[ServerToolCallBlock, ApprovalRequestBlock] | None:
    """The proposed call and the request an ``mcp_approval_request`` item is, or ``None`` (kept verbatim)."""
    item_id, name, label, arguments = (item.get(k) for k in ("id", "name", "server_label", "arguments"))
    if type(arguments) is not str or type(label) is not str or set(item) - _REQUEST_KEYS:
        return None
    wanted, flags = read_arguments(arguments)
    try:
        call = ServerToolCallBlock(
            tool_call_id=item_id,  # type: ignore[arg-type]
            tool_name=name,  # type: ignore[arg-type]
            input=wanted,
            metadata={ISSUER_KEY: ISSUER, SERVER_LABEL: label, **flags},
        )
        ask = ApprovalRequestBlock(
            approval_id=item_id,  # type: ignore[arg-type]
            tool_call_id=item_id,  # type: ignore[arg-type]
            metadata={ISSUER_KEY: ISSUER},
        )
    except (ValidationError, TypeError):  # built whole or not at all: the item then stays verbatim, where it is
        return None
    return call, ask


def read_response(item: Mapping[str, Any], asked: Container[str]) -> ApprovalResponseBlock | None:
    """The decision an ``mcp_approval_response`` item is, or ``None`` (kept verbatim) when its request is unknown."""
    known = {"type", "approval_request_id", "approve", "reason", "id"}
    approval_id, approve, reason = item.get("approval_request_id"), item.get("approve"), item.get("reason")
    item_id = item.get("id")
    if set(item) - known or approval_id not in asked or type(approve) is not bool:
        return None
    if not (reason is None or type(reason) is str) or not (item_id is None or type(item_id) is str):
        return None
    try:
        return ApprovalResponseBlock(
            approval_id=approval_id,  # type: ignore[arg-type]
            approved=approve,
            reason=reason or None,
            metadata={RESPONSE_ID: item_id} if item_id is not None else {},
        )
    except (ValidationError, TypeError):
        return None


#: Which approvals the Responses API has, for the reasons of the others.
SCOPE = " but for the MCP calls OpenAI proposes"


def local_approvals(messages: MessagesT, issuer: str) -> tuple[MessagesT, PathMap | None, list[Loss]]:
    """``messages`` without the approvals that do not go back natively (see ``providers._approvals``)."""
    return without_approvals(messages, TARGET, kept_natively(messages, issuer), SCOPE)


def kept_natively(messages: Sequence[Message], issuer: str) -> Keep:
    """Keeps the approvals that go back as OpenAI's items (``native_approvals``), for ``without_approvals``."""
    native = native_approvals(messages, issuer)
    return lambda block, _message, _index: block.approval_id in native


def native_approvals(messages: Sequence[Message], issuer: str) -> frozenset[str]:
    """The approval ids whose request goes back as OpenAI's item: issued to ``issuer``, naming an MCP call of theirs."""
    out = set()
    for message in messages:
        if message.role != "assistant":
            continue
        calls = {b.tool_call_id: b for b in message.content if type(b) is ServerToolCallBlock}
        for block in message.content:
            if type(block) is not ApprovalRequestBlock or not issuer_matches(block.metadata.get(ISSUER_KEY), issuer):
                continue
            call = calls.get(block.tool_call_id)
            if (
                call is not None
                and issuer_matches(call.metadata.get(ISSUER_KEY), issuer)
                and type(call.metadata.get(SERVER_LABEL)) is str
            ):
                out.add(block.approval_id)
    return frozenset(out)


def request_item(block: ApprovalRequestBlock, call: ServerToolCallBlock) -> dict[str, Any]:
    """The ``mcp_approval_request`` item of a request and the call it proposes."""
    return {
        "type": "mcp_approval_request",
        "id": block.approval_id,
        "name": call.tool_name,
        "arguments": raw_arguments(call.input, call.metadata),
        "server_label": call.metadata[SERVER_LABEL],
    }


#: The metadata of a proposed call that its request's item carries.
CALL_FIELDS = frozenset({ISSUER_KEY, SERVER_LABEL, RAW_ARGUMENTS, f"{NS}/arguments"})


def response_item(block: ApprovalResponseBlock) -> dict[str, Any]:
    """The ``mcp_approval_response`` input item of a decision."""
    item: dict[str, Any] = {"type": "mcp_approval_response", "approval_request_id": block.approval_id}
    item["approve"] = block.approved
    if block.reason is not None:
        item["reason"] = block.reason
    if type(block.metadata.get(RESPONSE_ID)) is str:
        item["id"] = block.metadata[RESPONSE_ID]
    return item
