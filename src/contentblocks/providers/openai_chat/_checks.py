"""What OpenAI Chat Completions would refuse in a conversation, found before the request is made.

The checks run over the request ``to_provider`` would build (so a message it leaves out, or a tool message
per result, is judged as it would be sent), and name the place in the conversation each one comes from.
Every rule is stated in OpenAI's documentation; ``docs/providers/openai_chat.md`` gives the source of each.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..._model._classes import FileBlock, ReferenceSource, ToolResultBlock
from ..._model._conversation import Conversation
from .._contract import Rejection
from ._write import Sent

__all__ = ["IMAGE_TYPES", "RULES", "check"]

#: Each rule's id and what it says.
RULES: dict[str, str] = {
    "openai_chat/no-messages": "a request carries at least one message",
    "openai_chat/tool-answers-previous-calls": (
        "a tool message answers a tool call of the assistant message right before its run of tool messages"
    ),
    "openai_chat/calls-answered": (
        "an assistant message's tool calls are each answered by a tool message before the next other message"
    ),
    "openai_chat/assistant-content": "an assistant message without tool calls or a function call has content",
    "openai_chat/image-type": "an image is PNG, JPEG, WEBP or GIF",
}

#: The image media types the API reads (the Images and vision guide: PNG, JPEG, WEBP and non-animated GIF).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/webp", "image/gif"})


def _order(messages: list[dict[str, Any]], sent: list[Sent]) -> Iterable[Rejection]:
    """The tool-message order rules and the assistant-content rule, over the payload's messages."""
    answering: set[str] | None = None  # the call ids the current run of tool messages may answer
    pending: dict[str, str] = {}  # call id -> path of the call, not yet answered
    for native, (path, call_paths) in zip(messages, sent, strict=True):
        if native["role"] == "tool":
            call_id = native["tool_call_id"]
            if answering is None or call_id not in answering:
                yield Rejection(
                    path,
                    "openai_chat/tool-answers-previous-calls",
                    "a tool message must answer a tool call of the assistant message right before it",
                )
            pending.pop(call_id, None)
            continue
        yield from _unanswered(pending)
        answering, pending = None, {}
        if native["role"] != "assistant":
            continue
        calls = native.get("tool_calls", [])
        if calls:
            answering = {call["id"] for call in calls}
            pending = {call["id"]: call_path for call, call_path in zip(calls, call_paths, strict=True)}
        elif native.get("content") is None and "function_call" not in native:
            yield Rejection(
                path,
                "openai_chat/assistant-content",
                "an assistant message without tool calls needs content (a refusal alone is not content)",
            )
    yield from _unanswered(pending)


def _unanswered(pending: dict[str, str]) -> Iterable[Rejection]:
    for call_path in pending.values():
        yield Rejection(
            call_path,
            "openai_chat/calls-answered",
            "a tool call must be answered by a tool message before the next message that is not one",
        )


def _images(conversation: Conversation, move_files: bool) -> Iterable[Rejection]:
    """Images sent as ``image_url`` parts whose media type the API does not read."""
    for i, message in enumerate(conversation):
        if message.role == "user":
            blocks = [(f"$[{i}].content[{j}]", b) for j, b in enumerate(message.content)]
        elif message.role == "tool" and move_files:
            blocks = [
                (f"$[{i}].content[{j}].content[{k}]", item)
                for j, result in enumerate(message.content)
                if isinstance(result, ToolResultBlock)
                for k, item in enumerate(result.content)
            ]
        else:
            continue
        for path, block in blocks:
            if not isinstance(block, FileBlock) or isinstance(block.source, ReferenceSource):
                continue
            media_type = block.media_type.lower()
            if media_type.startswith("image/") and media_type != "image/*" and media_type not in IMAGE_TYPES:
                yield Rejection(
                    path, "openai_chat/image-type", "Chat Completions reads PNG, JPEG, WEBP and GIF images only"
                )


def check(
    conversation: Conversation, messages: list[dict[str, Any]], sent: list[Sent], *, move_files: bool
) -> tuple[Rejection, ...]:
    """Every rule broken by ``messages`` (the payload written for ``conversation``).

    The message-order and content rules come first, in conversation order, then the image types, then an
    empty request.
    """
    found = list(_order(messages, sent))
    found.extend(_images(conversation, move_files))
    if not messages:
        found.append(Rejection("$", "openai_chat/no-messages", "the request would carry no message"))
    return tuple(found)
