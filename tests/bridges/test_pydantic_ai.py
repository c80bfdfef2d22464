"""The pydantic-ai bridge: round trips both ways, losses that say exactly what is not kept, pydantic-ai's validator."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import warnings
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks.bridges import pydantic_ai as bridge
from contentblocks.providers import LossError, anthropic
from contentblocks.strategies import conversations
from provider_checks import approvals_left_local, search_results_as_text, uncached, with_server_tools

messages = pytest.importorskip("pydantic_ai.messages")
from pydantic_ai.usage import RequestUsage  # noqa: E402 - after the skip

A = messages.ModelMessagesTypeAdapter
T = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _dump(history: Any) -> Any:
    """pydantic-ai's JSON form of a history, after pydantic-ai's own load (which upgrades deprecated parts)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*RetryPromptPart")
        return A.dump_python(A.validate_python(A.dump_python(history, mode="json")), mode="json")


# --- theirs -> ours -> theirs -------------------------------------------------------------------------------


def _histories() -> dict[str, list[Any]]:
    """Histories built the way pydantic-ai's docs and tests build them."""
    m = messages
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*RetryPromptPart")
        retry = m.RetryPromptPart("Please include the city.", tool_name="weather", tool_call_id="c2", timestamp=T)
        feedback = m.RetryPromptPart("Answer in JSON.", timestamp=T, tool_call_id="r1")
    return {
        "docs chat": [
            m.ModelRequest(parts=[m.SystemPromptPart("Be a helpful assistant.", timestamp=T),
                                  m.UserPromptPart("Tell me a joke.", timestamp=T)], run_id="run-1"),
            m.ModelResponse(parts=[m.TextPart("Did you hear about the toothpaste scandal? They called it Colgate.")],
                            usage=RequestUsage(input_tokens=60, output_tokens=12), model_name="gpt-5.2",
                            timestamp=T, provider_name="openai", provider_response_id="resp_1",
                            finish_reason="stop"),
            m.ModelRequest(parts=[m.UserPromptPart("Explain?", timestamp=T)], instructions="Be brief."),
        ],
        "multimodal prompt": [
            m.ModelRequest(parts=[m.UserPromptPart([
                "What is in these?", m.ImageUrl("https://iili.io/3Hs4FMg.png"),
                m.DocumentUrl("https://storage.googleapis.com/cloud-samples-data/generative-ai/pdf/2403.05530.pdf"),
                m.AudioUrl("https://example.com/a.mp3"), m.VideoUrl("https://example.com/v.mp4"),
                m.BinaryContent(b"\x89PNG", media_type="image/png"), m.BinaryContent(b"%PDF", media_type="application/pdf",
                                                                                     identifier="report"),
                m.UploadedFile(file_id="file-abc", provider_name="openai"), m.CachePoint(),
                m.TextContent("tagged", metadata={"source": "ui"}), m.TextContent("plain"),
                m.StructuredContent(value={"rows": [1, 2]}, tag="table"),
            ], timestamp=T)]),
        ],
        "tools": [
            m.ModelRequest(parts=[m.UserPromptPart("Weather in Paris and Rome?", timestamp=T)]),
            m.ModelResponse(parts=[
                m.ThinkingPart("The user wants two cities.", signature="sig-1", provider_name="anthropic"),
                m.ThinkingPart("", id="redacted_thinking", signature="EmwKAhgB", provider_name="anthropic"),
                m.ToolCallPart("weather", {"city": "Paris"}, tool_call_id="c1"),
                m.ToolCallPart("weather", '{"town": "Rome"}', tool_call_id="c2"),
                m.ToolCallPart("clock", None, tool_call_id="c3"),
                m.ToolCallPart("delete_file", {"path": "/"}, tool_call_id="c4"),
            ], model_name="claude-sonnet-4-5", timestamp=T, usage=RequestUsage(input_tokens=5, output_tokens=9)),
            m.ModelRequest(parts=[
                m.ToolReturnPart("weather", {"temp_c": 18}, tool_call_id="c1", timestamp=T, metadata={"ms": 3}),
                retry,
                m.ToolReturnPart("clock", ["12:00", m.BinaryContent(b"GIF8", media_type="image/gif"), 7],
                                 tool_call_id="c3", timestamp=T),
                m.ToolReturnPart("delete_file", "The user denied this call.", tool_call_id="c4", timestamp=T,
                                 outcome="denied"),
                feedback,
            ]),
            m.ModelResponse(parts=[
                m.NativeToolCallPart("web_search", {"query": "weather"}, tool_call_id="s1", provider_name="anthropic"),
                m.NativeToolReturnPart("web_search", [{"url": "https://example.com"}], tool_call_id="s1",
                                       provider_name="anthropic", timestamp=T),
                m.TextPart("Paris is 18 C.", citations=[m.Citation(
                    sources=[m.WebCitationSource("https://example.com/paris", title="Paris", excerpts=["18 C"])],
                    anchor=m.ContentCitationAnchor(start=0, end=5))]),
                m.TextPart("Sources agree.", citations=[m.Citation(sources=[
                    m.WebCitationSource("https://a.example"), m.DocumentCitationSource(document_id="doc-1",
                                                                                       excerpts=["x", "y"])])]),
                m.FilePart(m.BinaryContent(b"\x89PNG", media_type="image/png"), provider_name="openai"),
            ], timestamp=T),
        ],
        "requests in a row": [
            m.ModelRequest(parts=[m.UserPromptPart("one", timestamp=T)]),
            m.ModelRequest(parts=[m.UserPromptPart(["two"], timestamp=T)], metadata={"app/turn": 2}),
            m.ModelRequest(parts=[m.UserPromptPart("three", timestamp=T)]),
        ],
    }


HISTORIES = _histories()


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_their_history_comes_back_equal(name):
    """A pydantic-ai history read and written again dumps exactly as pydantic-ai dumps the original, with no loss."""
    history = HISTORIES[name]
    result = bridge.to_messages(bridge.from_messages(history), strict=set(cb.providers.LOSS_KINDS))
    assert _dump(result.payload) == _dump(history)
    assert result.losses == ()


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_objects_and_both_json_forms_read_the_same(name):
    """The message objects, ``dump_python(mode="json")`` and ``dump_json`` parsed all read to one conversation."""
    history = HISTORIES[name]
    read = bridge.from_messages(history)
    assert bridge.from_messages(A.dump_python(history, mode="json")) == read
    assert bridge.from_messages(json.loads(A.dump_json(history))) == read


def test_parts_map_to_their_neutral_blocks():
    """Each part becomes the block that says the same: calls, results with outcomes, reasoning with its issuer."""
    conversation = bridge.from_messages(HISTORIES["tools"])
    assistant, tool, feedback = conversation[1], conversation[2], conversation[3]
    thought, redacted, call = assistant.content[0], assistant.content[1], assistant.content[3]
    assert (thought.signature, thought.metadata["contentblocks/issuer"]) == ("sig-1", "anthropic")
    assert redacted.redacted == b"EmwKAhgB"
    assert (call.input, call.metadata["pydantic_ai/args"]) == ({"town": "Rome"}, '{"town": "Rome"}')
    assert [block.outcome for block in tool.content] == ["succeeded", "failed", "succeeded", "denied"]
    assert tool.content[1].metadata["pydantic_ai/outcome"] == "retried"
    assert [type(part).__name__ for part in tool.content[2].content] == ["TextBlock", "FileBlock", "JsonBlock"]
    assert (feedback.role, feedback.text()) == ("user", "Answer in JSON.")
    assert assistant.metadata["pydantic_ai/model_name"] == "claude-sonnet-4-5"
    assert assistant.metadata["pydantic_ai/usage"]["output_tokens"] == 9
    call, result = conversation[4].content[:2]
    assert (type(call).__name__, call.input, call.metadata["contentblocks/issuer"]) == (
        "ServerToolCallBlock", {"query": "weather"}, "anthropic")
    assert (type(result).__name__, result.outcome, result.content[0].value) == (
        "ServerToolResultBlock", "succeeded", {"url": "https://example.com"})


def test_a_history_goes_to_anthropic_in_one_line():
    """A pydantic-ai history is sent with ``anthropic.to_provider``; its Anthropic thinking signature goes along."""
    payload = anthropic.to_provider(bridge.from_messages(HISTORIES["tools"][:2])).payload
    assert payload["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "The user wants two cities.", "signature": "sig-1"}


def test_a_history_that_is_not_pydantic_ais_is_refused_with_its_path():
    """Data pydantic-ai's own validator refuses is a ValidationError naming where."""
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_messages([{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}])
    assert error.value.errors[0][0].startswith("$[0]")


def test_our_own_objects_are_refused_as_input():
    """A conversation handed to the reader is a TypeError that names the call."""
    with pytest.raises(TypeError, match=r"pydantic_ai\.from_messages"):
        bridge.from_messages(cb.Conversation(messages=[]))


# --- ours -> theirs -> ours ---------------------------------------------------------------------------------

_STEP = re.compile(r'\.metadata\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]|\.(\w+)')


def _locate(root: Any, path: str) -> tuple[Any, Any]:
    """The container holding the value at a loss's JSON path, and its key there."""
    steps = [json.loads(m[1]) if m[1] else int(m[2]) if m[2] else m[3] for m in _STEP.finditer(path[1:])]
    steps = [step for m, step in zip(_STEP.finditer(path[1:]), steps, strict=True)
             for step in ((["metadata", step]) if m[1] else [step])]
    node = root
    for step in steps[:-1]:
        node = node[step]
    return node, steps[-1]


def _without_breakpoints(conversation: cb.Conversation) -> cb.Conversation:
    return cb.Conversation(messages=[cb.Message(role=m.role, content=[uncached(b) for b in m.content],
                                                metadata=m.metadata) for m in conversation])


def _item(value: Any) -> dict[str, Any]:
    return {"type": "text", "text": value} if isinstance(value, str) and value else {"type": "json", "value": value}


def _expected(conversation: cb.Conversation, losses: tuple[cb.providers.Loss, ...]) -> list[dict[str, Any]]:  # noqa: PLR0912 - one branch per kind of loss
    """``conversation`` as each loss says it comes back, then with the runs pydantic-ai's requests join merged."""
    raw = cb.unstructure(conversation)
    local, dropped, gone = approvals_left_local(raw, losses)
    losses = tuple(search_results_as_text(raw, local, _locate))
    starts = [any(not key.startswith(("pydantic_ai/", "contentblocks/")) for key in m.get("metadata", {}))
              for m in raw]
    for loss in sorted(losses, key=lambda loss: loss.kind not in {"metadata_not_sent", "state_not_replayed"}):  # keys before their blocks
        node, key = _locate(raw, loss.path)
        if loss.kind in {"metadata_not_sent", "state_not_replayed"} or key in {"citations", "filename", "title", "context", "citable", "location"}:
            del node[key]
            if node == {} and loss.kind != "content_dropped":
                _, holder = _locate(raw, loss.path.rsplit(".metadata[", 1)[0] + ".metadata")
                del _[holder]
        elif key == "start":
            del node["start"], node["end"]
        elif loss.kind == "content_dropped":
            dropped.add(id(node[key]))
        elif key == "role":
            node[key] = "system"
        elif node[key]["type"] == "refusal":
            node[key] = {"type": "text", "text": node[key]["text"]}
        elif loss.path.count(".content[") == 2 and isinstance(node[key]["value"], list):  # in a tool result
            if len(node[key]["value"]) == 1:  # read back as a list of one part: marked so
                holder, at = _locate(raw, loss.path.rsplit(".content[", 1)[0])
                holder[at].setdefault("metadata", {})["pydantic_ai/content_list"] = True
            node[key:key + 1] = [_item(value) for value in node[key]["value"]]
        else:
            value = node[key]["value"]  # a JSON string in a tool result is its text, JSON in a response its text
            node[key] = {"type": "text", "text": value if loss.path.count(".content[") == 2 else json.dumps(value)}
    merged: list[dict[str, Any]] = []
    for i, (message, start) in enumerate(zip(raw, starts, strict=True)):
        if i in gone:
            continue
        message["content"] = [block for block in message["content"] if id(block) not in dropped]
        for block in message["content"]:
            if block["type"] in {"tool_result", "server_tool_result"}:
                block["content"] = [part for part in block["content"] if id(part) not in dropped]
        if not message["content"]:
            continue
        if merged and message["role"] in {"system", "tool"} and merged[-1]["role"] == message["role"] and not start:
            merged[-1]["content"].extend(message["content"])
        else:
            merged.append(message)
    return merged


def _unmarked(holder: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        holder.get("metadata", {}).pop(key, None)
    if holder.get("metadata") == {}:
        del holder["metadata"]


def _without_marks(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A read-back conversation without what pydantic-ai adds: each part's time stamp, and the key the reader
    adds where two requests follow each other."""
    for message in raw:
        _unmarked(message, ("pydantic_ai/request", "pydantic_ai/timestamp"))
        for block in message["content"]:
            _unmarked(block, ("pydantic_ai/timestamp",))
    return raw


@given(conversations())
def test_our_conversation_comes_back_as_the_losses_say(conversation):
    """Ours -> theirs -> ours keeps everything pydantic-ai holds, and each loss is exactly what did not come back.

    Cache breakpoints move (a message's goes after its last item) and are tested in ``test_cache_breakpoints``.
    """
    conversation = _without_breakpoints(conversation)
    result = bridge.to_messages(conversation)
    back = bridge.from_messages(result.payload)
    assert _without_marks(cb.unstructure(back)) == _expected(conversation, result.losses)


@given(with_server_tools())
def test_tools_the_provider_ran_come_back_as_the_losses_say(conversation):
    """Server calls and results, of any issuer, go as pydantic-ai's native tool parts and come back the same."""
    conversation = _without_breakpoints(conversation)
    result = bridge.to_messages(conversation)
    assert {loss.kind for loss in result.losses} <= {"metadata_not_sent", "state_not_replayed", "content_dropped",
                                                     "content_degraded", "hint_not_sent", "approval_not_sent"}
    back = bridge.from_messages(result.payload)
    assert _without_marks(cb.unstructure(back)) == _expected(conversation, result.losses)
    dumped = A.dump_python(result.payload, mode="json")
    assert A.dump_python(A.validate_python(dumped), mode="json") == dumped


@given(conversations())
def test_pydantic_ai_validates_what_we_write(conversation):
    """What ``to_messages`` writes dumps and validates again through ``ModelMessagesTypeAdapter`` unchanged."""
    payload = bridge.to_messages(conversation).payload
    dumped = A.dump_python(payload, mode="json")
    assert A.dump_python(A.validate_python(dumped), mode="json") == dumped
    assert A.dump_python(A.validate_json(A.dump_json(payload)), mode="json") == dumped


def test_strict_raises_on_content_losses():
    """``strict=True`` raises on a refusal written as text, as the adapters' strict does."""
    refusal = cb.Conversation(messages=[cb.Message(role="assistant", content=[cb.RefusalBlock(text="No.")])])
    with pytest.raises(LossError) as error:
        bridge.to_messages(refusal, strict=True)
    assert [loss.kind for loss in error.value.losses] == ["content_degraded"]


def test_importing_contentblocks_imports_no_pydantic_ai():
    """Neither ``contentblocks`` nor its bridges package imports pydantic-ai until a bridge is called."""
    code = ("import sys, contentblocks, contentblocks.bridges, contentblocks.bridges.pydantic_ai; "
            "print('pydantic_ai' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: S603 - our code
    assert run.stdout == "False\n"


def test_a_version_outside_the_tested_range_is_a_clear_error(monkeypatch):
    """An installed pydantic-ai outside ``SUPPORTED`` is an ImportError naming both versions and the extra."""
    bridge._adapter.cache_clear()  # the check runs once, on the first call
    monkeypatch.setattr(bridge.importlib.metadata, "version", lambda name: "3.1.0")
    with pytest.raises(ImportError, match=r"tested with pydantic-ai-slim>=2.78,<3, and 3.1.0 is installed"):
        bridge.from_messages([])


def test_an_interrupted_return_is_an_interrupted_result() -> None:
    """pydantic-ai's ``interrupted`` outcome (a run stopped before the tool finished) is the neutral one, both ways."""
    m = messages
    history = [
        m.ModelRequest(parts=[m.UserPromptPart("Export it.", timestamp=T)]),
        m.ModelResponse(parts=[m.ToolCallPart("export", {"format": "csv"}, tool_call_id="c1")], timestamp=T),
        m.ModelRequest(parts=[m.ToolReturnPart("export", m.INTERRUPTED_TOOL_RETURN_CONTENT, tool_call_id="c1",
                                               timestamp=T, outcome="interrupted")]),
    ]
    conversation = bridge.from_messages(history)
    result = conversation[2].content[0]
    assert (result.outcome, dict(result.metadata).get("pydantic_ai/outcome")) == ("interrupted", None)
    written = bridge.to_messages(conversation, strict=set(cb.providers.LOSS_KINDS))
    assert written.payload[2].parts[0].outcome == "interrupted"
    assert A.dump_python(written.payload, mode="json") == A.dump_python(history, mode="json")


def test_a_lone_array_after_a_dropped_file_is_reported_at_its_own_index() -> None:
    """A result whose file is dropped leaves one JSON array: its loss names the array's block, not the file's."""
    file = cb.FileBlock(media_type="image/png", source=cb.ReferenceSource(id="file_1"))
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded",
                                content=[file, cb.JsonBlock(value=[1, 2])])
    conversation = cb.Conversation(messages=[
        cb.Message(role="user", content="Go."),
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})]),
        cb.Message(role="tool", content=[result]),
    ])
    losses = bridge.to_messages(conversation).losses
    assert [(loss.path, loss.kind) for loss in losses] == [
        ("$[2].content[0].content[0]", "content_dropped"), ("$[2].content[0].content[1]", "content_degraded")]
