"""pydantic-ai's history (as ``ModelMessagesTypeAdapter.dump_python(mode="json")`` writes it) to a conversation.

A ``ModelRequest`` becomes one message per run of parts: system prompts in a row make a system message, each user
prompt a user message, tool returns (and retry prompts naming a tool) in a row a tool message. A ``ModelResponse``
becomes one assistant message. A part that no neutral block can hold is kept whole as a JSON block flagged
``pydantic_ai/native_part``, so that reading never drops anything.
"""

from __future__ import annotations

import base64
import importlib
import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Citation, Outcome
from ..._model._conversation import Conversation
from ...providers._contract import ISSUER_KEY
from .._wire import block, check, message, placed, read
from ._fields import (
    LISTED,
    NAMESPACE,
    NATIVE,
    PART_KIND,
    REQUEST,
    cited_sources,
    default_identifier,
    extras,
    issuer_of,
    metadata_in,
    provider_of,
    url_kind,
)

__all__ = ["read_history"]

_OUTCOMES: Mapping[str, Outcome] = {"success": "succeeded", "failed": "failed", "denied": "denied",
                                    "interrupted": "interrupted"}
_WILDCARDS = {"image-url": "image/*", "audio-url": "audio/*", "video-url": "video/*"}
_STANDARD = str.maketrans("-_", "+/")
_FILES = frozenset({"image-url", "audio-url", "video-url", "document-url", "binary", "uploaded-file"})
#: How a ``ThinkingPart`` holding Anthropic's redacted thinking looks: pydantic-ai's Anthropic model writes it so.
REDACTED_ID = "redacted_thinking"


#: A block (or message) as its wire dict (see ``.._wire``).
Wire = dict[str, Any]


def _native(raw: object) -> Wire:
    return block("json", value=raw, metadata={NATIVE: True})


def _kept(make: Callable[[], Wire], raw: object) -> Wire:
    """The block ``make`` builds, or ``raw`` kept verbatim when the neutral rules refuse it (an empty text)."""
    try:
        return make()
    except ValidationError:
        return _native(raw)


def _file(item: Mapping[str, Any], more: Mapping[str, Any]) -> Wire:
    kind = item["kind"]
    metadata = {**extras(item, kind), **more}
    media_type = item.get("media_type")
    if kind == "binary":
        data = base64.b64decode(item["data"].translate(_STANDARD))  # pydantic writes the URL-safe alphabet
        source: Wire = {"type": "base64", "data": data}
        key: str | bytes = data
    elif kind == "uploaded-file":
        source = {"type": "reference", "id": item["file_id"], "provider": item["provider_name"]}
        key = item["file_id"]
    else:
        source = {"type": "url", "url": item["url"]}
        key = item["url"]
        if media_type is None:
            metadata[NAMESPACE + "media_type"] = None
            media_type = _WILDCARDS.get(kind, "application/octet-stream")
        if url_kind(media_type) == kind:
            metadata.pop(NAMESPACE + "kind", None)
    if metadata.get(NAMESPACE + "identifier") == default_identifier(key):
        del metadata[NAMESPACE + "identifier"]
    return block("file", media_type=str(media_type), source=source, metadata=metadata)


def _rendered(item: Mapping[str, Any]) -> str | None:
    """The text pydantic-ai renders a ``StructuredContent`` to when it is given none (kept only when it differs)."""
    structured = importlib.import_module("pydantic_ai.messages").StructuredContent
    try:
        return str(structured(value=item["value"], tag=item["tag"], description=item["description"]).content)
    except Exception:  # noqa: BLE001 - a value pydantic-ai cannot render keeps its stored text
        return None


def _user_item(item: Any) -> Wire:
    if isinstance(item, str):
        return _kept(lambda: block("text", text=item), item)
    kind = item.get("kind") if isinstance(item, dict) else None
    if kind == "text-content":
        return _kept(lambda: block("text", text=item["content"],
                                   metadata=metadata_in(item["metadata"], keep_none=True)), item)
    if kind == "structured-content":
        metadata = {**metadata_in(item["metadata"]), **extras(item, kind)}
        if metadata.get(NAMESPACE + "content") == _rendered(item):
            del metadata[NAMESPACE + "content"]
        return _kept(lambda: block("json", value=item["value"], metadata=metadata), item)
    if kind in _FILES:
        return _kept(lambda: _file(item, {}), item)
    return _native(item)


def _result_item(item: Any) -> Wire:
    if isinstance(item, str) and item:
        return block("text", text=item)
    if isinstance(item, dict) and item.get("kind") in _FILES:
        return _file(item, {})
    return block("json", value=item)


def _tool_result(part: Mapping[str, Any]) -> Wire:
    metadata = {**extras(part, "tool-return"), **metadata_in(part["metadata"])}
    if part["outcome"] in _OUTCOMES:  # kept only where it refines ``failed``: ``retried``
        metadata.pop(NAMESPACE + "outcome", None)
    content = part["content"]
    if isinstance(content, list) and len(content) == 1:
        metadata[LISTED] = True
    items = [_result_item(item) for item in content] if isinstance(content, list) else [_result_item(content)]
    return block("tool_result", tool_call_id=part["tool_call_id"], tool_name=part["tool_name"],
                 outcome=_OUTCOMES.get(part["outcome"], "failed"), content=items, metadata=metadata)


def _citations(raw: list[Any] | None) -> tuple[list[Wire], bool]:
    """Neutral citations (wire dicts) for pydantic-ai's, and whether they say all it says (one source, quote, span)."""
    if not raw:
        return [], raw is None
    citations: list[Wire] = []
    exact = True
    for citation in raw:
        anchor = citation.get("anchor")
        exact &= anchor is None or anchor["kind"] == "content"
        span = {"start": anchor["start"], "end": anchor["end"]} if anchor else {}
        cited, same = cited_sources(citation["sources"])  # several sources: one citation naming them all
        exact &= same
        citations.extend(check({k: v for k, v in {**fields, **span}.items() if v is not None}, Citation)
                         for fields in cited)  # fmt: skip
    return citations, exact


def _text(part: Mapping[str, Any]) -> Wire:
    metadata = extras(part, "text")
    try:
        citations, exact = _citations(part["citations"])
    except ValidationError:
        citations, exact = [], False
    if not exact:
        metadata[NAMESPACE + "citations"] = part["citations"]
    return block("text", text=part["content"], citations=citations, metadata=metadata)


def _thinking(part: Mapping[str, Any]) -> Wire:
    metadata = extras(part, "thinking")
    provider = part["provider_name"]
    if provider is not None:
        metadata[ISSUER_KEY] = issuer_of(provider)
        if provider_of(issuer_of(provider)) != provider:
            metadata[NAMESPACE + "provider_name"] = provider
    signature, content = part["signature"], part["content"]
    if part["id"] == REDACTED_ID and not content and signature:
        del metadata[NAMESPACE + "id"]
        return block("reasoning", redacted=signature.encode("utf-8"), metadata=metadata)
    return block("reasoning", text=content or None, signature=signature, metadata=metadata)


def _tool_call(part: Mapping[str, Any]) -> Wire:
    metadata = extras(part, "tool-call")
    args = part["args"]
    if isinstance(args, str):
        try:
            value = json.loads(args)
        except ValueError:
            value = args
        if isinstance(value, dict) or value is None or json.dumps(value) != args:
            metadata[NAMESPACE + "args"] = args
        args = value
    return block("tool_call", tool_call_id=part["tool_call_id"], tool_name=part["tool_name"], input=args,
                 metadata=metadata)


_RESPONSE_PARTS: Mapping[str, Callable[[Mapping[str, Any]], Wire]] = {
    "text": _text,
    "thinking": _thinking,
    "tool-call": _tool_call,
    "file": lambda part: _file(part["content"], extras(part, "file")),
}


def _response(raw: Mapping[str, Any], where: str) -> Wire:
    content: list[Wire] = []
    for position, part in enumerate(raw["parts"]):
        read = _RESPONSE_PARTS.get(part["part_kind"])
        content.append(_native(part) if read is None else _kept(partial(read, part), part))
        if content[-1]["type"] == "tool_call":  # its id's problems across messages are placed at the part
            placed(content[-1], f"{where}.parts[{position}]")
    metadata = {**metadata_in(raw["metadata"]), **extras(raw, "response")}
    return message("assistant", content, metadata)


def _request_part(part: Mapping[str, Any]) -> tuple[str, list[Wire], dict[str, Any] | None]:
    """The role a request part goes to, its blocks, and the metadata of the message it makes by itself, if any.

    A user prompt (or retry feedback) is a message of its own; other parts join a run of parts of their role.
    """
    kind = part["part_kind"]
    if kind == "system-prompt":
        metadata = {**metadata_in(part["metadata"]), **extras(part, kind)}
        return "system", [_kept(lambda: block("text", text=part["content"], metadata=metadata), part)], None
    if kind == "user-prompt":
        content, metadata = part["content"], extras(part, kind)
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], str):
            metadata[LISTED] = True
        items = [_user_item(content)] if isinstance(content, str) else [_user_item(item) for item in content]
        return "user", items, metadata
    if kind == "tool-return":
        result = _kept(lambda: _tool_result(part), part)
        return ("tool" if result["type"] == "tool_result" else "user"), [result], None
    if kind == "retry-feedback":
        metadata = {PART_KIND: kind, **extras(part, kind)}
        content = part["content"]
        item = _kept(lambda: block("text", text=content) if isinstance(content, str) else block("json", value=content),
                     part)
        return "user", [item], metadata
    return "user", [_native(part)], None


def _request(raw: Mapping[str, Any], after_request: bool, where: str) -> list[Wire]:
    runs: list[tuple[str, list[Wire], dict[str, Any]]] = []
    for position, part in enumerate(raw["parts"]):
        role, blocks, own_message = _request_part(part)
        if role == "tool":  # a result's problems across messages are placed at its part, not at the tool message
            placed(blocks[0], f"{where}.parts[{position}]")
        if own_message is not None:
            runs.append((role, blocks, own_message))
        elif runs and runs[-1][0] == role and role != "user":
            runs[-1][1].extend(blocks)
        else:
            runs.append((role, blocks, {}))
    if not runs:
        msg = "a request with no parts has no neutral message"
        raise ValidationError([("$.parts", msg)])
    first = runs[0][2]
    own = metadata_in(raw["metadata"])
    request = {key.removeprefix(NAMESPACE): value for key, value in extras(raw, "request").items()}
    if request or (after_request and not own):  # flat metadata starts a request by itself
        first[REQUEST] = request
    first.update(own)
    return [message(role, blocks, metadata) for role, blocks, metadata in runs]


def _messages(history: list[Mapping[str, Any]]) -> list[Wire]:
    messages: list[Wire] = []
    after_request = False
    for index, raw in enumerate(history):
        try:
            if raw["kind"] == "response":
                messages.append(_response(raw, f"$[{index}]"))
            else:
                messages.extend(_request(raw, after_request, f"$[{index}]"))
        except ValidationError as e:
            raise ValidationError([(f"$[{index}]{path[1:]}", problem) for path, problem in e.errors]) from None
        after_request = raw["kind"] == "request"
    return messages


def read_history(history: list[Mapping[str, Any]]) -> Conversation:
    """The conversation a dumped pydantic-ai history holds; problems are reported at the history's paths."""
    return read(lambda: _messages(history))
