"""Every example in the documentation runs: the ```{doctest} and ```pycon fences of docs/**/*.md and README.md.

One test per file; the examples of a file share their globals, so a page reads top to bottom, with
``import contentblocks as cb`` done beforehand (as ``doctest_global_setup`` does for the Sphinx doctest builder).
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import contentblocks as cb

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"])
DOC_FILES = [p for p in DOC_FILES if p.is_file() and "_build" not in p.parts]

# A fence opens with ``` or more backticks and closes with the same run; {doctest} may carry directive options.
FENCE = re.compile(
    r"^(?P<ticks>`{3,})[ \t]*(?P<info>\{doctest\}|pycon)[^\n]*\n(?P<body>.*?)^(?P=ticks)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
OPTION = re.compile(r":[\w-]+:.*")
OPTIONAL_MODULES = ("orjson", "msgpack", "cbor2", "hypothesis", "jsonschema")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def examples(text: str) -> list[tuple[int, str]]:
    """The body of each example fence with the line number it starts at; MyST directive options are left out."""
    found = []
    for match in FENCE.finditer(text):
        lines = match.group("body").splitlines(keepends=True)
        first = text.count("\n", 0, match.start("body")) + 1
        if match.group("info") == "{doctest}":
            while lines and OPTION.fullmatch(lines[0].strip()):
                lines.pop(0)
                first += 1
        found.append((first, "".join(lines)))
    return found


def needed_modules(text: str) -> list[str]:
    """The optional dependencies a page's examples name in their code (``import msgpack``, ``preconf.cbor2``...)."""
    code = "\n".join(line for line in text.splitlines() if line.lstrip().startswith((">>>", "...")))
    return [name for name in OPTIONAL_MODULES if re.search(rf"\b{name}\b", code)]


def test_fences_are_found():
    """The fence finder sees {doctest} and pycon fences, skips directive options and ignores other languages."""
    text = (
        "intro\n\n```{doctest}\n:options: +SKIP\n>>> 1 + 1\n2\n```\n\n```python\nnot run\n```\n\n"
        "````pycon\n>>> print('```')\n```\n````\n"
    )
    found = examples(text)
    assert found == [(5, ">>> 1 + 1\n2\n"), (14, ">>> print('```')\n```\n")]


def test_optional_modules_are_found():
    """A page whose examples import an optional dependency, in any spelling, is skipped without it."""
    text = ">>> import msgpack, cbor2\n>>> from contentblocks.preconf import orjson as o\nno orjson outside examples\n"
    assert needed_modules(text) == ["orjson", "msgpack", "cbor2"]
    assert needed_modules("orjson is mentioned in prose only\n") == []


def test_docs_have_examples():
    """The usage page exists and holds examples, so an empty glob cannot pass silently."""
    usage = ROOT / "docs" / "usage.md"
    assert usage in DOC_FILES
    assert examples(usage.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", DOC_FILES, ids=[p.relative_to(ROOT).as_posix() for p in DOC_FILES])
def test_examples_run(path: Path):
    """Every example of the page gives the output it shows."""
    text = path.read_text(encoding="utf-8")
    found = examples(text)
    if not found:
        pytest.skip("no examples on this page")
    for name in needed_modules(text):
        pytest.importorskip(name)
    globs = {"cb": cb, "__name__": f"docs.{path.stem}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    name = path.relative_to(ROOT).as_posix()
    for lineno, body in found:
        test = parser.get_doctest(body, globs, name, str(path), lineno - 1)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: carry this fence's over to the next one
    failed, attempted = runner.failures, runner.tries
    if failed:
        pytest.fail(f"{failed} of {attempted} examples failed in {name}:\n{''.join(report)}", pytrace=False)
