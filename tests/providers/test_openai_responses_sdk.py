"""The OpenAI Responses adapter on the SDK's own objects: every dump form, the stream accumulator, typed replies."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, Reply, Usage, openai_responses
from providers.test_openai_responses import check_request

pydantic = pytest.importorskip("pydantic")
responses = pytest.importorskip("openai.types.responses")
streaming = pytest.importorskip("openai.lib.streaming.responses._responses")

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
EVENTS = pydantic.TypeAdapter(responses.ResponseStreamEvent)


def api(name: str) -> dict[str, Any]:
    """A response body as the API sends it."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def forms(response: Any) -> dict[str, Any]:
    """Every form a user may hand over: the object itself and each of the SDK's dumps."""
    return {
        "object": response,
        "model_dump": response.model_dump(),
        "model_dump_json_mode": response.model_dump(mode="json"),
        "model_dump_aliases": response.model_dump(by_alias=True),
        "to_dict": response.to_dict(),
        "to_dict_python_names": response.to_dict(use_api_names=False),
        "to_json": json.loads(response.to_json()),
    }


def replay(reply: Reply) -> cb.Converted:
    """The next request after ``reply``, raising on a loss of any kind."""
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Go on."), reply.message])
    return openai_responses.to_provider(conversation, strict=LOSS_KINDS)


@pytest.mark.parametrize("name", ["response.json", "response_tools.json"])
def test_every_form_reads_to_the_same_reply(name):
    """The SDK object and all its dump forms give one Reply; sent straight back it reports nothing and is the output."""
    body = api(name)
    response = responses.Response.model_validate(body)
    replies = {form: openai_responses.from_response(value) for form, value in forms(response).items()}
    first = replies["to_dict"]
    assert all(reply == first for reply in replies.values()), [f for f, r in replies.items() if r != first]
    converted = replay(first)
    check_request(converted.payload)
    assert converted.payload["input"][1:] == body["output"]


def test_reply_fields():
    """A tool-calling response gives its calls, tool_use, the usage counts, model, id and provider."""
    reply = openai_responses.from_response(responses.Response.model_validate(api("response_tools.json")))
    assert reply.stop_reason == "tool_use"
    assert reply.provider_stop_reason == "completed"
    assert (reply.model, reply.response_id, reply.provider) == (
        "gpt-5-2025-08-07",
        "resp_68b2d5f0a1c48190a3c1e6a5b2f0c0de",
        "openai_responses",
    )
    assert reply.usage == Usage(
        input_tokens=1520,
        output_tokens=480,
        cache_read_tokens=1024,
        cache_write_tokens=256,
        reasoning_tokens=320,
        total_tokens=2000,
        raw=api("response_tools.json")["usage"],
    )
    message = reply.message
    assert message.metadata == {}
    assert [call.tool_call_id for call in message.tool_calls()] == ["call_weather", "call_stock"]
    assert [type(b).__name__ for b in message.content] == [
        "ReasoningBlock",
        "ReasoningBlock",
        *["ServerToolCallBlock", "ServerToolResultBlock"] * 4,  # the tools OpenAI ran: a call and its result each
        "TextBlock",
        "RefusalBlock",
        "ToolCallBlock",
        "ToolCallBlock",
        "JsonBlock",
    ]
    assert message.content[9].metadata["openai/server_item"] == {
        "type": "image_generation_call",
        "id": "ig_68b2d5f5",
        "status": "failed",
        "result": None,
    }
    assert message.content[9].outcome == "failed"
    text = message.content[10]
    assert [(c.source.value, text.text[c.start : c.end]) for c in text.citations] == [
        ("https://weather.example.com/zurich", "Sunny in Zürich"),
        ("file-abc123", ""),
        ("cfile_1", "chart.png"),
    ]
    assert text.metadata["openai/phase"] == "final_answer"


def _stream_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The server-sent events that stream ``body``'s reasoning, message and function call."""
    reasoning, message, call = body["output"]
    opening = {k: v for k, v in body.items() if k not in ("output", "usage")} | {"status": "in_progress", "output": []}
    text = message["content"][0]["text"]
    return [
        {"type": "response.created", "response": opening},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**message, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "item_id": message["id"],
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        *(
            {
                "type": "response.output_text.delta",
                "output_index": 1,
                "item_id": message["id"],
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            }
            for piece in (text[:5], text[5:])
        ),
        {
            "type": "response.output_text.done",
            "output_index": 1,
            "item_id": message["id"],
            "content_index": 0,
            "text": text,
            "logprobs": [],
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**call, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 2,
            "item_id": call["id"],
            "delta": call["arguments"],
        },
        {"type": "response.output_item.done", "output_index": 2, "item": call},
        {"type": "response.completed", "response": body},
    ]


def test_stream_accumulator_parsed_response():
    """The SDK's ResponseStreamState gives a ParsedResponse (parsed text and arguments): it reads as the plain one."""

    class City(pydantic.BaseModel):
        city: str

    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Look it up."}],
        "encrypted_content": "gAAAA-1",
    }
    message = {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": '{"city": "Paris"}', "annotations": []}],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
        "status": "completed",
    }
    body = {**api("response.json"), "output": [reasoning, message, call]}
    tools = [
        {
            "type": "function",
            "name": "get_weather",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        }
    ]
    state = streaming.ResponseStreamState(input_tools=tools, text_format=City)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for number, event in enumerate(_stream_events(body)):
            emitted = state.handle_event(EVENTS.validate_python({**event, "sequence_number": number}))
        parsed = emitted[-1].response
        assert type(parsed).__name__ == "ParsedResponse"
        assert parsed.output_parsed == City(city="Paris")
        assert parsed.output[2].parsed_arguments == {"city": "Paris"}
        replies = [openai_responses.from_response(value) for value in forms(parsed).values()]
    plain = openai_responses.from_response(responses.Response.model_validate(body))
    assert all(reply == plain for reply in replies)
    assert "openai/parsed" not in plain.message.content[1].metadata
    assert replay(plain).payload["input"][1:] == body["output"]


@pytest.mark.parametrize(
    ("changes", "stop", "own"),
    [
        ({"status": "completed"}, "tool_use", "completed"),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_tokens",
            "max_output_tokens",
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            "content_filter",
            "content_filter",
        ),
        ({"status": "incomplete", "incomplete_details": {"reason": "max_messages"}}, "other", "max_messages"),
        ({"status": "incomplete", "incomplete_details": None}, "other", "incomplete"),
        (
            {"status": "failed", "error": {"code": "server_error", "message": "The server had an error."}},
            "error",
            "failed",
        ),
        ({"status": "cancelled"}, "other", "cancelled"),
        ({"status": None}, None, None),
    ],
)
def test_stop_reasons(changes, stop, own):
    """Status and incomplete reason map to the neutral stop reason; the provider's own value is kept beside it."""
    response = responses.Response.model_validate({**api("response.json"), **changes})
    reply = openai_responses.from_response(response)
    assert (reply.stop_reason, reply.provider_stop_reason) == (stop, own)


def test_completed_stop_reasons():
    """A completed reply with a refusal says refusal, with text end_turn, with a custom tool call tool_use."""
    body = api("response.json")
    refusal = {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "I can't help with that."}],
    }
    text = {**refusal, "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
    custom = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "code_exec", "input": "print(1)"}
    for item, stop in ((refusal, "refusal"), (text, "end_turn"), (custom, "tool_use")):
        reply = openai_responses.from_response(responses.Response.model_validate({**body, "output": [item]}))
        assert reply.stop_reason == stop


def test_empty_output_is_no_message():
    """A response with nothing in its output gives no message, and still its stop reason and usage."""
    body = {
        **api("response.json"),
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [],
    }
    reply = openai_responses.from_response(responses.Response.model_validate(body))
    assert reply.message is None
    assert (reply.stop_reason, reply.usage.total_tokens) == ("max_tokens", 30)


def test_native_items_from_model_dump_fit_the_request():
    """Items read from ``model_dump()`` (a null for every unset field) go back as the API wrote them, fitting the request."""
    body = api("response_tools.json")
    dumped = responses.Response.model_validate(body).model_dump()
    assert dumped["output"][1]["action"]["queries"] is None  # unset, and the request takes no null there
    assert dumped["output"][8]["async_"] is None  # the SDK's Python name, unset
    items = replay(openai_responses.from_response(dumped)).payload["input"][1:]
    assert items == body["output"]
    assert items[3]["outputs"] is None  # the request requires outputs, and allows null


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        ({"output": None}, "$.output", "expected an array"),
        (
            {"output": [{"type": "function_call", "call_id": "c", "name": "f"}]},
            "$.output[0].arguments",
            "required field missing",
        ),
        (
            {"output": [{"type": "message", "id": "m", "role": "user", "content": "x"}]},
            "$.output[0].role",
            "expected assistant (a response's output is the assistant's)",
        ),
        (
            {"output": [{"type": "message", "id": "m", "role": "assistant", "content": [{"type": "audio"}]}]},
            "$.output[0].content[0].type",
            "not a part type this adapter reads (output_text, refusal, input_text)",
        ),
        ({"output": [{"type": "reasoning", "id": "rs_1"}]}, "$.output[0].summary", "required field missing"),
        ({"usage": {"input_tokens": -1}}, "$.usage.input_tokens", "expected a non-negative integer"),
        ({"usage": {"input_tokens": "12"}}, "$.usage.input_tokens", "expected an integer"),
        ({"status": 3}, "$.status", "expected a string"),
        ({"model": ["gpt"]}, "$.model", "expected a string"),
    ],
)
def test_malformed_responses_name_the_output_path(change, path, message):
    """A malformed response is refused at its own path (``$.output[0]...``), never at a request's ``$.input``."""
    with pytest.raises(cb.ValidationError) as info:
        openai_responses.from_response({**api("response.json"), **change})
    assert info.value.errors == [(path, message)]


def test_not_a_response():
    """Something that is neither a response object nor a dict is refused at the root."""
    with pytest.raises(cb.ValidationError) as info:
        openai_responses.from_response(["output"])
    assert info.value.errors == [("$", "expected an object")]


def test_sdk_items_in_a_request():
    """A request whose ``input`` holds the SDK's output objects (``input += response.output``) reads as its dicts do."""
    response = responses.Response.model_validate(api("response_tools.json"))
    question = {"role": "user", "content": "Go on."}
    from_objects = openai_responses.from_provider({"input": [question, *response.output]})
    from_dumps = openai_responses.from_provider({"input": [question, *(item.model_dump() for item in response.output)]})
    assert from_objects == from_dumps
    assert from_objects[1] == openai_responses.from_response(response).message


def test_unknown_reasoning_part_fields_are_refused():
    """A field of a summary part this adapter does not know is refused by name, not dropped."""
    part = {"type": "summary_text", "text": "x", "tokens": 3}
    body = {**api("response.json"), "output": [{"type": "reasoning", "id": "rs_1", "summary": [part]}]}
    with pytest.raises(cb.ValidationError) as info:
        openai_responses.from_response(body)
    assert info.value.errors == [("$.output[0].summary[0]", "not a field this adapter reads: tokens")]
