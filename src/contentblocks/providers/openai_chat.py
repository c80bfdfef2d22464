"""OpenAI Chat Completions: conversations to and from the ``messages`` request field.

What maps where, and every degradation, is in the docs page ``providers/openai_chat``. In short:

- roles map one to one; user parts ``text``, ``image_url`` (http URLs, and data URLs as inline bytes),
  ``input_audio`` (WAV and MP3) and ``file`` (``file_id`` or ``file_data``) map onto text and file blocks;
- assistant ``content``, ``refusal`` and ``tool_calls`` map onto text, refusal and tool-call blocks; tool-call
  ``arguments`` are parsed; arguments that are not valid JSON are kept as the raw string in ``input`` with the
  flag ``openai/invalid_arguments`` and sent back verbatim;
- tool messages carry text only: JSON is sent as JSON text, files are dropped (or moved into a following
  user message with ``tool_result_files="user_message"``), and a failed or denied outcome is lost;
- Chat Completions takes no reasoning back: reasoning blocks are always dropped and reported.

>>> import contentblocks as cb
>>> from contentblocks.providers import openai_chat
>>> call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="get_weather", input={"city": "Paris"})
>>> payload = openai_chat.to_provider(cb.Conversation(messages=[
...     cb.Message(role="user", content="Weather in Paris?"),
...     cb.Message(role="assistant", content=[call]),
... ])).payload
>>> payload["messages"][1]["tool_calls"][0]["function"]
{'name': 'get_weather', 'arguments': '{"city":"Paris"}'}
"""

from __future__ import annotations

from typing import Any

from .._messages import Conversation, Message
from ._contract import Converted
from ._openai_chat_read import read_conversation, read_response
from ._openai_chat_write import ToolResultFiles, write_conversation

__all__ = ["ToolResultFiles", "from_provider", "from_response", "to_provider"]


def to_provider(
    conversation: Conversation,
    *,
    strict: bool = False,
    issuer: str | None = None,
    tool_result_files: ToolResultFiles = "drop",
) -> Converted:
    r"""The ``messages`` request field carrying ``conversation``, and what did not survive.

    Args:
        conversation: the conversation to send.
        strict: raise ``LossError`` instead of returning losses.
        issuer: accepted for symmetry with the other adapters; Chat Completions takes no reasoning state
            back, so reasoning is dropped (and reported) whoever issued it.
        tool_result_files: ``"drop"`` (the default) drops files in tool results and reports them;
            ``"user_message"`` moves them into a user message right after the tool messages, introduced by
            a text part naming the tool call (each move is still reported, as the file changes place).

    Raises:
        LossError: with ``strict=True``, when anything would be dropped or degraded.

    >>> import contentblocks as cb
    >>> from contentblocks.providers import openai_chat
    >>> call = cb.ToolCallBlock(tool_call_id="call_1", tool_name="screenshot", input={})
    >>> shot = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
    >>> result = cb.ToolResultBlock(tool_call_id="call_1", tool_name="screenshot", outcome="succeeded", content=[shot])
    >>> converted = openai_chat.to_provider(cb.Conversation(messages=[
    ...     cb.Message(role="user", content="Take a screenshot"),
    ...     cb.Message(role="assistant", content=[call]),
    ...     cb.Message(role="tool", content=[result]),
    ... ]), tool_result_files="user_message")
    >>> converted.payload["messages"][2]
    {'role': 'tool', 'tool_call_id': 'call_1', 'content': ''}
    >>> for part in converted.payload["messages"][3]["content"]:
    ...     print(part)
    {'type': 'text', 'text': 'Files returned by tool call call_1 (screenshot):'}
    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw=='}}
    """
    del issuer  # no reasoning state is ever sent to Chat Completions
    payload, recorder = write_conversation(conversation, tool_result_files)
    return recorder.finish(payload, strict=strict)


def from_provider(payload: dict[str, Any]) -> Conversation:
    """A conversation from the Chat Completions ``messages`` request field (other fields are ignored).

    Tool results take their tool name from the earlier call they answer, and their outcome is ``succeeded``
    (Chat Completions has no status for them). ``annotations`` on a stored assistant message become citations.

    Raises:
        ValidationError: when the payload is not Chat Completions' shape or holds an invalid value.

    >>> from contentblocks.providers import openai_chat
    >>> conversation = openai_chat.from_provider({"messages": [
    ...     {"role": "developer", "content": "Be brief."},
    ...     {"role": "user", "content": [
    ...         {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lGODlh", "detail": "low"}},
    ...     ]},
    ... ]})
    >>> image = conversation[1].content[0]
    >>> image.media_type, image.source.data, image.metadata["openai/detail"]
    ('image/gif', b'GIF89a', 'low')
    """
    return read_conversation(payload)


def from_response(response: dict[str, Any]) -> Message:
    """One assistant message from a ChatCompletion body: ``choices[0].message``.

    ``id``, ``model``, ``usage`` and the choice's ``finish_reason`` are kept in the message metadata as
    ``openai/<field>``; they describe the response, so ``to_provider`` neither sends nor reports them.
    ``url_citation`` annotations become citations whose span (``start_index``, ``end_index``) is read as
    code-point indices into the text; a span that does not fit the text is left out.

    >>> from contentblocks.providers import openai_chat
    >>> message = openai_chat.from_response({
    ...     "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
    ...     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi!"}}],
    ... })
    >>> message.content[0].text, message.metadata["openai/finish_reason"]
    ('Hi!', 'stop')
    """
    return read_response(response)
