"""pydantic-ai's history (its ``ModelRequest`` and ``ModelResponse`` objects) to a conversation.

A ``ModelRequest`` becomes one message per run of parts: system prompts in a row make a system message, each user
prompt a user message, tool returns (and retry prompts naming a tool) in a row a tool message. A ``ModelResponse``
becomes one assistant message. A part that no neutral block can hold is kept whole as a JSON block flagged
``pydantic_ai/native_part``, so that reading never drops anything.

The reader reads the objects' attributes, dispatching on each part's ``part_kind`` and each content item's
``kind``: pydantic-ai's objects are the one form it reads (the bridge turns a history's JSON forms into them with
pydantic-ai's own validator first). A value kept in metadata or a JSON block is written as pydantic-ai's JSON mode
writes it (``._fields.plain``, ``._fields.dumped``), so a history reads the same whichever form it came in, and
``to_messages`` gives back what pydantic-ai would load from its own dump.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Citation, Outcome
from ..._model._conversation import Conversation
from ...providers._compaction import COMPACTION_STATE
from ...providers._contract import ISSUER_KEY
from .._wire import block, check, message, placed, read, structure
from ._fields import (
    AS_IS,
    LISTED,
    NAMESPACE,
    NATIVE,
    PART_KIND,
    REQUEST,
    STATE_NAMESPACES,
    cited_sources,
    default_identifier,
    dumped,
    extras,
    issuer_of,
    metadata_in,
    plain,
    provider_of,
    url_kind,
)

__all__ = ["read_history", "stored_citations"]

_OUTCOMES: Mapping[str, Outcome] = {"success": "succeeded", "failed": "failed", "denied": "denied",
                                    "interrupted": "interrupted"}
_WILDCARDS = {"image-url": "image/*", "audio-url": "audio/*", "video-url": "video/*"}
_FILES = frozenset({"image-url", "audio-url", "video-url", "document-url", "binary", "uploaded-file"})
#: How a ``ThinkingPart`` holding Anthropic's redacted thinking looks: pydantic-ai's Anthropic model writes it so.
REDACTED_ID = "redacted_thinking"


#: A block (or message) as its wire dict (see ``.._wire``).
Wire = dict[str, Any]


def _native(raw: object) -> Wire:
    return block("json", value=dumped(raw), metadata={NATIVE: True})


def _kept(make: Callable[[], Wire], raw: object) -> Wire:
    """The block ``make`` builds, or ``raw`` kept verbatim when the neutral rules refuse it (an empty text)."""
    try:
        return make()
    except ValidationError:
        return _native(raw)


def _media_type(item: Any) -> str | None:
    """A file item's media type, as pydantic-ai dumps it: ``None`` where it cannot tell (a URL with no extension)."""
    try:
        return item.media_type  # type: ignore[no-any-return]
    except ValueError:
        return None


def _file(item: Any, more: Mapping[str, Any]) -> Wire:
    kind = item.kind
    metadata = {**extras(item, kind), **more}
    media_type = _media_type(item)
    if kind == "binary":
        data = item.data
        source: Wire = {"type": "base64", "data": data}
        key: str | bytes = data
    elif kind == "uploaded-file":
        source = {"type": "reference", "id": item.file_id, "provider": item.provider_name}
        key = item.file_id
    else:
        source = {"type": "url", "url": item.url}
        key = item.url
        if media_type is None:
            metadata[NAMESPACE + "media_type"] = None
            media_type = _WILDCARDS.get(kind, "application/octet-stream")
        if url_kind(media_type) == kind:
            metadata.pop(NAMESPACE + "kind", None)
    if metadata.get(NAMESPACE + "identifier") == default_identifier(key):
        del metadata[NAMESPACE + "identifier"]
    return block("file", media_type=str(media_type), source=source, metadata=metadata)


def _rendered(item: Any, value: Any) -> str | None:
    """The text pydantic-ai renders a ``StructuredContent`` to when it is given none (kept only when it differs).

    ``value`` is the item's value in JSON mode, as a stored history holds it.
    """
    structured = importlib.import_module("pydantic_ai.messages").StructuredContent
    try:
        return str(structured(value=value, tag=item.tag, description=item.description).content)
    except Exception:  # noqa: BLE001 - a value pydantic-ai cannot render keeps its stored text
        return None


def _user_item(item: Any) -> Wire:
    if isinstance(item, str):
        return _kept(lambda: block("text", text=item), item)
    kind = getattr(item, "kind", None)
    if kind == "text-content":
        return _kept(lambda: block("text", text=item.content,
                                   metadata=metadata_in(plain(item, "metadata"), keep_none=True)), item)
    if kind == "structured-content":
        metadata = {**metadata_in(plain(item, "metadata")), **extras(item, kind)}
        value = plain(item, "value")
        if metadata.get(NAMESPACE + "content") == _rendered(item, value):
            del metadata[NAMESPACE + "content"]
        return _kept(lambda: block("json", value=value, metadata=metadata), item)
    if kind in _FILES:
        return _kept(lambda: _file(item, {}), item)
    return _native(item)


def _is_file(item: Any) -> bool:
    """Whether a tool result's item is one of pydantic-ai's file items (a mapping that looks like one is not)."""
    return not isinstance(item, dict) and getattr(item, "kind", None) in _FILES


_CACHE_TTLS = {"5m": 300, "1h": 3600}


def _user_items(content: list[Any]) -> list[Wire]:
    """A user prompt's items; a ``CachePoint`` is the breakpoint of the block before it.

    A cache point with no block before it, or after a block that has one already, is kept whole.
    """
    items: list[Wire] = []
    for item in content:
        ttl = getattr(item, "ttl", None) if getattr(item, "kind", None) == "cache-point" else None
        if items and "cache" not in items[-1] and ttl in _CACHE_TTLS:
            items[-1]["cache"] = {"ttl": _CACHE_TTLS[ttl]}
        else:
            items.append(_user_item(item))
    return items


def _tool_result(part: Any) -> Wire:
    """A ``ToolReturnPart``, or a ``NativeToolReturnPart`` (a tool the provider ran, in a response) as a server result.

    Both read alike: a string as text, a list as one part per item, anything else as JSON, a file as a file.
    """
    kind = part.part_kind
    metadata = {**extras(part, kind), **metadata_in(plain(part, "metadata"))}
    if kind == "builtin-tool-return":
        _issued(metadata, part.provider_name)
    if part.outcome in _OUTCOMES:  # kept only where it refines ``failed``: ``retried``
        metadata.pop(NAMESPACE + "outcome", None)
    content = part.content
    if isinstance(content, list | tuple):
        if len(content) == 1:
            metadata[LISTED] = True
        if any(_is_file(item) for item in content):
            items = [_file(item, {}) if _is_file(item) else None for item in content]
            values = plain(part, "content")  # the other items, in JSON mode: only they are read from it
            items = [wire or _result_value(value) for wire, value in zip(items, values, strict=True)]
        else:
            items = [_result_value(value) for value in plain(part, "content")]
    elif _is_file(content):
        items = [_file(content, {})]
    else:
        items = [_result_value(plain(part, "content"))]
    return block("tool_result" if kind == "tool-return" else "server_tool_result", tool_call_id=part.tool_call_id,
                 tool_name=part.tool_name, outcome=_OUTCOMES.get(part.outcome, "failed"), content=items,
                 metadata=metadata)


def _result_value(value: Any) -> Wire:
    """A tool result's item that is not a file, given in JSON mode: a text block for a string, else JSON."""
    if isinstance(value, str) and value:
        return block("text", text=value)
    return block("json", value=value)


def _citations(raw: list[Any] | None) -> tuple[list[Wire], bool]:
    """Neutral citations (wire dicts) for pydantic-ai's, and whether they say all it says (one source, quote, span)."""
    if not raw:
        return [], raw is None
    citations: list[Wire] = []
    exact = True
    for citation in raw:
        anchor = citation.anchor
        exact &= anchor is None or anchor.kind == "content"
        span = {"start": anchor.start, "end": anchor.end} if anchor else {}
        cited, same = cited_sources(citation.sources)  # several sources: one citation naming them all
        exact &= same
        citations.extend(check({k: v for k, v in {**fields, **span}.items() if v is not None}, Citation)
                         for fields in cited)  # fmt: skip
    return citations, exact


@functools.cache
def _citation_list() -> Any:
    """A validator of a list of pydantic-ai's ``Citation``: kept citations are read as pydantic-ai reads them."""
    import pydantic  # noqa: PLC0415 - pydantic-ai's own dependency, imported with it

    citation: Any = importlib.import_module("pydantic_ai.messages").Citation
    return pydantic.TypeAdapter(list[citation])


def stored_citations(kept: object) -> list[Wire] | None:
    """The neutral citations (wire dicts) of citations kept in JSON mode, ``None`` when pydantic-ai refuses them."""
    import pydantic  # noqa: PLC0415

    try:
        return _citations(_citation_list().validate_python(kept))[0]
    except (pydantic.ValidationError, ValidationError):
        return None


def _text(part: Any) -> Wire:
    metadata = extras(part, "text")
    try:
        citations, exact = _citations(part.citations)
    except ValidationError:
        citations, exact = [], False
    if not exact:
        metadata[NAMESPACE + "citations"] = plain(part, "citations")
    return block("text", text=part.content, citations=citations, metadata=metadata)


def _issued(metadata: dict[str, Any], provider: str | None) -> None:
    """Record pydantic-ai's ``provider_name`` as the issuer, and keep it as it is where ours names it otherwise."""
    if provider is not None:
        metadata[ISSUER_KEY] = issuer_of(provider)
        if provider_of(issuer_of(provider)) != provider:
            metadata[NAMESPACE + "provider_name"] = provider


def _thinking(part: Any) -> Wire:
    metadata = extras(part, "thinking")
    _issued(metadata, part.provider_name)
    signature, content = part.signature, part.content
    if part.id == REDACTED_ID and not content and signature:
        del metadata[NAMESPACE + "id"]
        return block("reasoning", redacted=signature.encode("utf-8"), metadata=metadata)
    return block("reasoning", text=content or None, signature=signature, metadata=metadata)


def _compaction(part: Any) -> Wire:
    """A ``CompactionPart``: its content is the summary, and its id and details the state of its provider.

    An Anthropic or OpenAI compaction's state is kept where that adapter keeps it (``openai/encrypted_content``).
    """
    metadata = extras(part, "compaction")
    provider = part.provider_name
    if provider is not None:
        issuer = issuer_of(provider)
        metadata[ISSUER_KEY] = issuer
        if provider_of(issuer) != provider:
            metadata[NAMESPACE + "provider_name"] = provider
        space = issuer.split("/", 1)[0]
        details = part.provider_details
        state = {f"{space}/{key}": value for key, value in (details or {}).items()}
        if part.id is not None:
            state[f"{space}/id"] = part.id
        if space in STATE_NAMESPACES and state and COMPACTION_STATE.issuperset(state) and isinstance(details, dict):
            metadata.pop(NAMESPACE + "id", None)
            metadata.pop(NAMESPACE + "provider_details", None)
            metadata.update(state)
    return block("compaction", summary=part.content or None, metadata=metadata)


def _tool_call(part: Any) -> Wire:
    """A ``ToolCallPart``, or a ``NativeToolCallPart`` (a tool the provider ran) as a server call."""
    kind = part.part_kind
    metadata = extras(part, kind)
    if kind == "builtin-tool-call":
        _issued(metadata, part.provider_name)
    args = plain(part, "args")
    if isinstance(args, str):
        try:
            value = json.loads(args)
        except ValueError:
            value = args
        if isinstance(value, dict) or value is None or json.dumps(value) != args:
            metadata[NAMESPACE + "args"] = args
        args = value
    return block("tool_call" if kind == "tool-call" else "server_tool_call", tool_call_id=part.tool_call_id,
                 tool_name=part.tool_name, input=args, metadata=metadata)


_RESPONSE_PARTS: Mapping[str, Callable[[Any], Wire]] = {
    "text": _text,
    "thinking": _thinking,
    "compaction": _compaction,
    "tool-call": _tool_call,
    "builtin-tool-call": _tool_call,
    "builtin-tool-return": _tool_result,
    "file": lambda part: _file(part.content, extras(part, "file")),
}


def _response(raw: Any, where: str) -> Wire:
    content: list[Wire] = []
    for position, part in enumerate(raw.parts):
        read = _RESPONSE_PARTS.get(part.part_kind)
        content.append(_native(part) if read is None else _kept(partial(read, part), part))
        if content[-1]["type"] == "tool_call":  # its id's problems across messages are placed at the part
            placed(content[-1], f"{where}.parts[{position}]")
    metadata = {**metadata_in(plain(raw, "metadata")), **extras(raw, "response")}
    return message("assistant", content, metadata)


def _request_part(part: Any) -> tuple[str, list[Wire], dict[str, Any] | None]:
    """The role a request part goes to, its blocks, and the metadata of the message it makes by itself, if any.

    A user prompt (or retry feedback) is a message of its own; other parts join a run of parts of their role.
    """
    kind = part.part_kind
    if kind == "system-prompt":
        metadata = {**metadata_in(plain(part, "metadata")), **extras(part, kind)}
        return "system", [_kept(lambda: block("text", text=part.content, metadata=metadata), part)], None
    if kind == "user-prompt":
        content, metadata = part.content, extras(part, kind)
        if not isinstance(content, str) and len(content) == 1 and isinstance(content[0], str):
            metadata[LISTED] = True
        items = [_user_item(content)] if isinstance(content, str) else _user_items(content)
        return "user", items, metadata
    if kind == "tool-return":
        result = _kept(lambda: _tool_result(part), part)
        return ("tool" if result["type"] == "tool_result" else "user"), [result], None
    if kind == "retry-feedback":
        metadata = {PART_KIND: kind, **extras(part, kind)}
        content = plain(part, "content")
        item = _kept(lambda: block("text", text=content) if isinstance(content, str) else block("json", value=content),
                     part)
        return "user", [item], metadata
    return "user", [_native(part)], None


def _request(raw: Any, after_request: bool, where: str) -> list[Wire]:
    runs: list[tuple[str, list[Wire], dict[str, Any]]] = []
    for position, part in enumerate(raw.parts):
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
    own = metadata_in(plain(raw, "metadata"))
    request = {key.removeprefix(NAMESPACE): value for key, value in extras(raw, "request").items()}
    if request or (after_request and not own):  # flat metadata starts a request by itself
        first[REQUEST] = request
    first.update(own)
    return [message(role, blocks, metadata) for role, blocks, metadata in runs]


def _messages(history: list[Any]) -> list[Wire]:
    messages: list[Wire] = []
    after_request = False
    for index, raw in enumerate(history):
        try:
            if raw.kind == "response":
                messages.append(_response(raw, f"$[{index}]"))
            else:
                messages.extend(_request(raw, after_request, f"$[{index}]"))
        except ValidationError as e:
            raise ValidationError([(f"$[{index}]{path[1:]}", problem) for path, problem in e.errors]) from None
        after_request = raw.kind == "request"
    return messages


def read_history(history: list[Any]) -> Conversation:
    """The conversation a pydantic-ai history (its objects) holds; problems are reported at the history's paths.

    The first attempt hands tool arguments, results, values and metadata to the structurer as they are
    (``AS_IS``), which is what a history loaded from JSON holds; only when the structurer refuses something (a
    tool's result holding a datetime, or a real problem) does the reader build again, with every value in
    pydantic-ai's JSON mode, and look for the problem as every reader does (``.._wire.read``).
    """
    token = AS_IS.set(True)
    try:
        return structure(_messages(history), Conversation)
    except ValidationError:
        pass
    finally:
        AS_IS.reset(token)
    return read(lambda: _messages(history))
