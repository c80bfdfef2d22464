"""Search result blocks: their rules, Anthropic's native form both ways, and what every other target gets."""

from __future__ import annotations

import copy
import importlib
import subprocess
import sys
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.bridges import langchain, pydantic_ai, vercel_ai
from contentblocks.providers import anthropic, gemini, mcp, openai_chat, openai_responses
from provider_checks import assert_documented, documented_reasons

GUIDE = "https://docs.anthropic.com/en/docs/build-with-claude/search-results"

# The search results guide's tool example (GUIDE, "Method 1: Search results from tool calls"): a knowledge-base tool
# returns two search results, and the model cites the first with a search_result_location.
TOOL_REQUEST: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "How do I configure the timeout settings?"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "search_knowledge_base",
             "input": {"query": "timeout settings"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": [
                {"type": "search_result", "source": "https://docs.company.com/product-guide",
                 "title": "Product Configuration Guide",
                 "content": [{"type": "text", "text": "To configure the product, navigate to Settings > Configuration. "
                              "The default timeout is 30 seconds, but can be adjusted between 10-120 seconds based on "
                              "your needs."}],
                 "citations": {"enabled": True}},
                {"type": "search_result", "source": "https://docs.company.com/troubleshooting",
                 "title": "Troubleshooting Guide",
                 "content": [{"type": "text", "text": "If you encounter timeout errors, first check the configuration "
                              "settings. Common causes include network latency and incorrect timeout values."}],
                 "citations": {"enabled": True}},
            ]},
        ]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "To configure the timeout settings, navigate to Settings > Configuration.",
             "citations": [{"type": "search_result_location", "source": "https://docs.company.com/product-guide",
                            "title": "Product Configuration Guide",
                            "cited_text": "To configure the product, navigate to Settings > Configuration.",
                            "search_result_index": 0, "start_block_index": 0, "end_block_index": 1}]},
        ]},
    ]
}

# The guide's "Method 2: Search results as top-level content": search results in the user turn, beside the question.
TOP_LEVEL_REQUEST: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": [
            {"type": "search_result", "source": "https://docs.company.com/api-reference", "title": "API Reference - Authentication",
             "content": [{"type": "text", "text": "All API requests must include an API key in the Authorization header. "
                          "Keys can be generated from the dashboard. Rate limits: 1000 requests per hour for standard "
                          "tier, 10000 for premium."}],
             "citations": {"enabled": True}},
            {"type": "search_result", "source": "https://docs.company.com/quickstart", "title": "Getting Started Guide",
             "content": [{"type": "text", "text": "To get started: 1) Sign up for an account, 2) Generate an API key "
                          "from the dashboard, 3) Install our SDK using pip install company-sdk, 4) Initialize the "
                          "client with your API key."}],
             "citations": {"enabled": True}, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Based on these search results, how do I authenticate API requests and what are "
             "the rate limits?"},
        ]},
    ]
}

RESULT = cb.SearchResultBlock(
    source=cb.CitedUri(value="https://example.com/lawns"), title="Lawns",
    content=[cb.TextBlock(text="Grass is green."), cb.TextBlock(text="Mow weekly.")], citable=True,
)
URI_RESULT = {"type": "search_result", "source": {"kind": "uri", "value": "https://example.com/lawns"},
              "content": [{"type": "text", "text": "Grass is green."}]}


def _problems(raw: Any, target: Any = cb.Block) -> list[tuple[str, str]]:
    with pytest.raises(cb.ValidationError) as info:
        cb.structure(raw, target)
    return info.value.errors


# ------------------------------------------------------------------------------------------------- rules


def test_a_search_result_round_trips_on_both_wire_forms():
    raw = cb.unstructure(RESULT)
    assert raw == {"type": "search_result", "source": {"kind": "uri", "value": "https://example.com/lawns"},
                   "title": "Lawns", "content": [{"type": "text", "text": "Grass is green."},
                                                 {"type": "text", "text": "Mow weekly."}], "citable": True}
    assert cb.structure(raw, cb.Block) == RESULT == cb.loads(cb.dumps(RESULT))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"content": []}, ("$.content", "a search result holds at least one text block")),
        ({"content": [{"type": "json", "value": 1}]},
         ("$.content[0].type", "a search result cannot hold json blocks (allowed: text)")),
        ({"content": [{"text": "untagged"}]}, ("$.content[0].type", "required key missing: block type needs one of: text")),
        ({"title": " padded"}, ("$.title", "has leading or trailing whitespace")),
        ({"title": ""}, ("$.title", "must not be empty")),
        ({"citable": 1}, ("$.citable", "expected a boolean, got an integer")),
        ({"source": {"kind": "uri", "value": "not a uri"}}, None),
        ({"title": None}, ("$.title", "null is not allowed; omit the key instead")),
        ({"extra": 1}, None),
    ],
)
def test_each_rule_of_a_search_result_is_checked(change, problem):
    problems = _problems({**URI_RESULT, **change})
    if problem is not None:
        assert problem in problems
    else:
        assert len(problems) == 1


def test_a_search_result_is_missing_its_required_keys():
    assert {path for path, _ in _problems({"type": "search_result"})} == {"$.source", "$.content"}


def test_a_search_result_is_user_or_tool_content_only():
    assert cb.Message(role="user", content=[RESULT]).content == (RESULT,)
    result = cb.ToolResultBlock(tool_call_id="c1", tool_name="search", outcome="succeeded", content=[RESULT])
    assert result.content == (RESULT,)
    with pytest.raises(cb.ValidationError, match="an assistant message cannot carry search_result blocks"):
        cb.Message(role="assistant", content=[RESULT])
    with pytest.raises(cb.ValidationError, match="expected a TextBlock"):
        cb.SearchResultBlock(source=RESULT.source, content=[cb.JsonBlock(value=1)])


def test_the_schema_describes_a_search_result():
    schema = cb.json_schema(cb.SearchResultBlock)
    block = schema["$defs"]["SearchResultBlock"]
    assert block["required"] == ["type", "source", "content"]
    assert block["properties"]["content"] == {"type": "array", "items": {"$ref": "#/$defs/SearchResultContent"},
                                              "minItems": 1}


# ------------------------------------------------------------------------------------------------- Anthropic


def test_anthropic_reads_the_guides_tool_results_as_search_results():
    conversation = anthropic.from_provider(TOOL_REQUEST)
    results = conversation[2].content[0].content
    assert [type(r) for r in results] == [cb.SearchResultBlock, cb.SearchResultBlock]
    assert results[0].source == cb.CitedUri(value="https://docs.company.com/product-guide")
    assert results[0].title == "Product Configuration Guide"
    assert results[0].citable is True
    citation = conversation[3].content[0].citations[0]
    # the citation names the block it cites by the same source, and where in its text blocks the quote is
    assert citation.source == results[0].source
    assert citation.title == results[0].title
    assert citation.location == cb.BlockRange(start=0, end=1)


@pytest.mark.parametrize("request_", [TOOL_REQUEST, TOP_LEVEL_REQUEST], ids=["tool", "top_level"])
def test_anthropic_round_trips_search_results_with_no_loss(request_):
    conversation = anthropic.from_provider(copy.deepcopy(request_))
    converted = anthropic.to_provider(conversation)
    assert converted.losses == ()
    assert converted.payload == request_  # search_result_index and cache_control included
    assert anthropic.from_provider(converted.payload) == conversation


def test_anthropic_writes_a_search_result_built_in_python():
    untitled = cb.SearchResultBlock(source=cb.CitedReference(value="urn:kb:7"), content=[cb.TextBlock(text="x")])
    conversation = cb.Conversation(messages=[cb.Message(role="user", content=[RESULT, untitled])])
    converted = anthropic.to_provider(conversation)
    assert converted.payload["messages"][0]["content"] == [
        {"type": "search_result", "source": "https://example.com/lawns", "title": "Lawns",
         "content": [{"type": "text", "text": "Grass is green."}, {"type": "text", "text": "Mow weekly."}],
         "citations": {"enabled": True}},
        {"type": "search_result", "source": "urn:kb:7", "title": "urn:kb:7", "content": [{"type": "text", "text": "x"}]},
    ]
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[1].title", "content_degraded"), ("$[0].content[1].source", "content_degraded")]
    assert_documented(documented_reasons("anthropic.md"), converted.losses)


@pytest.mark.parametrize(
    "native",
    [
        {"type": "search_result", "source": "https://example.com", "title": "T", "content": []},
        {"type": "search_result", "source": " padded ", "title": "T", "content": [{"type": "text", "text": "x"}]},
        {"type": "search_result", "source": "https://example.com", "title": "T",
         "content": [{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]},
    ],
)
def test_anthropic_keeps_a_search_result_no_block_holds_verbatim(native):
    conversation = anthropic.from_provider({"messages": [{"role": "user", "content": [native]}]})
    block = conversation[0].content[0]
    assert isinstance(block, cb.JsonBlock)
    assert block.value == native
    assert anthropic.to_provider(conversation).payload["messages"][0]["content"] == [native]


# ------------------------------------------------------------------------------------------------- other targets


TARGETS = {
    "openai_chat": (openai_chat.to_provider, "openai_chat.md", "Chat Completions"),
    "openai_responses": (openai_responses.to_provider, "openai_responses.md", "the Responses API"),
    "gemini": (gemini.to_provider, "gemini.md", "Gemini"),
    "pydantic_ai": (pydantic_ai.to_messages, None, "pydantic-ai"),
    "langchain": (langchain.to_messages, None, "LangChain"),
    "vercel_ui": (vercel_ai.to_ui_messages, None, "the SDK"),
    "vercel_model": (vercel_ai.to_model_messages, None, "the SDK"),
}


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_other_target_gets_the_readable_parts_as_text(name):
    """A search result (top level and in a tool result) is text elsewhere: degraded and reported, never dropped."""
    write, page, target = TARGETS[name]
    conversation = anthropic.from_provider(TOOL_REQUEST)
    conversation = cb.Conversation(messages=[cb.Message(role="user", content=[RESULT]), *conversation])
    converted = write(conversation)
    found = [(loss.path, loss.kind) for loss in converted.losses if "search result" in loss.reason]
    assert found == [
        ("$[0].content[0]", "content_degraded"), ("$[0].content[0].citable", "content_dropped"),
        ("$[3].content[0].content[0]", "content_degraded"), ("$[3].content[0].content[0].citable", "content_dropped"),
        ("$[3].content[0].content[1]", "content_degraded"), ("$[3].content[0].content[1].citable", "content_dropped"),
    ]
    assert all(loss.reason.startswith(f"{target} has no search result block") for loss in converted.losses
               if "search result" in loss.reason)
    text = str(converted.payload)
    for part in ("Search result: Lawns", "Source: https://example.com/lawns", "Grass is green.", "Mow weekly.",
                 "Product Configuration Guide", "https://docs.company.com/troubleshooting"):
        assert part in text
    if page is not None:
        assert_documented(documented_reasons(page), converted.losses)


def test_mcp_gets_a_tool_results_search_results_as_text():
    result = anthropic.from_provider(TOOL_REQUEST)[2].content[0]
    converted = mcp.to_call_tool_result(result)
    assert [item["type"] for item in converted.payload["content"]] == ["text", "text"]
    assert converted.payload["content"][0]["text"].startswith("Search result: Product Configuration Guide\n")
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$.content[0]", "content_degraded"), ("$.content[0].citable", "content_dropped"),
        ("$.content[1]", "content_degraded"), ("$.content[1].citable", "content_dropped"),
    ]
    assert_documented(documented_reasons("mcp.md"), converted.losses)


def test_the_citations_of_a_search_results_text_are_reported_when_it_becomes_text():
    quoted = cb.TextBlock(text="Grass is green.", citations=[cb.Citation(source=cb.CitedReference(value="kb-1"))])
    result = cb.SearchResultBlock(source=cb.CitedReference(value="kb-1"), content=[quoted])
    converted = openai_chat.to_provider(cb.Conversation(messages=[cb.Message(role="user", content=[result])]))
    assert [(loss.path, loss.kind) for loss in converted.losses] == [
        ("$[0].content[0]", "content_degraded"), ("$[0].content[0].content[0].citations", "content_dropped")]
    assert converted.payload["messages"][0]["content"] == "Search result from kb-1\n\nGrass is green."


def test_readers_of_other_providers_never_produce_a_search_result():
    converted = openai_chat.to_provider(anthropic.from_provider(TOOL_REQUEST))
    back = openai_chat.from_provider(converted.payload)
    assert not any(isinstance(part, cb.SearchResultBlock) for message in back for block in message.content
                   for part in (block.content if isinstance(block, cb.ToolResultBlock) else (block,)))


# ------------------------------------------------------------------------------------------------- converters and CLI


@pytest.mark.parametrize("name", ["json", "orjson", "msgpack", "cbor2"])
def test_every_preconf_converter_round_trips_a_search_result(name):
    module = importlib.import_module(f"contentblocks.preconf.{name}")
    converter = module.make_converter()
    message = cb.Message(role="user", content=[RESULT])
    assert converter.loads(converter.dumps(message), cb.Message) == message


def test_the_checker_counts_and_words_search_results(tmp_path):
    good = cb.dumps(cb.Message(role="user", content=[RESULT]))
    bad = '{"role": "user", "content": [{"type": "search_result", "source": {"kind": "uri", "value": "urn:x"}, "content": []}]}'
    path = tmp_path / "results.jsonl"
    path.write_text(f"{good}\n{bad}\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "contentblocks", "check", str(path)], capture_output=True, text=True,  # noqa: S603 - our own command
                         check=False)
    assert run.returncode == 1
    assert ":2: $.content[0].content: a search result holds at least one text block" in run.stdout
    assert "(search_result 1)" in run.stdout
