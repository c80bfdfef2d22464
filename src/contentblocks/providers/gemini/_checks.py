"""The pre-send checks: what Gemini would refuse in a conversation, found on the request it would be sent as.

Each rule is listed, with the page or API message that states it, in ``docs/providers/gemini.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._model import Message, ToolCallBlock
from .._contract import Rejection
from ._write import Writer

__all__ = ["RULES", "check"]

#: Every rule ``check`` applies, by id.
RULES = (
    "gemini/content-has-parts",
    "gemini/response-follows-call",
    "gemini/answer-every-call",
    "gemini/call-follows-user",
    "gemini/thought-signature",
)


def _of(content: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    return [] if content is None else [p[kind] for p in content["parts"] if kind in p]


def _answers_all(answers: list[dict[str, Any]], calls: list[dict[str, Any]]) -> bool:
    """Whether ``answers`` answer each of ``calls`` once (by id where a response has one, else by name)."""
    if len(answers) != len(calls):
        return False
    open_calls = list(calls)
    for answer in answers:
        match = next(
            (c for c in open_calls if (c.get("id") == answer["id"] if "id" in answer else c["name"] == answer["name"])),
            None,
        )
        if match is None:
            return False
        open_calls.remove(match)
    return True


def _turn_start(contents: list[dict[str, Any]]) -> int:
    """The index of the content that starts the current turn (0 when there is none).

    That is the last user content with more than function responses in it, as the thought signatures page says.
    """
    for k in range(len(contents) - 1, -1, -1):
        content = contents[k]
        if content.get("role", "user") == "user" and any("functionResponse" not in p for p in content["parts"]):
            return k
    return 0


def check(messages: Sequence[Message], issuer: str, *, require_signatures: bool) -> tuple[Rejection, ...]:
    """The rejections for ``messages`` sent to ``issuer`` (see ``gemini.preflight``)."""
    writer = Writer(issuer)
    contents = writer.write(messages)["contents"]
    found = [
        Rejection(
            f"$[{i}]", RULES[0], "nothing of this message can be sent, and Gemini refuses a content with no parts"
        )
        for i in writer.dropped
    ]
    for k, content in enumerate(contents):
        path = f"$[{writer.origins[k]}]"
        before = contents[k - 1] if k else None
        model_before = before is not None and before.get("role") == "model"
        calls, answers = _of(content, "functionCall"), _of(content, "functionResponse")
        if answers and not (model_before and _of(before, "functionCall")):
            message = "function responses must come right after the model turn that made the calls"
            found.append(Rejection(path, RULES[1], message))
        elif answers and not _answers_all(answers, _of(before, "functionCall")):
            made = len(_of(before, "functionCall"))
            message = f"the {len(answers)} function response(s) here must answer exactly the {made} call(s) before"
            found.append(Rejection(path, RULES[2], message))
        if calls and (before is None or model_before):
            message = "a model turn with function calls must come right after a user turn or a function response turn"
            found.append(Rejection(path, RULES[3], message))
    if require_signatures:
        for k in range(_turn_start(contents), len(contents)):
            content = contents[k]
            first = next((p for p in content["parts"] if "functionCall" in p), None)
            if content.get("role") == "model" and first is not None and "thoughtSignature" not in first:
                i = writer.origins[k]
                j = next((j for j, b in enumerate(messages[i].content) if type(b) is ToolCallBlock), None)
                where = f"$[{i}]" if j is None else f"$[{i}].content[{j}]"
                message = "the first function call of each step of the current turn must carry its thought signature"
                found.append(Rejection(where, RULES[4], message))
    return tuple(sorted(found, key=lambda r: _order(r.path)))


def _order(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in path.replace("$[", "").replace("].content[", " ").rstrip("]").split())
