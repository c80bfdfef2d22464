"""Helpers the provider-adapter tests share: the SDKs' lazy validation, the docs tables, payload keys, metadata."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import contentblocks as cb

ROOT = Path(__file__).resolve().parents[1]


def examples(count: int) -> settings:
    """Hypothesis settings for tests over generated conversations: ``count`` examples, no deadline, and no health
    check for slow or large draws (a conversation with files is both)."""
    return settings(
        max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
    )


#: Metadata to add to one block, drawn for that block (``stamped``'s ``more``).
More = Callable[[Any], st.SearchStrategy[dict[str, Any]]]


def consume(value: Any) -> Any:
    """A plain copy of a value validated by pydantic, consuming every lazily validated iterable on the way.

    The SDKs type nested content as ``Iterable[...]``, which pydantic checks only when it is iterated: without
    this, a malformed payload would pass.
    """
    if isinstance(value, Mapping):
        return {k: consume(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, bytearray, int, float, bool)) or value is None:
        return value
    if isinstance(value, Iterable):
        return [consume(v) for v in value]
    return value


def documented_reasons(page: str) -> list[re.Pattern[str]]:
    """The loss reasons of a provider page's degradation table, as patterns (``<...>`` matches any value)."""
    text = (ROOT / "docs" / "providers" / page).read_text(encoding="utf-8")
    section = text.split("## Degradations", 1)[1]
    reasons = [row.rsplit("|", 2)[-2].strip().strip("`") for row in section.splitlines() if row.startswith("| ")]
    return [
        re.compile(re.sub(r"<[^>]+>", ".+", re.escape(r).replace(r"\<", "<").replace(r"\>", ">"))) for r in reasons[1:]
    ]


def assert_documented(reasons: list[re.Pattern[str]], losses: Iterable[Any]) -> None:
    """Every loss reported has a row in the provider page's degradation table."""
    for loss in losses:
        assert any(p.fullmatch(loss.reason) for p in reasons), f"undocumented loss: {loss}"


def json_keys(value: Any) -> set[str]:
    """Every object key anywhere in a JSON value: a word that must never be a field is not among them."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def stamp(block: Any, draw: st.DrawFn, extra: st.SearchStrategy[dict[str, Any]], more: More | None = None) -> Any:
    """``block`` with drawn metadata added (``extra``, then ``more(block)``), and the parts of a tool result too."""
    metadata = {**block.metadata, **draw(extra), **(draw(more(block)) if more is not None else {})}
    if isinstance(block, cb.ToolResultBlock):
        content = [stamp(part, draw, extra, more) for part in block.content]
        return attrs.evolve(block, content=content, metadata=metadata)
    return attrs.evolve(block, metadata=metadata)


@st.composite
def stamped(
    draw: st.DrawFn,
    conversations: st.SearchStrategy[cb.Conversation],
    extra: st.SearchStrategy[dict[str, Any]],
    more: More | None = None,
) -> cb.Conversation:
    """A drawn conversation whose messages, blocks and tool-result parts each carry more metadata from ``extra``.

    ``more(block)`` draws what one block adds besides (an item id on some blocks, say); messages get ``extra`` only.
    """
    return cb.Conversation(
        messages=[
            cb.Message(
                role=message.role,
                content=[stamp(block, draw, extra, more) for block in message.content],
                metadata={**message.metadata, **draw(extra)},
            )
            for message in draw(conversations)
        ]
    )


def anthropic_message(content: list[Any], stop_reason: str | None = "end_turn", **usage: int) -> dict[str, Any]:
    """A Messages API response holding ``content``, as its JSON (validate it with the SDK for the object form)."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7, **usage},
    }


def search_results_as_text(raw: Any, losses: Iterable[Any], locate: Callable[[Any, str], tuple[Any, Any]]) -> list[Any]:
    """Apply to ``raw`` (an unstructured conversation) the losses of search results sent as text; the rest back.

    A writer whose target has no search result block replaces each by one text block (its readable parts), with
    the block's metadata and its breakpoint (its own, else its last part's), and reports its parts' citations, its
    ``citable`` flag and its parts' other breakpoints with it.
    """
    from contentblocks.providers._search_results import search_result_cache, search_result_text  # noqa: PLC0415 - the writers' own

    rest = []
    for loss in losses:
        if "has no search result block; sent as text" in loss.reason:
            node, key = locate(raw, loss.path)
            block = node[key]
            result = cb.structure(block, cb.SearchResultBlock)
            cache = {"cache": cb.unstructure(search_result_cache(result))} if search_result_cache(result) else {}
            node[key] = {"type": "text", "text": search_result_text(result), **cache,
                         **({"metadata": block["metadata"]} if "metadata" in block else {})}  # fmt: skip
        elif "has no search result block;" not in loss.reason:
            rest.append(loss)
    return rest


def sources_split(losses: Iterable[Any]) -> tuple[list[Any], Callable[[Any, Callable[[Any, str], tuple[Any, Any]]], None]]:
    """The losses but those of citations written one per source, and what applies those to a raw conversation.

    Call the second after every other loss is applied (their paths count the citations as given): each such
    citation comes back as one citation per source, with the same span, title and quote.
    """
    split = [loss for loss in losses if "written as one citation per source" in loss.reason]
    rest = [loss for loss in losses if loss not in split]

    def apply(raw: Any, locate: Callable[[Any, str], tuple[Any, Any]]) -> None:
        for loss in sorted(split, key=lambda loss: loss.path, reverse=True):
            citations, k = locate(raw, loss.path.removesuffix(".other_sources"))
            citation = citations[k]
            others = citation.pop("other_sources")
            citations[k:k + 1] = [{**citation, "source": source} for source in (citation["source"], *others)]

    return rest, apply


def compactions_as_text(raw: list[dict[str, Any]], dropped: set[int]) -> set[str]:
    """Each compaction of ``raw`` as a bridge gives it back (its summary as text; without one, dropped), and their
    paths: the losses reported there (its state, the summary degraded, its metadata) say nothing more."""
    paths = set()
    for i, message in enumerate(raw):
        for j, block in enumerate(message["content"]):
            if block["type"] == "compaction":
                paths.add(f"$[{i}].content[{j}]")
                if "summary" in block:
                    message["content"][j] = {"type": "text", "text": block["summary"]}
                else:
                    dropped.add(id(block))
    return paths


def approvals_left_local(raw: list[dict[str, Any]], losses: Iterable[Any]) -> tuple[list[Any], set[int], set[int]]:
    """What a target without approvals does to ``raw``: the approval blocks reported ``approval_not_sent`` (their
    ids) and the messages that held nothing else (their indexes) are gone, with every loss said of them; the
    other losses, which point into the conversation as given."""
    losses = list(losses)
    gone: set[str] = {loss.path for loss in losses if loss.kind == "approval_not_sent"}
    blocks = {id(raw[int(i)]["content"][int(j)])
              for i, j in (re.fullmatch(r"\$\[(\d+)\]\.content\[(\d+)\]", p).groups() for p in gone)}  # type: ignore[union-attr]
    messages = {i for i, message in enumerate(raw) if message["content"]
                and all(id(block) in blocks for block in message["content"])}
    gone |= {f"$[{i}].metadata" for i in messages} | {f"$[{i}].cache" for i in messages}
    return [loss for loss in losses if not under(gone, loss.path)], blocks, messages


def under(paths: set[str], path: str) -> bool:
    """Whether ``path`` is one of ``paths`` or inside one of them."""
    return any(path == p or path.startswith((p + ".", p + "[")) for p in paths)


def uncached(block: Any) -> Any:
    """``block`` without a cache breakpoint anywhere in it (the parts of results and search results included)."""
    if isinstance(block, (cb.ToolResultBlock, cb.ServerToolResultBlock, cb.SearchResultBlock)):
        return attrs.evolve(block, cache=None, content=[uncached(part) for part in block.content])
    return attrs.evolve(block, cache=None)


def with_server_tools() -> st.SearchStrategy[cb.Conversation]:
    """Conversations that end with an assistant message of server calls and results (drawn apart: no pairing)."""
    from contentblocks import strategies  # noqa: PLC0415 - Hypothesis strategies, for the test modules only

    drawn = st.one_of(strategies.server_tool_call_blocks(), strategies.server_tool_result_blocks())
    tools = st.lists(drawn, min_size=1, max_size=3)
    return st.tuples(strategies.conversations(max_messages=3), tools).map(lambda pair: cb.Conversation(
        messages=[*pair[0], cb.Message(role="assistant", content=pair[1])]))
