"""A tool result as the fields of the ``UIMessage`` tool part that holds its call: its state, output or error.

The SDK keeps a result in its call's part: a succeeded one as one JSON ``output``, a failed one as an
``errorText``, a denied one as the part's ``approval`` with its reason; what those cannot hold is reported.

>>> import contentblocks as cb
>>> from contentblocks.providers._contract import LossRecorder
>>> result = cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="failed",
...                            content=[cb.TextBlock(text="Offline.")])
>>> output_fields(result, "$[1].content[0]", LossRecorder(), None)
{'state': 'output-error', 'errorText': 'Offline.'}
"""

from __future__ import annotations

import json
from typing import Any

from ..._conversion._kernels import thaw
from ..._model._classes import FileBlock, JsonBlock, ServerToolResultBlock, TextBlock, ToolResultBlock
from ...providers._contract import LossRecorder
from ._ui_read import approval_id
from ._values import meta_of

__all__ = ["STATES", "output_fields", "result_text"]

#: The part state of each outcome.
STATES = {"succeeded": "output-available", "failed": "output-error", "denied": "output-denied",
          "interrupted": "output-error"}
_SDK = "the Vercel AI SDK"  # how loss reasons name the target


def _citations(block: TextBlock, path: str, losses: LossRecorder) -> None:
    if block.citations:
        losses.add(f"{path}.citations", "the SDK's tool results hold no citations", "content_dropped")


def result_text(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder,
                what: str) -> str | None:  # fmt: skip
    """A result's content as the one text the SDK holds for it (an error's text, a denial's reason)."""
    texts = []
    for index, part in enumerate(block.content):
        where = f"{path}.content[{index}]"
        if isinstance(part, TextBlock):
            texts.append(part.text)
            _citations(part, where, losses)
        elif isinstance(part, JsonBlock):
            texts.append(json.dumps(thaw(part.value)))
            losses.add(where, f"the SDK holds {what} as text; this JSON is written as its text", "content_degraded")
        else:
            losses.add(where, f"the SDK holds {what} as text; this file is not written", "content_dropped")
        if isinstance(part, TextBlock | JsonBlock) and len(texts) > 1:
            losses.add(where, f"the SDK holds {what} as one text; joined to the part before", "content_degraded")
        meta_of(part.metadata, where, losses).done(f"in {what}")
    return "\n".join(texts) if texts else None


def _succeeded(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder) -> dict[str, Any]:
    """A succeeded result's ``output``: its one part's value, or its parts as an array.

    The SDK's ``output-available`` part must hold an ``output`` (``validateUIMessages`` refuses one without), so a
    result with no part an output can hold (none at all, or files only) is written as ``output: null``, which reads
    back as a JSON null: reported ``content_degraded``.
    """
    items = []
    for index, part in enumerate(block.content):
        where = f"{path}.content[{index}]"
        meta_of(part.metadata, where, losses).done("in a tool output")
        if isinstance(part, TextBlock):
            _citations(part, where, losses)
        if isinstance(part, FileBlock):
            losses.add(where, "the SDK's tool output is one JSON value; this file is not written", "content_dropped")
        else:
            items.append(part.text if isinstance(part, TextBlock) else thaw(part.value))  # type: ignore[union-attr] # search results: text by now
    if not items:
        losses.add(path, "the SDK's tool output must hold a value, and no part of this result has a place in it; "
                   "written as output null, read back as a JSON null", "content_degraded")
        return {"output": None}
    if len(block.content) == 1:
        if isinstance(block.content[0], JsonBlock) and isinstance(items[0], str) and items[0]:
            losses.add(f"{path}.content[0]", "the SDK's tool output holds a JSON string as a string; read back as "
                       "text", "content_degraded")
        return {"output": items[0]}
    for index, part in enumerate(block.content):
        if not isinstance(part, FileBlock):
            losses.add(f"{path}.content[{index}]", "the SDK's tool output is one JSON value; the parts are written "
                       "as one array, read back as one JSON part", "content_degraded")
    return {"output": items}


def output_fields(block: ToolResultBlock | ServerToolResultBlock, path: str, losses: LossRecorder,
            approval: Any) -> dict[str, Any]:  # fmt: skip
    """The fields a tool part takes from its result (``approval``: the one its call kept, if any)."""
    meta = meta_of(block.metadata, path, losses)
    if type(block) is ServerToolResultBlock:
        meta.state(_SDK)
    fields: dict[str, Any] = {"state": STATES[block.outcome]}
    if block.outcome in ("failed", "interrupted"):
        if block.outcome == "interrupted":
            losses.add(f"{path}.outcome", "the SDK has no interrupted outcome; written as an error (reads back as "
                       "failed)", "content_degraded")
        fields["errorText"] = result_text(block, path, losses, "a tool error") or ""
    elif block.outcome == "denied":
        kept = approval if isinstance(approval, dict) and isinstance(approval.get("id"), str) else {}
        fields["approval"] = {"id": approval_id(block.tool_call_id), **kept, "approved": False}
        if (reason := result_text(block, path, losses, "a denial's reason")) is not None:
            fields["approval"]["reason"] = reason
    else:
        fields.update(_succeeded(block, path, losses))
    fields.update(meta.fields("preliminary"))
    meta.done("on a tool result")
    return fields
