"""Arguments from the caller's own code: a wrong kind is a TypeError naming the call, what it takes and what came."""

from __future__ import annotations

import json

import pytest

import contentblocks as cb
from contentblocks.providers import Converted, Reply, anthropic, gemini, mcp, openai_chat, openai_responses
from contentblocks.streaming import gemini as gemini_stream
from contentblocks.streaming import openai_chat as openai_chat_stream

anthropic_types = pytest.importorskip("anthropic.types")

ADAPTERS = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
}
MESSAGE = cb.Message(role="user", content="Weather in Paris?")
CONVERSATION = cb.Conversation(messages=[MESSAGE])
RESULT = cb.ToolResultBlock(tool_call_id="c1", tool_name="t", outcome="succeeded", content=[cb.TextBlock(text="x")])
#: What a user holds before structuring: the conversation as its SDK's dump, and as JSON text parsed.
RAW = json.loads(cb.dumps(CONVERSATION))


@pytest.fixture(params=sorted(ADAPTERS))
def adapter(request):
    return request.param, ADAPTERS[request.param]


def test_none_is_no_conversation(adapter):
    """``to_provider(None)`` says what it takes and that None came, naming the adapter's call."""
    name, module = adapter
    with pytest.raises(TypeError, match=rf"^{name}\.to_provider takes a cb\.Conversation .*, got None$"):
        module.to_provider(None)


def test_raw_dicts_are_not_structured_silently(adapter):
    """A list of message dicts (the wire form) is refused with the call that structures it."""
    name, module = adapter
    with pytest.raises(TypeError, match=rf"^{name}\.to_provider .* got a list of dicts: structure it first with cb"):
        module.to_provider(RAW)


def test_one_message_is_no_conversation(adapter):
    """A single Message is refused with how to wrap it."""
    _, module = adapter
    with pytest.raises(TypeError, match=r"got a Message: wrap it as cb\.Conversation\(messages=\[message\]\)"):
        module.to_provider(MESSAGE)


def test_a_list_of_messages_is_a_conversation(adapter):
    """A plain list of Message objects is written as the conversation holding them."""
    _, module = adapter
    assert module.to_provider([MESSAGE]).payload == module.to_provider(CONVERSATION).payload


def test_strict_string_is_not_iterated(adapter):
    """``strict="content_dropped"`` is refused, with the set to write instead (no iterating the characters)."""
    name, module = adapter
    with pytest.raises(TypeError, match=r"got the string 'content_dropped': write strict=\{'content_dropped'\}$"):
        module.to_provider(CONVERSATION, strict="content_dropped")
    with pytest.raises(TypeError, match=rf"^{name}\.to_provider takes strict=.*, got None$"):
        module.to_provider(CONVERSATION, strict=None)


def test_strict_generator_is_read_once(adapter):
    """A generator of kinds works as the set it yields."""
    _, module = adapter
    converted = module.to_provider(CONVERSATION, strict=(kind for kind in ["content_dropped"]))
    assert converted.losses == ()


def test_issuer_of_the_wrong_kind(adapter):
    """``issuer=`` takes a string or None."""
    _, module = adapter
    with pytest.raises(TypeError, match=r"takes issuer= as a string .*, got a int$"):
        module.to_provider(CONVERSATION, issuer=5)


def test_preflight_takes_a_conversation(adapter):
    """``preflight`` checks its conversation the same way."""
    name, module = adapter
    with pytest.raises(TypeError, match=rf"^{name}\.preflight takes a cb\.Conversation .*, got None$"):
        module.preflight(None)


def test_readers_refuse_our_own_objects(adapter):
    """A Reply, a Converted, a Conversation or a Message given to a reader is a TypeError saying what to pass."""
    name, module = adapter
    reply = Reply(message=cb.Message(role="assistant", content="Hi"), provider=name)
    with pytest.raises(TypeError, match=rf"^{name}\.from_response reads .*, got a Reply, .*use reply\.message$"):
        module.from_response(reply)
    converted = module.to_provider(CONVERSATION)
    assert isinstance(converted, Converted)
    with pytest.raises(TypeError, match=r"got a Converted: pass its payload \(converted\.payload\)$"):
        module.from_provider(converted)
    assert module.from_provider(converted.payload)[-1] == MESSAGE
    with pytest.raises(TypeError, match=r"got a Conversation, which is already a contentblocks value$"):
        module.from_provider(CONVERSATION)
    with pytest.raises(TypeError, match=r"got a Message, which is already a contentblocks value$"):
        module.from_response(MESSAGE)


def test_data_problems_stay_validation_errors(adapter):
    """What is provider data, however wrong, is still a ValidationError with a path."""
    _, module = adapter
    for data in (None, "text", 3, []):
        with pytest.raises(cb.ValidationError):
            module.from_response(data)


def test_reply_from_sdk_object_still_reads():
    """The SDK's own response object is data, not refused by the check."""
    response = anthropic_types.Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    })
    assert anthropic.from_response(response).require_message().text() == "Hi"


def test_options_of_the_wrong_kind_or_value():
    """Flags take bools, named options one of their values, indexes non-negative ints; each names its call."""
    with pytest.raises(TypeError, match=r"^anthropic\.preflight takes thinking= as True or False, got the string"):
        anthropic.preflight(CONVERSATION, thinking="yes")
    with pytest.raises(ValueError, match=r"tool_result_files= as one of 'drop', 'user_message', got 'user'$"):
        openai_chat.to_provider(CONVERSATION, tool_result_files="user")
    with pytest.raises(TypeError, match=r"^openai_chat\.from_response takes choice= as a non-negative integer"):
        openai_chat.from_response({}, choice="0")
    with pytest.raises(ValueError, match=r"choice= as a non-negative integer, got -1$"):
        openai_chat.from_response({}, choice=-1)
    with pytest.raises(TypeError, match=r"candidate= as a non-negative integer, got the bool True$"):
        gemini.from_response({}, candidate=True)
    with pytest.raises(TypeError, match=r"store= as True or False, got None$"):
        openai_responses.preflight(CONVERSATION, store=None)
    with pytest.raises(TypeError, match=r"require_signatures= as True or False"):
        gemini.preflight(CONVERSATION, require_signatures=1)


def test_mcp_arguments():
    """MCP: the block written must be a ToolResultBlock, the call's id and name strings, strict a collection."""
    with pytest.raises(TypeError, match=r"^mcp\.to_call_tool_result takes a cb\.ToolResultBlock, got None$"):
        mcp.to_call_tool_result(None)
    with pytest.raises(TypeError, match=r"got a dict: structure it first with cb\.structure\(raw, cb\.ToolResultB"):
        mcp.to_call_tool_result(cb.unstructure(RESULT))
    with pytest.raises(TypeError, match=r"got the string 'content_dropped'"):
        mcp.to_call_tool_result(RESULT, strict="content_dropped")
    with pytest.raises(TypeError, match=r"^mcp\.from_call_tool_result takes tool_call_id= as a string, got a int$"):
        mcp.from_call_tool_result({"content": []}, tool_call_id=5, tool_name="t")
    with pytest.raises(TypeError, match=r"got a ToolResultBlock, which is already a contentblocks value$"):
        mcp.from_call_tool_result(RESULT, tool_call_id="c1", tool_name="t")


def test_stream_reader_indexes():
    """The stream readers' constructors check their index before any event is read."""
    with pytest.raises(TypeError, match=r"^openai_chat stream Reader takes choice= as a non-negative integer"):
        openai_chat_stream.Reader(choice="0")
    with pytest.raises(ValueError, match=r"choice= as a non-negative integer, got -1$"):
        openai_chat_stream.Reader(choice=-1)
    with pytest.raises(TypeError, match=r"^gemini stream Reader takes candidate= .*, got the bool True$"):
        gemini_stream.Reader(candidate=True)
    with pytest.raises(ValueError, match=r"candidate= as a non-negative integer, got -2$"):
        gemini_stream.fold([], candidate=-2)
