"""Mutations and seeds for the differential reader fuzz (``tests/reader_fuzz_readers.py`` runs them).

A case starts from a valid seed (a provider payload, or a provider's stream as a list of event dicts) and
applies one to three mutations, each drawn from a ``random.Random`` seeded by the case's id, so that a case is
reproduced from ``(seed, reader, index)`` alone. Payload mutations act on one place of the JSON tree: a field
removed, a value set to junk of another JSON type, a string swapped for another string the provider uses (a
``type``, a role, a stop reason), an edge number, a JSON text inside a string (tool arguments) made hostile, a
list element dropped, repeated or swapped, a value nested 600 deep. Stream mutations drop, repeat, reorder,
move or cut events, or apply a payload mutation to one event.

Mutations never change the seed: the places on the way to the change are copied, the rest is shared (a
reader is given its own copy of the whole case).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

TESTS = Path(__file__).parent
STREAM_FIXTURES = TESTS / "streaming" / "fixtures"
PAYLOAD_FIXTURES = TESTS / "providers" / "fixtures"
CASES = TESTS / "fuzz_cases"

Path_ = tuple[str | int, ...]

#: Junk values, one of which replaces a value of another JSON type. ``2**64`` and ``10**30`` are past the
#: wire format's integers, ``inf`` is what ``json.loads("1e400")`` gives.
JUNK: tuple[Any, ...] = (
    None, True, False, 0, -1, 1.5, 2**64, 10**30, float("inf"), "", "x", "\u0000", [], [None], [[]], {}, {"x": 1},
    {"type": "text"},
)
#: Numbers that replace a number: the edges of the integer types readers and SDKs use.
EDGE_NUMBERS: tuple[Any, ...] = (0, -1, 1, 2**31, 2**63, 2**64, -(2**63) - 1, 10**30, 1e308, float("inf"), 0.5, -0.0)
#: JSON texts that replace a JSON text held in a string (tool-call arguments).
HOSTILE_JSON_TEXTS: tuple[str, ...] = (
    '{"order": 123456789012345678901234567890}',
    '{"amount": 1e400}',
    '{"amount": -1e400}',
    '{"n": NaN}',
    '{"a": 1, "a": 2}',
    "[1, 2]",
    '"just a string"',
    "null",
    "",
    "{",
    '{"a": "\\ud800"}',
    "[" * 600 + "]" * 600,
    '{"a": ' * 600 + "1" + "}" * 600,
)
DEPTH = 600


def json_type(value: Any) -> str:
    """The JSON type of a value (``bool`` is not a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def places(value: Any) -> Iterator[tuple[Path_, Any]]:
    """Every place in a JSON tree (the root included) with the value there, parents before children.

    Iterative, as values nested 600 deep (or twice that, after two mutations) are among the cases.
    """
    stack: list[tuple[Path_, Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        yield path, item
        if isinstance(item, dict):
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, i), item[i]) for i in reversed(range(len(item))))


def replace(value: Any, path: Path_, new: Callable[[Any], Any]) -> Any:
    """``value`` with the value at ``path`` replaced by ``new(old)``, copying only the containers on the way."""
    containers = []
    for key in path:
        containers.append(value)
        value = value[key]
    value = new(value)
    for container, key in zip(reversed(containers), reversed(path), strict=True):
        copy: Any = dict(container) if isinstance(container, dict) else list(container)
        copy[key] = value
        value = copy
    return value


def _delete(key: str | int) -> Callable[[Any], Any]:
    def delete(container: Any) -> Any:
        copy: Any = dict(container) if isinstance(container, dict) else list(container)
        del copy[key]
        return copy

    return delete


def strings_of(values: list[Any], *, longest: int = 48) -> list[str]:
    """The short strings in some JSON trees, sorted: the words a provider uses (types, roles, reasons)."""
    found = {v for tree in values for _, v in places(tree) if isinstance(v, str) and len(v) <= longest}
    return sorted(found)


# ------------------------------------------------------------------------------------------ payload mutations


def remove_field(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One dict key or list element removed."""
    inner = [p for p, _ in places(tree) if p]
    if not inner:
        return tree, "remove: nothing to remove"
    path = rng.choice(inner)
    return replace(tree, path[:-1], _delete(path[-1])), f"remove {_show(path)}"


def junk_value(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One value set to junk of another JSON type."""
    path, old = rng.choice(list(places(tree)))
    junk = rng.choice([j for j in JUNK if json_type(j) != json_type(old)])
    return replace(tree, path, lambda _: _fresh(junk)), f"junk {_show(path)} = {_short(junk)}"


def swap_word(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One string replaced by another string the seeds use (a discriminator, role or reason of another part)."""
    strings = [p for p, v in places(tree) if isinstance(v, str)]
    if not strings or not words:
        return junk_value(rng, tree, words)
    path, word = rng.choice(strings), rng.choice(words)
    return replace(tree, path, lambda _: word), f"word {_show(path)} = {word!r}"


def edit_string(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One string emptied, upper-cased, cut, doubled or given a lone surrogate."""
    strings = [p for p, v in places(tree) if isinstance(v, str)]
    if not strings:
        return junk_value(rng, tree, words)
    path = rng.choice(strings)
    how = rng.choice(["empty", "upper", "cut", "double", "surrogate"])
    edits: dict[str, Callable[[str], str]] = {
        "empty": lambda s: "",
        "upper": str.upper,
        "cut": lambda s: s[: len(s) // 2],
        "double": lambda s: s + s,
        "surrogate": lambda s: s + "\ud800",
    }
    return replace(tree, path, edits[how]), f"string {_show(path)} {how}"


def edge_number(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One number set to an edge value (negative, past 64 bits, infinite)."""
    numbers = [p for p, v in places(tree) if json_type(v) == "number"]
    if not numbers:
        return junk_value(rng, tree, words)
    path, number = rng.choice(numbers), rng.choice(EDGE_NUMBERS)
    return replace(tree, path, lambda _: number), f"number {_show(path)} = {_short(number)}"


def hostile_json_text(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """A JSON text held in a string (tool arguments) replaced by a hostile one; any string if none holds JSON."""
    texts = [p for p, v in places(tree) if isinstance(v, str) and v[:1] in {"{", "["}]
    strings = texts or [p for p, v in places(tree) if isinstance(v, str)]
    if not strings:
        return junk_value(rng, tree, words)
    path, text = rng.choice(strings), rng.choice(HOSTILE_JSON_TEXTS)
    return replace(tree, path, lambda _: text), f"json-text {_show(path)} = {_short(text)}"


def edit_list(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One list element repeated, or two swapped."""
    lists = [p for p, v in places(tree) if isinstance(v, list) and v]
    if not lists:
        return remove_field(rng, tree, words)
    path = rng.choice(lists)
    items = list(_at(tree, path))
    i, j = rng.randrange(len(items)), rng.randrange(len(items))
    if rng.random() < 0.5:
        items.insert(i, items[i])
        return replace(tree, path, lambda _: items), f"repeat {_show((*path, i))}"
    items[i], items[j] = items[j], items[i]
    return replace(tree, path, lambda _: items), f"swap {_show((*path, i))} {j}"


def nest_deep(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, str]:
    """One value wrapped 600 deep in lists or objects (once: a value already deep gets junk instead)."""
    every = list(places(tree))
    if max(len(p) for p, _ in every) > 100:
        return junk_value(rng, tree, words)
    path, old = rng.choice(every)
    key = rng.choice([None, "text", "type"])
    deep: Any = old
    for _ in range(DEPTH):
        deep = [deep] if key is None else {key: deep}
    return replace(tree, path, lambda _: deep), f"deep {_show(path)} in {'lists' if key is None else key!r}"


PAYLOAD_MUTATIONS: tuple[tuple[Callable[[random.Random, Any, list[str]], tuple[Any, str]], int], ...] = (
    (remove_field, 5),
    (junk_value, 6),
    (swap_word, 4),
    (edit_string, 2),
    (edge_number, 2),
    (hostile_json_text, 2),
    (edit_list, 2),
    (nest_deep, 1),
)


def mutate_payload(rng: random.Random, tree: Any, words: list[str]) -> tuple[Any, list[str]]:
    """One to three payload mutations of ``tree``, and what each did."""
    done = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        operator = _pick(rng, PAYLOAD_MUTATIONS)
        tree, what = operator(rng, tree, words)
        done.append(what)
    return tree, done


# ------------------------------------------------------------------------------------------ stream mutations


def mutate_stream(rng: random.Random, events: list[Any], words: list[str]) -> tuple[list[Any], list[str]]:
    """One to three stream mutations: an event dropped, repeated, swapped, moved or mutated, or the stream cut."""
    done = []
    events = list(events)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        if not events:
            break
        i, j = rng.randrange(len(events)), rng.randrange(len(events))
        how = rng.choice(["drop", "repeat", "swap", "move", "cut", "event", "event", "event", "event"])
        if how == "drop":
            del events[i]
        elif how == "repeat":
            events.insert(j, events[i])
        elif how == "swap":
            events[i], events[j] = events[j], events[i]
        elif how == "move":
            events.insert(j, events.pop(i))
        elif how == "cut":
            del events[i:]
        else:
            events[i], what = mutate_payload(rng, events[i], words)
            done.append(f"event {i}: {'; '.join(what)}")
            continue
        done.append(f"{how} {i}" + (f" {j}" if how in {"repeat", "swap", "move"} else ""))
    return events, done


# ------------------------------------------------------------------------------------------ seeds


def stream_seeds(provider: str) -> dict[str, list[Any]]:
    """The recorded-shape streams of ``tests/streaming/fixtures/<provider>``, by name."""
    return {p.stem: _read(p) for p in sorted((STREAM_FIXTURES / provider).glob("*.json"))}


def payload_seeds(provider: str, *, responses: bool) -> dict[str, Any]:
    """The provider payload fixtures of ``tests/providers/fixtures/<provider>``: responses or requests.

    A response fixture is named ``response*`` (Gemini's too); MCP's single file holds a list of results.
    """
    found: dict[str, Any] = {}
    for p in sorted((PAYLOAD_FIXTURES / provider).glob("*.json")):
        if p.stem.startswith("response") != responses:
            continue
        value = _read(p)
        if provider == "mcp":
            found.update({f"{p.stem}[{i}]": item for i, item in enumerate(value)})
        else:
            found[p.stem] = value
    return found


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _pick(rng: random.Random, weighted: tuple[tuple[Any, int], ...]) -> Any:
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def _at(tree: Any, path: Path_) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _fresh(value: Any) -> Any:
    return json.loads(json.dumps(value)) if isinstance(value, (list, dict)) else value


def _show(path: Path_) -> str:
    steps = [f"[{k}]" if isinstance(k, int) else f".{k}" for k in path]
    shown, i = [], 0
    while i < len(steps):
        run = 1
        while i + run < len(steps) and steps[i + run] == steps[i]:
            run += 1
        shown.append(steps[i] if run < 4 else f"{steps[i]}*{run}")
        i += run
    return "$" + "".join(shown)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------------------------------ shrinking


def shrink(value: Any, fails: Callable[[Any], bool], *, budget: int = 1500) -> Any:
    """A smaller value that still ``fails``: places removed one at a time, shallow first, while it still fails.

    Greedy and bounded (``budget`` tries): a reproducer to read, not a proven minimum.
    """
    tries = 0
    start = 0
    while tries < budget:
        inner = sorted((p for p, _ in places(value) if p), key=len)
        for n, path in enumerate(inner[start:], start):
            if tries >= budget:
                return value
            tries += 1
            smaller = replace(value, path[:-1], _delete(path[-1]))
            if fails(smaller):
                value, start = smaller, n
                break
        else:
            return value
    return value
