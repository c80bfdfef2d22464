"""Properties of the fold: any cut of any reply folds back into it, and every snapshot on the way is sound."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import contentblocks as cb
from contentblocks.providers import Reply
from contentblocks.streaming import ReplyBuilder, StreamEvent, fold
from streaming.strategies import replies, streams

REPLY_AND_STREAM = replies().flatmap(lambda reply: st.tuples(st.just(reply), streams(reply)))


@given(REPLY_AND_STREAM)
def test_any_cut_of_a_reply_folds_back_into_it(pair: tuple[Reply, list[StreamEvent]]):
    """Text, reasoning, signatures and arguments cut anywhere, citations and blocks interleaved: the same reply."""
    reply, events = pair
    assert fold(events, reply.provider) == reply


def _grows_into(partial: cb.Block, final: cb.Block) -> bool:
    """Whether an open block's view is on its way to the final block: same kind, a prefix of its text."""
    if type(partial) is not type(final):
        return False
    if isinstance(partial, (cb.TextBlock, cb.RefusalBlock)):
        assert isinstance(final, (cb.TextBlock, cb.RefusalBlock))
        return final.text.startswith(partial.text)
    if isinstance(partial, cb.ReasoningBlock):
        assert isinstance(final, cb.ReasoningBlock)
        return partial.redacted == final.redacted and (final.text or "").startswith(partial.text or "")
    if isinstance(partial, cb.ToolCallBlock):
        assert isinstance(final, cb.ToolCallBlock)
        return (partial.tool_call_id, partial.tool_name) == (final.tool_call_id, final.tool_name)
    return partial == final


@given(REPLY_AND_STREAM, st.data())
def test_every_snapshot_on_the_way_is_a_prefix_of_the_reply(pair: tuple[Reply, list[StreamEvent]], data: st.DataObject):
    """At any point, ended blocks are final, open ones grow into theirs, and snapshot() lists the non-empty ones."""
    reply, events = pair
    content = reply.message.content if reply.message is not None else ()
    stop = data.draw(st.integers(0, len(events) - 1), label="events folded")
    builder = ReplyBuilder(reply.provider)
    builder.feed(events[:stop])
    views = [builder.block(i) for i in range(builder.block_count)]
    for i, view in enumerate(views):
        if i in builder.open_blocks:
            assert view is None or _grows_into(view, content[i])
        else:
            assert view == content[i]
    assert builder.snapshot() == tuple(view for view in views if view is not None)
    builder.feed(events[stop:])
    assert builder.snapshot() == content


@given(REPLY_AND_STREAM)
def test_the_stream_folds_the_same_when_snapshots_are_taken_after_every_event(pair: tuple[Reply, list[StreamEvent]]):
    """Snapshots join pieces and cache views; taking one after every event changes nothing in the reply."""
    reply, events = pair
    builder = ReplyBuilder(reply.provider)
    for event in events:
        builder.add(event)
        builder.snapshot()
    assert builder.reply() == reply
