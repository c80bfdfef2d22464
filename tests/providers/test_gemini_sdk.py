"""The Gemini adapter meets google-genai: its objects and every dump form of them, replies, errors and bytes."""

from __future__ import annotations

import enum
import json
import typing
from typing import Any

import pytest
from hypothesis import given

import contentblocks as cb
from contentblocks import strategies
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, gemini
from contentblocks.providers._shapes import BOOL, BYTES, FLOAT, INT, OBJECT, STR, ListOf, Struct
from contentblocks.providers.gemini import _wire
from provider_checks import examples
from providers.test_gemini import validate

t = pytest.importorskip("google.genai.types")
pydantic = pytest.importorskip("pydantic")


def sdk_response() -> Any:
    """A response built with the SDK's own types, holding every part kind a reply carries."""
    parts = [
        t.Part(text="Je réfléchis.", thought=True, thought_signature=b"\xfb\xff\xfe sig"),
        t.Part(text="Zürich: 21 °C", video_metadata=t.VideoMetadata(fps=2.0)),
        t.Part(
            function_call=t.FunctionCall(id="c1", name="weather", args={"city": "Zürich", "n": None}),
            thought_signature=b"\xff\xfe",
        ),
        t.Part(function_call=t.FunctionCall(name="clock", args={})),
        t.Part(inline_data=t.Blob(mime_type="image/png", data=b"\x89PNG\xfb\xff")),
        t.Part(executable_code=t.ExecutableCode(code="print(1)", language=t.Language.PYTHON)),
        t.Part(code_execution_result=t.CodeExecutionResult(outcome=t.Outcome.OUTCOME_OK, output="1\n")),
        t.Part(tool_call=t.ToolCall(id="tc", tool_type="GOOGLE_SEARCH_WEB", args={"q": "Zürich"})),
    ]
    grounding = t.GroundingMetadata(
        grounding_chunks=[t.GroundingChunk(web=t.GroundingChunkWeb(uri="https://example.com/z", title="Wetter"))],
        grounding_supports=[
            t.GroundingSupport(
                segment=t.Segment(part_index=1, start_index=9, end_index=15), grounding_chunk_indices=[0]
            )
        ],
    )
    usage = t.GenerateContentResponseUsageMetadata(
        prompt_token_count=12,
        candidates_token_count=30,
        cached_content_token_count=4,
        thoughts_token_count=7,
        total_token_count=49,
        prompt_tokens_details=[t.ModalityTokenCount(modality=t.MediaModality.TEXT, token_count=12)],
    )
    candidate = t.Candidate(
        content=t.Content(role="model", parts=parts), finish_reason=t.FinishReason.STOP, grounding_metadata=grounding
    )
    return t.GenerateContentResponse(
        candidates=[candidate], model_version="gemini-2.5-pro-001", response_id="resp-7", usage_metadata=usage
    )


def dump_forms(obj: Any) -> dict[str, Any]:
    """The object and every dict form google-genai gives of it."""
    return {
        "object": obj,
        "to_json_dict": obj.to_json_dict(),
        "model_dump": obj.model_dump(),
        "model_dump_json_mode": obj.model_dump(mode="json"),
        "model_dump_by_alias": obj.model_dump(by_alias=True),
        "model_dump_json_mode_by_alias": obj.model_dump(mode="json", by_alias=True),
        "model_dump_json_text": json.loads(obj.model_dump_json()),
        "model_dump_json_text_by_alias_no_nulls": json.loads(obj.model_dump_json(by_alias=True, exclude_none=True)),
    }


@pytest.mark.parametrize("form", list(dump_forms(sdk_response())))
def test_every_dump_form_reads_the_same_reply(form):
    """The SDK object and each of its dump forms (snake_case or camelCase, bytes or base64) read to one reply."""
    assert gemini.from_response(dump_forms(sdk_response())[form]) == gemini.from_response(sdk_response())


def test_snake_case_dumps_are_read_for_what_they_are():
    """``to_json_dict()`` gives tool calls, the thought signature, the stop reason, model and id: nothing lost."""
    reply = gemini.from_response(sdk_response().to_json_dict())
    thought, text, call, clock, image, code, result, server_call, *search = reply.message.content
    assert [b.tool_name for b in search] == ["google_search", "google_search"]  # grounding, after the parts
    assert thought.signature == "+//+IHNpZw=="  # standard base64, whatever alphabet the dump used
    assert (call.tool_call_id, call.tool_name, call.input) == ("c1", "weather", {"city": "Zürich", "n": None})
    assert call.metadata["gemini/thought_signature"] == "//4="
    assert (clock.tool_call_id, clock.metadata["gemini/generated_id"]) == ("gemini_call_resp-7_3", True)
    assert image.source == cb.BytesSource(data=b"\x89PNG\xfb\xff")
    assert (code.tool_name, code.input) == ("code_execution", {"code": "print(1)", "language": "PYTHON"})
    assert (result.tool_call_id, type(result)) == (code.tool_call_id, cb.ServerToolResultBlock)
    assert (type(server_call), server_call.tool_call_id, server_call.tool_name) == (
        cb.ServerToolCallBlock, "tc", "web_search"
    )
    assert (server_call.input, server_call.metadata["gemini/toolType"]) == ({"q": "Zürich"}, "GOOGLE_SEARCH_WEB")
    assert text.metadata["gemini/videoMetadata"] == {"fps": 2.0}
    assert [text.text[c.start : c.end] for c in text.citations] == ["21 °C"]
    assert (reply.stop_reason, reply.provider_stop_reason) == ("tool_use", "STOP")
    assert (reply.model, reply.response_id, reply.provider) == ("gemini-2.5-pro-001", "resp-7", "gemini")
    assert thought.metadata[ISSUER_KEY] == "gemini/gemini-2.5-pro"


def test_usage_is_mapped_and_kept_raw():
    """Token counts map to the neutral names, and the raw usage is the camelCase object whatever the dump form."""
    usage = gemini.from_response(sdk_response().model_dump()).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        12,
        30,
        4,
        None,
    )
    assert (usage.reasoning_tokens, usage.total_tokens) == (7, 49)
    assert usage.raw["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": 12}]
    newer = gemini.from_response({"candidates": [], "usageMetadata": {"promptTokenCount": 1, "futureTokenCount": 2}})
    assert newer.usage.raw == {"promptTokenCount": 1, "futureTokenCount": 2}


def test_an_sdk_reply_goes_back_unchanged_with_no_loss():
    """The reply's message sent back to Gemini reports no loss of any kind, and the SDK reads it as the same content."""
    response = sdk_response()
    reply = gemini.from_response(response)
    assert reply.message.metadata == {}
    history = cb.Conversation(messages=[cb.Message(role="user", content="Wetter?"), reply.message])
    for issuer in (None, "gemini/gemini-2.5-pro"):
        converted = gemini.to_provider(history, issuer=issuer, strict=LOSS_KINDS)
        validate(converted.payload)
        assert t.Content.model_validate(converted.payload["contents"][1]) == response.candidates[0].content


def sdk_history() -> list[Any]:
    """A stored history of SDK ``Content`` objects: a question, a reply with calls, and the calls' answers."""
    return [
        t.Content(role="user", parts=[t.Part(text="Wetter?")]),
        sdk_response().candidates[0].content,
        t.Content(role="user", parts=[t.Part.from_function_response(name="weather", response={"output": "21 °C"})]),
    ]


@pytest.mark.parametrize("form", list(dump_forms(t.Content(parts=[t.Part(text="x")]))))
def test_sdk_contents_read_as_the_rest_json(form):
    """``from_provider`` takes SDK ``Content`` objects, or any dump form of them, in a list or a request, like JSON."""
    history = [dump_forms(content)[form] for content in sdk_history()]
    system = dump_forms(t.Content(parts=[t.Part(text="Sois bref.")]))[form]
    as_json = [json.loads(c.model_dump_json(by_alias=True, exclude_none=True)) for c in sdk_history()]
    expected = gemini.from_provider({"systemInstruction": {"parts": [{"text": "Sois bref."}]}, "contents": as_json})
    assert gemini.from_provider({"system_instruction": system, "contents": history}) == expected
    assert gemini.from_provider(history) == gemini.from_provider({"contents": as_json})


def test_signatures_and_data_read_in_either_base64_alphabet():
    """The REST wire's standard base64 and the SDK dump's URL-safe base64 read as one standard text."""
    standard = {"contents": [{"role": "model", "parts": [{"text": "x", "thoughtSignature": "+//+"}]}]}
    urlsafe = {"contents": [{"role": "model", "parts": [{"text": "x", "thought_signature": "-__-"}]}]}
    assert gemini.from_provider(standard) == gemini.from_provider(urlsafe)
    mixed = {"contents": [{"role": "model", "parts": [{"text": "x", "thoughtSignature": "+__-"}]}]}
    with pytest.raises(cb.ValidationError, match="mixing the standard and URL-safe"):
        gemini.from_provider(mixed)
    unpadded = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "+/8"}}]}]}
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_provider(unpadded)
    assert info.value.errors[0][0] == "$.contents[0].parts[0].inlineData.data"


def test_explicit_nulls_are_absent_fields():
    """``null`` for an optional field (as ``model_dump()`` writes every unset one) reads as if it were not there."""
    nulls = {
        "contents": [{"role": "user", "parts": [{"text": "x", "thought": None, "inlineData": None}]}],
        "systemInstruction": None,
    }
    assert gemini.from_provider(nulls) == gemini.from_provider(
        {"contents": [{"role": "user", "parts": [{"text": "x"}]}]}
    )


@pytest.mark.parametrize(
    ("response", "path", "message"),
    [
        (
            {"candidates": [{"content": {"parts": [{"text": "a", "functionCall": {"name": "f"}}]}}]},
            "$.candidates[0].content.parts[0]",
            "a part holds one kind of content; this one holds text and functionCall",
        ),
        (
            {"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]},
            "$.candidates[0].content.parts[0].functionCall.name",
            "required field missing",
        ),
        (
            {"candidates": [{"content": {"parts": [{"futurePart": {"x": 1}}]}}]},
            "$.candidates[0].content.parts[0].futurePart",
            "unknown key (a Part has: text, inlineData, ...)",
        ),
        (
            {"candidates": [{"content": {"parts": [{"inlineData": {"data": "AA=="}}]}}]},
            "$.candidates[0].content.parts[0].inlineData.mimeType",
            "required field missing",
        ),
        (
            {"candidates": [{"content": {"parts": [{"functionResponse": {"name": "f", "response": {}}}]}}]},
            "$.candidates[0].content.parts[0].functionResponse",
            "answers no earlier functionCall",
        ),
        (
            {"candidates": [{"content": {"parts": [{"thought": True}]}}]},
            "$.candidates[0].content.parts[0]",
            "a part with no content (it needs one of text, inlineData, ...)",
        ),
        (
            {"candidates": [{"content": {"parts": [{"text": 5}]}}]},
            "$.candidates[0].content.parts[0].text",
            "expected a string",
        ),
        ({"candidates": [{"finishReason": 3}]}, "$.candidates[0].finishReason", "expected a string"),
        ({"candidates": "none"}, "$.candidates", "expected an array"),
        ({"usageMetadata": {"promptTokenCount": "3"}}, "$.usageMetadata.promptTokenCount", "expected an integer"),
        (
            {"usageMetadata": {"promptTokenCount": -3}},
            "$.usageMetadata.promptTokenCount",
            "expected a non-negative integer",
        ),
        (
            {"candidates": [{"content": {"parts": [{"fileData": {"mimeType": "image/png", "fileUri": ""}}]}}]},
            "$.candidates[0].content.parts[0].fileData.fileUri",
            "must not be empty",
        ),
    ],
)
def test_malformed_responses_name_the_response_path(response, path, message):
    """A malformed response raises ValidationError at the response's own path, saying what is wrong."""
    with pytest.raises(cb.ValidationError) as info:
        gemini.from_response(response)
    ((got_path, got_message),) = info.value.errors
    assert got_path == path
    assert got_message == message or (message.endswith("...)") and got_message.startswith(message[:-5]))


def test_empty_replies_have_no_message():
    """A blocked prompt, a candidate without content and one with no parts give no message, with their reason."""
    blocked = gemini.from_response(
        t.GenerateContentResponse(
            prompt_feedback=t.GenerateContentResponsePromptFeedback(block_reason=t.BlockedReason.SAFETY)
        )
    )
    assert (blocked.message, blocked.stop_reason, blocked.provider_stop_reason) == (None, "content_filter", "SAFETY")
    filtered = gemini.from_response({"candidates": [{"finishReason": "SAFETY"}]})
    assert (filtered.message, filtered.stop_reason) == (None, "content_filter")
    empty = gemini.from_response({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]})
    assert (empty.message, empty.stop_reason) == (None, "end_turn")
    streaming = gemini.from_response({"candidates": [{"content": {"parts": [{"text": "Hel"}]}}]})
    assert (streaming.message.content[0].text, streaming.stop_reason, streaming.provider_stop_reason) == (
        "Hel",
        None,
        None,
    )


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        ("STOP", "end_turn"),
        ("MAX_TOKENS", "max_tokens"),
        ("CONTINUATION", "max_tokens"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("MISSING_THOUGHT_SIGNATURE", "error"),
        ("OTHER", "other"),
        ("LANGUAGE", "other"),
        ("SOMETHING_NEW", "other"),
    ],
)
def test_finish_reasons_map_to_the_neutral_vocabulary(finish, expected):
    """Each ``finishReason`` has its neutral word, an unknown one is ``other``, and the provider's value is kept."""
    reply = gemini.from_response({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": finish}]})
    assert (reply.stop_reason, reply.provider_stop_reason) == (expected, finish)


def test_other_candidates_are_read_by_index():
    """``candidate=`` picks a candidate; one past the end is refused, as is an index that is not one."""
    response = {"candidates": [{"content": {"parts": [{"text": "a"}]}}, {"content": {"parts": [{"text": "b"}]}}]}
    assert gemini.from_response(response, candidate=1).message.content[0].text == "b"
    with pytest.raises(cb.ValidationError, match="no candidate 2"):
        gemini.from_response(response, candidate=2)
    with pytest.raises(ValueError, match="non-negative integer"):
        gemini.from_response(response, candidate=-1)


_SCALARS = {str: STR, bool: BOOL, int: INT, float: FLOAT, bytes: BYTES}


def _kind_of(annotation: Any) -> Any:
    """The table kind of a field annotation of the SDK (Optional removed)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        return _kind_of(args[0])
    if origin is list:
        return ("list", _kind_of(args[0]))
    if origin is dict:
        return OBJECT
    if origin is typing.Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        return STR
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return {k: _kind_of(v.annotation) for k, v in annotation.model_fields.items()}
    return _SCALARS[annotation]


def _table_kind(kind: Any) -> Any:
    if isinstance(kind, Struct):
        return {_snake(k): _table_kind(v) for k, v in kind.fields.items()}
    if isinstance(kind, ListOf):
        return ("list", _table_kind(kind.item))
    return kind


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


@pytest.mark.parametrize(
    ("table", "model"),
    [(_wire.CONTENT, "Content"), (_wire.USAGE, "GenerateContentResponseUsageMetadata")],
)
def test_the_tables_are_the_sdk_types(table, model):
    """The adapter's field tables hold exactly the fields (and kinds) of google-genai's models, all the way down."""
    assert _table_kind(table) == _kind_of(getattr(t, model))


@examples(30)
@given(strategies.conversations(max_messages=4, max_text_size=12, max_binary_size=8))
def test_generated_sdk_replies_go_back_with_no_loss(conversation):
    """Any model content, as an SDK response, reads to a reply that goes back to Gemini unchanged and loses nothing."""
    for content in gemini.to_provider(conversation).payload["contents"]:
        if content["role"] != "model":
            continue
        sdk_content = t.Content.model_validate(content)
        response = t.GenerateContentResponse(
            candidates=[t.Candidate(content=sdk_content, finish_reason="STOP")], model_version="gemini-2.5-pro"
        )
        reply = gemini.from_response(response.to_json_dict())
        history = cb.Conversation(messages=[cb.Message(role="user", content="?"), reply.message])
        converted = gemini.to_provider(history, issuer="gemini/gemini-2.5-pro", strict=LOSS_KINDS)
        assert t.Content.model_validate(converted.payload["contents"][1]) == sdk_content
