"""How fast hostile input is refused: each case must end in a ValidationError well under a second.

A second table sets a value just over ``max_nodes`` against one just under it: refusing the one must cost no
more than accepting the other (a refusal that walked the value several times used to cost about 9x).

    python bench/refusal.py                       # print the table (median of 5 runs per case)
    python bench/refusal.py --repeat 9            # more runs
    python bench/refusal.py --render docs/limits.md   # also write the table between the markers in that file

Inputs are built before the clock starts; only the call that refuses them is timed. This is a benchmark,
not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from markers import write_between

import contentblocks as cb

START = "<!-- refusal-benchmark:start -->"
END = "<!-- refusal-benchmark:end -->"
BUDGET = 1.0  # seconds: "well under a second" means well under this
NOISE = 1.10  # a refusal timed within 10% of the acceptance it is set against is "no dearer": timing noise


def deep_list(depth: int) -> list:
    root: list = []
    node = root
    for _ in range(depth):
        child: list = []
        node.append(child)
        node = child
    return root


def self_list() -> list:
    a: list = []
    a.append(a)
    return a


# name -> (build the input, refuse it)
CASES: dict[str, tuple[Callable[[], object], Callable[[object], object]]] = {
    "100 MB base64 string (file data)": (
        lambda: {"type": "file", "media_type": "application/octet-stream",
                 "source": {"type": "base64", "data": "A" * (100 * 1024 * 1024)}},
        lambda v: cb.structure(v, cb.Block)),
    "50 MB text, over the 10M-character limit": (
        lambda: {"type": "text", "text": "a" * (50 * 1024 * 1024)}, lambda v: cb.structure(v, cb.Block)),
    "50 MB text as JSON text (cb.loads)": (
        lambda: '{"type":"text","text":"' + "a" * (50 * 1024 * 1024) + '"}', cb.loads),
    "10,000-deep nesting, Python value": (
        lambda: {"type": "json", "value": deep_list(10_000)}, lambda v: cb.structure(v, cb.Block)),
    "10,000-deep nesting, JSON text (cb.loads)": (
        lambda: '{"type":"json","value":' + "[" * 10_000 + "]" * 10_000 + "}", cb.loads),
    "10,000-digit int, Python value": (
        lambda: {"type": "json", "value": 10**9_999}, lambda v: cb.structure(v, cb.Block)),
    "10,000-digit int, JSON text (cb.loads)": (
        lambda: '{"type":"json","value":1' + "0" * 9_999 + "}", cb.loads),
    "2,000,000-element array (JSON value)": (
        lambda: {"type": "json", "value": [0] * 2_000_000}, lambda v: cb.structure(v, cb.Block)),
    "2,000,000-element array, JSON text (cb.loads)": (
        lambda: '{"type":"json","value":[' + ",".join(["0"] * 2_000_000) + "]}", cb.loads),
    "2,000,000 non-blocks as message content": (
        lambda: {"role": "user", "content": [0] * 2_000_000}, lambda v: cb.structure(v, cb.Message)),
    "2,000,000 non-messages as a conversation": (
        lambda: [0] * 2_000_000, lambda v: cb.structure(v, cb.Conversation)),
    "self-referencing list (JSON value)": (
        lambda: {"type": "json", "value": self_list()}, lambda v: cb.structure(v, cb.Block)),
    "self-referencing list (conversation)": (self_list, lambda v: cb.structure(v, cb.Conversation)),
}


def node_limit_message(nodes: int) -> dict:
    """A message whose tool call holds ``nodes`` JSON values (a multiple of 4): about 2 MB of JSON at the limit."""
    rows = [[0, 0, 0] for _ in range(nodes // 4 - 1)]
    return {"role": "assistant", "content": [
        {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"rows": rows}}]}


LIMIT = cb.Limits().max_nodes
# name -> (build the value just under max_nodes, the one just over it, read one)
AT_THE_LIMIT: dict[str, tuple[Callable[[], object], Callable[[], object], Callable[[object], object]]] = {
    "message at max_nodes (1,000,000 values)": (
        lambda: node_limit_message(LIMIT - 4), lambda: node_limit_message(LIMIT + 4),
        lambda v: cb.structure(v, cb.Message)),
    "message at max_nodes, JSON text (cb.loads)": (
        lambda: json.dumps(node_limit_message(LIMIT - 4)), lambda: json.dumps(node_limit_message(LIMIT + 4)),
        lambda v: cb.loads(v, cb.Message)),  # type: ignore[arg-type]
}


def timed(call: Callable[[object], object], value: object, repeat: int) -> tuple[float, str]:
    """The median time of ``repeat`` calls, and whether the value was refused, accepted or escaped."""
    times = []
    verdict = "refused"
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            call(value)
        except cb.ValidationError:
            pass
        except Exception as e:  # noqa: BLE001 - a benchmark reports what escaped instead of stopping
            verdict = f"ESCAPED: {type(e).__name__}"
        else:
            verdict = "accepted"
        times.append(time.perf_counter() - start)
    return statistics.median(times), verdict


def measure_at_the_limit(repeat: int) -> list[tuple[str, float, float, str]]:
    """Per case: the time to accept the value under the limit, to refuse the one over it, and what went wrong."""
    rows = []
    for name, (build_under, build_over, read) in AT_THE_LIMIT.items():
        under, over = build_under(), build_over()
        accepted, under_verdict = timed(read, under, repeat)
        refused, over_verdict = timed(read, over, repeat)
        verdicts = "" if (under_verdict, over_verdict) == ("accepted", "refused") else f"{under_verdict}/{over_verdict}"
        rows.append((name, accepted, refused, verdicts))
    return rows


def measure(repeat: int) -> list[tuple[str, float, str]]:
    rows = []
    for name, (build, refuse) in CASES.items():
        seconds, verdict = timed(refuse, build(), repeat)
        rows.append((name, seconds, verdict.replace("accepted", "ACCEPTED")))
    return rows


def table(rows: list[tuple[str, float, str]], repeat: int) -> str:
    lines = [(f"Median of {repeat} runs; CPython {platform.python_version()} on {platform.machine()} "
              f"({platform.system()}). Inputs are built before timing."), "",
             "| hostile input | time to refuse | outcome |", "| --- | ---: | --- |"]
    for name, seconds, verdict in rows:
        flag = "" if seconds < BUDGET / 10 else " (slow)" if seconds < BUDGET else " (**over 1 s**)"
        lines.append(f"| {name} | {seconds * 1000:,.2f} ms{flag} | {verdict} |")
    return "\n".join(lines)


def limit_table(rows: list[tuple[str, float, float, str]]) -> str:
    lines = ["| value at the node limit | accepted just under | refused just over | refusal / acceptance |",
             "| --- | ---: | ---: | ---: |"]
    for name, accepted, refused, wrong in rows:
        ratio = f"{refused / accepted:.2f}" + (" (**dearer**)" if refused > accepted * NOISE else "")
        lines.append(f"| {name} | {accepted * 1000:,.1f} ms | {refused * 1000:,.1f} ms | {ratio}{wrong and ' ' + wrong} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--render", type=Path, help="write the table between the markers in this Markdown file")
    args = parser.parse_args()
    rows = measure(args.repeat)
    limit_rows = measure_at_the_limit(args.repeat)
    text = table(rows, args.repeat) + "\n\n" + limit_table(limit_rows)
    print(text)
    if args.render:
        write_between(args.render, START, END, text)
    bad = [name for name, seconds, verdict in rows if seconds >= BUDGET or verdict != "refused"]
    bad += [name for name, accepted, refused, wrong in limit_rows if refused > accepted * NOISE or wrong]
    if bad:
        print("\nnot refused well under a second, or dearer than acceptance: " + "; ".join(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
