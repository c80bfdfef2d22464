"""The ``contentblocks`` command: check transcripts against the wire format.

``contentblocks check [PATH ...]`` (also ``python -m contentblocks check``) checks ``.json`` files (a block,
a message, a list of messages or ``{"messages": [...]}``) and ``.jsonl`` files (one message per line,
checked together as one conversation). Each problem prints as ``FILE:LINE: $.json.path: message``; a summary
follows. The exit status is 0 when every file is clean, 1 when problems were found, 2 when a file cannot be
read. With no PATH it checks the example conversation the package ships.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from ._api import parse_json
from ._blocks import Block, ToolResultBlock
from ._errors import ValidationError
from ._hooks import make_converter
from ._locate import line_of
from ._messages import KIND_NAMES, Conversation, Message, conversation_problems

__all__ = ["main"]

EXAMPLE = "conversation.jsonl"
_converter = make_converter()


class _Report:
    """Problems and counts gathered over every file checked."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.problems = 0
        self.files = 0
        self.unreadable = 0
        self.messages = 0
        self.kinds: Counter[str] = Counter()

    def problem(self, name: str, line: int, path: str, message: str) -> None:
        self.problems += 1
        print(f"{name}:{line}: {path}: {message}", file=self.out)

    def count(self, obj: object) -> None:
        messages = obj.messages if isinstance(obj, Conversation) else (obj,) if isinstance(obj, Message) else ()
        blocks = [b for m in messages for b in m.content] if messages else [obj]
        self.messages += len(messages)
        for block in blocks:
            self.kinds[KIND_NAMES[type(block)]] += 1
            if isinstance(block, ToolResultBlock):
                for part in block.content:
                    self.kinds[KIND_NAMES[type(part)]] += 1

    def summary(self) -> str:
        blocks = sum(self.kinds.values())
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.kinds.items()))
        parts = [
            f"{self.files} file{'s' if self.files != 1 else ''}",
            f"{self.messages} message{'s' if self.messages != 1 else ''}",
            f"{blocks} block{'s' if blocks != 1 else ''}" + (f" ({kinds})" if kinds else ""),
            f"{self.problems} problem{'s' if self.problems != 1 else ''}",
        ]
        if self.unreadable:
            parts.append(f"{self.unreadable} unreadable")
        return "checked " + ", ".join(parts)


def _target(raw: object) -> tuple[object, Any, str]:
    """What a ``.json`` document holds: (value, target type, path prefix of that value)."""
    if isinstance(raw, list):
        return raw, Conversation, "$"
    if isinstance(raw, dict):
        if "messages" in raw and "role" not in raw and "type" not in raw:
            extra = [k for k in raw if k != "messages"]
            if extra:
                raise ValidationError([(f"$.{extra[0]}", 'unknown key (expected {"messages": [...]})')])
            return raw["messages"], Conversation, "$.messages"
        if "role" in raw:
            return raw, Message, "$"
        return raw, Block, "$"
    raise ValidationError([("$", 'expected a block, a message, a list of messages or {"messages": [...]}')])


def _check_json(name: str, text: str, report: _Report) -> None:
    prefix = "$"
    try:
        raw = parse_json(text)
        value, target, prefix = _target(raw)
        obj = _converter.structure(value, target)
    except ValidationError as e:
        for path, message in e.errors:
            full = prefix + path[1:] if path.startswith("$") else path
            report.problem(name, _json_line(text, full, message), full, message)
        _report_omitted(name, e, report)
        return
    report.count(obj)


def _json_line(text: str, path: str, message: str) -> int:
    if message.startswith("invalid JSON"):
        marker = message.rfind("(line ")
        if marker != -1:
            return int(message[marker + 6 :].split(",", 1)[0])
        return 1
    return line_of(text, path)


def _check_jsonl(name: str, text: str, report: _Report) -> None:
    messages: list[Message] = []
    lines: list[int] = []
    clean = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            message = _converter.structure(parse_json(line), Message)
        except ValidationError as e:
            clean = False
            for path, problem in e.errors:
                report.problem(name, number, path, problem)
            _report_omitted(name, e, report, number)
            continue
        messages.append(message)
        lines.append(number)
    if clean:
        pairing: list[tuple[str, str]] = []
        conversation_problems(pairing, messages)
        for path, problem in pairing:
            index, _, rest = path[2:].partition("]")
            report.problem(name, lines[int(index)], "$" + rest, problem)
    for message in messages:
        report.count(message)


def _report_omitted(name: str, error: ValidationError, report: _Report, line: int = 1) -> None:
    if error.omitted:
        report.problem(name, line, "$", f"... and {error.omitted} more problems")


def _check_path(name: str, report: _Report, read: Any) -> None:
    report.files += 1
    try:
        data: bytes = read()
    except OSError as e:
        report.unreadable += 1
        print(f"{name}: cannot read: {e.strerror or type(e).__name__}", file=report.out)
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        report.problem(name, data.count(b"\n", 0, e.start) + 1, "$", "not UTF-8 text")
        return
    if name.endswith(".jsonl"):
        _check_jsonl(name, text, report)
    else:
        _check_json(name, text, report)


def check(paths: Sequence[str], out: TextIO) -> int:
    """Check files and print problems and a summary to ``out``; return the exit status."""
    report = _Report(out)
    if not paths:
        example = resources.files("contentblocks") / "examples" / EXAMPLE
        _check_path(str(example), report, example.read_bytes)
    for path in paths:
        _check_path(path, report, Path(path).read_bytes)
    print(report.summary(), file=out)
    if report.unreadable:
        return 2
    return 1 if report.problems else 0


def schema(target: str, out: TextIO) -> int:
    """Print the JSON Schema of a block, a message or a conversation."""
    from ._schema import schema_command  # noqa: PLC0415 - only the schema command needs it

    print(json.dumps(schema_command(target), indent=2, ensure_ascii=False), file=out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="contentblocks", description="Check LLM transcripts against the contentblocks wire format."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check_parser = commands.add_parser("check", help="check .json and .jsonl files (default: the shipped example)")
    check_parser.add_argument("paths", nargs="*", metavar="PATH")
    schema_parser = commands.add_parser("schema", help="print the JSON Schema of the wire format")
    schema_parser.add_argument(
        "target", nargs="?", default="conversation", choices=["block", "message", "conversation"]
    )
    args = parser.parse_args(argv)
    if args.version:
        from importlib.metadata import version  # noqa: PLC0415

        print(version("contentblocks"))
        return 0
    try:
        if args.command == "check":
            return check(args.paths, sys.stdout)
        if args.command == "schema":
            return schema(args.target, sys.stdout)
    except BrokenPipeError:  # the output was piped into a command that stopped reading (head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    parser.print_help()
    return 2
