"""The documented constructors and calls type-check under mypy --strict, as users write them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CALLS = Path(__file__).parent / "typing" / "documented_calls.py"
SDK_CALLS = Path(__file__).parent / "typing" / "sdk_calls.py"
README = Path(__file__).parent.parent / "README.md"
FENCE = re.compile(r"^```(?P<info>pycon|python)[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
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


def test_payloads_type_check_against_the_sdks():
    """Each adapter's payload goes into its SDK's call without a cast, and the call gives the SDK's response type."""
    for sdk in ("anthropic", "openai", "google.genai"):
        pytest.importorskip(sdk)
    output, status = run_mypy(str(SDK_CALLS))
    assert status == 0, output


def readme_code() -> list[str]:
    """The README's Python code as modules: its pycon sessions as one (they share names, as the doctest runs them)
    without prompts and output, then each python fence as it is."""
    session: list[str] = []
    modules = []
    for fence in FENCE.finditer(README.read_text(encoding="utf-8")):
        if fence["info"] == "pycon":
            session.extend(line[4:] for line in fence["body"].splitlines() if line.startswith((">>> ", "... ")))
        else:
            modules.append(fence["body"])
    return ["\n".join(session) + "\n", *modules]


def test_readme_code_type_checks(tmp_path):
    """The README's code, its agent loop with the SDK included, passes mypy --strict as a user would paste it."""
    pytest.importorskip("anthropic")
    modules = readme_code()
    assert any("client.messages.create(" in code and "require_message()" in code for code in modules)
    paths = []
    for n, code in enumerate(modules):
        path = tmp_path / f"readme_{n}.py"
        path.write_text(code, encoding="utf-8")
        paths.append(str(path))
    output, status = run_mypy(*paths)
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
