"""The neutral delta vocabulary: what a streamed reply is made of, whichever provider streams it.

A stream is a sequence of events. Blocks are numbered by their position in the reply (``index``, from 0, in
the order they start); several may be open at once (parallel tool calls). A streamed block opens with
:class:`BlockStarted`, grows through deltas addressed to its index and closes with :class:`BlockEnded`; a file
or a JSON value arrives whole (:class:`FileAdded`, :class:`JsonAdded`). The reply ends with
:class:`ReplyStopped`.

Every event is a frozen, slotted attrs class that checks its own fields when built, as blocks do: an invalid
event cannot be constructed. Whether an event fits the stream (its block exists, is open, is of the right kind)
is the fold's rule, not the event's.

>>> from contentblocks.streaming import BlockStarted, TextAppended
>>> TextAppended(0, "Hel")
TextAppended(index=0, text='Hel')
>>> BlockStarted(0, "image")
Traceback (most recent call last):
contentblocks.ValidationError: $.kind: expected one of: text, refusal, reasoning, tool_call
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import attrs

from .._errors import ValidationError, describe_type
from .._freeze import freeze_metadata
from .._json import EMPTY_OBJECT, JsonObject, json_key
from .._model import Citation, FileBlock, JsonBlock, ReasoningBlock, bytes_repr
from .._patterns import check_free_text
from .._rules import DEFAULT_LIMITS, IDENTIFIER, text_problem
from ..providers._contract import STOP_REASONS, StopReason, Usage

__all__ = [
    "BLOCK_KINDS",
    "ArgumentsAppended",
    "BlockEnded",
    "BlockKind",
    "BlockStarted",
    "CitationAdded",
    "FileAdded",
    "JsonAdded",
    "MessageMetadataAdded",
    "ReasoningAppended",
    "ReasoningRedacted",
    "RefusalAppended",
    "ReplyStopped",
    "ResponseIdentified",
    "SignatureAppended",
    "SignatureSet",
    "StreamEvent",
    "TextAppended",
    "ToolCallIdentified",
    "UsageUpdated",
]

BlockKind: TypeAlias = Literal["text", "refusal", "reasoning", "tool_call"]
"""The kinds of block that grow by deltas; files and JSON values arrive whole."""

#: Every streamed block kind, in the order above.
BLOCK_KINDS: tuple[BlockKind, ...] = ("text", "refusal", "reasoning", "tool_call")

Problems = list[tuple[str, str]]
_MAX_CHARS = DEFAULT_LIMITS.max_text_chars


def _index(problems: Problems, value: object) -> None:
    if type(value) is not int:
        problems.append(("$.index", f"expected an integer, got {describe_type(value)}"))
    elif value < 0:
        problems.append(("$.index", "must be 0 or more"))


def _piece(problems: Problems, path: str, value: object, *, nonempty: bool = False) -> None:
    """A piece of streamed text: a string without lone surrogates (so the joined text has none either)."""
    if type(value) is not str:
        problems.append((path, f"expected a string, got {describe_type(value)}"))
    elif nonempty and not value:
        problems.append((path, "must not be empty"))
    elif (message := check_free_text(value, _MAX_CHARS)) is not None:
        problems.append((path, message))


def _raise(problems: Problems) -> None:
    if problems:
        raise ValidationError(problems)


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


def _metadata(obj: object, problems: Problems) -> None:
    value = obj.metadata  # type: ignore[attr-defined]
    if type(value) is not JsonObject or value:
        _set(obj, "metadata", freeze_metadata(problems, "$.metadata", value, DEFAULT_LIMITS))


def _optional_identifier(problems: Problems, path: str, value: object) -> None:
    if value is not None and (message := text_problem(IDENTIFIER, value, 0)) is not None:
        problems.append((path, message))


def _optional_text(problems: Problems, path: str, value: object) -> None:
    if value is not None:
        _piece(problems, path, value, nonempty=True)


def _instance(problems: Problems, path: str, value: object, cls: type) -> None:
    if not isinstance(value, cls):
        problems.append((path, f"expected a {cls.__name__}, got {describe_type(value)}"))


@attrs.frozen
class _Delta:
    """A piece of text for the open block ``index``; an empty piece is allowed and changes nothing."""

    index: int
    text: str

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _piece(problems, "$.text", self.text)
        _raise(problems)


@attrs.frozen
class ResponseIdentified:
    """The response's model and id became known (Anthropic's ``message_start``, each OpenAI chunk...).

    A field left ``None`` keeps what an earlier event said; a value replaces it, so the last word wins (a
    final event may name the exact model version).
    """

    model: str | None = None
    response_id: str | None = None

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _optional_text(problems, "$.model", self.model)
        _optional_text(problems, "$.response_id", self.response_id)
        _raise(problems)


@attrs.frozen
class BlockStarted:
    """Block ``index`` starts, of ``kind``; blocks start in order, 0 first.

    A tool call's id and name go here when the provider sends them with the start (Anthropic does), or later
    in a :class:`ToolCallIdentified` (OpenAI Chat may). ``metadata`` is the block's metadata as far as it is
    known now; :class:`BlockEnded` may add to it.

    >>> BlockStarted(1, "tool_call", tool_call_id="call_1", tool_name="get_weather").tool_name
    'get_weather'
    """

    index: int
    kind: BlockKind
    tool_call_id: str | None = attrs.field(default=None, kw_only=True)
    tool_name: str | None = attrs.field(default=None, kw_only=True)
    metadata: Mapping[str, Any] = attrs.field(default=EMPTY_OBJECT, kw_only=True, eq=json_key)

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        if type(self.kind) is not str or self.kind not in BLOCK_KINDS:
            problems.append(("$.kind", f"expected one of: {', '.join(BLOCK_KINDS)}"))
        _optional_identifier(problems, "$.tool_call_id", self.tool_call_id)
        _optional_identifier(problems, "$.tool_name", self.tool_name)
        if self.kind != "tool_call" and (self.tool_call_id is not None or self.tool_name is not None):
            problems.append(("$", "only a tool_call block has a tool call id and name"))
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen
class TextAppended(_Delta):
    """Text appended to the text block ``index``."""


@attrs.frozen
class RefusalAppended(_Delta):
    """Text appended to the refusal block ``index`` (the model's words declining)."""


@attrs.frozen
class ReasoningAppended(_Delta):
    """Visible reasoning text (thinking, or a summary of it) appended to the reasoning block ``index``."""


@attrs.frozen
class _Signature:
    index: int
    signature: str

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _piece(problems, "$.signature", self.signature, nonempty=type(self) is SignatureSet)
        _raise(problems)


@attrs.frozen
class SignatureSet(_Signature):
    """The reasoning block ``index``'s signature is ``signature``, whatever pieces came before.

    Anthropic's ``signature_delta`` sends the whole signature at once, and its SDK replaces rather than
    appends; this is that event.
    """


@attrs.frozen
class SignatureAppended(_Signature):
    """A piece of the reasoning block ``index``'s signature, appended to what came before (an opaque string)."""


@attrs.frozen
class ReasoningRedacted:
    """The reasoning block ``index`` is redacted: ``data`` is the provider's opaque payload, to send back as is.

    Redacted reasoning carries neither text nor a signature, so the block must have received neither.
    """

    index: int
    data: bytes = attrs.field(repr=bytes_repr)

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        if self.data is None:
            problems.append(("$.data", "expected bytes, got null"))
        else:
            try:  # the payload's rules are redacted reasoning's: one place states them
                _set(self, "data", ReasoningBlock(redacted=self.data).redacted)
            except ValidationError as e:
                problems.extend(("$.data" + path.removeprefix("$.redacted"), message) for path, message in e.errors)
        _raise(problems)


@attrs.frozen
class CitationAdded:
    """A citation added to the text block ``index``, after the ones before it.

    Its span (``start``/``end``) may reach past the text streamed so far: a snapshot shows it once the text
    covers it, and the block must cover it by the time it ends.
    """

    index: int
    citation: Citation

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _instance(problems, "$.citation", self.citation, Citation)
        _raise(problems)


@attrs.frozen
class ToolCallIdentified:
    """The tool call ``index``'s id, name or both became known.

    Each is given once: repeating the same value is harmless, a different one is an error.
    """

    index: int
    tool_call_id: str | None = None
    tool_name: str | None = None

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _optional_identifier(problems, "$.tool_call_id", self.tool_call_id)
        _optional_identifier(problems, "$.tool_name", self.tool_name)
        if self.tool_call_id is None and self.tool_name is None:
            problems.append(("$", "give a tool call id, a tool name or both"))
        _raise(problems)


@attrs.frozen
class ArgumentsAppended(_Delta):
    """JSON text appended to the tool call ``index``'s arguments; they are parsed when the block ends."""


@attrs.frozen
class FileAdded:
    """A whole file (an image the model made, an inline media part) is block ``index``: it starts and ends here."""

    index: int
    block: FileBlock

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _instance(problems, "$.block", self.block, FileBlock)
        _raise(problems)


@attrs.frozen
class JsonAdded:
    """A whole JSON block is block ``index`` (a provider part with no neutral kind, kept verbatim)."""

    index: int
    block: JsonBlock

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        _instance(problems, "$.block", self.block, JsonBlock)
        _raise(problems)


@attrs.frozen
class BlockEnded:
    """The streamed block ``index`` is complete.

    ``metadata`` adds to what :class:`BlockStarted` gave (a key given twice takes this value): providers often
    know a part's native extras only once it is complete. A tool call's arguments must then be JSON, unless
    ``keep_invalid_arguments`` says the provider's adapter keeps text that is not JSON as the input string
    (the OpenAI adapters do, flagging it in the metadata).
    """

    index: int
    metadata: Mapping[str, Any] = attrs.field(default=EMPTY_OBJECT, eq=json_key)
    keep_invalid_arguments: bool = attrs.field(default=False, kw_only=True)

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _index(problems, self.index)
        if type(self.keep_invalid_arguments) is not bool:
            problems.append(
                ("$.keep_invalid_arguments", f"expected a boolean, got {describe_type(self.keep_invalid_arguments)}")
            )
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen
class MessageMetadataAdded:
    """Entries for the reply message's own metadata (a key given twice takes the later value)."""

    metadata: Mapping[str, Any] = attrs.field(eq=json_key)

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _metadata(self, problems)
        _raise(problems)


@attrs.frozen
class UsageUpdated:
    """The token counts so far; each replaces the last (providers report running totals, not increments)."""

    usage: Usage

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        _instance(problems, "$.usage", self.usage, Usage)
        _raise(problems)


@attrs.frozen
class ReplyStopped:
    """The reply is complete: why it stopped, in the neutral vocabulary and in the provider's own words.

    Every block must have ended; nothing may follow.

    >>> ReplyStopped("tool_use", "tool_calls").stop_reason
    'tool_use'
    """

    stop_reason: StopReason | None = None
    provider_stop_reason: str | None = None

    def __attrs_post_init__(self) -> None:
        problems: Problems = []
        if self.stop_reason is not None and (type(self.stop_reason) is not str or self.stop_reason not in STOP_REASONS):
            problems.append(("$.stop_reason", f"expected one of: {', '.join(STOP_REASONS)}"))
        _optional_text(problems, "$.provider_stop_reason", self.provider_stop_reason)
        _raise(problems)


StreamEvent: TypeAlias = (
    ResponseIdentified
    | BlockStarted
    | TextAppended
    | RefusalAppended
    | ReasoningAppended
    | SignatureSet
    | SignatureAppended
    | ReasoningRedacted
    | CitationAdded
    | ToolCallIdentified
    | ArgumentsAppended
    | FileAdded
    | JsonAdded
    | BlockEnded
    | MessageMetadataAdded
    | UsageUpdated
    | ReplyStopped
)
"""Any event of the vocabulary."""

for _name in __all__:
    if isinstance(_public := globals()[_name], type):
        _public.__module__ = "contentblocks.streaming"
