"""What ``contentblocks check`` reads in a file, and how: documents, message lines and dataset lines.

A ``.json`` file is one document; a ``.jsonl`` file holds one message a line (its lines one conversation) or,
in dataset mode, one conversation a line. Files are read in chunks of whole lines, so memory is bounded by
the largest conversation, and a dataset's chunks can be checked in parallel: every check returns a
:class:`Tally`, which pickles, and :func:`run_tasks` runs them in worker processes, in order.
"""

from __future__ import annotations

import signal
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import IO, Any, Literal, NamedTuple, TypeAlias, TypeVar

import attrs

from .._api import parse_json
from .._conversion._converter import structure_parsed
from .._errors import ValidationError, join_key
from .._model._classes import Block, Message
from .._model._conversation import Conversation, tool_summary
from .._model._growth import ToolBlockSummary, ToolPairing
from ._checker import (
    Checker,
    CheckResult,
    Problem,
    count_blocks,
    failed,
    unreadable,
    with_format_hint,
    without_newline,
)
from ._lines import (
    CHUNK_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    LongLine,
    Mode,
    Source,
    Window,
    cannot_read,
    chunk_ranges,
    file_source,
    mode_of,
    read_chunks,
    too_long,
    walk,
)
from ._locate import line_of

__all__ = [
    "CHUNK_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "Entry",
    "Mode",
    "Source",
    "Tally",
    "Task",
    "cannot_read",
    "check_chunk",
    "check_path",
    "check_range",
    "check_runs",
    "check_stream",
    "chunk_ranges",
    "file_source",
    "mode_of",
    "read_chunks",
    "run_tasks",
    "walk",
]

class Entry(NamedTuple):
    """What one checked part of a file found: a line of a ``.jsonl`` file, or a whole ``.json`` document."""

    #: The line the part starts on.
    line: int
    result: CheckResult
    #: The line of each problem, where a part spans lines (a ``.json`` document); empty when all are on ``line``.
    lines: tuple[int, ...] = ()

    def located(self) -> Iterator[tuple[int, Problem]]:
        """Each problem with its line."""
        lines = self.lines or (self.line,) * len(self.result.problems)
        return zip(lines, self.result.problems, strict=True)


@attrs.define
class Tally:
    """What checking a file, or a chunk of one, found: the parts with problems, and counts of everything."""

    #: The parts that are not valid, in file order.
    entries: list[Entry] = attrs.Factory(list)
    conversations: int = 0
    messages: int = 0
    kinds: Counter[str] = attrs.Factory(Counter)
    #: Why the file itself could not be read, if it could not (``"cannot read: Permission denied"``).
    error: str | None = None
    #: Bytes read.
    size: int = 0
    #: Newlines read, where lines are numbered from the tally's own start (a run of a dataset).
    lines: int = 0
    #: What the problems suggest about reading the input another way (``CheckResult.hint``), each once.
    hints: set[str] = attrs.Factory(set)

    def add(self, line: int, result: CheckResult, lines: tuple[int, ...] = ()) -> None:
        """Count one checked part, and keep it if it found anything."""
        if not result.ok:
            self.entries.append(Entry(line, result, lines))
        if result.hint is not None:
            self.hints.add(result.hint)
        self.messages += result.messages
        self.kinds.update(result.blocks)

    def shift(self, lines: int) -> None:
        """Number the entries' lines from ``lines`` lines further on (where the tally's run starts in its file)."""
        if lines:
            self.entries = [Entry(e.line + lines, e.result, tuple(n + lines for n in e.lines)) for e in self.entries]

    @property
    def problems(self) -> int:
        """Problems found in parts that could be read, those omitted from their ``ValidationError`` included."""
        return sum(len(e.result.problems) + e.result.omitted for e in self.entries if not e.result.unreadable)

    @property
    def unreadable(self) -> int:
        """Unreadable parts, and the file itself when it could not be read."""
        return sum(e.result.unreadable for e in self.entries) + (self.error is not None)


def check_chunk(checker: Checker, chunk: bytes | LongLine, max_line: int = DEFAULT_MAX_LINE_BYTES) -> Tally:
    """Check a run of whole lines of a dataset (one conversation a line), or a line too long to read.

    Lines are numbered from 1; the tally counts the run's lines, so that the caller, who knows where the run
    starts, can number them in the file (:meth:`Tally.shift`).
    """
    return check_runs(checker, (chunk,), max_line)


def check_runs(checker: Checker, runs: Iterable[bytes | LongLine], max_line: int) -> Tally:
    """Check each line of consecutive runs of a dataset (see :func:`read_chunks`), numbered from 1."""
    tally = Tally()
    for number, line in _numbered_lines(runs, tally, max_line):
        text = without_newline(line) if line is not None else None
        if line is None or text is not None:
            tally.conversations += 1
            tally.add(number, too_long("line", max_line) if text is None else checker.check_line(text))
    return tally


def _numbered_lines(
    runs: Iterable[bytes | LongLine], tally: Tally, max_line: int
) -> Iterator[tuple[int, bytes | None]]:
    """Each line of consecutive runs and its number, from 1; None for one longer than ``max_line``, unread.

    The tally counts the bytes and the newlines read.
    """
    first = 1
    for run in runs:
        if isinstance(run, LongLine):
            tally.size += run.length + run.ended
            yield first, None
            first += run.ended
            continue
        tally.size += len(run)
        lines = run.split(b"\n")
        for number, line in enumerate(lines, first):
            yield number, line if len(line.rstrip(b"\r")) <= max_line else None
        first += len(lines) - 1
    tally.lines = first - 1


def check_range(checker: Checker, path: str, offset: int, length: int, max_line: int = DEFAULT_MAX_LINE_BYTES) -> Tally:
    """Check ``length`` bytes of the file at ``path`` from ``offset`` (a run of :func:`chunk_ranges`), by lines."""
    try:
        with open(path, "rb") as stream:  # noqa: PTH123 - any path a user names
            stream.seek(offset)
            return check_runs(checker, read_chunks(Window(stream, length), CHUNK_BYTES, max_line), max_line)
    except OSError as e:
        return Tally(error=cannot_read(e))


def check_stream(
    checker: Checker, stream: IO[bytes], mode: Literal["document", "messages"], max_line: int = DEFAULT_MAX_LINE_BYTES
) -> Tally:
    """Check a whole ``.json`` document or ``.jsonl`` conversation read from ``stream``.

    A read error ends the check, and is the tally's ``error``. (A dataset is cut into runs of lines by
    :func:`chunk_ranges` or :func:`read_chunks`, each checked apart, so that runs can go to worker processes.)
    A document or a line of more than ``max_line`` bytes is not read whole: it is refused at its line.
    """
    if mode == "document":
        try:
            data = stream.read(max_line + 1)
        except OSError as e:
            return Tally(error=cannot_read(e))
        if len(data) > max_line:
            tally = Tally(size=len(data))
            tally.add(1, too_long("document", max_line))
            return tally
        return _check_document(checker, data)
    tally = Tally()
    try:
        _check_messages(checker, read_chunks(stream, CHUNK_BYTES, max_line), tally, max_line)
    except OSError as e:
        tally.error = cannot_read(e)
    return tally


def check_path(
    checker: Checker, path: str, mode: Literal["document", "messages"], max_line: int = DEFAULT_MAX_LINE_BYTES
) -> Tally:
    """Check the file at ``path`` (see :func:`check_stream`); a file that cannot be opened too."""
    try:
        stream = open(path, "rb")  # noqa: PTH123, SIM115 - closed below; any path a user names, FIFOs included
    except OSError as e:
        return Tally(error=cannot_read(e))
    with stream:
        return check_stream(checker, stream, mode, max_line)


def _check_messages(checker: Checker, chunks: Iterable[bytes | LongLine], tally: Tally, max_line: int) -> None:
    """One message a line, the lines one conversation: each line alone, then tool-call pairing if all are valid.

    Pairing needs only each tool block's id, name and place, so only those are kept, not the messages: the
    summary of a message is numbered by its line, which its problems' paths then carry (``$[LINE].content``).
    """
    converter = checker.converter()
    tally.conversations = 1
    summary: list[ToolBlockSummary] = []
    clean = True
    for number, line in _numbered_lines(chunks, tally, max_line):
        if line is None:
            clean = False
            tally.add(number, too_long("line", max_line))
            continue
        text = without_newline(line)
        if text is None:
            continue
        try:
            raw = parse_json(text)
        except ValidationError as e:
            clean = False
            tally.add(number, unreadable(e))
            continue
        try:
            message = converter.structure(raw, Message)
        except ValidationError as e:
            clean = False
            tally.add(number, _with_hint(failed(e), raw))
            continue
        tally.messages += 1
        count_blocks(tally.kinds, message.content)
        summary += tool_summary((message,), number)
    if not clean:
        return
    problems: list[tuple[str, str]] = []
    ToolPairing().extend(problems, summary, tally.messages)  # a pairing of its own, dropped once checked
    cap = checker.limits.max_errors
    by_line: dict[int, list[Problem]] = {}
    for path, text in problems[:cap]:
        index, _, rest = path[2:].partition("]")  # $[LINE].content...
        by_line.setdefault(int(index), []).append(Problem("$" + rest, text))
    omitted = max(len(problems) - cap, 0)  # counted on the last line shown, as a ValidationError counts them
    for i, (at, found) in enumerate(by_line.items(), 1):
        tally.add(at, CheckResult(problems=tuple(found), omitted=omitted if i == len(by_line) else 0))


_DATASET_HINT = "a line holds a whole conversation: with --dataset each line of a .jsonl file is one conversation"


def _with_hint(result: CheckResult, raw: object) -> CheckResult:
    """A message line's result, with a hint where the line is a conversation (or a provider's message)."""
    if isinstance(raw, list) or (isinstance(raw, dict) and "messages" in raw and "role" not in raw):
        return attrs.evolve(result, hint=_DATASET_HINT)
    return with_format_hint(result)


def _check_document(checker: Checker, data: bytes) -> Tally:
    """A ``.json`` file: a block, a message, an array of messages or ``{"messages": [...]}`` (nothing else)."""
    tally = Tally(size=len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        tally.add(data.count(b"\n", 0, e.start) + 1, unreadable(ValidationError([("$", "invalid JSON: not UTF-8")])))
        return tally
    try:
        raw = parse_json(text)
    except ValidationError as e:
        tally.add(_reported_line(e.errors[0][1]), unreadable(e))
        return tally
    if checker.input_format != "contentblocks":  # one provider request: its adapter reads it
        tally.conversations = 1
        _add_at_lines(tally, text, checker.check(raw))
        return tally
    prefix = "$"
    try:
        value, target, prefix = _target(raw)
        tally.conversations = int(target is Conversation)
        obj = structure_parsed(checker.converter(), value, target)
    except ValidationError as e:
        _add_at_lines(tally, text, with_format_hint(failed(e, prefix)))
        return tally
    if isinstance(obj, Block):
        count_blocks(tally.kinds, (obj,))
        return tally
    messages = (obj,) if isinstance(obj, Message) else obj.messages
    tally.messages = len(messages)
    for message in messages:
        count_blocks(tally.kinds, message.content)
    return tally


def _add_at_lines(tally: Tally, text: str, result: CheckResult) -> None:
    """Count a document's result, each problem at the line of ``text`` its path leads to (line 1 for none)."""
    lines = tuple(line_of(text, path) for path, _ in result.problems)
    tally.add(lines[0] if lines else 1, result, lines)


def _target(raw: object) -> tuple[object, Any, str]:
    """What a ``.json`` document holds: (value, target type, path prefix of that value)."""
    if isinstance(raw, list):
        return raw, Conversation, "$"
    if isinstance(raw, dict):
        if "messages" in raw and "role" not in raw and "type" not in raw:
            extra = [k for k in raw if k != "messages"]
            if extra:
                raise ValidationError([(join_key("$", extra[0]), 'unknown key (expected {"messages": [...]})')])
            return raw["messages"], Conversation, "$.messages"
        if "role" in raw:
            return raw, Message, "$"
        return raw, Block, "$"
    raise ValidationError([("$", 'expected a block, a message, a list of messages or {"messages": [...]}')])


def _reported_line(message: str) -> int:
    """The line a parse error names (``... (line 3, column 5)``), or 1."""
    marker = message.rfind("(line ")
    if marker == -1:
        return 1
    return int(message[marker + 6 :].split(",", 1)[0])


#: A task: a tally already made, or a function and its arguments that make one (in a worker process, if any);
#: None marks the end of a file.
Task: TypeAlias = Tally | tuple[Callable[..., Tally], tuple[Any, ...]] | None
T = TypeVar("T")


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the command, which stops them (instead of each printing a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_tasks(tasks: Iterable[tuple[T, Task]], jobs: int) -> Iterator[tuple[T, Tally | None]]:
    """Each task's tally (None stays None), in task order: run here, or by ``jobs`` worker processes.

    With workers, a few tasks are sent ahead of the one whose tally is handed back, never more than
    ``2 * jobs``, so that every worker stays busy while memory stays bounded. Each task comes with a tag
    (the file it belongs to), which is handed back with its tally.
    """
    if jobs == 1:
        for tag, task in tasks:
            yield tag, task if not isinstance(task, tuple) else task[0](*task[1])
        return
    with ProcessPoolExecutor(jobs, initializer=_quiet_worker) as pool:
        backlog: deque[tuple[T, Future[Tally] | Tally | None]] = deque()
        try:
            for tag, task in tasks:
                backlog.append((tag, pool.submit(task[0], *task[1]) if isinstance(task, tuple) else task))
                while len(backlog) > 2 * jobs:
                    yield _result(backlog.popleft())
            while backlog:
                yield _result(backlog.popleft())
        finally:
            pool.shutdown(cancel_futures=True)


def _result(item: tuple[T, Future[Tally] | Tally | None]) -> tuple[T, Tally | None]:
    tag, task = item
    return tag, task.result() if isinstance(task, Future) else task
