"""Each provider SDK's own fold of a stream, offline: what the stream tests and the reader fuzz compare against.

Anthropic's ``accumulate_event`` (what its ``MessageStream`` runs), OpenAI's ``ChatCompletionStreamState`` and
``ResponseStreamState``. Each SDK is imported where its fold runs, so a test module that skips without one SDK
can still import this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["anthropic_final", "chat_final", "responses_final"]


def anthropic_final(events: Iterable[Any]) -> Any:
    """The message Anthropic's accumulator builds from the SDK's event objects (``LookupError`` for no event)."""
    from anthropic.lib.streaming._messages import accumulate_event  # noqa: PLC0415 - see the module

    snapshot, buffers = None, {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    if snapshot is None:
        raise LookupError("no event")
    return snapshot


def chat_final(chunks: Iterable[Any]) -> Any:
    """The completion OpenAI's Chat stream state builds from the SDK's chunk objects.

    ``get_final_completion`` refuses a completion cut by the length limit or the content filter; the error it
    raises carries the completion the state built, which is what is given then.
    """
    import openai  # noqa: PLC0415 - see the module
    from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: PLC0415

    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    try:
        return state.get_final_completion()
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as cut:
        return cut.completion


def responses_final(events: Iterable[Any]) -> Any:
    """The response of the terminal event OpenAI's Responses stream state yields (``LookupError`` for none)."""
    import openai  # noqa: PLC0415 - see the module
    from openai.lib.streaming.responses._responses import ResponseStreamState  # noqa: PLC0415

    state = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
    final = None
    for event in events:
        for out in state.handle_event(event):
            if out.type in {"response.completed", "response.incomplete", "response.failed"}:
                final = out.response
    if final is None:
        raise LookupError("no terminal event")
    return final
