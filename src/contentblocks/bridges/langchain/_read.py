"""LangChain's messages (their fields, as ``model_dump()`` names them) to a conversation.

Each ``HumanMessage``, ``SystemMessage`` and ``AIMessage`` (and its chunk) becomes one message; ``ToolMessage``
objects in a row become one tool message of tool results. Content items with a neutral block map to it (text
with its citations, refusals, reasoning, files, tool calls); a provider's format (or a v0 block) is read as what
LangChain's own ``content_blocks`` translates it to, the item kept to be written back as it was; a tool the provider
ran (``server_tool_call``, its chunk, ``server_tool_result``) is a server call and result (``._server``), the
chunk blocks of one call joined first (``._chunks``); the others (``non_standard``...) are kept whole as JSON
blocks flagged
``langchain/native_block``, so that reading never drops anything. Every key a block mapping does not use is
kept as ``langchain/<key>``.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from ..._errors import ValidationError
from ..._model._classes import Block
from ..._model._conversation import Conversation
from ...providers._contract import ISSUER_KEY
from ...providers._toolkit import b64decode, fail
from .._wire import block, checking, message, placed, placing, read, revised, source, structure
from ._chunks import merged_calls
from ._citations import citations_of, extras_taken
from ._fields import (
    CLASSES,
    CONTENT_LIST,
    DEVELOPER,
    ISSUER_EXTRA,
    NAMESPACE,
    NATIVE,
    NO_ORIGIN,
    OUTSIDE,
    PLAIN,
    PROVIDER_EXTRA,
    Origin,
    block_kind,
    byte_offsets,
    message_fields,
    origin_of,
)
from ._server import KINDS, read_server

__all__ = ["EMPTY", "ORIGINAL", "UNLISTED", "read_history", "read_item"]

#: On the JSON block standing for a message's empty content (``""`` or ``[]``), which no neutral block holds.
EMPTY = "langchain/empty_content"
#: On a block read through LangChain's translation of a provider's format: the item as it was.
ORIGINAL = "langchain/original"
#: The v1 blocks a translated item may become to be read as a neutral block.
_TRANSLATED = frozenset({"text", "reasoning", "refusal", "image", "audio", "video", "file", "text-plain"})
#: The v1 blocks LangChain passes through as they are: no translation gives them a neutral home.
_PASSED = frozenset({"server_tool_call", "server_tool_call_chunk", "server_tool_result", "tool_call_chunk"})
#: While reading a history: the server calls read so far, id -> tool name.
_SERVER_NAMES: ContextVar[dict[str, str] | None] = ContextVar("contentblocks_langchain_server_names", default=None)
#: On a tool call in an ``AIMessage``'s content that its ``tool_calls`` (or ``invalid_tool_calls``) do not name.
UNLISTED = "langchain/unlisted"
_WILDCARDS = {"image": "image/*", "audio": "audio/*", "video": "video/*", "file": "application/octet-stream",
              "text-plain": "text/plain"}
_OUTCOMES = {"success": "succeeded", "error": "failed"}
#: The content items a tool call of an ``AIMessage`` is read from (a chunk's: the first of its call's).
_CALL_ITEMS = frozenset({"tool_call", "invalid_tool_call", "tool_call_chunk"})
#: What a tool message may carry.
_RESULT_CONTENT = frozenset({"text", "file", "json"})

_TYPE, _KWARGS, _BARE = NAMESPACE + "type", NAMESPACE + "additional_kwargs", {"type": None, "text": None}.keys()
#: A block (or message) as its wire dict (see ``.._wire``).
Wire = dict[str, Any]


def _native(raw: object) -> Wire:
    return block("json", value=raw, metadata={NATIVE: True})


def _rest(item: Mapping[str, Any], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """``metadata`` with every key of ``item`` not yet used kept as ``langchain/<key>``."""
    if not item:  # every key used, as most items have them: ``metadata`` itself, the reader's own
        return {} if metadata is None else metadata
    return {**(metadata or {}), **{NAMESPACE + key: value for key, value in item.items()}}


def _text(item: dict[str, Any], origin: Origin) -> Wire:
    if len(item) == 2:  # ``type`` and ``text`` (else a KeyError, as below): a bare text, most items
        return block("text", text=item["text"])
    del item["type"]
    text, annotations = item.pop("text"), item.pop("annotations", None)
    citations, exact = citations_of(annotations, text, byte_offsets(origin.provider))
    metadata = _rest(item)
    if not exact:
        metadata[NAMESPACE + "annotations"] = annotations
    try:
        return block("text", text=text, citations=citations, metadata=metadata)
    except ValidationError:
        if not citations:
            raise
        # a span outside the text: the annotations are kept as they are
        return block("text", text=text, metadata={**metadata, NAMESPACE + "annotations": annotations})


def _refusal(item: dict[str, Any], origin: Origin) -> Wire:  # noqa: ARG001 - the table's signature
    del item["type"]
    return block("refusal", text=item.pop("refusal"), metadata=_rest(item))


def _reasoning(item: dict[str, Any], origin: Origin) -> Wire:
    del item["type"]
    signature, issuer = extras_taken(item, "signature", ISSUER_EXTRA)
    text = item.pop("reasoning", None)
    metadata: dict[str, Any] = {}
    if text == "":
        metadata[NAMESPACE + "reasoning"], text = text, None
    if issuer is None and signature is not None:
        issuer = origin.issuer
    if issuer is not None:
        metadata[ISSUER_KEY] = issuer
    return block("reasoning", text=text, signature=signature, metadata=_rest(item, metadata))


def _redacted(item: dict[str, Any], origin: Origin) -> Wire | None:
    """Anthropic's redacted thinking, as LangChain keeps it: a ``non_standard`` block of the provider's own."""
    value = item.get("value")
    if set(item) != {"type", "value"} or not isinstance(value, dict) or set(value) != {"type", "data"}:
        return None
    if value["type"] != "redacted_thinking" or not isinstance(value["data"], str) or not value["data"]:
        return None
    issuer = origin.issuer
    metadata = {} if issuer is None else {ISSUER_KEY: issuer}
    return block("reasoning", redacted=value["data"].encode("utf-8"), metadata=metadata)


def _file(item: dict[str, Any], origin: Origin) -> Wire:  # noqa: ARG001 - the table's signature
    kind = item.pop("type")
    sources = [key for key in ("base64", "url", "file_id", "text") if key in item]
    if len(sources) != 1 or (sources[0] == "text" and kind != "text-plain"):
        raise fail("$", "a file block names exactly one source")
    filename, uploader = extras_taken(item, "filename", PROVIDER_EXTRA)
    metadata: dict[str, Any] = {}
    media_type = item.pop("mime_type", None)
    if media_type is None:
        metadata[NAMESPACE + "mime_type"], media_type = None, _WILDCARDS[kind]
    value = item.pop(sources[0])
    if sources[0] == "base64":
        held = source("base64", data=b64decode(value, "$.base64"))  # canonical base64, as it is written back
    elif sources[0] == "url":
        held = source("url", url=value)
    elif sources[0] == "file_id":
        held = source("reference", id=value, provider=uploader)
        uploader = None
    else:
        held, metadata[NAMESPACE + "source"] = source("base64", data=str(value).encode("utf-8")), "text"
    if uploader is not None:
        raise fail("$.extras", "a provider names an uploaded file only")
    if kind != block_kind(media_type):
        metadata[NAMESPACE + "type"] = kind
    return block("file", media_type=media_type, source=held, filename=filename, metadata=_rest(item, metadata))


def _tool_call(item: dict[str, Any], origin: Origin) -> Wire:  # noqa: ARG001 - the table's signature
    kind = item.pop("type", "tool_call")
    args = item.pop("args")
    if kind == "tool_call" and not isinstance(args, dict):
        raise fail("$.args", "a tool call's args are an object")
    metadata = {} if kind == "tool_call" else {NAMESPACE + "type": kind}
    return block("tool_call", tool_call_id=item.pop("id"), tool_name=item.pop("name"), input=args,
                 metadata=_rest(item, metadata))


_READERS: Mapping[str, tuple[frozenset[str], Callable[[dict[str, Any], Origin], Wire]]] = {
    "text": (frozenset({"system", "user", "assistant", "tool"}), _text),
    "refusal": (frozenset({"assistant"}), _refusal),
    "reasoning": (frozenset({"assistant"}), _reasoning),
    "tool_call": (frozenset({"assistant"}), _tool_call),
    "invalid_tool_call": (frozenset({"assistant"}), _tool_call),
    **{kind: (frozenset({"user", "assistant", "tool"}), _file)
       for kind in ("image", "audio", "video", "file", "text-plain")},
}


def _translated(item: dict[str, Any], role: str, origin: Origin) -> Wire | None:
    """The block a provider's format (or a v0 block) becomes through LangChain's own translation to v1.

    Only a translation to one block with a neutral home is read; the item is kept in ``langchain/original``, to
    be written back as it was while the block is not edited.
    """
    messages = importlib.import_module("langchain_core.messages")  # imported (and checked) by the facade
    try:
        if role == "assistant":
            translated = messages.AIMessage(content=[item], response_metadata={"model_provider": origin.provider}
                                            if origin.provider else {}).content_blocks
        else:
            translated = messages.HumanMessage(content=[item]).content_blocks
    except Exception:  # noqa: BLE001 - a format LangChain cannot translate stays whole
        return None
    if len(translated) != 1 or translated[0].get("type") not in _TRANSLATED:
        return None
    v1 = dict(translated[0])
    if "id" not in item:
        v1.pop("id", None)  # LangChain makes one up for each translation
    roles, reader = _READERS[v1["type"]]
    if role not in roles:
        return None
    try:
        read_block = reader(v1, origin)
    except (ValidationError, KeyError, TypeError):
        return None
    return revised(read_block, metadata={**read_block.get("metadata", {}), ORIGINAL: item})


def _plain(item: str) -> Wire:
    return block("text", text=item, metadata={PLAIN: True})


def _item(item: object, role: str, origin: Origin) -> Wire:
    """The block one content item becomes in a message of ``role``: its neutral block, or itself kept whole."""
    if type(item) is dict and item.keys() == _BARE and item["type"] == "text":  # most items: a bare text
        with contextlib.suppress(ValidationError):  # raised while checking only: then read as any item is
            return block("text", text=item["text"])
    read: Callable[..., Wire]
    arguments: tuple[Any, ...]
    if isinstance(item, str):
        read, arguments = _plain, (item,)
    elif isinstance(item, dict) and "source_type" not in item and item.get("type") in _READERS:
        roles, reader = _READERS[item["type"]]
        if role not in roles:
            return _native(item)
        read, arguments = reader, (dict(item), origin)
    elif isinstance(item, dict) and role == "assistant" and item.get("type") in KINDS:
        names = _SERVER_NAMES.get()
        read, arguments = read_server, (item, origin, {} if names is None else names)
    elif isinstance(item, dict) and role == "assistant" and item.get("type") == "non_standard":
        return _redacted(item, origin) or _native(item)
    elif isinstance(item, dict) and role != "system" and item.get("type") not in _PASSED:
        return _translated(item, role, origin) or _native(item)
    else:
        return _native(item)
    try:
        return read(*arguments)
    except (ValidationError, KeyError, TypeError):
        # a provider's block under a v1 name (Anthropic's ``image`` with a ``source``, OpenAI's ``file``)
        translated = _translated(item, role, origin) if isinstance(item, dict) and role != "system" else None
        return translated or _native(item)


def _invalid(kind: str) -> bool:
    return kind != "tool_call"


def _as_string(content: object, blocks: list[Wire], metadata: dict[str, Any]) -> None:
    """Flag a list ``content`` whose string form would read to the same ``blocks``.

    That is: no block but calls the lists name (valid ones first), or one bare text first.
    """
    if not isinstance(content, list):
        return
    calls = [b.get("metadata", {}) for b in blocks if b["type"] == "tool_call"]
    if calls:
        kinds = [call.get(_TYPE, "tool_call") for call in calls]
        if any(UNLISTED in call for call in calls) or kinds != sorted(kinds, key=_invalid):
            return  # a string content holds calls in the lists alone, ``tool_calls`` first
        others = [b for b in blocks if b["type"] != "tool_call"]
    else:
        others = blocks
    if not others or (len(others) == 1 and blocks[0] is others[0] and others[0]["type"] == "text"
                      and not others[0].get("citations") and not others[0].get("metadata")):
        metadata[CONTENT_LIST] = True


def read_item(item: object, role: str, origin: Origin) -> Block:
    """The block one content item becomes in a message of ``role`` (what the writer compares a kept item with)."""
    with checking():
        return structure(_item(item, role, origin), Block)  # type: ignore[arg-type]


def _content(content: object, role: str, origin: Origin) -> list[Wire]:
    if isinstance(content, str):
        return [block("text", text=content)] if content else []
    if not isinstance(content, list):
        raise fail("$.content", "expected a string or a list")
    if role == "assistant":
        content = merged_calls(content)
    return [_item(item, role, origin) for item in content]


def _calls(raw: Mapping[str, Any], blocks: list[Wire], listed: bool, metadata: dict[str, Any]) -> list[Wire]:
    """The tool calls of ``AIMessage.tool_calls`` and ``invalid_tool_calls`` that the content does not hold."""
    held = {b["tool_call_id"] for b in blocks if b["type"] == "tool_call"}
    if held:  # a call in the content that the lists do not name stays out of them
        named = [call.get("id") for key in ("tool_calls", "invalid_tool_calls") for call in raw[key]]
        for position, b in enumerate(blocks):
            if b["type"] == "tool_call" and b["tool_call_id"] not in named:
                blocks[position] = revised(b, metadata={**b.get("metadata", {}), UNLISTED: True})
    calls: list[Wire] = []
    for key in ("tool_calls", "invalid_tool_calls"):
        unmapped = []
        for call in raw.get(key) or []:
            if call.get("id") in held:
                continue
            try:
                read_call = _tool_call({"type": key[:-1], **call}, NO_ORIGIN)
            except (ValidationError, KeyError, TypeError):
                unmapped.append(call)
                continue
            calls.append(revised(read_call, metadata={**read_call.get("metadata", {}), OUTSIDE: True}) if listed
                         else read_call)
        if unmapped:
            metadata[NAMESPACE + key] = unmapped
    return calls


def _message(raw: Mapping[str, Any], role: str) -> Wire:
    metadata = message_fields(raw)
    kwargs = metadata.get(_KWARGS)
    if role == "system" and isinstance(kwargs, dict) and kwargs.get(DEVELOPER[0]) == DEVELOPER[1]:
        role = "developer"
        kwargs = {key: value for key, value in kwargs.items() if key != DEVELOPER[0]}
        if kwargs:
            metadata[NAMESPACE + "additional_kwargs"] = kwargs
        else:
            del metadata[NAMESPACE + "additional_kwargs"]
    origin = origin_of(raw.get("response_metadata"))
    blocks = _content(raw["content"], "system" if role == "developer" else role, origin)
    if role == "assistant":
        blocks += _calls(raw, blocks, isinstance(raw["content"], list), metadata)
    _as_string(raw["content"], blocks, metadata)
    if not blocks:
        if role in {"system", "developer"}:
            raise fail("$.content", "a system message with no content has no neutral message")
        metadata.pop(CONTENT_LIST, None)
        blocks = [block("json", value=raw["content"], metadata={EMPTY: True})]
    if role in {"system", "developer"}:
        for position, b in enumerate(blocks):
            if b["type"] != "text":
                raise fail(f"$.content[{position}]", "a system message carries text only")
    return message(role, blocks, metadata)


def _tool_result(raw: Mapping[str, Any], names: Mapping[str, str]) -> Wire:
    metadata = message_fields(raw)
    name = raw.get("name")
    metadata.pop(NAMESPACE + "name", None)
    if name is None:
        if raw["tool_call_id"] not in names:
            raise fail("$.name", "a ToolMessage with no name needs the tool call it answers earlier in the history")
        name, metadata[NAMESPACE + "name"] = names[raw["tool_call_id"]], None
    content = _content(raw["content"], "tool", NO_ORIGIN)
    _as_string(raw["content"], content, metadata)
    if not all(b["type"] in _RESULT_CONTENT for b in content):
        raise fail("$.content", "a tool message carries text, files and JSON only")
    status = raw.get("status", "success")
    if status not in _OUTCOMES:
        raise fail("$.status", "expected 'success' or 'error'")
    return block("tool_result", tool_call_id=raw["tool_call_id"], tool_name=name, outcome=_OUTCOMES[status],
                 content=content, metadata=metadata)


def _place_calls(raw: Mapping[str, Any], calls: list[Wire], where: str) -> None:
    """Note where each tool call of an ``AIMessage`` was read from, for a rule across messages it breaks.

    That is its entry in ``tool_calls`` (or ``invalid_tool_calls``), else its block in the content, whose
    ``id`` and ``name`` are the call's id and tool name.
    """
    entries = [(f"{where}.{key}[{i}]", entry) for key in ("tool_calls", "invalid_tool_calls")
               for i, entry in enumerate(raw.get(key) or [])]  # fmt: skip
    if isinstance(raw["content"], list):
        entries += [(f"{where}.content[{i}]", item) for i, item in enumerate(raw["content"])
                    if isinstance(item, dict) and item.get("type") in _CALL_ITEMS]  # fmt: skip
    for call in calls:
        at = next((i for i, (_, entry) in enumerate(entries) if entry.get("id") == call["tool_call_id"]), None)
        if at is not None:
            placed(call, entries.pop(at)[0], tool_call_id="id", tool_name="name")


def _messages(history: list[Mapping[str, Any]], starts: list[int]) -> list[Wire]:
    token = _SERVER_NAMES.set({})  # the server calls read so far: a result's tool is its call's
    try:
        return _read_messages(history, starts)
    finally:
        _SERVER_NAMES.reset(token)


def _read_messages(history: list[Mapping[str, Any]], starts: list[int]) -> list[Wire]:
    """The wire messages of ``history``; ``starts[i]`` is where message ``i`` was in what the caller was given."""
    messages: list[Wire] = []
    results: list[Wire] = []  # the ToolMessages of the current run, one tool message when it ends
    names: dict[str, str] = {}
    for at, raw in zip(starts, history, strict=True):
        try:
            if raw.get("type") not in CLASSES:
                raise fail("$.type", f"LangChain's {raw.get('type')!r} messages have no neutral message")
            role = CLASSES[raw["type"]][1]
            if role == "tool":  # a result's problems across messages are placed at its ToolMessage
                results.append(placed(_tool_result(raw, names), f"$[{at}]", tool_name="name"))
                continue
            if results:
                messages.append(message("tool", results))
                results = []
            messages.append(_message(raw, role))
            calls = [b for b in messages[-1]["content"] if b["type"] == "tool_call"]
            if calls:
                if placing():
                    _place_calls(raw, calls, f"$[{at}]")
                names.update((call["tool_call_id"], call["tool_name"]) for call in calls)
        except ValidationError as e:
            raise ValidationError([(f"$[{at}]{path[1:]}", problem) for path, problem in e.errors]) from None
    if results:
        messages.append(message("tool", results))
    return messages


def read_history(history: list[Mapping[str, Any]], starts: list[int] | None = None) -> Conversation:
    """The conversation dumped LangChain messages hold; problems are reported at the history's paths.

    ``starts[i]`` is the index message ``i`` is reported at (where the chunks summed into it started).
    """
    return read(lambda: _messages(history, list(range(len(history))) if starts is None else starts))
