"""``cb.unstructure`` of every public class of contentblocks: the wire format's classes convert, every other
class is refused with a TypeError naming it (never a NameError from an annotation cattrs cannot resolve)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType
from typing import Any

import pytest

import contentblocks as cb
import contentblocks.providers
import contentblocks.streaming
from contentblocks.providers import anthropic

ANTHROPIC_RESPONSE = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
    "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 1},
}
# One raw wire value of each class that has a wire form.
WIRE: dict[type, Any] = {
    cb.TextBlock: {"type": "text", "text": "hi"},
    cb.RefusalBlock: {"type": "refusal", "text": "no"},
    cb.FileBlock: {"type": "file", "media_type": "image/png", "source": {"type": "url", "url": "https://x.example/a"}},
    cb.ReasoningBlock: {"type": "reasoning", "text": "hmm"},
    cb.ToolCallBlock: {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {}},
    cb.ToolResultBlock: {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "succeeded",
                         "content": []},
    cb.JsonBlock: {"type": "json", "value": [1]},
    cb.ServerToolCallBlock: {"type": "server_tool_call", "tool_call_id": "s1", "tool_name": "f", "input": {}},
    cb.ServerToolResultBlock: {"type": "server_tool_result", "tool_call_id": "s1", "tool_name": "f",
                               "outcome": "succeeded", "content": []},
    cb.CompactionBlock: {"type": "compaction", "summary": "s"},
    cb.ApprovalRequestBlock: {"type": "approval_request", "approval_id": "a1", "tool_call_id": "c1"},
    cb.ApprovalResponseBlock: {"type": "approval_response", "approval_id": "a1", "approved": False, "reason": "no"},
    cb.SearchResultBlock: {"type": "search_result", "source": {"kind": "uri", "value": "urn:x"},
                           "content": [{"type": "text", "text": "hi"}]},
    cb.BytesSource: {"type": "base64", "data": "AA=="},
    cb.UrlSource: {"type": "url", "url": "https://x.example/a"},
    cb.ReferenceSource: {"type": "reference", "id": "f1"},
    cb.CitedUri: {"kind": "uri", "value": "urn:x"},
    cb.CitedReference: {"kind": "reference", "value": "d1"},
    cb.PageRange: {"kind": "pages", "start": 1, "end": 2},
    cb.CacheBreakpoint: {"ttl": 300},
    cb.CharacterRange: {"kind": "characters", "start": 0, "end": 5},
    cb.BlockRange: {"kind": "blocks", "start": 0, "end": 1},
    cb.Citation: {"source": {"kind": "uri", "value": "urn:x"}},
    cb.Message: {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    cb.Conversation: [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}
JSON_VALUES = {cb.JsonObject, cb.JsonArray}


def _modules() -> list[ModuleType]:
    modules: list[ModuleType] = [cb]
    for package in (contentblocks.providers, contentblocks.streaming):
        modules.append(package)
        modules += [importlib.import_module(f"{package.__name__}.{info.name}")
                    for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_")]
    return modules


def public_classes() -> list[type]:
    """Every class in the ``__all__`` of contentblocks, contentblocks.providers, contentblocks.streaming and
    their public submodules."""
    found: dict[type, None] = {}
    for module in _modules():
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if isinstance(value, type):
                found[value] = None
    return list(found)


def test_the_walk_finds_the_documented_classes() -> None:
    """The walk sees the wire classes and the adapters' and stream readers' classes."""
    names = {cls.__name__ for cls in public_classes()}
    assert {"Reply", "Usage", "Loss", "Converted", "TextAppended", "StreamReader", "Limits"} <= names
    assert set(WIRE) <= set(public_classes())


def test_a_reply_is_refused_with_a_clear_error() -> None:
    """cb.unstructure(reply) is a TypeError that points to reply.message, not a NameError."""
    reply = anthropic.from_response(ANTHROPIC_RESPONSE)
    with pytest.raises(TypeError, match=r"got Reply.*reply\.message"):
        cb.unstructure(reply)
    assert cb.unstructure(reply.message) == {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}


@pytest.mark.parametrize("cls", public_classes(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_public_class_converts_or_is_refused(cls: type) -> None:
    """A wire class converts to its wire form; JSON values stay JSON; any other class is a TypeError naming it."""
    if cls in WIRE:
        raw = WIRE[cls]
        assert cb.unstructure(cb.structure(raw, cls)) == raw
        return
    if cls in JSON_VALUES:
        return  # built only by the library; held in blocks and unstructured with them (above)
    if cls is cb.Problem:  # a (path, message) pair: a tuple, unstructured as one
        assert cb.unstructure(cb.Problem("$", "x")) == ("$", "x")
        return
    if inspect.isabstract(cls):  # no instance of its own: its concrete readers are walked too
        return
    instance = cls.__new__(cls)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=rf"unstructure\(\) converts .*; got {cls.__name__}\b"):
        cb.unstructure(instance)
