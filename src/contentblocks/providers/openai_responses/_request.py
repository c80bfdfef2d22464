"""The shape of the request fields ``to_provider`` writes for the Responses API, as a TypedDict.

``instructions`` and ``input`` are typed; the items of ``input`` are ``Any``. The SDK types ``input`` as a
``List`` of its item union, and a list is invariant: only a list of exactly that union (or of ``Any``) is
accepted there, and the union grows with every release. Typed this way,
``client.responses.create(model=..., **converted.payload)`` type-checks without a cast and gives the SDK's
``Response``; no SDK is imported here.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

__all__ = ["OpenAIResponsesRequest"]


class OpenAIResponsesRequest(TypedDict, total=False):
    """The request fields ``to_provider`` writes: ``input`` always, ``instructions`` for a plain leading system text.

    Each item of ``input`` is a dict of one of the API's input item types (``message``, ``reasoning``,
    ``function_call``, ``function_call_output``...).
    """

    instructions: str
    input: Required[list[Any]]
