"""``Reply.require_message()``: the typed way from a reply to its message, with a clear error when there is none."""

from __future__ import annotations

import pickle

import pytest

import contentblocks as cb
from contentblocks.providers import EmptyReplyError, anthropic, gemini, openai_chat

anthropic_types = pytest.importorskip("anthropic.types")


def test_message_of_a_reply_with_content():
    """A reply holding content gives its message, the same object as ``reply.message``."""
    response = anthropic_types.Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    })
    reply = anthropic.from_response(response)
    assert reply.require_message() is reply.message
    assert reply.require_message().text() == "Hi"


def test_empty_anthropic_reply_raises_with_its_stop_reason():
    """An SDK response with no content raises EmptyReplyError naming the stop reasons, holding the reply."""
    response = anthropic_types.Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
        "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 0},
    })
    reply = anthropic.from_response(response)
    with pytest.raises(EmptyReplyError) as caught:
        reply.require_message()
    assert caught.value.reply is reply
    assert str(caught.value) == (
        "the anthropic reply msg_1 has no message (stop reason 'end_turn', the provider's 'end_turn')"
    )
    assert isinstance(caught.value, ValueError)
    assert not isinstance(caught.value, cb.ValidationError)


def test_blocked_gemini_prompt_names_its_block_reason():
    """A Gemini response with no candidate (a blocked prompt) raises with the provider's reason."""
    reply = gemini.from_response({"promptFeedback": {"blockReason": "SAFETY"}})
    with pytest.raises(EmptyReplyError, match=r"^the gemini reply has no message \(stop reason 'content_filter'"):
        reply.require_message()


def test_error_pickles_with_its_reply():
    """The error crosses process boundaries with its reply and text intact."""
    reply = openai_chat.from_response({"id": "c1", "choices": [{"finish_reason": "length", "message": {}}]})
    with pytest.raises(EmptyReplyError) as caught:
        reply.require_message()
    again = pickle.loads(pickle.dumps(caught.value))  # noqa: S301 - our own bytes
    assert again.reply == reply
    assert str(again) == str(caught.value)
