"""The ``contentblocks`` command line: what it reads, what it reports in each format, and its exit statuses."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contentblocks import cli
from contentblocks._model._wire import UNIONS
from contentblocks._transcripts._locate import line_of, split_path
from hostile_strategies import text_mutants

USER = {"role": "user", "content": "hi"}
CALL = {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {}}]}


def answer(call_id: str) -> dict[str, Any]:
    """A tool message answering the call ``call_id`` of tool f."""
    result = {"type": "tool_result", "tool_call_id": call_id, "tool_name": "f", "outcome": "failed", "content": []}
    return {"role": "tool", "content": [result]}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the command in this process; return its status and standard output."""
    status = cli.main(["check", "--no-progress", *args])
    return status, capsys.readouterr().out


def command(*args: str, data: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m contentblocks`` in a fresh interpreter, with ``data`` on its standard input."""
    return subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-m", "contentblocks", *args], input=data.decode("utf-8", "surrogateescape") if data else None,
        capture_output=True, text=True, check=False, cwd=cwd, timeout=120,
    )


def jsonl(path: Path, *lines: object) -> Path:
    """Write each value as a line of JSON (a str is written as it is)."""
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines), "utf-8")
    return path


# ------------------------------------------------------------------------------------------ the text report


def test_example_is_clean_and_uses_every_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """With no PATH the shipped example is checked; it is valid and holds every block kind."""
    status, output = run(capsys)
    assert status == 0
    summary = output.strip().splitlines()[-1]
    assert summary == ("checked 1 file, 14 messages, 30 blocks (approval_request 1, approval_response 1, compaction 1, "
                       "file 3, json 2, reasoning 2, refusal 1, search_result 1, server_tool_call 1, "
                       "server_tool_result 1, text 10, tool_call 3, tool_result 3), 0 problems")
    block_tags = next(u for u in UNIONS if u.name == "Block").members
    assert all(re.search(rf"\b{tag} \d", summary) for tag in block_tags)


def test_problems_carry_file_line_and_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each problem is FILE:LINE: $.path: message, with the line of the offending value."""
    path = tmp_path / "history.json"
    path.write_text(
        '{"messages": [\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": [\n'
        '    {"type": "text", "text": ""}\n  ]}\n]}\n',
        encoding="utf-8",
    )
    status, output = run(capsys, str(path))
    assert status == 1
    assert f"{path}:4: $.messages[1].content[0].text: must not be empty" in output
    assert output.strip().splitlines()[-1].endswith("1 problem")


def test_jsonl_is_one_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --dataset, the lines of a .jsonl file are one conversation: a result must answer an earlier call."""
    path = jsonl(tmp_path / "t.jsonl", USER, CALL, answer("c2"), answer("c1"), answer("c1"))
    status, output = run(capsys, str(path))
    assert status == 1
    assert output.splitlines()[:2] == [
        f"{path}:3: $.content[0].tool_call_id: tool result answers no earlier tool call",
        f"{path}:5: $.content[0].tool_call_id: tool call was already answered by an earlier result",
    ]
    assert "5 messages" in output


def test_pairing_waits_for_every_line_to_be_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad line is reported on its own line number, and pairing is not checked until every line is valid."""
    path = jsonl(tmp_path / "t.jsonl", USER, "", {"role": "user", "content": ""}, answer("c9"))
    status, output = run(capsys, str(path))
    assert status == 1
    assert output.splitlines() == [
        f"{path}:3: $.content: must not be empty",
        "checked 1 file, 2 messages, 2 blocks (text 1, tool_result 1), 1 problem",
    ]


def test_pairing_problems_past_max_errors_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pairing problems are capped by --max-errors like any others; the rest are counted on the last line shown."""
    path = jsonl(tmp_path / "t.jsonl", *[answer(f"c{i}") for i in range(5)])
    status, output = run(capsys, "--max-errors", "2", str(path))
    assert status == 1
    assert output.splitlines()[:3] == [
        f"{path}:1: $.content[0].tool_call_id: tool result answers no earlier tool call",
        f"{path}:2: $.content[0].tool_call_id: tool result answers no earlier tool call",
        f"{path}:2: $: ... and 3 more problems",
    ]
    assert output.splitlines()[-1].endswith(", 5 problems")


@pytest.mark.parametrize(
    ("document", "counted"),
    [
        ({"type": "text", "text": "hi"}, "0 messages, 1 block (text 1)"),
        (USER, "1 message, 1 block (text 1)"),
        ([USER, CALL, answer("c1")], "3 messages, 3 blocks (text 1, tool_call 1, tool_result 1)"),
        ({"messages": [USER]}, "1 message, 1 block (text 1)"),
        ([], "0 messages, 0 blocks"),
        ({"messages": []}, "0 messages, 0 blocks"),
    ],
)
def test_json_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str], document: object, counted: str) -> None:
    """A .json file may hold a block, a message, a list of messages (empty too) or {"messages": [...]}."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, output = run(capsys, str(path))
    assert (status, output) == (0, f"checked 1 file, {counted}, 0 problems\n")


def test_a_json_object_with_messages_and_more_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In a .json document, {"messages": [...]} takes no other key (a dataset line does, with --dataset)."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"messages": [USER], "my id": 3}), encoding="utf-8")
    status, output = run(capsys, str(path))
    assert status == 1
    assert f'{path}:1: $["my id"]: unknown key (expected {{"messages": [...]}})' in output


# ------------------------------------------------------------------------------------------ what cannot be read


BAD_DOCUMENTS: list[tuple[str, bytes, int, str]] = [
    ("empty.json", b"", 2, ":1: $: invalid JSON: Expecting value (line 1, column 1)"),
    ("object.json", b"{}", 1, ":1: $.type: required key missing"),
    ("garbage.json", b"hello", 2, ":1: $: invalid JSON: Expecting value"),
    ("binary.json", b"\x00\x01\x02\xff\xfe", 2, ":1: $: invalid JSON: not UTF-8"),
    ("latin1.json", b'[\n{"role": "user", "content": "caf\xe9"}]', 2, ":2: $: invalid JSON: not UTF-8"),
    ("utf16.json", '{"type": "text", "text": "hi"}'.encode("utf-16"), 2, ":1: $: invalid JSON: not UTF-8"),
    ("duplicate.json", b'{"type": "text",\n "text": "a", "text": "b"}', 2, ':1: $: invalid JSON: duplicate key "text"'),
    ("nan.json", b'{"type": "json", "value": NaN}', 2, ":1: $: invalid JSON: NaN is not a JSON number"),
    ("long.json", b'{"type": "json", "value": ' + b"9" * 5000 + b"}", 2, ":1: $: invalid JSON: a number too long"),
    ("inf.json", b'{"type": "json", "value": 1e400}', 1, ":1: $.value: NaN and infinities are not JSON numbers"),
    ("big.json", b'{"type": "json", "value": 18446744073709551616}', 1, ":1: $.value: integer outside [-2**63, 2**64-1]"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, 2, ":1: $: invalid JSON: nested too deeply to parse"),
    ("nested.json", b'{"type": "json", "value": ' + b"[" * 150 + b"]" * 150 + b"}", 1, ":1: $.value"),
    ("array.jsonl", b"[]\n", 1, ":1: $: expected an object, got an array"),
    ("truncated.jsonl", b'{"role": "user", "content": "hi"}\n{"role": "us', 2, ":2: $: invalid JSON"),
]


@pytest.mark.parametrize(("name", "data", "status", "reported"), BAD_DOCUMENTS, ids=[b[0] for b in BAD_DOCUMENTS])
def test_bad_files_are_reported_beside_good_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, status: int, reported: str
) -> None:
    """A bad file is a problem (1) or unreadable (2), never a crash, and the files around it are still checked."""
    (tmp_path / name).write_bytes(data)
    good = jsonl(tmp_path / "zz-good.jsonl", {"role": "user", "content": ""})
    got, output = run(capsys, str(tmp_path / name), str(good))
    assert got == status
    assert f"{tmp_path / name}{reported}" in output
    assert f"{good}:1: $.content: must not be empty" in output
    assert output.splitlines()[-1].startswith("checked 2 files")


def test_unreadable_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file, a link to nothing and a link loop cannot be read; the status is 2, even beside clean files."""
    good = tmp_path / "good.json"
    good.write_text('{"type": "text", "text": "hi"}', encoding="utf-8")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    names = [str(tmp_path / n) for n in ("good.json", "missing.json", "dangling.json", "loop.json")]
    status, output = run(capsys, *names)
    assert status == 2
    assert output.splitlines() == [
        f"{names[1]}: cannot read: No such file or directory",
        f"{names[2]}: cannot read: No such file or directory",
        f"{names[3]}: cannot read: Too many levels of symbolic links",
        "checked 4 files, 0 messages, 1 block (text 1), 0 problems, 3 unreadable",
    ]


def test_a_named_fifo_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO named on the command line is read as it arrives (as with ``<(command)``)."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("w", encoding="utf-8") as f:
            f.write(json.dumps(USER) + "\n" + json.dumps(CALL) + "\n")

    writer = threading.Thread(target=write)
    writer.start()
    status, output = run(capsys, str(fifo))
    writer.join()
    assert (status, output) == (0, "checked 1 file, 2 messages, 2 blocks (text 1, tool_call 1), 0 problems\n")


# ------------------------------------------------------------------------------------------ directories and stdin


def test_directories_are_walked_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory gives its .json and .jsonl files by name, then its subdirectories', recursively; nothing else."""
    for name in ("b.json", "a.jsonl", "sub/z.json", "sub/deeper/y.jsonl", "a.txt", "sub/notes.md", "c.json/d.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("[]", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "sub")  # a link to a directory is not followed
    (tmp_path / "sub" / "link.json").symlink_to(tmp_path / "b.json")  # a link to a file is
    status, output = run(capsys, "--format", "json", str(tmp_path))
    assert status == 1  # a.jsonl holds one message a line, and [] is not a message
    files = [f["file"] for f in json.loads(output)["files"]]
    order = ["a.jsonl", "b.json", "c.json/d.json", "sub/link.json", "sub/z.json", "sub/deeper/y.jsonl"]
    assert files == [str(tmp_path / name) for name in order]


def test_what_a_walk_cannot_read_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In a directory, a FIFO or a dangling link is reported unreadable (a FIFO would block); the rest is checked."""
    os.mkfifo(tmp_path / "a.jsonl")
    (tmp_path / "b.json").symlink_to(tmp_path / "nowhere")
    jsonl(tmp_path / "c.jsonl", USER)
    status, output = run(capsys, str(tmp_path))
    assert status == 2
    assert output.splitlines() == [
        f"{tmp_path}/a.jsonl: cannot read: not a regular file",
        f"{tmp_path}/b.json: cannot read: No such file or directory",
        "checked 3 files, 1 message, 1 block (text 1), 0 problems, 2 unreadable",
    ]


def test_a_directory_that_cannot_be_listed_is_unreadable() -> None:
    """Walking a path that cannot be listed gives one unreadable source naming it."""
    from contentblocks._transcripts._files import walk  # noqa: PLC0415

    (source,) = walk(__file__, dataset=False)
    assert (source.name, source.error) == (__file__, "cannot read directory: Not a directory")


def test_walked_names_have_no_dot_prefix(tmp_path: Path) -> None:
    """Files found under ``.`` are named from there (``a.json``), as GitHub annotations want."""
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    done = command("check", "--format", "github", ".", cwd=tmp_path)
    assert done.stdout.splitlines()[0].startswith("::error file=a.json,line=1::$.type: required key missing")


def test_an_empty_directory_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory holding no .json or .jsonl file is unreadable: a mistyped CI path must not pass."""
    status = cli.main(["check", str(tmp_path)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == (f"{tmp_path}: no .json or .jsonl file in this directory\n"
                            "checked 1 file, 0 messages, 0 blocks, 0 problems, 1 unreadable\n")
    (tmp_path / "a.json").write_text('{"type": "text", "text": "hi"}')
    assert cli.main(["check", str(tmp_path)]) == 0


def test_stdin_is_jsonl_unless_named_json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``-`` reads standard input as .jsonl; --stdin-filename names it, and a .json name reads it as a document."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"role": "user", "content": ""}\n')))
    assert run(capsys, "-") == (1, ("<stdin>:1: $.content: must not be empty\nchecked 1 file, 0 messages, 0 blocks, "
                                   "1 problem\n"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'[\n{"role": "user", "content": ""}]')))
    status, output = run(capsys, "--stdin-filename", "chat.json", "-")
    assert (status, output.splitlines()[0]) == (1, "chat.json:2: $[0].content: must not be empty")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stdin_in_a_real_process(jobs: str) -> None:
    """Through a real pipe, a dataset on stdin is checked (by workers too), with its exit status and no traceback."""
    data = b"[]\n" + json.dumps([USER]).encode() + b"\n[{]\n"
    done = command("check", "--dataset", "--jobs", jobs, "-", data=data)
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "<stdin>:3: $: invalid JSON: Expecting property name enclosed in double quotes (line 1, column 3)",
        "checked 1 file, 3 conversations, 1 message, 1 block (text 1), 0 problems, 1 unreadable",
    ]
    assert done.stderr == ""


# ------------------------------------------------------------------------------------------ dataset mode


def test_dataset_lines_are_conversations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --dataset each line is a conversation: an array, or an object whose other keys are ignored."""
    path = jsonl(
        tmp_path / "train.jsonl",
        [USER, CALL, answer("c1")],
        {"messages": [USER, CALL], "tools": [{"name": "f"}], "id": 7},
        [],
        "",
        [answer("c1")],
        {"messages": [{"role": "user", "content": ""}]},
        USER,
    )
    status, output = run(capsys, "--dataset", str(path))
    assert status == 1
    assert output.splitlines() == [
        f"{path}:5: $[0].content[0].tool_call_id: tool result answers no earlier tool call",
        f"{path}:6: $.messages[0].content: must not be empty",
        f'{path}:7: $.messages: required key missing (a conversation is an array of messages or {{"messages": [...]}})',
        "checked 1 file, 6 conversations, 5 messages, 5 blocks (text 2, tool_call 2, tool_result 1), 3 problems",
    ]


def test_dataset_mode_leaves_json_documents_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dataset changes how .jsonl files are read, not .json documents."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(USER), encoding="utf-8")
    assert run(capsys, "--dataset", str(path)) == (0, ("checked 1 file, 0 conversations, 1 message, 1 block (text 1), "
                                                      "0 problems\n"))


def call(call_id: str) -> dict[str, Any]:
    """An assistant message calling tool f as ``call_id``."""
    return {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": call_id, "tool_name": "f", "input": {}}]}


def dataset(path: Path, lines: int) -> tuple[Path, list[int]]:
    """A dataset of ``lines`` conversations of 9 messages; every 997th line is bad (odd: a problem, even: not JSON)."""
    conversation = json.dumps([m for i in range(3) for m in (USER, call(f"c{i}"), answer(f"c{i}"))])
    bad_lines, rows = [], []
    for number in range(1, lines + 1):
        if number % 997 == 0:
            bad_lines.append(number)
            rows.append('[{"role": "robot", "content": "x"}]' if number % 2 else "[{")
        else:
            rows.append(conversation)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path, bad_lines


@settings(max_examples=50)
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       end=st.booleans(), size=st.integers(1, 64))
def test_chunk_ranges_cut_a_file_at_line_ends(tmp_path_factory: pytest.TempPathFactory, lines: list[bytes],
                                              end: bool, size: int) -> None:
    """The ranges cover the file exactly, in order, each a run of whole lines of at least ``size`` bytes."""
    from contentblocks._transcripts._files import chunk_ranges, read_chunks  # noqa: PLC0415

    data = b"\n".join(lines) + (b"\n" if end and lines else b"")
    path = tmp_path_factory.mktemp("ranges") / "d.jsonl"
    path.write_bytes(data)
    with path.open("rb") as stream:
        ranges = list(chunk_ranges(stream, size))
    pieces = [data[offset : offset + length] for offset, length in ranges]
    assert b"".join(pieces) == data
    assert all(o2 == o1 + n1 for (o1, n1), (o2, _) in itertools.pairwise(ranges))
    assert all(piece.endswith(b"\n") and len(piece) >= size for piece in pieces[:-1])
    with path.open("rb") as stream:
        chunks = list(read_chunks(stream, size))
    assert b"".join(chunks) == data
    assert all(chunk.endswith(b"\n") for chunk in chunks[:-1])


def test_jobs_give_the_same_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--jobs 2 checks a dataset of several chunks, and several files, in worker processes with the same output."""
    path, bad = dataset(tmp_path / "big.jsonl", 5000)
    assert path.stat().st_size > 2 * cli.CHUNK_BYTES
    others = [tmp_path / f"t{i}.json" for i in range(3)]
    for i, other in enumerate(others):
        other.write_text(json.dumps([USER, answer(f"x{i}")]), encoding="utf-8")
    args = ["--dataset", str(path), str(tmp_path / "missing.jsonl"), *map(str, others)]
    one = run(capsys, *args)
    two = run(capsys, "--jobs", "2", *args)
    assert one == two
    assert one[0] == 2
    lines = one[1].splitlines()
    assert [int(line.split(":")[1]) for line in lines[: len(bad)]] == bad
    assert lines[-1] == ("checked 5 files, 5003 conversations, 44955 messages, 44955 blocks (text 14985, "
                         "tool_call 14985, tool_result 14985), 6 problems, 3 unreadable")


# ------------------------------------------------------------------------------------------ formats


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format json writes one document: per file its entries (line, problems with paths) and counts, then a summary."""
    data = jsonl(tmp_path / "data.jsonl", [USER], "[", {"messages": [{"role": "robot", "content": ""}]})
    doc = tmp_path / "doc.json"
    doc.write_text('[\n{"role": "user", "content": [{"type": "text", "text": ""}]}\n]', encoding="utf-8")
    status, output = run(capsys, "--format", "json", "--dataset", str(data), str(doc), str(tmp_path / "gone.json"))
    assert status == 2
    report = json.loads(output)
    assert report == {
        "files": [
            {"file": str(data), "mode": "dataset", "error": None, "conversations": 3, "messages": 1,
             "blocks": {"text": 1}, "problems": 2, "unreadable": 1, "not_shown": 0, "entries": [
                 {"line": 2, "unreadable": True, "omitted": 0, "problems": [
                     {"line": 2, "path": "$", "message": "invalid JSON: Expecting value (line 1, column 2)"}]},
                 {"line": 3, "unreadable": False, "omitted": 0, "problems": [
                     {"line": 3, "path": "$.messages[0].role", "message": "expected one of: system, developer, user, "
                                                                          "assistant, tool"},
                     {"line": 3, "path": "$.messages[0].content", "message": "must not be empty"}]}]},
            {"file": str(doc), "mode": "document", "error": None, "conversations": 1, "messages": 0, "blocks": {},
             "problems": 1, "unreadable": 0, "not_shown": 0, "entries": [
                 {"line": 2, "unreadable": False, "omitted": 0, "problems": [
                     {"line": 2, "path": "$[0].content[0].text", "message": "must not be empty"}]}]},
            {"file": str(tmp_path / "gone.json"), "mode": "document", "error": "cannot read: No such file or directory",
             "conversations": 0, "messages": 0, "blocks": {}, "problems": 0, "unreadable": 1, "not_shown": 0,
             "entries": []},
        ],
        "summary": {"files": 3, "conversations": 4, "messages": 1, "blocks": {"text": 1}, "problems": 3,
                    "unreadable": 2, "not_shown": 0},
        "status": 2,
    }


def test_json_report_of_nothing_is_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that finds no file still writes a whole JSON document, the empty directory its one unreadable entry."""
    status, output = run(capsys, "--format", "json", str(tmp_path))
    assert status == 2
    report = json.loads(output)
    assert [(f["file"], f["error"]) for f in report["files"]] == [(str(tmp_path), "no .json or .jsonl file in this directory")]
    assert report["status"] == 2
    capsys.readouterr()


def test_json_report_names_that_are_not_utf8(tmp_path: Path) -> None:
    """A file name that is not UTF-8 appears escaped, in every format, and the report is still whole."""
    name = os.fsdecode(b"caf\xe9.json")
    (tmp_path / name).write_text("{}", encoding="utf-8")
    for fmt in ("json", "text", "github"):
        done = command("check", "--format", fmt, str(tmp_path))
        assert done.returncode == 1, done.stderr
        assert "caf\\udce9.json" in done.stdout
    assert json.loads(command("check", "--format", "json", str(tmp_path)).stdout)["summary"]["problems"] == 1


def test_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format github gives one ::error a problem, with the file and the JSONL line, then the summary."""
    path = jsonl(tmp_path / "t.jsonl", USER, {"role": "user", "content": ""}, "{")
    status, output = run(capsys, "--format", "github", str(path), str(tmp_path / "gone.json"))
    assert status == 2
    assert output.splitlines() == [
        f"::error file={path},line=2::$.content: must not be empty",
        (f"::error file={path},line=3::$: invalid JSON: Expecting property name enclosed in double quotes (line 1, "
        "column 2)"),
        f"::error file={tmp_path}/gone.json::cannot read: No such file or directory",
        "checked 2 files, 1 message, 1 block (text 1), 1 problem, 2 unreadable",
    ]


def test_github_annotations_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """%, CR and LF are escaped in messages, and also , and : in the file property, as GitHub documents."""
    path = tmp_path / "a,b:c%d\r\ne.json"
    path.write_text('{"type": "text", "text": "x", "50%": 1}', encoding="utf-8")
    status, output = run(capsys, "--format", "github", str(path))
    assert status == 1
    escaped = str(tmp_path).replace(":", "%3A").replace(",", "%2C") + "/a%2Cb%3Ac%25d%0D%0Ae.json"
    assert output.splitlines()[0] == (
        f'::error file={escaped},line=1::$["50%25"]: unknown key (a text block has: type, text, citations, cache, metadata)'
    )


def test_github_annotation_for_stdin_names_no_file(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Standard input has no file in the repository: its annotations carry only the line."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"role": "user", "content": ""}\n')))
    assert run(capsys, "--format", "github", "-")[1].splitlines()[0] == "::error line=1::$.content: must not be empty"


# ------------------------------------------------------------------------------------------ options

LIMITED: list[tuple[str, dict[str, Any], str]] = [
    ("--max-text-chars=3", {"type": "text", "text": "abcd"}, "$[0].content[0].text: longer than 3 characters"),
    ("--max-binary-bytes=2", {"type": "file", "media_type": "image/png", "source": {"type": "base64", "data": "AAAA"}},
     "$[0].content[0].source.data: more than 2 bytes once decoded"),
    ("--max-uri-chars=20", {"type": "file", "media_type": "image/png",
                            "source": {"type": "url", "url": "https://example.com/a/long/path"}},
     "$[0].content[0].source.url: longer than 20 characters"),
    ("--max-depth=2", {"type": "json", "value": [[[1]]]},
     "$[0].content[0].value[0][0]: nested deeper than 2 containers (or a container holds itself)"),
    ("--max-nodes=3", {"type": "json", "value": [1, 2, 3, 4]}, "$[0].content[0].value: more than 3 values in one JSON value"),
]


@pytest.mark.parametrize(("option", "block", "problem"), LIMITED, ids=[o for o, _, _ in LIMITED])
def test_limit_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, block: dict[str, Any],
                       problem: str) -> None:
    """Each converter limit is an option: a conversation valid by default breaks the lowered limit."""
    path = jsonl(tmp_path / "d.jsonl", [{"role": "user", "content": [block]}])
    assert run(capsys, "--dataset", str(path))[0] == 0
    status, output = run(capsys, "--dataset", option, str(path))
    assert (status, output.splitlines()[0]) == (1, f"{path}:1: {problem}")


def test_every_limit_has_an_option() -> None:
    """The options are made from contentblocks.Limits, so none is forgotten (max_errors is tested apart)."""
    import attrs  # noqa: PLC0415

    from contentblocks import Limits  # noqa: PLC0415

    options = {o.split("=")[0] for o, _, _ in LIMITED} | {"--max-errors"}
    assert options == {"--" + f.name.replace("_", "-") for f in attrs.fields(Limits)}


def test_max_errors_counts_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-errors keeps that many problems of a conversation and counts the others."""
    path = jsonl(tmp_path / "d.jsonl", [{"role": "robot", "content": "x"}] * 4)
    status, output = run(capsys, "--dataset", "--max-errors", "2", str(path))
    assert (status, output.splitlines()[1:]) == (1, [
        f"{path}:1: $[1].role: expected one of: system, developer, user, assistant, tool",
        f"{path}:1: $: ... and 2 more problems",
        "checked 1 file, 1 conversation, 0 messages, 0 blocks, 4 problems",
    ])


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_max_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """--max-problems N reports N problems (of any file) and says how many more it left out; all are counted."""
    a = jsonl(tmp_path / "a.jsonl", *[{"role": "user", "content": ""}] * 3)
    b = jsonl(tmp_path / "b.jsonl", {"role": "user", "content": ""}, "[")
    status, output = run(capsys, "--format", fmt, "--max-problems", "2", str(a), str(b))
    assert status == 2
    if fmt == "json":
        report = json.loads(output)
        assert [len(entry["problems"]) for f in report["files"] for entry in f["entries"]] == [1, 1]
        assert [f["not_shown"] for f in report["files"]] == [1, 2]
        assert report["summary"]["not_shown"] == 3
        return
    lines = output.splitlines()
    assert len(lines) == 3
    assert lines[-1] == "checked 2 files, 0 messages, 0 blocks, 4 problems, 1 unreadable; 3 not shown (--max-problems)"


def test_max_problems_zero_prints_only_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-problems 0 counts everything and prints only the summary, and the files that cannot be read at all."""
    path = jsonl(tmp_path / "a.jsonl", {"role": "user", "content": ""}, "[")
    assert run(capsys, "--max-problems", "0", str(path), str(tmp_path / "gone.json")) == (2, (
        f"{tmp_path}/gone.json: cannot read: No such file or directory\n"
        "checked 2 files, 0 messages, 0 blocks, 1 problem, 2 unreadable; 2 not shown (--max-problems)\n"
    ))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--jobs", "0"], "argument --jobs: must be at least 1"),
        (["--max-text-chars", "many"], "argument --max-text-chars: expected an integer, got 'many'"),
        (["--max-depth", "501"], "max_depth must be at most 500"),
        (["--max-problems", "-1"], "argument --max-problems: must be at least 0"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
    ],
)
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], said: str) -> None:
    """A bad option value is a usage error: status 2, with the check command's usage."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["check", *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: contentblocks check")
    assert said in err


# ------------------------------------------------------------------------------------------ progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_after_the_delay_and_clears() -> None:
    """The progress line appears once the delay has passed, redraws in place, and is wiped at the end."""
    from contentblocks._transcripts._files import Tally  # noqa: PLC0415

    stream = _Terminal()
    waiting = cli._Progress(stream, 4_000_000, enabled=True, delay=3600)
    waiting.update(Tally(size=1_000_000), cli._Counts())
    waiting.clear()
    assert stream.getvalue() == ""
    progress = cli._Progress(stream, 4_000_000, enabled=True, delay=0)
    progress.update(Tally(size=1_000_000), cli._Counts(conversations=10, problems=1))
    assert stream.getvalue().startswith("\rchecking: 1.0 of 4.0 MB (25%), ")
    assert stream.getvalue().endswith(" MB/s, 10 conversations, 1 problem\x1b[K")
    progress.clear()
    assert stream.getvalue().endswith("\r\x1b[K")
    quiet = _Terminal()
    off = cli._Progress(quiet, 0, enabled=False, delay=0)
    off.update(Tally(size=1), cli._Counts())
    off.clear()
    assert quiet.getvalue() == ""


def test_progress_is_wiped_before_a_report_line(tmp_path: Path) -> None:
    """With the report and the progress on one terminal, each report line starts on a wiped line."""
    from contentblocks._transcripts._checker import Checker  # noqa: PLC0415

    path, _ = dataset(tmp_path / "d.jsonl", 2000)
    terminal = _Terminal()
    progress = cli._Progress(terminal, path.stat().st_size, enabled=True, delay=0)
    sources = cli._sources([str(path)], dataset=True, stdin_name=cli.STDIN)
    writer = cli._Writer(terminal, None, dataset=True)
    assert cli.check(sources, writer, Checker(), jobs=1, progress=progress) == 2
    shown = terminal.getvalue()
    assert shown.count("\rchecking: ") >= 1
    for line in shown.split("\n")[:-1]:  # every line ends wiped, and the report follows a wipe
        report = line.rpartition("\r\x1b[K")[2]
        assert report.startswith((f"{path}:", "checked ")), line
        assert "checking: " not in report
    assert shown.endswith("checked 1 file, 2000 conversations, 17982 messages, 17982 blocks (text 5994, "
                          "tool_call 5994, tool_result 5994), 1 problem, 1 unreadable\n")


def _started(
    *args: str, empty: Path, terminal: tuple[int, int] | None = None
) -> tuple[subprocess.Popen[bytes], threading.Thread, list[bytes]]:
    """Start ``check ARGS E0 ... E4 -``, five empty directories under ``empty``, and wait until it has reported
    one: it is reading stdin now (with two workers, reports wait until five tasks are under way).

    Its stdout is unbuffered and read for that report; its stderr is a pipe, or the pseudo-terminal ``terminal``
    (leader, follower), and what it writes there is read as it comes into the list returned (a pseudo-terminal
    drops what is unread once its other end closes). The empty directories make the status 2.
    """
    import signal  # noqa: PLC0415

    empties = [empty / f"empty{i}" for i in range(5)]
    for directory in empties:
        directory.mkdir()

    stderr = subprocess.PIPE if terminal is None else terminal[1]
    # The child starts with SIGINT at its default, as from a terminal, even where the runner ignores it (started
    # in the background with `cmd &`): an ignored signal is inherited across exec, a handler is not.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen([sys.executable, "-m", "contentblocks", "check", *args, *map(str, empties), "-"],  # noqa: S603
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    finally:
        signal.signal(signal.SIGINT, previous)
    if terminal is not None:
        os.close(terminal[1])  # the child's copy is the only one left, so the leader reads EIO when it ends
    shown: list[bytes] = []
    ready = threading.Event()

    def drain(fd: int, into: list[bytes], *, signal_on: bytes | None = None) -> None:
        while True:
            try:
                piece = os.read(fd, 65536)
            except OSError:  # EIO: the other end of the pseudo-terminal is closed
                piece = b""
            if not piece:
                ready.set()
                return
            into.append(piece)
            if signal_on is not None and signal_on in b"".join(into):
                ready.set()

    assert process.stdout is not None
    leader = process.stderr.fileno() if process.stderr is not None else terminal[0]  # type: ignore[index]
    reported: list[bytes] = []
    out = threading.Thread(target=drain, args=(process.stdout.fileno(), reported),
                           kwargs={"signal_on": b"no .json or .jsonl file in this directory\n"})
    err = threading.Thread(target=drain, args=(leader, shown))
    out.start()
    err.start()
    assert ready.wait(60)

    class Both(threading.Thread):
        def join(self, timeout: float | None = None) -> None:
            out.join(timeout)
            err.join(timeout)

    return process, Both(), shown


def _slow_run(tmp_path: Path, *args: str, terminal: bool) -> tuple[int, bytes]:
    """Check a dataset fed slowly through stdin (over 1.5 s), stderr on a pseudo-terminal or a pipe."""
    import pty  # noqa: PLC0415 - POSIX only

    fds = pty.openpty() if terminal else None
    process, reader, shown = _started(*args, empty=tmp_path, terminal=fds)
    assert process.stdin is not None
    process.stdin.write(b"[]\n" * 10)
    process.stdin.flush()
    threading.Event().wait(1.5)
    process.stdin.write(b"[]\n" * 10)
    process.stdin.close()
    status = process.wait(timeout=60)
    reader.join(timeout=60)
    if fds is not None:
        os.close(fds[0])
    return status, b"".join(shown)


def test_progress_on_a_terminal_when_the_work_is_long(tmp_path: Path) -> None:
    """A check that takes more than a second shows its progress on a terminal's stderr, then wipes it."""
    status, shown = _slow_run(tmp_path, "--dataset", terminal=True)
    assert status == 2  # the empty directories
    assert b"checking: " in shown
    assert b"20 conversations, 0 problems" in shown
    assert shown.endswith(b"\r\x1b[K")


@pytest.mark.parametrize(("args", "terminal"), [(["--dataset"], False), (["--dataset", "--no-progress"], True)])
def test_no_progress_off_a_terminal_or_when_asked(tmp_path: Path, args: list[str], terminal: bool) -> None:
    """On a pipe, or with --no-progress, stderr stays empty however long the work."""
    assert _slow_run(tmp_path, *args, terminal=terminal) == (2, b"")  # 2: the empty directories


# ------------------------------------------------------------------------------------------ a real process


@settings(max_examples=30)
@given(data=st.one_of(st.binary(max_size=200), text_mutants("conversation"), text_mutants("message")),
       name=st.sampled_from(["x.json", "x.jsonl"]), dataset=st.booleans())
def test_any_bytes_give_a_report(tmp_path_factory: pytest.TempPathFactory, data: str | bytes, name: str,
                                 dataset: bool) -> None:
    """Whatever a file holds, the command ends with a summary and status 0, 1 or 2, and the next file is checked."""
    folder = tmp_path_factory.mktemp("any")
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    good = jsonl(folder / "z.jsonl", [USER] if dataset else USER)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["check", "--no-progress", *(["--dataset"] if dataset else []), str(path), str(good)])
    assert status in (0, 1, 2)
    assert out.getvalue().splitlines()[-1].startswith("checked 2 files, ")


def test_no_traceback_for_any_input(tmp_path: Path) -> None:
    """A directory of every bad input, checked in a fresh process with and without workers: statuses, no traceback."""
    (tmp_path / "as-lines").mkdir()
    for name, data, _, _ in BAD_DOCUMENTS:
        (tmp_path / name).write_bytes(data)
        (tmp_path / "as-lines" / (name.removesuffix(".json").removesuffix(".jsonl") + ".jsonl")).write_bytes(data)
    os.mkfifo(tmp_path / "fifo.jsonl")
    for args in (["--format", "json"], ["--format", "json", "--dataset", "--jobs", "2"], ["--format", "github"]):
        done = command("check", *args, str(tmp_path))
        assert done.returncode == 2
        assert all(line.startswith("contentblocks: hint: ") for line in done.stderr.splitlines()), done.stderr
        if "json" in args:
            files = [Path(f["file"]).relative_to(tmp_path) for f in json.loads(done.stdout)["files"]]
            assert len(files) == 2 * len(BAD_DOCUMENTS) + 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interrupted_without_traceback(tmp_path: Path, jobs: str) -> None:
    """Ctrl-C while reading stdin stops the command with status 130 and one line, workers included."""
    import signal  # noqa: PLC0415

    process, reader, shown = _started("--dataset", "--jobs", jobs, empty=tmp_path)
    assert process.stdin is not None
    process.stdin.write(b"[]\n")
    process.stdin.flush()
    process.send_signal(signal.SIGINT)
    status = process.wait(timeout=60)
    reader.join(timeout=60)
    assert status == 130
    assert b"".join(shown).splitlines() == [b"contentblocks: interrupted"]


def test_output_into_a_closed_pipe(tmp_path: Path) -> None:
    """Piped into a command that stops reading (head), it stops quietly."""
    path = jsonl(tmp_path / "d.jsonl", *[{"role": "user", "content": ""}] * 20_000)
    done = subprocess.run(f"{sys.executable} -m contentblocks check {path} | head -1", shell=True,  # noqa: S602
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.stdout == f"{path}:1: $.content: must not be empty\n"
    assert done.stderr == ""


def test_module_entry_point() -> None:
    """``python -m contentblocks check`` runs the same command, and checks the shipped example by default."""
    done = command("check")
    assert done.returncode == 0, done.stderr
    assert "0 problems" in done.stdout


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the version; without a command the help is printed and the status is 2."""
    import contentblocks as cb  # noqa: PLC0415

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"{cb.__version__}\n"
    assert cli.main([]) == 2
    assert "check" in capsys.readouterr().out


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``contentblocks schema message`` prints the Draft 2020-12 schema of a message."""
    assert cli.main(["schema", "message"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$ref"] == "#/$defs/Message"


# ------------------------------------------------------------------------------------------ locating lines


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


# ------------------------------------------------------------------------------------------ the benchmark


def test_the_benchmark_runs_and_renders(tmp_path: Path) -> None:
    """bench/check.py measures its four runs on a small dataset and writes its table between the page's markers."""
    script = Path(__file__).resolve().parent.parent / "bench" / "check.py"
    page = tmp_path / "page.md"
    page.write_text("# CLI\n\n<!-- check-benchmark:start -->\nstale\n<!-- check-benchmark:end -->\n\nkept\n", "utf-8")
    done = subprocess.run([sys.executable, str(script), "--size-mb", "2", "--repeat", "1", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and " MiB |" in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| dataset, 1/32 of the size, --jobs 1", "| dataset, --jobs 1", "| dataset, --jobs 2",
        "| one transcript (one message a line)",
    ]
    text = page.read_text(encoding="utf-8")
    assert "stale" not in text
    assert text.startswith("# CLI\n\n<!-- check-benchmark:start -->\nCPython ")
    assert text.endswith("<!-- check-benchmark:end -->\n\nkept\n")
    page.write_text("no markers\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--size-mb", "1", "--render", str(page)],  # noqa: S603
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    assert "no <!-- check-benchmark:start --> ... <!-- check-benchmark:end --> markers" in done.stderr
