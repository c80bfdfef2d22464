"""A deterministic corpus of canonical wire data for the benchmarks: conversations of chat and tool messages.

``conversation(n_blocks, seed)`` returns a JSON-ready list of message dicts carrying exactly ``n_blocks``
top-level blocks, in the canonical wire form that ``cb.unstructure`` produces (so it round-trips unchanged).
The mix follows what agent transcripts look like:

- mostly text (a quarter of it with one to three citations, a tenth with non-ASCII characters);
- reasoning before many assistant turns, with an opaque signature (now and then redacted reasoning instead);
- tool calls with nested JSON input, answered by tool results that mix text, JSON, file and search result parts;
- a few citations naming several sources;
- a few inline images of 1-50 KB (base64), some files by URL or provider reference, a few JSON blocks;
- a rare refusal, a rare compaction (an Anthropic summary with its signature, or OpenAI's encrypted item), and
  metadata on about one block in ten;
- now and then a web search the provider ran: its call, and its result as text citing each hit's URL, with
  Anthropic's native result (and its encrypted content) in the metadata, as the adapter reads one;
- now and then a tool call that asks for approval: a request right after it, and the decision first in the tool
  message that answers it (one in five a denial with its reason, the call's result then denied).

Only ``random.Random(seed)`` is used, so a size and seed always give the same corpus (no Hypothesis, no clock).

>>> conv = conversation(50)
>>> sum(len(m["content"]) for m in conv)
50
>>> conversation(50) == conv
True
"""

from __future__ import annotations

import base64
import random
import string
from typing import Any

__all__ = ["SIZES", "blocks", "conversation", "describe"]

SIZES = (200, 2_000, 20_000)

_WORDS = ["the", "model", "returns", "a", "structured", "answer", "with", "citations", "to", "each", "source", "it", "used", "while", "the", "tool", "call", "runs", "against", "an", "index", "of", "reports", "and", "the", "user", "asks", "for", "a", "summary", "of", "quarterly", "revenue", "by", "region", "then", "compares", "growth", "rates", "across", "markets", "before", "drafting", "an", "email", "that", "explains", "which", "figures", "changed", "and", "why", "the", "forecast", "moved", "since", "last", "week"]
_NON_ASCII = ["café", "naïve", "Zürich", "東京", "données", "Ελληνικά", "🙂", "—", "résumé", "São Paulo"]
_TOOLS = ["search_documents", "get_weather", "run_sql", "read_file", "send_email", "create_ticket", "fetch_prices"]
_HOSTS = ["example.com", "docs.example.org", "reports.acme.test", "en.wikipedia.org"]
_ALNUM = string.ascii_letters + string.digits


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 18))]
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), rng.choice(_NON_ASCII))
    return " ".join(words).capitalize() + rng.choice(".!?.")


def _text(rng: random.Random, sentences: tuple[int, int] = (1, 6)) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(*sentences)))


def _token(rng: random.Random, size: int) -> str:
    return "".join(rng.choices(_ALNUM, k=size))


def _url(rng: random.Random) -> str:
    return f"https://{rng.choice(_HOSTS)}/{_token(rng, 6)}/{_token(rng, 10)}?page={rng.randint(1, 99)}"


def _metadata(rng: random.Random) -> dict[str, Any]:
    meta: dict[str, Any] = {"app/trace_id": _token(rng, 16)}
    if rng.random() < 0.5:
        meta["anthropic/cache_control"] = {"type": "ephemeral"}
    if rng.random() < 0.3:
        meta["app/tags"] = [rng.choice(_WORDS) for _ in range(rng.randint(1, 4))]
    return meta


def _maybe_metadata(rng: random.Random, block: dict[str, Any]) -> dict[str, Any]:
    if rng.random() < 0.1:
        block["metadata"] = _metadata(rng)
    return block


def _citation(rng: random.Random, text: str) -> dict[str, Any]:
    if rng.random() < 0.7:
        source = {"kind": "uri", "value": _url(rng)}
    else:
        source = {"kind": "reference", "value": f"doc:{rng.randint(1, 9999)}"}
    citation: dict[str, Any] = {"source": source}
    if rng.random() < 0.6:
        citation["title"] = _sentence(rng).rstrip(".!?")
    if rng.random() < 0.7:
        start = rng.randrange(len(text))
        end = rng.randint(start, min(len(text), start + 120))
        citation["quote"] = text[start:end] or "…"
        citation["start"] = start
        citation["end"] = end
    side = _side(rng)
    if side.random() < 0.1:  # a grounding support backed by several results
        citation["other_sources"] = [{"kind": "uri", "value": _url(side)} for _ in range(side.randint(1, 2))]
        citation = {"source": citation.pop("source"), "other_sources": citation.pop("other_sources"), **citation}
    return citation


def _text_block(rng: random.Random, *, cite: float = 0.25) -> dict[str, Any]:
    text = _text(rng)
    block: dict[str, Any] = {"type": "text", "text": text}
    if rng.random() < cite:
        block["citations"] = [_citation(rng, text) for _ in range(rng.randint(1, 3))]
    return _maybe_metadata(rng, block)


def _image(rng: random.Random) -> dict[str, Any]:
    size = rng.randint(1024, 50 * 1024)
    data = b"\x89PNG\r\n\x1a\n" + rng.randbytes(size - 8)
    block: dict[str, Any] = {
        "type": "file",
        "media_type": "image/png",
        "source": {"type": "base64", "data": base64.b64encode(data).decode("ascii")},
    }
    if rng.random() < 0.5:
        block["filename"] = f"figure-{rng.randint(1, 99)}.png"
    return _maybe_metadata(rng, block)


def _remote_file(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.5:
        source: dict[str, Any] = {"type": "url", "url": _url(rng) + ".pdf"}
        media_type = "application/pdf"
    else:
        source = {"type": "reference", "id": f"file-{_token(rng, 24)}"}
        if rng.random() < 0.7:
            source["provider"] = rng.choice(["openai", "anthropic", "gemini"])
        media_type = rng.choice(["application/pdf", "text/csv", "text/plain; charset=utf-8"])
    block: dict[str, Any] = {"type": "file", "media_type": media_type, "source": source}
    if rng.random() < 0.6:
        block["filename"] = f"{rng.choice(_WORDS)}-{rng.randint(1, 999)}.{media_type.split('/')[1].split(';')[0]}"
    return _maybe_metadata(rng, block)


def _scalar(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.4:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 5)))
    if roll < 0.6:
        return rng.randint(-1000, 10**6)
    if roll < 0.8:
        return round(rng.uniform(-1000, 1000), rng.randint(0, 4))
    if roll < 0.9:
        return rng.random() < 0.5
    return None


def _json(rng: random.Random, depth: int = 0) -> Any:
    """A nested JSON object of 2-6 keys, nesting up to four levels (objects, arrays of scalars or objects)."""
    out: dict[str, Any] = {}
    for _ in range(rng.randint(2, 6)):
        key = rng.choice(_WORDS) + ("_" + rng.choice(_WORDS) if rng.random() < 0.5 else "")
        roll = rng.random()
        if depth < 3 and roll < 0.25:
            out[key] = _json(rng, depth + 1)
        elif depth < 3 and roll < 0.4:
            if rng.random() < 0.5:
                out[key] = [_scalar(rng) for _ in range(rng.randint(0, 6))]
            else:
                out[key] = [_json(rng, depth + 2) for _ in range(rng.randint(1, 3))]
        else:
            out[key] = _scalar(rng)
    return out


def _reasoning(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.05:
        return {"type": "reasoning", "redacted": base64.b64encode(rng.randbytes(rng.randint(64, 512))).decode("ascii")}
    block: dict[str, Any] = {"type": "reasoning", "text": _text(rng, (2, 8))}
    if rng.random() < 0.9:
        block["signature"] = base64.b64encode(rng.randbytes(rng.randint(100, 300))).decode("ascii")
    return _maybe_metadata(rng, block)


def _compaction(rng: random.Random) -> dict[str, Any]:
    """A compaction as the adapters read one: Anthropic's summary and signature, or OpenAI's encrypted item."""
    if rng.random() < 0.5:
        return {"type": "compaction", "summary": _text(rng, (4, 12)), "metadata": {
            "contentblocks/issuer": "anthropic", "anthropic/signature": _token(rng, 80)}}
    return {"type": "compaction", "metadata": {"contentblocks/issuer": "openai", "openai/id": f"cmp_{_token(rng, 24)}",
                                               "openai/encrypted_content": _token(rng, rng.randint(400, 1600))}}


def _server_search(rng: random.Random, call_id: str) -> list[dict[str, Any]]:
    """A web search Anthropic ran, as its adapter reads one: the call, and the result with its native form."""
    query = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 6)))
    hits = [{"type": "web_search_result", "url": _url(rng), "title": _sentence(rng).rstrip(".!?"),
             "encrypted_content": _token(rng, rng.randint(200, 800)), "page_age": f"{rng.randint(1, 28)} days ago"}
            for _ in range(rng.randint(1, 4))]  # fmt: skip
    native = {"type": "web_search_tool_result", "tool_use_id": call_id, "content": hits}
    parts = [{"type": "text", "text": hit["title"], "citations": [{"source": {"kind": "uri", "value": hit["url"]},
                                                                   "title": hit["title"]}]} for hit in hits]
    issuer = {"contentblocks/issuer": "anthropic"}
    call = {"type": "server_tool_call", "tool_call_id": call_id, "tool_name": "web_search", "input": {"query": query},
            "metadata": issuer}
    result = {"type": "server_tool_result", "tool_call_id": call_id, "tool_name": "web_search",
              "outcome": "succeeded", "content": parts, "metadata": {**issuer, "anthropic/server_result": native}}
    return [call, result]


def _tool_call(rng: random.Random, call_id: str) -> dict[str, Any]:
    block = {"type": "tool_call", "tool_call_id": call_id, "tool_name": rng.choice(_TOOLS), "input": _json(rng)}
    return _maybe_metadata(rng, block)


def _side(rng: random.Random) -> random.Random:
    """A generator for what the corpus gained later (search results, several sources), seeded from ``rng``'s state
    without drawing from it, so that every block the corpus had before stays as it was."""
    return random.Random(hash(rng.getstate()[1]))


def _search_result(rng: random.Random) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "search_result", "source": {"kind": "uri", "value": _url(rng)}}
    if rng.random() < 0.9:
        block["title"] = _sentence(rng).rstrip(".!?")
    block["content"] = [_text_block(rng, cite=0.0) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        block["citable"] = True
    return _maybe_metadata(rng, block)


def _result_part(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.5:
        return _text_block(rng, cite=0.0)
    if roll < 0.9:
        json_part = _maybe_metadata(rng, {"type": "json", "value": _json(rng)})  # drawn either way: see _side
        return json_part if roll < 0.8 else _search_result(_side(rng))
    return _remote_file(rng)


def _tool_result(rng: random.Random, call: dict[str, Any]) -> dict[str, Any]:
    outcome = rng.choices(["succeeded", "failed", "denied"], weights=[85, 12, 3])[0]
    if outcome == "denied":
        content: list[dict[str, Any]] = []
    elif outcome == "failed":
        content = [{"type": "text", "text": f"Error: {_sentence(rng)}"}]
    else:
        content = [_result_part(rng) for _ in range(rng.randint(1, 3))]
    block = {"type": "tool_result", "tool_call_id": call["tool_call_id"], "tool_name": call["tool_name"],
             "outcome": outcome, "content": content}
    return _maybe_metadata(rng, block)


def _approval(
    rng: random.Random, assistant: list[dict[str, Any]], call: dict[str, Any], result: dict[str, Any]
) -> list[dict[str, Any]]:
    """Ask for approval of ``call`` (the request goes right after it): the decision and the call's result."""
    approval_id = f"apr_{_token(rng, 20)}"
    assistant.insert(assistant.index(call) + 1,
                     {"type": "approval_request", "approval_id": approval_id, "tool_call_id": call["tool_call_id"]})
    if rng.random() < 0.8:
        return [{"type": "approval_response", "approval_id": approval_id, "approved": True}, result]
    reason = _sentence(rng)
    decision = {"type": "approval_response", "approval_id": approval_id, "approved": False, "reason": reason}
    return [decision, {**result, "outcome": "denied", "content": [{"type": "text", "text": reason}]}]


def _user_turn(rng: random.Random) -> list[dict[str, Any]]:
    content = [_text_block(rng, cite=0.1) for _ in range(rng.choices([1, 2], weights=[80, 20])[0])]
    roll = rng.random()
    if roll < 0.08:
        content.append(_image(rng))
    elif roll < 0.14:
        content.append(_remote_file(rng))
    elif roll < 0.18:
        content.append({"type": "json", "value": _json(rng)})
    return content


def _assistant_turn(rng: random.Random, next_call: list[int]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    if rng.random() < 0.5:
        content.append(_reasoning(rng))
    if rng.random() < 0.02:
        content.append(_maybe_metadata(rng, {"type": "refusal", "text": _sentence(rng)}))
        return content
    content.extend(_text_block(rng, cite=0.4) for _ in range(rng.randint(1, 2)))
    if rng.random() < 0.45:
        for _ in range(rng.choices([1, 2, 3], weights=[70, 20, 10])[0]):
            next_call[0] += 1
            content.append(_tool_call(rng, f"call_{next_call[0]:06d}"))
    return content


def conversation(n_blocks: int, seed: int = 0) -> list[dict[str, Any]]:
    """A list of canonical message dicts carrying exactly ``n_blocks`` top-level blocks (a valid conversation)."""
    rng = random.Random(f"contentblocks-bench-{seed}")
    # compactions draw from their own generator, so that every other block of the corpus is as it was before them
    compactions = random.Random(f"contentblocks-bench-compaction-{seed}")
    searches = random.Random(f"contentblocks-bench-server-tools-{seed}")  # the same, for provider-run tools
    approvals = random.Random(f"contentblocks-bench-approvals-{seed}")  # and for approvals
    messages: list[dict[str, Any]] = [{"role": "system", "content": [{"type": "text", "text": _text(rng, (2, 4))}]}]
    count = 1
    next_call = [0]
    while count < n_blocks:
        turn = [("user", _user_turn(rng))]
        for _ in range(rng.randint(1, 3)):  # agent loop: the assistant calls tools until it answers
            assistant = _assistant_turn(rng, next_call)
            if compactions.random() < 0.02:
                assistant.insert(0, _compaction(compactions))
            if searches.random() < 0.04:
                call_id = f"srvtoolu_{_token(searches, 24)}"
                at = next((k for k, b in enumerate(assistant) if b["type"] == "text"), len(assistant))
                assistant[at:at] = _server_search(searches, call_id)
            turn.append(("assistant", assistant))
            calls = [b for b in assistant if b["type"] == "tool_call"]
            if not calls:
                break
            results = [_tool_result(rng, call) for call in calls]
            if approvals.random() < 0.06:
                results[:1] = _approval(approvals, assistant, calls[0], results[0])
            turn.append(("tool", results))
        for role, content in turn:
            message: dict[str, Any] = {"role": role, "content": content}
            if rng.random() < 0.05:
                message["metadata"] = _metadata(rng)
            messages.append(message)
            count += len(content)
    # Trim the tail to the exact size: a dropped result leaves its call unanswered, which the spec allows.
    while count > n_blocks:
        last = messages[-1]["content"]
        last.pop()
        count -= 1
        if not last:
            messages.pop()
    return messages


def blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The top-level block dicts of a conversation, in order."""
    return [block for message in messages for block in message["content"]]


def describe(messages: list[dict[str, Any]]) -> dict[str, int]:
    """Counts of each block type (top level and inside tool results), messages, and inline binary bytes."""
    counts: dict[str, int] = {"messages": len(messages)}
    inline = 0
    for block in blocks(messages):
        for part in [block, *block.get("content", [])] if block["type"] == "tool_result" else [block]:
            key = part["type"] if part is block else f"tool_result/{part['type']}"
            counts[key] = counts.get(key, 0) + 1
            if part["type"] == "file" and part["source"]["type"] == "base64":
                inline += len(part["source"]["data"]) * 3 // 4
        if block["type"] == "text" and "citations" in block:
            counts["text with citations"] = counts.get("text with citations", 0) + 1
        if block["type"] == "reasoning" and "redacted" in block:
            inline += len(block["redacted"]) * 3 // 4
    counts["inline binary bytes"] = inline
    return counts
