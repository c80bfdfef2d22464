"""The fold's rules: what a snapshot shows, and bad streams refused with a clear error that loses nothing."""

from __future__ import annotations

import pickle

import pytest

import contentblocks as cb
from contentblocks.providers import Usage
from contentblocks.streaming import (
    ArgumentsAppended,
    BlockEnded,
    BlockStarted,
    CitationAdded,
    FileAdded,
    MessageMetadataAdded,
    ReasoningAppended,
    ReasoningRedacted,
    RefusalAppended,
    ReplyBuilder,
    ReplyStopped,
    ResponseIdentified,
    SignatureAppended,
    SignatureSet,
    StreamError,
    TextAppended,
    ToolCallIdentified,
    UsageUpdated,
    fold,
)

CITE_0_5 = cb.Citation(source=cb.CitedReference(value="document:0"), start=0, end=5)
FILE = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))


def building(*events):
    builder = ReplyBuilder("anthropic")
    builder.feed(events)
    return builder


def refused(builder, event):
    """The errors ``event`` is refused with, after checking that it left the builder as it was."""
    before = (builder.snapshot(), builder.open_blocks, builder.block_count, builder.stopped)
    with pytest.raises(StreamError) as info:
        builder.add(event)
    assert (builder.snapshot(), builder.open_blocks, builder.block_count, builder.stopped) == before
    return info.value.errors


# ---------------------------------------------------------------------------------------------- snapshots


def test_an_open_tool_call_shows_its_argument_text_and_the_ended_one_its_value():
    """Arguments stay raw text while the call is open, and become the parsed input when it ends."""
    builder = building(BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, '{"a": 1'))
    assert builder.snapshot()[0].input == '{"a": 1'
    builder.feed([ArgumentsAppended(0, "}"), BlockEnded(0)])
    assert builder.snapshot()[0].input == {"a": 1}


def test_a_block_shows_once_it_holds_something():
    """An empty text and a tool call without its name are left out of the snapshot; block() says None for them."""
    builder = building(BlockStarted(0, "text"), BlockStarted(1, "tool_call", tool_call_id="c1"), TextAppended(0, ""))
    assert builder.snapshot() == ()
    assert (builder.block(0), builder.block(1)) == (None, None)
    builder.feed([ToolCallIdentified(1, tool_name="f"), TextAppended(0, "x")])
    assert [type(b) for b in builder.snapshot()] == [cb.TextBlock, cb.ToolCallBlock]
    with pytest.raises(IndexError, match="block 2 has not started"):
        builder.block(2)


def test_a_citation_shows_once_the_text_covers_its_span():
    """A citation that arrives before the text it cites is held back from snapshots until the text reaches it."""
    builder = building(BlockStarted(0, "text"), CitationAdded(0, CITE_0_5), TextAppended(0, "Par"))
    assert builder.snapshot()[0].citations == ()
    builder.add(TextAppended(0, "is"))
    assert builder.snapshot()[0].citations == (CITE_0_5,)


def test_a_signature_set_replaces_the_pieces_before_it():
    """SignatureSet is Anthropic's whole signature: it replaces what was appended; later pieces append to it."""
    builder = building(BlockStarted(0, "reasoning"), SignatureAppended(0, "old"), SignatureSet(0, "ne"),
                       SignatureAppended(0, "w"), BlockEnded(0))
    assert builder.snapshot()[0].signature == "new"


def test_metadata_given_at_the_end_adds_to_and_overrides_the_start():
    """BlockEnded's metadata merges into BlockStarted's; a key given twice takes the end's value."""
    builder = building(BlockStarted(0, "text", metadata={"a/x": 1, "a/y": 1}), TextAppended(0, "t"),
                       BlockEnded(0, {"a/y": 2, "a/z": 3}))
    assert builder.snapshot()[0].metadata == {"a/x": 1, "a/y": 2, "a/z": 3}


def test_the_last_model_and_id_win_and_none_keeps_the_earlier_value():
    """ResponseIdentified fields replace earlier values; a field left None keeps what came before."""
    reply = fold([ResponseIdentified("m1", "r1"), ResponseIdentified(model="m2"), ReplyStopped()], "gemini")
    assert (reply.model, reply.response_id) == ("m2", "r1")


def test_a_reply_with_no_block_has_no_message():
    """A stream that stops without a block gives a reply whose message is None, as an empty response does."""
    usage = Usage(input_tokens=4, output_tokens=0)
    reply = fold([UsageUpdated(usage), ReplyStopped("end_turn", "end_turn")], "anthropic")
    assert (reply.message, reply.usage, reply.stop_reason, reply.provider) == (None, usage, "end_turn", "anthropic")


def test_invalid_arguments_are_kept_as_text_when_the_end_says_so():
    """keep_invalid_arguments makes argument text that is not JSON the input string, as the OpenAI adapters do."""
    builder = building(BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, "{x"),
                       BlockEnded(0, {"openai/invalid_arguments": True}, keep_invalid_arguments=True))
    assert builder.snapshot()[0].input == "{x"


def test_arguments_no_block_holds_take_the_input_text_the_end_gives():
    """input_text is the input of a call whose arguments are JSON no block holds, as Anthropic's adapter keeps it."""
    builder = building(BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"),
                       ArgumentsAppended(0, '{"amount": 1e400}'),
                       BlockEnded(0, {"openai/invalid_arguments": True}, input_text='{"amount":Infinity}'))
    assert builder.snapshot()[0].input == '{"amount":Infinity}'


@pytest.mark.parametrize(
    ("prefix", "error"),
    [
        ((BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, '{"a": 1}')),
         ("$[2].input_text", "block 0 ends with an input text, but its arguments are JSON a block holds")),
        ((BlockStarted(0, "text"), TextAppended(0, "x")),
         ("$[2].input_text", "block 0 ends with an input text, but it is a text block")),
        ((BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, '{"a": ')),
         ("$[2]", "the arguments of block 0 never parse: invalid JSON: Expecting value (line 1, column 7)")),
    ],
)
def test_an_input_text_is_refused_where_the_arguments_need_none(prefix, error):
    """Only a tool call whose arguments are JSON that no block can hold may end with an input text."""
    assert refused(building(*prefix), BlockEnded(0, input_text="{}")) == [error]


def test_a_builder_needs_a_provider_name():
    """The provider a reply names is a non-empty string."""
    with pytest.raises(TypeError, match="provider must be a non-empty string, got null"):
        ReplyBuilder(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ReplyBuilder("")


# ---------------------------------------------------------------------------------------------- bad streams


@pytest.mark.parametrize(
    ("prefix", "event", "errors"),
    [
        ((), BlockStarted(1, "text"), [("$[0].index", "block 1 starts before block 0")]),
        ((BlockStarted(0, "text"),), BlockStarted(0, "text"), [("$[1].index", "block 0 has already started")]),
        ((BlockStarted(0, "text"),), FileAdded(0, FILE), [("$[1].index", "block 0 has already started")]),
        ((), TextAppended(0, "x"), [("$[0].index", "block 0 was never started")]),
        ((), BlockEnded(3), [("$[0].index", "block 3 was never started")]),
        ((BlockStarted(0, "text"), TextAppended(0, "x"), BlockEnded(0)), BlockEnded(0),
         [("$[3].index", "block 0 has already ended")]),
        ((BlockStarted(0, "text"), TextAppended(0, "x"), BlockEnded(0)), TextAppended(0, "y"),
         [("$[3].index", "block 0 has already ended")]),
        ((FileAdded(0, FILE),), BlockEnded(0), [("$[1].index", "block 0 has already ended")]),
        ((BlockStarted(0, "text"),), ArgumentsAppended(0, "{"), [("$[1]", "argument text for block 0, which is a text block")]),
        ((BlockStarted(0, "tool_call"),), TextAppended(0, "x"), [("$[1]", "a text delta for block 0, which is a tool_call block")]),
        ((BlockStarted(0, "text"),), RefusalAppended(0, "x"), [("$[1]", "a refusal delta for block 0, which is a text block")]),
        ((BlockStarted(0, "refusal"),), CitationAdded(0, CITE_0_5), [("$[1]", "a citation for block 0, which is a refusal block")]),
        ((BlockStarted(0, "text"),), SignatureSet(0, "s"), [("$[1]", "a signature for block 0, which is a text block")]),
        ((BlockStarted(0, "reasoning"), ReasoningAppended(0, "t")), ReasoningRedacted(0, b"r"),
         [("$[2]", "redacted data for block 0, which already has text or a signature")]),
        ((BlockStarted(0, "reasoning"), ReasoningRedacted(0, b"r")), SignatureAppended(0, "s"),
         [("$[2]", "a signature for block 0, which is redacted reasoning")]),
        ((BlockStarted(0, "tool_call", tool_call_id="c1"),), ToolCallIdentified(0, "c2", "f"),
         [("$[1].tool_call_id", "block 0 already has another tool call id")]),
        ((BlockStarted(0, "text"),), BlockEnded(0), [("$[1]", "block 0 ends with no text")]),
        ((BlockStarted(0, "reasoning"),), BlockEnded(0), [("$[1]", "block 0 ends without reasoning text, a signature or data")]),
        ((BlockStarted(0, "tool_call", tool_name="f"), ArgumentsAppended(0, "{}")), BlockEnded(0),
         [("$[2]", "block 0 ends without a tool call id and name")]),
        ((BlockStarted(0, "text"), CitationAdded(0, CITE_0_5), TextAppended(0, "Par")), BlockEnded(0),
         [("$[3]", "block 0 ends before the span of its citation 0 does")]),
        ((BlockStarted(0, "text"),), ReplyStopped("end_turn"), [("$[1]", "the reply stops while blocks are still open: 0")]),
        ((MessageMetadataAdded({"app/k": 1}),), ReplyStopped(), [("$[1]", "the reply stops with message metadata but no block to carry it")]),
        ((ReplyStopped(),), UsageUpdated(Usage()), [("$[1]", "the reply has already stopped")]),
    ],
)
def test_a_bad_event_is_refused_with_its_path_and_changes_nothing(prefix, event, errors):
    """Out of order, never started, ended twice, the wrong kind, incomplete or after the stop: refused, state kept."""
    assert refused(building(*prefix), event) == errors


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"city": "Par', ("the arguments of block 0 never parse: invalid JSON: Unterminated string starting at "
                          "(line 1, column 10)")),
        ("", "the arguments of block 0 never parse: invalid JSON: Expecting value (line 1, column 1)"),
        ('{"a": NaN}', "the arguments of block 0 never parse: invalid JSON: NaN is not a JSON number"),
        ('{"a": 1, "a": 2}', 'the arguments of block 0 never parse: invalid JSON: duplicate key "a" in an object'),
    ],
)
def test_arguments_that_never_parse_are_refused_when_the_block_ends(arguments, message):
    """Truncated, empty, NaN or duplicate-key argument text is an error at BlockEnded; the raw text stays visible."""
    builder = building(BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, arguments))
    assert refused(builder, BlockEnded(0)) == [("$[2]", message)]
    assert builder.snapshot()[0].input == arguments
    assert builder.open_blocks == (0,)


def test_arguments_that_parse_into_an_invalid_value_are_refused_with_the_value_s_path():
    """JSON that parses but is not a valid tool input (nested past the depth limit) names the problem's path."""
    deep = "[" * 101 + "]" * 101
    builder = building(BlockStarted(0, "tool_call", tool_call_id="c1", tool_name="f"), ArgumentsAppended(0, deep))
    [(path, message)] = refused(builder, BlockEnded(0))
    assert path == "$[2]"
    assert message.startswith("block 0 is not valid: $.input")


@pytest.mark.parametrize(
    ("event", "kind"),
    [(object(), "a Python object object"), ({"type": "text_delta"}, "an object"), ("TextAppended", "a string"),
     (None, "null")],
)
def test_an_unknown_event_is_refused_without_echoing_it(event, kind):
    """Anything that is not an event of the vocabulary is an error naming only its type."""
    assert refused(building(BlockStarted(0, "text")), event) == [("$[1]", f"unknown event: {kind}")]


def test_a_subclass_of_an_event_is_an_unknown_event():
    """Dispatch is on the exact class, so a subclass cannot slip a changed meaning in."""

    class Sneaky(TextAppended):
        pass

    assert refused(building(BlockStarted(0, "text")), Sneaky(0, "x")) == [("$[1]", "unknown event: a Python Sneaky object")]


def test_a_stream_that_ends_without_a_stop_has_snapshots_but_no_reply():
    """reply() raises at $, naming the open blocks; snapshot() still gives everything received."""
    builder = building(BlockStarted(0, "text"), TextAppended(0, "Hello"), BlockStarted(1, "tool_call"))
    with pytest.raises(StreamError) as info:
        builder.reply()
    assert info.value.errors == [("$", "the stream ended before the reply stopped; blocks still open: 0, 1")]
    assert builder.snapshot() == (cb.TextBlock(text="Hello"),)


def test_the_builder_goes_on_after_a_refused_event_and_paths_count_it():
    """A refused event is not applied, but it counts: the next error's path is the caller's index of the event."""
    builder = building(BlockStarted(0, "text"))
    refused(builder, TextAppended(1, "x"))
    builder.add(TextAppended(0, "ok"))
    assert refused(builder, BlockEnded(5)) == [("$[3].index", "block 5 was never started")]
    builder.feed([BlockEnded(0), ReplyStopped("end_turn")])
    assert builder.reply().message.content == (cb.TextBlock(text="ok"),)


def test_text_over_the_limit_is_refused_piece_by_piece():
    """A block's text may not grow past the 10,000,000-character limit; the text so far is kept."""
    piece = "a" * 6_000_000
    builder = building(BlockStarted(0, "text"), TextAppended(0, piece))
    assert refused(builder, TextAppended(0, piece)) == [("$[2]", "block 0 would hold more than 10,000,000 characters")]
    assert len(builder.snapshot()[0].text) == 6_000_000


def test_stream_errors_are_validation_errors_and_pickle_as_themselves():
    """StreamError is a ValidationError (one except clause catches both) and survives pickling with its class."""
    error = StreamError([("$[0]", "unknown event: null")])
    assert isinstance(error, cb.ValidationError)
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own object
    assert type(copy) is StreamError
    assert copy.errors == error.errors
    assert str(copy) == "$[0]: unknown event: null"
