"""Every kind of reply Gemini documents reads (never refused whole); keys given twice and errors are refused."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import LOSS_KINDS, gemini
from providers.test_gemini import validate
from providers.test_gemini_sdk import dump_forms

t = pytest.importorskip("google.genai.types")

HUGE = 123456789012345678901234567890  # a 30-digit order number: beyond the wire format's 64-bit integers


def candidate(*parts: Any, finish: Any = t.FinishReason.STOP, **fields: Any) -> Any:
    content = t.Content(role="model", parts=list(parts)) if parts else None
    return t.Candidate(content=content, finish_reason=finish, **fields)


def response(*candidates: Any, **fields: Any) -> Any:
    return t.GenerateContentResponse(
        candidates=list(candidates) or None, model_version="gemini-2.5-flash", response_id="r-9", **fields
    )


#: Each documented odd-but-legal reply, built with the SDK's types, and what it reads as: the kinds of the
#: message's blocks (``None``: no message), the stop reason and the provider's.
ODD_REPLIES: dict[str, tuple[Any, list[str] | None, str | None, str | None]] = {
    "blocked prompt, no candidates": (
        response(
            prompt_feedback=t.GenerateContentResponsePromptFeedback(
                block_reason=t.BlockedReason.PROHIBITED_CONTENT, block_reason_message="Blocked."
            )
        ),
        None,
        "content_filter",
        "PROHIBITED_CONTENT",
    ),
    "blocked prompt, reason OTHER": (
        response(prompt_feedback=t.GenerateContentResponsePromptFeedback(block_reason=t.BlockedReason.OTHER)),
        None,
        "other",
        "OTHER",
    ),
    "empty response": (response(), None, None, None),
    "safety stop, candidate without content": (
        response(
            candidate(
                finish=t.FinishReason.SAFETY,
                safety_ratings=[
                    t.SafetyRating(
                        category=t.HarmCategory.HARM_CATEGORY_DANGEROUS_CONTENT,
                        probability=t.HarmProbability.HIGH,
                        blocked=True,
                    )
                ],
            )
        ),
        None,
        "content_filter",
        "SAFETY",
    ),
    "recitation stop, content without parts": (
        response(t.Candidate(content=t.Content(role="model"), finish_reason=t.FinishReason.RECITATION)),
        None,
        "content_filter",
        "RECITATION",
    ),
    "recitation with citations of no URI": (
        response(
            candidate(
                t.Part(text="To be, or not to be"),
                finish=t.FinishReason.RECITATION,
                citation_metadata=t.CitationMetadata(citations=[t.Citation(start_index=0, end_index=5, license="pd")]),
            )
        ),
        ["text"],
        "content_filter",
        "RECITATION",
    ),
    "malformed function call": (
        response(candidate(finish=t.FinishReason.MALFORMED_FUNCTION_CALL, finish_message="Malformed function call")),
        None,
        "error",
        "MALFORMED_FUNCTION_CALL",
    ),
    "empty content with STOP": (
        response(t.Candidate(content=t.Content(role="model", parts=[]), finish_reason=t.FinishReason.STOP)),
        None,
        "end_turn",
        "STOP",
    ),
    "empty text part": (response(candidate(t.Part(text=""))), ["json"], "end_turn", "STOP"),
    "signature on an empty text (Gemini 3)": (
        response(candidate(t.Part(text="Fertig."), t.Part(text="", thought_signature=b"sig"))),
        ["text", "reasoning"],
        "end_turn",
        "STOP",
    ),
    "signature alone": (response(candidate(t.Part(thought_signature=b"sig"))), ["reasoning"], "end_turn", "STOP"),
    "length cut-off": (
        response(candidate(t.Part(text="Es war einmal"), finish=t.FinishReason.MAX_TOKENS)),
        ["text"],
        "max_tokens",
        "MAX_TOKENS",
    ),
    "thoughts only, cut off": (
        response(candidate(t.Part(text="Hmm", thought=True), finish=t.FinishReason.MAX_TOKENS)),
        ["reasoning"],
        "max_tokens",
        "MAX_TOKENS",
    ),
    "content without a role": (
        response(t.Candidate(content=t.Content(parts=[t.Part(text="Hallo")]), finish_reason=t.FinishReason.STOP)),
        ["text"],
        "end_turn",
        "STOP",
    ),
    "unspecified finish reason": (
        response(candidate(t.Part(text="x"), finish=t.FinishReason.FINISH_REASON_UNSPECIFIED)),
        ["text"],
        "other",
        "FINISH_REASON_UNSPECIFIED",
    ),
    "huge integer in call args": (
        response(candidate(t.Part(function_call=t.FunctionCall(name="order", args={"number": HUGE})))),
        ["tool_call"],
        "tool_use",
        "STOP",
    ),
}


@pytest.mark.parametrize("name", list(ODD_REPLIES))
def test_every_documented_odd_reply_reads(name):
    """Each odd but legal reply reads in every dump form, to the message, stop reason and provider reason listed."""
    sdk, kinds, stop, provider_stop = ODD_REPLIES[name]
    for form, value in dump_forms(sdk).items():
        reply = gemini.from_response(value)
        got = None if reply.message is None else [cb.unstructure(b)["type"] for b in reply.message.content]
        assert (got, reply.stop_reason, reply.provider_stop_reason) == (kinds, stop, provider_stop), form


@pytest.mark.parametrize("level", ["response", "candidate", "promptFeedback"])
@pytest.mark.parametrize("same", [False, True])
def test_a_key_given_under_both_names_is_refused(level, same):
    """``finishReason`` and ``finish_reason`` (or another key in both spellings) together are refused with a path."""
    if level == "response":
        raw: dict[str, Any] = {"modelVersion": "gemini-2.5-flash", "model_version": "gemini-2.5-flash" if same else "x"}
        path, wire = "$.model_version", "modelVersion"
    elif level == "candidate":
        raw = {"candidates": [{"finishReason": "STOP", "finish_reason": "STOP" if same else "SAFETY"}]}
        path, wire = "$.candidates[0].finish_reason", "finishReason"
    else:
        raw = {"promptFeedback": {"blockReason": "SAFETY", "block_reason": "SAFETY" if same else "OTHER"}}
        path, wire = "$.promptFeedback.block_reason", "blockReason"
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_response(raw)
    assert info.value.errors == [(path, f"the field {wire} is given twice")]


def test_a_null_under_one_name_is_an_absent_field():
    """A key given once and ``null`` under its other name reads as given once."""
    reply = gemini.from_response({"candidates": [{"finishReason": "STOP", "finish_reason": None}]})
    assert reply.provider_stop_reason == "STOP"


def test_an_error_body_is_refused_not_read_as_an_empty_reply():
    """The API's error body (``{"error": {...}}``) is not a reply: it is refused at ``$.error``."""
    body = {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_response(body)
    ((path, message),) = info.value.errors
    assert path == "$.error"
    assert "RESOURCE_EXHAUSTED" in message


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({"number": HUGE, "item": "Tisch"}, f'{{"item":"Tisch","number":{HUGE}}}'),
        ({"x": float("inf"), "y": [float("-inf")]}, '{"x":Infinity,"y":[-Infinity]}'),
    ],
)
def test_call_args_beyond_json_values_are_kept_raw(args, text):
    """Args the wire format cannot hold are the call's input as their JSON text, flagged, and go back verbatim."""
    raw = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "Ich bestelle."}, {"functionCall": {"name": "order", "args": args}}],
                },
                "finishReason": "STOP",
            }
        ]
    }
    for value in (raw, json.loads(json.dumps(raw))):
        reply = gemini.from_response(value)
        text_block, call = reply.message.content
        assert (text_block.text, reply.stop_reason) == ("Ich bestelle.", "tool_use")
        assert (call.input, call.metadata["openai/invalid_arguments"]) == (text, True)
        conversation = cb.Conversation(messages=[cb.Message(role="user", content="Bestell!"), reply.message])
        converted = gemini.to_provider(conversation, strict=LOSS_KINDS)
        assert converted.losses == ()
        assert converted.payload["contents"][1]["parts"][1]["functionCall"]["args"] == args


def test_sdk_call_args_with_a_huge_integer_round_trip():
    """An SDK reply whose call holds a 30-digit integer reads, and the request it makes validates in the SDK."""
    sdk = response(candidate(t.Part(function_call=t.FunctionCall(id="c1", name="order", args={"number": HUGE}))))
    reply = gemini.from_response(sdk)
    answer = cb.ToolResultBlock(
        tool_call_id="c1", tool_name="order", outcome="succeeded", content=[cb.TextBlock(text="ok")]
    )
    conversation = cb.Conversation(
        messages=[cb.Message(role="user", content="Bestell!"), reply.message, cb.Message(role="tool", content=[answer])]
    )
    converted = gemini.to_provider(conversation, strict=LOSS_KINDS)
    validate(converted.payload)
    assert t.Content.model_validate(converted.payload["contents"][1]).parts[0].function_call.args == {"number": HUGE}
    assert gemini.from_provider(converted.payload) == conversation


def test_args_refused_for_another_reason_name_the_args():
    """Args the block refuses for another reason (a lone surrogate) are reported at the member that holds it."""
    raw = {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"q": "\ud800", "n": HUGE}}}]}}]
    }
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_response(raw)
    args = "$.candidates[0].content.parts[0].functionCall.args"
    assert sorted(path for path, _ in info.value.errors) == [f"{args}.n", f"{args}.q"]
    raw["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] = {"q": "\ud800"}
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_response(raw)
    assert [path for path, _ in info.value.errors] == ["$.candidates[0].content.parts[0].functionCall.args.q"]
