"""``loads(bytes, Conversation)`` near the recursion limit: the C split path gives what the whole parse gives.

The standard library's parser recurses once per container, so how deep a text it parses depends on the
recursion limit and on how deep the call stack already is. With the C accelerator, a conversation's text is
cut into its messages and each is parsed alone, one level shallower than inside the whole text; that must not
change the outcome. The whole parse (``split_array`` off) is what the pure-Python path runs, so each test
compares the two in one process, from the same depth of the call stack; one test compares with a fresh
pure-Python interpreter as well.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import contentblocks as cb
from contentblocks import _hooks
from contentblocks.preconf.json import make_converter

needs_speedups = pytest.mark.skipif(_hooks.split_array is None, reason="the C accelerator is not built or is off")
SHAPES = {"array": "[{}]", "object": '{{"a":{}}}'}
LOADERS: dict[str, Callable[[bytes], Any]] = {
    "cb.loads": lambda data: cb.loads(data, cb.Conversation),
    "preconf.json": lambda data: make_converter().loads(data, cb.Conversation),
}


def conversation_text(depth: int, shape: str) -> bytes:
    """Two messages, the second holding a JSON value of ``depth`` nested containers of ``shape``."""
    value = "1"
    for _ in range(depth):
        value = SHAPES[shape].format(value)
    second = '{"role":"user","content":[{"type":"json","value":%s}]}' % value  # noqa: UP031 - JSON braces
    return ('[{"role":"user","content":"hi"},%s]' % second).encode()  # noqa: UP031 - JSON braces


def outcome(load: Callable[[bytes], Any], data: bytes) -> tuple[str, Any]:
    """What loading ``data`` gives: the conversation, the errors, or the name of any other exception."""
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


def sweep(load: Callable[[bytes], Any], texts: list[bytes], *, whole: bool) -> list[tuple[str, Any]]:
    """The outcome of each text, with the C split (``whole=False``) or parsing the whole text as pure Python does."""
    saved = _hooks.split_array
    if whole:
        _hooks.split_array = None
    try:
        return [outcome(load, data) for data in texts]
    finally:
        _hooks.split_array = saved


def compare_near_the_limit(load: Callable[[bytes], Any], shape: str, headroom: int) -> list[str]:
    """Both paths on texts nesting up to the parser's limit and past it, with ``headroom`` frames left to recurse.

    Returns the kinds of outcome seen, so that a caller can check the limit was crossed.
    """
    texts = [conversation_text(depth, shape) for depth in range(headroom - 40, headroom + 5)]
    whole = sweep(load, texts, whole=True)
    split = sweep(load, texts, whole=False)
    for data, expected, got in zip(texts, whole, split, strict=True):
        assert got == expected, data[:60]
    return [kind if kind != "error" else errors[0][1] for kind, errors in whole]


@needs_speedups
@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("headroom", [60, 130])
def test_a_lowered_recursion_limit_refuses_the_same_texts(loader, shape, headroom):
    """At a recursion limit only ``headroom`` frames above the caller, both paths refuse the same texts, alike."""
    with recursion_limit(stack_depth() + headroom):
        kinds = compare_near_the_limit(LOADERS[loader], shape, headroom)
    assert "ok" in kinds or any("nested deeper than" in kind for kind in kinds)
    assert "invalid JSON: nested too deeply to parse" in kinds


@needs_speedups
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("headroom", [60, 130])
def test_a_deep_call_stack_refuses_the_same_texts(shape, headroom):
    """Called from deep in the stack (the limit as it is), both paths refuse the same texts, alike."""
    frames = sys.getrecursionlimit() - stack_depth() - headroom
    kinds = at_depth(frames, lambda: compare_near_the_limit(LOADERS["cb.loads"], shape, headroom))
    assert "invalid JSON: nested too deeply to parse" in kinds


@needs_speedups
def test_a_stack_too_deep_to_structure_a_message_fails_alike():
    """With too few frames left to structure the messages, both paths run out of recursion, or not, alike."""
    data = conversation_text(3, "object")
    load = LOADERS["cb.loads"]
    seen = set()
    for headroom in range(10, 70):
        with recursion_limit(stack_depth() + headroom):
            try:
                whole, split = sweep(load, [data], whole=True), sweep(load, [data], whole=False)
            except RecursionError:  # in the test's own calls, before loads is reached
                continue
        assert split == whole, headroom
        seen.add(whole[0][0])
    assert seen == {"ok", "error", "RecursionError"}  # "nested too deeply to parse" in between


SCRIPT = """
import sys
import contentblocks as cb
sys.path.insert(0, sys.argv[1])
from test_loads_recursion import conversation_text, outcome, recursion_limit, stack_depth

def load(data):
    return cb.loads(data, cb.Conversation)

for shape in ("array", "object"):
    with recursion_limit(stack_depth() + 90):
        for depth in range(50, 95):
            kind, result = outcome(load, conversation_text(depth, shape))
            print(shape, depth, kind, result if kind == "error" else "")
print(cb.speedups_enabled())
"""


@needs_speedups
def test_a_fresh_pure_python_interpreter_refuses_the_same_texts():
    """The same sweep in two fresh interpreters, with the accelerator and without: the same lines."""

    def run(**env: str) -> list[str]:
        tests = os.path.dirname(__file__)  # noqa: PTH120 - a plain string for sys.path
        done = subprocess.run(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", SCRIPT, tests], env={**os.environ, **env}, capture_output=True, text=True, check=True
        )
        return done.stdout.splitlines()

    accelerated = run()
    pure = run(CONTENTBLOCKS_PURE_PYTHON="1")
    assert accelerated[-1] == "True"
    assert pure[-1] == "False"
    assert accelerated[:-1] == pure[:-1]
    assert any("nested too deeply to parse" in line for line in pure)
