"""The SDK side of the reader fuzz: provider values as each SDK builds them, and each SDK's own accumulation.

The Anthropic and OpenAI SDKs build response and stream event objects without validating them (their
``construct_type``, a recursive ``model_construct``), so a reader meets whatever the wire held, in SDK clothes;
``sdk_form`` builds them the same way. google-genai and mcp validate; where validation refuses a mutated value,
``sdk_form`` builds the object with ``model_construct`` recursively instead (what user code holding junk has).

``accumulate`` is the SDK's own fold of a stream, offline: Anthropic's ``accumulate_event`` (what its
``MessageStream`` runs), OpenAI's ``ChatCompletionStreamState`` (a completion cut by the length limit or the
content filter is taken from the error ``get_final_completion`` raises) and ``ResponseStreamState`` (the
response of its terminal event). google-genai has no accumulator: the documented concatenation of the chunks,
as ``tests/streaming/test_gemini.py`` writes it, stands in for it.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import pydantic
from anthropic._models import construct_type as anthropic_construct
from anthropic.types import Message, RawMessageStreamEvent
from google.genai import types as genai
from mcp.types import CallToolResult
from openai._models import construct_type as openai_construct
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

from streaming.sdk_final import anthropic_final, chat_final, responses_final
from streaming.test_gemini import concatenation

__all__ = ["accumulate", "construct", "sdk_form", "sdk_stream"]


def construct(cls: type[pydantic.BaseModel], value: Any) -> Any:
    """``cls.model_construct`` of a dict, recursively for fields typed as models (keys by name or alias)."""
    if not isinstance(value, dict):
        return value
    names = {(field.alias or name): name for name, field in cls.model_fields.items()}
    fields = {}
    for key, item in value.items():
        name = key if key in cls.model_fields else names.get(key, key)
        field = cls.model_fields.get(name)
        fields[name] = item if field is None else _construct_as(field.annotation, item)
    return cls.model_construct(**fields)


def _construct_as(annotation: Any, value: Any) -> Any:
    args = typing.get_args(annotation)
    if isinstance(value, list) and typing.get_origin(annotation) is list and args:
        return [_construct_as(args[0], item) for item in value]
    if isinstance(value, dict):
        for candidate in (annotation, *args):
            if isinstance(candidate, type) and issubclass(candidate, pydantic.BaseModel):
                return construct(candidate, value)
            if typing.get_origin(candidate) is list:
                continue
    return value


def _validated_or_constructed(cls: type[pydantic.BaseModel]) -> Callable[[Any], Any]:
    def build(value: Any) -> Any:
        try:
            return cls.model_validate(value)
        except pydantic.ValidationError:
            return construct(cls, value)

    return build


_RESPONSES: dict[str, Callable[[Any], Any]] = {
    "anthropic": lambda v: anthropic_construct(value=v, type_=Message),
    "openai_chat": lambda v: openai_construct(value=v, type_=ChatCompletion),
    "openai_responses": lambda v: openai_construct(value=v, type_=Response),
    "gemini": _validated_or_constructed(genai.GenerateContentResponse),
    "mcp": _validated_or_constructed(CallToolResult),
}
_EVENTS: dict[str, Callable[[Any], Any]] = {
    "anthropic": lambda v: anthropic_construct(value=v, type_=RawMessageStreamEvent),
    "openai_chat": lambda v: openai_construct(value=v, type_=ChatCompletionChunk),
    "openai_responses": lambda v: openai_construct(value=v, type_=ResponseStreamEvent),
    "gemini": _validated_or_constructed(genai.GenerateContentResponse),
}


def sdk_form(provider: str, value: Any) -> Any:
    """A provider response (or MCP result) as the provider's SDK hands it to user code."""
    return _RESPONSES[provider](value)


def sdk_stream(provider: str, events: list[Any]) -> list[Any]:
    """A provider stream's events as the SDK's stream yields them (Anthropic's drops its ``ping`` events)."""
    build = _EVENTS[provider]
    if provider == "anthropic":
        events = [e for e in events if not (isinstance(e, dict) and e.get("type") == "ping")]
    return [build(e) for e in events]


_ACCUMULATORS: dict[str, Callable[[list[Any]], Any]] = {
    "anthropic": anthropic_final,
    "openai_chat": chat_final,
    "openai_responses": responses_final,
    "gemini": concatenation,
}


def accumulate(provider: str, sdk_events: list[Any]) -> Any:
    """The response the provider's SDK accumulates from its stream events (any exception is the SDK's)."""
    return _ACCUMULATORS[provider](sdk_events)






def _dump(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def built_responses(provider: str) -> dict[str, Any]:
    """Responses built with the SDK's types, of the kinds the fixtures lack: refusals, cut-offs, filters, errors.

    Each is dumped as the wire carries it (aliases, no unset fields).
    """
    if provider == "anthropic":
        base = {"id": "msg_b", "type": "message", "role": "assistant", "model": "claude-x",
                "usage": {"input_tokens": 5, "output_tokens": 0}}
        return {
            "built:refusal": _dump(Message.model_validate({**base, "content": [], "stop_reason": "refusal"})),
            "built:max_tokens": _dump(Message.model_validate({**base, "stop_reason": "max_tokens", "content": [
                {"type": "text", "text": "Step one"},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]})),
        }
    if provider == "openai_chat":
        base = {"id": "chatcmpl-b", "object": "chat.completion", "created": 1, "model": "gpt-x"}
        def choice(finish: str, **message: Any) -> dict[str, Any]:
            return {"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}
        return {
            "built:refusal": _dump(ChatCompletion.model_validate(
                {**base, "choices": [choice("stop", content=None, refusal="I can't help with that.")]})),
            "built:length": _dump(ChatCompletion.model_validate({**base, "choices": [choice("length", content="Ste")]})),
            "built:content_filter": _dump(ChatCompletion.model_validate(
                {**base, "choices": [choice("content_filter", content=None)]})),
        }
    if provider == "openai_responses":
        base = {"id": "resp_b", "object": "response", "created_at": 1, "model": "gpt-x", "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": [], "output": []}
        return {
            "built:incomplete": _dump(Response.model_validate(
                {**base, "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}})),
            "built:failed": _dump(Response.model_validate(
                {**base, "status": "failed", "error": {"code": "server_error", "message": "boom"}})),
        }
    if provider == "gemini":
        return {
            "built:safety": _dump(genai.GenerateContentResponse.model_validate(
                {"candidates": [{"finishReason": "SAFETY", "index": 0}], "modelVersion": "gemini-x"})),
            "built:blocked": _dump(genai.GenerateContentResponse.model_validate(
                {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-x"})),
            "built:max_tokens": _dump(genai.GenerateContentResponse.model_validate({"candidates": [{
                "finishReason": "MAX_TOKENS", "content": {"role": "model", "parts": [{"text": "Ste"}]}}]})),
        }
    return {}


def accumulated_responses(provider: str, streams: dict[str, list[Any]]) -> dict[str, Any]:
    """The response the SDK accumulates from each recorded stream, dumped as the wire carries it."""
    return {f"stream:{name}": _dump(accumulate(provider, sdk_stream(provider, events)))
            for name, events in streams.items()}
