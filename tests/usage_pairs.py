"""The token estimator against input token counts that providers reported for recorded requests.

Each file in ``tests/fixtures/usage/`` holds request bodies recorded in pydantic-ai's VCR cassettes (the
repository, path and commit it was read from), each with the usage the provider reported for it. A request
is read with the provider's ``from_provider`` and estimated with ``estimate_tokens`` (its tool definitions
included); the error is ``(estimate - reported) / reported``. Run as a script to print the table that
``docs/history.md`` shows::

    python tests/usage_pairs.py
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

import contentblocks as cb
from contentblocks.providers import anthropic, gemini, openai_chat, openai_responses

FIXTURES = Path(__file__).parent / "fixtures" / "usage"
PROVIDERS = ("anthropic", "openai_chat", "openai_responses", "gemini")
_READERS: dict[str, Any] = {"anthropic": anthropic.from_provider, "openai_chat": openai_chat.from_provider,
                            "openai_responses": openai_responses.from_provider, "gemini": gemini.from_provider}


@attrs.frozen
class Pair:
    """One recorded request, the input tokens its provider reported for it, and the estimate."""

    provider: str
    source: str
    reported: int
    estimate: int

    @property
    def error(self) -> float:
        """``(estimate - reported) / reported``: positive when the estimate is over."""
        return (self.estimate - self.reported) / self.reported


def reported_input(provider: str, usage: Mapping[str, Any]) -> int:
    """Every input token the provider counted: Anthropic's uncached, cache-read and cache-written counts."""
    if provider == "anthropic":
        return int(usage["input_tokens"] + usage.get("cache_read_input_tokens", 0)
                   + usage.get("cache_creation_input_tokens", 0))
    if provider == "openai_chat":
        return int(usage["prompt_tokens"])
    if provider == "openai_responses":
        return int(usage["input_tokens"])
    return int(usage["promptTokenCount"])


def tool_definitions(provider: str, request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The request's function definitions, each as the JSON object of its name, description and schema."""
    tools = request.get("tools") or []
    if provider == "openai_chat":
        return [tool["function"] for tool in tools]
    if provider == "gemini":
        return [declaration for tool in tools for declaration in tool.get("functionDeclarations", ())]
    return list(tools)


def readable(provider: str, request: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request as ``from_provider`` reads it: pydantic-ai sends Responses empty assistant messages.

    The Responses reader refuses a message whose content is the empty string (a ``TextBlock`` must not be
    empty), so such a message is read as no message: the provider counts none of its text, only the wrapping,
    which is left out of the estimate. (An empty ``instructions``, which pydantic-ai sends too, the reader
    reads as no system message.)
    """
    if provider != "openai_responses":
        return request
    return {**request, "input": [item for item in request["input"] if item.get("content", None) != ""]}


def pairs() -> Iterator[Pair]:
    """Every recorded pair, estimated."""
    for path in sorted(FIXTURES.glob("*.json")):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        provider = recorded["provider"]
        for pair in recorded["pairs"]:
            request = pair["request"]
            history = _READERS[provider](readable(provider, request))
            estimate = cb.estimate_tokens(history, provider=provider, tools=tool_definitions(provider, request))
            source = f"{recorded['source']['path']}#{pair['interaction']}"
            yield Pair(provider, source, reported_input(provider, pair["usage"]), estimate)


def table(measured: list[Pair]) -> list[tuple[str, int, float, float, float]]:
    """Per provider and over all: the pairs, the median and worst absolute error, and the mean signed error."""
    rows = []
    for name in (*PROVIDERS, "all"):
        errors = [p.error for p in measured if name in (p.provider, "all")]
        if errors:
            rows.append((name, len(errors), statistics.median(map(abs, errors)), max(errors, key=abs),
                         statistics.fmean(errors)))
    return rows


def main() -> None:
    """Print the table in Markdown, then each pair."""
    measured = list(pairs())
    lines = ["| Provider | Pairs | Median abs. error | Worst | Bias (mean error) |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| `{name}` | {n} | {median:.0%} | {worst:+.0%} | {bias:+.0%} |"
              for name, n, median, worst, bias in table(measured)]
    lines.append("")
    lines += [f"{p.provider:<17}{p.reported:>6}{p.estimate:>7}{p.error:>+8.0%}  {p.source}" for p in measured]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
