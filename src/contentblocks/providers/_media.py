"""Media types as providers send and take them: case-insensitive (RFC 6838), so compared and sent lower-cased.

A block keeps its media type as given (SPEC §3); the provider readers lower-case what a provider sends, and the
writers lower-case a block's type before comparing it with a provider's table (``image/png``) or sending it.
"""

from __future__ import annotations

__all__ = ["lower_media_type"]


def lower_media_type(media_type: str) -> str:
    """``media_type`` with its type and subtype lower-cased; parameters (``; charset=UTF-8``) kept as they are.

    >>> lower_media_type("IMAGE/PNG"), lower_media_type("Text/Plain; charset=UTF-8")
    ('image/png', 'text/plain; charset=UTF-8')
    """
    head, sep, parameters = media_type.partition(";")
    return head.lower() + sep + parameters
