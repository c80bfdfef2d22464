"""The LangChain bridge on the 2,000-block corpus, as a ratio to LangChain's own load of the same history.

    python bench/langchain_bridge.py             # 2,000 blocks (``bench/corpus.py``), best of 15 runs
    python bench/langchain_bridge.py --blocks 20000 --repeats 3

The corpus is structured into a conversation once; ``to_messages`` writes it as LangChain's messages, and that
history is what every row handles. The reference is LangChain's own load of it as a chat history is stored:
``messages_from_dict(json.loads(text))`` of ``json.dumps(messages_to_dict(history))``. The bridge's rows are
``to_messages(conversation)`` (ours to LangChain's objects) and ``from_messages(history)`` (LangChain's objects
to ours, checked by the neutral rules); a ratio below 1 means the crossing costs less than LangChain's own
parsing of the same messages. LangChain's load checks the message fields and nothing inside the content, while
every block read into a conversation is checked; the last row, our own load of the conversation's JSON, gives
the scale of that check.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from corpus import conversation as corpus
from langchain_core.messages import messages_from_dict, messages_to_dict

import contentblocks as cb
from contentblocks.bridges import langchain as bridge


def best(function: Callable[[], Any], repeats: int) -> float:
    """The best of ``repeats`` timings of ``function``, the garbage collector off while it runs."""
    samples = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            function()
            samples.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(samples)


def run(blocks: int, repeats: int) -> str:
    conversation = cb.structure(corpus(blocks), cb.Conversation)
    converted = bridge.to_messages(conversation)
    history = converted.payload
    text, ours = json.dumps(messages_to_dict(history)), cb.dumps(conversation)
    assert messages_from_dict(json.loads(text)) == history
    reference = best(lambda: messages_from_dict(json.loads(text)), repeats)
    rows = [
        ("LangChain: messages_from_dict(json.loads(text))", reference),
        ("bridge: to_messages(conversation)", best(lambda: bridge.to_messages(conversation), repeats)),
        ("bridge: from_messages(history)", best(lambda: bridge.from_messages(history), repeats)),
        ("for scale: cb.loads of the conversation's own JSON", best(lambda: cb.loads(ours, cb.Conversation), repeats)),
    ]
    kinds: dict[str, int] = {}
    for loss in converted.losses:
        kinds[loss.kind] = kinds.get(loss.kind, 0) + 1
    summary = (f"{blocks:,} blocks, {len(conversation):,} messages -> {len(history):,} LangChain messages, "
               f"{len(text):,} bytes of JSON; losses: {kinds}")
    lines = [summary, "", "| operation | time (ms) | ratio to LangChain's load |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {seconds * 1e3:.1f} | {seconds / reference:.2f} |" for name, seconds in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=15)
    arguments = parser.parse_args()
    print(run(arguments.blocks, arguments.repeats))


if __name__ == "__main__":
    main()
