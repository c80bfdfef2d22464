"""``cb.loads`` near the recursion limit: a ValidationError worded the same on both paths, never a RecursionError.

The standard library's parser recurses once per container, so how deep a text it parses depends on the
recursion limit and on how deep the call stack already is; ``loads`` words a text too deep to parse as a
ValidationError. Structuring then walks JSON values with a recursive walk that gives up on RecursionError and
an explicit-stack walk that words every problem, so the depth of a text never makes ``loads`` raise anything
but a ValidationError, whatever frames are left, as long as a shallow text loads at all. The tests here pin
that in this process, for str and bytes and for conversations and messages, and compare the outcomes of a
fresh interpreter with the accelerator and one without (``CONTENTBLOCKS_PURE_PYTHON=1``): the same, line by
line, however close to the limit.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import contentblocks as cb
from contentblocks.preconf.json import make_converter

SHAPES = {"array": "[{}]", "object": '{{"a":{}}}'}
TARGETS: dict[str, Any] = {"conversation": cb.Conversation, "message": cb.Message}
FORMS: dict[str, Callable[[str], str | bytes]] = {"str": str, "bytes": str.encode}
PARSE_PROBLEM = "invalid JSON: nested too deeply to parse"


def document_text(depth: int, shape: str, target: str) -> str:
    """A message holding a JSON value of ``depth`` nested containers of ``shape``; in a conversation, the second."""
    value = "1"
    for _ in range(depth):
        value = SHAPES[shape].format(value)
    message = '{"role":"user","content":[{"type":"json","value":%s}]}' % value  # noqa: UP031 - JSON braces
    return message if target == "message" else '[{"role":"user","content":"hi"},%s]' % message  # noqa: UP031


def outcome(load: Callable[[Any], Any], data: str | bytes) -> tuple[str, Any]:
    """What loading ``data`` gives: the result, the errors, or ``RecursionError``."""
    try:
        return "ok", load(data)
    except cb.ValidationError as e:
        return "error", e.errors
    except RecursionError:
        return "RecursionError", None


def stack_depth() -> int:
    """How many frames are on the call stack, this function's own included."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


@contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    """The recursion limit set to ``limit`` for the block, then restored."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


def at_depth(frames: int, function: Callable[[], Any]) -> Any:
    """``function()`` called ``frames`` frames deeper than this call."""
    return function() if frames <= 0 else at_depth(frames - 1, function)


def loader(target: str, *, preconf: bool = False) -> Callable[[str | bytes], Any]:
    """``cb.loads`` (or the preconf json converter's ``loads``) into one target."""
    cls = TARGETS[target]
    if preconf:
        converter = make_converter()
        return lambda data: converter.loads(data, cls)
    return lambda data: cb.loads(data, cls)


Outcomes = list[tuple[tuple[str, Any], tuple[str, Any]]]


def sweep(load: Callable[[str | bytes], Any], target: str, shape: str, depths: range) -> Outcomes:
    """The outcome of loading each text of ``depths``, as str and as bytes (to be checked with ``kinds``).

    Only loading runs here, where few frames may be left: comparing conversations recurses too.
    """
    texts = [document_text(depth, shape, target) for depth in depths]
    return [(outcome(load, text), outcome(load, text.encode())) for text in texts]


def kinds(outcomes: Outcomes) -> list[str]:
    """Each outcome's kind ("ok", or the first problem's words), once str and bytes are seen to agree.

    No outcome may be a RecursionError: a text too deep is a ValidationError.
    """
    found = []
    for i, (as_str, as_bytes) in enumerate(outcomes):
        assert as_str == as_bytes, i
        assert as_str[0] != "RecursionError", i
        found.append("ok" if as_str[0] == "ok" else as_str[1][0][1])
    return found


def only_limit_problems(found: list[str]) -> bool:
    """Every refusal is the parser's depth problem or the converter's depth limit, nothing else."""
    return all(kind in ("ok", PARSE_PROBLEM) or kind.startswith("nested deeper than") for kind in found)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("headroom", [60, 130])
@pytest.mark.parametrize("preconf", [False, True], ids=["cb.loads", "preconf.json"])
def test_a_lowered_recursion_limit_refuses_deep_texts_with_a_validation_error(target, shape, headroom, preconf):
    """At a recursion limit ``headroom`` frames above the caller, texts past the parser's reach are ValidationErrors."""
    load = loader(target, preconf=preconf)
    with recursion_limit(stack_depth() + headroom):
        outcomes = sweep(load, target, shape, range(headroom - 40, headroom + 5))
    found = kinds(outcomes)
    assert found[0] == "ok" or found[0].startswith("nested deeper than")
    assert PARSE_PROBLEM in found
    assert only_limit_problems(found)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("headroom", [60, 130])
def test_a_deep_call_stack_refuses_deep_texts_with_a_validation_error(target, shape, headroom):
    """Called from deep in the stack (the limit as it is), loads refuses texts past the parser's reach alike."""
    frames = sys.getrecursionlimit() - stack_depth() - headroom
    outcomes = at_depth(frames, lambda: sweep(loader(target), target, shape, range(headroom - 40, headroom + 5)))
    found = kinds(outcomes)
    assert PARSE_PROBLEM in found
    assert only_limit_problems(found)


@pytest.mark.parametrize("target", TARGETS)
def test_where_a_shallow_text_loads_no_text_raises_recursion_error(target):
    """With just enough frames left to load a shallow text, a text of any depth is loaded or refused, never more."""
    load = loader(target)
    shallow = document_text(1, "object", target)
    seen = set()
    for headroom in range(10, 90):
        with recursion_limit(stack_depth() + headroom):
            try:
                if outcome(load, shallow)[0] != "ok":
                    continue  # too few frames for loads itself: nothing about the text
                outcomes = sweep(load, target, "object", range(2, 12))
            except RecursionError:  # in the test's own calls, outside loads
                continue
        seen.update(kinds(outcomes))
    assert "ok" in seen
    assert PARSE_PROBLEM in seen


SCRIPT = """
import sys
import contentblocks as cb
sys.path.insert(0, sys.argv[1])
from test_loads_recursion import FORMS, TARGETS, document_text, outcome, recursion_limit, stack_depth

for target, cls in TARGETS.items():
    def load(data):
        return cb.loads(data, cls)

    for shape in ("array", "object"):
        for form, make in FORMS.items():
            with recursion_limit(stack_depth() + 90):
                for depth in range(50, 95):
                    kind, result = outcome(load, make(document_text(depth, shape, target)))
                    print(target, shape, form, depth, kind, result if kind == "error" else "")
print(cb.speedups_enabled())
"""


@pytest.mark.skipif(importlib.util.find_spec("contentblocks._speedups") is None, reason="the C accelerator is not built")
def test_a_fresh_pure_python_interpreter_gives_the_same_outcomes():
    """The same sweep in two fresh interpreters, with the accelerator and without: the same lines, word for word."""

    def run(*, pure: bool) -> list[str]:
        env = {key: value for key, value in os.environ.items() if key != "CONTENTBLOCKS_PURE_PYTHON"}
        if pure:
            env["CONTENTBLOCKS_PURE_PYTHON"] = "1"
        tests = os.path.dirname(__file__)  # noqa: PTH120 - a plain string for sys.path
        done = subprocess.run(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", SCRIPT, tests], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.splitlines()

    accelerated = run(pure=False)
    pure = run(pure=True)
    assert accelerated[-1] == "True"
    assert pure[-1] == "False"
    assert accelerated[:-1] == pure[:-1]
    assert any(PARSE_PROBLEM in line for line in pure)
    assert any(" ok " in line for line in pure)
