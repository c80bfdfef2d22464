"""The LangChain bridge: round trips both ways, losses that say exactly what is not kept, LangChain's own classes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks.bridges import langchain as bridge
from contentblocks.providers import LossError, anthropic
from contentblocks.strategies import conversations
from provider_checks import (
    approvals_left_local,
    compactions_as_text,
    search_results_as_text,
    sources_split,
    under,
    with_server_tools,
)

lc = pytest.importorskip("langchain_core.messages")

# --- theirs -> ours -> theirs -------------------------------------------------------------------------------


def _histories() -> dict[str, list[Any]]:
    """Histories built the way LangChain's docs and tests build them."""
    m = lc
    return {
        "docs tool calling": [
            m.SystemMessage("You are a helpful assistant."),
            m.HumanMessage("What is the weather in SF and LA?", id="h1"),
            m.AIMessage("", id="run-1", tool_calls=[
                {"name": "get_weather", "args": {"city": "SF"}, "id": "call_1"},
                {"name": "get_weather", "args": {"city": "LA"}, "id": "call_2"}],
                usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                "output_token_details": {"reasoning": 2}},
                response_metadata={"model_name": "gpt-4o", "model_provider": "openai", "finish_reason": "tool_calls"}),
            m.ToolMessage("It's sunny.", tool_call_id="call_1", name="get_weather", artifact={"raw": [1, 2]}),
            m.ToolMessage("Service down", tool_call_id="call_2", status="error"),
            m.AIMessage("Sunny in SF; LA is unknown.", name="weatherbot"),
        ],
        "v1 content blocks": [
            m.SystemMessage("Be brief.", additional_kwargs={"__openai_role__": "developer"}),
            m.HumanMessage(content_blocks=[
                {"type": "text", "text": "Describe these."},
                {"type": "image", "url": "https://example.com/a.png"},
                {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
                {"type": "file", "file_id": "file-abc", "mime_type": "application/pdf",
                 "extras": {"filename": "q3.pdf"}},
                {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav", "id": "a1"},
                {"type": "video", "url": "https://example.com/v.mp4", "mime_type": "video/mp4"},
                {"type": "text-plain", "text": "hello", "mime_type": "text/plain", "title": "notes"},
            ]),
            m.AIMessage(content_blocks=[
                {"type": "reasoning", "reasoning": "Look at each file.", "id": "rs_1",
                 "extras": {"signature": "sig-1"}},
                {"type": "non_standard", "value": {"type": "redacted_thinking", "data": "EmwKAhgB"}},
                {"type": "server_tool_call", "id": "srv_1", "name": "web_search", "args": {"query": "q3"}},
                {"type": "server_tool_result", "tool_call_id": "srv_1", "status": "success", "output": [{"u": 1}]},
                {"type": "text", "text": "Revenue grew 5%.", "annotations": [
                    {"type": "citation", "url": "https://example.com/q3", "title": "Q3", "start_index": 0,
                     "end_index": 7, "cited_text": "grew 5%"},
                    {"type": "non_standard_annotation", "value": {"kind": "x"}}]},
                {"type": "text", "text": "Café ☕ 🎉 done.", "annotations": [
                    {"type": "citation", "url": "https://example.com/c", "start_index": 5, "end_index": 8}]},
                {"type": "refusal", "refusal": "I won't share the raw file."},
                {"type": "tool_call", "id": "call_9", "name": "lookup", "args": {"q": "Q3"}},
            ], response_metadata={"model_provider": "anthropic", "model_name": "claude-sonnet-4-5"}),
            m.ToolMessage(content=[{"type": "text", "text": "found"}, {"type": "image", "url": "https://e.com/i.png",
                                                                        "mime_type": "image/png"}, "raw"],
                          tool_call_id="call_9", name="lookup", id="t1"),
        ],
        "provider formats and chunks": [
            m.HumanMessage(content=[{"type": "image_url", "image_url": {"url": "https://example.com/y.png"}},
                                    {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}},
                                    "plain text"]),
            m.AIMessageChunk(content="partial", id="run-2", tool_call_chunks=[
                {"name": "f", "args": '{"a": 1}', "id": "c7", "index": 0}], chunk_position="last"),
            m.ToolMessage("", tool_call_id="c7"),
            m.AIMessage("", invalid_tool_calls=[{"name": "f", "args": '{"a": ', "id": "c8", "error": "bad JSON"}]),
            m.AIMessage(content=[]),
            m.HumanMessage(content=[{"type": "text", "text": "listed"}]),
            m.AIMessage(content=[{"type": "text", "text": "Calling."}],
                        tool_calls=[{"name": "g", "args": {}, "id": "c10"}]),
            m.ToolMessage(content=[], tool_call_id="c10", name="g"),
        ],
    }


HISTORIES = _histories()


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_their_history_comes_back_equal(name):
    """A LangChain history read and written again is equal, message by message, with no loss."""
    history = HISTORIES[name]
    result = bridge.to_messages(bridge.from_messages(history), strict=set(cb.providers.LOSS_KINDS))
    assert result.payload == history
    assert [type(message) for message in result.payload] == [type(message) for message in history]
    assert result.losses == ()


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_objects_and_their_dict_form_read_the_same(name):
    """The message objects and ``messages_to_dict`` (also through JSON) read to one conversation."""
    history = HISTORIES[name]
    read = bridge.from_messages(history)
    assert bridge.from_messages(lc.messages_to_dict(history)) == read
    assert bridge.from_messages(json.loads(json.dumps(lc.messages_to_dict(history)))) == read


def test_blocks_map_to_their_neutral_blocks():
    """Each LangChain construct becomes the block that says the same."""
    conversation = bridge.from_messages(HISTORIES["v1 content blocks"])
    developer, user, assistant, tool = conversation
    assert developer.role == "developer"
    assert [(b.media_type, type(b.source).__name__, b.filename) for b in user.content[1:]] == [
        ("image/*", "UrlSource", None), ("image/png", "BytesSource", None),
        ("application/pdf", "ReferenceSource", "q3.pdf"), ("audio/wav", "BytesSource", None),
        ("video/mp4", "UrlSource", None), ("text/plain", "BytesSource", None)]
    thought, redacted = assistant.content[0], assistant.content[1]
    assert (thought.signature, thought.metadata["contentblocks/issuer"]) == ("sig-1", "anthropic")
    assert (redacted.redacted, redacted.metadata["contentblocks/issuer"]) == (b"EmwKAhgB", "anthropic")
    call, result = assistant.content[2:4]
    assert (type(call).__name__, call.input, call.metadata["contentblocks/issuer"]) == (
        "ServerToolCallBlock", {"query": "q3"}, "anthropic")
    assert (result.tool_name, result.outcome, result.content[0].value) == ("web_search", "succeeded", {"u": 1})
    cited, astral = assistant.content[4], assistant.content[5]
    assert cited.citations[0].source.value == "https://example.com/q3"
    assert cited.citations[0].quote == "grew 5%"
    assert "langchain/annotations" in cited.metadata  # the non-standard annotation, kept
    assert astral.text[astral.citations[0].start:astral.citations[0].end] == "☕ 🎉"  # code points, as LangChain's
    assert isinstance(assistant.content[6], cb.RefusalBlock)
    assert assistant.content[7].input == {"q": "Q3"}
    result = tool.content[0]
    assert [type(part).__name__ for part in result.content] == ["TextBlock", "FileBlock", "TextBlock"]
    calls = bridge.from_messages(HISTORIES["docs tool calling"])
    assert [block.outcome for block in calls[3].content] == ["succeeded", "failed"]
    assert calls[3].content[0].metadata["langchain/artifact"] == {"raw": [1, 2]}
    assert calls[3].content[1].tool_name == "get_weather"  # from the call it answers
    assert calls[2].metadata["langchain/usage_metadata"]["output_tokens"] == 5
    invalid = bridge.from_messages(HISTORIES["provider formats and chunks"])[3].content[0]
    assert (invalid.input, invalid.metadata["langchain/error"]) == ('{"a": ', "bad JSON")


PROVIDER_FORMATS = [
    {"type": "image_url", "image_url": {"url": "https://example.com/y.png"}},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "image", "source_type": "base64", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERg==", "filename": "a.pdf"}},
]


def test_provider_formats_read_through_langchains_own_translation():
    """OpenAI, Anthropic and v0 blocks read as the files LangChain's ``content_blocks`` says they are, and are
    written back as they were; an edited one is written as the v1 block it now is."""
    history = [lc.HumanMessage(content=PROVIDER_FORMATS),
               lc.AIMessage(content=[{"type": "thinking", "thinking": "Hm.", "signature": "sig-2"}],
                            response_metadata={"model_provider": "anthropic"})]
    user, assistant = bridge.from_messages(history)
    assert [(type(b.source).__name__, b.media_type, b.filename) for b in user.content] == [
        ("UrlSource", "image/*", None), ("BytesSource", "image/png", None), ("BytesSource", "image/png", None),
        ("BytesSource", "image/png", None), ("BytesSource", "audio/wav", None),
        ("BytesSource", "application/pdf", "a.pdf")]
    assert user.content[1].source.data == b"\x89PNG\r\n\x1a\n"
    thought = assistant.content[0]
    assert (thought.text, thought.signature, thought.metadata["contentblocks/issuer"]) == ("Hm.", "sig-2", "anthropic")
    result = bridge.to_messages([user, assistant], strict=set(cb.providers.LOSS_KINDS))
    assert result.payload == history
    edited = cb.Message(role="user", content=[attrs.evolve(user.content[1], filename="y.png")])
    assert bridge.to_messages([edited]).payload[0].content == [
        {"type": "image", "mime_type": "image/png", "base64": "iVBORw0KGgo=", "extras": {"filename": "y.png"}}]


def test_gemini_offsets_count_bytes_both_ways():
    """LangChain passes Gemini's UTF-8 byte offsets through: they read as code points and are written back as bytes."""
    text = "Café ☕ is open."
    start, end = len("Café ".encode()), len("Café ☕".encode())
    history = [lc.AIMessage(content=[{"type": "text", "text": text, "annotations": [
        {"type": "citation", "url": "https://example.com/cafe", "start_index": start, "end_index": end}]}],
        response_metadata={"model_provider": "google_genai"})]
    block = bridge.from_messages(history)[0].content[0]
    assert text[block.citations[0].start:block.citations[0].end] == "☕"
    assert "langchain/annotations" not in block.metadata
    assert bridge.to_messages(bridge.from_messages(history)).payload == history
    edited = cb.Message(role="assistant", content=[cb.TextBlock(text=text, citations=[cb.Citation(
        source=cb.CitedUri(value="https://example.com/cafe"), start=5, end=6)])],
        metadata={"langchain/response_metadata": {"model_provider": "google_genai"}})
    written = bridge.to_messages([edited]).payload[0].content[0]["annotations"][0]
    assert (written["start_index"], written["end_index"]) == (start, end)


def test_a_gemini_signature_is_issued_by_its_model_family():
    """A Gemini reasoning signature records the issuer the Gemini adapter records: the provider and model family."""
    history = [lc.AIMessage(content=[{"type": "reasoning", "reasoning": "Hm.", "extras": {"signature": "c2ln"}},
                                     {"type": "text", "text": "Yes."}],
                            response_metadata={"model_provider": "google_genai",
                                               "model_name": "gemini-2.5-flash-preview-05-20"})]
    thought = bridge.from_messages(history)[0].content[0]
    assert thought.metadata["contentblocks/issuer"] == "gemini/gemini-2.5-flash"
    assert bridge.to_messages(bridge.from_messages(history)).payload == history


def test_an_anthropic_reply_joins_a_langchain_history_in_one_line():
    """A reply read by the Anthropic adapter is appended to a LangChain history, its signature's issuer kept."""
    response = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "thinking", "thinking": "Easy.", "signature": "sig-9"},
                            {"type": "text", "text": "4"}],
                "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
    history = [lc.HumanMessage("2 + 2?")]
    history += bridge.to_messages([anthropic.from_response(response).message]).payload
    assert lc.convert_to_messages(history) == history
    back = bridge.from_messages(history)[1].content[0]
    assert (back.signature, back.metadata["contentblocks/issuer"]) == ("sig-9", "anthropic")


def test_a_tool_message_with_no_name_and_no_call_is_refused_with_its_path():
    """A ToolMessage whose tool name is nowhere is a ValidationError at its path."""
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_messages([lc.ToolMessage("x", tool_call_id="nope")])
    assert error.value.errors[0][0] == "$[0].name"


def test_what_is_no_langchain_message_is_refused_with_its_path():
    """An item neither a message nor a form LangChain reads is a ValidationError naming its index."""
    with pytest.raises(cb.ValidationError) as error:
        bridge.from_messages([lc.HumanMessage("hi"), {"role": "nobody", "content": "x"}])
    assert error.value.errors[0][0] == "$[1]"
    with pytest.raises(cb.ValidationError, match=r"'function' messages"):
        bridge.from_messages([lc.FunctionMessage("x", name="f")])


def test_what_convert_to_messages_takes_reads_too():
    """OpenAI-style dicts and ``(role, content)`` pairs read as LangChain itself reads them."""
    conversation = bridge.from_messages([{"role": "developer", "content": "Be brief."}, ("human", "Hi"),
                                         {"role": "assistant", "content": "Hello."}])
    assert [(message.role, message.text()) for message in conversation] == [
        ("developer", "Be brief."), ("user", "Hi"), ("assistant", "Hello.")]


def test_a_kept_field_the_conversation_writes_is_reported_not_used():
    """A ``langchain/`` key naming a field the bridge writes from the conversation itself is a reported loss."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={})
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded",
                                metadata={"langchain/status": "error", "langchain/id": "t1"})
    converted = bridge.to_messages([cb.Message(role="assistant", content=[call]), cb.Message(role="tool",
                                                                                              content=[result])])
    assert (converted.payload[1].status, converted.payload[1].id) == ("success", "t1")
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ('$[1].content[0].metadata["langchain/status"]', "metadata_not_sent")]


def test_a_kept_field_langchain_refuses_is_a_validation_error_at_its_path():
    """A kept field edited into a value LangChain's classes refuse is a ValidationError at the message's path."""
    with pytest.raises(cb.ValidationError) as error:
        bridge.to_messages([cb.Message(role="user", content="x", metadata={"langchain/id": [1]})])
    assert error.value.errors[0][0] == "$[0]"


def test_our_own_objects_are_refused_as_input():
    """A conversation handed to the reader is a TypeError that names the call."""
    with pytest.raises(TypeError, match=r"langchain\.from_messages"):
        bridge.from_messages(cb.Conversation(messages=[]))


# --- ours -> theirs -> ours ---------------------------------------------------------------------------------

_STEP = re.compile(r'\.metadata\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]|\.(\w+)')


def _locate(root: Any, path: str) -> tuple[Any, Any]:
    """The container holding the value at a loss's JSON path, and its key there."""
    steps: list[Any] = []
    for match in _STEP.finditer(path[1:]):
        steps += ["metadata", json.loads(match[1])] if match[1] else [int(match[2])] if match[2] else [match[3]]
    node = root
    for step in steps[:-1]:
        node = node[step]
    return node, steps[-1]


def _in_server_result(raw: Any, path: str) -> bool:
    """Whether ``path`` is a part of a server tool result."""
    if path.count(".content[") != 2:
        return False
    holder, at = _locate(raw, path.rsplit(".content[", 1)[0])
    return holder[at]["type"] == "server_tool_result"  # type: ignore[no-any-return]


def _expected(conversation: cb.Conversation, losses: tuple[cb.providers.Loss, ...]) -> list[dict[str, Any]]:  # noqa: PLR0912 - one branch per kind of loss
    """``conversation`` as each loss says it comes back, with tool messages in a row merged as LangChain has none."""
    raw = cb.unstructure(conversation)
    local, dropped, gone = approvals_left_local(raw, losses)
    compacted = compactions_as_text(raw, dropped)
    told = tuple(loss for loss in local if not under(compacted, loss.path))
    told = tuple(search_results_as_text(raw, told, _locate))
    told, split = sources_split(told)
    for loss in sorted(told, key=lambda loss: loss.kind not in ("metadata_not_sent", "state_not_replayed")):
        node, key = _locate(raw, loss.path)  # keys before their blocks
        if loss.kind in ("metadata_not_sent", "hint_not_sent", "state_not_replayed"):  # a key, or a breakpoint
            del node[key]
            if not node and loss.kind != "hint_not_sent":
                holder, name = _locate(raw, loss.path.rsplit(".metadata[", 1)[0] + ".metadata")
                del holder[name]
        elif loss.kind == "content_dropped" and isinstance(key, str):  # a field of a block (a file's title)
            node.pop(key, None)  # gone already where the block is written as JSON
        elif loss.kind == "content_dropped":
            dropped.add(id(node[key]))
        elif key == "outcome":
            node[key] = "failed"
        elif key == "input" and node["type"] == "server_tool_call":  # the JSON text of a server call's chunk
            node["metadata"] = {**node.get("metadata", {}), "langchain/type": "server_tool_call_chunk"}
        elif key == "input":
            node[key] = json.dumps(node[key])
            node["metadata"] = {**node.get("metadata", {}), "langchain/type": "invalid_tool_call",
                                "langchain/error": None}
        elif _in_server_result(raw, loss.path) and node[key]["type"] == "json":  # a JSON string in its output
            node[key] = {"type": "text", "text": node[key]["value"]}
        elif _in_server_result(raw, loss.path):  # a file in a server output: its file block, as JSON
            file = cb.structure(node[key], cb.FileBlock)
            written = bridge.to_messages(cb.Conversation(messages=[cb.Message(role="user", content=[file])]))
            node[key] = {"type": "json", "value": written.payload[0].content[0]}
        else:
            node[key] = {"type": "text", "text": json.dumps(node[key]["value"], ensure_ascii=False)}
    split(raw, _locate)
    merged: list[dict[str, Any]] = []
    for message in (message for i, message in enumerate(raw) if i not in gone):
        message["content"] = [block for block in message["content"] if id(block) not in dropped]
        if not message["content"]:
            message["content"] = [{"type": "json", "value": "", "metadata": {"langchain/empty_content": True}}]
        if merged and message["role"] == "tool" and merged[-1]["role"] == "tool":
            merged[-1]["content"].extend(message["content"])
        else:
            merged.append(message)
    return merged


@given(conversations())
def test_our_conversation_comes_back_as_the_losses_say(conversation):
    """Ours -> theirs -> ours keeps everything LangChain holds, and each loss is exactly what did not come back."""
    result = bridge.to_messages(conversation)
    back = bridge.from_messages(result.payload)
    assert cb.unstructure(back) == _expected(conversation, result.losses)


@given(with_server_tools())
def test_tools_the_provider_ran_come_back_as_the_losses_say(conversation):
    """Server calls and results, of any issuer, go as LangChain's server blocks and come back as the losses say;
    LangChain's own message classes take them."""
    result = bridge.to_messages(conversation)
    assert cb.unstructure(bridge.from_messages(result.payload)) == _expected(conversation, result.losses)
    assert lc.messages_from_dict(lc.messages_to_dict(result.payload)) == result.payload
    assert result.payload[-1].content_blocks == _standard(result.payload[-1])


def _standard(message: Any) -> list[Any]:
    """The v1 blocks LangChain's ``content_blocks`` should give for what the bridge wrote: its items as they are,
    a string as a text block, and the calls ``tool_calls`` alone holds after them."""
    content = [message.content] if isinstance(message.content, str) and message.content else message.content
    blocks = [{"type": "text", "text": item} if isinstance(item, str) else item for item in content]
    held = {block.get("id") for block in blocks if block["type"] == "tool_call"}
    blocks += [{"type": "tool_call", "id": call["id"], "name": call["name"], "args": call["args"]}
               for call in getattr(message, "tool_calls", []) if call["id"] not in held]
    return blocks


@given(conversations())
def test_langchain_accepts_what_we_write(conversation):
    """What ``to_messages`` writes survives LangChain's own ``convert_to_messages`` and dict round trip unchanged,
    and LangChain's standard ``content_blocks`` view reads every block as the v1 block it is."""
    payload = bridge.to_messages(conversation).payload
    assert lc.convert_to_messages(payload) == payload
    assert lc.messages_from_dict(lc.messages_to_dict(payload)) == payload
    for message in payload:
        assert message.content_blocks == _standard(message)


def test_strict_raises_on_content_losses():
    """``strict=True`` raises on a denied outcome written as an error, as the adapters' strict does."""
    call = cb.ToolCallBlock(tool_call_id="c1", tool_name="rm", input={})
    denied = cb.ToolResultBlock(tool_call_id="c1", tool_name="rm", outcome="denied")
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[call]),
                                             cb.Message(role="tool", content=[denied])])
    with pytest.raises(LossError) as error:
        bridge.to_messages(conversation, strict=True)
    assert [(loss.path, loss.kind) for loss in error.value.losses] == [("$[1].content[0].outcome", "content_degraded")]


def test_importing_contentblocks_imports_no_langchain():
    """Neither ``contentblocks`` nor its bridges package imports langchain-core until a bridge is called."""
    code = ("import sys, contentblocks, contentblocks.bridges, contentblocks.bridges.langchain; "
            "print('langchain_core' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: S603 - our code
    assert run.stdout == "False\n"


def test_a_version_outside_the_tested_range_is_a_clear_error(monkeypatch):
    """An installed langchain-core outside ``SUPPORTED`` is an ImportError naming both versions and the extra."""
    bridge._messages_module.cache_clear()  # the check runs once, on the first call
    monkeypatch.setattr(bridge.importlib.metadata, "version", lambda name: "2.0.1")
    with pytest.raises(ImportError, match=r"tested with langchain-core>=1.8,<2, and 2.0.1 is installed"):
        bridge.from_messages([])


def test_a_missing_langchain_is_a_clear_error(monkeypatch):
    """No langchain-core installed is an ImportError naming the extra."""
    def missing(name: str) -> str:
        raise bridge.importlib.metadata.PackageNotFoundError(name)

    bridge._messages_module.cache_clear()
    monkeypatch.setattr(bridge.importlib.metadata, "version", missing)
    with pytest.raises(ImportError, match=r"contentblocks\[langchain\]"):
        bridge.to_messages(cb.Conversation(messages=[]))


# --- the docs table -----------------------------------------------------------------------------------------

_DOCS = Path(__file__).resolve().parents[2] / "docs" / "bridges" / "langchain.md"


def _rows() -> dict[str, str]:
    """The docs table: each row's first cell, and its last (what is lost on the way to LangChain)."""
    lines = _DOCS.read_text(encoding="utf-8").split("## What maps to what", 1)[1].splitlines()
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
    return {row[0]: row[2] for row in cells[2:]}


def _call(tool_input: Any) -> cb.Message:
    return cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input=tool_input)])


def _answered(result: cb.ToolResultBlock, message_metadata: Any = None) -> list[cb.Message]:
    return [_call({}), cb.Message(role="tool", content=[result], metadata=message_metadata or {})]


_RESULT = {"tool_call_id": "c1", "tool_name": "f"}
_ANTHROPIC = {"langchain/response_metadata": {"model_provider": "anthropic"}}
_OWN = {"app/trace": 1}

#: For each row of the table, a conversation that crosses it, for its losses to be what the row says.
ROW_EXAMPLES: dict[str, list[cb.Message]] = {
    "`SystemMessage`": [cb.Message(role="system", content="Be brief."), cb.Message(role="developer", content="No.")],
    "`HumanMessage`": [cb.Message(role="user", content="Hi")],
    "`AIMessage`": [cb.Message(role="assistant", content="Hi", metadata={"langchain/usage_metadata": {
        "input_tokens": 1, "output_tokens": 1, "total_tokens": 2}})],
    "`ToolMessage`": _answered(cb.ToolResultBlock(**_RESULT, outcome="denied"), _OWN),
    "`AIMessageChunk`, `HumanMessageChunk`, `SystemMessageChunk`, `ToolMessageChunk`": [
        cb.Message(role="assistant", content="par", metadata={"langchain/type": "AIMessageChunk"})],
    "`text` (and a plain string item)": [cb.Message(role="assistant", content=[cb.TextBlock(
        text="See.", metadata=_OWN, citations=[cb.Citation(source=cb.CitedUri(value="https://a.example"), start=0,
                                                            end=3)])])],
    "`refusal`": [cb.Message(role="assistant", content=[cb.RefusalBlock(text="No.")])],
    "`reasoning`": [cb.Message(role="assistant", content=[cb.ReasoningBlock(
        text="Hm.", signature="s", metadata={"contentblocks/issuer": "anthropic"})], metadata=_ANTHROPIC)],
    "`non_standard` holding Anthropic's `redacted_thinking`": [cb.Message(role="assistant", content=[
        cb.ReasoningBlock(redacted=b"\xff", metadata={"contentblocks/issuer": "anthropic"}),
        cb.ReasoningBlock(redacted=b"abc", metadata={"contentblocks/issuer": "openai"})], metadata=_ANTHROPIC)],
    "`image`, `audio`, `video`, `file`, `text-plain`": [cb.Message(role="user", content=[
        cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG")),
        cb.FileBlock(media_type="application/pdf", source=cb.ReferenceSource(id="file-1", provider="openai"),
                     filename="a.pdf"),
        cb.FileBlock(media_type="audio/wav", source=cb.UrlSource(url="https://a.example/a.wav"))])],
    "`tool_call` (and `AIMessage.tool_calls`)": [_call([1, 2])],
    "`invalid_tool_call` (and `AIMessage.invalid_tool_calls`)": [cb.Message(role="assistant", content=[
        cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input='{"a": ',
                         metadata={"langchain/type": "invalid_tool_call", "langchain/error": "bad"})])],
    "a provider's format or a v0 block (OpenAI's `image_url`, `input_audio` and `file`, Anthropic's `image` and "
    "`thinking`, blocks with a `source_type`)": [cb.Message(role="user", content=[cb.FileBlock(
        media_type="image/*", source=cb.UrlSource(url="https://example.com/y.png"), metadata={
            "langchain/mime_type": None, "langchain/original": PROVIDER_FORMATS[0]})])],
    "`server_tool_call`, `server_tool_call_chunk` (in an `AIMessage`)": [cb.Message(role="assistant", content=[
        cb.ServerToolCallBlock(tool_call_id="srvtoolu_1", tool_name="code_execution", input=[1],
                               metadata={"contentblocks/issuer": "anthropic", "anthropic/server_result": {}})])],
    "`server_tool_result` (in an `AIMessage`)": [cb.Message(role="assistant", content=[
        cb.ServerToolResultBlock(tool_call_id="srvtoolu_1", tool_name="code_execution", outcome="denied", content=[
            cb.TextBlock(text="1", metadata=_OWN, citations=[cb.Citation(source=cb.CitedUri(value="https://a.example"))]),
            cb.JsonBlock(value="two"), cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))],
            metadata={"contentblocks/issuer": "anthropic", "anthropic/server_result": {}})])],
    "`tool_call_chunk` (in an `AIMessage`)": [_call({"city": "Paris"})],
    "`non_standard` and every other block (and a `tool_call_chunk` whose text is no object, a server block outside an "
    "`AIMessage`, or a result naming no tool)": [cb.Message(role="assistant", content=[cb.JsonBlock(
        value={"type": "tool_call_chunk", "id": "s1", "name": "web_search", "args": "{"},
        metadata={"langchain/native_block": True})])],
    "—": [cb.Message(role="user", content=[cb.JsonBlock(value={"rows": [1]})])],
    "— (no compaction block)": [cb.Message(role="assistant", content=[
        cb.CompactionBlock(summary="s", metadata={"contentblocks/issuer": "openai", "openai/encrypted_content": "e"}),
        cb.CompactionBlock()])],
    "none: no cache breakpoint": [cb.Message(role="user", content=[cb.TextBlock(text="a", cache=cb.CacheBreakpoint())],
                                            cache=cb.CacheBreakpoint(ttl=60))],
    "none: no approval block (LangChain asks for approval by interrupting a graph, outside its messages)": [
        cb.Message(role="assistant", content=[cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={}),
                                              cb.ApprovalRequestBlock(approval_id="a1", tool_call_id="c1")]),
        cb.Message(role="user", content=[cb.ApprovalResponseBlock(approval_id="a1", approved=True)])],
}


def test_the_docs_table_names_every_langchain_construct():
    """Every message class langchain-core exports and every v1 block type has its row in the docs table."""
    named = set(re.findall(r"`([\w-]+)`", " ".join(_rows())))
    classes = {name for name in dir(lc) if name.endswith(("Message", "MessageChunk")) and name != "BaseMessageChunk"
               and isinstance(getattr(lc, name), type) and issubclass(getattr(lc, name), lc.BaseMessage)}
    assert classes - {"BaseMessage"} <= named
    assert set(lc.content.KNOWN_BLOCK_TYPES) <= named


@pytest.mark.parametrize("row", sorted(ROW_EXAMPLES))
def test_each_docs_row_loses_what_it_says(row):
    """Each row's example loses exactly the kinds its last cell names, and its messages read back."""
    rows = _rows()
    refused = "`ChatMessage`, `ChatMessageChunk`, `FunctionMessage`, `FunctionMessageChunk`, `RemoveMessage`"
    assert set(rows) - {refused} == set(ROW_EXAMPLES)
    result = bridge.to_messages(cb.Conversation(messages=ROW_EXAMPLES[row]))
    assert {loss.kind for loss in result.losses} == set(re.findall(r"\(`(\w+)`\)", rows[row]))
    if not result.losses:
        assert bridge.from_messages(result.payload) == cb.Conversation(messages=ROW_EXAMPLES[row])
    else:
        assert bridge.from_messages(result.payload)
