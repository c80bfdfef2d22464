"""The bridges: a 2,000-message history to and from each framework, as a ratio to the framework's own load.

    python bench/bridges.py                                     # 2,000 messages, 11 repeats
    python bench/bridges.py --render docs/benchmarks.md        # also write the table between the markers
    python bench/bridges.py --quick                             # 200 messages, 3 repeats (a smoke run)
    python bench/bridges.py --floor                             # the Agents SDK's load beside our own structure

The history is the first N messages of the benchmark corpus (``bench/corpus.py``: text with citations,
reasoning with signatures, tool calls and results, inline images, metadata), written into the framework's own
messages by the bridge's ``to_messages`` and stored as the framework stores them. Its baseline is the framework's
own load of what it stored:

- pydantic-ai: ``ModelMessagesTypeAdapter.dump_json``, loaded by ``ModelMessagesTypeAdapter.validate_json``;
- LangChain: ``json.dumps(messages_to_dict(...))``, loaded by ``messages_from_dict(json.loads(text))``;
- the OpenAI Agents SDK: its ``SQLiteSession`` stores each input item as ``json.dumps(item)`` in a row and
  ``get_items`` loads the rows with ``json.loads``, which is the baseline; a user who validates what they load
  runs pydantic's ``TypeAdapter(TResponseInputItem)`` (as the SDK's ``RunState`` does for a handoff's output),
  measured as a second row, ``validate_json`` per row;
- the Vercel AI SDK (TypeScript): its ``UIMessage`` list as JSON text, loaded as a server does before
  ``convertToModelMessages``, ``validateUIMessages({messages: JSON.parse(text)})``, timed by
  ``bench/peers/vercel/load.mjs`` under ``node`` (the ``ai`` package its package-lock pins; install it with
  ``npm ci --prefix bench/peers/vercel``). A second row gives Python's ``json.loads`` of the same text, the
  floor of any Python reader; without node or the package, only that row is measured, and the run says so.

Each repeat times, on the process's CPU clock with garbage collection off and in an order that rotates from one
repeat to the next: the baseline, ``from_messages`` of the framework's objects (for the JSON forms: the parsed
JSON), and ``to_messages`` of the conversation. The node baseline is one ``node`` run per repeat, which loads once
to warm its JIT and then times its loads on its own CPU clock (``process.cpuUsage``). Reported are the medians
of the times and of the per-repeat ratios to the baseline. The issue's target: a bridge costs less than the
framework's own parsing (each ratio below 1).
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
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
VERCEL = Path(__file__).resolve().parent / "peers" / "vercel"


class Baseline:
    """One row: a framework's bridge, how the framework stores a history, and the load it is measured against.

    ``load`` is timed in this process; ``timer`` (the stored text, calls) -> seconds per call, when given, times
    the load elsewhere (the Vercel AI SDK's, under node) instead. A row that is not the framework's own load (a
    floor beside it) is not ``judged`` against the target.
    """

    def __init__(self, framework: str, what: str, bridge: str, dump: Callable[[Any], Any],
                 load: Callable[[Any], Any] | None = None,
                 timer: Callable[[Any, int], float] | None = None, *, judged: bool = True) -> None:  # fmt: skip
        self.framework, self.what, self.bridge, self.dump, self.load, self.timer = framework, what, bridge, dump, load, timer
        self.judged = judged


def _pydantic_ai() -> list[Baseline]:
    from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: PLC0415 - a benchmark peer

    return [Baseline("pydantic-ai", "`ModelMessagesTypeAdapter.validate_json`", "pydantic_ai",
                     ModelMessagesTypeAdapter.dump_json, ModelMessagesTypeAdapter.validate_json)]  # fmt: skip


def _langchain() -> list[Baseline]:
    # a benchmark peer: LangChain stores a chat history as messages_to_dict's JSON
    from langchain_core.messages import messages_from_dict, messages_to_dict  # noqa: PLC0415

    return [Baseline("langchain-core", "`messages_from_dict(json.loads(...))`", "langchain",
                     lambda messages: json.dumps(messages_to_dict(messages)),
                     lambda text: messages_from_dict(json.loads(text)))]  # fmt: skip


def _rows(items: list[Any]) -> list[str]:
    """The rows ``SQLiteSession.add_items`` stores: one ``json.dumps`` per item."""
    return [json.dumps(item) for item in items]


def _openai_agents() -> list[Baseline]:
    from agents import TResponseInputItem  # noqa: PLC0415 - a benchmark peer
    from pydantic import TypeAdapter  # noqa: PLC0415

    adapter = TypeAdapter(TResponseInputItem)
    return [
        Baseline("openai-agents", "`json.loads` per row (`SQLiteSession.get_items`)", "openai_agents", _rows,
                 lambda rows: [json.loads(row) for row in rows]),
        Baseline("openai-agents", "`TypeAdapter(TResponseInputItem).validate_json` per row", "openai_agents", _rows,
                 lambda rows: [adapter.validate_json(row) for row in rows]),
    ]  # fmt: skip


def _node() -> str | None:
    """``node``, when it and the pinned SDK are installed (else ``None``, and a message saying what to install)."""
    node = shutil.which("node")
    if node is not None and (VERCEL / "node_modules" / "ai").is_dir():
        return node
    print("vercel-ai: the SDK's own load (validateUIMessages) needs node and the pinned `ai` package: "
          "npm ci --prefix bench/peers/vercel; measured against Python's json.loads only", file=sys.stderr)  # fmt: skip
    return None


def _node_timer(node: str) -> Callable[[str, int], float]:
    directory = Path(tempfile.mkdtemp(prefix="cb-bench-vercel-"))

    @functools.cache
    def stored(text: str) -> Path:
        path = directory / f"history-{len(list(directory.iterdir()))}.json"
        path.write_text(text, encoding="utf-8")
        return path

    def timer(text: str, number: int) -> float:
        done = subprocess.run([node, str(VERCEL / "load.mjs"), str(stored(text)), str(number)],  # noqa: S603
                              capture_output=True, text=True, check=True)  # fmt: skip
        return float(json.loads(done.stdout)["seconds"])

    return timer


def _vercel_ai() -> list[Baseline]:
    rows = []
    if (node := _node()) is not None:
        version = json.loads((VERCEL / "node_modules" / "ai" / "package.json").read_text("utf-8"))["version"]
        rows.append(Baseline("vercel-ai", f"`validateUIMessages` (ai {version}, node)", "vercel_ai", json.dumps,
                             timer=_node_timer(node)))  # fmt: skip
    rows.append(Baseline("vercel-ai", "Python's `json.loads` (no SDK load)", "vercel_ai", json.dumps, json.loads,
                         judged=False))  # fmt: skip
    return rows


FRAMEWORKS: dict[str, Callable[[], list[Baseline]]] = {
    "langchain-core": _langchain, "openai-agents": _openai_agents, "pydantic-ai": _pydantic_ai,
    "vercel-ai": _vercel_ai,
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


def _size(stored: Any) -> int:
    rows = stored if isinstance(stored, list) else [stored]
    return sum(len(row.encode() if isinstance(row, str) else row) for row in rows)


def _rotating(timed: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    """``repeats`` samples of each timing, in an order that rotates from one repeat to the next."""
    names = list(timed)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            seconds[name].append(timed[name]())
    return seconds


def _median_ratio(seconds: list[float], baseline: list[float]) -> float:
    """The median over repeats of one repeat's time over the baseline's in the same repeat."""
    return statistics.median(s / base for s, base in zip(seconds, baseline, strict=True))


def measure(baseline: Baseline, messages: int, repeats: int, number: int) -> dict[str, Any]:
    """Median seconds per call, and median ratios to the baseline, for one row."""
    bridge = importlib.import_module(f"contentblocks.bridges.{baseline.bridge}")
    conversation = history(messages)
    theirs = bridge.to_messages(conversation).payload
    stored = baseline.dump(theirs)
    timed: dict[str, Callable[[], float]] = {
        "load": (functools.partial(baseline.timer, stored, number) if baseline.timer is not None
                 else functools.partial(_sample, baseline.load, stored, number)),
        "from_messages": functools.partial(_sample, bridge.from_messages, theirs, number),
        "to_messages": functools.partial(_sample, bridge.to_messages, conversation, number),
    }  # fmt: skip
    seconds = _rotating(timed, repeats)
    ratios = {name: _median_ratio(seconds[name], seconds["load"]) for name in ("from_messages", "to_messages")}
    return {"framework": baseline.framework, "baseline": baseline.what, "judged": baseline.judged,
            "accelerator": cb.speedups_enabled(),
            "messages": messages, "bytes": _size(stored), "seconds": {n: statistics.median(v) for n, v in seconds.items()},
            "ratio": ratios}  # fmt: skip


def floor(messages: int, repeats: int, number: int) -> dict[str, float]:
    """How far below the Agents SDK's ``json.loads`` per row a checking reader can go: medians of ratios to it.

    ``cb.structure`` of the same history in contentblocks' own wire dicts checks every value and builds the
    objects, in C where it is built, with no provider shape to map; the Agents SDK bridge does that and more.
    """
    from contentblocks.bridges import openai_agents  # noqa: PLC0415

    conversation = history(messages)
    rows = _rows(openai_agents.to_messages(conversation).payload)
    ours = cb.unstructure(conversation)
    timed: dict[str, Callable[[], float]] = {
        "json.loads per row": functools.partial(_sample, lambda rs: [json.loads(r) for r in rs], rows, number),
        "cb.structure, our own wire": functools.partial(
            _sample, lambda wire: cb.structure(wire, cb.Conversation), ours, number),
    }  # fmt: skip
    seconds = _rotating(timed, repeats)
    return {name: _median_ratio(values, seconds["json.loads per row"]) for name, values in seconds.items()}


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        ("| framework | its own load (the baseline) | messages | its JSON | baseline | `from_messages` "
         "| `to_messages` | from / load | to / load |"),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        s, ratio = row["seconds"], row["ratio"]
        lines.append(
            f"| {row['framework']} | {row['baseline']} | {row['messages']:,} | {row['bytes'] / 1e6:.1f} MB "
            f"| {s['load'] * 1e3:.1f} ms | {s['from_messages'] * 1e3:.1f} ms | {s['to_messages'] * 1e3:.1f} ms "
            f"| {ratio['from_messages']:.2f} | {ratio['to_messages']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2_000, help="messages in the history (default 2,000)")
    parser.add_argument("--repeats", type=int, default=11, help="samples of each operation (default 11)")
    parser.add_argument("--number", type=int, default=1, help="calls per sample (default 1)")
    parser.add_argument("--framework", action="append", choices=sorted(FRAMEWORKS), help="only these (repeatable)")
    parser.add_argument("--quick", action="store_true", help="200 messages, 3 repeats of 1 call")
    parser.add_argument("--floor", action="store_true", help="only the Agents SDK's load against cb.structure")
    parser.add_argument("--render", type=Path, metavar="PAGE", help="write the table between the markers in PAGE")
    args = parser.parse_args()
    if args.quick:
        args.messages, args.repeats, args.number = 200, 3, 1
    if args.floor:
        for name, ratio in floor(args.messages, args.repeats, args.number).items():
            print(f"{name} / json.loads per row (accelerator: {cb.speedups_enabled()}): {ratio:.2f}")
        return
    rows = [measure(baseline, args.messages, args.repeats, args.number)
            for name in args.framework or sorted(FRAMEWORKS) for baseline in FRAMEWORKS[name]()]  # fmt: skip
    text = table(rows)
    print(text)
    for row in rows:
        for op in ("from_messages", "to_messages"):
            if not row["judged"]:
                print(f"----  {row['framework']} {op} / {row['baseline']}: {row['ratio'][op]:.2f} (a floor, no target)")
                continue
            verdict = "PASS" if row["ratio"][op] < TARGET else "FAIL"
            print(f"{verdict}  {row['framework']} {op} / {row['baseline']}: {row['ratio'][op]:.2f} < {TARGET}")
    if args.render:
        write_between(args.render, START, END, text)
        print(f"wrote {args.render}", file=sys.stderr)


if __name__ == "__main__":
    main()
