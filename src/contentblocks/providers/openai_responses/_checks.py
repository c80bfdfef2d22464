"""What the Responses API would refuse in a conversation, found before the request is made.

Each rule is one the OpenAI documentation states; the docs page's rule table gives the source of each.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..._model._classes import JsonBlock, Message, ReasoningBlock, ToolCallBlock, ToolResultBlock
from .._contract import ISSUER_KEY, Rejection, issuer_matches
from .._native import RESPONSES, replay_refusal
from ._fields import ISSUER, NS
from ._native import FLAG
from ._reasoning_items import sends_reasoning

#: Every rule ``preflight`` checks, with what it means.
RULES = {
    "openai_responses/output-answers-call": "a function_call_output answers a function_call earlier in the input",
    "openai_responses/call-needs-output": "every function_call in the input has its function_call_output",
    "openai_responses/reasoning-with-tool-calls": (
        "reasoning items returned with tool calls are passed back with the tool call outputs"
    ),
    "openai_responses/stateless-reasoning-needs-encrypted-content": (
        "with store=false, a reasoning item is sent with its encrypted content"
    ),
    "openai_responses/native-item-replayable": (
        "a JSON block flagged openai/input_item is an item OpenAI runs itself, in an assistant message (this "
        "library's rule: metadata never makes a message or a tool output)"
    ),
}


def _blocks(messages: Sequence[Message]) -> Iterator[tuple[int, int, object]]:
    for i, message in enumerate(messages):
        for j, block in enumerate(message.content):
            yield i, j, block


def _pairing(messages: Sequence[Message], *, continued: bool) -> list[Rejection]:
    """Results answering no earlier call (unless a previous response may hold it), and calls left unanswered."""
    calls: dict[str, str] = {}
    answered: set[str] = set()
    out = []
    for i, j, block in _blocks(messages):
        if type(block) is ToolCallBlock:
            calls.setdefault(block.tool_call_id, f"$[{i}].content[{j}]")
        elif type(block) is ToolResultBlock:
            answered.add(block.tool_call_id)
            if block.tool_call_id not in calls and not continued:
                why = "this function_call_output answers no function_call earlier in the input"
                out.append(Rejection(f"$[{i}].content[{j}]", "openai_responses/output-answers-call", why))
    for call_id, path in calls.items():
        if call_id not in answered:
            why = "this function_call has no function_call_output: the API needs the result of every call"
            out.append(Rejection(path, "openai_responses/call-needs-output", why))
    return out


def _reasoning(messages: Sequence[Message], target: str, *, store: bool) -> list[Rejection]:
    """OpenAI reasoning of answered calls that is not sent; sent reasoning items with no encrypted content."""
    answered = {b.tool_call_id for _, _, b in _blocks(messages) if type(b) is ToolResultBlock}
    out = []
    for i, message in enumerate(messages):
        with_calls = any(type(b) is ToolCallBlock and b.tool_call_id in answered for b in message.content)
        current: object = None
        for j, block in enumerate(message.content):
            if type(block) is not ReasoningBlock:
                current = None
                continue
            item_id = block.metadata.get(f"{NS}/id")
            path = f"$[{i}].content[{j}]"
            if not sends_reasoning(block, target):
                if with_calls and type(item_id) is str and issuer_matches(block.metadata.get(ISSUER_KEY), ISSUER):
                    why = f"reasoning returned with these tool calls is not sent back to {target!r}"
                    out.append(Rejection(path, "openai_responses/reasoning-with-tool-calls", why))
                current = None
                continue
            if item_id == current:
                continue
            current = item_id
            if not store and block.signature in (None, item_id):
                rule = "openai_responses/stateless-reasoning-needs-encrypted-content"
                why = "a reasoning item without encrypted content cannot be used with store=false"
                out.append(Rejection(path, rule, why))
    return out


def _native_items(messages: Sequence[Message], target: str) -> list[Rejection]:
    """JSON blocks flagged ``openai/input_item`` that are not sent as items (see ``providers._native``)."""
    out = []
    for i, j, block in _blocks(messages):
        role = messages[i].role
        inner = [(f"$[{i}].content[{j}]", block)]
        if type(block) is ToolResultBlock:
            role, inner = "tool", [(f"$[{i}].content[{j}].content[{k}]", b) for k, b in enumerate(block.content)]
        for path, b in inner:
            if type(b) is JsonBlock and FLAG in b.metadata:
                refusal = replay_refusal(b, RESPONSES, role=role, issuer=target)
                if refusal is not None:
                    why = f"not sent as a Responses item: {refusal.reason}"
                    out.append(Rejection(path, "openai_responses/native-item-replayable", why))
    return out


def rejections(messages: Sequence[Message], *, target: str, store: bool, continued: bool) -> tuple[Rejection, ...]:
    """Every rejection, tool pairing first, then reasoning, then flagged items, each in conversation order."""
    return (
        *_pairing(messages, continued=continued),
        *_reasoning(messages, target, store=store),
        *_native_items(messages, target),
    )
