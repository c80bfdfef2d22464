"""``bench/bridges.py --quick`` runs, times each framework's bridge against its own load, and renders its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "bridges.py"


def test_quick_run_renders_between_its_markers(tmp_path: Path) -> None:
    """Each framework gets a row with both ratios, written between the markers only."""
    if not SCRIPT.exists():
        pytest.skip("not run from a checkout")
    pytest.importorskip("pydantic_ai")
    pytest.importorskip("langchain_core")
    page = tmp_path / "page.md"
    page.write_text("# B\n\n<!-- bridge-benchmark:start -->\nstale\n<!-- bridge-benchmark:end -->\n\nkept\n", "utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ")[0] for line in page.read_text("utf-8").splitlines() if " | 200 | " in line]
    assert rows == ["| langchain-core", "| pydantic-ai", "| vercel-ai"]
    assert "stale" not in page.read_text("utf-8")
    assert page.read_text("utf-8").endswith("<!-- bridge-benchmark:end -->\n\nkept\n")
    verdicts = [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    frameworks = ("langchain-core", "pydantic-ai", "vercel-ai")
    assert [v.split()[1:3] for v in verdicts] == [
        [framework, op] for framework in frameworks for op in ("from_messages", "to_messages")
    ]
