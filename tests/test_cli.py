"""The ``contentblocks`` command line: check files, report problems with lines, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from contentblocks import cli
from contentblocks._locate import line_of, split_path


def run(*args: str) -> tuple[int, str]:
    """Run the command in this process and return (status, output)."""
    out = StringIO()
    if args and args[0] == "check":
        status = cli.check(list(args[1:]), out)
    else:  # pragma: no cover - only check is run in-process
        raise AssertionError(args)
    return status, out.getvalue()


def test_example_is_clean_and_uses_every_kind() -> None:
    """With no PATH the shipped example is checked; it is valid and holds every block kind."""
    status, output = run("check")
    assert status == 0
    summary = output.strip().splitlines()[-1]
    assert "0 problems" in summary
    for kind in ("text", "refusal", "file", "reasoning", "tool_call", "tool_result", "json"):
        assert f"{kind} " in summary


def test_problems_carry_file_line_and_path(tmp_path: Path) -> None:
    """Each problem is FILE:LINE: $.path: message, with the line of the offending value."""
    path = tmp_path / "history.json"
    path.write_text(
        '{"messages": [\n'
        '  {"role": "user", "content": "hi"},\n'
        '  {"role": "assistant", "content": [\n'
        '    {"type": "text", "text": ""}\n'
        "  ]}\n"
        "]}\n",
        encoding="utf-8",
    )
    status, output = run("check", str(path))
    assert status == 1
    assert f"{path}:4: $.messages[1].content[0].text: must not be empty" in output
    assert output.strip().splitlines()[-1].endswith("1 problem")


def test_jsonl_is_one_conversation(tmp_path: Path) -> None:
    """Lines of a .jsonl file are checked together: a result must answer an earlier call."""
    path = tmp_path / "t.jsonl"
    lines = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c2", "tool_name": "f",
                                      "outcome": "failed", "content": []}]},
    ]
    path.write_text("\n".join(json.dumps(m) for m in lines) + "\n", encoding="utf-8")
    status, output = run("check", str(path))
    assert status == 1
    assert f"{path}:3: $.content[0].tool_call_id: tool result answers no earlier tool call" in output


def test_jsonl_reports_each_bad_line(tmp_path: Path) -> None:
    """A bad line is reported on its own line number; blank lines are skipped."""
    path = tmp_path / "t.jsonl"
    path.write_text('{"role": "user", "content": "ok"}\n\n{"role": "user", "content": ""}\n{oops\n', encoding="utf-8")
    status, output = run("check", str(path))
    assert status == 1
    assert f"{path}:3: $.content: must not be empty" in output
    assert f"{path}:4: $: invalid JSON" in output


@pytest.mark.parametrize(
    ("document", "kind"),
    [
        ({"type": "text", "text": "hi"}, "text 1"),
        ({"role": "user", "content": "hi"}, "1 message"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], "2 messages"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "1 message"),
    ],
)
def test_json_shapes(tmp_path: Path, document: object, kind: str) -> None:
    """A .json file may hold a block, a message, a list of messages or {"messages": [...]}."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, output = run("check", str(path))
    assert status == 0, output
    assert kind in output


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    """A missing file is reported and the status is 2, even when other files were clean."""
    good = tmp_path / "good.json"
    good.write_text('{"type": "text", "text": "hi"}', encoding="utf-8")
    status, output = run("check", str(good), str(tmp_path / "missing.json"))
    assert status == 2
    assert "cannot read" in output


def test_invalid_utf8_and_duplicate_keys(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 and duplicate keys are problems (status 1), not crashes."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"type": "text", "text": "\xff"}')
    dup = tmp_path / "dup.json"
    dup.write_text('{"type": "text",\n "text": "a", "text": "b"}', encoding="utf-8")
    status, output = run("check", str(bad), str(dup))
    assert status == 1
    assert "not UTF-8" in output
    assert "duplicate key" in output


def test_module_entry_point() -> None:
    """``python -m contentblocks check`` runs the same command."""
    done = subprocess.run([sys.executable, "-m", "contentblocks", "check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "0 problems" in done.stdout


def test_no_command_prints_help() -> None:
    """Without a command the help is printed and the status is 2."""
    assert cli.main([]) == 2


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("$", []),
        ("$.content[2].source.data", ["content", 2, "source", "data"]),
        ('$.metadata["a b"][0]', ["metadata", "a b", 0]),
    ],
)
def test_split_path(path: str, steps: list[object]) -> None:
    """Error paths split back into keys and indexes."""
    assert split_path(path) == steps


def test_line_of_finds_nested_values_and_skips_strings() -> None:
    """The locator skips strings holding brackets and quotes, and stops at the deepest existing value."""
    text = '{\n "a": "x]}\\"{",\n "b": [\n  1,\n  {"c": 2}\n ]\n}'
    assert line_of(text, "$.b[1].c") == 5
    assert line_of(text, "$.b[1].missing") == 5
    assert line_of(text, "$.b[7]") == 3
    assert line_of(text, "$.a") == 2


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``contentblocks schema message`` prints the Draft 2020-12 schema of a message."""
    assert cli.main(["schema", "message"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$ref"] == "#/$defs/Message"
