"""Gemini calls without ids and parallel answers: generated ids never sent, pairing kept by order and name."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, gemini, openai_chat
from provider_checks import examples
from providers.test_gemini import validate
from providers.test_gemini_sdk import dump_forms

t = pytest.importorskip("google.genai.types")


def sdk_calls(*cities: str, response_id: str = "r-1") -> Any:
    """A reply with one ``weather`` call per city, none with an id (what Gemini usually sends)."""
    parts = [t.Part(function_call=t.FunctionCall(name="weather", args={"city": city})) for city in cities]
    candidate = t.Candidate(content=t.Content(role="model", parts=parts), finish_reason=t.FinishReason.STOP)
    return t.GenerateContentResponse(candidates=[candidate], model_version="gemini-2.5-flash", response_id=response_id)


def answer(call: cb.Block, text: str | None = None) -> cb.ToolResultBlock:
    """The result for ``call`` built as the docs show (no metadata copied from the call)."""
    assert isinstance(call, cb.ToolCallBlock)
    content = [cb.TextBlock(text=text or f"21 °C in {call.input['city']}")]
    return cb.ToolResultBlock(
        tool_call_id=call.tool_call_id, tool_name=call.tool_name, outcome="succeeded", content=content
    )


def answer_n(call: cb.Block) -> cb.ToolResultBlock:
    """The result for ``call`` naming the ``n`` of its input."""
    assert isinstance(call, cb.ToolCallBlock)
    return answer(call, f"answer {call.input['n']}")


def history(response: Any, *results: cb.ToolResultBlock, split: bool = False) -> cb.Conversation:
    """Question, the reply's message and the results (one tool message, or one per result with ``split``)."""
    reply = gemini.from_response(response)
    assert reply.message is not None
    tools = (
        [cb.Message(role="tool", content=[r]) for r in results] if split else [cb.Message(role="tool", content=results)]
    )
    return cb.Conversation(messages=[cb.Message(role="user", content="Wetter?"), reply.message, *tools])


def parts(payload: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p[kind] for c in payload["contents"] for p in c["parts"] if kind in p]


@pytest.mark.parametrize("form", list(dump_forms(sdk_calls("Zürich"))))
def test_an_answer_to_a_call_without_id_is_sent_without_id(form):
    """Answering an id-less SDK call as the docs show sends neither id, with no loss, and the SDK takes it."""
    response = dump_forms(sdk_calls("Zürich"))[form]
    call = gemini.from_response(response).message.content[0]
    conversation = history(response, answer(call))
    converted = gemini.to_provider(conversation, strict=LOSS_KINDS)
    assert converted.losses == ()
    validate(converted.payload)
    assert parts(converted.payload, "functionCall") == [{"name": "weather", "args": {"city": "Zürich"}}]
    assert parts(converted.payload, "functionResponse") == [
        {"name": "weather", "response": {"output": "21 °C in Zürich"}}
    ]
    assert gemini.preflight(conversation, require_signatures=False) == ()


def test_the_request_reads_back_paired_and_writes_the_same():
    """``from_provider`` of that request pairs each response with its call and writes the same request again."""
    response = sdk_calls("Zürich", "Paris")
    calls = gemini.from_response(response).message.content
    payload = gemini.to_provider(history(response, *(answer(c) for c in calls))).payload
    back = gemini.from_provider(payload)
    read_calls, read_results = back[1].content, back[2].content
    assert [r.tool_call_id for r in read_results] == [c.tool_call_id for c in read_calls]
    assert [r.content[0].text for r in read_results] == ["21 °C in Zürich", "21 °C in Paris"]
    assert all(b.metadata["gemini/generated_id"] is True for b in (*read_calls, *read_results))
    assert gemini.preflight(back) == ()
    again = gemini.to_provider(back, strict=LOSS_KINDS)
    assert (again.payload, again.losses) == (payload, ())
    t.GenerateContentConfig.model_validate({"system_instruction": {"parts": [{"text": "x"}]}})
    for content in payload["contents"]:
        assert t.Content.model_validate(content).parts


def test_answers_out_of_order_are_sent_in_the_order_of_the_calls():
    """Same-name calls without ids answered in another order go in call order (Gemini pairs them by order)."""
    response = sdk_calls("Zürich", "Paris")
    zurich, paris = gemini.from_response(response).message.content
    converted = gemini.to_provider(history(response, answer(paris), answer(zurich)))
    texts = [r["response"]["output"] for r in parts(converted.payload, "functionResponse")]
    assert texts == ["21 °C in Zürich", "21 °C in Paris"]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[2].content[0]", "order_changed"),
        ("$[2].content[1]", "order_changed"),
    ]
    split = gemini.to_provider(history(response, answer(paris), answer(zurich), split=True))
    assert split.payload == converted.payload
    assert [loss.path for loss in split.losses] == ["$[2].content[0]", "$[3].content[0]"]
    back = gemini.from_provider(converted.payload)
    assert [(r.tool_call_id, r.content[0].text) for r in back[2].content] == [
        (back[1].content[0].tool_call_id, "21 °C in Zürich"),
        (back[1].content[1].tool_call_id, "21 °C in Paris"),
    ]


def test_answers_with_ids_keep_their_order():
    """Calls Gemini gave ids are answered by id: their responses keep the order they were given in."""
    calls = [cb.ToolCallBlock(tool_call_id=c, tool_name="weather", input={"city": c}) for c in ("a", "b")]
    conversation = cb.Conversation(
        messages=[
            cb.Message(role="user", content="Wetter?"),
            cb.Message(role="assistant", content=calls),
            cb.Message(role="tool", content=[answer(calls[1]), answer(calls[0])]),
        ]
    )
    converted = gemini.to_provider(conversation, strict=LOSS_KINDS)
    assert [r["id"] for r in parts(converted.payload, "functionResponse")] == ["b", "a"]


def test_a_response_id_answering_a_call_without_one_is_read():
    """A request an earlier version wrote (call without id, response with the call's generated id) still reads."""
    payload = {
        "contents": [
            {"role": "user", "parts": [{"text": "Wetter?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Zürich"}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"id": "gemini_call_r-1_0", "name": "weather", "response": {}}}],
            },
        ]
    }
    conversation = gemini.from_provider(payload)
    (call,), (result,) = conversation[1].content, conversation[2].content
    assert result.tool_call_id == call.tool_call_id
    assert "id" not in parts(gemini.to_provider(conversation).payload, "functionResponse")[0]


def test_a_broken_pairing_is_named_by_preflight():
    """A call left unanswered, or answered a turn late, gets a preflight message naming the call and the rule."""
    response = sdk_calls("Zürich", "Paris")
    zurich, paris = gemini.from_response(response).message.content
    late = list(gemini.preflight(history(response, answer(paris))))
    assert [(r.path, r.rule) for r in late] == [("$[2]", "gemini/answer-every-call")]
    assert zurich.tool_call_id in late[0].message
    assert "not answered" in late[0].message


def test_parallel_results_as_separate_tool_messages_are_one_content():
    """One tool message per result, as a Chat history reads, is written as one content that Gemini accepts."""
    chat = [
        {"role": "user", "content": "Wetter in Zürich und Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{c[:3].lower()}",
                    "type": "function",
                    "function": {"name": "weather", "arguments": f'{{"city":"{c}"}}'},
                }
                for c in ("Zürich", "Paris")
            ],
        },
        {"role": "tool", "tool_call_id": "call_zür", "content": "21 °C"},
        {"role": "tool", "tool_call_id": "call_par", "content": "18 °C"},
        {"role": "user", "content": "Danke!"},
    ]
    conversation = openai_chat.from_provider({"messages": chat})
    assert [m.role for m in conversation] == ["user", "assistant", "tool", "tool", "user"]
    assert gemini.preflight(conversation) == ()
    converted = gemini.to_provider(conversation)
    validate(converted.payload)
    contents = converted.payload["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user", "user"]
    assert [p["functionResponse"]["id"] for p in contents[2]["parts"]] == ["call_zür", "call_par"]
    back = gemini.from_provider(converted.payload)
    assert [len(m.content) for m in back] == [1, 2, 2, 1]


@examples(60)
@given(
    names=st.lists(st.sampled_from(["weather", "clock"]), min_size=1, max_size=5),
    data=st.data(),
    split=st.booleans(),
)
def test_id_less_calls_answered_in_any_order_read_back_paired(names, data, split):
    """Id-less calls answered in any order, in one tool message or one each, read back with each result's call."""
    parts_ = [t.Part(function_call=t.FunctionCall(name=name, args={"n": n})) for n, name in enumerate(names)]
    sdk = t.GenerateContentResponse(
        candidates=[t.Candidate(content=t.Content(role="model", parts=parts_), finish_reason=t.FinishReason.STOP)],
        response_id="r-3",
    )
    calls = gemini.from_response(sdk).message.content
    order = data.draw(st.permutations(range(len(calls))))
    results = [answer_n(calls[k]) for k in order]
    conversation = history(sdk, *results, split=split)
    assert gemini.preflight(conversation) == ()
    converted = gemini.to_provider(conversation)
    assert not any(
        "id" in p for p in parts(converted.payload, "functionCall") + parts(converted.payload, "functionResponse")
    )
    back = gemini.from_provider(converted.payload)
    by_id = {c.tool_call_id: c for c in back[1].content}
    assert sorted((by_id[r.tool_call_id].input["n"], r.content[0].text) for r in back[2].content) == [
        (n, f"answer {n}") for n in range(len(names))
    ]
    assert {loss.kind for loss in converted.losses} <= {"order_changed"}
