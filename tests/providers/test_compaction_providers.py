"""Compaction through every provider: documented payloads read, same-provider round trips with no loss, the
cross-provider matrix asserted cell by cell, and the streams folded as the SDKs fold them.

The payloads follow the providers' documentation and are validated with the SDKs' own types:

- Anthropic: https://platform.claude.com/docs/en/build-with-claude/compaction (a ``compaction`` block in the
  assistant's content, ``content`` the summary or ``null`` for a failed compaction, sent back as it came; the
  SDK's ``BetaCompactionBlock`` adds ``encrypted_content``, ``signature`` and ``tool_changes``, and its stream a
  ``compaction_delta`` that carries the whole summary).
- OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/compact (a ``compaction`` item with
  ``id`` and ``encrypted_content``, in a compacted response's output and in a request's input).
"""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

import contentblocks as cb
from contentblocks.bridges import langchain, openai_agents, pydantic_ai, vercel_ai
from contentblocks.providers import ISSUER_KEY, anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import CompactionAdded
from contentblocks.streaming import anthropic as anthropic_stream
from contentblocks.streaming import openai_responses as responses_stream
from provider_checks import anthropic_message, assert_documented, documented_reasons
from streaming.checks import fold
from streaming.sdk_final import responses_final

sdk = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent  # noqa: E402
from openai.types.responses import Response, ResponseStreamEvent  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

SUMMARY = (
    "The user is building a web scraper in Python. We chose httpx and selectolax, wrote fetch_page() with "
    "retries, and agreed to store results in SQLite. Next: parse the product listing pages."
)
#: An Anthropic compaction block as the SDK's ``BetaCompactionBlock`` gives it back.
ANTHROPIC_BLOCK = {"type": "compaction", "content": SUMMARY, "encrypted_content": "Eo8BCkYIBxgCKkBlbmM=",
                   "signature": "EqQBCkgIARABGAIiQLsig"}
#: An OpenAI compaction item, as ``/responses/compact`` returns it in its output.
OPENAI_ITEM = {"type": "compaction", "id": "cmp_68af4c0e1a2c8190", "encrypted_content": "gAAAAABoz_compacted"}


def _anthropic_reply(content: list[Any]) -> Any:
    return BetaMessage.model_validate(anthropic_message(content, "end_turn"))


def _responses(output: list[Any]) -> Response:
    return Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5.1", "status": "completed",
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    })


def _history(*assistant: cb.Block) -> cb.Conversation:
    return cb.Conversation(messages=[
        cb.Message(role="user", content="Help me build a scraper."),
        cb.Message(role="assistant", content=[*assistant, cb.TextBlock(text="Next, the listing pages.")]),
        cb.Message(role="user", content="Go on."),
    ])


# ---------------------------------------------------------------------------------------------- Anthropic


def test_an_anthropic_compaction_reads_as_a_compaction_with_its_state_in_metadata():
    reply = anthropic.from_response(_anthropic_reply([ANTHROPIC_BLOCK, {"type": "text", "text": "Next."}]))
    compaction = reply.message.content[0]
    assert compaction == cb.CompactionBlock(summary=SUMMARY, metadata={
        ISSUER_KEY: "anthropic", "anthropic/encrypted_content": "Eo8BCkYIBxgCKkBlbmM=",
        "anthropic/signature": "EqQBCkgIARABGAIiQLsig"})


def test_a_failed_anthropic_compaction_has_no_summary():
    """The docs: ``content`` is null when the compaction failed; the server treats the block as a no-op."""
    reply = anthropic.from_response(_anthropic_reply([{"type": "compaction", "content": None}]))
    assert reply.message.content == (cb.CompactionBlock(metadata={ISSUER_KEY: "anthropic"}),)
    sent = anthropic.to_provider(cb.Conversation(messages=[reply.message]))
    assert sent.payload["messages"][0]["content"] == [{"type": "compaction", "content": None}]
    assert sent.losses == ()


@pytest.mark.parametrize("block", [
    ANTHROPIC_BLOCK,
    {"type": "compaction", "content": SUMMARY},
    {"type": "compaction", "content": SUMMARY, "cache_control": {"type": "ephemeral"},
     "tool_changes": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "search"}}]},
])
def test_an_anthropic_compaction_goes_back_to_anthropic_as_it_came(block):
    request = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                            {"role": "assistant", "content": [block, {"type": "text", "text": "Next."}]}]}
    conversation = anthropic.from_provider(copy.deepcopy(request))
    sent = anthropic.to_provider(conversation)
    assert sent.payload == request
    assert sent.losses == ()


def test_a_compaction_in_an_anthropic_user_turn_is_kept_verbatim():
    """Not where the API puts one (a compaction is the assistant's): kept as the native block it is."""
    request = {"messages": [{"role": "user", "content": [{"type": "compaction", "content": SUMMARY}]}]}
    block = anthropic.from_provider(request)[0].content[0]
    assert isinstance(block, cb.JsonBlock)
    assert block.value == {"type": "compaction", "content": SUMMARY}


def _beta_events(raw: list[dict[str, Any]]) -> list[Any]:
    adapter = TypeAdapter(BetaRawMessageStreamEvent)
    return [adapter.validate_python(copy.deepcopy(event)) for event in raw]


def _anthropic_stream() -> list[dict[str, Any]]:
    start = anthropic_message([], None)
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
        {"type": "content_block_delta", "index": 0, "delta": {
            "type": "compaction_delta", "content": SUMMARY, "encrypted_content": "Eo8BCkYIBxgCKkBlbmM="}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Next."}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]


@pytest.mark.parametrize("form", ["json", "sdk objects", "model_dump"])
def test_an_anthropic_stream_folds_a_compaction_as_the_sdk_accumulates_it(form):
    """Held out: the beta SDK's ``accumulate_event`` builds the message, ``from_response`` reads it."""
    from anthropic.lib.streaming._beta_messages import accumulate_event  # noqa: PLC0415

    raw = _anthropic_stream()
    snapshot, buffers = None, {}
    for event in _beta_events(raw):
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers,
                                    request_headers=httpx.Headers())
    expected = anthropic.from_response(snapshot)
    events = {"json": raw, "sdk objects": _beta_events(raw),
              "model_dump": [e.model_dump() for e in _beta_events(raw)]}[form]
    assert anthropic_stream.fold(events) == expected
    assert expected.message.content[0].summary == SUMMARY
    added = [e for e in anthropic_stream.events(raw) if isinstance(e, CompactionAdded)]
    assert [e.index for e in added] == [0]


def test_a_compaction_delta_for_another_block_is_refused():
    raw = _anthropic_stream()
    raw[5] = {"type": "content_block_delta", "index": 1, "delta": {"type": "compaction_delta", "content": "x"}}
    with pytest.raises(cb.ValidationError, match="compaction_delta"):
        anthropic_stream.fold(raw)


# ---------------------------------------------------------------------------------------------- Responses


def test_an_openai_compaction_item_reads_as_a_compaction_of_state_alone():
    reply = openai_responses.from_response(_responses([OPENAI_ITEM]))
    assert reply.message.content == (cb.CompactionBlock(metadata={
        ISSUER_KEY: "openai", "openai/id": OPENAI_ITEM["id"], "openai/encrypted_content": OPENAI_ITEM["encrypted_content"]}),)


def test_an_openai_compaction_item_goes_back_to_openai_as_it_came():
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}, OPENAI_ITEM,
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on."}]}]
    sent = openai_responses.to_provider(openai_responses.from_provider({"input": copy.deepcopy(items)}))
    assert sent.payload["input"] == items
    assert sent.losses == ()


def test_a_reply_compaction_goes_back_without_its_response_only_fields():
    """``created_by`` is in a response's item only: not sent, and not reported (it is the item's bookkeeping)."""
    reply = openai_responses.from_response(_responses([{**OPENAI_ITEM, "created_by": "user_1"}]))
    sent = openai_responses.to_provider(cb.Conversation(messages=[reply.message]))
    assert sent.payload["input"] == [OPENAI_ITEM]
    assert sent.losses == ()


def test_an_openai_compaction_with_a_summary_sends_the_state_and_reports_the_summary():
    block = cb.CompactionBlock(summary=SUMMARY, metadata={ISSUER_KEY: "openai", "openai/encrypted_content": "gA"})
    sent = openai_responses.to_provider(_history(block))
    assert {"type": "compaction", "encrypted_content": "gA"} in sent.payload["input"]
    assert [(loss.path, loss.kind) for loss in sent.losses] == [("$[1].content[0].summary", "content_dropped")]


def test_a_responses_stream_folds_a_compaction_as_the_sdk_does():
    """Held out: the SDK's ``ResponseStreamState`` builds the response, ``from_response`` reads it."""
    done = _responses([OPENAI_ITEM]).model_dump(mode="json")
    raw = [
        {"type": "response.created", "sequence_number": 0, "response": {**done, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": OPENAI_ITEM},
        {"type": "response.output_item.done", "sequence_number": 2, "output_index": 0, "item": OPENAI_ITEM},
        {"type": "response.completed", "sequence_number": 3, "response": done},
    ]
    adapter = TypeAdapter(ResponseStreamEvent)
    expected = openai_responses.from_response(responses_final([adapter.validate_python(e) for e in raw]))
    assert fold(responses_stream.Reader(), raw) == expected
    assert isinstance(expected.message.content[0], cb.CompactionBlock)


# ---------------------------------------------------------------------------------------------- the matrix

ANTHROPIC = cb.CompactionBlock(summary=SUMMARY, metadata={
    ISSUER_KEY: "anthropic", "anthropic/encrypted_content": "Eo8B", "anthropic/signature": "EqQB"})
OPENAI = cb.CompactionBlock(metadata={ISSUER_KEY: "openai", "openai/id": "cmp_1", "openai/encrypted_content": "gA"})
LOCAL = cb.CompactionBlock(summary=SUMMARY)  # an application's own summary: no issuer, no state
EMPTY = cb.CompactionBlock()


def _anthropic_text(payload: dict[str, Any]) -> list[Any]:
    return payload["messages"][1]["content"]


def _written_text(converted: Any) -> bool:
    return SUMMARY in repr(converted.payload)


#: target -> its write function, the page of its Degradations table, and whether it has compactions of its own.
TARGETS: dict[str, Any] = {
    "anthropic": (anthropic.to_provider, "anthropic.md"),
    "openai_responses": (openai_responses.to_provider, "openai_responses.md"),
    "openai_chat": (openai_chat.to_provider, "openai_chat.md"),
    "gemini": (gemini.to_provider, "gemini.md"),
}

#: (block, target) -> the kinds of loss reported at the block: () kept, else degraded or dropped.
MATRIX: dict[tuple[str, str], tuple[str, ...]] = {
    ("anthropic", "anthropic"): (),
    ("anthropic", "openai_responses"): ("state_not_replayed", "content_degraded"),
    ("anthropic", "openai_chat"): ("state_not_replayed", "content_degraded"),
    ("anthropic", "gemini"): ("state_not_replayed", "content_degraded"),
    ("openai", "anthropic"): ("state_not_replayed",),
    ("openai", "openai_responses"): (),
    ("openai", "openai_chat"): ("state_not_replayed",),
    ("openai", "gemini"): ("state_not_replayed",),
    ("local", "anthropic"): ("content_degraded",),
    ("local", "openai_responses"): ("content_degraded",),
    ("local", "openai_chat"): ("content_degraded",),
    ("local", "gemini"): ("content_degraded",),
    ("empty", "anthropic"): ("content_dropped",),
    ("empty", "openai_responses"): ("content_dropped",),
    ("empty", "openai_chat"): ("content_dropped",),
    ("empty", "gemini"): ("content_dropped",),
}
BLOCKS = {"anthropic": ANTHROPIC, "openai": OPENAI, "local": LOCAL, "empty": EMPTY}


@pytest.mark.parametrize(("block", "target"), sorted(MATRIX))
def test_the_compaction_matrix(block, target):
    """Kept where its issuer is the target; elsewhere the summary as text (degraded), the state dropped and
    reported, never as text; every reason has its row in the target's Degradations table."""
    write, page = TARGETS[target]
    converted = write(_history(BLOCKS[block]))
    at_block = tuple(loss.kind for loss in converted.losses if loss.path.startswith("$[1].content[0]"))
    assert at_block == MATRIX[(block, target)]
    assert_documented(documented_reasons(page), converted.losses)
    text = repr(converted.payload)
    for secret in [value for key, value in BLOCKS[block].metadata.items() if key != ISSUER_KEY]:
        assert (secret in text) == (not at_block), secret  # state goes to its issuer, nowhere else
    assert (SUMMARY in text) == (BLOCKS[block].summary is not None)


def test_a_compaction_from_an_unverified_message_is_not_replayed():
    """With ``keys=``, a compaction in a message whose seal does not verify loses its state, as reasoning does."""
    key = cb.SealKey("k1", b"k" * 32)
    converted = anthropic.to_provider(_history(ANTHROPIC), keys=key)
    kinds = [loss.kind for loss in converted.losses if loss.path.startswith("$[1].content[0]")]
    assert "state_not_replayed" in kinds
    assert "Eo8B" not in repr(converted.payload)


# ---------------------------------------------------------------------------------------------- bridges


@pytest.mark.parametrize("block", [ANTHROPIC, OPENAI, LOCAL])
def test_pydantic_ai_holds_a_compaction_natively(block):
    history = _history(block)
    converted = pydantic_ai.to_messages(history)
    assert converted.losses == ()
    part = converted.payload[1].parts[0]
    assert type(part).__name__ == "CompactionPart"
    assert part.content == block.summary
    back = pydantic_ai.from_messages(converted.payload)
    assert back[1].content[0] == block


def test_the_agents_sdk_reads_and_writes_a_compaction_item():
    agents = pytest.importorskip("agents")
    item = agents.items.CompactionItem(agent=agents.Agent(name="a"), raw_item=dict(OPENAI_ITEM))
    conversation = openai_agents.from_items([{"role": "user", "content": "Hi"}, item])
    assert conversation[1].content[0] == cb.CompactionBlock(metadata={
        ISSUER_KEY: "openai", "openai/id": OPENAI_ITEM["id"], "openai/encrypted_content": OPENAI_ITEM["encrypted_content"]})
    written = openai_agents.to_items(conversation)
    assert OPENAI_ITEM in written.payload


@pytest.mark.parametrize("write", [langchain.to_messages, vercel_ai.to_ui_messages, vercel_ai.to_model_messages])
@pytest.mark.parametrize(("block", "kinds"), [(ANTHROPIC, ("state_not_replayed", "content_degraded")),
                                              (OPENAI, ("state_not_replayed",)), (LOCAL, ("content_degraded",))])
def test_langchain_and_vercel_get_the_summary_as_text(write, block, kinds):
    converted = write(_history(block))
    assert tuple(loss.kind for loss in converted.losses if loss.path.startswith("$[1].content[0]")) == kinds
    text = repr(converted.payload)
    assert "Eo8B" not in text
    assert "gA" not in text
    assert (SUMMARY in text) == (block.summary is not None)
