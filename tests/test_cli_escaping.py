"""``contentblocks check`` reports: a file name cannot forge report lines or send control sequences to a terminal."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contentblocks import cli

BAD_LINE = b'{"role": "robot", "content": "beep"}\n'
HOSTILE_NAMES = [
    "a\nb.jsonl:1: $: forged problem\nc",
    "\x1b[2J\x1b[31mred\x1b[0m",
    "bell\x07and\rreturn",
    "del\x7fand c1\x9b31m",
    "line\u2028separator\u2029paragraph",
    "bidi\u202etxt.lmth\u202c",
    "isolate\u2066x\u2069",
]


def report(*args: str) -> str:
    """Run the command in this process; return its standard output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["check", "--no-progress", *args])
    return out.getvalue()


def unsafe(text: str) -> list[str]:
    """The characters of ``text`` that a terminal would act on or that break a line (line feeds aside)."""
    return [c for c in text if c != "\n" and (unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in cli.BIDI_CONTROLS)]


def bad_file(directory: Path, name: str) -> Path:
    """A .jsonl file named ``name`` holding one message with a problem."""
    path = directory / f"{name}.jsonl"
    path.write_bytes(BAD_LINE)
    return path


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("fmt", ["text", "github"])
def test_a_file_name_cannot_forge_lines_or_reach_the_terminal(tmp_path: Path, name: str, fmt: str) -> None:
    """Control characters of a file name are escaped in the text and GitHub reports: one problem, one line."""
    path = bad_file(tmp_path, name)
    lines = report("--format", fmt, str(path)).splitlines()
    assert len(lines) == 2  # the problem and the summary
    assert not unsafe(lines[0])


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_the_json_report_keeps_the_exact_name(tmp_path: Path, name: str) -> None:
    """The JSON report escapes a name as JSON does, so it reads back to the very name."""
    path = bad_file(tmp_path, name)
    output = report("--format", "json", str(path))
    assert not unsafe(output)
    assert json.loads(output)["files"][0]["file"] == str(path)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_stdin_filename_is_escaped_too(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name given with --stdin-filename is escaped like a file's."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BAD_LINE)))
    lines = report("--stdin-filename", name, "-").splitlines()
    assert len(lines) == 2
    assert not unsafe(lines[0])


def test_escaping_is_readable_and_unambiguous() -> None:
    """A control character is shown as its Python escape; printable text, non-ASCII included, is left alone."""
    assert cli.printable("a\nb\x1b[0m\u202e\u00e9\u4f60") == "a\\nb\\x1b[0m\\u202e\u00e9\u4f60"


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=30))
def test_any_file_name_gives_one_line_a_problem(name: str) -> None:
    """Whatever a file is called, each problem of the text and GitHub reports is one line with no control character."""
    with tempfile.TemporaryDirectory() as directory:
        try:
            path = bad_file(Path(directory), name)
        except OSError:  # a name too long for the file system once encoded
            return
        for fmt in ("text", "github"):
            lines = report("--format", fmt, str(path)).splitlines()
            assert len(lines) == 2
            assert not unsafe(lines[0])
