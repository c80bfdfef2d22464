"""The SDK's ``UIMessage`` JSON (what ``useChat`` posts and a server stores) to a conversation.

A system or user ``UIMessage`` is one message. An assistant ``UIMessage`` is one assistant message per step (its
parts between ``step-start`` parts), each followed by a tool message with the results its tool parts hold: the SDK
keeps a call and its result in one part, the neutral vocabulary in a call and a later result, as
``convertToModelMessages`` splits them. A tool part with ``providerExecuted: true`` is a tool the provider ran:
its server call, then its server result, both in the step's assistant message. A part's approval is a request
right after its call and, decided, a decision first in the tool message after the step, for either kind of tool.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Outcome
from ..._model._conversation import Conversation
from .._wire import block, placed, read
from .._wire import message as wire_message
from ._values import NAMESPACE, NATIVE, Part, Wire, fail, file_url, kept, metadata_in, native, reasoning_block, rebased

__all__ = ["STATES", "approval_id", "output_blocks", "read_ui"]

#: The tool part states of AI SDK 6, in the order a call goes through them.
STATES = ("input-streaming", "input-available", "approval-requested", "approval-responded", "output-available",
          "output-error", "output-denied")
_OUTCOMES: Mapping[str, Outcome] = {"output-available": "succeeded", "output-error": "failed",
                                    "output-denied": "denied"}
_ROLES = ("system", "user", "assistant")


def approval_id(tool_call_id: str) -> str:
    """The approval id the writer gives a denied call that had none recorded."""
    return f"approval-{tool_call_id}"


def output_blocks(value: Any) -> list[Wire]:
    """A tool's output as result content: a non-empty string as text, any other JSON value as JSON."""
    return [block("text", text=value)] if isinstance(value, str) and value else [block("json", value=value)]


def _text(part: Part) -> Wire:
    raw = part.raw
    if len(raw) == 2 and type(raw.get("text")) is str:  # {"type": "text", "text": ...}, most parts: nothing else
        return block("text", text=raw["text"], metadata={})
    text = part.string("text")
    metadata = {NAMESPACE + key: part.raw[key] for key in ("state",) if part.string(key, optional=True) is not None}
    if (provider := part.object("providerMetadata")) is not None:
        metadata[NAMESPACE + "providerMetadata"] = provider
    return block("text", text=text, metadata={**metadata, **part.rest()})


def _reasoning(part: Part) -> Wire:
    text = part.string("text")
    more = {NAMESPACE + "state": part.raw["state"]} if part.string("state", optional=True) is not None else {}
    provider = part.object("providerMetadata")
    return reasoning_block(text, provider, "providerMetadata", {**more, **part.rest()})


def _file(part: Part) -> Wire:
    media_type, url = part.string("mediaType"), part.string("url")
    filename = part.string("filename", optional=True)
    metadata = {}
    if (provider := part.object("providerMetadata")) is not None:
        metadata[NAMESPACE + "providerMetadata"] = provider
    return file_url(url, media_type, filename, {**metadata, **part.rest()})


def _source(part: Part) -> Wire:
    part.string("sourceId")
    if part.raw["type"] == "source-url":
        part.string("url")
        part.string("title", optional=True)
    else:
        part.string("mediaType"), part.string("title"), part.string("filename", optional=True)
    part.object("providerMetadata")
    return native(part.raw, part.path)


def _data(part: Part) -> Wire:
    name = part.raw["type"][5:]
    metadata: dict[str, Any] = {} if name == "json" else {NAMESPACE + "data": name}
    if (data_id := part.string("id", optional=True)) is not None:
        metadata[NAMESPACE + "data_id"] = data_id
    return block("json", value=part.value("data"), metadata={**metadata, **part.rest()})


def _approval(part: Part) -> dict[str, Any] | None:
    approval = part.object("approval")
    if approval is None:
        return None
    checked = Part(approval, f"{part.path}.approval")
    checked.taken.discard("type")
    checked.string("id")
    checked.boolean("approved")
    checked.string("reason", optional=True)
    return approval  # type: ignore[no-any-return]


def _call_metadata(part: Part, state: str) -> dict[str, Any]:
    """What a tool part says of its call besides its id, name and input, as ``vercel_ai/`` metadata."""
    metadata: dict[str, Any] = {NAMESPACE + "dynamic": True} if part.raw["type"] == "dynamic-tool" else {}
    if state not in _OUTCOMES and state != "input-available":
        metadata[NAMESPACE + "state"] = state
    if not part.has("input"):
        if state != "input-streaming":
            raise fail(f"{part.path}.input", "required")
        metadata[NAMESPACE + "input"] = False
    if (executed := part.boolean("providerExecuted")) is not None:
        metadata[NAMESPACE + "providerExecuted"] = executed
    if (provider := part.object("callProviderMetadata")) is not None:
        metadata[NAMESPACE + "callProviderMetadata"] = provider
    return metadata


def _outcome(part: Part, state: str, approval: dict[str, Any] | None) -> tuple[list[Any], dict[str, Any], Any]:
    """A finished tool part's result content and metadata, and the approval left for its call."""
    content: list[Any] = []
    metadata: dict[str, Any] = {}
    if state == "output-available":
        if not part.has("output"):  # as validateUIMessages refuses it
            raise fail(f"{part.path}.output", "required")
        content = output_blocks(part.value("output"))
        if (preliminary := part.boolean("preliminary")) is not None:
            metadata[NAMESPACE + "preliminary"] = preliminary
    elif state == "output-error":
        error = part.string("errorText")
        content = [block("text", text=error)] if error else []
    elif state == "output-denied":
        if approval is None or approval.get("approved") is not False:
            raise fail(f"{part.path}.approval", "a denied call holds an approval with approved false")
        approval = dict(approval)
        if reason := approval.pop("reason", None):
            content = [block("text", text=reason)]
        if approval == {"id": approval_id(part.raw["toolCallId"]), "approved": False}:
            approval = None
    return content, metadata, approval


#: The states a tool part's approval reads as blocks in: a request, then a decision (all but the first).
_ASKED = {"approval-requested": False, "approval-responded": True, "output-available": True, "output-error": True,
          "output-denied": True}


def _approvals(part: Part, state: str, given: dict[str, Any] | None, kept: dict[str, Any] | None) -> list[Wire]:
    """A tool part's approval as a request and (decided) a decision; ``[]`` where it stays metadata.

    As ``convertToModelMessages`` places them, for a client tool and a provider-run one alike: the request right
    after the call (before a provider-run result), the decision in the tool message after the step.

    ``given`` is the part's ``approval``, ``kept`` what the call would keep of it (nothing for the default a writer
    gives a denial). An approval with fields of its own, or one that does not fit its state, stays metadata.
    """
    if given is None or kept is None or set(given) - {"id", "approved", "reason"} or state not in _ASKED:
        return []
    if _ASKED[state] != (type(given.get("approved")) is bool) or (not _ASKED[state] and "reason" in given):
        return []
    call_id, approval = part.raw["toolCallId"], given["id"]
    request = placed(block("approval_request", approval_id=approval, tool_call_id=call_id), part.path,
                     approval_id="approval", tool_call_id="toolCallId")
    if not _ASKED[state]:
        return [request]
    return [request, placed(block("approval_response", approval_id=approval, approved=given["approved"],
                                  reason=given.get("reason") or None), part.path, approval_id="approval")]


def _tool(part: Part) -> tuple[Wire, Wire | None, list[Wire]]:
    """A tool part's call, its result (when finished) and its approval's request and decision (when it has them)."""
    kind = part.raw["type"]
    name = part.string("toolName") if kind == "dynamic-tool" else kind[5:]
    call_id, state = part.string("toolCallId"), part.string("state")
    if state not in STATES:
        raise fail(f"{part.path}.state", f"expected one of {', '.join(STATES)}")
    metadata = _call_metadata(part, state)
    call_input = part.value("input")
    given = _approval(part)
    content, result_metadata, approval = _outcome(part, state, given)
    asks = _approvals(part, state, given, approval)
    if asks and state in ("approval-requested", "approval-responded"):
        del metadata[NAMESPACE + "state"]  # the approval's blocks say it
    elif approval is not None and not asks:
        metadata[NAMESPACE + "approval"] = approval
    metadata.update(part.rest())
    if metadata.get(NAMESPACE + "providerExecuted") is True:  # a tool the provider ran: both blocks in the step
        del metadata[NAMESPACE + "providerExecuted"]
        call = block("server_tool_call", tool_call_id=call_id, tool_name=name, input=call_input, metadata=metadata)
        if state not in _OUTCOMES:
            return call, None, asks
        return call, block("server_tool_result", tool_call_id=call_id, tool_name=name, outcome=_OUTCOMES[state],
                           content=content, metadata=result_metadata), asks
    # the part holds both blocks: a rule across messages either breaks is reported at the part's own fields
    names = {"tool_call_id": "toolCallId", "tool_name": "toolName" if kind == "dynamic-tool" else "type"}
    call = placed(block("tool_call", tool_call_id=call_id, tool_name=name, input=call_input, metadata=metadata),
                  part.path, **names)
    if state not in _OUTCOMES:
        return call, None, asks
    return call, placed(block("tool_result", tool_call_id=call_id, tool_name=name, outcome=_OUTCOMES[state],
                              content=content, metadata=result_metadata), part.path, **names), asks


_PARTS: Mapping[str, Callable[[Part], Wire]] = {
    "text": _text, "reasoning": _reasoning, "file": _file, "source-url": _source, "source-document": _source,
}


def _kind(part: Part) -> str:
    kind = part.string("type")
    if kind in _PARTS or kind in {"step-start", "dynamic-tool"} or kind.startswith(("tool-", "data-")):
        return kind  # type: ignore[no-any-return]
    raise fail(f"{part.path}.type", f"unknown part type {kind[:40]!r}")


def _block(part: Part, kind: str) -> Wire:
    """A part of a user or system message (or, verbatim, one that has no place there)."""
    if kind.startswith("data-"):
        return _data(part)
    if kind in _PARTS:
        return kept(lambda: _PARTS[kind](part), part.raw, part.path)
    if kind != "step-start":
        _tool(part)  # checked, then kept whole: a tool part outside an assistant message
    return native(part.raw, part.path)


class _Steps:
    """An assistant message's parts, gathered into steps: the blocks of each, and the results its calls hold."""

    def __init__(self) -> None:
        self.steps: list[tuple[list[Wire], list[Wire], bool]] = []
        self.decisions: list[list[Wire]] = []  # each step's decisions, which its tool message holds first

    def add(self, part: Part, kind: str) -> None:
        if kind == "step-start":
            if set(part.raw) != {"type"}:
                raise fail(part.path, "a step-start part has no other field")
            if self.steps and self.steps[-1][2] and not self.steps[-1][0]:
                self.steps[-1][0].append(native(part.raw, part.path))  # a step-start opening an empty step
            else:
                self.steps.append(([], [], True))
                self.decisions.append([])
            return
        if not self.steps:
            self.steps.append(([], [], False))
            self.decisions.append([])
        blocks, results, _ = self.steps[-1]
        if kind == "dynamic-tool" or kind.startswith("tool-"):
            call, result, asks = _tool(part)
            blocks.append(call)
            blocks.extend(asks[:1])  # the request, right after its call
            self.decisions[-1].extend(asks[1:])
            if result is not None:  # a provider-run tool's result stays in the step, after its call
                (blocks if result["type"] == "server_tool_result" else results).append(result)
        else:
            blocks.append(_block(part, kind))

    def messages(self, metadata: dict[str, Any]) -> list[Wire]:
        steps = self.steps
        if steps and not steps[-1][0]:  # a trailing step-start: kept in the step before (or alone)
            steps.pop()
            self.decisions.pop()
            if steps:
                steps[-1][0].append(block("json", value={"type": "step-start"}, metadata={NATIVE: True}))
            else:
                steps.append(([block("json", value={"type": "step-start"}, metadata={NATIVE: True})], [], False))
                self.decisions.append([])
        out = []
        for index, (blocks, results, started) in enumerate(steps):
            own = dict(metadata) if index == 0 else {}
            if not started:
                own[NAMESPACE + "step_start"] = False
            out.append(wire_message("assistant", blocks, own))
            if results or self.decisions[index]:
                out.append(wire_message("tool", [*self.decisions[index], *results]))
        return out


def _at(path: str, read: Callable[[], Any]) -> Any:
    """What ``read`` returns; a neutral rule it breaks is reported at ``path`` in the SDK's JSON."""
    try:
        return read()
    except ValidationError as e:
        if all(p.startswith(path) for p, _ in e.errors):
            raise
        raise rebased(e, path) from None


def _message(raw: object, path: str) -> list[Wire]:
    message = Part(raw, path)
    message.taken.discard("type")
    message_id, role = message.string("id"), message.string("role")
    if role not in _ROLES:
        raise fail(f"{path}.role", f"expected one of {', '.join(_ROLES)}")
    metadata: dict[str, Any] = {NAMESPACE + "id": message_id}
    if message.has("metadata"):
        metadata.update(metadata_in(message.value("metadata")))
    parts = message.array("parts")
    if not parts:
        raise fail(f"{path}.parts", "a message has at least one part")
    metadata.update(message.rest())
    if role == "assistant":
        steps = _Steps()
        for index, raw_part in enumerate(parts):
            part = Part(raw_part, f"{path}.parts[{index}]")
            _at(part.path, lambda: steps.add(part, _kind(part)))  # noqa: B023 - called at once
        return steps.messages(metadata)
    blocks = []
    for index, raw_part in enumerate(parts):
        part = Part(raw_part, f"{path}.parts[{index}]")
        kind = _kind(part)
        if role == "system" and kind != "text":
            raise fail(f"{part.path}.type", "a system message holds text parts only")
        blocks.append(_at(part.path, lambda: _text(part) if role == "system" else _block(part, kind)))  # noqa: B023
    return [wire_message(role, blocks, metadata)]


def _messages(messages: list[Any]) -> list[Wire]:
    out: list[Wire] = []
    for index, raw in enumerate(messages):
        path = f"$[{index}]"
        try:
            out.extend(_message(raw, path))
        except ValidationError as e:
            if all(p.startswith(path) for p, _ in e.errors):
                raise
            raise rebased(e, path) from None
    return out


def read_ui(messages: object) -> Conversation:
    """The conversation a list of ``UIMessage`` holds; problems are reported at their paths in it."""
    if not isinstance(messages, list):
        raise fail("$", "expected an array of UIMessage objects")
    return read(lambda: _messages(messages))
