"""What every provider reader shares: closing a streamed block against the adapter's block, and refusing when
the completed response disagrees with what the deltas said."""

from __future__ import annotations

from typing import Any

import pytest

import contentblocks as cb
from contentblocks.providers import Reply, Usage
from contentblocks.streaming import ReplyBuilder, StreamError, StreamReader
from contentblocks.streaming._reading import Emitter
from contentblocks.streaming._sources import read_completed

TEXT = cb.TextBlock(text="Hello", metadata={"openai/id": "msg_1"})
CALL = cb.ToolCallBlock(tool_call_id="call_1", tool_name="f", input={"a": 1})


def reply(*blocks: cb.Block, **fields: Any) -> Reply:
    message = cb.Message(role="assistant", content=blocks) if blocks else None
    return Reply(message=message, provider="test", **fields)


def folded(emit: Emitter) -> Reply:
    builder = ReplyBuilder("test")
    builder.feed(emit.take())
    return builder.reply()


def test_closing_emits_what_only_the_completed_part_says():
    """The rest of the text, its citations, the signature, the call's name and metadata come with the close."""
    cite = cb.Citation(source=cb.CitedUri(value="https://example.com"), start=0, end=5)
    final = cb.TextBlock(text="Hello", citations=(cite,), metadata={"k/v": 1})
    thought = cb.ReasoningBlock(text="Hmm", signature="sig", metadata={"contentblocks/issuer": "openai"})
    emit = Emitter()
    text, reasoning, call = emit.start("text"), emit.start("reasoning"), emit.start("tool_call", tool_call_id="call_1")
    emit.text(text, "Hel", "$[1]")
    emit.text(reasoning, "Hmm", "$[2]")
    emit.close(text, final, "$[3]")
    emit.close(reasoning, thought, "$[3]")
    emit.close(call, CALL, "$[3]")
    emit.finish(reply(final, thought, CALL, stop_reason="tool_use"), "$[4]")
    assert folded(emit) == reply(final, thought, CALL, stop_reason="tool_use")


def test_blocks_that_never_streamed_are_emitted_whole_at_the_finish():
    """Blocks of the completed reply past the streamed ones arrive whole, files and JSON as such."""
    file = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
    redacted = cb.ReasoningBlock(redacted=b"\x00\x01", metadata={"contentblocks/issuer": "anthropic"})
    expected = reply(TEXT, file, cb.JsonBlock(value={"type": "web_search_call"}), redacted, CALL,
                     cb.RefusalBlock(text="No."), usage=Usage(input_tokens=1), model="m", response_id="r")
    emit = Emitter()
    emit.text(emit.start("text"), "Hel", "$[1]")
    emit.finish(expected, "$[9]")
    assert folded(emit) == expected


@pytest.mark.parametrize(
    ("stream", "final", "message"),
    [
        (lambda e: e.text(e.start("text"), "Hi", "$[0]"), cb.ReasoningBlock(text="Hi"),
         "block 0 streamed as text but the completed part reads as a Python ReasoningBlock object"),
        (lambda e: e.text(e.start("text"), "Bye", "$[0]"), TEXT, "the completed part's text is not the text block 0 streamed"),
        (lambda e: e.citation(e.start("text"), cb.Citation(source=cb.CitedReference(value="doc"))), TEXT,
         "the completed part's citations are not those block 0 streamed"),
        (lambda e: e.redacted(e.start("reasoning"), b"\x01"), cb.ReasoningBlock(redacted=b"\x02"),
         "the completed part's redacted data is not what block 0 streamed"),
        (lambda e: e.signature(e.start("reasoning"), "sig", "$[0]"), cb.ReasoningBlock(text="t"),
         "block 0 streamed a signature the completed part does not have"),
        (lambda e: e.start("tool_call", tool_name="g"), CALL, "the completed part's tool name is not what block 0 streamed"),
        (lambda e: e.arguments(e.start("tool_call"), '{"a": 2}', "$[0]"), CALL,
         "the completed part's input is not what the arguments block 0 streamed say"),
        (lambda e: e.arguments(e.start("tool_call"), "{", "$[0]"), CALL,
         "the completed part's input is not what the arguments block 0 streamed say"),
    ],
)
def test_a_completed_part_that_disagrees_with_its_deltas_is_refused(stream, final, message):
    """Another kind, another text, other citations, redacted data or signature, another call: an error, not a pick."""
    emit = Emitter()
    stream(emit)
    with pytest.raises(StreamError) as info:
        emit.close(0, final, "$[7]")
    assert info.value.errors == [("$[7]", message)]


def test_raw_arguments_complete_what_streamed_or_are_refused():
    """A completed part's argument text may finish what streamed; text that does not extend it is refused."""
    emit = Emitter()
    emit.arguments(emit.start("tool_call", tool_call_id="call_1", tool_name="f"), '{"a"', "$[1]")
    with pytest.raises(StreamError, match="the completed part's arguments are not those block 0 streamed"):
        emit.close(0, CALL, "$[2]", raw_arguments='{"b": 1}')
    emit.close(0, CALL, "$[2]", raw_arguments='{"a": 1}')
    emit.finish(reply(CALL), "$[3]")
    assert folded(emit).message.content == (CALL,)


@pytest.mark.parametrize(
    ("stream", "final", "message"),
    [
        (lambda e: (e.start("text"), e.start("text")), reply(TEXT), "the stream has 2 blocks but the completed reply 1"),
        (lambda e: e.whole(cb.TextBlock(text="Bye"), "$"), reply(TEXT), "block 0 as it ended is not block 0 of the completed reply"),
        (lambda e: e.usage(Usage(input_tokens=1), "$"), reply(), "the stream reported usage that the completed reply does not have"),
        (lambda e: e.response("m", None, "$"), reply(),
         "the stream named a model or response id that the completed reply does not have"),
    ],
)
def test_a_completed_reply_that_disagrees_with_the_stream_is_refused(stream, final, message):
    """More blocks than the reply, a block ended otherwise, usage or a model the reply does not have: refused."""
    emit = Emitter()
    stream(emit)
    with pytest.raises(StreamError) as info:
        emit.finish(final, "$[5]")
    assert info.value.errors == [("$[5]", message)]


def test_a_reply_holds_no_tool_result():
    """A tool result in a completed reply (which no adapter gives) cannot be emitted."""
    result = cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="succeeded")
    with pytest.raises(StreamError, match=r"\$\[0\]: a reply cannot hold a Python ToolResultBlock object"):
        Emitter().whole(result, "$[0]")


def test_an_adapter_error_is_a_stream_error_at_the_event_or_rerooted_into_it():
    """Paths into the completed response are kept in the message, or re-rooted where the event carries the item."""

    def read(_completed: object) -> Reply:
        raise cb.ValidationError([("$.output[0].arguments", "expected a string"), ("$.model", "expected a string")])

    with pytest.raises(StreamError) as info:
        read_completed(read, {}, "$[4]", reroot=("$.output[0]", "$[4].item"))
    assert info.value.errors == [
        ("$[4].item.arguments", "expected a string"),
        ("$[4]", "the response the stream built does not read: $.model: expected a string"),
    ]


class Echo(StreamReader):
    """A reader whose events say which text to stream, for the life cycle every reader shares."""

    provider = "test"

    def _read(self, event: dict[str, Any], path: str) -> None:
        if "text" not in event:
            raise cb.ValidationError([(f"{path}.text", "required field missing")])
        if not self._emit.blocks:
            self._emit.start("text")
        self._emit.text(0, event["text"], path)

    def _end(self, path: str) -> None:
        self._emit.finish(reply(cb.TextBlock(text="".join(self._emit.blocks[0].text))), path)


@pytest.mark.parametrize(("event", "kind"), [([1], "an array"), ("text", "a string"), (None, "null")])
def test_a_reader_takes_objects_and_dicts_only(event, kind):
    """Anything that is not an SDK object or a dict is refused with its type, at its position."""
    with pytest.raises(StreamError) as info:
        Echo().read(event)
    assert info.value.errors == [("$[0]", f"expected a stream event (an SDK object or a dict), got {kind}")]


def test_a_reader_that_raised_stops_and_drops_the_events_of_the_failed_read():
    """After an error every read and end() raises, naming the event at fault; a builder keeps what it had."""
    reader, builder = Echo(), ReplyBuilder("test")
    builder.feed(reader.read({"text": "Hel"}))
    with pytest.raises(StreamError, match=r"\$\[1\]\.text: required field missing"):
        reader.read({})
    with pytest.raises(StreamError, match=r"\$\[2\]: the reader stopped at the error at \$\[1\]"):
        reader.read({"text": "lo"})
    with pytest.raises(StreamError, match=r"\$\[3\]: the reader stopped at the error at \$\[1\]"):
        reader.end()
    assert builder.snapshot() == (cb.TextBlock(text="Hel"),)


def test_a_reader_folds_a_whole_stream():
    """fold() feeds a builder with events() and gives its reply."""
    assert Echo().fold([{"text": "Hel"}, {"text": "lo"}]).message.content == (cb.TextBlock(text="Hello"),)
