"""The Dask recipe of docs/cli.md, run as written on a local cluster of two worker processes.

Skipped when ``dask[distributed]`` is not installed (it is in the ``test`` extra).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb

HAS_DASK = importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None
pytestmark = pytest.mark.skipif(not HAS_DASK, reason="dask[distributed] is not installed")

PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
USER = {"role": "user", "content": "hi"}


def recipe() -> str:
    """The Python block of the page's "Beyond one machine" section."""
    section = PAGE.read_text(encoding="utf-8").split("## Beyond one machine", 1)[1]
    match = re.search(r"^```python\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    assert match is not None
    return match.group(1)


def shards(folder: Path) -> list[Path]:
    """Three shards of a dataset with problems, unreadable lines, a blank line and a text over the recipe's limit."""
    rows: list[list[Any]] = [
        [[USER], {"messages": [USER], "id": 1}, [{"role": "robot", "content": "x"}], "", "[{"],
        [{"messages": [{"role": "user", "content": "x" * 1_000_001}], "tools": []}, [USER, USER]] * 3,
        [[]],
    ]
    paths = []
    for i, lines in enumerate(rows):
        path = folder / f"train-{i}.jsonl"
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines), encoding="utf-8")
        paths.append(path)
    return paths


def test_the_recipe_finds_what_the_command_finds(tmp_path: Path) -> None:
    """On a local cluster, the recipe reports the lines and problems that `contentblocks check --dataset` reports."""
    data = tmp_path / "data"
    data.mkdir()
    paths = shards(data)
    script = tmp_path / "check_dataset.py"
    script.write_text(recipe(), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(data / "*.jsonl")],  # noqa: S603 - the page's own code
                          capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    reports = json.loads(done.stdout)
    command = subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-m", "contentblocks", "check", "--dataset", "--format", "json", "--max-text-chars",
         "1000000", *map(str, paths)], capture_output=True, text=True, timeout=300, check=False,
    )
    expected = json.loads(command.stdout)["files"]
    assert [r["file"] for r in reports] == [f["file"] for f in expected] == list(map(str, paths))
    for report, file in zip(reports, expected, strict=True):
        assert (report["conversations"], report["messages"]) == (file["conversations"], file["messages"])
        assert report["failures"] == [
            {"line": e["line"], "unreadable": e["unreadable"],
             "problems": [{"path": p["path"], "message": p["message"]} for p in e["problems"]]}
            for e in file["entries"]
        ]
    assert [len(r["failures"]) for r in reports] == [2, 3, 0]
    assert reports[1]["failures"][0]["problems"] == [
        {"path": "$.messages[0].content", "message": "longer than 1,000,000 characters"},
    ]


def test_a_checker_travels_by_cloudpickle() -> None:
    """Dask ships functions with cloudpickle: a checker, and its bound check_line, come back checking the same way."""
    import cloudpickle  # noqa: PLC0415 - a dependency of dask.distributed

    checker = cb.Checker(cb.Limits(max_text_chars=3))
    copy = cloudpickle.loads(cloudpickle.dumps(checker))
    check_line = cloudpickle.loads(cloudpickle.dumps(checker.check_line))
    line = '[{"role": "user", "content": "abcd"}]'
    assert copy == checker
    assert check_line(line) == copy.check_line(line) == checker.check_line(line)
    assert not check_line(line).ok
