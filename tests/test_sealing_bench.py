"""Smoke test of bench/seal.py: it times seal and verify against loads and writes its table between markers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench_modules import BENCH


def test_seal_benchmark_quick_run_renders_both_paths(tmp_path: Path) -> None:
    """--quick times loads, seal and verify_seals (with and without C) and writes only between its markers."""
    page = tmp_path / "page.md"
    page.write_text("a\n<!-- seal-benchmark:start -->\nold\n<!-- seal-benchmark:end -->\nb\n", encoding="utf-8")
    done = subprocess.run(  # noqa: S603 - our own script
        [sys.executable, str(BENCH / "seal.py"), "--quick", "--render", str(page)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert "old" not in text
    assert text.startswith("a\n<!-- seal-benchmark:start -->\n| path | messages |")
    assert "| pure Python | 200 |" in text
    assert "verify_seals / cb.loads (pure Python)" in done.stdout
    assert text.endswith("<!-- seal-benchmark:end -->\nb\n")
