"""The bridges: a 2,000-message history to and from each framework, as a ratio to the framework's own load.

    python bench/bridges.py                                     # 2,000 messages, 11 repeats
    python bench/bridges.py --render docs/benchmarks.md        # also write the table between the markers
    python bench/bridges.py --quick                             # 200 messages, 3 repeats (a smoke run)

The history is the first N messages of the benchmark corpus (``bench/corpus.py``: text with citations,
reasoning with signatures, tool calls and results, inline images, metadata), written into the framework's own
messages by the bridge's ``to_messages`` and stored as the framework stores them (pydantic-ai:
``ModelMessagesTypeAdapter.dump_json``; LangChain: ``json.dumps(messages_to_dict(...))``, loaded by
``messages_from_dict(json.loads(text))``; the Vercel AI SDK, which has no Python package: its ``UIMessage`` list
as JSON text, whose baseline load is ``json.loads``). Each repeat times, on the process's CPU clock with garbage
collection off and in an order that rotates from one repeat to the next: the framework's own load of that
JSON (its baseline), ``from_messages`` of the framework's objects, and ``to_messages`` of the conversation.
Reported are the medians of the times and of the per-repeat ratios to the baseline. The issue's target: a
bridge costs less than the framework's own parsing (each ratio below 1).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from markers import write_between

import contentblocks as cb

START = "<!-- bridge-benchmark:start -->"
END = "<!-- bridge-benchmark:end -->"
TARGET = 1.0  # bridge / the framework's own load


class Framework:
    """What the benchmark needs of one framework: its bridge, and how it stores and loads a history."""

    def __init__(self, name: str, bridge: str, dump: Callable[[Any], bytes], load: Callable[[bytes], Any]) -> None:
        self.name, self.bridge, self.dump, self.load = name, bridge, dump, load


def _pydantic_ai() -> Framework:
    from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: PLC0415 - a benchmark peer

    return Framework("pydantic-ai", "pydantic_ai", ModelMessagesTypeAdapter.dump_json,
                     ModelMessagesTypeAdapter.validate_json)  # fmt: skip


def _langchain() -> Framework:
    # a benchmark peer: LangChain stores a chat history as messages_to_dict's JSON
    from langchain_core.messages import messages_from_dict, messages_to_dict  # noqa: PLC0415

    return Framework("langchain-core", "langchain", lambda messages: json.dumps(messages_to_dict(messages)).encode(),
                     lambda text: messages_from_dict(json.loads(text)))  # fmt: skip


def _vercel_ai() -> Framework:
    # the SDK has no Python loader: its baseline is parsing the stored JSON
    return Framework("vercel-ai", "vercel_ai", lambda messages: json.dumps(messages).encode(), json.loads)


FRAMEWORKS: dict[str, Callable[[], Framework]] = {
    "langchain-core": _langchain, "pydantic-ai": _pydantic_ai, "vercel-ai": _vercel_ai
}  # fmt: skip


def history(messages: int) -> cb.Conversation:
    """The first ``messages`` messages of the corpus (cutting it leaves some calls unanswered, which is valid)."""
    blocks = 2 * messages
    raw = corpus.conversation(blocks)
    while len(raw) < messages:
        blocks *= 2
        raw = corpus.conversation(blocks)
    return cb.structure(raw[:messages], cb.Conversation)


def _sample(fn: Callable[[Any], Any], argument: Any, number: int) -> float:
    """Seconds per call of ``fn`` on ``argument``."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        for _ in range(number):
            fn(argument)
        return (time.process_time() - start) / number
    finally:
        gc.enable()


def measure(framework: Framework, messages: int, repeats: int, number: int) -> dict[str, Any]:
    """Median seconds per call, and median ratios to the framework's own load, for one framework."""
    import importlib  # noqa: PLC0415

    bridge = importlib.import_module(f"contentblocks.bridges.{framework.bridge}")
    conversation = history(messages)
    theirs = bridge.to_messages(conversation).payload
    text = framework.dump(theirs)
    ops: dict[str, tuple[Callable[[Any], Any], Any]] = {
        "load": (framework.load, text),
        "from_messages": (bridge.from_messages, theirs),
        "to_messages": (bridge.to_messages, conversation),
    }
    names = list(ops)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn, argument = ops[name]
            seconds[name].append(_sample(fn, argument, number))
    ratios = {name: statistics.median(s / base for s, base in zip(seconds[name], seconds["load"], strict=True))
              for name in ("from_messages", "to_messages")}  # fmt: skip
    return {"framework": framework.name, "accelerator": cb.speedups_enabled(), "messages": messages,
            "bytes": len(text), "seconds": {n: statistics.median(v) for n, v in seconds.items()}, "ratio": ratios}  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| framework | messages | its JSON | its own load | `from_messages` | `to_messages` | from / load | to / load |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        s, ratio = row["seconds"], row["ratio"]
        lines.append(
            f"| {row['framework']} | {row['messages']:,} | {row['bytes'] / 1e6:.1f} MB | {s['load'] * 1e3:.1f} ms "
            f"| {s['from_messages'] * 1e3:.1f} ms | {s['to_messages'] * 1e3:.1f} ms | {ratio['from_messages']:.2f} "
            f"| {ratio['to_messages']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="messages in the history (default 2,000)")
    parser.add_argument("--repeats", type=int, default=11, help="samples of each operation (default 11)")
    parser.add_argument("--number", type=int, default=1, help="calls per sample (default 1)")
    parser.add_argument("--framework", action="append", choices=sorted(FRAMEWORKS), help="only these (repeatable)")
    parser.add_argument("--quick", action="store_true", help="200 messages, 3 repeats of 1 call")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the table between the markers in PAGE")
    args = parser.parse_args()
    if args.quick:
        args.messages, args.repeats, args.number = 200, 3, 1
    rows = [measure(FRAMEWORKS[name](), args.messages, args.repeats, args.number)
            for name in args.framework or sorted(FRAMEWORKS)]  # fmt: skip
    text = table(rows)
    print(text)
    for row in rows:
        for op in ("from_messages", "to_messages"):
            verdict = "PASS" if row["ratio"][op] < TARGET else "FAIL"
            print(f"{verdict}  {row['framework']} {op} / its own load: {row['ratio'][op]:.2f} < {TARGET}")
    if args.render:
        write_between(args.render, START, END, text)
        print(f"wrote {args.render}", file=sys.stderr)


if __name__ == "__main__":
    main()
