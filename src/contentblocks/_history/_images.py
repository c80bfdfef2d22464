"""What a file costs a provider in tokens: image dimensions read from the bytes' header, the providers' formulas.

Only the header is read (PNG, GIF, JPEG and WebP); nothing is decoded, so the cost of an image is linear in
the bytes scanned up to its size marker, and no imaging library is needed.
"""

from __future__ import annotations

import math
import re

__all__ = ["image_size", "image_tokens", "pdf_pages"]


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    k = 2
    while k + 9 < len(data):
        if data[k] != 0xFF:
            return None
        marker = data[k + 1]
        if marker == 0xFF:  # fill byte
            k += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            return int.from_bytes(data[k + 7 : k + 9], "big"), int.from_bytes(data[k + 5 : k + 7], "big")
        k += 2 + int.from_bytes(data[k + 2 : k + 4], "big")
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 30:
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    r"""``(width, height)`` of a PNG, GIF, JPEG or WebP image from its header, or ``None`` when it is none of them.

    >>> image_size(b"GIF89a\x02\x01\x03\x00" + bytes(20))
    (258, 3)
    >>> image_size(b"not an image") is None
    True
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:4] == b"GIF8" and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    return None


def _anthropic(width: int, height: int) -> int:
    # "tokens = (width px * height px) / 750", after a resize to at most 1568 px on the long edge; ~1,600 at most
    scale = min(1.0, 1568 / max(width, height))
    return min(1600, math.ceil(width * scale * height * scale / 750))


def _openai(width: int, height: int) -> int:
    # detail "high": fit in 2048 x 2048, then the short side to 768; 170 per 512 px tile, plus 85
    fit = min(1.0, 2048 / max(width, height))
    wide, high = width * fit, height * fit
    scale = min(1.0, 768 / min(wide, high))
    tiles = math.ceil(wide * scale / 512) * math.ceil(high * scale / 512)
    return 85 + 170 * tiles


def _gemini(width: int, height: int) -> int:
    # 258 for an image of at most 384 px on both sides, else 258 per 768 x 768 tile
    if width <= 384 and height <= 384:
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


_FORMULAS = {"anthropic": _anthropic, "openai": _openai, "gemini": _gemini}


def image_tokens(family: str, width: int, height: int) -> int:
    """The tokens an image of these dimensions costs, by the provider family's published formula.

    >>> image_tokens("anthropic", 1000, 1000), image_tokens("openai", 1024, 1024), image_tokens("gemini", 1024, 1024)
    (1334, 765, 1032)
    """
    if width <= 0 or height <= 0:
        return 0
    return _FORMULAS[family](width, height)


_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(data: bytes) -> int | None:
    """The page objects a PDF's bytes hold (its page count, unless compressed object streams hide them).

    >>> pdf_pages(b"%PDF-1.7 /Type /Pages /Type /Page /Type/Page")
    2
    >>> pdf_pages(b"plain text") is None
    True
    """
    if not data.startswith(b"%PDF"):
        return None
    pages = len(_PAGE.findall(data))
    return pages or None
