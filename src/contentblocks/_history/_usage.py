"""The token usage of an agent loop's replies, counted once each, or only those whose message a history holds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._model._classes import Message
from .._model._conversation import Conversation
from ..providers._contract import Reply, Usage

__all__ = ["total_usage"]


def total_usage(replies: Iterable[Reply], *, conversation: Conversation | Sequence[Message] | None = None) -> Usage:
    """The sum of the replies' ``usage``, each reply object counted once, and a reply with no usage as nothing.

    A reply passed twice (the same object) counts once, so a loop may keep its replies in more than one
    list. With ``conversation``, only the replies whose message object is one of the conversation's
    messages count: after :func:`~contentblocks.window` has left old turns out, the total is the usage of
    the replies the history still holds. Messages are matched by identity, not by equality (two replies
    may say the same words); :func:`~contentblocks.window` keeps the messages it keeps as they are, while
    a message that :func:`~contentblocks.prune` or :func:`~contentblocks.repair` changed is a new message,
    and its reply no longer counts. A reply with no message (a blocked prompt) counts only without
    ``conversation``.

    Counts add as :class:`~contentblocks.providers.Usage` adds them (a count is ``None`` only when no reply
    reports it); no reply gives ``Usage()``, whose counts are all ``None``.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import Reply, Usage
    >>> def reply(text, tokens):
    ...     message = cb.Message(role="assistant", content=text)
    ...     return Reply(message=message, usage=Usage(input_tokens=tokens, output_tokens=5), provider="anthropic")
    >>> first, second = reply("Hi.", 100), reply("Hello again.", 140)
    >>> cb.total_usage([first, second, second]).input_tokens  # the same reply twice counts once
    240
    >>> history = cb.Conversation(messages=[cb.Message(role="user", content="Hi"), second.message])
    >>> cb.total_usage([first, second], conversation=history).input_tokens  # first's message is not in it
    140
    >>> cb.total_usage([]) == Usage()
    True

    .. versionadded:: 2026.12.0
    """
    held: set[int] | None = None
    if conversation is not None:
        if not isinstance(conversation, (Conversation, Sequence)) or isinstance(conversation, (str, bytes)):
            msg = f"conversation must be a Conversation or a sequence of messages, got {type(conversation).__name__}"
            raise TypeError(msg)
        held = set(map(id, conversation))  # the conversation holds its messages: their ids stay theirs
    seen: dict[int, Reply] = {}  # holds each reply, so that no other object takes its id meanwhile
    total = Usage()
    for reply in replies:
        if not isinstance(reply, Reply):
            msg = f"total_usage() takes Reply objects, got {type(reply).__name__}"
            raise TypeError(msg)
        if id(reply) in seen:
            continue
        seen[id(reply)] = reply
        if reply.usage is None or (held is not None and (reply.message is None or id(reply.message) not in held)):
            continue
        total += reply.usage
    return total
