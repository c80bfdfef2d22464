"""Provenance of provider state: with the server's keys, state replays only from messages whose seal verifies.

Provider state (a reasoning ``signature`` or ``redacted`` bytes, a thought signature, a provider-run item)
goes back only to the provider that issued it, and the adapters read the issuer from ``contentblocks/issuer``.
That key is metadata, which anyone who wrote the history could have written. When ``to_provider`` or
``preflight`` is given the server's ``keys`` (and the ``context`` it sealed with), the issuer becomes a sealed
fact: ``state_checked`` verifies each message's seal and, in every message whose seal does not verify (absent,
edited, made for another context or with an unknown key), records the issuer of each block that may carry
state as :data:`UNVERIFIED`. No target matches that issuer, so the writers' own issuer checks drop the state
and report it (``state_not_replayed``) at its path, while the content around it is written as for any message.
A seal that is present but does not verify is reported too (``seal_rejected``).

Nothing is removed or reordered here, so every path a writer reports points into the conversation as given.

>>> import contentblocks as cb
>>> key = cb.SealKey("k1", b"k" * 32)
>>> thought = cb.ReasoningBlock(text="Plan.", signature="sig", metadata={"contentblocks/issuer": "anthropic"})
>>> sealed = cb.seal(cb.Message(role="assistant", content=[thought]), key)
>>> forged = cb.Message(role="assistant", content=[thought])
>>> marked, losses = state_checked(cb.Conversation(messages=[sealed, forged]), key, b"")
>>> [m.content[0].metadata["contentblocks/issuer"] for m in marked]
['anthropic', 'contentblocks/unverified']
>>> losses
()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import attrs

from .._model._classes import Block, CompactionBlock, JsonBlock, Message, ReasoningBlock, ToolResultBlock
from .._model._conversation import Conversation
from .._sealing import SEAL_KEY, Keyring, SealKey, verify_seals
from ._argument_checks import keys_argument
from ._contract import ISSUER_KEY, UNVERIFIED, Loss
from ._extras import PROVIDER_STATE
from ._native import NATIVE_KINDS
from ._toolkit import key_path

__all__ = ["state_checked", "with_provenance"]

MessagesT = TypeVar("MessagesT", bound=Sequence[Message])

_NATIVE_FLAGS = frozenset(kinds.flag for kinds in NATIVE_KINDS.values())



def _may_carry_state(block: Block) -> bool:
    """Whether a block holds something only an issuer may receive, or reads its issuer for anything."""
    metadata = block.metadata
    if ISSUER_KEY in metadata or not PROVIDER_STATE.isdisjoint(metadata):
        return True
    if type(block) in (ReasoningBlock, CompactionBlock):
        return True
    return type(block) is JsonBlock and not _NATIVE_FLAGS.isdisjoint(metadata)


def _marked(block: Block) -> Block:
    if type(block) is ToolResultBlock:
        content = tuple(_marked(inner) for inner in block.content)
        changed = any(new is not old for new, old in zip(content, block.content, strict=True))
        return attrs.evolve(block, content=content) if changed else block  # type: ignore[arg-type]
    if not _may_carry_state(block):
        return block
    metadata: Mapping[str, Any] = {**block.metadata, ISSUER_KEY: UNVERIFIED}
    return attrs.evolve(block, metadata=metadata)


def _unverified(message: Message) -> Message:
    content = tuple(_marked(block) for block in message.content)
    if all(new is old for new, old in zip(content, message.content, strict=True)):
        return message
    return Message(role=message.role, content=content, cache=message.cache, metadata=message.metadata)


def state_checked(
    conversation: Sequence[Message], keys: SealKey | Keyring, context: str | bytes
) -> tuple[Sequence[Message], tuple[Loss, ...]]:
    """``conversation`` with the state of every message whose seal does not verify marked :data:`UNVERIFIED`.

    Returns the messages to write (the same object when nothing is marked; a ``Conversation`` for a
    ``Conversation``, else a tuple) and a ``seal_rejected`` loss for each seal present that does not verify.
    A message with no seal is no loss in itself: the server's own new turn has none. Its state, if any, is
    what the writers report.
    """
    checks = verify_seals(conversation, keys, context=context)
    messages: list[Message] = []
    losses: list[Loss] = []
    changed = False
    for i, (message, check) in enumerate(zip(conversation, checks, strict=True)):
        if check.status == "sealed":
            messages.append(message)
            continue
        if check.rejection is not None:
            path = key_path(f"$[{i}]", SEAL_KEY)
            losses.append(Loss(path, f"{check.rejection}; its provider state is not replayed", "seal_rejected"))
        marked = _unverified(message)
        changed = changed or marked is not message
        messages.append(marked)
    if not changed:
        return conversation, tuple(losses)
    return (Conversation(messages=messages) if isinstance(conversation, Conversation) else tuple(messages)), tuple(
        losses
    )


def with_provenance(
    conversation: MessagesT, keys: object, context: object, call: str
) -> tuple[MessagesT, tuple[Loss, ...]]:
    """What an adapter writes for ``keys=`` and ``context=``: as given without keys, else ``state_checked``."""
    keyring, context_bytes = keys_argument(keys, context, call)
    if keyring is None:
        return conversation, ()
    return state_checked(conversation, keyring, context_bytes)  # type: ignore[return-value]
