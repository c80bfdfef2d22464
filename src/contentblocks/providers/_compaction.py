"""A compaction sent where it cannot go as one: its summary as text, its provider state dropped and reported.

Only Anthropic and OpenAI Responses have a compaction of their own, and each takes back only the compactions it
issued. Every other target, and each of those two for a compaction issued elsewhere, gets the readable summary
(if there is one) as a text block, reported ``content_degraded`` since it reads back as text, and never the
state: an item id, encrypted content, a signature or the tool changes Anthropic records with its summary are
reported ``state_not_replayed`` and never become text.

>>> from contentblocks import CompactionBlock
>>> from contentblocks.providers._extras import PayloadWriter
>>> class Writer(PayloadWriter):
...     namespace, target, allow_lists = "gemini", "Gemini", {}
>>> writer = Writer()
>>> block = CompactionBlock(summary="We agreed on Oslo.", metadata={
...     "contentblocks/issuer": "anthropic", "anthropic/signature": "c2ln"})
>>> compaction_as_text(writer, block, "$[1].content[0]")
TextBlock(text='We agreed on Oslo.', citations=(), cache=None, metadata=JsonObject({}))
>>> for loss in writer.losses.losses:
...     print(loss.kind, "-", loss.reason.split(";")[0])
state_not_replayed - compaction state issued by 'anthropic' is sent back only to its issuer, not to Gemini
content_degraded - Gemini has no compaction block
"""

from __future__ import annotations

from collections.abc import Callable

from .._model._classes import CompactionBlock, TextBlock
from ._contract import ISSUER_KEY, LossKind, issued_by
from ._extras import PayloadWriter

__all__ = ["COMPACTION_STATE", "compaction_as_text", "compaction_losses", "compaction_state", "compaction_summary"]

#: The metadata of a compaction that is its issuer's state: Anthropic's encrypted content, signature and tool
#: changes, an OpenAI compaction item's id, encrypted content and author.
COMPACTION_STATE: frozenset[str] = frozenset(
    {
        "anthropic/encrypted_content",
        "anthropic/signature",
        "anthropic/tool_changes",
        "openai/id",
        "openai/encrypted_content",
        "openai/created_by",
    }
)


def compaction_state(block: CompactionBlock) -> list[str]:
    """The metadata keys of ``block`` that hold its issuer's state, in the metadata's order."""
    return [key for key in block.metadata if key in COMPACTION_STATE]


def compaction_losses(
    block: CompactionBlock, path: str, target: str, add: Callable[[str, str, LossKind], None], *, own: bool = False
) -> str | None:
    """Report what sending ``block`` as text to ``target`` loses; the summary to send, or ``None`` when it has none.

    Its state is reported once, at the block, as ``state_not_replayed``. A compaction with neither summary nor
    state carries nothing, and is dropped with a ``content_dropped`` loss so that nothing leaves silently. The
    rest of its metadata is the caller's to report (every key but ``compaction_state``'s and the issuer).
    ``own`` says that ``target`` has compactions of its own, which take back only what it issued.
    """
    if compaction_state(block):
        origin = issued_by(block.metadata.get(ISSUER_KEY))
        reason = f"compaction state {origin} is sent back only to its issuer, not to {target}; dropped"
        add(path, f"{reason} (never sent as text)", "state_not_replayed")
    if block.summary is None:
        if not compaction_state(block):
            add(path, f"a compaction with no summary and no provider state carries nothing for {target}; dropped",
                "content_dropped")
        return None
    why = f"{target} takes back only the compactions it issued" if own else f"{target} has no compaction block"
    add(path, f"{why}; its summary is sent as text (reads back as a text block)", "content_degraded")
    return block.summary


def compaction_as_text(
    writer: PayloadWriter, block: CompactionBlock, path: str, *, own: bool = False
) -> TextBlock | None:
    """The text block to send for ``block`` where no compaction can go (see ``compaction_losses``).

    The block's other metadata is reported as any metadata the target has no place for.
    """
    summary = compaction_losses(block, path, writer.target, writer.loss, own=own)
    writer.report(path, block.metadata, compaction_state(block))
    return None if summary is None else TextBlock(text=summary)


def compaction_summary(
    block: CompactionBlock, path: str, target: str, add: Callable[[str, str, LossKind], None], taken: set[str]
) -> str | None:
    """For a bridge with no compaction: ``compaction_losses``, with the state and issuer keys added to ``taken``.

    ``taken`` is the set of metadata keys the bridge counts as handled (its metadata handout's), so that only
    the block's other metadata is reported as not sent.
    """
    taken.update(compaction_state(block))
    taken.add(ISSUER_KEY)
    return compaction_losses(block, path, target, add)
