"""Readers build blocks as wire dicts and structure a whole history in one call; one by one only to find a problem.

Building each block through its class checks it in Python, block by block; the converter's structurer checks a
whole conversation's wire dicts at once (in C where the accelerator is built, ``cb.speedups_enabled()``) and
gives equal objects. So a reader writes wire dicts (bytes kept raw, as ``make_converter(binary="native")``
takes them) with :func:`block` and :func:`message`, and :func:`read` structures them in one call. Only when that
call refuses something does the reader run again, *checking*: then :func:`block` and :func:`message` structure
each dict as it is built, so a problem is raised where the reader catches it (to keep a part verbatim, or to
place the problem at its path in the framework's data), exactly where building the class raised it.

>>> read(lambda: [message("user", [block("text", text="Hi", citations=None)])])[0].content
(TextBlock(text='Hi', citations=(), cache=None, metadata=JsonObject({})),)
>>> read(lambda: [message("user", [block("text", text="")])])
Traceback (most recent call last):
contentblocks.ValidationError: $.text: must not be empty
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from .._conversion._converter import native_converter as _converter
from .._errors import ValidationError
from .._model._classes import Block, Message
from .._model._conversation import Conversation

__all__ = ["block", "check", "checking", "message", "placed", "placing", "read", "revised", "source", "structure"]

T = TypeVar("T")

_CHECKING: ContextVar[bool] = ContextVar("contentblocks_bridges_checking", default=False)
#: While checking: each tool block's wire dict (by ``id``) -> where it was read, and its fields' names there.
_ORIGINS: ContextVar[dict[int, tuple[str, dict[str, str]]] | None] = ContextVar(
    "contentblocks_bridges_origins", default=None
)
#: The paths the conversation's rules place their problems at: a block's field.
_BLOCK_FIELD = re.compile(r"\$\[(\d+)\]\.content\[(\d+)\]\.(\w+)")
#: The fields whose ``None`` is a JSON null; every other field's ``None`` means absent, as the classes take it.
_JSON_FIELDS = frozenset({"value", "input"})


def block(kind: str, **fields: Any) -> dict[str, Any]:
    """The wire dict of a block of type ``kind`` (``None`` fields left out, as the classes read them).

    While :func:`checking`, the block is structured here and its problems raised.
    """
    wire = {"type": kind, **fields}
    for key, value in fields.items():
        if value is None and key not in _JSON_FIELDS:
            del wire[key]
    if _CHECKING.get():
        _converter().structure(wire, Block)  # type: ignore[arg-type]
    return wire


def source(kind: str, **fields: Any) -> dict[str, Any]:
    """The wire dict of a file's source of type ``kind`` (``None`` fields left out)."""
    wire = {"type": kind, **fields}
    for key, value in fields.items():
        if value is None:
            del wire[key]
    return wire


def revised(wire: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A copy of the block ``wire`` with ``fields`` replaced (as ``attrs.evolve``); while checking, structured."""
    new = {**wire, **fields}
    if _CHECKING.get():
        _converter().structure(new, Block)  # type: ignore[arg-type]
    return new


def check(wire: dict[str, Any], cls: type) -> dict[str, Any]:
    """``wire``, the wire dict of a ``cls`` inside a block (a citation); while :func:`checking`, structured here."""
    if _CHECKING.get():
        _converter().structure(wire, cls)
    return wire


def structure(wire: Any, cls: type[T]) -> T:
    """The ``cls`` the wire dict ``wire`` holds (bytes native), its problems raised."""
    return _converter().structure(wire, cls)


def message(role: str, content: list[dict[str, Any]], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The wire dict of a message; while :func:`checking`, structured here and its problems raised."""
    wire: dict[str, Any] = {"role": role, "content": content}
    if metadata:
        wire["metadata"] = metadata
    if _CHECKING.get():
        _converter().structure(wire, Message)
    return wire


def placing() -> bool:
    """Whether :func:`placed` records now (while :func:`read` looks for a problem): the time to find a path."""
    return _ORIGINS.get() is not None


def placed(wire: dict[str, Any], path: str, **names: str) -> dict[str, Any]:
    """``wire`` (a tool call's or result's), noted as read from ``path`` in the framework's data.

    ``names`` are the block's fields as the framework names them there (``tool_call_id="toolCallId"``; a field
    not named keeps its own name). A rule across messages that the block breaks (a result answering no earlier
    call, a call id used twice) is then reported at ``path`` and that name, not at the block's place in the
    conversation, which the reader's splits and joins of messages move. Noted only while :func:`read` looks for
    a problem; free otherwise.
    """
    origins = _ORIGINS.get()
    if origins is not None:
        origins[id(wire)] = (path, names)
    return wire


def _placed_problems(error: ValidationError, built: list[dict[str, Any]],
                     origins: dict[int, tuple[str, dict[str, str]]]) -> ValidationError:  # fmt: skip
    """``error``, a conversation rule's, with each problem of a noted block moved to where it was read."""
    problems = []
    for path, problem in error.errors:
        match = _BLOCK_FIELD.fullmatch(path)
        origin = None if match is None else origins.get(id(built[int(match[1])]["content"][int(match[2])]))
        if origin is None:
            problems.append((path, problem))
        else:
            assert match is not None  # noqa: S101 - an origin is found through a match
            problems.append((f"{origin[0]}.{origin[1].get(match[3], match[3])}", problem))
    return ValidationError(problems, omitted=error.omitted)


@contextlib.contextmanager
def checking() -> Iterator[None]:
    """Within this block, :func:`block` and :func:`message` structure what they build (the way to find a problem)."""
    token = _CHECKING.set(True)
    try:
        yield
    finally:
        _CHECKING.reset(token)


def read(messages: Callable[[], list[dict[str, Any]]]) -> Conversation:
    """The conversation of the wire messages ``messages()`` builds, structured in one call.

    When that call refuses them, ``messages()`` runs again :func:`checking`, so the reader raises each problem
    where it handles it (or keeps a part verbatim); the messages it then builds are all valid one by one, and only
    a rule across messages is left, raised as the class raises it, at the framework's own path for a block the
    reader :func:`placed`.
    """
    if not _CHECKING.get():
        try:
            return _converter().structure(messages(), Conversation)
        except ValidationError:
            pass
    origins: dict[int, tuple[str, dict[str, str]]] = {}
    token = _ORIGINS.set(origins)
    try:
        with checking():
            built = messages()
    finally:
        _ORIGINS.reset(token)
    try:
        return Conversation(messages=[_converter().structure(wire, Message) for wire in built])
    except ValidationError as e:  # a rule across messages: placed where the framework's data holds the block
        raise _placed_problems(e, built, origins) from None
