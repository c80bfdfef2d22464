r"""Gemini's code execution as neutral blocks: ``executableCode`` is a call Gemini ran, its result the result.

The call's input is the ``executableCode`` object without its id (``{"language": "PYTHON", "code": ...}``) and
the result holds the output as text. Gemini gives ids only where the model gave the code one; a call without
one gets the id the reader makes for calls (flagged ``gemini/generated_id``, and not written back), and a result
without one answers the latest code not yet answered, which it always follows. Outcomes map both ways:
``OUTCOME_OK`` is succeeded, ``OUTCOME_FAILED`` failed and ``OUTCOME_DEADLINE_EXCEEDED`` interrupted (the run
was cancelled, perhaps with part of its output); any other is failed, its native value kept.

>>> pending = []
>>> code = {"language": "PYTHON", "code": "print(2 + 2)"}
>>> call = read_code(code, "$.parts[0].executableCode", {}, pending, "g_0", "gemini")
>>> output = {"outcome": "OUTCOME_OK", "output": "4\\n"}
>>> result = read_result(output, "$.parts[1].codeExecutionResult", {}, pending, "g_1", "gemini")
>>> (call.tool_call_id, result.tool_call_id, result.outcome, result.content[0].text)
('g_0', 'g_0', 'succeeded', '4\\n')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._json._values import thaw
from ..._model._classes import Outcome, ServerToolCallBlock, ServerToolResultBlock, TextBlock
from .._arguments import raw_input
from .._contract import ISSUER_KEY
from .._toolkit import build, identifier
from ._tool_parts import answered
from ._wire import NS

__all__ = ["CODE_EXECUTION", "OUTCOME", "native_code", "read_code", "read_result"]

#: The neutral name of Gemini's code execution tool.
CODE_EXECUTION = "code_execution"
#: Metadata of a result whose native outcome no neutral outcome names (``OUTCOME_UNSPECIFIED``).
OUTCOME = f"{NS}/outcome"
_GENERATED = f"{NS}/generated_id"
_OUTCOMES: dict[object, Outcome] = {
    "OUTCOME_OK": "succeeded",
    "OUTCOME_FAILED": "failed",
    "OUTCOME_DEADLINE_EXCEEDED": "interrupted",
}
_NATIVE_OUTCOMES = {neutral: native for native, neutral in _OUTCOMES.items()}


def read_code(
    code: Mapping[str, Any], path: str, meta: dict[str, Any], pending: list[Any], call_id: str, issuer: str
) -> ServerToolCallBlock:
    """An ``executableCode`` part's block (``meta`` holds the part's own extras); it joins ``pending``."""
    if "id" in code:
        call_id = identifier(code, "id", path)
    else:
        meta[_GENERATED] = True
    value, flags = raw_input({k: v for k, v in code.items() if k != "id"})
    metadata = {**meta, ISSUER_KEY: issuer, **flags}
    call = build(
        ServerToolCallBlock, path, tool_call_id=call_id, tool_name=CODE_EXECUTION, input=value, metadata=metadata
    )
    pending.append(call)
    return call


def read_result(
    result: Mapping[str, Any], path: str, meta: dict[str, Any], pending: list[Any], call_id: str, issuer: str
) -> ServerToolResultBlock:
    """A ``codeExecutionResult`` part's block, answering the code it names or the latest one not yet answered.

    A result with no code in view keeps its own id, or takes ``call_id``.
    """
    result_id = identifier(result, "id", path, optional=True)
    match = answered(pending, result_id, tool_parts=False)
    call_id = match.tool_call_id if match is not None else result_id or call_id
    if result_id is None:
        meta[_GENERATED] = True
    outcome = _OUTCOMES.get(result.get("outcome"), "failed")
    if result.get("outcome") not in _OUTCOMES:
        meta[OUTCOME] = result.get("outcome")
    output = result.get("output")
    content = [build(TextBlock, f"{path}.output", text=output)] if type(output) is str and output else []
    metadata = {**meta, ISSUER_KEY: issuer}
    return build(
        ServerToolResultBlock,
        path,
        tool_call_id=call_id,
        tool_name=CODE_EXECUTION,
        outcome=outcome,
        content=content,
        metadata=metadata,
    )


def native_code(block: ServerToolCallBlock | ServerToolResultBlock) -> tuple[str, dict[str, Any]] | None:
    """The part kind and value Gemini takes ``block`` back as, or ``None`` when it is no code execution it has.

    A call must hold an object with a string ``code``; a result must have an outcome Gemini names and hold no
    more than one text without citations (its output). The caller has checked that Gemini ran the tool.
    """
    if block.tool_name != CODE_EXECUTION:
        return None
    own_id = block.metadata.get(_GENERATED) is not True
    if type(block) is ServerToolCallBlock:
        value = thaw(block.input)
        if type(value) is not dict or type(value.get("code")) is not str:
            return None
        return "executableCode", {**value, "id": block.tool_call_id} if own_id else value
    assert type(block) is ServerToolResultBlock  # noqa: S101 - narrowed for mypy
    native_outcome = block.metadata.get(OUTCOME) if block.outcome == "failed" else None
    outcome = native_outcome if type(native_outcome) is str else _NATIVE_OUTCOMES.get(block.outcome)
    texts = block.content
    if outcome is None or len(texts) > 1 or any(type(t) is not TextBlock or t.citations for t in texts):
        return None
    native: dict[str, Any] = {"outcome": outcome}
    if texts:
        native["output"] = texts[0].text  # type: ignore[union-attr]
    if own_id:
        native["id"] = block.tool_call_id
    return "codeExecutionResult", native
