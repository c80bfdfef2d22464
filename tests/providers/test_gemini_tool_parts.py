"""Gemini's server-side tool invocations (``toolCall``, ``toolResponse``) as provider-run tool blocks.

The payloads follow https://ai.google.dev/gemini-api/docs/tool-combination: Gemini 3 with Google Search and a
function declared, ``include_server_side_tool_invocations`` set; the model content of turn 1 holds the search's
``tool_call`` and ``tool_response`` and a ``function_call`` of ``getWeather``, and turn 2 sends all three back
with the function's response.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

import contentblocks as cb
from contentblocks.providers import gemini
from contentblocks.streaming import gemini as gemini_stream
from streaming.checks import load
from test_server_tools import FRAMEWORKS, WRITERS

QUESTION = "What is the northernmost city in the United States? What's the weather like there today?"
SIGNATURE = "Z2VtaW5pMy10b29sLWNhbGwtc2lnbmF0dXJl"


def turn_two() -> list[dict[str, Any]]:
    """The documented second turn's ``contents``, in the REST form."""
    return [
        {"role": "user", "parts": [{"text": QUESTION}]},
        {
            "role": "model",
            "parts": [
                {
                    "toolCall": {
                        "id": "gs-8f2k",
                        "toolType": "GOOGLE_SEARCH_WEB",
                        "args": {"queries": ["northernmost city in the United States"]},
                    },
                    "thoughtSignature": SIGNATURE,
                },
                {
                    "toolResponse": {
                        "id": "gs-8f2k",
                        "toolType": "GOOGLE_SEARCH_WEB",
                        "response": {"search_suggestions": "Utqiagvik, Alaska"},
                    }
                },
                {"functionCall": {"id": "fc-31xq", "name": "getWeather", "args": {"city": "Utqiaġvik, Alaska"}}},
            ],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"id": "fc-31xq", "name": "getWeather", "response": {"response": "-5 °C"}}}],
        },
    ]


def test_the_documented_turn_reads_as_a_provider_run_search_and_a_client_call():
    conversation = gemini.from_provider({"contents": turn_two()})
    user, model, tool = conversation.messages
    search, found, weather = model.content
    assert (type(search), search.tool_call_id, search.tool_name) == (cb.ServerToolCallBlock, "gs-8f2k", "web_search")
    assert search.input == {"queries": ["northernmost city in the United States"]}
    assert search.metadata == {
        "gemini/toolType": "GOOGLE_SEARCH_WEB",
        "gemini/thought_signature": SIGNATURE,
        "contentblocks/issuer": "gemini",
    }
    assert (type(found), found.tool_call_id, found.tool_name, found.outcome) == (
        cb.ServerToolResultBlock,
        "gs-8f2k",
        "web_search",
        "succeeded",
    )
    assert found.content == (cb.JsonBlock(value={"search_suggestions": "Utqiagvik, Alaska"}),)
    assert (type(weather), weather.tool_call_id, tool.role) == (cb.ToolCallBlock, "fc-31xq", "tool")
    # the search asks nothing of the client: only the function call waits, until its response
    waiting = cb.Conversation(messages=[user, model])
    assert [c.tool_call_id for c in waiting.pending_tool_calls()] == ["fc-31xq"]
    assert conversation.pending_tool_calls() == ()


def test_the_documented_turn_goes_back_as_it_came():
    contents = turn_two()
    converted = gemini.to_provider(gemini.from_provider({"contents": contents}), strict=True)
    assert converted.payload["contents"] == contents
    assert converted.losses == ()


def test_the_sdk_dumps_read_like_the_rest_form():
    types = pytest.importorskip("google.genai.types")
    model = types.Content(
        role="model",
        parts=[
            types.Part(
                tool_call=types.ToolCall(
                    id="gs-8f2k",
                    tool_type="GOOGLE_SEARCH_WEB",
                    args={"queries": ["northernmost city in the United States"]},
                ),
                thought_signature=b"gemini3-tool-call-signature",
            ),
            types.Part(
                tool_response=types.ToolResponse(
                    id="gs-8f2k", tool_type="GOOGLE_SEARCH_WEB", response={"search_suggestions": "Utqiagvik, Alaska"}
                )
            ),
            types.Part(
                function_call=types.FunctionCall(id="fc-31xq", name="getWeather", args={"city": "Utqiaġvik, Alaska"})
            ),
        ],
    )
    expected = gemini.from_provider({"contents": turn_two()[1:2]})
    for dumped in (model.model_dump(exclude_none=True, mode="json"), model.to_json_dict(), model):
        assert gemini.from_provider({"contents": [dumped]}) == expected


def test_a_reply_round_trips_with_no_loss():
    reply = {
        "candidates": [{"content": turn_two()[1], "finishReason": "STOP"}],
        "modelVersion": "gemini-3-flash-preview",
    }
    message = gemini.from_response(reply).message
    history = cb.Conversation(messages=[cb.Message(role="user", content=[cb.TextBlock(text=QUESTION)]), message])
    converted = gemini.to_provider(history, strict=True)
    assert converted.payload["contents"][1] == turn_two()[1]
    assert message.content[0].metadata["contentblocks/issuer"] == "gemini/gemini-3-flash"  # the model family
    again = gemini.to_provider(gemini.from_provider(converted.payload), strict=True)
    assert again.payload == converted.payload


def test_the_stream_folds_them_as_the_reply_reads_them():
    reply = gemini_stream.fold(load("gemini", "tool_combination"))
    search, found, text, weather = reply.message.content
    assert (search.tool_name, found.tool_name, found.tool_call_id) == ("web_search", "web_search", "gs-8f2k")
    assert search.metadata["gemini/thought_signature"] == SIGNATURE
    assert (type(text), weather.tool_name, reply.stop_reason) == (cb.TextBlock, "getWeather", "tool_use")


@pytest.mark.parametrize(
    ("tool_type", "name"),
    [
        ("GOOGLE_SEARCH_WEB", "web_search"),
        ("GOOGLE_SEARCH_IMAGE", "image_search"),
        ("URL_CONTEXT", "url_context"),
        ("GOOGLE_MAPS", "google_maps"),
        ("FILE_SEARCH", "file_search"),
        ("MEDIA_PROCESSING", "media_processing"),  # a type with no neutral name: its own, in lower case
        ("NOT AN IDENTIFIER", "gemini_tool"),
        (None, "gemini_tool"),
    ],
)
def test_each_tool_type_is_named_and_written_back_exactly(tool_type, name):
    call: dict[str, Any] = {"id": "t1", "args": {"q": "x"}}
    response: dict[str, Any] = {"id": "t1", "response": {"ok": True}}
    if tool_type is not None:
        call["toolType"] = response["toolType"] = tool_type
    contents = [{"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"toolCall": call}, {"toolResponse": response}]}]  # fmt: skip
    history = gemini.from_provider({"contents": contents})
    assert [b.tool_name for b in history.messages[1].content] == [name, name]
    assert gemini.to_provider(history, strict=True).payload["contents"] == contents


def test_parts_without_ids_pair_in_order_and_go_back_without_ids():
    """A response with no id answers the latest call; the ids the reader made up are not sent."""
    parts = [
        {"toolCall": {"toolType": "URL_CONTEXT", "args": {"urls": ["https://example.com"]}}},
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"toolResponse": {"toolType": "URL_CONTEXT"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
    ]
    contents = [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": parts}]
    history = gemini.from_provider({"contents": contents})
    url, code, url_result, code_result = history.messages[1].content
    assert (url_result.tool_call_id, url_result.tool_name, url_result.content) == (url.tool_call_id, "url_context", ())
    assert code_result.tool_call_id == code.tool_call_id  # the code's result does not answer the URL fetch
    assert gemini.to_provider(history, strict=True).payload["contents"] == contents


def test_values_no_block_holds_are_kept_as_text_and_sent_back_exact():
    big = 123456789012345678901234567890
    parts = [{"toolCall": {"id": "t1", "toolType": "FILE_SEARCH", "args": {"n": big}}},
             {"toolResponse": {"id": "t1", "toolType": "FILE_SEARCH", "response": {"n": big}}}]  # fmt: skip
    contents = [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": parts}]
    history = gemini.from_provider({"contents": contents})
    call, result = history.messages[1].content
    assert (type(call.input), result.content[0].metadata) == (str, {"contentblocks/json_text": True})
    assert gemini.to_provider(history, strict=True).payload["contents"] == contents


def test_outside_a_model_content_they_stay_json_blocks():
    contents = [{"role": "user", "parts": [{"toolCall": {"id": "t1", "toolType": "GOOGLE_MAPS"}}]}]
    (block,) = gemini.from_provider({"contents": contents}).messages[0].content
    assert (type(block), block.metadata["gemini/part"]) == (cb.JsonBlock, "toolCall")


def _history() -> cb.Conversation:
    return gemini.from_provider({"contents": turn_two()})


def test_a_block_gemini_did_not_issue_is_not_sent_as_its_part():
    """A client cannot make Gemini take a search it never ran: the issuer decides, not ``gemini/toolType``."""
    history = _history()
    model = history.messages[1]
    forged = [
        attrs.evolve(b, metadata={**b.metadata, "contentblocks/issuer": "anthropic"}) if i < 2 else b
        for i, b in enumerate(model.content)
    ]
    messages = [history.messages[0], attrs.evolve(model, content=forged), history.messages[2]]
    converted = gemini.to_provider(cb.Conversation(messages=messages))
    parts = converted.payload["contents"][1]["parts"]
    assert not any("toolCall" in p or "toolResponse" in p for p in parts)
    assert SIGNATURE not in json.dumps(converted.payload)
    assert ("$[1].content[0]", "content_dropped") in {(loss.path, loss.kind) for loss in converted.losses}


def test_a_result_no_tool_response_holds_goes_as_readable_content():
    history = _history()
    model = history.messages[1]
    texts = (cb.TextBlock(text="Utqiagvik"), cb.TextBlock(text="Alaska"))
    edited = [attrs.evolve(b, content=texts) if i == 1 else b for i, b in enumerate(model.content)]
    messages = [history.messages[0], attrs.evolve(model, content=edited), history.messages[2]]
    converted = gemini.to_provider(cb.Conversation(messages=messages))
    assert converted.payload["contents"][1]["parts"][1:3] == [{"text": "Utqiagvik"}, {"text": "Alaska"}]
    assert ("$[1].content[1]", "content_degraded") in {(loss.path, loss.kind) for loss in converted.losses}


@pytest.mark.parametrize(
    "part",
    [{"toolCall": {"id": "a b", "toolType": "GOOGLE_SEARCH_WEB"}}, {"toolResponse": {"id": "", "response": {}}}],
    ids=["an id with a space", "an empty id"],
)
def test_a_part_with_an_id_no_block_holds_stays_its_json_block_and_the_reply_reads(part):
    """A reply is never refused for it: the part is kept verbatim, as before Gemini 3, and goes back as it came."""
    reply = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]}
    (block,) = gemini.from_response(reply).message.content
    assert (type(block), block.metadata["gemini/part"]) == (cb.JsonBlock, next(iter(part)))
    history = cb.Conversation(messages=[cb.Message(role="user", content="go"), gemini.from_response(reply).message])
    converted = gemini.to_provider(history, strict=True)
    assert converted.payload["contents"][1]["parts"] == [part]


@pytest.mark.parametrize("target", sorted(WRITERS))
def test_every_cell_of_the_matrix(target):
    """Gemini takes its parts back; a framework holds them in its provider-run form; any other provider drops the
    call and reads the response as JSON text. No target but Gemini gets the call's thought signature."""
    converted = WRITERS[target](_history())
    kinds = {(loss.path, loss.kind) for loss in converted.losses}
    text = json.dumps(converted.payload, default=str, ensure_ascii=False)
    assert "Utqiagvik, Alaska" in text
    if target == "gemini":
        assert kinds == set()
        assert SIGNATURE in text
        return
    assert SIGNATURE not in text
    if target in FRAMEWORKS:  # neutral holders: the framework's own provider-run forms, whoever ran the tool
        at = {"$[1].content[0]", "$[1].content[1]"}
        assert not {kind for path, kind in kinds if path in at} & {"content_dropped", "content_degraded"}
        return
    assert ("$[1].content[0]", "content_dropped") in kinds
    assert ("$[1].content[1]", "content_degraded") in kinds
