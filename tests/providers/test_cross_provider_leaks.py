"""Provider-run items and provider bookkeeping never leak to another provider (issue 30, items 5 and 23).

A generated image is a file block; another provider's run items (searches, code runs) and its encrypted state are
dropped and reported as ``state_not_replayed``, never pasted into the next model's prompt as JSON text; ids and
statuses only their issuer uses are not reported as losses at all.
"""

from __future__ import annotations

import base64
import json

import anthropic as anthropic_sdk
import pytest
from openai.types.responses import Response

import contentblocks as cb
from contentblocks.providers import (
    AGENT_LOOP_STRICT,
    LOSS_KINDS,
    LossError,
    anthropic,
    gemini,
    mcp,
    openai_chat,
    openai_responses,
)

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
ENCRYPTED = "EqcBCioIAhgBIiQ-opaque"


def responses_reply(*output: dict) -> cb.Message:
    """The assistant message of a Responses API response built by the SDK from ``output``."""
    response = Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-5",
            "status": "completed",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": list(output),
        }
    )
    reply = openai_responses.from_response(response)
    assert reply.message is not None
    return reply.message


IMAGE_CALL = {
    "type": "image_generation_call",
    "id": "ig_1",
    "status": "completed",
    "result": base64.b64encode(PNG).decode(),
    "output_format": "png",
    "revised_prompt": "A red cat.",
    "size": "1024x1024",
    "quality": "high",
    "background": "opaque",
}


def test_a_generated_image_is_a_file_block():
    """An ``image_generation_call`` read from the SDK's response is a call OpenAI ran whose result is the PNG file;
    the pair goes back as the item itself (see ``tests/providers/test_responses_server_tools.py``)."""
    message = responses_reply(IMAGE_CALL)
    call, result = message.content
    assert (type(call), type(result)) == (cb.ServerToolCallBlock, cb.ServerToolResultBlock)
    (image,) = result.content
    assert type(image) is cb.FileBlock
    assert (image.media_type, image.source.data) == ("image/png", PNG)
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Draw a cat."), message])
    back = openai_responses.to_provider(conversation, strict=LOSS_KINDS)
    assert back.payload["input"][1:] == [IMAGE_CALL]


@pytest.mark.parametrize("target", [anthropic, gemini])
def test_a_generated_image_goes_to_another_provider_as_an_image(target):
    """Sent elsewhere, the image is an image (its bytes once), not a JSON text block twice its size."""
    conversation = cb.Conversation(
        messages=[cb.Message(role="user", content="Draw a cat."), responses_reply(IMAGE_CALL)]
    )
    converted = target.to_provider(conversation)
    text = json.dumps(converted.payload)
    assert len(text) < len(IMAGE_CALL["result"]) + 1_000
    assert "ig_1" not in text
    assert "image_generation_call" not in text
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].content[0]", "content_dropped"),
        ("$[1].content[1]", "content_degraded"),
        ('$[1].content[1].metadata["openai/server_item"]', "state_not_replayed"),
    ]


def test_an_image_call_without_an_image_is_an_interrupted_run():
    """A call with no result (still generating) is a call with an interrupted, empty result, for OpenAI only."""
    pending = {"type": "image_generation_call", "id": "ig_2", "status": "generating", "result": None}
    call, result = responses_reply(pending).content
    assert (call.tool_call_id, result.outcome, result.content) == ("ig_2", "interrupted", ())
    assert result.metadata["openai/server_item"] == pending


ANTHROPIC_RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5},
    "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://weather.example/paris",
                    "title": "Paris",
                    "encrypted_content": ENCRYPTED,
                    "page_age": None,
                }
            ],
        },
        {"type": "text", "text": "Sunny."},
    ],
}


def anthropic_run_items() -> cb.Message:
    message = anthropic.from_response(anthropic_sdk.types.Message.model_validate(ANTHROPIC_RESPONSE)).message
    assert message is not None
    return message


def responses_run_items() -> cb.Message:
    return responses_reply(
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {
            "type": "search", "query": "q", "sources": [{"type": "url", "url": "https://weather.example/paris"}]}},
        {
            "type": "code_interpreter_call",
            "id": "ci_1",
            "status": "completed",
            "code": "print(1)",
            "container_id": ENCRYPTED,
            "outputs": [{"type": "logs", "logs": "21"}],
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
        },
    )


def gemini_run_items() -> cb.Message:
    reply = gemini.from_response(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"executableCode": {"language": "PYTHON", "code": "print(21)"}},
                            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "21"}},
                            {"text": "Sunny."},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    assert reply.message is not None
    return reply.message


SOURCES = {"anthropic": anthropic_run_items, "openai_responses": responses_run_items, "gemini": gemini_run_items}
TARGETS = {"anthropic": anthropic, "openai_chat": openai_chat, "openai_responses": openai_responses, "gemini": gemini}
MARKERS = (ENCRYPTED, "srvtoolu_1", "ws_1", "ci_1", "web_search", "code_interpreter_call")


@pytest.mark.parametrize(
    ("source", "target"), [(s, t) for s in SOURCES for t in TARGETS if not t.startswith(s.split("_")[0])]
)
def test_run_items_of_one_provider_never_reach_another_as_text(source, target):
    """Another provider's run items never reach a chat writer's payload as text; only readable content travels.

    Items the library keeps verbatim (Responses') are dropped as ``state_not_replayed``. A tool Anthropic or Gemini
    ran is a call, dropped, and a result, sent as its readable content (a search hit's title, a program's
    output); its state (Anthropic's native result with the encrypted content) is reported and never sent.
    """
    message = SOURCES[source]()
    conversation = cb.Conversation(messages=[cb.Message(role="user", content="Weather?"), message])
    converted = TARGETS[target].to_provider(conversation)
    text = json.dumps(converted.payload)
    assert not [marker for marker in MARKERS if marker in text]
    assert "Sunny." in text
    losses = {(loss.path, loss.kind) for loss in converted.losses}
    run_items = [j for j, block in enumerate(message.content) if type(block) is cb.JsonBlock]
    expected = {(f"$[1].content[{j}]", "state_not_replayed") for j in run_items}
    for j, block in enumerate(message.content):
        if type(block) is cb.ServerToolCallBlock:
            expected.add((f"$[1].content[{j}]", "content_dropped"))
        elif type(block) is cb.ServerToolResultBlock:
            expected.add((f"$[1].content[{j}]", "content_degraded"))
            for state in ("anthropic/server_result", "openai/server_item"):
                if state in block.metadata:
                    expected.add((f'$[1].content[{j}].metadata["{state}"]', "state_not_replayed"))
            assert block.content  # the readable parts travel
            assert all(item.text in text for item in block.content)
    assert expected <= losses
    others = losses - expected  # only the readable parts' own losses (a search hit's citation on a plain target)
    assert all(kind == "content_dropped" and ".content[1].content[" in path for path, kind in others)


def test_run_items_never_reach_an_mcp_result():
    """A tool result holding another provider's run item writes no trace of it into the ``CallToolResult``."""
    items = [cb.JsonBlock(value=result.metadata["openai/server_item"], metadata={"openai/input_item": True})
             for result in SOURCES["openai_responses"]().content if type(result) is cb.ServerToolResultBlock]
    result = cb.ToolResultBlock(tool_call_id="call_1", tool_name="t", outcome="succeeded", content=items)
    converted = mcp.to_call_tool_result(result)
    assert converted.payload == {"content": []}
    assert {loss.kind for loss in converted.losses} == {"state_not_replayed"}


def responses_turn() -> cb.Conversation:
    """One Responses turn with reasoning, two provider-run searches, cited text, two calls, and their answers."""
    message = responses_reply(
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Look it up."}, {"type": "summary_text", "text": "Book."}],
            "encrypted_content": "gAAAA-opaque",
        },
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
        {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["paris"], "results": None},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "phase": "commentary",
            "content": [
                {
                    "type": "output_text",
                    "text": "It is sunny in Paris.",
                    "logprobs": [],
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": "https://weather.example/paris",
                            "title": "Paris",
                            "start_index": 0,
                            "end_index": 21,
                        }
                    ],
                }
            ],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "weather",
            "arguments": "{}",
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_2",
            "name": "book",
            "arguments": "{}",
            "status": "completed",
        },
    )
    results = [
        cb.ToolResultBlock(
            tool_call_id="call_1", tool_name="weather", outcome="succeeded", content=[cb.JsonBlock(value={"c": 21})]
        ),
        cb.ToolResultBlock(tool_call_id="call_2", tool_name="book", outcome="denied"),
    ]
    return cb.Conversation(
        messages=[cb.Message(role="user", content="Weather?"), message, cb.Message(role="tool", content=results)]
    )


def test_moving_a_responses_turn_to_anthropic_reports_no_bookkeeping():
    """The turn that reported 15 losses (7 OpenAI ids and statuses) reports none that is an id or a status.

    The two searches OpenAI ran are each a call (dropped) and a result (sent as its content, its item reported as
    state)."""
    converted = anthropic.to_provider(responses_turn())
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[1].content[0]", "state_not_replayed"),
        ("$[1].content[1]", "content_dropped"),
        ("$[1].content[2]", "content_dropped"),
        ("$[1].content[3]", "content_degraded"),
        ('$[1].content[3].metadata["openai/server_item"]', "state_not_replayed"),
        ("$[1].content[4]", "content_dropped"),
        ("$[1].content[5]", "content_degraded"),
        ('$[1].content[5].metadata["openai/server_item"]', "state_not_replayed"),
        ("$[1].content[6].citations[0]", "content_dropped"),
        ('$[1].content[6].metadata["openai/logprobs"]', "metadata_not_sent"),
        ("$[2].content[0].content[0]", "content_degraded"),
        ("$[2].content[1].outcome", "content_degraded"),
    ]


def test_bookkeeping_out_of_place_is_still_reported_to_its_own_adapter():
    """An ``openai/status`` on user text has no place in a Responses request: the Responses writer reports it."""
    text = cb.TextBlock(text="Hi", metadata={"openai/status": "completed", "openai/id": "msg_1"})
    converted = openai_responses.to_provider(cb.Conversation(messages=[cb.Message(role="user", content=[text])]))
    assert sorted(loss.path for loss in converted.losses) == [
        '$[0].content[0].metadata["openai/id"]',
        '$[0].content[0].metadata["openai/status"]',
    ]


def test_another_providers_thought_signature_is_state_not_replayed():
    """A Gemini thought signature kept in metadata is reported as state, not as metadata, by another provider."""
    text = cb.TextBlock(text="Hi", metadata={"gemini/thought_signature": "c2ln", "contentblocks/issuer": "gemini"})
    converted = anthropic.to_provider(cb.Conversation(messages=[cb.Message(role="assistant", content=[text])]))
    assert [loss.kind for loss in converted.losses] == ["state_not_replayed"]


def test_the_agent_loop_strictness_lets_json_and_denials_through():
    """``AGENT_LOOP_STRICT`` sends JSON tool output and denied results; ``strict=True`` raises on them."""
    call = cb.ToolCallBlock(tool_call_id="toolu_1", tool_name="lookup", input={})
    results = [
        cb.ToolResultBlock(
            tool_call_id="toolu_1",
            tool_name="lookup",
            outcome="denied",
            content=[cb.JsonBlock(value={"why": "policy"})],
        )
    ]
    history = cb.Conversation(
        messages=[
            cb.Message(role="user", content="Weather?"),
            cb.Message(role="assistant", content=[call]),
            cb.Message(role="tool", content=results),
        ]
    )
    for module in (anthropic, openai_chat, openai_responses, gemini):
        module.to_provider(history, strict=AGENT_LOOP_STRICT)
        with pytest.raises(LossError):
            module.to_provider(history, strict=True)


def test_the_agent_loop_strictness_raises_when_content_is_dropped():
    """A file the provider cannot take stops the loop under ``AGENT_LOOP_STRICT``."""
    video = cb.FileBlock(media_type="video/mp4", source=cb.BytesSource(data=b"\0\0\0\x18ftypmp42"))
    history = cb.Conversation(messages=[cb.Message(role="user", content=[cb.TextBlock(text="Look."), video])])
    with pytest.raises(LossError):
        anthropic.to_provider(history, strict=AGENT_LOOP_STRICT)
