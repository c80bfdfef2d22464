"""The token estimator stays within the bound docs/history.md states, on requests with recorded provider usage."""

from __future__ import annotations

import json
import statistics

import pytest

import contentblocks as cb
from usage_pairs import FIXTURES, PROVIDERS, pairs, readable, table

# Chosen from the measured table (python tests/usage_pairs.py): the worst pairs are -83% and -71%, the two
# Responses requests with a tool recorded in March 2025 (which cost about 180 tokens the API no longer adds:
# the 2026 Responses request with a tool is within 1%), and +78% (an image by URL, costed at the unknown-image
# figure); the bounds sit just outside, so any change that makes an estimate worse on the recorded requests
# fails here. Anthropic's own bound keeps what counting its tool-use system prompt gained (the median went from
# 63% to 12%); OpenAI's keeps what rendering tool definitions as TypeScript gained (Chat: 65% to 17%).
LOWEST, HIGHEST = -0.85, 1.00  # every estimate between 0.15 and 2 times the reported count
MEDIAN = 0.25  # the median absolute error over all pairs (21% measured)
OPENAI_CHAT_MEDIAN = 0.20  # over Chat Completions' pairs (17% measured)
ANTHROPIC_MEDIAN = 0.15  # over Anthropic's pairs (12% measured)


def test_the_recorded_pairs_cover_every_provider_tools_and_images() -> None:
    """At least 20 pairs, 4 for each provider; some requests carry tool definitions and some an image."""
    recorded = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))]
    requests = [(r["provider"], p["request"]) for r in recorded for p in r["pairs"]]
    assert len(requests) >= 20
    for provider in PROVIDERS:
        assert sum(name == provider for name, _ in requests) >= 4, provider
    assert sum(bool(request.get("tools")) for _, request in requests) >= 8
    assert sum("image_url" in json.dumps(request) for _, request in requests) >= 2
    for r in recorded:
        assert r["source"]["repo"] == "pydantic/pydantic-ai"
        assert len(r["source"]["commit"]) == 40


def test_every_estimate_is_within_the_documented_bound() -> None:
    """Each estimate is between 0.15 and 2 times the input tokens its provider reported."""
    measured = list(pairs())
    outside = [(p.source, p.reported, p.estimate) for p in measured if not LOWEST <= p.error <= HIGHEST]
    assert outside == []
    assert statistics.median(abs(p.error) for p in measured) <= MEDIAN
    assert statistics.median(abs(p.error) for p in measured if p.provider == "anthropic") <= ANTHROPIC_MEDIAN
    assert statistics.median(abs(p.error) for p in measured if p.provider == "openai_chat") <= OPENAI_CHAT_MEDIAN
    assert [row[0] for row in table(measured)] == [*PROVIDERS, "all"]


def test_anthropic_tools_cost_the_tool_use_system_prompt_once() -> None:
    """With tool definitions, an Anthropic estimate adds the tool-use system prompt once; without, nothing."""
    estimate = cb.TokenEstimator("anthropic")
    tool = {"name": "f", "description": "", "input_schema": {"type": "object"}}
    one, two = estimate.tools([tool]), estimate.tools([tool, tool])
    assert one - 346 == two - one == 12 + estimate.text(json.dumps(tool, separators=(",", ":")))
    assert estimate.tools([]) == 0
    assert cb.TokenEstimator("gemini").tools([tool]) == 8 + cb.TokenEstimator("gemini").text(
        json.dumps(tool, separators=(",", ":")))


def test_an_empty_responses_message_is_read_as_none() -> None:
    """pydantic-ai sends an empty assistant message, which the Responses reader refuses as an empty text block."""
    request = {"input": [{"content": "Hi", "role": "user"}, {"content": "", "role": "assistant"}],
               "instructions": ""}
    assert readable("openai_responses", request) == {"input": [{"content": "Hi", "role": "user"}], "instructions": ""}
    assert readable("anthropic", request) is request


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_has_a_row(provider: str) -> None:
    """The table has a row for each provider with the number of its pairs."""
    measured = list(pairs())
    rows = {row[0]: row for row in table(measured)}
    assert rows[provider][1] == sum(p.provider == provider for p in measured)


def test_openai_tools_cost_their_typescript_form() -> None:
    """OpenAI's estimate of tool definitions is the text of the TypeScript namespace its models read, not JSON."""
    estimate = cb.TokenEstimator("openai_chat")
    tool = {"name": "get_weather", "description": "Weather now", "parameters": {
        "type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}}
    rendered = (
        "# Tools\n\n## functions\n\nnamespace functions {\n\n// Weather now\ntype get_weather = (_: {\n"
        "city: string,\n}) => any;\n\n} // namespace functions"
    )
    assert estimate.tools([tool]) == estimate.text(rendered)
    assert estimate.tools([tool]) < estimate.text(json.dumps(tool, separators=(",", ":"))) + 10
