"""The OpenAI Chat Completions adapter's metadata keys and its allow-lists of native fields per position.

Reading keeps a native field with no neutral home as ``openai/<field>`` metadata; writing sends such an entry
back only where the request type has that field and only when its value has the shape the request type
gives it. Everything else stays local and is reported as ``metadata_not_sent``.

>>> sendable("user", {"openai/name": "alice", "openai/latency_ms": 12, "openai/index": 0})
frozenset({'name'})
>>> sendable("user", {"openai/name": 7})
frozenset()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
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
    "PART_FIELDS",
    "REFUSAL_PART",
    "TARGET",
    "audio_id",
    "sendable",
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
#: Assistant message metadata: the reply's ``audio`` object (``id``, and in a reply ``data``, ``transcript`` and
#: ``expires_at``); only its ``id`` is ever sent.
AUDIO = "openai/audio"

AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
#: The values ``image_url.detail`` takes.
DETAILS = frozenset({"auto", "low", "high", "original"})


def _is_str(value: object) -> bool:
    return type(value) is str


def _is_refusal(value: object) -> bool:
    return value is None or type(value) is str


def _is_function_call(value: object) -> bool:
    return (
        isinstance(value, Mapping)
        and set(value) == {"name", "arguments"}
        and all(type(v) is str for v in value.values())
    )


def _is_cache_breakpoint(value: object) -> bool:
    if not isinstance(value, Mapping) or value.get("mode") != "explicit" or not set(value) <= {"mode", "ttl"}:
        return False
    return "ttl" not in value or value["ttl"] in {"30m", "12h"}


_Check = Callable[[object], bool]

#: The native fields each message role may carry from metadata, with the shape each must have. ``audio`` is
#: written by the adapter itself (only its ``id``), so it is not here.
_MESSAGE_FIELDS: dict[str, dict[str, _Check]] = {
    "system": {"name": _is_str},
    "developer": {"name": _is_str},
    "user": {"name": _is_str},
    "assistant": {"name": _is_str, "refusal": _is_refusal, "function_call": _is_function_call},
    "tool": {},
}

#: The native fields each content part type may carry from metadata.
PART_FIELDS: dict[str, dict[str, _Check]] = {
    "text": {"prompt_cache_breakpoint": _is_cache_breakpoint},
    "image_url": {"prompt_cache_breakpoint": _is_cache_breakpoint},
    "input_audio": {"prompt_cache_breakpoint": _is_cache_breakpoint},
    "file": {"prompt_cache_breakpoint": _is_cache_breakpoint},
    "refusal": {},
}


def sendable(position: str, metadata: Mapping[str, Any]) -> frozenset[str]:
    """The native fields of ``position`` (a role, or a part type) that ``metadata`` may fill, by their shape.

    >>> sendable("text", {"openai/prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"}})
    frozenset({'prompt_cache_breakpoint'})
    >>> sendable("refusal", {"openai/prompt_cache_breakpoint": {"mode": "explicit"}})
    frozenset()
    """
    checks = _MESSAGE_FIELDS.get(position) or PART_FIELDS.get(position) or {}
    return frozenset(
        name for name, check in checks.items() if f"{NS}/{name}" in metadata and check(metadata[f"{NS}/{name}"])
    )


def audio_id(metadata: Mapping[str, Any]) -> str | None:
    """The id of the reply audio an assistant message's metadata holds, when it has a usable one.

    >>> audio_id({"openai/audio": {"id": "audio_1", "transcript": "Hi"}}), audio_id({"openai/audio": {"id": 1}})
    ('audio_1', None)
    """
    audio = metadata.get(AUDIO)
    if isinstance(audio, Mapping) and type(audio.get("id")) is str and audio["id"]:
        return str(audio["id"])
    return None
