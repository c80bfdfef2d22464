"""The ``contentblocks`` command: check transcripts and datasets against the wire format.

``contentblocks check [PATH ...]`` (also ``python -m contentblocks check``) checks ``.json`` files (a block,
a message, a list of messages or ``{"messages": [...]}``) and ``.jsonl`` files: one message a line, the lines
one conversation, or with ``--dataset`` one conversation a line. A directory is walked for both; ``-`` is
standard input. Problems are printed as text, as a JSON report or as GitHub Actions annotations, then a
summary. The exit status is 0 when everything is valid, 1 when problems were found, 2 when a file or a line
could not be read as JSON (and for a usage error). With no PATH it checks the example the package ships.
The whole page: ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import attrs

from ._checks._rules import Limits
from ._transcripts._checker import INPUT_FORMATS, Checker
from ._transcripts._files import (
    CHUNK_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    Source,
    Tally,
    Task,
    cannot_read,
    check_chunk,
    check_path,
    check_range,
    check_stream,
    chunk_ranges,
    file_source,
    mode_of,
    read_chunks,
    run_tasks,
    walk,
)

__all__ = ["BIDI_CONTROLS", "main", "printable"]

EXAMPLE = "conversation.jsonl"
STDIN = "<stdin>"
_LIMIT_HELP = dict(re.findall(r"^\s+(max_\w+): (.+)$", Limits.__doc__ or "", re.MULTILINE))


#: Unicode's bidirectional formatting characters: they change the order in which the rest of a line is shown.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ESCAPED_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cs"})


def printable(text: str) -> str:
    r"""``text`` with what a terminal would act on written as its Python escape, for a report of one line each.

    Control characters (C0, DEL, C1), line and paragraph separators, lone surrogates (a file name that is not
    UTF-8) and bidirectional controls are escaped (``\n``, ``\x1b``, ``\u202e``); any other character, non-ASCII
    included, is kept. A file name can then neither forge report lines nor send escape sequences.

    >>> printable("notes\n\x1b[31m.jsonl")
    'notes\\n\\x1b[31m.jsonl'
    """
    if text.isprintable():  # no control, format or separator character: the common case
        return text
    return "".join(
        c.encode("unicode_escape", "backslashreplace").decode("ascii")
        if c in BIDI_CONTROLS or unicodedata.category(c) in _ESCAPED_CATEGORIES else c
        for c in text
    )


def _sources(paths: Sequence[str], *, dataset: bool, stdin_name: str) -> list[Source]:
    """The files the arguments name: ``-`` is standard input, a directory gives the files under it."""
    sources = []
    for path in paths:
        if path == "-":
            mode = "document" if stdin_name.endswith(".json") else mode_of(".jsonl", dataset=dataset)
            sources.append(Source(stdin_name, None, mode))
        elif Path(path).is_dir():
            found = list(walk(path, dataset=dataset))
            if not found:  # a typo in a CI path must not pass as "nothing wrong"
                found = [Source(path, None, "document", error="no .json or .jsonl file in this directory")]
            sources += found
        else:
            sources.append(file_source(path, dataset=dataset, walked=False))
    return sources


def _tasks(sources: Sequence[Source], checker: Checker, max_line: int) -> Iterator[tuple[Source, Task]]:
    """Each file's tasks in order, then its end: a dataset is cut into chunks of lines, other files go whole."""
    for source in sources:
        if source.error is not None:
            yield source, Tally(error=source.error)
        elif source.path is None and source.mode != "dataset":
            yield source, check_stream(checker, sys.stdin.buffer, source.mode, max_line)
        elif source.mode != "dataset":
            yield source, (check_path, (checker, source.path, source.mode, max_line))
        else:
            yield from ((source, task) for task in _chunk_tasks(source, checker, max_line))
        yield source, None


def _chunk_tasks(source: Source, checker: Checker, max_line: int) -> Iterator[Task]:
    """A dataset's runs of lines: a regular file's by offset (each worker reads its own), a stream's as bytes."""
    try:
        stream = sys.stdin.buffer if source.path is None else open(source.path, "rb")  # noqa: PTH123, SIM115
    except OSError as e:
        yield Tally(error=cannot_read(e))
        return
    try:
        if source.size:  # a regular file, not empty
            for offset, length in chunk_ranges(stream, CHUNK_BYTES):
                yield check_range, (checker, source.path, offset, length, max_line)
        else:
            for chunk in read_chunks(stream, CHUNK_BYTES, max_line):
                yield check_chunk, (checker, chunk, max_line)
    except OSError as e:
        yield Tally(error=cannot_read(e))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


@attrs.define
class _Counts:
    """Counts over one file or over the whole run."""

    files: int = 0
    conversations: int = 0
    messages: int = 0
    kinds: Counter[str] = attrs.Factory(Counter)
    problems: int = 0
    unreadable: int = 0
    not_shown: int = 0

    def add(self, tally: Tally) -> None:
        self.conversations += tally.conversations
        self.messages += tally.messages
        self.kinds.update(tally.kinds)
        self.problems += tally.problems
        self.unreadable += tally.unreadable

    def json(self) -> dict[str, Any]:
        fields = attrs.asdict(self, filter=lambda a, _: a.name not in ("files", "kinds"))
        return {**fields, "blocks": dict(sorted(self.kinds.items()))}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


class _Writer:
    """The text report: ``FILE:LINE: $.path: message`` a problem, then a summary line.

    The other formats change how a problem and the file's end are written. At most ``budget`` problems are
    shown in all (None: every one); the rest are counted in the file's ``not_shown``.
    """

    def __init__(self, out: TextIO, budget: int | None, *, dataset: bool) -> None:
        self.out = out
        self.budget = budget
        self.dataset = dataset
        self.name = ""

    def take(self, wanted: int, counts: _Counts) -> int:
        """How many of ``wanted`` problems can still be shown; the rest are counted as not shown."""
        shown = wanted if self.budget is None else min(wanted, self.budget)
        if self.budget is not None:
            self.budget -= shown
        counts.not_shown += wanted - shown
        return shown

    def start(self, source: Source) -> None:
        """A file begins."""
        self.name = source.name

    def tally(self, tally: Tally, counts: _Counts) -> None:
        """What one tally of the file found."""
        for entry in tally.entries:
            located = list(entry.located())[: self.take(len(entry.result.problems), counts)]
            for line, (path, message) in located:
                self.problem(line, f"{path}: {message}")
            if located and entry.result.omitted:
                self.problem(located[-1][0], f"$: ... and {entry.result.omitted} more problems")
        if tally.error is not None:  # always shown: one line for a whole file
            self.problem(None, tally.error)

    def problem(self, line: int | None, text: str) -> None:
        """One problem, at a line of the file or (None) about the whole file, on one line (see ``printable``)."""
        name, text = printable(self.name), printable(text)
        print(f"{name}:{line}: {text}" if line is not None else f"{name}: {text}", file=self.out)

    def end(self, counts: _Counts) -> None:
        """The file ends, with its counts."""

    def finish(self, counts: _Counts, status: int) -> None:
        """The run ends, with its counts and exit status."""
        del status  # the text report leaves it to the exit status
        blocks = sum(counts.kinds.values())
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.kinds.items()))
        parts = [_plural(counts.files, "file")]
        if self.dataset:
            parts.append(_plural(counts.conversations, "conversation"))
        parts += [
            _plural(counts.messages, "message"),
            _plural(blocks, "block") + (f" ({kinds})" if kinds else ""),
            _plural(counts.problems, "problem"),
        ]
        if counts.unreadable:
            parts.append(f"{counts.unreadable} unreadable")
        hidden = f"; {counts.not_shown} not shown (--max-problems)" if counts.not_shown else ""
        print("checked " + ", ".join(parts) + hidden, file=self.out)


def _escape(value: str, *, prop: bool = False) -> str:
    """GitHub's workflow-command escaping: ``%``, CR and LF always, ``:`` and ``,`` in properties too."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


class _GitHubWriter(_Writer):
    """One ``::error`` workflow command a problem, which GitHub Actions shows on the file's line."""

    def problem(self, line: int | None, text: str) -> None:
        # GitHub's escapes first: CR and LF read back exactly; what has none (ESC...) is then shown escaped.
        where = [f"file={printable(_escape(self.name, prop=True))}"] if self.name != STDIN else []
        if line is not None:
            where.append(f"line={line}")
        properties = " " + ",".join(where) if where else ""
        print(f"::error{properties}::{printable(_escape(text))}", file=self.out)


class _JsonWriter(_Writer):
    """One JSON document, written as the files are checked (its schema is in ``docs/cli.md``).

    A file's object is written in pieces: its head without the closing brace, its entries as they come, then
    its counts (known last) without the opening brace.
    """

    def __init__(self, out: TextIO, budget: int | None, *, dataset: bool) -> None:
        super().__init__(out, budget, dataset=dataset)
        self.files = self.entries = 0
        self.error: str | None = None
        out.write('{"files": [')

    def start(self, source: Source) -> None:
        head = json.dumps({"file": source.name, "mode": source.mode})[:-1]
        self.out.write(("," if self.files else "") + f'\n  {head}, "entries": [')
        self.entries = 0
        self.error = None

    def tally(self, tally: Tally, counts: _Counts) -> None:
        for entry in tally.entries:
            shown = self.take(len(entry.result.problems), counts)
            if not shown:
                continue
            problems = [{"line": line, "path": p, "message": m} for line, (p, m) in list(entry.located())[:shown]]
            record = {"line": entry.line, "unreadable": entry.result.unreadable, "omitted": entry.result.omitted}
            self.out.write(("," if self.entries else "") + "\n    " + json.dumps({**record, "problems": problems}))
            self.entries += 1
        if tally.error is not None:
            self.error = tally.error

    def end(self, counts: _Counts) -> None:
        self.out.write("], " + json.dumps({"error": self.error, **counts.json()})[1:])
        self.files += 1

    def finish(self, counts: _Counts, status: int) -> None:
        summary = json.dumps({"files": counts.files, **counts.json()})
        self.out.write(f'\n], "summary": {summary}, "status": {status}}}\n')


class _Progress:
    """A one-line progress display on a terminal, shown once the work has taken ``delay`` seconds."""

    def __init__(self, stream: TextIO, total: int, *, enabled: bool, delay: float = 1.0) -> None:
        self.stream, self.total, self.enabled, self.delay = stream, total, enabled, delay
        self.start = self.drawn = time.monotonic()
        self.done = 0
        self.shown = False

    def update(self, tally: Tally, counts: _Counts) -> None:
        self.done += tally.size
        now = time.monotonic()
        if not self.enabled or now - self.start < self.delay or (self.shown and now - self.drawn < 0.1):
            return
        rate = self.done / (now - self.start) / 1e6
        of = f" of {self.total / 1e6:,.1f} MB ({100 * self.done / self.total:.0f}%)" if self.total else " MB"
        line = (f"checking: {self.done / 1e6:,.1f}{of}, {rate:,.1f} MB/s, "
                f"{_plural(counts.conversations, 'conversation')}, {_plural(counts.problems, 'problem')}")
        self.stream.write(f"\r{line}\x1b[K")
        self.stream.flush()
        self.drawn, self.shown = now, True

    def clear(self) -> None:
        """Wipe the line, so that the report written to the same terminal starts at its left edge."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def check(
    sources: Sequence[Source], writer: _Writer, checker: Checker, *, jobs: int, progress: _Progress,
    max_line: int = DEFAULT_MAX_LINE_BYTES,
) -> int:
    """Check every source, printing as it goes; return the exit status."""
    total, counts, current, lines = _Counts(), _Counts(files=1), None, 0
    hints: set[str] = set()
    for source, tally in run_tasks(_tasks(sources, checker, max_line), jobs):
        if current is None:
            writer.start(source)
            current = source
        if tally is None:  # the file is done
            writer.end(counts)
            total.files += 1
            total.not_shown += counts.not_shown
            counts, current, lines = _Counts(files=1), None, 0
            continue
        tally.shift(lines)  # a run of a dataset numbers its lines from its start; the file's runs come in order
        lines += tally.lines
        counts.add(tally)
        total.add(tally)
        hints |= tally.hints
        if tally.entries or tally.error is not None:
            progress.clear()
            writer.tally(tally, counts)
        progress.update(tally, total)
    progress.clear()
    status = 2 if total.unreadable else 1 if total.problems else 0
    writer.finish(total, status)
    for hint in sorted(hints):  # on standard error: a report's format stays as it is
        print(f"contentblocks: hint: {hint}", file=sys.stderr)
    return status


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contentblocks", description="Check LLM transcripts against the contentblocks wire format."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check_parser = commands.add_parser(
        "check", help="check .json and .jsonl files (default: the shipped example)",
        description="Check .json and .jsonl files, directories of them (recursively) and standard input (-). "
        "Exit status: 0 valid, 1 problems found, 2 a file or line could not be read as JSON.",
    )
    check_parser.add_argument("paths", nargs="*", metavar="PATH", help="a file, a directory, or - for standard input")
    add = check_parser.add_argument
    add("--format", choices=["text", "json", "github"], default="text",
        help="text (FILE:LINE: $.path: message), a JSON report, or GitHub Actions annotations")
    add("--dataset", action="store_true",
        help='each line of a .jsonl file is one conversation: an array of messages or {"messages": [...], ...}')
    add("--input-format", choices=INPUT_FORMATS, default="contentblocks",
        help="what the conversations are written in: the wire format (default), or a provider's request read by "
        "its adapter (openai_chat for OpenAI fine-tuning files); a .json file is then one request and each line "
        "of a .jsonl file one request")
    add("--jobs", type=_count(1), default=1, metavar="N", help="check with N processes (default 1)")
    add("--max-problems", type=_count(0), metavar="N", help="report at most N problems (all are counted)")
    add("--max-line-bytes", type=_count(1), default=DEFAULT_MAX_LINE_BYTES, metavar="N",
        help="the longest .jsonl line and .json document read; a longer one is reported unreadable at its line, "
        f"without being held in memory (default {DEFAULT_MAX_LINE_BYTES:,}: 128 MiB)")
    add("--no-progress", action="store_true", help="no progress display on standard error")
    add("--stdin-filename", default=STDIN, metavar="NAME",
        help="the name standard input has in reports; it is read as a .json document when NAME ends in .json, "
        "as .jsonl otherwise")
    limits = check_parser.add_argument_group("limits", "the converter's limits, applied to each conversation")
    for field in attrs.fields(Limits):
        what = _LIMIT_HELP.get(field.name, "a limit").replace("``", "").rstrip(".")
        limits.add_argument(f"--{field.name.replace('_', '-')}", type=_count(1), metavar="N",
                            help=f"{what} (default {field.default:,})")
    check_parser.set_defaults(error=check_parser.error)
    schema_parser = commands.add_parser("schema", help="print the JSON Schema of the wire format")
    schema_parser.add_argument(
        "target", nargs="?", default="conversation", choices=["block", "message", "conversation"]
    )
    return parser


def schema(target: str, out: TextIO) -> int:
    """Print the JSON Schema of a block, a message or a conversation."""
    from ._schema._document import schema_command  # noqa: PLC0415 - only the schema command needs it

    print(json.dumps(schema_command(target), indent=2, ensure_ascii=False), file=out)
    return 0


def _check_command(args: argparse.Namespace) -> int:
    given = {f.name: getattr(args, f.name) for f in attrs.fields(Limits) if getattr(args, f.name) is not None}
    try:
        checker = Checker(Limits(**given), input_format=args.input_format)
    except ValueError as e:  # max_depth over its ceiling
        args.error(str(e))
    writers = {"text": _Writer, "json": _JsonWriter, "github": _GitHubWriter}
    with resources.as_file(resources.files("contentblocks") / "examples" / EXAMPLE) as example:
        paths = args.paths or [str(example)]
        dataset = args.dataset or args.input_format != "contentblocks"  # a request holds a whole conversation
        sources = _sources(paths, dataset=dataset, stdin_name=args.stdin_filename)
        writer = writers[args.format](sys.stdout, args.max_problems, dataset=dataset)
        enabled = not args.no_progress and sys.stderr.isatty()
        progress = _Progress(sys.stderr, sum(s.size for s in sources), enabled=enabled)
        return check(sources, writer, checker, jobs=args.jobs, progress=progress, max_line=args.max_line_bytes)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version  # noqa: PLC0415

        print(version("contentblocks"))
        return 0
    if isinstance(sys.stdout, io.TextIOWrapper):  # a file name that is not UTF-8 must not stop the report
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        if args.command == "check":
            return _check_command(args)
        if args.command == "schema":
            return schema(args.target, sys.stdout)
    except BrokenPipeError:  # the output was piped into a command that stopped reading (head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("contentblocks: interrupted", file=sys.stderr)
        return 130
    except BrokenProcessPool:
        print("contentblocks: a worker process died (out of memory?); try fewer --jobs", file=sys.stderr)
        return 2
    except MemoryError:
        sys.stdout.flush()
        print("contentblocks: out of memory; try a lower --max-line-bytes or fewer --jobs", file=sys.stderr)
        return 2
    parser.print_help()
    return 2
