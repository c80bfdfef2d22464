"""The neutral delta vocabulary: events are frozen, slotted, hashable and cannot be built invalid."""

from __future__ import annotations

import pickle
import typing

import attrs
import pytest

import contentblocks as cb
from contentblocks._checks._instances import plan_of
from contentblocks._checks._rules import Rule
from contentblocks.providers import Usage
from contentblocks.streaming import (
    ArgumentsAppended,
    BlockEnded,
    BlockStarted,
    CitationAdded,
    FileAdded,
    JsonAdded,
    MessageMetadataAdded,
    ReasoningAppended,
    ReasoningRedacted,
    RefusalAppended,
    ReplyStopped,
    ResponseIdentified,
    SignatureAppended,
    SignatureSet,
    StreamEvent,
    TextAppended,
    ToolCallIdentified,
    UsageUpdated,
)
from contentblocks.streaming._events import _Event

CITATION = cb.Citation(source=cb.CitedUri(value="https://example.com"), start=0, end=2)
FILE = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"))
EVENTS = [
    ResponseIdentified(model="claude-sonnet-4-5", response_id="msg_1"),
    BlockStarted(0, "tool_call", tool_call_id="call_1", tool_name="f", metadata={"anthropic/x": [1]}),
    TextAppended(0, "Hi"),
    RefusalAppended(0, "No"),
    ReasoningAppended(0, "Hmm"),
    SignatureSet(0, "sig"),
    SignatureAppended(0, "sig"),
    ReasoningRedacted(0, b"\x00"),
    CitationAdded(0, CITATION),
    ToolCallIdentified(0, tool_name="f"),
    ArgumentsAppended(0, '{"a"'),
    FileAdded(0, FILE),
    JsonAdded(0, cb.JsonBlock(value={"type": "server_tool_use"})),
    BlockEnded(0, {"openai/id": "fc_1"}, keep_invalid_arguments=True),
    MessageMetadataAdded({"app/trace": "t1"}),
    UsageUpdated(Usage(input_tokens=3, raw={"input_tokens": 3})),
    ReplyStopped("end_turn", "end_turn"),
]


@pytest.mark.parametrize("cls", typing.get_args(StreamEvent), ids=lambda c: c.__name__)
def test_every_event_field_names_its_rule(cls):
    """Every field of every event carries its rule in its metadata, and the event runs the blocks' one check."""
    for field in attrs.fields(cls):
        assert isinstance(field.metadata.get("rule"), Rule), (cls.__name__, field.name)
    assert [plan.key for plan in plan_of(cls)[0]] == [field.name for field in attrs.fields(cls)]
    assert cls.__attrs_post_init__ is _Event.__attrs_post_init__, cls.__name__


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_events_are_frozen_slotted_and_picklable(event):
    """No attribute can be set, there is no __dict__, and pickling gives an equal event."""
    field = attrs.fields(type(event))[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(event, field, None)
    assert not hasattr(event, "__dict__")
    assert pickle.loads(pickle.dumps(event)) == event  # noqa: S301 - our own object
    assert type(event).__module__ == "contentblocks.streaming"


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_equal_events_hash_equal(event):
    """An event and its pickled copy are equal and hash equal, metadata and blocks included."""
    assert hash(event) == hash(pickle.loads(pickle.dumps(event)))  # noqa: S301 - our own object


def test_deltas_of_different_kinds_are_never_equal():
    """A text delta and a reasoning delta with the same index and text are different events."""
    assert TextAppended(0, "a") != ReasoningAppended(0, "a")
    assert TextAppended(0, "a") == TextAppended(0, "a")


def test_metadata_is_frozen_and_not_aliased():
    """An event's metadata is a read-only copy: changing the caller's dict changes nothing."""
    given = {"app/k": [1]}
    event = BlockEnded(0, given)
    given["app/k"].append(2)
    assert event.metadata == {"app/k": [1]}
    with pytest.raises(TypeError):
        event.metadata["app/k"] = 3  # type: ignore[index]


def test_redacted_data_accepts_bytearray_and_memoryview_as_bytes():
    """A bytearray or memoryview payload is copied into bytes, as ReasoningBlock does."""
    assert ReasoningRedacted(0, bytearray(b"ab")).data == b"ab"
    assert type(ReasoningRedacted(0, memoryview(b"ab")).data) is bytes


@pytest.mark.parametrize(
    ("build", "problems"),
    [
        (lambda: TextAppended(True, "a"), [("$.index", "expected an integer, got a boolean")]),
        (lambda: TextAppended(-1, "a"), [("$.index", "must be 0 or more")]),
        (lambda: TextAppended("0", None), [("$.index", "expected an integer, got a string"),
                                           ("$.text", "expected a string, got null")]),
        (lambda: ArgumentsAppended(0, "\ud800"), [("$.text", "contains a lone surrogate (not a Unicode character)")]),
        (lambda: BlockStarted(0, "file"), [("$.kind", "expected one of: text, refusal, reasoning, tool_call")]),
        (lambda: BlockStarted(0, "text", tool_name="f"), [("$", "only a tool_call block has a tool call id and name")]),
        (lambda: BlockStarted(0, "tool_call", tool_call_id="a b"), [("$.tool_call_id", "contains whitespace or a control character")]),
        (lambda: BlockStarted(0, "text", metadata={"": 1}), [('$.metadata[""]', "metadata keys must not be empty")]),
        (lambda: BlockEnded(0, {"k": float("nan")}), [("$.metadata.k", "NaN and infinities are not JSON numbers")]),
        (lambda: BlockEnded(0, keep_invalid_arguments=1), [("$.keep_invalid_arguments", "expected a boolean, got an integer")]),
        (lambda: SignatureSet(0, ""), [("$.signature", "must not be empty")]),
        (lambda: ReasoningRedacted(0, b""), [("$.data", "must hold at least one byte")]),
        (lambda: ReasoningRedacted(0, "c2ln"), [("$.data", "expected bytes, got a string")]),
        (lambda: ReasoningRedacted(0, None), [("$.data", "expected bytes, got null")]),
        (lambda: CitationAdded(0, {"source": "x"}), [("$.citation", "expected a Citation, got an object")]),
        (lambda: ToolCallIdentified(0), [("$", "give a tool call id, a tool name or both")]),
        (lambda: FileAdded(0, cb.TextBlock(text="x")), [("$.block", "expected a FileBlock, got a Python TextBlock object")]),
        (lambda: JsonAdded(0, FILE), [("$.block", "expected a JsonBlock, got a Python FileBlock object")]),
        (lambda: UsageUpdated({"input_tokens": 1}), [("$.usage", "expected a Usage, got an object")]),
        (lambda: ReplyStopped("stop"), [("$.stop_reason", ("expected one of: end_turn, max_tokens, stop_sequence, "
                                                           "tool_use, content_filter, refusal, pause, error, other"))]),
        (lambda: ReplyStopped(provider_stop_reason=""), [("$.provider_stop_reason", "must not be empty")]),
        (lambda: ResponseIdentified(model=3), [("$.model", "expected a string, got an integer")]),
        (lambda: MessageMetadataAdded([]), [("$.metadata", "metadata must be an object, got an array")]),
    ],
)
def test_an_invalid_event_cannot_be_built(build, problems):
    """Each field is checked when the event is built, and every problem is listed with its path."""
    with pytest.raises(cb.ValidationError) as info:
        build()
    assert info.value.errors == problems


def test_an_empty_piece_is_a_valid_delta():
    """Providers send empty deltas (OpenAI's first chunk); they are valid events that add nothing."""
    assert TextAppended(0, "").text == ""
    assert SignatureAppended(0, "").signature == ""
