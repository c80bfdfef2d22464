"""The SDK's ``ModelMessage`` JSON (what ``convertToModelMessages`` returns, ``generateText`` takes) to a conversation.

Each ``ModelMessage`` is one message of the same role. A ``tool-call`` with ``providerExecuted: true`` and a
``tool-result`` in an assistant message are a tool the provider ran: a server call and result. A
``tool-approval-request`` is an approval request when it names a call of its own message (else it is kept whole
as a JSON block flagged ``vercel_ai/native_part``), and a ``tool-approval-response`` in a tool message is the
decision on one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Outcome
from ..._model._conversation import Conversation
from .._wire import block, placed, read
from .._wire import message as wire_message
from ._model_cache import take_cache, take_message_cache
from ._values import NAMESPACE, Part, Wire, fail, file_block, kept, native, reasoning_block, rebased

__all__ = ["AS_STRING", "EMPTY_REASON", "EXECUTED", "OUTPUT", "default_output", "read_model"]

#: On a message whose ``content`` was a string rather than an array of parts.
AS_STRING = "vercel_ai/content_string"
#: On a tool result: the output ``type`` when it is not the one the writer picks for the result's content.
OUTPUT = "vercel_ai/output"
#: On a denied tool result: its reason was the empty string (rather than absent).
EMPTY_REASON = "vercel_ai/empty_reason"
#: On a decision: its ``providerExecuted`` (null when absent) where it is not what its request's call says (``true``
#: for a call the provider runs, as ``convertToModelMessages`` writes it, else absent).
EXECUTED = "vercel_ai/providerExecuted"
#: While reading: the approval ids of the requests read so far that name a call the provider runs.
_SERVER_ASKS: ContextVar[set[str] | None] = ContextVar("contentblocks_vercel_server_asks", default=None)
_ROLES = ("system", "user", "assistant", "tool")
_FILE_ITEMS = {"file-data": None, "image-data": None, "media": None, "file-url": "application/octet-stream",
               "image-url": "image/*"}


def default_output(outcome: str, kinds: Sequence[str]) -> str:
    """The output ``type`` the writer gives a result of ``outcome`` holding blocks of ``kinds`` (``"text"``...)."""
    if outcome == "denied":
        return "execution-denied"
    single = kinds[0] if len(kinds) == 1 else None
    if outcome in ("failed", "interrupted"):
        return "error-json" if single == "json" else "error-text"
    if single == "json":
        return "json"
    return "text" if not kinds or single == "text" else "content"


def _options(part: Part) -> dict[str, Any]:
    provider = part.object("providerOptions")
    return {} if provider is None else {NAMESPACE + "providerOptions": provider}


def _text(part: Part) -> Wire:
    return block("text", text=part.string("text"), metadata={**_options(part), **part.rest()})


def _file(part: Part) -> Wire:
    image = part.raw["type"] == "image"
    data = part.string("image" if image else "data")
    media_type = part.string("mediaType", optional=image)
    metadata = _options(part)
    if image:
        metadata[NAMESPACE + "part"] = "image"
        if media_type is None:
            media_type, metadata[NAMESPACE + "media_type"] = "image/*", None
    filename = None if image else part.string("filename", optional=True)
    where = f"{part.path}.{'image' if image else 'data'}"
    return file_block(data, media_type, filename, {**metadata, **part.rest()}, where)


def _reasoning(part: Part) -> Wire:
    text = part.string("text")
    provider = part.object("providerOptions")
    return reasoning_block(text, provider, "providerOptions", part.rest())


#: A tool block's fields as the SDK's tool-call and tool-result parts name them.
_NAMES = {"tool_call_id": "toolCallId", "tool_name": "toolName"}


def _call(part: Part) -> Wire:
    call_id, name = part.string("toolCallId"), part.string("toolName")
    value = part.value("input")
    metadata = _options(part)
    executed = part.boolean("providerExecuted")
    if executed is True:  # a tool the provider ran: its call, which no client result answers
        return block("server_tool_call", tool_call_id=call_id, tool_name=name, input=value,
                     metadata={**metadata, **part.rest()})
    if executed is not None:
        metadata[NAMESPACE + "providerExecuted"] = executed
    return placed(block("tool_call", tool_call_id=call_id, tool_name=name, input=value,
                        metadata={**metadata, **part.rest()}), part.path, **_NAMES)


def _item(raw: object, path: str) -> Wire:
    item = Part(raw, path)
    kind = item.string("type")
    if kind == "text":
        return kept(lambda: _text(item), item.raw, path)
    if kind not in _FILE_ITEMS:
        if kind not in {"file-id", "image-file-id", "file-reference", "custom"}:
            raise fail(f"{path}.type", f"unknown output part type {kind[:40]!r}")
        return native(item.raw, path)  # a provider's file id, a custom part
    metadata = _options(item)
    if kind not in {"file-data", "file-url"}:
        metadata[NAMESPACE + "item"] = kind
    if kind.endswith("-url"):
        url = item.string("url")
        media_type = item.string("mediaType", optional=True)
        if media_type is None:
            media_type, metadata[NAMESPACE + "media_type"] = _FILE_ITEMS[kind], None
        filename = None
    else:
        url, media_type = item.string("data"), item.string("mediaType")
        filename = item.string("filename", optional=True) if kind == "file-data" else None
    more = {**metadata, **item.rest()}
    return kept(lambda: file_block(url, media_type, filename, more, f"{path}.data"), item.raw, path)


def _result(part: Part, kind_of_block: str = "tool_result") -> Wire:
    """A ``tool-result`` part: a client tool's result in a tool message, a provider-run one's in an assistant's."""
    call_id, name = part.string("toolCallId"), part.string("toolName")
    output = Part(part.object("output", optional=False), f"{part.path}.output")
    kind = output.string("type")
    outcome: Outcome = "failed" if kind.startswith("error-") else "denied" if kind == "execution-denied" else (
        "succeeded")
    content: list[Wire]
    if kind in {"text", "error-text"}:
        value = output.string("value")
        content = [block("text", text=value)] if value else []
    elif kind in {"json", "error-json"}:
        content = [block("json", value=output.value("value"))]
    elif kind == "execution-denied":
        reason = output.string("reason", optional=True)
        content = [block("text", text=reason)] if reason else []
    elif kind == "content":
        content = [_item(item, f"{output.path}.value[{i}]") for i, item in enumerate(output.array("value"))]
    else:
        raise fail(f"{output.path}.type", f"unknown output type {kind[:40]!r}")
    metadata = _options(part)
    if kind == "execution-denied" and output.raw.get("reason") == "":
        metadata[EMPTY_REASON] = True
    if default_output(outcome, [item["type"] for item in content]) != kind:
        metadata[OUTPUT] = kind
    if (output_options := output.object("providerOptions")) is not None:
        metadata[NAMESPACE + "outputProviderOptions"] = output_options
    metadata.update({NAMESPACE + "outputExtra": extra[NAMESPACE + "extra"]} if (extra := output.rest()) else {})
    return placed(block(kind_of_block, tool_call_id=call_id, tool_name=name, outcome=outcome, content=content,
                        metadata={**metadata, **part.rest()}), part.path, **_NAMES)


def _request(part: Part) -> Wire:
    """A ``tool-approval-request`` naming a call of its message."""
    approval_id, call_id = part.string("approvalId"), part.string("toolCallId")
    return block("approval_request", approval_id=approval_id, tool_call_id=call_id, metadata=part.rest())


def _decision(part: Part) -> Wire:
    """A ``tool-approval-response``: the decision on a request (``reason`` left out when absent)."""
    approval_id, approved = part.string("approvalId"), part.boolean("approved", optional=False)
    reason = part.string("reason", optional=True)
    executed = part.boolean("providerExecuted")
    metadata = {**_options(part), **part.rest()}
    if executed != (True if approval_id in (_SERVER_ASKS.get() or ()) else None):
        metadata[EXECUTED] = executed
    if reason == "":
        metadata[EMPTY_REASON] = True
    return block("approval_response", approval_id=approval_id, approved=approved, reason=reason or None,
                 metadata=metadata)


_ASSISTANT: Mapping[str, Callable[[Part], Wire]] = {
    "text": _text, "file": _file, "reasoning": _reasoning, "tool-call": _call,
}
_USER: Mapping[str, Callable[[Part], Wire]] = {"text": _text, "image": _file, "file": _file}


def _at(path: str, read: Callable[[], Any]) -> Any:
    try:
        return read()
    except ValidationError as e:
        if all(p.startswith(path) for p, _ in e.errors):
            raise
        raise rebased(e, path) from None


def _content(message: Part, role: str) -> tuple[list[Wire], dict[str, Any]]:
    """The blocks a message's content holds, and metadata it needs besides (string content, approvals)."""
    if role != "tool" and isinstance(message.raw.get("content"), str):
        message.taken.add("content")
        text = message.raw["content"]
        return [_at(f"{message.path}.content", lambda: block("text", text=text))], {} if role == "system" else {
            AS_STRING: True}
    blocks: list[Wire] = []
    known = {"system": {}, "user": _USER, "assistant": _ASSISTANT, "tool": {}}[role]
    parts = message.array("content")
    calls = {p["toolCallId"]: p.get("providerExecuted") is True for p in parts
             if isinstance(p, dict) and p.get("type") == "tool-call" and type(p.get("toolCallId")) is str}
    for index, raw in enumerate(parts):
        part = Part(raw, f"{message.path}.content[{index}]")
        kind = part.string("type")
        if kind in known:
            blocks.append(_at(part.path, lambda: kept(lambda: known[kind](part), part.raw, part.path)))  # noqa: B023
        elif role == "tool" and kind == "tool-result":
            blocks.append(_at(part.path, lambda: _result(part)))  # noqa: B023
        elif role == "tool" and kind == "tool-approval-response":
            blocks.append(_at(part.path, lambda: _decision(part)))  # noqa: B023
        elif role == "assistant" and kind == "tool-result":  # the result of a tool the provider ran
            blocks.append(_at(part.path, lambda: kept(lambda: _result(part, "server_tool_result"),  # noqa: B023
                                                      part.raw, part.path)))  # noqa: B023
        elif role == "assistant" and kind == "tool-approval-request":
            asks = type(asked := part.raw.get("toolCallId")) is str and asked in calls
            blocks.append(_at(part.path, lambda: _request(part)) if asks else native(part.raw, part.path))  # noqa: B023
            if asks and calls[asked] and (server_asks := _SERVER_ASKS.get()) is not None:
                server_asks.add(blocks[-1]["approval_id"])
        else:
            raise fail(f"{part.path}.type", f"no {kind[:40]!r} part in a {role} message")
    return [take_cache(wire) for wire in blocks], {}


def _message(raw: object, path: str) -> tuple[str, list[Wire], dict[str, Any], dict[str, Any] | None]:
    message = Part(raw, path)
    message.taken.discard("type")
    role = message.string("role")
    if role not in _ROLES:
        raise fail(f"{path}.role", f"expected one of {', '.join(_ROLES)}")
    if role == "system":
        message.string("content")
    blocks, metadata = _content(message, role)
    if not blocks:
        raise fail(f"{path}.content", "a message has at least one part")
    metadata.update(_options(message))
    metadata.update(message.rest())
    metadata, cache = take_message_cache(metadata)
    return role, blocks, metadata, cache


def _with_cache(wire: Wire, cache: dict[str, Any] | None) -> Wire:
    if cache is not None:
        wire["cache"] = cache
    return wire


def _messages(messages: list[Any]) -> list[Wire]:
    token = _SERVER_ASKS.set(set())
    try:
        parts = [_at(f"$[{index}]", lambda: _message(raw, f"$[{index}]")) for index, raw in enumerate(messages)]  # noqa: B023
    finally:
        _SERVER_ASKS.reset(token)
    return [_with_cache(_at(f"$[{index}]", lambda: wire_message(role, blocks, metadata)), cache)  # noqa: B023
            for index, (role, blocks, metadata, cache) in enumerate(parts)]


def read_model(messages: object) -> Conversation:
    """The conversation a list of ``ModelMessage`` holds; problems are reported at their paths in it."""
    if not isinstance(messages, list):
        raise fail("$", "expected an array of ModelMessage objects")
    return read(lambda: _messages(messages))
