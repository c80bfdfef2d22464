"""How streaming grows: the fold of neutral deltas, and each provider's reader, as streams get longer.

    python bench/streaming.py                              # both tables (median of 5 runs)
    python bench/streaming.py --quick                      # small sizes, one run: a smoke test of the script
    python bench/streaming.py --render docs/streaming.md   # also write the tables between the markers there

Appending is amortised O(1) (a block's text is a list of pieces, joined once when read), so the time per delta
stays flat as the stream doubles, and the whole fold grows linearly. Events are built before the clock starts;
what is timed is ``ReplyBuilder.feed`` plus ``reply()``, which joins the pieces and builds the blocks. The full
run exits with status 1 when the largest stream costs more than twice as much per delta as the smallest (a
quadratic fold would cost 16 times as much).

The second table times each provider's reader (``contentblocks.streaming.<provider>.fold``, reader and builder) on
its plain text stream and on every event shape whose reading was once quadratic (Chat list-valued delta fields,
Responses annotations, Gemini non-text parts), at 2,000 and 20,000 events. Every reader's cost per event must stay
flat: the full run exits with status 1 when the larger stream costs more than 1.5 times as much per event.
This is a benchmark, not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markers import write_between

from contentblocks import speedups_enabled
from contentblocks.streaming import (
    ArgumentsAppended,
    BlockEnded,
    BlockStarted,
    ReasoningAppended,
    ReplyBuilder,
    ReplyStopped,
    SignatureAppended,
    StreamEvent,
    TextAppended,
)

START = "<!-- streaming-benchmark:start -->"
END = "<!-- streaming-benchmark:end -->"
FULL_SIZES = (12_500, 25_000, 50_000, 100_000, 200_000)
QUICK_SIZES = (1_000, 2_000, 4_000)
LINEAR_SLACK = 2.0  # the largest stream may cost at most this many times more per delta than the smallest


def text_stream(n: int) -> list[StreamEvent]:
    """One text block growing by ``n`` one-character deltas."""
    return [BlockStarted(0, "text"), *(TextAppended(0, "a") for _ in range(n)), BlockEnded(0),
            ReplyStopped("end_turn", "end_turn")]


def arguments_stream(n: int) -> list[StreamEvent]:
    """One tool call whose JSON arguments (``n`` characters) arrive one character at a time."""
    text = json.dumps({"query": "x" * (n - 13)})
    assert len(text) == n
    return [BlockStarted(0, "tool_call", tool_call_id="call_1", tool_name="search"),
            *(ArgumentsAppended(0, ch) for ch in text), BlockEnded(0), ReplyStopped("tool_use", "tool_use")]


def reasoning_stream(n: int) -> list[StreamEvent]:
    """Reasoning text and its signature, ``n`` deltas in all, alternating one character each."""
    half = n // 2
    deltas = [e for _ in range(half) for e in (ReasoningAppended(0, "r"), SignatureAppended(0, "s"))]
    return [BlockStarted(0, "reasoning"), *deltas, BlockEnded(0), ReplyStopped("end_turn", "end_turn")]


CASES: dict[str, Callable[[int], list[StreamEvent]]] = {
    "text, one character per delta": text_stream,
    "tool-call arguments, one character per delta": arguments_stream,
    "reasoning and signature, interleaved": reasoning_stream,
}


def fold_seconds(events: list[StreamEvent], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        builder = ReplyBuilder("anthropic")
        builder.feed(events)
        builder.reply()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(sizes: tuple[int, ...], repeat: int) -> dict[str, list[tuple[int, float]]]:
    results: dict[str, list[tuple[int, float]]] = {}
    for name, build in CASES.items():
        rows = []
        for n in sizes:
            events = build(n)
            rows.append((n, fold_seconds(events, repeat)))
            del events
        results[name] = rows
    return results


def growth(rows: list[tuple[int, float]]) -> float:
    """Per-delta cost of the largest stream over that of the smallest (1.0 is perfectly linear)."""
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    return (t1 / n1) / (t0 / n0)


def table(results: dict[str, list[tuple[int, float]]], repeat: int) -> str:
    accelerator = "with" if speedups_enabled() else "without"
    lines = [(f"Median of {repeat} run(s); CPython {platform.python_version()} on {platform.machine()} "
              f"({platform.system()}), {accelerator} the C accelerator. Events are built before timing."), "",
             "| stream | deltas | fold | per delta | per delta vs the smallest |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, rows in results.items():
        n0, t0 = rows[0]
        for n, seconds in rows:
            ratio = (seconds / n) / (t0 / n0)
            lines.append(f"| {name} | {n:,} | {seconds * 1000:,.1f} ms | {seconds / n * 1e9:,.0f} ns | {ratio:.2f}x |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------- provider readers

READER_START = "<!-- streaming-readers-benchmark:start -->"
READER_END = "<!-- streaming-readers-benchmark:end -->"
READER_SIZES = (2_000, 20_000)
QUICK_READER_SIZES = (200, 400)
READER_SLACK = 1.5  # per event, the larger stream may cost at most this many times what the smaller does

_CHAT = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
_GEMINI = {"modelVersion": "gemini-2.5-flash", "responseId": "r-1"}


def anthropic_text(n: int) -> list[dict[str, Any]]:
    """An Anthropic message whose one text block grows by ``n`` one-character ``text_delta`` events."""
    start = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
             "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}
    return [start, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            *([delta] * n), {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": n}},
            {"type": "message_stop"}]


def chat_text(n: int) -> list[dict[str, Any]]:
    """A Chat completion whose content arrives in ``n`` one-character chunks."""
    chunk = {**_CHAT, "choices": [{"index": 0, "delta": {"content": "a"}}]}
    return [*([chunk] * n), {**_CHAT, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def chat_list_field(n: int) -> list[dict[str, Any]]:
    """``n`` Chat chunks that each add a character of content and an entry to a list-valued delta field."""
    chunk = {**_CHAT, "choices": [{"index": 0, "delta": {"content": "a", "x_tags": ["t"]}}]}
    return [*([chunk] * n), {**_CHAT, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def _responses(n_text: int, events: list[dict[str, Any]], annotations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    done = {**item, "status": "completed", "content": [{**part, "text": "a" * n_text, "annotations": annotations}]}
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": "completed",
                "output": [done]}
    return [{"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.content_part.added", "output_index": 0, "content_index": 0, "part": part},
            *events, {"type": "response.output_item.done", "output_index": 0, "item": done},
            {"type": "response.completed", "response": response}]


def responses_text(n: int) -> list[dict[str, Any]]:
    """A Responses message whose text arrives in ``n`` one-character ``output_text.delta`` events."""
    delta = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "a"}
    return _responses(n, [delta] * n, [])


def responses_annotations(n: int) -> list[dict[str, Any]]:
    """A Responses message of ``n`` characters, then ``n`` ``output_text.annotation.added`` events, one a character."""
    notes = [{"type": "url_citation", "url": f"https://example.com/{k}", "title": "Source", "start_index": k,
              "end_index": k + 1} for k in range(n)]
    added = [{"type": "response.output_text.annotation.added", "output_index": 0, "content_index": 0,
              "annotation_index": k, "annotation": note} for k, note in enumerate(notes)]
    delta = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "a" * n}
    return _responses(n, [delta, *added], notes)


def gemini_text(n: int) -> list[dict[str, Any]]:
    """A Gemini stream of ``n`` chunks of one character of text each."""
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}], **_GEMINI}
    return [*([chunk] * n), {"candidates": [{"finishReason": "STOP"}], **_GEMINI}]


def gemini_calls(n: int) -> list[dict[str, Any]]:
    """A Gemini stream of ``n`` chunks of one function call each (without ids, the common case)."""
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "lookup", "args": {"k": k}}}]}}], **_GEMINI} for k in range(n)]
    return [*chunks, {"candidates": [{"finishReason": "STOP"}], **_GEMINI}]


#: Each reader's streams: a plain text stream, and every event shape whose reading was once quadratic.
READER_CASES: dict[str, tuple[str, Callable[[int], list[dict[str, Any]]]]] = {
    "anthropic: text_delta, one character each": ("anthropic", anthropic_text),
    "openai_chat: content, one character a chunk": ("openai_chat", chat_text),
    "openai_chat: a list-valued delta field": ("openai_chat", chat_list_field),
    "openai_responses: output_text.delta, one character each": ("openai_responses", responses_text),
    "openai_responses: output_text.annotation.added": ("openai_responses", responses_annotations),
    "gemini: text, one character a chunk": ("gemini", gemini_text),
    "gemini: a function call a chunk": ("gemini", gemini_calls),
}


def read_seconds(provider: str, events: list[dict[str, Any]], repeat: int) -> float:
    """The median time of the provider's ``fold``: the reader and the builder over the whole stream."""
    fold = importlib.import_module(f"contentblocks.streaming.{provider}").fold
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fold(events)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure_readers(sizes: tuple[int, ...], repeat: int) -> dict[str, list[tuple[int, float]]]:
    """Per case, (events, seconds) at each size; ``events`` counts every event of the stream."""
    results: dict[str, list[tuple[int, float]]] = {}
    for name, (provider, build) in READER_CASES.items():
        rows = []
        for n in sizes:
            events = build(n)
            rows.append((len(events), read_seconds(provider, events, repeat)))
        results[name] = rows
    return results


def reader_table(results: dict[str, list[tuple[int, float]]], repeat: int) -> str:
    accelerator = "with" if speedups_enabled() else "without"
    lines = [(f"Median of {repeat} run(s); CPython {platform.python_version()} on {platform.machine()} "
              f"({platform.system()}), {accelerator} the C accelerator. Events are plain dicts, built before timing."),
             "", "| reader: stream | events | fold | per event | per event vs the smaller |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for name, rows in results.items():
        n0, t0 = rows[0]
        for n, seconds in rows:
            ratio = (seconds / n) / (t0 / n0)
            lines.append(f"| {name} | {n:,} | {seconds * 1000:,.1f} ms | {seconds / n * 1e6:,.1f} µs | {ratio:.2f}x |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and one run; no verdict on growth")
    parser.add_argument("--repeat", type=int, default=None, help="runs per size (5, or 1 with --quick)")
    parser.add_argument("--render", type=Path, help="write the tables between the markers in this Markdown file")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 5)
    results = measure(QUICK_SIZES if args.quick else FULL_SIZES, repeat)
    readers = measure_readers(QUICK_READER_SIZES if args.quick else READER_SIZES, repeat)
    text, readers_text = table(results, repeat), reader_table(readers, repeat)
    print(text, readers_text, sep="\n\n")
    if args.render:
        write_between(args.render, START, END, text)
        write_between(args.render, READER_START, READER_END, readers_text)
    if args.quick:
        return 0
    superlinear = [name for name, rows in results.items() if growth(rows) > LINEAR_SLACK]
    superlinear += [name for name, rows in readers.items() if growth(rows) > READER_SLACK]
    if superlinear:
        print("\nper-event cost grew more than allowed: " + "; ".join(superlinear), file=sys.stderr)
    return 1 if superlinear else 0


if __name__ == "__main__":
    sys.exit(main())
