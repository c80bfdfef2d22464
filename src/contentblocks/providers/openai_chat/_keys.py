"""The OpenAI Chat Completions adapter's metadata keys and its allow-lists of native fields per position.

Reading keeps a native field with no neutral home as ``openai/<field>`` metadata; writing sends such an entry
back only where the request type has that field and only when its value has the shape the request type
gives it (``ALLOWED``, in the shared shape vocabulary). Everything else stays local and is reported as
``metadata_not_sent``.

>>> from contentblocks.providers._shapes import fits
>>> fits("alice", ALLOWED["user"]["name"]), fits(7, ALLOWED["user"]["name"]), "latency_ms" in ALLOWED["user"]
(True, False, False)
>>> breakpoint = ALLOWED["text"]["prompt_cache_breakpoint"]
>>> fits({"mode": "explicit", "ttl": "12h"}, breakpoint), fits({"mode": "explicit", "ttl": "1d"}, breakpoint)
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shapes import STR, Choice, Kind, Struct

__all__ = [
    "ALLOWED",
    "ANNOTATED",
    "AUDIO",
    "AUDIO_FORMATS",
    "CONTENT",
    "CUSTOM",
    "DETAIL",
    "DETAILS",
    "FILENAME",
    "FILE_DATA_BASE64",
    "LIST",
    "NS",
    "OTHER_ANNOTATIONS",
    "OTHER_REASONING_DETAILS",
    "REASONING_DETAIL",
    "REFUSAL_PART",
    "TARGET",
    "audio_id",
]

NS = "openai"
#: The name loss reasons use for this target.
TARGET = "OpenAI Chat Completions"

#: Message or tool-result flag: the native content was a list of parts where a string would have done.
LIST = "openai/content_list"
#: Assistant message metadata: the native ``content`` was ``""`` or ``[]`` (kept so it is written back as it was).
CONTENT = "openai/content"
#: Tool-call flag: a ``custom`` tool call, whose free-text input is held as a string.
CUSTOM = "openai/custom_tool"
#: Refusal flag: the refusal was a content part, not the message's ``refusal`` field.
REFUSAL_PART = "openai/refusal_part"
#: File metadata: an image part's ``detail``.
DETAIL = "openai/detail"
#: File metadata: a ``file`` part's file name that is not a valid neutral file name, kept verbatim.
FILENAME = "openai/filename"
#: File flag: ``file_data`` was bare base64 rather than a data URL.
FILE_DATA_BASE64 = "openai/file_data_base64"
#: Text flag: the block's citations are the ``url_citation`` annotations of a Chat Completions reply, which no
#: request takes back (so sending the block back to Chat Completions loses nothing).
ANNOTATED = "openai/annotated"
#: Text metadata: annotations of a kind the adapter does not map, kept verbatim.
OTHER_ANNOTATIONS = "openai/other_annotations"
#: Reasoning block metadata: an OpenRouter ``reasoning_details`` item's fields beside its text, signature and data
#: (``type``, ``id``, ``format``, ``index``...), kept so that the item goes back as it came.
REASONING_DETAIL = "openai/reasoning_detail"
#: Assistant message metadata: OpenRouter ``reasoning_details`` items no reasoning block holds (of a type the adapter
#: does not know, or with nothing in them), kept verbatim; the request has no place for them on their own.
OTHER_REASONING_DETAILS = "openai/other_reasoning_details"
#: Assistant message metadata: the reply's ``audio`` object (``id``, and in a reply ``data``, ``transcript`` and
#: ``expires_at``); only its ``id`` is ever sent.
AUDIO = "openai/audio"

AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
#: The values ``image_url.detail`` takes.
DETAILS = frozenset({"auto", "low", "high", "original"})


_CACHE_BREAKPOINT = Struct(
    "PromptCacheBreakpoint", {"mode": Choice("explicit"), "ttl": Choice("30m", "12h")}, required={"mode"}
)
_FUNCTION_CALL = Struct("FunctionCall", {"name": STR, "arguments": STR}, required={"name", "arguments"})
_PART: dict[str, Kind] = {"prompt_cache_breakpoint": _CACHE_BREAKPOINT}

#: The native fields each message role and each content part type may carry from metadata, with the shape each
#: takes. ``audio`` is written by the adapter itself (only its ``id``), so it is not here.
ALLOWED: dict[str, dict[str, Kind]] = {
    "system": {"name": STR},
    "developer": {"name": STR},
    "user": {"name": STR},
    "assistant": {"name": STR, "refusal": STR, "function_call": _FUNCTION_CALL},
    "tool": {},
    "text": _PART,
    "image_url": _PART,
    "input_audio": _PART,
    "file": _PART,
    "refusal": {},
}


def audio_id(metadata: Mapping[str, Any]) -> str | None:
    """The id of the reply audio an assistant message's metadata holds, when it has a usable one.

    >>> audio_id({"openai/audio": {"id": "audio_1", "transcript": "Hi"}}), audio_id({"openai/audio": {"id": 1}})
    ('audio_1', None)
    """
    audio = metadata.get(AUDIO)
    if isinstance(audio, Mapping) and type(audio.get("id")) is str and audio["id"]:
        return str(audio["id"])
    return None
