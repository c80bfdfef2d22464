"""The error of a stream that does not fold into a reply."""

from __future__ import annotations

from .._errors import ValidationError

__all__ = ["StreamError", "at", "fail"]


class StreamError(ValidationError):
    """A stream of events that does not fold into a reply: the event at fault and why.

    Paths point into the stream: ``$[12]`` is the thirteenth event offered, ``$[12].index`` its index; ``$``
    is the stream as a whole (one that ended before its reply stopped).

    >>> from contentblocks.streaming import ReplyBuilder, TextAppended
    >>> ReplyBuilder("anthropic").add(TextAppended(0, "Hi"))
    Traceback (most recent call last):
    contentblocks.streaming.StreamError: $[0].index: block 0 was never started
    """

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.errors, self.omitted))


StreamError.__module__ = "contentblocks.streaming"


def _rebuild(errors: list[tuple[str, str]], omitted: int) -> StreamError:
    return StreamError(errors, omitted=omitted, max_errors=max(len(errors), 1))


def fail(path: str, message: str) -> StreamError:
    """A ``StreamError`` with one problem at ``path``."""
    return StreamError([(path, message)])


def at(position: int, message: str, field: str = "") -> StreamError:
    """A ``StreamError`` at the event at ``position`` in the stream (``field`` names one of its fields)."""
    return fail(f"$[{position}]{field}", message)
