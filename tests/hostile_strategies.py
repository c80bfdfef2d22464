"""Mutation strategies for the hostile-input tests: valid wire values in, nasty near-misses out.

A mutant starts as the canonical wire form of a valid block, message or conversation (drawn from
``contentblocks.strategies`` and a few hand-written seeds) and then has one to four mutations applied at
random nodes: keys dropped, added or renamed; a node's type swapped; NaN, infinities, bytes, sets, cycles,
10,000-deep nesting, huge ints, lone surrogates, bidi controls, whitespace and ``data:`` prefixes injected.
Text mutants do the same to JSON text: truncation, duplicate keys, NaN literals, deep brackets, bad UTF-8.

Every hostile value is built fresh for each example, so mutating inside one never leaks into the next.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

import contentblocks as cb
from contentblocks import strategies as cbst

# ------------------------------------------------------------------------------------------ foreign objects

FOREIGN_CALLS: list[str] = []
"""Every call the library makes into a foreign object's ``__repr__``/``__str__``/``__format__`` lands here."""


class Foreign:
    """An object whose text forms must never be asked for: each records the call, then raises."""

    def __repr__(self) -> str:
        FOREIGN_CALLS.append("repr")
        raise RuntimeError("repr() of a foreign object")

    def __str__(self) -> str:
        FOREIGN_CALLS.append("str")
        raise RuntimeError("str() of a foreign object")

    def __format__(self, spec: str) -> str:
        FOREIGN_CALLS.append("format")
        raise RuntimeError("format() of a foreign object")


class HugeRepr:
    """An object whose ``repr`` is 10 MB long: echoing it would blow any message-size check."""

    def __repr__(self) -> str:
        FOREIGN_CALLS.append("huge repr")
        return "H" * 10_000_000

    __str__ = __repr__


class StrSub(str):
    __slots__ = ()


class IntSub(int):
    __slots__ = ()


class DictSub(dict):  # a plain subclass: read through the base class, so it may be accepted
    __slots__ = ()


class ListSub(list):
    __slots__ = ()


def deep_list(depth: int = 10_000) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def deep_dict(depth: int = 10_000) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        child: dict[str, Any] = {}
        node["a"] = child
        node = child
    return root


def cyclic_list() -> list[Any]:
    a: list[Any] = [1]
    a.append(a)
    return a


def cyclic_dict() -> dict[str, Any]:
    d: dict[str, Any] = {"type": "text", "text": "x"}
    d["metadata"] = d
    return d


# Builders, not values: each example gets fresh objects.
HOSTILE_BUILDERS: tuple[Callable[[], Any], ...] = (
    lambda: math.nan, lambda: math.inf, lambda: -math.inf, lambda: b"abc", lambda: bytearray(b"\x00"),
    lambda: {1, 2}, frozenset, lambda: 2**64, lambda: -(2**63) - 1, lambda: 2**64 - 1, lambda: -(2**63),
    lambda: 10**5000, lambda: -(10**400), lambda: True, lambda: False, lambda: None, lambda: 0, lambda: -0.0,
    lambda: 1.0, lambda: 1e308, lambda: 5e-324, lambda: "", lambda: " ", lambda: "\u202e", lambda: "\ud800",
    lambda: "a\udfffb", lambda: "\x00", lambda: "\u2028", lambda: "\ufeff", lambda: "x" * 300, list,
    dict, lambda: (), lambda: (1, "a"), cyclic_list, cyclic_dict, deep_list, deep_dict,
    Foreign, HugeRepr, lambda: 1 + 2j, lambda: Decimal("1.5"), object,
    lambda: StrSub("text"), lambda: IntSub(3), lambda: DictSub(a=1), lambda: ListSub([1]), lambda: ...,
    lambda: cb.TextBlock, lambda: cb.TextBlock(text="x"), lambda: range(3), lambda: iter([1]),
    lambda: memoryview(b"ab"),
)

WIRE_KEYS = ("type", "text", "citations", "metadata", "media_type", "source", "filename", "signature", "redacted",
             "tool_call_id", "tool_name", "input", "outcome", "content", "value", "role", "kind", "title", "quote",
             "start", "end", "data", "url", "id", "provider")
ODD_KEYS: tuple[Any, ...] = ("", "Type", "TYPE", " type", "type ", "type\u200b", "\ud800", "x" * 300, "$", "a.b",
                             1, None, b"type", ("type",), 1.5, True)

STRING_EDITS: tuple[Callable[[str], str], ...] = (
    lambda s: "data:image/png;base64," + s, lambda s: "data:" + s, lambda s: s + "\n", lambda s: "\n" + s,
    lambda s: s[: len(s) // 2] + " " + s[len(s) // 2 :], lambda s: s[: len(s) // 2] + "\r\n" + s[len(s) // 2 :],
    lambda s: s + "\u202e", lambda s: "\u202e" + s, lambda s: s + "\u2066", lambda s: s + "\ud800",
    lambda s: "\udc00" + s, lambda s: s.replace("+", "-").replace("/", "_"), lambda s: s.rstrip("="),
    lambda s: s + "=", lambda s: s + "====", lambda s: s.upper(), lambda s: s.lower(), lambda s: s[:-1],
    lambda s: s * 2, lambda s: s + "\x00", lambda s: "\u00a0" + s, lambda s: s + "\u200d", lambda s: " " + s,
    lambda s: s + "\t", lambda s: "javascript:" + s, lambda s: "https://user:pw@" + s, lambda s: s + "#",
    lambda s: s + "%zz", lambda s: s + "/\\..", lambda s: s.replace("/", "\uff0f"), lambda s: s + "x" * 257,
    lambda s: s[:1],
)


# ------------------------------------------------------------------------------------------ seeds

HAND_SEEDS: dict[str, list[Any]] = {
    "block": [
        {"type": "text", "text": "see [1]", "citations": [
            {"source": {"kind": "uri", "value": "https://example.com/a#b"}, "title": "A", "quote": "q",
             "start": 0, "end": 3}]},
        {"type": "file", "media_type": "image/png", "source": {"type": "base64", "data": "iVBORw0KGgo="},
         "filename": "a.png", "metadata": {"app/x": [1, 1.0, True, None, "s"]}},
        {"type": "file", "media_type": "image/*", "source": {"type": "url", "url": "https://example.com/x.png"}},
        {"type": "file", "media_type": "application/pdf", "source": {"type": "reference", "id": "file-1",
                                                                     "provider": "openai"}},
        {"type": "reasoning", "text": "hmm", "signature": "c2ln"},
        {"type": "reasoning", "redacted": "AAEC"},
        {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {"a": [1, {"b": -0.0}]}},
        {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "failed",
         "content": [{"type": "text", "text": "x"}, {"type": "json", "value": None}]},
        {"type": "refusal", "text": "no"},
        {"type": "json", "value": [2**64 - 1, -(2**63), 1e308, "\u202e"]},
    ],
}
HAND_SEEDS["message"] = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [HAND_SEEDS["block"][4], HAND_SEEDS["block"][6]], "metadata": {"k": {}}},
    {"role": "tool", "content": [HAND_SEEDS["block"][7]]},
]
HAND_SEEDS["conversation"] = [[HAND_SEEDS["message"][0], HAND_SEEDS["message"][1], HAND_SEEDS["message"][2]], []]

TARGETS: dict[str, Any] = {"block": cb.Block, "message": cb.Message, "conversation": cb.Conversation}


def wire_values(target: str) -> st.SearchStrategy[Any]:
    """Canonical wire values of ``target`` ("block", "message" or "conversation"), always freshly built."""
    generated = {
        "block": cbst.blocks(max_text_size=12, max_binary_size=8),
        "message": cbst.messages(max_blocks=3, max_text_size=12, max_binary_size=8),
        "conversation": cbst.conversations(max_messages=3, max_text_size=8, max_binary_size=4),
    }[target]
    hand = st.sampled_from(HAND_SEEDS[target]).map(lambda v: json.loads(json.dumps(v)))
    return st.one_of(hand, generated.map(cb.unstructure))


# ------------------------------------------------------------------------------------------ structural mutation


def _nodes(value: Any, limit: int = 200) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, node) pairs of plain dicts and lists, breadth first, skipping cycles and anything too deep."""
    found: list[tuple[tuple[Any, ...], Any]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    seen: set[int] = set()
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        found.append((path, node))
        if type(node) not in (dict, list) or id(node) in seen or len(path) > 30:
            continue
        seen.add(id(node))
        items = node.items() if type(node) is dict else enumerate(node)
        queue.extend(((*path, k), v) for k, v in items)
    return found


def _set(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return root


@st.composite
def hostile_values(draw: st.DrawFn) -> Any:
    """One fresh hostile (or borderline-valid) value."""
    return draw(st.sampled_from(HOSTILE_BUILDERS))()


@st.composite
def _mutate(draw: st.DrawFn, root: Any) -> Any:
    path, node = draw(st.sampled_from(_nodes(root)))
    t = type(node)
    choice = draw(st.integers(0, 9))
    if t is dict and choice < 4:
        keys = list(node)
        if choice == 0 and keys:  # drop a key
            del node[draw(st.sampled_from(keys))]
        elif choice == 1 and keys:  # rename a key
            old = draw(st.sampled_from(keys))
            node[draw(st.sampled_from(WIRE_KEYS + ODD_KEYS))] = node.pop(old)
        else:  # add a key, known or odd, with a valid-looking or hostile value
            key = draw(st.sampled_from(WIRE_KEYS + ODD_KEYS))
            node[key] = draw(st.one_of(hostile_values(), st.sampled_from(["text", "x", 0, [], {}])))
        return root
    if t is list and choice < 4:
        if choice == 0 and node:
            del node[draw(st.integers(0, len(node) - 1))]
        elif choice == 1 and node:
            node.append(node[draw(st.integers(0, len(node) - 1))])  # a duplicate: shared, and tool ids repeat
        elif choice == 2:
            return _set(root, path, tuple(node))
        else:
            node.insert(draw(st.integers(0, len(node))), draw(hostile_values()))
        return root
    if t is str and choice < 7:
        return _set(root, path, draw(st.sampled_from(STRING_EDITS))(node))
    if t is int and choice < 6 and abs(node) < 2**200:
        return _set(root, path, draw(st.sampled_from([node + 1, node - 1, -node, node * 10**20, float(node),
                                                      node == 0, str(node), IntSub(node)])))
    if choice < 8:  # swap the type of the node
        swapped = [[node], {"value": node}, None, json.dumps(node) if _dumpable(node) and t in (str, int, bool) else "{}"]
        return _set(root, path, draw(st.sampled_from(swapped)))
    return _set(root, path, draw(hostile_values()))


@st.composite
def mutants(draw: st.DrawFn, target: str) -> Any:
    """A valid wire value of ``target`` with one to four mutations applied."""
    value = draw(wire_values(target))
    for _ in range(draw(st.integers(1, 4))):
        value = draw(_mutate(value))
    return value


# ------------------------------------------------------------------------------------------ text mutation

_NUMBER = re.compile(r"(?<=[:\[,])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_KEY = re.compile(r'\{"([a-z_]+)":')
BAD_UTF8 = (b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf4\x90\x80\x80", b"\xfe\xff")
INSERTS = ("{", "}", "[", "]", ",", ":", '"', "\\", "\x00", " ", "\u00a0", "\\ud800", "\\u0000", "\ud800",
           "NaN", "Infinity", "-Infinity", "1e400", "9" * 5000, "\u2028", "/*x*/", "'")


@st.composite
def text_mutants(draw: st.DrawFn, target: str) -> str | bytes:
    """JSON text of a valid ``target`` value, damaged at the text level; sometimes bytes, sometimes not UTF-8."""
    value = draw(st.one_of(wire_values(target), mutants(target).filter(_dumpable)))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), separators=draw(st.sampled_from([None, (",", ":")])))
    choice = draw(st.integers(0, 8))
    at = draw(st.integers(0, len(text)))
    if choice == 0:
        return text[:at]
    if choice == 1:
        return text[:at] + draw(st.sampled_from(INSERTS)) + text[at:]
    if choice == 2:
        numbers = list(_NUMBER.finditer(text))
        if numbers:
            m = draw(st.sampled_from(numbers))
            return text[: m.start()] + draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0",
                                                              "1" + "0" * 5000, "1.0e-400"])) + text[m.end():]
        return text + "NaN"
    if choice == 3:
        keys = list(_KEY.finditer(text))
        if keys:
            m = draw(st.sampled_from(keys))
            return text[: m.start() + 1] + f'"{m.group(1)}":{draw(st.sampled_from(["null", "1", "{}"]))},' + text[m.start() + 1:]
        return '{"type":"text","type":"text","text":"x"}'
    if choice == 4:
        n = draw(st.sampled_from([101, 1000, 10_000, 100_000]))
        return draw(st.sampled_from(["[" * n + text + "]" * n, text[:at] + "[" * n + text[at:],
                                     '{"type":"json","value":' + "[" * n + "]" * n + "}",
                                     '{"type":"json","value":' + '{"a":' * n + "1" + "}" * n + "}"]))
    if choice == 5:
        raw = text.encode("utf-8", "surrogatepass")
        cut = draw(st.integers(0, len(raw)))
        return raw[:cut] + draw(st.sampled_from(BAD_UTF8)) + raw[cut:]
    if choice == 6:
        return draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b""])) + text.encode("utf-8", "surrogatepass")
    if choice == 7:
        return text.encode("utf-16", "surrogatepass") if draw(st.booleans()) else text.encode("utf-8", "surrogatepass")
    return text


def _dumpable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


# ------------------------------------------------------------------------------------------ the oracle

#: A message's words, the longest list they give (the block types an unknown tag could have been) and a preview
#: of about 100 characters stay under this whatever the input.
MAX_MESSAGE_CHARS = 400
MAX_PATH_CHARS = 5_000  # 100 levels of 32-character key previews, and a margin


def exact(a: Any, b: Any) -> bool:
    """Type-exact equality: ``True != 1``, ``1 != 1.0``, ``0.0 != -0.0``, ``(1,) != [1]``."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if type(a) is list:
        return len(a) == len(b) and all(exact(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return a.keys() == b.keys() and all(exact(a[k], b[k]) for k in a)
    return bool(a == b)


def plain_json(value: Any) -> Any:
    """A JSON value as plain dicts and lists (tuples and base-class-read subclasses become lists and dicts)."""
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in dict.items(value)}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value


def _canonical_block(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = raw["type"]
    for key, value in dict.items(raw):
        if key == "metadata":
            if value:
                out[key] = plain_json(value)
        elif key == "citations":
            if value:
                out[key] = [plain_json(c) for c in value]
        elif key in ("input", "value") and kind in ("tool_call", "server_tool_call", "json"):
            out[key] = plain_json(value)
        elif key == "content":
            out[key] = [_canonical_block(b) for b in value]
        elif key == "source":
            out[key] = plain_json(value)
        else:
            out[key] = value
    return out


def _canonical_message(raw: dict[str, Any]) -> dict[str, Any]:
    content = raw["content"]
    out: dict[str, Any] = {"role": raw["role"]}
    if type(content) is str:
        out["content"] = [{"type": "text", "text": content}]
    else:
        out["content"] = [_canonical_block(b) for b in content]
    if "cache" in raw:
        out["cache"] = plain_json(raw["cache"])
    if raw.get("metadata"):
        out["metadata"] = plain_json(raw["metadata"])
    return out


def canonical(raw: Any, target: str) -> Any:
    """What ``cb.unstructure(cb.structure(raw, target))`` must be for an accepted ``raw`` (SPEC §2, §4)."""
    if target == "block":
        return _canonical_block(raw)
    if target == "message":
        return _canonical_message(raw)
    return [_canonical_message(m) for m in raw]


def check_error(error: cb.ValidationError, max_errors: int = 100) -> None:
    """A ValidationError people can act on: paths from ``$``, short messages, a bounded list, a bounded str."""
    assert type(error.errors) is list
    assert 1 <= len(error.errors) <= max_errors
    assert type(error.omitted) is int
    assert error.omitted >= 0
    for problem in error.errors:
        assert type(problem) is tuple
        path, message = problem
        assert type(path) is str
        assert path.startswith("$")
        assert len(path) <= MAX_PATH_CHARS, f"path of {len(path)} characters"
        assert type(message) is str
        assert message
        assert len(message) < MAX_MESSAGE_CHARS, f"message of {len(message)} characters at {path[:80]}"
    assert len(str(error)) <= 25 * (MAX_PATH_CHARS + MAX_MESSAGE_CHARS)


def check_accepted(obj: Any, raw: Any, target: str) -> None:
    """An accepted value round-trips exactly and survives json and orjson unchanged."""
    cls = TARGETS[target]
    canon = cb.unstructure(obj)
    expected = canonical(raw, target)
    assert exact(canon, expected), "the canonical form lost or changed something"
    again = cb.structure(canon, cls)
    assert again == obj
    assert exact(cb.unstructure(again), canon)
    assert exact(json.loads(json.dumps(canon, allow_nan=False)), canon)
    assert cb.loads(cb.dumps(obj), cls) == obj
    try:
        import orjson  # noqa: PLC0415 - optional
    except ImportError:  # pragma: no cover - orjson is a test dependency
        return
    assert exact(orjson.loads(orjson.dumps(canon)), canon)


# ------------------------------------------------------------------------------------------ URLs

# Hosts and ports near the edges of what urllib.parse takes: IP literals valid and not, ports past 65535,
# characters that NFKC normalisation turns into URL delimiters (fullwidth "#", ":", "/", "?", "@").
_URL_HOSTS = st.one_of(
    st.sampled_from(["example.com", "h", "[::1]", "[::ffff:1.2.3.4]", "[1::]", "[1:2:3:4:5:6:7:8]", "[.]",
                     "[1.2.3.4]", "[::1::2]", "[12345::]", "[1:2:3:4:5:6:7:8:9]", "[::ffff:1.2.3]", "[::01.2.3.4]",
                     "[]", "[:]", "[v1.x]", "[fe80::1%25eth0]", "caf\u00e9.example", "a\uff03b", "\uff1a", "a\uff0fb",
                     "\uff1f", "\uff20x", "\u2100", "\u2474", "x\ufe55y"]),
    st.builds("[{}]".format, st.ip_addresses(v=6).map(str)),
    st.builds("[{}]".format, st.text("0123456789abcdefABCDEF:.", max_size=45)),
    st.text(st.characters(min_codepoint=0x80, max_codepoint=0xFFFF, exclude_categories=("Cs", "Cc", "Cf", "Zs", "Zl",
                                                                                         "Zp", "Co", "Cn")),
            min_size=1, max_size=4),
)
_URL_PORTS = st.one_of(st.just(""), st.just(":"), st.integers(0, 10**6).map(":{}".format),
                       st.integers(0, 70_000).map(":0{}".format), st.just(":" + "0" * 5000 + "80"))


@st.composite
def url_candidates(draw: st.DrawFn) -> str:
    """Strings shaped like http(s) URLs whose host and port test the edges of urllib.parse; many are invalid."""
    scheme = draw(st.sampled_from(["https", "http", "HTTP"]))
    path = draw(st.sampled_from(["", "/", "/a?b#c", "?q", "#f"]))
    return f"{scheme}://{draw(_URL_HOSTS)}{draw(_URL_PORTS)}{path}"
