"""Hypothesis strategies that build valid blocks, messages and conversations, for property-based tests.

Every strategy returns a ``SearchStrategy`` of Python objects built through the classes, so every rule of
the wire format holds for what it draws. They lean towards the content that breaks serialisers: NUL, astral
and CJK characters, whitespace-only text, binary sizes around base64's padding, identifiers of 1 and 256
characters, media types with parameters, every tool outcome and every shape of reasoning.

This module needs Hypothesis (``pip install contentblocks[hypothesis]``); the rest of the library does not.

>>> from hypothesis import given, settings
>>> import contentblocks as cb
>>> from contentblocks import strategies
>>> @settings(max_examples=25, deadline=None, database=None)
... @given(strategies.conversations(max_messages=4))
... def test_round_trip(conversation):
...     assert cb.structure(cb.unstructure(conversation), cb.Conversation) == conversation
>>> test_round_trip()

.. versionadded:: 2026.11.0
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, get_args

import attrs
from hypothesis import strategies as st

from ._model._classes import (
    ROLE_BLOCKS,
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    Role,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ._model._conversation import Conversation
from ._strategies._blocks import (
    approval_request_blocks,
    approval_response_blocks,
    blocks,
    cache_breakpoints,
    citation_locations,
    citations,
    compaction_blocks,
    file_blocks,
    file_sources,
    json_blocks,
    kind_strategies,
    reasoning_blocks,
    refusal_blocks,
    search_result_blocks,
    server_tool_call_blocks,
    server_tool_result_blocks,
    text_blocks,
    tool_call_blocks,
    tool_result_blocks,
    tool_result_shapes,
    up_to,
)
from ._strategies._values import free_texts, identifiers, json_values, metadata

__all__ = [
    "approval_request_blocks",
    "approval_response_blocks",
    "blocks",
    "cache_breakpoints",
    "citation_locations",
    "citations",
    "compaction_blocks",
    "conversations",
    "file_blocks",
    "file_sources",
    "json_blocks",
    "json_values",
    "messages",
    "metadata",
    "reasoning_blocks",
    "refusal_blocks",
    "search_result_blocks",
    "server_tool_call_blocks",
    "server_tool_result_blocks",
    "text_blocks",
    "tool_call_blocks",
    "tool_result_blocks",
]

ROLES: tuple[Role, ...] = get_args(Role)


#: Blocks that pair with others across a conversation: a conversation draws them paired, never at random.
_PAIRED = (ApprovalRequestBlock, ApprovalResponseBlock)


@cache
def _role_content(role: str, max_text_size: int, max_binary_size: int, unpaired: bool) -> st.SearchStrategy[Any]:
    kinds = kind_strategies(max_text_size, max_binary_size)
    return st.one_of([kinds[cls] for cls in ROLE_BLOCKS[role] if not (unpaired and cls in _PAIRED)])


_SHORTHAND = st.integers(0, 4)
_MESSAGE_CACHES = cache_breakpoints(optional=True)


@st.composite
def _message(
    draw: st.DrawFn,
    roles: tuple[Role, ...],
    max_blocks: int,
    max_text_size: int,
    max_binary_size: int,
    unpaired: bool = False,
) -> Message:
    role = draw(st.sampled_from(roles))
    if TextBlock in ROLE_BLOCKS[role] and draw(_SHORTHAND) == 0:
        # the string shorthand for one text block
        shorthand: Any = draw(free_texts(max_size=max_text_size))
        return Message(role=role, content=shorthand, cache=draw(_MESSAGE_CACHES), metadata=draw(metadata()))
    block = _role_content(role, max_text_size, max_binary_size, unpaired)
    content = tuple(draw(block) for _ in range(1 + up_to(draw, max_blocks - 1)))
    return Message(role=role, content=content, cache=draw(_MESSAGE_CACHES), metadata=draw(metadata()))


@cache
def _messages(
    roles: tuple[Role, ...], max_blocks: int, max_text_size: int, max_binary_size: int, *, unpaired: bool = False
) -> st.SearchStrategy[Message]:
    unknown = [r for r in roles if r not in ROLE_BLOCKS]
    if unknown or not roles:
        msg = f"roles must be a non-empty selection of: {', '.join(ROLES)}"
        raise ValueError(msg)
    if max_blocks < 1:
        msg = "max_blocks must be at least 1"
        raise ValueError(msg)
    return _message(roles, max_blocks, max_text_size, max_binary_size, unpaired)


def messages(
    roles: Iterable[str] | None = None, *, max_blocks: int = 4, max_text_size: int = 40, max_binary_size: int = 64
) -> st.SearchStrategy[Message]:
    """Messages of the given roles (all by default), each carrying 1 to ``max_blocks`` blocks its role allows.

    Text-carrying roles sometimes use the string shorthand (``Message(role=..., content="...")``).

    Raises:
        ValueError: when ``roles`` is empty or names an unknown role.

    >>> from hypothesis import given, settings
    >>> import contentblocks as cb
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.messages(roles=["tool"]))
    ... def check(message):
    ...     assert all(isinstance(block, (cb.ToolResultBlock, cb.ApprovalResponseBlock)) for block in message.content)
    >>> check()
    """
    chosen: Any = ROLES if roles is None else tuple(roles)
    return _messages(chosen, max_blocks, max_text_size, max_binary_size)


def _fresh_id(draw: st.DrawFn, used: set[str]) -> str:
    """A tool call id not used yet in the conversation (a drawn one, suffixed when it collides)."""
    drawn = draw(identifiers())
    candidate, n = drawn, 0
    while candidate in used:
        n += 1
        suffix = f"~{n}"
        candidate = drawn[: 256 - len(suffix)] + suffix
    used.add(candidate)
    return candidate


# Tool calls and their answers come first: they are what conversations add over single messages.
_ASSISTANT_KINDS = st.sampled_from(
    (ToolCallBlock, TextBlock, ReasoningBlock, RefusalBlock, FileBlock, JsonBlock, CompactionBlock,
     ServerToolCallBlock, ServerToolResultBlock)
)
_ASKS = st.integers(0, 3).map(lambda n: n == 0)  # a call asks for approval one time in four
_DECIDES = st.integers(0, 3).map(lambda n: n != 0)  # an awaited approval is decided three times in four
_ROLES_WITHOUT_TOOL = st.sampled_from(("assistant", "user", "system", "developer"))
_ANY_ROLE = st.sampled_from(("tool", "assistant", "user", "system", "developer"))


@st.composite
def _conversation(draw: st.DrawFn, max_messages: int, max_text_size: int, max_binary_size: int) -> Conversation:
    kinds = kind_strategies(max_text_size, max_binary_size)
    results = tool_result_shapes(max_text_size, max_binary_size)
    calls = tool_call_blocks()
    used: set[str] = set()
    open_calls: list[tuple[str, str]] = []
    awaiting: list[str] = []  # approval requests not answered yet
    out: list[Message] = []
    for _ in range(up_to(draw, max_messages)):
        role = draw(_ANY_ROLE if open_calls else _ROLES_WITHOUT_TOOL)
        if role in ("tool", "user") and awaiting and draw(_DECIDES):
            # decide one or two awaited approvals, in a message of their own or before the tool's results
            count = 1 + up_to(draw, min(len(awaiting), 2) - 1)
            decisions = [awaiting.pop(up_to(draw, len(awaiting) - 1)) for _ in range(count)]
            decided = [draw(approval_response_blocks(approval_id=a, max_text_size=max_text_size)) for a in decisions]
            if role == "user":
                out.append(Message(role="user", content=tuple(decided), cache=draw(_MESSAGE_CACHES),
                                   metadata=draw(metadata())))
                continue
        else:
            decided = []
        if role == "tool":
            # answer one to three of the calls still open, in any order, each once
            count = 1 + up_to(draw, min(len(open_calls), 3) - 1)
            answered = [open_calls.pop(up_to(draw, len(open_calls) - 1)) for _ in range(count)]
            content: list[Any] = list(decided)
            for call_id, name in answered:
                shape = draw(results)
                content.append(ToolResultBlock(tool_call_id=call_id, tool_name=name, outcome=shape.outcome,
                                               content=shape.content, cache=shape.cache,
                                               metadata=shape.metadata))
            out.append(Message(role="tool", content=tuple(content), cache=draw(_MESSAGE_CACHES),
                               metadata=draw(metadata())))
        elif role == "assistant":
            content = []
            for _ in range(1 + up_to(draw, 3)):
                cls = draw(_ASSISTANT_KINDS)
                if cls is ToolCallBlock:
                    call = draw(calls)
                    call_id = _fresh_id(draw, used)
                    open_calls.append((call_id, call.tool_name))
                    content.append(ToolCallBlock(tool_call_id=call_id, tool_name=call.tool_name, input=call.input,
                                                 cache=call.cache, metadata=call.metadata))
                else:
                    content.append(draw(kinds[cls]))
                if cls in (ToolCallBlock, ServerToolCallBlock) and draw(_ASKS):
                    ask = draw(approval_request_blocks(tool_call_id=content[-1].tool_call_id))
                    approval_id = _fresh_id(draw, used)
                    awaiting.append(approval_id)
                    content.append(attrs.evolve(ask, approval_id=approval_id))
            out.append(Message(role="assistant", content=tuple(content), cache=draw(_MESSAGE_CACHES),
                               metadata=draw(metadata())))
        else:
            out.append(draw(_messages((role,), 4, max_text_size, max_binary_size, unpaired=True)))
    return Conversation(messages=tuple(out))


@cache
def conversations(
    max_messages: int = 8, *, max_text_size: int = 40, max_binary_size: int = 64
) -> st.SearchStrategy[Conversation]:
    """Conversations of 0 to ``max_messages`` messages, with tool calls paired to their results.

    Call ids are unique across the conversation; every result answers an earlier call with the same id and
    name, at most once; some calls stay unanswered.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.conversations(max_messages=3))
    ... def check(conversation):
    ...     assert len(conversation) <= 3
    >>> check()
    """
    return _conversation(max_messages, max_text_size, max_binary_size)
