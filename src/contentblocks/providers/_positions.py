"""Positions in a provider's reply that the provider documents as integers: citation spans, chunk indices.

A reader passes over a position it cannot use (the citation then has no span, or cites nothing), but it must
read a value the way the provider's SDK reads it, or a reply would read one way as a dict and another as the SDK
object built from it. The SDKs validate such fields leniently: ``5.0`` and ``-0.0`` become 5 and 0, which is
right (JSON has one number type), but so do ``true`` (1) and ``"5"`` (5), which are not numbers at all. So a
number without a fraction is the integer it equals, and a bool or a string is refused where it stands.
"""

from __future__ import annotations

from ._toolkit import fail

__all__ = ["position"]


def position(value: object, path: str) -> int | None:
    """``value`` as an integer position, or ``None`` when it is no position (absent, a fraction, a list...).

    Raises:
        ValidationError: at ``path`` for a bool or a string, which the SDKs would read as an integer.

    >>> position(3, "$.i"), position(-0.0, "$.i"), position(1.5, "$.i"), position(None, "$.i")
    (3, 0, None, None)
    >>> position(True, "$.i")
    Traceback (most recent call last):
    contentblocks.ValidationError: $.i: expected an integer, not a bool or a string
    """
    if isinstance(value, (bool, str)):
        raise fail(path, "expected an integer, not a bool or a string")
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None
