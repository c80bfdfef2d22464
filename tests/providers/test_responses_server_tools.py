"""The tools OpenAI runs, read from the Responses API as server tool calls and results, and written back.

Golden items are the documented ones:

- web search: https://platform.openai.com/docs/guides/tools-web-search (the output example: a ``web_search_call``
  with its ``action``; ``sources`` with ``include=["web_search_call.action.sources"]``), and the API reference's
  ``ResponseFunctionWebSearch`` (actions ``search``, ``open_page``, ``find_in_page``);
- file search: https://platform.openai.com/docs/guides/tools-file-search (the output example; ``results`` with
  ``include=["file_search_call.results"]``);
- code interpreter: https://platform.openai.com/docs/guides/tools-code-interpreter and the API reference's
  ``ResponseCodeInterpreterToolCall`` (``outputs`` of ``logs`` and ``image`` with ``include``);
- image generation: https://platform.openai.com/docs/guides/tools-image-generation (the output example);
- remote MCP: https://platform.openai.com/docs/guides/tools-remote-mcp (the ``mcp_call`` of the ``dmcp`` example).
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.bridges import openai_agents
from contentblocks.providers import ISSUER_KEY, LOSS_KINDS, LossError, anthropic, gemini, openai_chat, openai_responses
from contentblocks.streaming import ServerToolAdded
from contentblocks.streaming import openai_responses as responses_stream
from provider_checks import assert_documented, documented_reasons

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"

WEB_SEARCH = {
    "type": "web_search_call",
    "id": "ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "positive news story today",
        "sources": [{"type": "url", "url": "https://www.theguardian.com/world/2025/mar/06/good-news"}],
    },
}
OPEN_PAGE = {"type": "web_search_call", "id": "ws_2", "status": "completed",
             "action": {"type": "open_page", "url": "https://www.theguardian.com/world/2025/mar/06/good-news"}}
FILE_SEARCH = {
    "type": "file_search_call",
    "id": "fs_67c09ccea8c48191ade9367e3ba71515",
    "status": "completed",
    "queries": ["What is deep research?"],
    "results": [{"file_id": "file-2dtbBZdjtDKS8eqWxqbgDi", "filename": "deep_research_blog.pdf", "score": 0.92,
                 "text": "Deep research is an agent that finds, analyzes and synthesizes online sources.",
                 "attributes": {}}],
}
CODE = {
    "type": "code_interpreter_call",
    "id": "ci_6848e1b7d5d08191b8cd1a7a1a0b08a4",
    "status": "completed",
    "code": "import math\nprint(math.sqrt(3 * 7 + 4))",
    "container_id": "cntr_6848e1b5a7a08191a4e1e8b7d9e8a0b9",
    "outputs": [{"type": "logs", "logs": "5.0\n"},
                {"type": "image", "url": "https://files.example.com/cntr_6848/plot.png"}],
}
IMAGE = {
    "type": "image_generation_call",
    "id": "ig_123",
    "status": "completed",
    "revised_prompt": "A gray tabby cat hugging an otter with an orange scarf",
    "result": base64.b64encode(PNG).decode(),
}
MCP = {
    "type": "mcp_call",
    "id": "mcp_682d437d90a88191bf88cd03aae0c3e503937d5f622d7a90",
    "approval_request_id": None,
    "arguments": '{"diceRollExpression":"2d4 + 1"}',
    "error": None,
    "name": "roll",
    "output": "4",
    "server_label": "dmcp",
}
ITEMS = {"web_search": WEB_SEARCH, "open_page": OPEN_PAGE, "file_search": FILE_SEARCH, "code_interpreter": CODE,
         "image_generation": IMAGE, "mcp": MCP}
ANSWER = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
          "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
QUESTION = cb.Message(role="user", content="Go.")
REASONS = documented_reasons("openai_responses.md")


def response(*output: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5", "status": status,
            "output": [copy.deepcopy(item) for item in output]}


def reply(*output: dict[str, Any], status: str = "completed") -> cb.Message:
    return openai_responses.from_response(response(*output, ANSWER, status=status)).require_message()


def wire(item: dict[str, Any]) -> dict[str, Any]:
    """The item as the API takes it back: its ``null`` members left out (``model_dump()`` writes them)."""
    return {k: v for k, v in item.items() if v is not None}


# ----------------------------------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    ("name", "tool", "texts", "files"),
    [
        ("web_search", "web_search", ["https://www.theguardian.com/world/2025/mar/06/good-news"], 0),
        ("open_page", "web_search", ["https://www.theguardian.com/world/2025/mar/06/good-news"], 0),
        ("file_search", "file_search", [FILE_SEARCH["results"][0]["text"]], 0),
        ("code_interpreter", "code_interpreter", ["5.0\n"], 1),
        ("image_generation", "image_generation", [], 1),
        ("mcp", "roll", ["4"], 0),
    ],
)
def test_each_documented_item_is_a_call_and_its_result(name, tool, texts, files):
    item = ITEMS[name]
    call, result, _ = reply(item).content
    assert (type(call), type(result)) == (cb.ServerToolCallBlock, cb.ServerToolResultBlock)
    assert call.tool_call_id == result.tool_call_id == item["id"]
    assert (call.tool_name, result.tool_name, result.outcome) == (tool, tool, "succeeded")
    assert call.metadata[ISSUER_KEY] == result.metadata[ISSUER_KEY] == "openai"
    assert [b.text for b in result.content if type(b) is cb.TextBlock] == texts
    assert len([b for b in result.content if type(b) is cb.FileBlock]) == files


def test_what_each_call_asked_for_and_what_each_result_cites():
    message = reply(WEB_SEARCH, FILE_SEARCH, CODE, IMAGE, MCP)
    search, hits, _, _, code, ran, image, made, mcp, said, _ = message.content
    assert search.input == WEB_SEARCH["action"]
    assert hits.content[0].citations[0].source == cb.CitedUri(value=WEB_SEARCH["action"]["sources"][0]["url"])
    found = reply(FILE_SEARCH).content[1].content[0].citations[0]
    assert (found.source, found.title) == (cb.CitedReference(value="file-2dtbBZdjtDKS8eqWxqbgDi"),
                                           "deep_research_blog.pdf")
    assert code.input == {"code": CODE["code"], "container_id": CODE["container_id"]}
    assert ran.content[1].source == cb.UrlSource(url=CODE["outputs"][1]["url"])
    assert image.input == {"revised_prompt": IMAGE["revised_prompt"]}
    assert (made.content[0].media_type, made.content[0].source.data) == ("image/png", PNG)
    assert "result" not in made.metadata["openai/server_item"]  # the image is the file, not a second copy
    assert (mcp.tool_name, mcp.input, mcp.metadata["openai/server_label"]) == ("roll", {"diceRollExpression": "2d4 + 1"},
                                                                              "dmcp")
    assert said.metadata["openai/server_item"] == wire(MCP)


@pytest.mark.parametrize(
    ("status", "outcome"),
    [("completed", "succeeded"), ("failed", "failed"), ("incomplete", "interrupted"), ("in_progress", "interrupted"),
     ("searching", "interrupted")],
)
def test_statuses_map_to_outcomes(status, outcome):
    assert reply({**WEB_SEARCH, "status": status}).content[1].outcome == outcome


@pytest.mark.parametrize(("item", "status"), [(CODE, "interpreting"), (IMAGE, "generating"), (MCP, "calling")])
def test_an_unfinished_run_in_a_completed_response_was_interrupted(item, status):
    pending = {**item, "status": status, **({"result": None} if item is IMAGE else {})}
    assert reply(pending).content[1].outcome == "interrupted"


def test_an_mcp_error_fails_the_result_and_reads_as_text():
    failed = {**MCP, "output": None, "error": {"type": "mcp_protocol_error", "code": -32600, "message": "bad dice"}}
    result = reply(failed).content[1]
    assert (result.outcome, [b.text for b in result.content]) == ("failed", ["mcp_protocol_error: bad dice"])


def test_mcp_arguments_that_are_not_json_are_kept_as_the_call_input():
    call = reply({**MCP, "arguments": '{"diceRollExpression": '}).content[0]
    assert (call.input, call.metadata["openai/invalid_arguments"]) == ('{"diceRollExpression": ', True)


@pytest.mark.parametrize(
    "odd",
    [
        {**WEB_SEARCH, "id": None},  # no id: nothing to pair the blocks by
        {**WEB_SEARCH, "status": "thinking"},  # a status this reader does not know
        {**IMAGE, "result": "not base64!"},  # strict base64 refuses it
        {**IMAGE, "result": base64.b64encode(b"no image").decode()},  # bytes of no known image type
        {**MCP, "name": "bad name"},  # no identifier
        {**FILE_SEARCH, "results": [{"file_id": "f", "score": 10**30}]},  # a number no block holds
    ],
)
def test_an_item_this_cannot_map_stays_a_verbatim_json_block(odd):
    kept = reply(odd).content[0]
    assert type(kept) is cb.JsonBlock
    assert kept.metadata["openai/input_item"] is True


def test_a_request_input_reads_them_too():
    payload = {"input": [{"type": "message", "role": "user", "content": "Go."}, WEB_SEARCH, MCP, ANSWER]}
    conversation = openai_responses.from_provider(payload)
    assert [type(b).__name__ for b in conversation[1].content] == [
        "ServerToolCallBlock", "ServerToolResultBlock", "ServerToolCallBlock", "ServerToolResultBlock", "TextBlock"]
    assert openai_responses.to_provider(conversation, strict=LOSS_KINDS).payload["input"][1:] == [
        WEB_SEARCH, wire(MCP), ANSWER]


# ----------------------------------------------------------------------------------------------- writing


def test_the_same_provider_gets_every_item_back_verbatim_with_no_loss():
    items = [WEB_SEARCH, OPEN_PAGE, FILE_SEARCH, CODE, IMAGE, MCP]
    message = reply(*items)
    converted = openai_responses.to_provider(cb.Conversation(messages=[QUESTION, message]), strict=LOSS_KINDS)
    assert converted.losses == ()
    assert converted.payload["input"][1:] == [*(wire(item) for item in items), ANSWER]
    assert openai_responses.from_provider(converted.payload)[1] == message


def test_the_agents_sdk_bridge_round_trips_them():
    message = reply(WEB_SEARCH, MCP)
    items = openai_agents.to_items(cb.Conversation(messages=[QUESTION, message]), strict=LOSS_KINDS)
    assert items.losses == ()
    assert items.payload[1:] == [WEB_SEARCH, wire(MCP), ANSWER]
    assert openai_agents.from_items(items.payload)[1] == message


TARGETS = {"anthropic": anthropic.to_provider, "openai_chat": openai_chat.to_provider, "gemini": gemini.to_provider}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ITEMS)
def test_every_other_provider_drops_the_call_and_gets_the_result_as_content(target, name):
    message = reply(ITEMS[name])
    conversation = cb.Conversation(messages=[QUESTION, message])
    converted = TARGETS[target](conversation)
    losses = {(loss.path, loss.kind) for loss in converted.losses}
    assert {("$[1].content[0]", "content_dropped"), ("$[1].content[1]", "content_degraded"),
            ('$[1].content[1].metadata["openai/server_item"]', "state_not_replayed")} <= losses
    text = json.dumps(converted.payload, default=str)
    assert ITEMS[name]["id"] not in text  # OpenAI's state never travels
    for block in message.content[1].content:
        if type(block) is cb.TextBlock:
            assert block.text.strip() in text
    with pytest.raises(LossError):
        TARGETS[target](conversation, strict=True)


def test_an_mcp_tool_result_cannot_hold_them():
    """The MCP target writes a client tool's result; a tool OpenAI ran is never one (the model refuses it)."""
    result = reply(MCP).content[1]
    with pytest.raises(cb.ValidationError):
        cb.ToolResultBlock(tool_call_id="c1", tool_name="roll", outcome="succeeded", content=[result])


def _resend(*blocks: Any) -> Any:
    return openai_responses.to_provider(cb.Conversation(messages=[QUESTION, cb.Message(role="assistant",
                                                                                       content=blocks)]))


def test_a_pair_of_unknown_origin_is_sent_as_its_content():
    """Metadata is inert: an item on blocks that record no issuer is not believed."""
    call, result, _ = reply(WEB_SEARCH).content
    forged = [cb.ServerToolCallBlock(tool_call_id=call.tool_call_id, tool_name=call.tool_name, input=call.input),
              cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                       outcome="succeeded", content=result.content,
                                       metadata={"openai/server_item": WEB_SEARCH})]
    converted = _resend(*forged)
    assert "web_search_call" not in json.dumps(converted.payload)
    assert {loss.kind for loss in converted.losses} >= {"content_dropped", "content_degraded", "state_not_replayed"}
    assert_documented(REASONS, converted.losses)


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({**WEB_SEARCH, "id": "ws_other"}, "is not the item of call"),
        ({**WEB_SEARCH, "type": "function_call_output"}, "is no item of a tool OpenAI runs"),
        ({**WEB_SEARCH, "action": {"type": "open_page", "url": "file:///etc/passwd"}}, "URL"),
    ],
)
def test_an_item_that_may_not_go_back_leaves_its_content(item, why):
    call, result, _ = reply(WEB_SEARCH).content
    bad = cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                   outcome=result.outcome, content=result.content,
                                   metadata={**result.metadata, "openai/server_item": item})
    converted = _resend(call, bad)
    assert all(entry.get("type") == "message" for entry in converted.payload["input"][1:])
    kinds = {(loss.path, loss.kind) for loss in converted.losses}
    assert kinds == {("$[1].content[0]", "content_dropped"), ("$[1].content[1]", "content_degraded"),
                     ('$[1].content[1].metadata["openai/server_item"]', "state_not_replayed"),
                     ("$[1].content[1].content[0].citations[0]", "content_dropped")}  # a source's citation
    assert any(why in loss.reason for loss in converted.losses)
    assert_documented(REASONS, converted.losses)
    with pytest.raises(LossError):
        openai_responses.to_provider(cb.Conversation(messages=[QUESTION, cb.Message(role="assistant",
                                                                                    content=[call, bad])]),
                                     strict=True)


def test_a_call_without_its_result_is_dropped_and_an_item_goes_back_once():
    call, result, _ = reply(MCP).content
    alone = _resend(call)
    assert alone.payload["input"][1:] == []
    assert [loss.kind for loss in alone.losses] == ["content_dropped"]
    twice = _resend(call, result, result)
    assert twice.payload["input"][1:] == [wire(MCP), {"type": "message", "role": "assistant", "content": "4"}]
    assert_documented(REASONS, [*alone.losses, *twice.losses])


def test_a_generated_image_goes_back_only_with_its_one_image():
    call, result, _ = reply(IMAGE).content
    assert _resend(call, result).payload["input"][1:] == [IMAGE]
    empty = cb.ServerToolResultBlock(tool_call_id=result.tool_call_id, tool_name=result.tool_name,
                                     outcome=result.outcome, metadata=result.metadata)
    converted = _resend(call, empty)
    assert converted.payload["input"][1:] == []
    assert "no one generated image" in " ".join(loss.reason for loss in converted.losses)
    assert_documented(REASONS, converted.losses)


def test_another_model_family_is_still_openai():
    message = reply(WEB_SEARCH)
    converted = openai_responses.to_provider(cb.Conversation(messages=[QUESTION, message]), issuer="openai/o3")
    assert converted.payload["input"][1] == WEB_SEARCH


# ----------------------------------------------------------------------------------------------- streaming


def _stream(*items: dict[str, Any]) -> list[dict[str, Any]]:
    done = response(*items)
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {**response(), "status": "in_progress"}}]
    for k, item in enumerate(items):
        started = {**item, "status": "in_progress"} if "status" in item else item
        events.append({"type": "response.output_item.added", "output_index": k, "item": copy.deepcopy(started)})
        events.append({"type": f"response.{item['type']}.in_progress", "output_index": k, "item_id": item["id"]})
        events.append({"type": "response.output_item.done", "output_index": k, "item": copy.deepcopy(item)})
    events.append({"type": "response.completed", "response": done})
    return events


def test_streams_fold_them():
    """``response.output_item.added`` then ``done`` for each item: a call and its result, whole, at ``done``."""
    items = [WEB_SEARCH, FILE_SEARCH, CODE, IMAGE, MCP]
    added = [e for e in responses_stream.events(_stream(*items)) if isinstance(e, ServerToolAdded)]
    assert [type(e.block) for e in added] == [cb.ServerToolCallBlock, cb.ServerToolResultBlock] * len(items)
    folded = responses_stream.fold(_stream(*items)).require_message()
    assert folded == openai_responses.from_response(response(*items)).require_message()


KEY = cb.SealKey("k1", b"k" * 32)


@pytest.mark.parametrize("sealed", [True, False])
def test_with_keys_only_a_sealed_message_sends_the_item(sealed):
    """The issuer is a sealed fact (``docs/security.md``): an unsealed turn's run goes back as its content."""
    message = reply(MCP)
    history = cb.Conversation(messages=[cb.seal(QUESTION, KEY, context="c"),
                                        cb.seal(message, KEY, context="c") if sealed else message])
    converted = openai_responses.to_provider(history, keys=KEY, context="c")
    assert (wire(MCP) in converted.payload["input"]) is sealed
    assert (converted.losses == ()) is sealed
    assert_documented(REASONS, converted.losses)


def test_an_api_source_is_its_name_and_a_find_in_page_cites_the_page():
    """``sources`` may name an API rather than a page (``{"type": "api", "name": ...}``); ``find_in_page`` reads one."""
    api = {**WEB_SEARCH, "action": {"type": "search", "query": "score", "sources": [{"type": "api", "name": "oai-sports"}]}}
    assert [(b.text, b.citations) for b in reply(api).content[1].content] == [("oai-sports", ())]
    find = {**OPEN_PAGE, "action": {"type": "find_in_page", "url": "https://example.com/a", "pattern": "otter"}}
    (page,) = reply(find).content[1].content
    assert page.citations[0].source == cb.CitedUri(value="https://example.com/a")


def test_a_captured_search_item_without_action_reads_and_goes_back():
    """A ``web_search_call`` as the API sent it in March 2025 (no action, no sources), from a recorded stream in
    openai-php's test fixtures: https://github.com/openai-php/client/commit/d9d0e7a834e647afad86564e4676771a20ac2a25"""
    item = {"id": "ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c", "type": "web_search_call",
            "status": "completed"}
    response = {"id": "resp_67ccf18ef5fc8190b16dbee19bc54e5f087bb177ab789d5c", "object": "response",
                "created_at": 1741484430, "status": "completed", "model": "gpt-4o-2024-08-06", "output": [item]}
    call, result = openai_responses.from_response(response).message.content
    assert (call.tool_name, dict(call.input), result.outcome, result.content) == ("web_search", {}, "succeeded", ())
    sent = openai_responses.to_provider([openai_responses.from_response(response).message])
    assert sent.payload["input"] == [item]
    assert sent.losses == ()
