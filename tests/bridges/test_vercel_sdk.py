"""The Vercel AI SDK's own validators accept the ``UIMessage`` and ``ModelMessage`` JSON the bridge writes.

The SDK is TypeScript: these tests run ``bench/peers/vercel/validate.mjs`` (``safeValidateUIMessages`` and the
``modelMessageSchema`` of the ``ai`` package that ``bench/peers/vercel/package-lock.json`` pins) with ``node``, and
are skipped when node or that package is not installed (``npm ci --prefix bench/peers/vercel``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contentblocks as cb
from bench_modules import BENCH, load_bench_module
from contentblocks.bridges import vercel_ai as bridge
from contentblocks.strategies import conversations

PEER = BENCH / "peers" / "vercel"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (PEER / "node_modules" / "ai").is_dir(),
    reason="needs node and the pinned AI SDK: npm ci --prefix bench/peers/vercel",
)


def _refused(histories: list[list[dict[str, Any]]], tmp_path: Path, form: str = "ui") -> list[Any]:
    """The SDK's issues with each history it refuses (an empty list: it accepts them all); ``form`` ui or model."""
    path = tmp_path / "histories.json"
    path.write_text(json.dumps(histories), "utf-8")
    done = subprocess.run([NODE, str(PEER / "validate.mjs"), str(path), form],  # type: ignore[list-item]  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_benchmark_history_is_accepted(tmp_path):
    """The 2,000 benchmark messages (every block kind, files-only tool results among them) as the SDK reads them."""
    bridges = load_bench_module("_contentblocks_bench_bridges", BENCH / "bridges.py")
    history = bridges.history(2_000)
    assert _refused([bridge.to_ui_messages(history).payload], tmp_path) == []
    assert _refused([bridge.to_model_messages(history).payload], tmp_path, "model") == []


def test_a_history_the_sdk_refuses_is_reported(tmp_path):
    """The check can fail: an ``output-available`` part without ``output`` is refused by the SDK."""
    part = {"type": "tool-x", "toolCallId": "c1", "state": "output-available", "input": {}}
    refused = _refused([[{"id": "a1", "role": "assistant", "parts": [part]}]], tmp_path)
    assert [(entry["index"], entry["issues"][0]["path"]) for entry in refused] == [(0, [0, "parts", 0, "output"])]
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "x"}  # no input
    refused = _refused([[], [{"role": "assistant", "content": [call]}]], tmp_path, "model")
    assert [entry["index"] for entry in refused] == [1]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(conversations(), min_size=1, max_size=10))
def test_every_conversation_is_written_as_the_sdk_accepts(tmp_path_factory, batch):
    """Whatever the conversation, the ``UIMessage`` list the bridge writes passes ``safeValidateUIMessages``.

    Except an empty list, which the SDK refuses as input ("must not be empty"), and is what nothing writes.
    """
    batch = [conversation for conversation in batch if bridge.to_ui_messages(conversation).payload]
    histories = [bridge.to_ui_messages(conversation).payload for conversation in batch]
    refused = _refused(histories, tmp_path_factory.mktemp("sdk")) if histories else []
    assert refused == [], ([cb.unstructure(batch[entry["index"]]) for entry in refused[:1]], refused[:1])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(conversations(), min_size=1, max_size=10))
def test_every_conversation_is_written_as_model_messages_the_sdk_accepts(tmp_path_factory, batch):
    """Whatever the conversation, the ``ModelMessage`` list the bridge writes passes the SDK's ``modelMessageSchema``."""
    histories = [bridge.to_model_messages(conversation).payload for conversation in batch]
    refused = _refused(histories, tmp_path_factory.mktemp("sdk"), "model")
    assert refused == [], ([cb.unstructure(batch[entry["index"]]) for entry in refused[:1]], refused[:1])


def test_the_golden_payloads_are_the_sdks_shape(tmp_path):
    """The ``UIMessage`` payloads the bridge's tests read (and write back equal) pass the SDK's validator."""
    goldens = load_bench_module("_contentblocks_test_vercel_ai", Path(__file__).with_name("test_vercel_ai.py"))
    assert _refused(list(goldens.UI.values()), tmp_path) == []
    assert _refused(list(goldens.MODEL.values()), tmp_path, "model") == []


def test_provider_run_tools_are_written_as_the_sdk_accepts(tmp_path):
    """Provider-executed tool parts, read from the documented shapes and drawn, pass both SDK validators."""
    server = load_bench_module("_contentblocks_test_server_tools",
                               Path(__file__).with_name("test_bridge_server_tools.py"))
    goldens = load_bench_module("_contentblocks_test_vercel_ai", Path(__file__).with_name("test_vercel_ai.py"))
    assert _refused([server.UI_RUN], tmp_path) == []
    assert _refused([server.MODEL_RUN], tmp_path, "model") == []
    drawn: list[Any] = []

    @settings(max_examples=20, deadline=None, database=None)
    @given(goldens.with_server_tools(paired=True))
    def draw(conversation):
        drawn.append(conversation)

    draw()
    assert _refused([bridge.to_ui_messages(c).payload for c in drawn], tmp_path) == []
    assert _refused([bridge.to_model_messages(c).payload for c in drawn], tmp_path, "model") == []
