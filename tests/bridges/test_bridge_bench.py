"""``bench/bridges.py --quick`` runs, times each framework's bridge against its own load, and renders its table.

A row that is a floor, not a framework's load, gets no verdict; ``--floor`` gives the Agents SDK's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "bridges.py"


def test_quick_run_renders_between_its_markers(tmp_path: Path) -> None:
    """Each framework gets a row per baseline with both ratios, written between the markers only."""
    if not SCRIPT.exists():
        pytest.skip("not run from a checkout")
    pytest.importorskip("pydantic_ai")
    pytest.importorskip("langchain_core")
    pytest.importorskip("agents")
    page = tmp_path / "page.md"
    page.write_text("# B\n\n<!-- bridge-benchmark:start -->\nstale\n<!-- bridge-benchmark:end -->\n\nkept\n", "utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    node = shutil.which("node") is not None and (SCRIPT.parent / "peers" / "vercel" / "node_modules" / "ai").is_dir()
    rows = [line.split(" | ")[:2] for line in page.read_text("utf-8").splitlines() if " | 200 | " in line]
    assert [framework for framework, _ in rows] == [
        "| langchain-core", "| openai-agents", "| openai-agents", "| pydantic-ai", *(["| vercel-ai"] * (1 + node))]
    assert ("`validateUIMessages`" in rows[4][1]) is node
    assert ("npm ci --prefix bench/peers/vercel" in done.stderr) is not node
    assert "stale" not in page.read_text("utf-8")
    assert page.read_text("utf-8").endswith("<!-- bridge-benchmark:end -->\n\nkept\n")
    verdicts = [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL", "----"))]
    assert [v.split()[1:3] for v in verdicts] == [
        [framework[2:], op] for framework, _ in rows for op in ("from_messages", "to_messages")
    ]
    # Python's json.loads of the Vercel JSON is a floor beside the SDK's load, not a load of the SDK's: no verdict
    unjudged = [v for v in verdicts if v.startswith("----")]
    assert len(unjudged) == 2
    assert all("(no SDK load)" in v and v.endswith("(a floor, no target)") for v in unjudged)


def test_without_node_vercel_is_measured_against_json_loads_and_says_why(tmp_path: Path) -> None:
    """No node on the PATH: one Vercel row, against ``json.loads``, and a message saying what to install."""
    if not SCRIPT.exists():
        pytest.skip("not run from a checkout")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--framework", "vercel-ai"],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PATH": str(Path(sys.executable).parent)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ")[:2] for line in done.stdout.splitlines() if " | 200 | " in line]
    assert rows == [["| vercel-ai", "Python's `json.loads` (no SDK load)"]]
    assert not [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert "needs node and the pinned `ai` package: npm ci --prefix bench/peers/vercel" in done.stderr


def test_floor_times_our_own_structure_against_the_agents_sdk_load() -> None:
    """``--floor``: the Agents SDK's ``json.loads`` per row, and ``cb.structure`` of the same history beside it."""
    if not SCRIPT.exists():
        pytest.skip("not run from a checkout")
    pytest.importorskip("agents")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--floor"],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" / ")[0] for line in lines] == ["json.loads per row", "cb.structure, our own wire"]
    assert lines[0].endswith(": 1.00")
    assert float(lines[1].rpartition(": ")[2]) > 0
