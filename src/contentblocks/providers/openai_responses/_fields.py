"""Which fields each Responses item and part type has: what reading maps, and what metadata may write back.

Reading keeps a native field with no neutral home in metadata as ``openai/<field>``; writing sends it back only
where the request type (the SDK's ``ResponseInputItemParam`` members and their parts) declares that field at
that position, and only with a value of the shape the request type gives it (``openai/status: 5`` is not sent).
Everything else stays local and is reported as ``metadata_not_sent``.

>>> from contentblocks.providers._shapes import fits
>>> fits("completed", WIRE["reasoning"]["status"]), fits(5, WIRE["reasoning"]["status"])
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shapes import BOOL, FLOAT, INT, STR, Choice, Kind, ListOf, Nullable, OneOf, Struct
from .._toolkit import present as _present

#: The metadata namespace of this adapter (shared with the OpenAI Chat adapter, as the keys mean the same).
NS = "openai"
#: Who issues the reasoning state this adapter reads (``contentblocks/issuer`` on its reasoning blocks).
ISSUER = "openai"
#: The name loss reasons give the target.
TARGET = "Responses API"


_STATUS = Choice("in_progress", "completed", "incomplete")
_PHASE = Choice("commentary", "final_answer")
_BREAKPOINT = Struct(
    "PromptCacheBreakpoint", {"mode": Choice("explicit"), "ttl": Choice("30m", "12h")}, required={"mode"}
)
_TOP_LOGPROB = Struct(
    "LogprobTopLogprob", {"token": STR, "bytes": ListOf(INT), "logprob": FLOAT}, required={"token", "bytes", "logprob"}
)
_LOGPROB = Struct(
    "Logprob",
    {"token": STR, "bytes": ListOf(INT), "logprob": FLOAT, "top_logprobs": ListOf(_TOP_LOGPROB)},
    required={"token", "bytes", "logprob", "top_logprobs"},
)
_DIRECT = Struct("CallerDirect", {"type": Choice("direct")}, required={"type"})
_PROGRAM = Struct("CallerProgram", {"type": Choice("program"), "caller_id": STR}, required={"type", "caller_id"})
_CALLER = OneOf("Caller", (_DIRECT, _PROGRAM), lambda value: _DIRECT if value.get("type") == "direct" else _PROGRAM)

#: The ``openai/<field>`` metadata each item or part type takes back, by the ``type`` it is written as, with the
#: shape its request type gives the field (``Nullable`` where it is ``Optional``, so ``null`` is sent): a value
#: that does not fit stays local. An assistant message with an item id is a ``ResponseOutputMessageParam``
#: (``output_message``); one without is an ``EasyInputMessageParam`` (``easy_message``), as is a user message with
#: string content; a user, system or developer message with list content is a ``Message`` (``message``).
WIRE: Mapping[str, Mapping[str, Kind]] = {
    "message": {"status": _STATUS},
    "easy_message": {"phase": Nullable(_PHASE)},
    "output_message": {"status": _STATUS, "phase": Nullable(_PHASE)},
    "input_text": {"prompt_cache_breakpoint": _BREAKPOINT},
    "input_image": {"detail": Choice("low", "high", "auto", "original"), "prompt_cache_breakpoint": _BREAKPOINT},
    "input_file": {"detail": Choice("low", "high", "auto"), "prompt_cache_breakpoint": _BREAKPOINT, "filename": STR},
    "output_text": {"logprobs": ListOf(_LOGPROB)},
    "refusal": {},
    "reasoning": {"status": _STATUS, "encrypted_content": Nullable(STR)},
    "compaction": {"id": Nullable(STR)},
    "function_call": {"id": STR, "status": _STATUS, "namespace": STR, "caller": Nullable(_CALLER), "async": BOOL},
    "function_call_output": {
        "id": Nullable(STR),
        "status": Nullable(_STATUS),
        "name": Nullable(STR),
        "namespace": Nullable(STR),
        "caller": Nullable(_CALLER),
    },
}


#: Keys an SDK writes under its own Python names when dumped without aliases (``model_dump()``), by wire name.
SDK_NAMES: Mapping[str, str] = {"async_": "async", "schema_": "schema"}

#: Fields the SDK's parsing helpers add to a ``ParsedResponse`` (the text or arguments parsed into the caller's
#: type): derived from a field this adapter reads, never sent (``__api_exclude__``), so not kept.
PARSED = frozenset({"parsed", "parsed_arguments"})


def present(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` without its ``null`` members (the toolkit's ``present``), keys in their wire names.

    Every field this adapter reads or keeps is optional-or-absent where it may be ``null``, so a ``null`` is
    the field's absence; what this adapter adds is the SDK's Python names for keywords (``SDK_NAMES``), turned
    back into wire names.

    >>> present({"id": "fc_1", "caller": None, "async_": True})
    {'id': 'fc_1', 'async': True}
    """
    return _present(raw, rename=SDK_NAMES)


def flags(meta: Mapping[str, Any], *names: str) -> set[str]:
    """The adapter flags among ``meta``'s keys: metadata that steers writing and is never a field of its own."""
    return {f"{NS}/{name}" for name in names} & set(meta)
