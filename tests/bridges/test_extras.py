"""Each bridge's extra, the test extra and the bridge's own version check name the same range of versions."""

from __future__ import annotations

import importlib
import importlib.metadata
import tomllib
from pathlib import Path

import pytest

import contentblocks as cb

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"
#: bridge module, its extra, the distribution it needs.
BRIDGES = [("pydantic_ai", "pydantic-ai", "pydantic-ai-slim"), ("langchain", "langchain", "langchain-core"),
           ("openai_agents", "openai-agents", "openai-agents")]


@pytest.mark.parametrize(("module", "extra", "dist"), BRIDGES, ids=[b[0] for b in BRIDGES])
def test_the_extras_pin_the_range_the_bridge_checks(module: str, extra: str, dist: str) -> None:
    """``pip install contentblocks[extra]`` and the test extra install what the bridge accepts, and CI has it."""
    if not PYPROJECT.exists():
        pytest.skip("not run from a checkout")
    extras = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["optional-dependencies"]
    supported = importlib.import_module(f"contentblocks.bridges.{module}").SUPPORTED
    assert extras[extra] == [f"{dist}{supported}"]
    assert f"{dist}{supported}" in extras["test"]
    bridge = importlib.import_module(f"contentblocks.bridges.{module}")
    hello = cb.Conversation(messages=[cb.Message(role="user", content="Hi")])
    # the bridge checks the installed version on its first call: what CI installed is in the range
    assert bridge.to_messages(hello).losses == (), importlib.metadata.version(dist)
