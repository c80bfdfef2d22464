"""Which fields each Responses item and part type has: what reading maps, and what metadata may write back.

Reading keeps a native field with no neutral home in metadata as ``openai/<field>``; writing sends it back only
where the request type (the SDK's ``ResponseInputItemParam`` members and their parts) declares that field at
that position. Everything else stays local and is reported as ``metadata_not_sent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shapes import JSON, Kind
from .._toolkit import present as _present

#: The metadata namespace of this adapter (shared with the OpenAI Chat adapter, as the keys mean the same).
NS = "openai"
#: Who issues the reasoning state this adapter reads (``contentblocks/issuer`` on its reasoning blocks).
ISSUER = "openai"
#: The name loss reasons give the target.
TARGET = "Responses API"


def _any(*names: str) -> dict[str, Kind]:
    return dict.fromkeys(names, JSON)


#: The ``openai/<field>`` metadata each item or part type takes back, by the ``type`` it is written as. An
#: assistant message with an item id is a ``ResponseOutputMessageParam`` (``output_message``); one without is an
#: ``EasyInputMessageParam`` (``easy_message``), as is a user message with string content; a user, system or
#: developer message with list content is a ``Message`` (``message``). The values are not checked against the
#: request types' shapes (each field is ``JSON``: any value kept in metadata goes back as it is).
WIRE: Mapping[str, Mapping[str, Kind]] = {
    "message": _any("status"),
    "easy_message": _any("phase"),
    "output_message": _any("status", "phase"),
    "input_text": _any("prompt_cache_breakpoint"),
    "input_image": _any("detail", "prompt_cache_breakpoint"),
    "input_file": _any("detail", "prompt_cache_breakpoint", "filename"),
    "output_text": _any("logprobs"),
    "refusal": {},
    "reasoning": _any("status", "encrypted_content"),
    "function_call": _any("id", "status", "namespace", "caller", "async"),
    "function_call_output": _any("id", "status", "name", "namespace", "caller"),
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
