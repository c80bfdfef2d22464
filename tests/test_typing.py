"""The documented constructors and calls type-check under mypy --strict, as users write them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CALLS = Path(__file__).parent / "typing" / "documented_calls.py"
WRONG = """
import contentblocks as cb
cb.Message(role="user", content=[1])
cb.Conversation(messages=["hi"])
cb.TextBlock(text="x", citations=[cb.TextBlock(text="y")])
"""

mypy_api = pytest.importorskip("mypy.api", reason="mypy is in the test extra; this run has none")


def run_mypy(*args: str) -> tuple[str, int]:
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--python-version", "3.11", *args])
    return stdout + stderr, status


def test_documented_calls_type_check():
    """Lists for content, citations and messages, string content, and loads typed like structure pass mypy."""
    output, status = run_mypy(str(CALLS))
    assert status == 0, output


def test_wrong_items_are_type_errors(tmp_path):
    """A list of the wrong items is a type error, so the converters do not make the constructors accept Any."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG, encoding="utf-8")
    output, status = run_mypy(str(wrong))
    assert status == 1
    assert output.count("error:") == 3, output


def test_documented_calls_run():
    """The file of documented calls is also valid at run time."""
    subprocess.run([sys.executable, str(CALLS)], check=True)  # noqa: S603 - our own file
