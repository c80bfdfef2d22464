"""The shape of the request fields ``to_provider`` writes for Gemini's ``generateContent``, as a TypedDict.

The fields are the REST API's (camelCase). ``contents`` is typed as a list of ``Any`` and ``systemInstruction``
as ``Any``: google-genai types ``contents`` as a union holding a ``list`` of its own content union, and a list
is invariant, so only a list of exactly that union (or of ``Any``) is accepted there. Typed this way,
``client.models.generate_content(model=..., contents=converted.payload["contents"], ...)`` type-checks without a
cast; no SDK is imported here. Each content is ``{"role": "user" | "model", "parts": [...]}``.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

__all__ = ["GeminiRequest"]


class GeminiRequest(TypedDict, total=False):
    """The request fields ``to_provider`` writes: ``contents`` always, ``systemInstruction`` for leading instructions.

    ``systemInstruction`` is a content (``{"parts": [...]}``, with a ``role`` only where ``gemini/role`` gave one),
    to pass as the config's ``system_instruction``.
    """

    systemInstruction: Any
    contents: Required[list[Any]]
