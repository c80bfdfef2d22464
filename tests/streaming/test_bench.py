"""Smoke test of the streaming benchmark: its quick mode runs, prints every case and renders between markers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "streaming.py"


READERS = "<!-- streaming-readers-benchmark:start -->\nstale readers\n<!-- streaming-readers-benchmark:end -->\n"


def test_the_quick_run_prints_every_case_at_every_size_and_renders_it(tmp_path: Path):
    """--quick times three sizes of each stream; --render replaces only what lies between the markers."""
    page = tmp_path / "page.md"
    page.write_text("# Streaming\n\n<!-- streaming-benchmark:start -->\nstale table\n<!-- streaming-benchmark:end -->\n\nkept\n"
                    + READERS, encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and " ns |" in line]
    assert len(rows) == 3 * 3
    assert {row.split(" | ")[1] for row in rows} == {"1,000", "2,000", "4,000"}
    text = page.read_text(encoding="utf-8")
    assert "stale table" not in text
    assert "stale readers" not in text
    assert text.startswith("# Streaming\n\n<!-- streaming-benchmark:start -->\nMedian of 1 run(s)")
    assert "<!-- streaming-benchmark:end -->\n\nkept\n<!-- streaming-readers-benchmark:start -->\nMedian" in text


def test_the_quick_run_times_every_reader_on_text_and_on_each_once_quadratic_shape(tmp_path: Path):
    """Each provider's reader is timed on a text stream, and Chat, Responses and Gemini on their hard shapes."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"],  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ") and " µs |" in line]
    streams = {row[0].removeprefix("| ") for row in rows}
    assert {name.split(":")[0] for name in streams} == {"anthropic", "openai_chat", "openai_responses", "gemini"}
    assert {"openai_chat: a list-valued delta field", "openai_responses: output_text.annotation.added",
            "gemini: a function call a chunk"} <= streams
    assert len(rows) == 2 * len(streams)
    assert all(int(row[1].replace(",", "")) >= 200 for row in rows)


def test_rendering_into_a_page_without_markers_is_an_error(tmp_path: Path):
    """A page without the markers is left alone and the script says why."""
    page = tmp_path / "page.md"
    page.write_text("no markers\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "no <!-- streaming-benchmark:start --> ... <!-- streaming-benchmark:end --> markers" in done.stderr
    assert page.read_text(encoding="utf-8") == "no markers\n"
