"""OpenAI Chat Completions stream chunks (``create(..., stream=True)``) as neutral events.

Each chunk is a ``ChatCompletionChunk`` or any of its dict forms. The reader accumulates the chosen choice's
``delta`` as the SDK's ``ChatCompletionStreamState`` does (strings joined, tool calls merged by their
``index``), but in linear time (a list remembers whether it holds only scalars, rather than asking on each
delta), and streams as it goes: ``content`` as text, ``refusal`` as a refusal, each tool
call's ``id``, ``function.name`` and ``function.arguments`` (parallel calls by their index). Chat never says
that a stream is over (the usage chunk, when asked for, comes after the ``finish_reason``), so ``end()``
closes the reply against ``openai_chat.from_response`` of the completion the chunks built, which gives the
citations of ``annotations``, the audio transcript, the stop reason and the usage. With a ``dialect`` the server's
reasoning deltas (``reasoning_content``, ``reasoning``, OpenRouter's ``reasoning_details`` items, merged by their
``index``) stream as reasoning blocks before the text, and the completion is read in that dialect.

>>> from contentblocks.streaming import ReplyBuilder, openai_chat
>>> chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}
>>> stream = [
...     {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
...     {**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
...      "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}}]},
...     {**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
...      "function": {"arguments": '{"city"'}}]}}]},
...     {**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
...      "function": {"arguments": ': "Paris"}'}}]}}]},
...     {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
... ]
>>> builder = ReplyBuilder(openai_chat.PROVIDER)
>>> reader = openai_chat.Reader()
>>> for event in stream[:3]:
...     builder.feed(reader.read(event))
>>> builder.snapshot()[0].input
'{"city"'
>>> for event in stream[3:]:
...     builder.feed(reader.read(event))
>>> builder.feed(reader.end())
>>> reply = builder.reply()
>>> reply.message.content[0].input, reply.stop_reason
(JsonObject({'city': 'Paris'}), 'tool_use')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .._errors import describe_type, preview
from ..providers import openai_chat as adapter
from ..providers._argument_checks import index_argument, option_argument
from ..providers._contract import Reply
from ..providers._toolkit import field, obj
from ..providers.openai_chat._dialects import DIALECTS, SPECS, Dialect
from ..providers.openai_chat._reply import read_chat_usage as adapter_usage
from ._chat_merge import check_index, check_members, merge, plain
from ._errors import fail
from ._events import StreamEvent
from ._reading import StreamReader
from ._sources import plain_at, read_completed

__all__ = ["PROVIDER", "Reader", "events", "fold"]

#: The ``Reply.provider`` of an OpenAI Chat Completions reply.
PROVIDER = "openai_chat"


#: The members of an OpenRouter ``reasoning_details`` item that deltas append to; any other member is replaced.
_GROWING = frozenset({"text", "summary", "data", "signature"})
#: What makes an item of each type a reasoning block (the adapter keeps an item without it as metadata).
_HOLDING = {
    "reasoning.text": ("text", "signature"),
    "reasoning.summary": ("summary",),
    "reasoning.encrypted": ("data",),
}


def _holds(item: dict[str, Any]) -> bool:
    """Whether the item merged so far is one the adapter reads as a reasoning block."""
    return any(item.get(key) for key in _HOLDING.get(item.get("type"), ()))  # type: ignore[arg-type]


class Reader(StreamReader):
    """Reads one Chat Completions stream; see the module for what it emits when.

    Args:
        choice: which choice to read (a request with ``n`` > 1 streams several, each by its ``index``).
        dialect: the server streaming (``openai_chat.DIALECTS``): its reasoning deltas stream as reasoning blocks
            before the text, and the reply is ``openai_chat.from_response(..., dialect=dialect)`` of the whole.
    """

    provider = PROVIDER

    def __init__(self, *, choice: int = 0, dialect: Dialect = "openai") -> None:
        super().__init__()
        self._choice = index_argument(choice, "choice", "openai_chat stream Reader")
        option_argument(dialect, "dialect", DIALECTS, "openai_chat stream Reader")
        self._dialect = dialect
        self._reasoning: int | None = None
        self._details: dict[int, dict[str, Any]] = {}
        self._detail_blocks: dict[int, int] = {}
        self._head: dict[str, Any] | None = None
        self._message: dict[str, Any] = {}
        self._role: object = None  # the role the deltas gave so far
        self._finish: str | None = None
        self._finish_path = "$"
        self._usage: Any = None
        self._text: int | None = None
        self._refusal: int | None = None
        self._calls: dict[int, int] = {}

    @staticmethod
    def _object(event: object, path: str) -> dict[str, Any]:
        """The chunk as the SDK's accumulator sees it.

        An SDK object gives its Python values (as its ``to_dict()`` does), not its JSON dump, in which a number
        that is not finite would be ``null`` while the accumulator reads the number (``check_json`` refuses it).
        """
        dump = getattr(type(event), "model_dump", None)
        if type(event) is not dict and callable(dump):
            try:
                event = dump(event, mode="python", by_alias=True, warnings=False)
            except Exception as e:  # noqa: BLE001 - a model_construct object may hold anything
                raise fail(path, f"the SDK object does not dump: {describe_type(e)}") from None
        return StreamReader._object(event, path)

    def _read(self, event: dict[str, Any], path: str) -> None:
        kind = event.get("object")
        if kind not in (None, "", "chat.completion.chunk"):  # "": Azure's content filter results, read as any chunk
            raise fail(f"{path}.object", f"not a chat completion chunk: {preview(str(kind))}")
        choices = field(event, "choices", list, path)
        check_members(event, path, skip="choices")
        for key in ("id", "model"):  # the SDK's state takes them from any chunk, a head chunk this reader skips too
            field(event, key, str, path, optional=True)
        if self._head is None and not (kind == "" and not choices):  # Azure's prompt filter results: no completion
            self._head = {key: value for key, value in event.items() if key not in {"choices", "usage", "obfuscation"}}
            reply = read_completed(self._from_response, self._completion(), path)
            self._emit.response(reply.model, reply.response_id, path,
                                {"model": f"{path}.model", "response_id": f"{path}.id"})
        self._usage = plain_at(event.get("usage"), f"{path}.usage")
        adapter_usage(self._usage, f"{path}.usage")
        seen: set[int] = set()
        for k, raw in enumerate(choices):
            choice_path = f"{path}.choices[{k}]"
            choice = obj(plain_at(raw, choice_path), choice_path)
            check_members(choice, choice_path)  # every choice: the SDK accumulates each
            index = field(choice, "index", int, choice_path)
            check_index(index, choice_path)  # the SDK's accumulator would take -1 for the last choice
            if index in seen:  # the SDK's first chunk keeps the last, a later one merges both: neither is right
                raise fail(f"{choice_path}.index", f"choice {index} is given twice in the chunk")
            seen.add(index)
            if index != self._choice:
                continue
            delta_path = f"{choice_path}.delta"
            delta = obj(plain_at(choice.get("delta"), delta_path) or {}, delta_path)
            if self._finish is not None and any(value is not None for value in delta.values()):
                raise fail(delta_path, "a delta after the choice's finish_reason")
            field(delta, "role", str, delta_path, optional=True)
            self._stream(delta, delta_path)  # checks what it streams before the accumulator takes it
            merge(self._message, self._to_merge(delta), delta_path)
            finish = field(choice, "finish_reason", str, choice_path, optional=True)
            if finish:
                self._finish, self._finish_path = finish, f"{choice_path}.finish_reason"

    def _to_merge(self, delta: dict[str, Any]) -> dict[str, Any]:
        """The delta the accumulator merges: without OpenRouter's items, which ``_detail`` merges.

        Nor a role the message already has: Ollama repeats ``"role": "assistant"`` in every delta, which the
        SDK's accumulator concatenates into a role no reader takes.
        """
        role = delta.get("role")
        drop = {"role"} if role is not None and role == self._role else set()
        if role is not None:
            self._role = role
        if SPECS[self._dialect].details:
            drop.add("reasoning_details")
        if drop.isdisjoint(delta):
            return delta
        return {key: value for key, value in delta.items() if key not in drop}

    def _stream_reasoning(self, delta: dict[str, Any], path: str) -> None:
        """The dialect's reasoning deltas: OpenRouter's items by their index, else its reasoning string."""
        spec = SPECS[self._dialect]
        details = field(delta, "reasoning_details", list, path, optional=True) if spec.details else None
        if details is not None:
            for k, raw in enumerate(details):
                item_path = f"{path}.reasoning_details[{k}]"
                item = obj(plain_at(raw, item_path), item_path)
                index = field(item, "index", int, item_path)
                check_index(index, item_path)
                self._detail(index, item, item_path)
            return
        for key in spec.reads:
            piece = field(delta, key, str, path, optional=True)
            if piece:
                if self._reasoning is None:
                    self._reasoning = self._emit.start("reasoning")
                self._emit.text(self._reasoning, piece, f"{path}.{key}")
                return  # a second field saying the same (vLLM's two names) is read whole at the end

    def _detail(self, index: int, item: dict[str, Any], path: str) -> None:
        """Merge one ``reasoning_details`` delta into its item, streaming its text or summary."""
        kept = self._details.setdefault(index, {})
        for key, value in item.items():
            if value is None:
                continue
            if key in _GROWING:
                field(item, key, str, path)
                kept[key] = kept.get(key, "") + value
            else:
                kept[key] = value
        if index not in self._detail_blocks and _holds(kept):
            self._detail_blocks[index] = self._emit.start("reasoning")
        for key in ("text", "summary"):
            piece = field(item, key, str, path, optional=True)
            if piece and index in self._detail_blocks:
                self._emit.text(self._detail_blocks[index], piece, f"{path}.{key}")

    def _stream(self, delta: dict[str, Any], path: str) -> None:
        """The neutral deltas of one choice delta; blocks start at their first visible content."""
        emit = self._emit
        if self._dialect != "openai":
            self._stream_reasoning(delta, path)
        content = field(delta, "content", str, path, optional=True)
        if content:
            if self._text is None:
                self._text = emit.start("text")
            emit.text(self._text, content, f"{path}.content")
        refusal = field(delta, "refusal", str, path, optional=True)
        if refusal:
            if self._refusal is None:
                self._refusal = emit.start("refusal")
            emit.text(self._refusal, refusal, f"{path}.refusal")
        for k, raw in enumerate(field(delta, "tool_calls", list, path, optional=True) or ()):
            call_path = f"{path}.tool_calls[{k}]"
            call = obj(plain_at(raw, call_path), call_path)
            index = field(call, "index", int, call_path)
            check_index(index, call_path)
            function = obj(call.get("function") or {}, f"{call_path}.function")
            call_id = field(call, "id", str, call_path, optional=True)
            name = field(function, "name", str, f"{call_path}.function", optional=True)
            where = {"$": call_path, "tool_call_id": f"{call_path}.id", "tool_name": f"{call_path}.function.name"}
            if index not in self._calls:
                self._calls[index] = emit.start("tool_call", tool_call_id=call_id or None, tool_name=name or None,
                                                where=where)
            else:
                emit.identify(self._calls[index], call_id, name, where=where)
            arguments = field(function, "arguments", str, f"{call_path}.function", optional=True)
            emit.arguments(self._calls[index], arguments or "", f"{call_path}.function.arguments")

    def _from_response(self, completion: dict[str, Any]) -> Reply:
        return adapter.from_response(completion, choice=self._choice, dialect=self._dialect)

    def _completion(self) -> dict[str, Any]:
        """The completion the chunks built, as the SDK's stream state holds it."""
        message = plain(self._message)
        if self._details:
            message["reasoning_details"] = [self._details[index] for index in sorted(self._details)]
        choice = {"index": self._choice, "message": message, "finish_reason": self._finish}
        placeholders: list[dict[str, Any]] = [{}] * self._choice
        return {**(self._head or {}), "object": "chat.completion", "choices": [*placeholders, choice],
                "usage": self._usage}

    def _end(self, path: str) -> None:
        if self._head is None or self._finish is None:
            return  # the stream never finished: the builder has no reply to give
        reply = read_completed(self._from_response, self._completion(), path)
        self._emit.finish(reply, path, keep_invalid=True, where={"provider_stop_reason": self._finish_path})


def events(stream: Iterable[object], *, choice: int = 0, dialect: Dialect = "openai") -> Iterator[StreamEvent]:
    """The neutral events of a whole Chat Completions stream (from the server ``dialect`` names)."""
    return Reader(choice=choice, dialect=dialect).events(stream)


def fold(stream: Iterable[object], *, choice: int = 0, dialect: Dialect = "openai") -> Reply:
    """The reply a whole Chat Completions stream folds into: the same as ``from_response`` of its completion."""
    return Reader(choice=choice, dialect=dialect).fold(stream)
