"""The history transforms on the failures other libraries' users report, and their arguments and reports."""

from __future__ import annotations

import copy
import pickle
import struct
import zlib
from typing import Any

import attrs
import pytest

import contentblocks as cb
from contentblocks.providers import Reply, Usage, anthropic, gemini, openai_chat, openai_responses

PREFLIGHT: dict[str, Any] = {
    "anthropic": anthropic.preflight,
    "gemini": gemini.preflight,
    "openai_chat": openai_chat.preflight,
    "openai_responses": openai_responses.preflight,
}


def user(text: str) -> cb.Message:
    return cb.Message(role="user", content=text)


def call(call_id: str, name: str = "lookup") -> cb.ToolCallBlock:
    return cb.ToolCallBlock(tool_call_id=call_id, tool_name=name, input={"q": call_id})


def result(call_id: str, name: str = "lookup", text: str = "found") -> cb.ToolResultBlock:
    return cb.ToolResultBlock(tool_call_id=call_id, tool_name=name, outcome="succeeded",
                              content=[cb.TextBlock(text=text)])


def tool(*results: cb.ToolResultBlock) -> cb.Message:
    return cb.Message(role="tool", content=results)


def assistant(*blocks: Any) -> cb.Message:
    return cb.Message(role="assistant", content=blocks)


def rules(provider: str, history: Any) -> list[str]:
    return [r.rule for r in PREFLIGHT[provider](cb.Conversation(messages=[*history, user("next")]))]


# ---------------------------------------------------------------------------------------------- peers' failures


def test_a_cut_between_a_call_and_its_result_is_refused_and_window_never_makes_it() -> None:
    """LiteLLM's ``trim_messages`` and others keep the last N messages: the first may be a result without its call."""
    history = cb.Conversation(messages=[user("Weather?"), assistant(call("c1")), tool(result("c1")),
                                        assistant(cb.TextBlock(text="Sunny.")), user("And tomorrow?"),
                                        assistant(call("c2")), tool(result("c2"))])
    naive = list(history[-5:])  # what a message-count trim keeps
    assert naive[0].role == "tool"
    with pytest.raises(cb.ValidationError, match="answers no earlier tool call"):
        cb.Conversation(messages=naive)
    assert "openai_responses/output-answers-call" in [r.rule for r in openai_responses.preflight(naive)]
    cut = cb.window(history, budget=4)
    assert [m.role for m in cut.payload] == ["user", "assistant", "tool"]
    assert [loss.path for loss in cut.losses] == ["$[0]", "$[1]", "$[2]", "$[3]"]
    for provider in PREFLIGHT:
        assert rules(provider, cut.payload) == []


def test_a_late_answer_after_a_user_message_keeps_its_call_in_the_window() -> None:
    """A ``Conversation`` may answer a call after a user message; the user message then starts no turn."""
    history = cb.Conversation(messages=[user("a"), assistant(call("c1")), user("hurry"), tool(result("c1")),
                                        assistant(cb.TextBlock(text="done"))])
    cut = cb.window(history, budget=3)
    assert cut.payload == history  # the newest turn starts at "a": the only cut point
    fixed = cb.repair(history)
    assert [m.role for m in fixed.payload] == ["user", "assistant", "tool", "user", "assistant"]
    assert [(loss.path, loss.kind) for loss in fixed.losses] == [("$[3].content[0]", "order_changed")]
    for provider in PREFLIGHT:
        assert rules(provider, history) != [] or provider == "openai_responses"
        assert rules(provider, fixed.payload) == []


def test_an_unanswered_call_at_the_end_is_refused_and_repair_answers_it() -> None:
    """An agent stopped between a call and its result (pydantic-ai, LangChain, Mastra issues): the next request fails."""
    history = cb.Conversation(messages=[user("Book it."), assistant(cb.TextBlock(text="Booking."), call("c1"))])
    for provider in ("anthropic", "openai_chat", "openai_responses"):  # Gemini's preflight does not check it
        assert rules(provider, history) != []
    for how, outcome in (("failed", "failed"), ("denied", "denied"), ("interrupted", "interrupted")):
        fixed = cb.repair(history, unanswered=how)  # type: ignore[arg-type]
        answer = fixed.payload[-1].tool_results()[0]
        assert (answer.tool_call_id, answer.outcome) == ("c1", outcome)
        assert answer.content[0].text == cb._history.UNANSWERED_RESULT_TEXT  # type: ignore[union-attr]
        for provider in PREFLIGHT:
            assert rules(provider, fixed.payload) == []
    dropped = cb.repair(history, unanswered="drop")
    assert dropped.payload[-1] == assistant(cb.TextBlock(text="Booking."))
    assert [(loss.path, loss.kind) for loss in dropped.losses] == [("$[1].content[1]", "content_dropped")]


def test_dropping_unanswered_calls_drops_the_reasoning_that_signed_them() -> None:
    thinking = cb.ReasoningBlock(text="I should look.", signature="sig", metadata={"contentblocks/issuer": "anthropic"})
    history = [user("q"), assistant(thinking, call("c1"))]
    fixed = cb.repair(history, unanswered="drop")
    assert [m.role for m in fixed.payload] == ["user"]
    assert {loss.path for loss in fixed.losses} == {"$[1].content[0]", "$[1].content[1]"}
    kept = cb.repair([user("q"), assistant(thinking, call("c1"), call("c2")), tool(result("c2"))], unanswered="drop")
    assert kept.payload[1].content == (thinking, call("c2"))


def test_pruning_keeps_the_reasoning_that_responses_items_reference() -> None:
    """Reasoning pruned from a Responses history: its function_call items reference the reasoning item (400)."""
    reasoning = cb.ReasoningBlock(text="Need the weather.", signature="gAAAA-encrypted",
                                  metadata={"contentblocks/issuer": "openai", "openai/id": "rs_1"})
    history = cb.Conversation(messages=[
        user("Weather?"), assistant(reasoning, call("fc_1")), tool(result("fc_1")),
        assistant(cb.ReasoningBlock(text="Answer.", metadata={"contentblocks/issuer": "openai", "openai/id": "rs_2"}),
                  cb.TextBlock(text="Sunny.")),
        user("Thanks"), assistant(cb.TextBlock(text="Welcome.")),
    ])
    pruned = cb.prune(history, keep_turns=1)
    assert pruned.payload[1].content[0] is reasoning  # it signed the calls: kept
    assert [(loss.path, loss.kind) for loss in pruned.losses] == [
        ("$[2].content[0].content", "content_dropped"),
        ("$[3].content[0]", "content_dropped"),
    ]
    assert openai_responses.preflight(cb.Conversation(messages=[*pruned.payload, user("next")])) == ()
    assert openai_responses.preflight(
        cb.Conversation(messages=[*pruned.payload, user("next")]), store=False) == ()


# ---------------------------------------------------------------------------------------------- repair


def test_duplicate_ids_are_renamed_with_their_results() -> None:
    """Some models number their calls from call_0 in every turn; the ids then repeat across the history."""
    turn = [user("q"), assistant(call("call_0")), tool(result("call_0", text="first"))]
    again = [user("q2"), assistant(call("call_0")), tool(result("call_0", text="second"))]
    fixed = cb.repair([*turn, *again])
    ids = [(b.tool_call_id, type(b).__name__) for m in fixed.payload for b in m.content
           if isinstance(b, (cb.ToolCallBlock, cb.ToolResultBlock))]
    assert ids == [("call_0", "ToolCallBlock"), ("call_0", "ToolResultBlock"),
                   ("call_0~1", "ToolCallBlock"), ("call_0~1", "ToolResultBlock")]
    assert fixed.payload[5].tool_results()[0].content[0].text == "second"  # type: ignore[union-attr]
    assert [(loss.path, loss.kind) for loss in fixed.losses] == [("$[4].content[0].tool_call_id", "content_degraded")]


def test_a_renamed_id_avoids_ids_used_later() -> None:
    history = [user("q"), assistant(call("a")), tool(result("a")), assistant(call("a")), tool(result("a")),
               assistant(call("a~1")), tool(result("a~1"))]
    fixed = cb.repair(history).payload
    assert [c.tool_call_id for m in fixed for c in m.tool_calls()] == ["a", "a~2", "a~1"]


def test_orphan_and_mismatched_results_are_dropped() -> None:
    history = [user("q"), tool(result("nowhere")), assistant(call("c1")), tool(result("c1", name="other")),
               tool(result("c1")), tool(result("c1", text="twice"))]
    fixed = cb.repair(history)
    assert [m.role for m in fixed.payload] == ["user", "assistant", "tool"]
    assert fixed.payload[2].tool_results()[0].content[0].text == "found"  # type: ignore[union-attr]
    assert [(loss.path, loss.kind) for loss in fixed.losses] == [
        ("$[1].content[0]", "content_dropped"), ("$[3].content[0]", "content_dropped"),
        ("$[5].content[0]", "content_dropped"),
    ]


def test_a_tool_message_answering_two_call_messages_is_split() -> None:
    history = cb.Conversation(messages=[user("q"), assistant(call("a")), assistant(call("b")),
                                        tool(result("b"), result("a"))])
    assert "openai_chat/calls-answered" in rules("openai_chat", history)
    fixed = cb.repair(history)
    assert [[b.tool_call_id for b in m.content] for m in fixed.payload[1:]] == [["a"], ["a"], ["b"], ["b"]]
    for provider in PREFLIGHT:
        assert rules(provider, fixed.payload) == []


def test_gemini_needs_consecutive_assistant_messages_merged() -> None:
    history = cb.Conversation(messages=[user("q"), assistant(cb.TextBlock(text="Let me look.")),
                                        cb.Message(role="assistant", content=[call("c1")], metadata={"app/n": 2}),
                                        tool(result("c1"))])
    assert rules("gemini", history) == ["gemini/call-follows-user"]
    assert cb.repair(history).payload is history  # the other providers take it as it is
    merged = cb.repair(history, provider="gemini")
    assert merged.payload[1] == cb.Message(role="assistant", content=[cb.TextBlock(text="Let me look."), call("c1")],
                                           metadata={"app/n": 2})
    assert [(loss.path, loss.kind) for loss in merged.losses] == [("$[2]", "content_degraded")]
    assert rules("gemini", merged.payload) == []


def test_repair_changes_nothing_in_a_good_history_and_checks_its_arguments() -> None:
    history = cb.Conversation(messages=[user("q"), assistant(call("c1")), tool(result("c1"))])
    assert cb.repair(history).payload is history
    assert cb.repair(list(history)).payload == history
    with pytest.raises(ValueError, match="unanswered must be one of"):
        cb.repair(history, unanswered="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="provider must be one of"):
        cb.repair(history, provider="openai")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sequence of Message"):
        cb.repair([{"role": "user", "content": "q"}])  # type: ignore[list-item]


def test_a_changed_message_loses_its_seal() -> None:
    key = cb.SealKey("k", b"k" * 32)
    sealed = cb.seal(assistant(call("c1")), key, context="conv")
    fixed = cb.repair([user("q"), sealed, user("q2"), cb.seal(assistant(call("c1")), key, context="conv")],
                      unanswered="failed")
    assert "contentblocks/seal" in fixed.payload[1].metadata  # unchanged: still as sealed
    assert "contentblocks/seal" not in fixed.payload[4].metadata  # renamed id: no longer as sealed


# ---------------------------------------------------------------------------------------------- window


def test_window_keeps_system_and_pinned_turns() -> None:
    history = cb.Conversation(messages=[
        cb.Message(role="system", content="Rules."), user("Remember: blue."), assistant(cb.TextBlock(text="OK.")),
        user("x"), assistant(cb.TextBlock(text="y")), cb.Message(role="developer", content="Be terse."),
        user("Colour?"), assistant(cb.TextBlock(text="Blue.")),
    ])
    cut = cb.window(history, budget=4, keep=lambda m: "Remember" in m.text())
    assert [m.text() for m in cut.payload] == ["Rules.", "Remember: blue.", "OK.", "Be terse.", "Colour?", "Blue."]
    assert [loss.path for loss in cut.losses] == ["$[3]", "$[4]"]


def test_window_keeps_the_newest_turn_even_over_budget() -> None:
    history = cb.Conversation(messages=[user("a"), assistant(cb.TextBlock(text="b")), user("c" * 400)])
    cut = cb.window(history, budget=10, estimator=cb.TokenEstimator())
    assert [m.text()[:1] for m in cut.payload] == ["c"]
    assert cb.window(cut.payload, budget=10, estimator=cb.TokenEstimator()).payload is cut.payload


def test_window_estimates_each_message_once_and_not_the_old_ones_it_leaves_out() -> None:
    """Once the newest messages are over the budget, older ones not pinned are never estimated."""
    history = cb.Conversation(messages=[
        cb.Message(role="system", content="Rules."),
        *[m for n in range(20) for m in (user(f"q{n}"), assistant(cb.TextBlock(text=f"a{n}")))],
    ])
    seen: list[str] = []

    def estimator(message: cb.Message) -> int:
        seen.append(message.text())
        return 10

    cut = cb.window(history, budget=50, estimator=estimator)
    assert [m.text() for m in cut.payload] == ["Rules.", "q18", "a18", "q19", "a19"]
    assert len(seen) == len(set(seen))  # once each
    assert set(seen) == {"Rules.", "q19", "a19", "q18", "a18", "q17", "a17"}
    seen.clear()
    assert cb.window(history, budget=1_000, estimator=estimator).payload is history
    assert len(seen) == len(history)  # a history that fits is estimated whole


def test_window_checks_its_arguments() -> None:
    history = cb.Conversation(messages=[user("a")])
    assert cb.window(history, budget=1).payload is history
    with pytest.raises(ValueError, match="budget must be a non-negative int"):
        cb.window(history, budget=-1)
    with pytest.raises(ValueError, match="estimator must return a non-negative int"):
        cb.window(history, budget=1, estimator=lambda m: 0.5)  # type: ignore[arg-type,return-value]
    with pytest.raises(cb.ValidationError):
        cb.window([user("a"), tool(result("c1"))], budget=1)
    with pytest.raises(TypeError, match="takes a Conversation"):
        cb.window("a", budget=1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- prune


def test_prune_replaces_files_and_drops_provider_state() -> None:
    image = cb.FileBlock(media_type="image/png", source=cb.BytesSource(data=b"\x89PNG"), filename="plot.png")
    native = cb.JsonBlock(value={"type": "web_search_call", "id": "ws_1"}, metadata={"openai/input_item": True})
    history = cb.Conversation(messages=[
        user("See"), cb.Message(role="user", content=[cb.TextBlock(text="this"), image]),
        assistant(native, cb.ReasoningBlock(redacted=b"\x01"), cb.TextBlock(text="Seen.")),
        user("now"),
    ])
    pruned = cb.prune(history, keep_turns=1)
    assert pruned.payload[1].content[1] == cb.TextBlock(
        text="[A file was pruned from the history to save space: image/png, plot.png]")
    assert pruned.payload[2].content == (cb.TextBlock(text="Seen."),)
    assert [(loss.path, loss.kind) for loss in pruned.losses] == [
        ("$[1].content[1]", "content_dropped"),
        ("$[2].content[0]", "state_not_replayed"),
        ("$[2].content[1]", "state_not_replayed"),
    ]
    only_files = cb.prune(history, keep_turns=1, state=False, reasoning=False)
    assert [loss.path for loss in only_files.losses] == ["$[1].content[1]"]
    assert cb.prune(history, keep_turns=5).payload is history
    with pytest.raises(ValueError, match="keep_turns"):
        cb.prune(history, keep_turns=-1)
    with pytest.raises(TypeError, match="files must be a bool"):
        cb.prune(history, files=1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- usage and estimates


def test_usage_adds_up() -> None:
    replies = [Usage(input_tokens=10, output_tokens=2, cache_read_tokens=8, total_tokens=12),
               Usage(input_tokens=20, output_tokens=3, reasoning_tokens=1, cache_write_tokens=5, total_tokens=23)]
    total = sum(replies)
    assert total == Usage(input_tokens=30, output_tokens=5, cache_read_tokens=8, cache_write_tokens=5,
                          reasoning_tokens=1, total_tokens=35)
    assert sum(replies, Usage()) == total
    assert Usage() + Usage() == Usage()
    with pytest.raises(TypeError):
        _ = Usage() + 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = 1 + Usage()  # type: ignore[operator]


def _png(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + header + struct.pack(">I", zlib.crc32(b"IHDR" + header))


def test_images_cost_their_providers_formula() -> None:
    image = cb.Message(role="user", content=[cb.FileBlock(media_type="image/png",
                                                           source=cb.BytesSource(data=_png(1000, 1000)))])
    by_url = cb.Message(role="user", content=[cb.FileBlock(media_type="image/png",
                                                            source=cb.UrlSource(url="https://example.com/a.png"))])
    assert cb.TokenEstimator("anthropic")(image) == 4 + 1334
    assert cb.TokenEstimator("openai_chat")(image) == 4 + 765
    assert cb.TokenEstimator("gemini")(image) == 2 + 1032
    assert cb.TokenEstimator("anthropic")(by_url) == 4 + 1600


def test_the_estimator_counts_every_kind_and_takes_a_tokenizer() -> None:
    history = [user("Hello"), assistant(cb.ReasoningBlock(text="hmm"), call("c1")), tool(result("c1")),
               assistant(cb.JsonBlock(value={"a": 1}), cb.RefusalBlock(text="No."))]
    estimate = cb.estimate_tokens(history)
    assert estimate == sum(map(cb.TokenEstimator(), history))
    assert estimate > 4 * len(history)
    seen: list[str] = []
    cb.estimate_tokens(history, count_text=lambda text: seen.append(text) or 1)
    assert seen == ["Hello", "hmm", "lookup", '{"q":"c1"}', "found", '{"a":1}', "No."]
    with pytest.raises(ValueError, match="provider must be one of"):
        cb.TokenEstimator("openai")
    with pytest.raises(TypeError, match="count_text must be a callable"):
        cb.TokenEstimator(count_text=3)  # type: ignore[arg-type]


def test_the_estimator_remembers_each_message_object_it_estimated() -> None:
    """An estimator asks its tokenizer once per message object; an equal but new message is estimated anew."""
    seen: list[str] = []
    estimate = cb.TokenEstimator(count_text=lambda text: seen.append(text) or len(text))
    first = user("Hello there")
    assert estimate(first) == estimate(first) == 4 + 11
    assert seen == ["Hello there"]
    assert estimate(user("Hello there")) == 4 + 11
    assert seen == ["Hello there", "Hello there"]


def test_the_estimator_memo_holds_no_message_alive() -> None:
    """Estimating many short-lived messages leaves the memo near the number alive, not the number seen."""
    estimate = cb.TokenEstimator()
    for n in range(10_000):
        estimate(user(f"message {n}"))
    assert len(estimate.memo.entries) <= 2_048


def test_a_copied_or_pickled_estimator_is_equal_and_starts_its_own_memo() -> None:
    """Pickle and copy give the same provider and tokenizer, with an empty memo (weak references do not pickle)."""
    estimate = cb.TokenEstimator("gemini")
    estimate(user("Hello"))
    for twin in (pickle.loads(pickle.dumps(estimate)), copy.copy(estimate), copy.deepcopy(estimate)):  # noqa: S301 - our own object
        assert twin == estimate
        assert twin.memo.entries == {}
        assert twin(user("Hello")) == estimate(user("Hello"))


def test_a_conversation_checked_from_its_tool_blocks_still_refuses_a_bad_pairing() -> None:
    """``paired`` (repair's check of what it wrote) raises what the full check raises for an orphan result."""
    from contentblocks._history._turns import paired  # noqa: PLC0415 - the private check repair uses
    from contentblocks._model._conversation import tool_summary  # noqa: PLC0415

    messages = [user("a"), tool(result("c1"))]
    with pytest.raises(cb.ValidationError) as paired_error:
        paired(messages, tool_summary(messages, 0))
    with pytest.raises(cb.ValidationError) as full_error:
        cb.Conversation(messages=messages)
    assert paired_error.value.errors == full_error.value.errors
    good = [user("a"), assistant(call("c1")), tool(result("c1"))]
    built = paired(good, tool_summary(good, 0))
    assert built == cb.Conversation(messages=good)
    assert built.append(user("b")).pending_tool_calls() == ()


def _reply(text: str, **counts: int) -> Reply:
    return Reply(message=assistant(cb.TextBlock(text=text)), usage=Usage(**counts), provider="anthropic")


def test_total_usage_counts_each_reply_object_once() -> None:
    """The same reply twice counts once; an equal but distinct reply counts again; no usage adds nothing."""
    first = _reply("a", input_tokens=100, output_tokens=10, cache_read_tokens=80)
    twin = _reply("a", input_tokens=100, output_tokens=10, cache_read_tokens=80)
    bare = Reply(message=assistant(cb.TextBlock(text="b")), usage=None, provider="gemini")
    total = cb.total_usage(iter([first, first, twin, bare, first]))
    assert (total.input_tokens, total.output_tokens, total.cache_read_tokens, total.reasoning_tokens) == (
        200, 20, 160, None)


def test_total_usage_of_nothing_is_the_empty_usage() -> None:
    """No reply (or only replies without usage) gives ``Usage()``, what ``sum`` starts from."""
    assert cb.total_usage([]) == Usage()
    assert cb.total_usage([], conversation=cb.Conversation(messages=[user("a")])) == Usage()
    assert cb.total_usage([Reply(message=None, usage=None, provider="openai_chat")]) == Usage()


def test_total_usage_with_a_conversation_counts_the_replies_it_still_holds() -> None:
    """After a window, only the replies whose message object the history holds count; equal messages do not."""
    history = cb.Conversation(messages=[cb.Message(role="system", content="Be brief.")])
    replies = []
    for n in range(6):
        reply = _reply(f"answer {n}", input_tokens=10 * (n + 1), output_tokens=1)
        replies.append(reply)
        history = history.extend([user(f"question {n}"), reply.require_message()])
    assert cb.total_usage(replies, conversation=history).input_tokens == 210
    kept = cb.window(history, budget=5).payload  # the system message and the last two turns
    assert cb.total_usage(replies, conversation=kept) == Usage(input_tokens=50 + 60, output_tokens=2)
    assert cb.total_usage(replies, conversation=list(kept)).input_tokens == 110
    copies = [cb.Message(role=m.role, content=m.content) for m in kept]  # equal, not the same objects
    assert cb.total_usage(replies, conversation=copies) == Usage()
    no_message = Reply(message=None, usage=Usage(input_tokens=7), provider="gemini")
    assert cb.total_usage([no_message]).input_tokens == 7
    assert cb.total_usage([no_message], conversation=kept) == Usage()


def test_total_usage_checks_its_arguments() -> None:
    """Anything but replies, or a conversation that is no sequence of messages, is a ``TypeError``."""
    with pytest.raises(TypeError, match="takes Reply objects, got Usage"):
        cb.total_usage([Usage(input_tokens=1)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="conversation must be a Conversation"):
        cb.total_usage([], conversation="hello")  # type: ignore[arg-type]


def test_a_documents_title_and_context_are_estimated() -> None:
    """A document sends its title and context beside its content: the estimate counts their text."""
    estimate = cb.TokenEstimator("anthropic")
    plain = cb.FileBlock(media_type="text/plain", source=cb.BytesSource(data=b"Grass is green."))
    titled = attrs.evolve(plain, title="Botany notes", context="From the field trip in May")
    assert estimate.block(titled) == estimate.block(plain) + estimate.text("Botany notes") + estimate.text(
        "From the field trip in May"
    )
