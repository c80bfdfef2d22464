"""The OpenAI Chat adapter meets the SDK: ChatCompletion objects, every dump form, the stream accumulator, replies."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, STOP_REASONS, Reply, openai_chat
from providers.request_walk import walk

sdk = pytest.importorskip("openai")
pydantic = pytest.importorskip("pydantic")
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage  # noqa: E402
from openai.types.chat.chat_completion import Choice  # noqa: E402

MESSAGES = list[sdk.types.chat.ChatCompletionMessageParam]


def completion(message: dict[str, Any], finish: str = "stop", **extra: Any) -> ChatCompletion:
    """A ChatCompletion built with the SDK's own type, as the client hands it back."""
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-9",
            "object": "chat.completion",
            "created": 1_741_569_952,
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "finish_reason": finish, "logprobs": None, "message": message}],
            **extra,
        }
    )


USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 340,
    "total_tokens": 1540,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0, "cache_write_tokens": 64},
    "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": None, "accepted_prediction_tokens": 0},
}

REPLIES = {
    "text": completion({"role": "assistant", "content": "Bonjour !"}, usage=USAGE, system_fingerprint="fp_1"),
    "parallel_tool_calls": completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"CET"}'}},
                {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT 1"}},
            ],
        },
        "tool_calls",
    ),
    "annotations": completion(
        {
            "role": "assistant",
            "content": "Café culture in Paris is famous (lemonde.fr).",
            "annotations": [
                {
                    "type": "url_citation",
                    "url_citation": {
                        "url": "https://www.lemonde.fr/cafes",
                        "title": "Cafés de Paris",
                        "start_index": 32,
                        "end_index": 44,
                    },
                }
            ],
        }
    ),
    "refusal": completion({"role": "assistant", "content": None, "refusal": "I can't help with that."}),
    "audio": completion(
        {
            "role": "assistant",
            "content": None,
            "audio": {
                "id": "audio_abc123",
                "data": "UklGRiQAAABXQVZF",
                "expires_at": 1_741_573_552,
                "transcript": "Hi!",
            },
        }
    ),
    "text_and_call": completion(
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [{"id": "call_d", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        "tool_calls",
    ),
}

#: Every way a user gets plain data out of an SDK object, and the object itself.
FORMS: dict[str, Callable[[Any], Any]] = {
    "object": lambda o: o,
    "model_dump": lambda o: o.model_dump(),
    "model_dump_json_mode": lambda o: o.model_dump(mode="json"),
    "model_dump_by_alias": lambda o: o.model_dump(by_alias=True),
    "model_dump_exclude_none": lambda o: o.model_dump(exclude_none=True),
    "to_dict": lambda o: o.to_dict(),
    "to_dict_json_mode": lambda o: o.to_dict(mode="json"),
    "to_json": lambda o: json.loads(o.to_json()),
    "model_dump_json": lambda o: json.loads(o.model_dump_json()),
}


def stream_completion() -> Any:
    """The SDK stream accumulator's final ParsedChatCompletion for a streamed reply with two parallel calls."""

    class Weather(pydantic.BaseModel):
        city: str

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> ChatCompletionChunk:
        choices = [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}] if delta is not None else []
        body = {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": choices,
        }
        return ChatCompletionChunk.model_validate({**body, **extra})

    state = ChatCompletionStreamState(input_tools=[sdk.pydantic_function_tool(Weather, name="get_weather")])
    for part in [
        chunk({"role": "assistant", "content": None, "refusal": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                    }
                ]
            }
        ),
        chunk({}, "tool_calls"),
        chunk(None, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),
    ]:
        state.handle_chunk(part)
    return state.get_final_completion()


def conversation_with(message: cb.Message) -> cb.Conversation:
    return cb.Conversation(messages=[cb.Message(role="user", content="Hello"), message])


def answered(message: cb.Message) -> list[cb.Message]:
    """Tool messages answering each call of ``message``, so the history is one the API takes."""
    calls = [b for b in message.content if isinstance(b, cb.ToolCallBlock)]
    results = [
        cb.ToolResultBlock(
            tool_call_id=c.tool_call_id, tool_name=c.tool_name, outcome="succeeded", content=[cb.TextBlock(text="ok")]
        )
        for c in calls
    ]
    return [cb.Message(role="tool", content=results)] if results else []


@pytest.mark.parametrize("name", [*REPLIES, "stream"])
@pytest.mark.parametrize("form", FORMS)
def test_every_dump_form_reads_to_the_same_reply(name, form):
    """The SDK object and all its dump forms give one and the same Reply."""
    reply = stream_completion() if name == "stream" else REPLIES[name]
    assert openai_chat.from_response(FORMS[form](reply)) == openai_chat.from_response(reply)


@pytest.mark.parametrize("name", [*REPLIES, "stream"])
def test_an_unmodified_reply_goes_back_with_no_loss_of_any_kind(name):
    """Sending a reply straight back reports nothing, fits the request type, and carries no derived field."""
    reply = openai_chat.from_response(stream_completion() if name == "stream" else REPLIES[name])
    assert reply.message is not None
    history = cb.Conversation(messages=[*conversation_with(reply.message), *answered(reply.message)])
    converted = openai_chat.to_provider(history, strict=LOSS_KINDS)
    assert converted.losses == ()
    assert walk(converted.payload["messages"], MESSAGES) == []
    text = json.dumps(converted.payload)
    assert '"index"' not in text
    assert "parsed" not in text


def test_stream_accumulator_completion_reads_its_calls_and_drops_index():
    """The accumulator's tool calls (with index and parsed_arguments) read as plain calls, sent without index."""
    final = stream_completion()
    assert final.choices[0].message.tool_calls[0].model_dump()["index"] == 0  # the field the adapter must not send
    reply = openai_chat.from_response(final)
    calls = reply.message.content
    assert [(c.tool_call_id, c.input) for c in calls] == [("call_a", {"city": "Paris"}), ("call_b", {"city": "Oslo"})]
    assert all(dict(c.metadata) == {"openai/arguments": '{"city": "Paris"}'} or not c.metadata for c in calls)
    sent = openai_chat.to_provider(conversation_with(reply.message)).payload["messages"][1]["tool_calls"]
    assert sent == [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}},
    ]
    assert (reply.stop_reason, reply.usage.total_tokens, reply.response_id) == ("tool_use", 15, "chatcmpl-s")


def test_usage_maps_every_count_and_keeps_the_rest_raw():
    """Prompt, completion, total, cached, cache-write and reasoning tokens map; raw keeps the rest, nulls absent."""
    usage = openai_chat.from_response(REPLIES["text"].model_dump()).usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (1200, 340, 1540)
    assert (usage.cache_read_tokens, usage.cache_write_tokens, usage.reasoning_tokens) == (1024, 64, 256)
    assert usage.raw["completion_tokens_details"]["accepted_prediction_tokens"] == 0
    assert "audio_tokens" not in usage.raw["completion_tokens_details"]
    bare = openai_chat.from_response(completion({"role": "assistant", "content": "x"})).usage
    assert bare is None


def test_reply_fields():
    """A reply names its model, id and provider, and its message's metadata says nothing about the response."""
    reply = openai_chat.from_response(REPLIES["text"])
    assert (reply.model, reply.response_id, reply.provider) == ("gpt-4o-2024-08-06", "chatcmpl-9", "openai_chat")
    assert dict(reply.message.metadata) == {}
    assert isinstance(reply, Reply)


@pytest.mark.parametrize("finish", typing.get_args(Choice.model_fields["finish_reason"].annotation))
def test_every_sdk_finish_reason_has_a_neutral_word(finish):
    """Each finish_reason the SDK declares maps to a neutral stop reason other than 'other', and is kept as is."""
    reply = openai_chat.from_response(completion({"role": "assistant", "content": "x"}, finish))
    assert reply.stop_reason in STOP_REASONS
    assert reply.stop_reason != "other"
    assert reply.provider_stop_reason == finish


def test_stop_reasons():
    """stop is end_turn (refusal when the model declined), length max_tokens; an unknown value is other."""
    assert openai_chat.from_response(REPLIES["text"]).stop_reason == "end_turn"
    assert openai_chat.from_response(REPLIES["refusal"]).stop_reason == "refusal"
    unknown = REPLIES["text"].model_dump()
    unknown["choices"][0]["finish_reason"] = "paused"
    assert openai_chat.from_response(unknown).stop_reason == "other"
    unknown["choices"][0]["finish_reason"] = None
    assert openai_chat.from_response(unknown).stop_reason is None


@pytest.mark.parametrize("finish", ["length", "content_filter", "stop"])
def test_an_empty_reply_has_no_message(finish):
    """A reply with no content, refusal, audio or tool call gives message None, in every dump form."""
    empty = completion({"role": "assistant", "content": None}, finish)
    for form in FORMS.values():
        reply = openai_chat.from_response(form(empty))
        assert reply.message is None
        assert reply.provider_stop_reason == finish
    assert openai_chat.from_response(completion({"role": "assistant", "content": ""}, finish)).message is None


def test_refusal_and_audio_replies():
    """A refusal reads as a refusal block; a spoken reply's transcript is its text, its audio id goes back."""
    refusal = openai_chat.from_response(REPLIES["refusal"]).message
    assert refusal.content == (cb.RefusalBlock(text="I can't help with that."),)
    spoken = openai_chat.from_response(REPLIES["audio"]).message
    assert spoken.content == (cb.TextBlock(text="Hi!"),)
    assert spoken.metadata["openai/audio"]["data"] == "UklGRiQAAABXQVZF"
    sent = openai_chat.to_provider(conversation_with(spoken), strict=LOSS_KINDS).payload["messages"][1]
    assert sent == {"role": "assistant", "content": "Hi!", "audio": {"id": "audio_abc123"}}


def test_annotations_become_citations_with_code_point_spans():
    """url_citation annotations become citations; the span is in code points and fits the text."""
    message = openai_chat.from_response(REPLIES["annotations"]).message
    (text,) = message.content
    (citation,) = text.citations
    assert text.text[citation.start : citation.end] == "(lemonde.fr)"
    assert (citation.source, citation.title) == (cb.CitedUri(value="https://www.lemonde.fr/cafes"), "Cafés de Paris")


def test_sdk_messages_appended_to_the_history_read_as_requests():
    """A history holding the SDK's ChatCompletionMessage objects (or their dumps) reads and goes back cleanly."""
    for name in ("parallel_tool_calls", "annotations", "refusal", "text_and_call"):
        message = REPLIES[name].choices[0].message
        assert isinstance(message, ChatCompletionMessage)
        for form in FORMS.values():
            conversation = openai_chat.from_provider(
                {"messages": [{"role": "user", "content": "Hello"}, form(message)]}
            )
            assert conversation[1] == openai_chat.from_response(REPLIES[name]).message
        converted = openai_chat.to_provider(conversation, strict=LOSS_KINDS)
        assert walk(converted.payload["messages"], MESSAGES) == []


def test_a_bare_message_reads_as_a_reply_with_only_its_message():
    """from_response takes a ChatCompletionMessage on its own: the message, and nothing about a response."""
    message = REPLIES["parallel_tool_calls"].choices[0].message
    reply = openai_chat.from_response(message)
    assert reply.message == openai_chat.from_response(REPLIES["parallel_tool_calls"]).message
    assert (reply.stop_reason, reply.usage, reply.model, reply.response_id) == (None, None, None, None)


def test_choice_picks_one_of_several():
    """With n > 1, choice= reads the one asked for; a choice that is not there is a ValidationError."""
    raw = REPLIES["text"].model_dump()
    raw["choices"].append({**raw["choices"][0], "index": 1, "message": {"role": "assistant", "content": "Salut !"}})
    assert openai_chat.from_response(raw, choice=1).message.content[0].text == "Salut !"
    with pytest.raises(cb.ValidationError) as info:
        openai_chat.from_response(raw, choice=2)
    assert info.value.errors[0][0] == "$.choices"


def test_function_call_only_reply_is_refused_by_name():
    """A reply holding only the deprecated function_call is refused, naming the field, not read as something else."""
    legacy = completion(
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}, "function_call"
    )
    with pytest.raises(cb.ValidationError) as info:
        openai_chat.from_response(legacy)
    assert info.value.errors[0][0] == "$.choices[0].message.function_call"


def test_unknown_reply_fields_are_kept_in_metadata():
    """A field a compatible server adds (reasoning_content) is kept verbatim, and reported when not sent."""
    raw = REPLIES["text"].model_dump()
    raw["choices"][0]["message"]["reasoning_content"] = "Thought about greetings."
    message = openai_chat.from_response(raw).message
    assert message.metadata["openai/reasoning_content"] == "Thought about greetings."
    losses = openai_chat.to_provider(conversation_with(message)).losses
    assert [(loss.path, loss.kind) for loss in losses] == [
        ('$[1].metadata["openai/reasoning_content"]', "metadata_not_sent")
    ]
