"""Which fields each Responses item and part type has: what reading maps, and what metadata may write back.

Reading keeps a native field with no neutral home in metadata as ``openai/<field>``; writing sends it back only
where the request type (the SDK's ``ResponseInputItemParam`` members and their parts) declares that field at
that position. Everything else stays local and is reported as ``metadata_not_sent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The metadata namespace of this adapter (shared with the OpenAI Chat adapter, as the keys mean the same).
NS = "openai"
#: Who issues the reasoning state this adapter reads (``contentblocks/issuer`` on its reasoning blocks).
ISSUER = "openai"
#: The name loss reasons give the target.
TARGET = "Responses API"
#: The media type of an ``input_file`` whose type the wire does not say.
OCTET = "application/octet-stream"

#: The ``openai/<field>`` metadata each item or part type takes back, by the ``type`` it is written as. An
#: assistant message with an item id is a ``ResponseOutputMessageParam`` (``output_message``); one without is an
#: ``EasyInputMessageParam`` (``easy_message``), as is a user message with string content; a user, system or
#: developer message with list content is a ``Message`` (``message``).
WIRE: Mapping[str, frozenset[str]] = {
    "message": frozenset({"status"}),
    "easy_message": frozenset({"phase"}),
    "output_message": frozenset({"status", "phase"}),
    "input_text": frozenset({"prompt_cache_breakpoint"}),
    "input_image": frozenset({"detail", "prompt_cache_breakpoint"}),
    "input_file": frozenset({"detail", "prompt_cache_breakpoint", "filename"}),
    "output_text": frozenset({"logprobs"}),
    "refusal": frozenset(),
    "reasoning": frozenset({"status", "encrypted_content"}),
    "function_call": frozenset({"id", "status", "namespace", "caller", "async"}),
    "function_call_output": frozenset({"id", "status", "name", "namespace", "caller"}),
}

#: Keys an SDK writes under its own Python names when dumped without aliases (``model_dump()``), by wire name.
SDK_NAMES: Mapping[str, str] = {"async_": "async", "schema_": "schema"}

#: Fields the SDK's parsing helpers add to a ``ParsedResponse`` (the text or arguments parsed into the caller's
#: type): derived from a field this adapter reads, never sent (``__api_exclude__``), so not kept.
PARSED = frozenset({"parsed", "parsed_arguments"})


def present(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` without its ``null`` members (an SDK dump writes ``null`` for every unset optional field).

    Every field this adapter reads or keeps is optional-or-absent where it may be ``null``, so a ``null`` is
    the field's absence; the SDK's Python names for keywords are turned back into wire names.

    >>> present({"id": "fc_1", "caller": None, "async_": True})
    {'id': 'fc_1', 'async': True}
    """
    return {SDK_NAMES.get(key, key): value for key, value in raw.items() if value is not None}


def flags(meta: Mapping[str, Any], *names: str) -> set[str]:
    """The adapter flags among ``meta``'s keys: metadata that steers writing and is never a field of its own."""
    return {f"{NS}/{name}" for name in names} & set(meta)
