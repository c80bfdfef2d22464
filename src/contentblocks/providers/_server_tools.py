"""What a writer does with the tools a provider ran: its own go back natively, another's as readable content.

A provider-run tool (a web search, code execution) is a call and a result that the provider itself made. Only
that provider takes them back as such, and only when the blocks say it issued them (``contentblocks/issuer``,
which its reader records): a call and result are facts about that provider's run, and any other provider would
read them as its own. Sent anywhere else, the call is dropped and the result becomes what a model can read of
it, its text, files and JSON, in the assistant message where it stood; both are reported. State that only the
issuer can read (encrypted search results, item ids) is never written as text.

>>> import contentblocks as cb
>>> result = cb.ServerToolResultBlock(tool_call_id="srvtoolu_1", tool_name="code_execution", outcome="succeeded",
...                                   content=[cb.TextBlock(text="42")], metadata={"contentblocks/issuer": "anthropic",
...                                                                              "anthropic/server_result": {}})
>>> def report(path, reason, kind):
...     print(kind, path)
>>> [(block.text, path) for block, path in readable(result, "$[1].content[0]", report, "Gemini")]
content_degraded $[1].content[0]
state_not_replayed $[1].content[0].metadata["anthropic/server_result"]
[('42', '$[1].content[0].content[0]')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from .._model._classes import Block, ServerToolCallBlock, ServerToolResultBlock, ToolResultContent
from ._contract import ISSUER_KEY, LossKind, issuer_matches
from ._extras import report_metadata

__all__ = ["SERVER_BLOCKS", "issued_to", "readable", "unfolded"]

#: The blocks of a tool the provider ran.
SERVER_BLOCKS = (ServerToolCallBlock, ServerToolResultBlock)

Report = Callable[[str, str, LossKind], None]


class _Recorder(NamedTuple):
    """A loss reporter as ``report_metadata`` takes one."""

    add: Report


_RULE = "a provider-run tool goes back only to the provider that ran it"


def issued_to(block: ServerToolCallBlock | ServerToolResultBlock, target: str) -> bool:
    """Whether ``block`` records ``target`` (a provider, or ``provider/model-family``) as the provider that ran it.

    A block with no recorded issuer matches no provider: a run of unknown origin goes back as readable content.
    """
    return issuer_matches(block.metadata.get(ISSUER_KEY), target.split("/", 1)[0])


def readable(
    block: ServerToolCallBlock | ServerToolResultBlock,
    path: str,
    report: Report,
    target: str,
    own: AbstractSet[str] = frozenset(),
) -> Iterator[tuple[ToolResultContent, str]]:
    """What of ``block`` (at ``path``) a ``target`` that did not run the tool can read, with each item's path.

    A call yields nothing (reported as ``content_dropped``, its metadata with it); a result yields its content,
    reported as ``content_degraded``, and its metadata is reported as any metadata with no place in the target
    is (provider state, such as Anthropic's native result, as ``state_not_replayed``); ``own`` is the writer's own
    bookkeeping, which it reports like any metadata (another adapter's it leaves out).
    """
    if type(block) is ServerToolCallBlock:
        reason = f"{_RULE}; the {block.tool_name} call is not sent to {target}"
        report(path, reason, "content_dropped")
    else:
        assert type(block) is ServerToolResultBlock  # noqa: S101 - narrowed for mypy
        reason = f"{_RULE}; the {block.tool_name} result is sent to {target} as its content"
        report(path, reason, "content_degraded")
    if type(block) is ServerToolResultBlock:  # a dropped call's metadata goes with it
        report_metadata(_Recorder(report), path, block.metadata, (), target, own)  # type: ignore[arg-type]
        for k, item in enumerate(block.content):
            yield item, f"{path}.content[{k}]"


def unfolded(blocks: Sequence[Block], path: str, report: Report, target: str) -> list[tuple[Block, str]]:
    """The ``blocks`` of the message at ``path``, with their paths; a provider-run tool becomes its readable parts.

    For a writer whose target takes back no tool a provider ran: what :func:`readable` gives of each.
    """
    out: list[tuple[Block, str]] = []
    for position, block in enumerate(blocks):
        at = f"{path}.content[{position}]"
        if isinstance(block, SERVER_BLOCKS):
            out += readable(block, at, report, target)
        else:
            out.append((block, at))
    return out
