"""The files ``contentblocks check`` is given, found and read by lines in memory bounded whatever they hold.

A line longer than the bound (``--max-line-bytes``) is not kept: the reader drops the rest of it as it
arrives and hands on a :class:`LongLine` in its place, which the checker reports at the line's number. So an
endless line (``/dev/zero``, a pipe), a sparse file's gigabyte of NULs, or a document too large to parse in
memory is refused, never read whole.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal, NamedTuple, TypeAlias

import attrs

from ._checker import CheckResult, Problem

__all__ = [
    "CHUNK_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "LongLine",
    "Mode",
    "Source",
    "Window",
    "cannot_read",
    "chunk_ranges",
    "file_source",
    "mode_of",
    "read_chunks",
    "too_long",
    "walk",
]

#: Bytes read at a time; a chunk holds whole lines, so it is larger when one line is.
CHUNK_BYTES = 1 << 20
#: The longest line (and ``.json`` document) read, in bytes: room for three files of the largest size the
#: converter takes (32 MiB each, 43 MiB in base64), and a bound on what one line holds in memory.
DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024


Mode: TypeAlias = Literal["document", "messages", "dataset"]
"""How a file is read: one JSON document, one message a line, or one conversation a line."""

@attrs.frozen
class Source:
    """One file to check: its name in reports, where to read it (None: standard input), how, and its size."""

    name: str
    path: str | None
    mode: Mode
    size: int = 0
    error: str | None = None


def mode_of(name: str, *, dataset: bool) -> Mode:
    """How a file of this name is read: ``.jsonl`` by lines (messages, or conversations in a dataset)."""
    if not name.endswith(".jsonl"):
        return "document"
    return "dataset" if dataset else "messages"


def file_source(path: str, *, dataset: bool, walked: bool) -> Source:
    """A file named by the user, or found by walking a directory.

    A walked file must be a regular file (a FIFO found there would block the walk), and is named without
    ``./`` (as GitHub wants its paths).
    """
    name = os.path.normpath(path) if walked else path
    mode = mode_of(path, dataset=dataset)
    try:
        info = Path(path).stat()
    except OSError as e:
        return Source(name, path, mode, error=cannot_read(e))
    if walked and not stat.S_ISREG(info.st_mode):
        return Source(name, path, mode, error="cannot read: not a regular file")
    return Source(name, path, mode, info.st_size if stat.S_ISREG(info.st_mode) else 0)


def walk(root: str, *, dataset: bool) -> Iterator[Source]:
    """The ``*.json`` and ``*.jsonl`` files under ``root``: a directory's files by name, then its subdirectories.

    Links to directories are not followed (they could loop); links to files are.
    """
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as e:
            yield Source(directory, directory, "document", error=f"cannot read directory: {_reason(e)}")
            continue
        subdirectories = []
        for entry in entries:
            if _is_directory(entry):
                subdirectories.append(entry.path)
            elif entry.name.endswith((".json", ".jsonl")):
                yield file_source(entry.path, dataset=dataset, walked=True)
        pending.extend(reversed(subdirectories))


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:  # it could not be looked at: checking it as a file reports why
        return False


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def cannot_read(error: OSError) -> str:
    """What the report says of a file that ``error`` kept from being read."""
    return f"cannot read: {_reason(error)}"


class LongLine(NamedTuple):
    """A line that was longer than the bound, dropped unread: in a run of lines, it stands for one line."""

    #: Bytes of the line read (without its newline): more than the bound, less than all of it if it never ended.
    length: int
    #: Whether its newline was read (a line that runs to the end of the file has none).
    ended: bool


def too_long(what: str, max_bytes: int) -> CheckResult:
    """The unreadable result of a line (``what``: ``"line"``) or a ``.json`` document past the bound."""
    problem = Problem("$", f"{what} longer than {max_bytes:,} bytes (--max-line-bytes); not read")
    return CheckResult(problems=(problem,), unreadable=True)


def read_chunks(
    stream: IO[bytes] | Window, size: int = CHUNK_BYTES, max_line: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[bytes | LongLine]:
    """Runs of whole lines of ``stream``, read ``size`` at a time; a line longer than ``size`` comes whole.

    A line that grows past ``max_line`` bytes before its newline comes is not kept: the rest of it is read and
    dropped, and a :class:`LongLine` stands in its place, so at most ``max_line + 2 * size`` bytes are held.
    (A shorter line past the bound comes in its run, for the reader of the run to refuse.) Uses ``read1``, so
    that a pipe gives its lines as they arrive.
    """
    pending: list[bytes] = []
    held = 0  # bytes in pending
    dropped = -1  # while a long line is dropped: its bytes so far
    while data := stream.read1(size):  # type: ignore[union-attr]
        if dropped >= 0:
            end = data.find(b"\n")
            if end == -1:
                dropped += len(data)
                continue
            yield LongLine(dropped + end, ended=True)
            dropped = -1
            data = data[end + 1 :]
        cut = data.rfind(b"\n") + 1
        if not cut:
            pending.append(data)
            held += len(data)
            if held > max_line:
                dropped, pending, held = held, [], 0
            continue
        yield b"".join([*pending, data[:cut]]) if pending else data[:cut]
        pending = [data[cut:]] if cut < len(data) else []
        held = len(data) - cut
    if dropped >= 0:
        yield LongLine(dropped, ended=False)
    elif pending:
        yield b"".join(pending)


class Window:
    """``length`` bytes of a stream from where it stands, read by ``read1`` (for :func:`read_chunks`)."""

    def __init__(self, stream: IO[bytes], length: int) -> None:
        self.stream = stream
        self.left = length

    def read1(self, size: int) -> bytes:
        data = self.stream.read1(min(size, self.left)) if self.left > 0 else b""  # type: ignore[attr-defined]
        self.left -= len(data)
        return data


def chunk_ranges(stream: IO[bytes], size: int = CHUNK_BYTES) -> Iterator[tuple[int, int]]:
    """``(offset, length)`` of runs of about ``size`` bytes of whole lines of a regular file, found by seeking.

    Only the bytes after each cut are read (up to the next newline, 64 KiB at a time), so that a worker
    process can read and check each run itself: the bytes of the file never pass through the process that
    cuts it. A run may hold one line of any length; :func:`read_chunks` then reads it in bounded memory.
    """
    end_of_file = os.fstat(stream.fileno()).st_size
    offset = 0
    while offset < end_of_file:
        cut = min(offset + size, end_of_file)
        if cut < end_of_file:
            stream.seek(cut - 1)
            while (piece := stream.read(64 * 1024)) and (newline := piece.find(b"\n")) == -1:
                cut += len(piece)
            cut = min(cut + newline, end_of_file) if piece else end_of_file
        yield offset, cut - offset
        offset = cut
