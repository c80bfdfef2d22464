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
    page = tmp_path / "page.md"
    page.write_text("# B\n\n<!-- bridge-benchmark:start -->\nstale\n<!-- bridge-benchmark:end -->\n\nkept\n", "utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line for line in page.read_text("utf-8").splitlines() if line.startswith("| pydantic-ai | 200 |")]
    assert len(rows) == 1
    assert "stale" not in page.read_text("utf-8")
    assert page.read_text("utf-8").endswith("<!-- bridge-benchmark:end -->\n\nkept\n")
    verdicts = [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    for framework in ("pydantic-ai", "vercel-ai"):
        assert [v.split()[2] for v in verdicts if v.split()[1] == framework] == ["from_messages", "to_messages"]
