"""The pre-send checks: what Gemini would refuse in a conversation, found on the request it would be sent as.

Each rule is listed, with the page or API message that states it, in ``docs/providers/gemini.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._model._classes import Message, ToolCallBlock, ToolResultBlock
from .._contract import Rejection
from ._pairing import Written, blocks_of, path_order
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


def _unpaired(answers: list[Written], calls: list[Written], path: str) -> list[Rejection]:
    """What breaks the rule that a response turn answers exactly the calls of the model turn before it.

    Pairs are the neutral ones (a tool result names its call): the writer sends them so that Gemini pairs them the
    same way, by id where the call has one, else by name and order.
    """
    made = {block.tool_call_id for block, _ in blocks_of(calls, ToolCallBlock)}
    found: list[Rejection] = []
    answered: set[str] = set()
    for block, where in blocks_of(answers, ToolResultBlock):
        answered.add(block.tool_call_id)
        if block.tool_call_id not in made:
            message = (
                f"answers call {block.tool_call_id!r}, which the model turn right before did not make "
                "(a function response turn answers exactly the calls of the turn before it)"
            )
            found.append(Rejection(where, RULES[2], message))
    missing = [c.tool_call_id for c, _ in blocks_of(calls, ToolCallBlock) if c.tool_call_id not in answered]
    if missing:
        listed = ", ".join(repr(m) for m in missing)
        message = f"call(s) {listed} of the model turn before are not answered here (Gemini needs every call answered)"
        found.append(Rejection(path, RULES[2], message))
    return found


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
        elif answers:
            found.extend(_unpaired(writer.sources[k], writer.sources[k - 1], path))
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
    return tuple(sorted(found, key=lambda r: path_order(r.path)))
