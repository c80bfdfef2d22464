"""Checks the differential tests share: folding a provider stream step by step, and what its snapshots show."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import contentblocks as cb
from contentblocks.providers import Reply
from contentblocks.streaming import ReplyBuilder
from contentblocks.streaming._reading import StreamReader

FIXTURES = Path(__file__).parent / "fixtures"


def load(provider: str, name: str) -> Any:
    """A recorded-shape stream: the JSON of each event, as the provider's server-sent events carry them."""
    return json.loads((FIXTURES / provider / f"{name}.json").read_text(encoding="utf-8"))


def fixtures(provider: str) -> list[str]:
    """The names of a provider's stream fixtures."""
    return sorted(p.stem for p in (FIXTURES / provider).glob("*.json"))


def dump_forms(objects: Callable[[list[Any]], list[Any]], dict_method: str = "to_dict") -> dict[str, Any]:
    """The forms a stream reaches a user in, each built from the recorded JSON: the SDK's objects (``objects``
    builds them), their ``model_dump()``, ``model_dump(mode="json")`` and ``dict_method()`` dumps, and the
    JSON itself."""
    return {
        "sdk objects": objects,
        "model_dump()": lambda raw: [e.model_dump() for e in objects(raw)],
        "model_dump(mode='json')": lambda raw: [e.model_dump(mode="json") for e in objects(raw)],
        f"{dict_method}()": lambda raw: [getattr(e, dict_method)() for e in objects(raw)],
        "recorded JSON": copy.deepcopy,
    }


def fold(reader: StreamReader, events: Iterable[object]) -> Reply:
    """The reply ``reader`` folds ``events`` into, ``end()`` included."""
    builder = ReplyBuilder(reader.provider)
    builder.feed(reader.events(events))
    return builder.reply()


def _grows_into(view: cb.Block, final: cb.Block) -> bool:
    if type(view) is not type(final):
        return False
    if isinstance(view, (cb.TextBlock, cb.RefusalBlock, cb.ReasoningBlock)):
        return (final.text or "").startswith(view.text or "")  # type: ignore[union-attr]
    if isinstance(view, cb.ToolCallBlock):
        return (view.tool_call_id, view.tool_name) == (final.tool_call_id, final.tool_name)  # type: ignore[union-attr]
    return view == final


def _complete(view: cb.Block | None, final: cb.Block) -> bool:
    """Whether an open block's view already holds all of the final block's content (its text, its arguments)."""
    if isinstance(final, (cb.TextBlock, cb.RefusalBlock)) or (isinstance(final, cb.ReasoningBlock) and final.text):
        return view is not None and view.text == final.text  # type: ignore[union-attr]
    if isinstance(final, cb.ToolCallBlock):
        if view is None:
            return False
        if view.input == "" and final.input == {}:  # type: ignore[union-attr]
            return True  # a tool without parameters: Anthropic streams no JSON text for its {} input
        try:
            streamed = json.loads(view.input)  # type: ignore[union-attr]
        except ValueError:
            streamed = view.input  # type: ignore[union-attr]  # kept as text by an OpenAI adapter
        return cb.ToolCallBlock(tool_call_id="x", tool_name="x", input=streamed) == cb.ToolCallBlock(
            tool_call_id="x", tool_name="x", input=final.input
        )
    return True


def assert_streams_progressively(make_reader: Callable[[], StreamReader], events: list[Any], expected: Reply) -> None:
    """Folding one event at a time: every open view grows into its final block, ended blocks are final, and a
    block that streamed already shows all its text (or arguments) the moment before it ends: the deltas carried
    the content, and the completed part only what deltas cannot (metadata, a late signature)."""
    final = expected.message.content if expected.message is not None else ()
    reader = make_reader()
    builder = ReplyBuilder(reader.provider)
    steps = [*((lambda e=e: reader.read(e)) for e in events), reader.end]
    for step, advance in enumerate(steps):
        before = {i: builder.block(i) for i in builder.open_blocks}
        builder.feed(advance())
        for i in range(builder.block_count):
            view = builder.block(i)
            if i in builder.open_blocks:
                assert view is None or _grows_into(view, final[i]), (step, i, view)
                continue
            assert view == final[i], (step, i)
            if i in before:
                assert _complete(before[i], final[i]), f"block {i} lacked content the moment before it ended"
    assert builder.reply() == expected
