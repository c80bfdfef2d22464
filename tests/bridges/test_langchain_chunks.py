"""A streamed reply in a LangChain history: its ``AIMessageChunk``s and chunk blocks read as LangChain merges them.

The chunks are built as a streaming chat model yields them, and as LangChain's reference documents their merge:
``tool_call_chunks`` pieces of one ``index``, summed by ``AIMessageChunk.__add__`` with their strings concatenated
(https://reference.langchain.com/python/langchain-core/messages/tool/ToolCallChunk), and v1 content blocks
``tool_call_chunk`` (https://reference.langchain.com/python/langchain-core/messages/content/ToolCallChunk) and
``server_tool_call_chunk``, which the sum of a stream's last chunk (``chunk_position="last"``) turns into calls
(https://reference.langchain.com/python/langchain-core/messages/ai/AIMessageChunk).
"""

from __future__ import annotations

import pytest

import contentblocks as cb
from contentblocks.bridges import langchain as bridge

lc = pytest.importorskip("langchain_core.messages")
V1 = {"output_version": "v1", "model_provider": "anthropic"}


def _v0_stream() -> list:
    """An OpenAI-style stream: the call's pieces in ``tool_call_chunks``, its id and name in the first only."""
    return [
        lc.AIMessageChunk(content="", id="lc_run--1", tool_call_chunks=[
            {"name": "get_weather", "args": "", "id": "call_abc", "index": 0}]),
        lc.AIMessageChunk(content="", id="lc_run--1", tool_call_chunks=[
            {"name": None, "args": '{"city": ', "id": None, "index": 0}]),
        lc.AIMessageChunk(content="", id="lc_run--1", tool_call_chunks=[
            {"name": None, "args": '"Paris"}', "id": None, "index": 0}]),
        lc.AIMessageChunk(content="", id="lc_run--1", chunk_position="last"),
    ]


def _v1_stream(last: bool) -> list:
    """An Anthropic stream in v1 blocks: text, a client call and a provider-run search in pieces of their index."""
    chunks = [
        lc.AIMessageChunk(content=[{"type": "text", "text": "Let me check.", "index": 0}], id="msg_1",
                          response_metadata=V1),
        lc.AIMessageChunk(content=[{"type": "server_tool_call_chunk", "id": "srvtoolu_1", "name": "web_search",
                                    "args": "", "index": 1}], id="msg_1"),
        lc.AIMessageChunk(content=[{"type": "server_tool_call_chunk", "args": '{"query": "weather ', "index": 1}],
                          id="msg_1"),
        lc.AIMessageChunk(content=[{"type": "server_tool_call_chunk", "args": 'Paris"}', "index": 1}], id="msg_1"),
        lc.AIMessageChunk(content=[{"type": "tool_call_chunk", "id": "toolu_1", "name": "get_weather", "args": "",
                                    "index": 2}], id="msg_1"),
        lc.AIMessageChunk(content=[{"type": "tool_call_chunk", "id": None, "name": None, "args": '{"city": "Paris"}',
                                    "index": 2}], id="msg_1"),
    ]
    if last:
        chunks.append(lc.AIMessageChunk(content=[], id="msg_1", chunk_position="last"))
    return chunks


def _answer() -> list:
    return [lc.ToolMessage("18 C", tool_call_id="call_abc", name="get_weather")]


def test_the_chunks_of_one_reply_read_as_langchain_sums_them():
    chunks = _v0_stream()
    read = bridge.from_messages([lc.HumanMessage("Weather in Paris?"), *chunks, *_answer()])
    total = chunks[0] + chunks[1:]  # LangChain's own sum of a stream
    assert read == bridge.from_messages([lc.HumanMessage("Weather in Paris?"), total, *_answer()])
    _, assistant, tool = read
    (call,) = assistant.content
    assert (call.tool_call_id, call.tool_name, call.input) == ("call_abc", "get_weather", {"city": "Paris"})
    assert tool.content[0].tool_call_id == "call_abc"
    # and written back as that one chunk, which LangChain's own validation accepts
    back = bridge.to_messages(read, strict=cb.providers.LOSS_KINDS).payload
    assert back[1] == total


def test_the_dict_form_of_the_chunks_reads_the_same():
    history = [lc.HumanMessage("Weather in Paris?"), *_v0_stream(), *_answer()]
    assert bridge.from_messages(lc.messages_to_dict(history)) == bridge.from_messages(history)


def test_chunk_blocks_of_one_call_read_as_the_last_chunk_gives_them():
    without_last = bridge.from_messages(_v1_stream(last=False))
    with_last = bridge.from_messages(_v1_stream(last=True))
    (message,) = without_last
    text, server, call = message.content
    assert text.text == "Let me check."
    assert (type(server), server.input) == (cb.ServerToolCallBlock, {"query": "weather Paris"})
    assert (type(call), call.tool_call_id, call.input) == (cb.ToolCallBlock, "toolu_1", {"city": "Paris"})
    # LangChain's last chunk gives the same calls: the client call the same block, the server call the same input
    (last,) = with_last
    assert last.content[2] == call
    assert (last.content[1].tool_call_id, last.content[1].input) == (server.tool_call_id, server.input)


def test_chunk_blocks_of_one_id_in_one_message_are_one_call():
    message = lc.AIMessage(content=[
        {"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a": '},
        {"type": "text", "text": "between"},
        {"type": "tool_call_chunk", "id": "c1", "name": None, "args": "[1, 2]}"},
    ], response_metadata={"output_version": "v1"})
    (read,) = bridge.from_messages([message])
    assert [type(b) for b in read.content] == [cb.ToolCallBlock, cb.TextBlock]
    assert read.content[0].input == {"a": [1, 2]}


def test_a_text_that_does_not_parse_stays_as_it_was():
    pieces = [{"type": "tool_call_chunk", "id": "c1", "name": "f", "args": '{"a": ', "index": 0},
              {"type": "tool_call_chunk", "id": None, "name": None, "args": "1", "index": 0}]
    (read,) = bridge.from_messages([lc.AIMessage(content=pieces)])
    assert [(type(b), b.metadata.get("langchain/native_block")) for b in read.content] == [(cb.JsonBlock, True)] * 2
    assert bridge.to_messages([read], strict=cb.providers.LOSS_KINDS).payload[0].content == pieces


def test_chunks_of_different_replies_stay_apart():
    first = lc.AIMessageChunk(content="Hello", id="run-1")
    second = lc.AIMessageChunk(content="Again", id="run-2")
    read = bridge.from_messages([first, second])
    assert [m.text() for m in read] == ["Hello", "Again"]


def test_a_problem_in_a_later_message_keeps_its_own_index():
    with pytest.raises(cb.ValidationError) as raised:
        bridge.from_messages([*_v0_stream(), lc.ToolMessage("x", tool_call_id="nope", name="g")])
    assert raised.value.errors[0][0].startswith("$[4]")
