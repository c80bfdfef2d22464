"""``contentblocks check`` holds memory bounded whatever it reads: endless, sparse and huge lines and documents."""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

MESSAGE = b'{"role": "user", "content": "hi"}'
#: A valid line of a .jsonl file read by messages, and of one read as a dataset.
VALID_LINE = {False: MESSAGE, True: b"[" + MESSAGE + b"]"}
#: The address space the command may use: enough for the interpreter and a line of the default bound, far
#: less than the lines below.
MEMORY = 400 * 2**20
DEFAULT = f"{128 * 2**20:,}"  # the documented default of --max-line-bytes: 128 MiB


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def limited(*args: str, feed: int = 0) -> subprocess.CompletedProcess[str]:
    """Run the command under a memory limit; with ``feed``, standard input is a line of that many bytes, then a
    valid line."""
    process = subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, "-m", "contentblocks", "check", "--no-progress", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_memory,  # noqa: PLW1509 - only a limit
    )

    def write() -> None:
        try:
            piece = b"a" * 2**20
            for _ in range(feed // len(piece)):
                process.stdin.write(piece)
            process.stdin.write(b"\n" + VALID_LINE["--dataset" in args] + b"\n")
        except BrokenPipeError:
            pass
        finally:
            process.stdin.close()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = process.stdout.read()  # the report is short: standard error cannot fill its pipe meanwhile
    err = process.stderr.read()
    process.wait(timeout=300)
    writer.join()
    return subprocess.CompletedProcess(process.args, process.returncode, out.decode(), err.decode())


@pytest.mark.parametrize("mode", [[], ["--dataset"]])
def test_an_endless_line_on_standard_input_is_a_problem_at_its_line(mode: list[str]) -> None:
    """A 600 MB line on standard input is reported at its line, in bounded memory; the next line is checked."""
    done = limited(*mode, "-", feed=600 * 2**20)
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == f"<stdin>:1: $: line longer than {DEFAULT} bytes (--max-line-bytes); not read"
    assert "1 message" in lines[-1]
    assert "1 unreadable" in lines[-1]
    assert done.returncode == 2


def sparse_file(path: Path, line: bytes) -> Path:
    """A sparse file: a line of 1 GB of NULs (taking no disk), then ``line``."""
    with path.open("wb") as f:
        f.seek(2**30)
        f.write(b"\n" + line + b"\n")
    return path


@pytest.fixture(scope="module")
def sparse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sparse .jsonl file: a line of 1 GB, then a message."""
    return sparse_file(tmp_path_factory.mktemp("sparse") / "sparse.jsonl", MESSAGE)


@pytest.mark.parametrize("mode", [[], ["--dataset"], ["--dataset", "--jobs", "2"]])
def test_a_sparse_line_is_a_problem_at_its_line(tmp_path: Path, mode: list[str]) -> None:
    """A 1 GB line of a sparse file is reported at its line, read in bounded memory (by lines or by runs)."""
    sparse = sparse_file(tmp_path / "sparse.jsonl", VALID_LINE[bool(mode)])
    done = limited(*mode, str(sparse))
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == f"{sparse}:1: $: line longer than {DEFAULT} bytes (--max-line-bytes); not read"
    assert "1 message" in lines[-1]
    assert done.returncode == 2


def test_a_sparse_document_is_refused_unread(sparse: Path) -> None:
    """A 1 GB .json document is refused once it passes the bound, in bounded memory."""
    document = sparse.with_suffix(".json")
    document.unlink(missing_ok=True)
    document.symlink_to(sparse)
    done = limited(str(document))
    assert done.stdout.splitlines()[0] == (
        f"{document}:1: $: document longer than {DEFAULT} bytes (--max-line-bytes); not read")
    assert done.returncode == 2


def test_dev_zero_is_refused_in_bounded_memory() -> None:
    """/dev/zero, endless, is read as a document only up to the bound, then refused."""
    done = limited("/dev/zero")
    assert done.stderr == ""
    assert done.stdout.splitlines()[0] == f"/dev/zero:1: $: document longer than {DEFAULT} bytes (--max-line-bytes); not read"
    assert done.returncode == 2


def test_running_out_of_memory_is_reported_without_a_traceback() -> None:
    """With the bound raised past the memory there is, running out ends the command with a message and status 2."""
    done = limited("--max-line-bytes", str(2**40), "-", feed=600 * 2**20)
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("contentblocks: out of memory")
    assert done.returncode == 2


@pytest.mark.parametrize("dataset", [False, True])
@pytest.mark.parametrize("stdin", [False, True])
def test_max_line_bytes_bounds_every_line(tmp_path: Path, dataset: bool, stdin: bool) -> None:
    """--max-line-bytes N: a line of more than N bytes (its newline not counted) is a problem; one of N is read."""
    exact, long = (b'{"role": "user", "content": "' + b"x" * n + b'"}' for n in (39, 40))
    if dataset:
        exact, long = b"[" + exact + b"]", b"[" + long + b"]"
    data = exact + b"\n" + long + b"\n"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    args = [*(["--dataset"] if dataset else []), "--max-line-bytes", str(len(exact)), "-" if stdin else str(path)]
    done = subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-m", "contentblocks", "check", "--no-progress", *args],
        input=data if stdin else None, capture_output=True, check=False, timeout=60,
    )
    name = "<stdin>" if stdin else str(path)
    lines = done.stdout.decode().splitlines()
    assert lines[0] == f"{name}:2: $: line longer than {len(exact)} bytes (--max-line-bytes); not read"
    assert "1 message" in lines[-1]
    assert done.returncode == 2


def test_max_line_bytes_bounds_a_document(tmp_path: Path) -> None:
    """--max-line-bytes N: a .json document of more than N bytes is refused unread; one of N is read."""
    path = tmp_path / "doc.json"
    path.write_bytes(MESSAGE)
    args = [sys.executable, "-m", "contentblocks", "check", "--no-progress", "--max-line-bytes"]
    fits = subprocess.run([*args, str(len(MESSAGE)), str(path)], capture_output=True, text=True, check=False)  # noqa: S603
    assert fits.returncode == 0
    over = subprocess.run([*args, str(len(MESSAGE) - 1), str(path)], capture_output=True, text=True, check=False)  # noqa: S603
    assert over.stdout.splitlines()[0] == f"{path}:1: $: document longer than {len(MESSAGE) - 1} bytes (--max-line-bytes); not read"
    assert over.returncode == 2
