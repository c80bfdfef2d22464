"""Media types are case-insensitive (RFC 6838): readers lower them, writers compare and send them lower-cased."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import anthropic, gemini, mcp, openai_chat, openai_responses
from contentblocks.providers._media import lower_media_type

PNG = b"\x89PNG\r\n\x1a\n"
PNG64 = "iVBORw0KGgo="


def _asking(block: cb.FileBlock) -> cb.Conversation:
    return cb.Conversation(messages=[cb.Message(role="user", content=[cb.TextBlock(text="What is it?"), block])])


@pytest.mark.parametrize("media_type", ["IMAGE/PNG", "Image/Png", "image/PNG"])
def test_an_upper_case_image_is_written_as_an_image_for_every_provider(media_type):
    """IMAGE/PNG passes every preflight and is written on each provider's image path, type lower-cased."""
    conversation = _asking(cb.FileBlock(media_type=media_type, source=cb.BytesSource(data=PNG)))
    for adapter in (anthropic, openai_chat, openai_responses, gemini):
        assert adapter.preflight(conversation) == (), adapter.__name__
    sent = anthropic.to_provider(conversation)
    assert sent.payload["messages"][0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG64},
    }
    assert sent.losses == ()
    sent = openai_chat.to_provider(conversation)
    part = sent.payload["messages"][0]["content"][1]
    assert (part["type"], part["image_url"]["url"]) == ("image_url", f"data:image/png;base64,{PNG64}")
    assert sent.losses == ()
    sent = openai_responses.to_provider(conversation)
    part = sent.payload["input"][0]["content"][1]
    assert (part["type"], part["image_url"]) == ("input_image", f"data:image/png;base64,{PNG64}")
    assert sent.losses == ()
    sent = gemini.to_provider(conversation)
    part = sent.payload["contents"][0]["parts"][1]
    assert part == {"inlineData": {"mimeType": "image/png", "data": PNG64}}


def test_an_upper_case_image_is_an_mcp_image_item():
    """An IMAGE/PNG file in a tool result is an MCP image item with a lower-case mimeType."""
    result = cb.ToolResultBlock(
        tool_call_id="call_1",
        tool_name="shot",
        outcome="succeeded",
        content=[cb.FileBlock(media_type="IMAGE/PNG", source=cb.BytesSource(data=PNG))],
    )
    converted = mcp.to_call_tool_result(result)
    assert converted.payload["content"] == [{"type": "image", "data": PNG64, "mimeType": "image/png"}]


def test_upper_case_pdf_and_text_take_anthropic_document_paths():
    """APPLICATION/PDF is a PDF document and TEXT/PLAIN a text document for Anthropic, with no loss."""
    pdf = cb.FileBlock(media_type="APPLICATION/PDF", source=cb.BytesSource(data=b"%PDF-1.7"))
    text = cb.FileBlock(media_type="Text/Plain; charset=utf-8", source=cb.BytesSource(data=b"notes"))
    sent = anthropic.to_provider(_asking(pdf).append(cb.Message(role="user", content=[text])))
    document, plain = sent.payload["messages"][0]["content"][1], sent.payload["messages"][1]["content"][0]
    assert document["source"]["media_type"] == "application/pdf"
    assert plain["source"] == {"type": "text", "media_type": "text/plain", "data": "notes"}
    assert [loss.kind for loss in sent.losses] == ["content_degraded"]  # the charset parameter only


def test_upper_case_audio_takes_the_chat_audio_path():
    """AUDIO/WAV is sent to Chat Completions as input_audio in wav format."""
    audio = cb.FileBlock(media_type="AUDIO/WAV", source=cb.BytesSource(data=b"RIFF"))
    part = openai_chat.to_provider(_asking(audio)).payload["messages"][0]["content"][1]
    assert part == {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}


def test_lower_media_type_keeps_parameter_values():
    """Only type and subtype are lower-cased; parameters keep their case."""
    assert lower_media_type("Text/Plain; charset=UTF-8") == "text/plain; charset=UTF-8"
    assert lower_media_type("image/png") == "image/png"


def _anthropic_image(media_type: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": PNG64}}


def test_readers_lower_the_media_types_providers_send():
    """Anthropic, Chat, Responses and MCP readers give image/png for IMAGE/PNG, parameters kept."""
    (message,) = anthropic.from_provider({"messages": [{"role": "user", "content": [_anthropic_image("IMAGE/PNG")]}]})
    assert message.content[0].media_type == "image/png"
    document = {"type": "document", "source": {"type": "text", "media_type": "TEXT/Plain; charset=UTF-8", "data": "x"}}
    (message,) = anthropic.from_provider({"messages": [{"role": "user", "content": [document]}]})
    assert message.content[0].media_type == "text/plain; charset=UTF-8"
    url = f"data:IMAGE/PNG;base64,{PNG64}"
    (message,) = openai_chat.from_provider(
        {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]}
    )
    assert message.content[0].media_type == "image/png"
    (message,) = openai_chat.from_provider(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "WAV"}}],
                }
            ]
        }
    )
    assert message.content[0].media_type == "audio/wav"
    (message,) = openai_responses.from_provider(
        {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": url}]}]}
    )
    assert message.content[0].media_type == "image/png"
    (message,) = openai_responses.from_provider(
        {
            "input": [
                {
                    "role": "user",
                    "content": [{"type": "input_file", "file_data": url.replace("IMAGE/PNG", "Application/PDF")}],
                }
            ]
        }
    )
    assert message.content[0].media_type == "application/pdf"
    result = mcp.from_call_tool_result(
        {
            "content": [
                {"type": "image", "data": PNG64, "mimeType": "IMAGE/PNG"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "TEXT/PLAIN", "blob": "eA=="}},
                {"type": "resource_link", "uri": "https://example.com/a.png", "name": "a.png", "mimeType": "IMAGE/PNG"},
            ]
        },
        tool_call_id="call_1",
        tool_name="shot",
    )
    assert [block.media_type for block in result.content] == ["image/png", "text/plain", "image/png"]
    assert "mcp/type" not in result.content[0].metadata
