"""The LangChain writer builds its messages without their constructors, as the constructors would build them.

``bridges.langchain._build.Builder`` sets a message's fields directly (as pydantic's ``model_construct`` does)
for the arguments the writer makes; each message must equal the one LangChain's constructor builds from the same
arguments (fields, set fields, extras), pass LangChain's own validation again unchanged, and anything the
shortcut does not know must go through the constructor.
"""

from __future__ import annotations

import contextlib
import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks.bridges import langchain as bridge
from contentblocks.bridges.langchain._build import Builder
from contentblocks.bridges.langchain._write import write_history
from contentblocks.providers._approvals import without_approvals
from contentblocks.providers._contract import LossRecorder
from contentblocks.providers._search_results import without_search_results
from contentblocks.strategies import conversations

lc = pytest.importorskip("langchain_core.messages")
pydantic = pytest.importorskip("pydantic")

BENCH = Path(__file__).parents[2] / "bench"


def _state(message: Any) -> tuple[Any, ...]:
    return (type(message), message.__dict__, message.__pydantic_fields_set__, message.__pydantic_extra__,
            message.__pydantic_private__)  # fmt: skip


def _assert_built_as_constructed(conversation: cb.Conversation) -> None:
    losses = LossRecorder()
    messages, _, _ = without_approvals(conversation.messages, "LangChain")  # as ``to_messages`` does
    messages = without_search_results(list(messages), losses.add, "LangChain")
    build = Builder(lc)
    for _, name, kwargs in write_history(list(messages), losses):
        assert _state(build(name, copy.deepcopy(kwargs))) == _state(getattr(lc, name)(**copy.deepcopy(kwargs)))


def test_every_class_the_writer_makes_takes_the_shortcut():
    """With the pinned langchain-core, the four classes' validators are the ones the shortcut stands in for."""
    build = Builder(lc)
    assert all(build.fast(name) for name in ("HumanMessage", "SystemMessage", "AIMessage", "ToolMessage"))


@given(conversations())
def test_built_messages_equal_constructed_ones(conversation):
    _assert_built_as_constructed(conversation)


def test_the_benchmark_history_is_built_as_constructed():
    sys.path.insert(0, str(BENCH))
    try:
        import bridges  # noqa: PLC0415 - the benchmark's own history
    finally:
        sys.path.remove(str(BENCH))
    _assert_built_as_constructed(bridges.history(2_000))


@given(conversations())
def test_built_messages_pass_langchains_validation_unchanged(conversation):
    for message in bridge.to_messages(conversation).payload:
        assert type(message).model_validate(message.model_dump()).__dict__ == message.__dict__
        assert _state(type(message)(**message.model_dump(exclude_unset=True))) == _state(message)


def test_a_tool_calls_arguments_are_its_own():
    """As pydantic copies them: editing the arguments in ``tool_calls`` leaves the content block's alone."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={"city": "Paris"})
    text = cb.TextBlock(text="Checking.")
    (message,) = bridge.to_messages([cb.Message(role="assistant", content=[call, text])]).payload
    assert message.tool_calls == [{"name": "f", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}]
    message.tool_calls[0]["args"]["city"] = "Lyon"
    assert message.content[0]["args"] == {"city": "Paris"}


@pytest.mark.parametrize("kwargs", [
    {"content": "x", "id": "m1"},  # a kept field
    {"content": [1]},  # a content item of another type
    {"content": "", "tool_calls": [{"id": "c1", "name": "f", "args": {}, "extras": {}}]},
    {"content": "", "invalid_tool_calls": [{"id": "c1", "name": "f", "args": "{", "error": None}]},
])  # fmt: skip
def test_other_arguments_go_through_the_constructor(kwargs, monkeypatch):
    build = Builder(lc)
    name = "AIMessage"
    calls = []
    original = lc.AIMessage

    class Counted(original):  # type: ignore[misc, valid-type]
        def __init__(self, **values: Any) -> None:
            calls.append(values)
            super().__init__(**values)

    monkeypatch.setattr(lc, name, Counted)
    with contextlib.suppress(pydantic.ValidationError):  # LangChain's own refusal, reported by ``to_messages``
        build(name, copy.deepcopy(kwargs))
    assert calls == [kwargs]


def test_a_class_with_validators_it_does_not_know_is_constructed():
    """A LangChain version whose class adds a validator gets its constructor, not the shortcut."""

    class Module:
        HumanMessage = lc.HumanMessage
        SystemMessage = lc.SystemMessage
        ToolMessage = lc.ToolMessage

        class AIMessage(lc.AIMessage):
            @pydantic.model_validator(mode="after")
            def _named(self) -> Any:
                self.name = "changed"
                return self

    build = Builder(Module)
    assert not build.fast("AIMessage")
    assert build.fast("HumanMessage")
    assert build("AIMessage", {"content": "x"}).name == "changed"
