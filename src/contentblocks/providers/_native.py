"""Provider-run items kept in JSON blocks: which may go back verbatim, to whom, where, and what the rest becomes.

A reader keeps a provider's own item that the neutral model cannot represent (an Anthropic ``server_tool_use``,
a Responses ``web_search_call``, a Gemini ``executableCode`` part) as a JSON block flagged in that provider's
namespace, so that a reply read from the provider goes back to it losslessly. The flag is metadata, and
metadata is inert (``docs/security.md``): it never turns a JSON value into a turn, a role, a message or a tool
result. So a flagged block is sent verbatim only when every one of these holds (``replay_refusal``):

- its kind is on the provider's closed allow-list of the items it runs itself and the library cannot
  represent (``NativeKinds.replayable``): never ``tool_result``, ``function_call_output``, a message or a
  kind the library maps to a block of its own;
- it is a top-level block of an assistant message, the only place a provider emits such items (Anthropic's
  user content kinds the library cannot represent, a ``search_result`` no block holds or a document with a ``content``
  source, go back where Anthropic takes them: in user messages and tool results);
- every URL in it passes the library's URL rule (an absolute ``http``/``https`` URL with a host);
- it was not recorded as issued by another provider (``contentblocks/issuer``).

Otherwise the block is what any JSON block is: its JSON text, reported as ``content_degraded``. Sent to
another provider, a provider-run item is opaque state of its issuer: it is dropped and reported as
``state_not_replayed``, never pasted into the prompt as text (``foreign_state``).

>>> import contentblocks as cb
>>> search = cb.JsonBlock(value={"type": "web_search_call", "id": "ws_1"}, metadata={"openai/input_item": True})
>>> replay_refusal(search, RESPONSES, role="assistant") is None
True
>>> replay_refusal(search, RESPONSES, role="user").reason
'web_search_call goes back only in a message of role assistant'
>>> foreign_state(search, "anthropic") is RESPONSES
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .._checks._rules import URL
from .._model._classes import JsonBlock
from ._arguments import JSON_TEXT, value_of
from ._contract import ISSUER_KEY, LossKind, issued_by, issuer_matches

__all__ = [
    "ANTHROPIC",
    "GEMINI",
    "NATIVE_KINDS",
    "RESPONSES",
    "NativeKinds",
    "Refusal",
    "foreign_reason",
    "foreign_state",
    "item",
    "native_kind",
    "replay_refusal",
]


class NativeKinds(NamedTuple):
    """How one adapter keeps its provider's items in JSON blocks, and which of them it sends back.

    ``flag`` is the metadata key marking such a block: ``True`` with the item itself as the value (Anthropic,
    Responses), or, for Gemini, the part's field name with the field's value as the block's value.
    ``replayable`` is the closed allow-list of kinds sent back verbatim, by the role of the message holding
    them (``"tool"`` for a tool result's content); ``state`` the kinds that are the provider's own state,
    dropped rather than written as text when the conversation goes to another provider.
    """

    adapter: str
    provider: str
    flag: str
    replayable: Mapping[str, frozenset[str]]
    state: frozenset[str]


_ANTHROPIC_RUN = frozenset(
    {
        # anthropic.types.ContentBlock (2.17): what a response holds, minus the kinds the library represents
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        # anthropic.types.beta.BetaContentBlock: run by Anthropic too (the MCP connector, context compaction)
        "mcp_tool_use",
        "mcp_tool_result",
        "compaction",
    }
)

# anthropic.types.ContentBlockParam: user content with no neutral block (the reader keeps an image or document
# whose source it does not map, such as a document's ``content`` source, verbatim too)
_ANTHROPIC_USER = frozenset({"search_result", "document", "image", "container_upload"})

#: Anthropic: blocks flagged ``anthropic/native_block``.
ANTHROPIC = NativeKinds(
    "anthropic",
    "anthropic",
    "anthropic/native_block",
    {"assistant": _ANTHROPIC_RUN, "user": _ANTHROPIC_USER, "tool": _ANTHROPIC_USER},
    _ANTHROPIC_RUN,
)

_RESPONSES_RUN = frozenset(
    {
        # openai.types.responses.ResponseOutputItem (3.63): the calls a model makes and the provider runs or
        # hands to the client, minus message, reasoning and function_call (blocks of their own) and minus every
        # output or approval the client sends back (function_call_output, computer_call_output, ...)
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "custom_tool_call",
        "tool_search_call",
        "program",
        "compaction",
        # a reference by id to an item the provider stored: only the provider can resolve it
        "item_reference",
    }
)
_RESPONSES_ANSWERS = frozenset(
    {
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "custom_tool_call_output",
        "mcp_approval_response",
        "tool_search_output",
        "program_output",
        "additional_tools",
    }
)

#: Responses: items flagged ``openai/input_item``. Answers to provider-run calls are state too, when the
#: conversation goes elsewhere (the calls they answer are dropped), but never replayed: the client sends them.
RESPONSES = NativeKinds(
    "openai_responses",
    "openai",
    "openai/input_item",
    {"assistant": _RESPONSES_RUN},
    _RESPONSES_RUN | _RESPONSES_ANSWERS,
)

_GEMINI_RUN = frozenset({"executableCode", "codeExecutionResult", "toolCall", "toolResponse"})

#: Gemini: blocks tagged ``gemini/part`` (an empty ``text`` part is tagged too, and is plain text anywhere).
GEMINI = NativeKinds("gemini", "gemini", "gemini/part", {"assistant": _GEMINI_RUN}, _GEMINI_RUN)

#: Every adapter's provider-run kinds, by adapter name.
NATIVE_KINDS: Mapping[str, NativeKinds] = {kinds.adapter: kinds for kinds in (ANTHROPIC, RESPONSES, GEMINI)}


def item(block: JsonBlock) -> Any:
    """The provider value a JSON block holds: its value, or the value parsed back from the text it was kept as."""
    return value_of(block) if block.metadata.get(JSON_TEXT) is True else block.value


def native_kind(block: JsonBlock, kinds: NativeKinds) -> str | None:
    """The item kind a block flagged for ``kinds`` holds, or ``None`` when it is not flagged so."""
    flag = block.metadata.get(kinds.flag)
    if kinds is GEMINI:
        return flag if type(flag) is str else None
    value = item(block)
    if flag is not True or not isinstance(value, Mapping):
        return None
    kind = value.get("type", "item_reference" if kinds is RESPONSES and "role" not in value else None)
    return kind if type(kind) is str else None


def _bad_url(value: Any) -> str | None:
    """The first URL in ``value`` (a string under a ``url``/``uri`` key) that fails the URL rule, else ``None``."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, child in item.items():
                if type(child) is str and key.lower().endswith(("url", "uri")):
                    if not URL.accepts(child):
                        return child
                else:
                    stack.append(child)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


class Refusal(NamedTuple):
    """Why a flagged block is not sent verbatim, and the kind of the loss that reports it."""

    reason: str
    kind: LossKind


def replay_refusal(block: JsonBlock, kinds: NativeKinds, *, role: str, issuer: str | None = None) -> Refusal | None:
    """Why ``block`` may not go verbatim to ``kinds``' provider, or ``None`` when it may (see the module).

    ``role`` is the role of the message holding it (``"tool"`` for a block inside a tool result), ``issuer``
    the target issuer (its provider part is compared with a recorded ``contentblocks/issuer``). A block of
    another issuer is provider state that is dropped (``state_not_replayed``); any other refusal leaves a JSON
    value that is written as its text (``content_degraded``).
    """
    kind = native_kind(block, kinds)
    if kind is None or not any(kind in allowed for allowed in kinds.replayable.values()):
        what = f"{kind!r} is not" if kind is not None else "this value is not"
        return Refusal(f"{what} one of the {kinds.provider} items the library keeps verbatim", "content_degraded")
    if kind not in kinds.replayable.get(role, ()):
        where = " or ".join(r for r, allowed in kinds.replayable.items() if kind in allowed)
        return Refusal(f"{kind} goes back only in a message of role {where}", "content_degraded")
    recorded = block.metadata.get(ISSUER_KEY)
    if recorded is not None and not issuer_matches(recorded, (issuer or kinds.provider).split("/", 1)[0]):
        reason = "a provider-run item goes back only to its issuer; "
        reason += f"{kind} {issued_by(recorded)} not sent to {kinds.provider}"
        return Refusal(reason, "state_not_replayed")
    if _bad_url(item(block)) is not None:
        return Refusal("it holds a URL that is not an absolute http(s) URL with a host", "content_degraded")
    return None


def foreign_state(block: JsonBlock, adapter: str) -> NativeKinds | None:
    """The kinds of the other adapter whose provider-run item ``block`` holds, else ``None``."""
    for kinds in NATIVE_KINDS.values():
        if kinds.adapter != adapter and native_kind(block, kinds) in kinds.state:
            return kinds
    return None


def foreign_reason(kinds: NativeKinds, block: JsonBlock, target: str) -> str:
    """The loss reason for a provider-run item of ``kinds`` not sent to ``target``."""
    kind = native_kind(block, kinds)
    return f"a provider-run item stays with the provider that ran it; {kind} of {kinds.provider} not sent to {target}"
