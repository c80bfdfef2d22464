"""The model's blocks and messages: frozen, slotted attrs classes whose fields name their rules.

The values they hold (citations, their sources and locations, the cache breakpoint) and the base classes with
the one check every class shares are in ``_values``, and are re-exported here.

The classes hold data only; they know nothing of the wire (no tags, no keys, no cattrs, no C). Each field
names its rule in its metadata (``_rules``), and a class may name rules over several of its fields in
``__cross_rules__``. Built in Python, an instance runs :func:`check_instance`, which applies those rules with
the default limits and raises one ``ValidationError`` listing every problem. The converter reads the same
declarations to generate its structure functions, which apply the rules with its own limits and build
instances without checking them twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, get_args

import attrs

from .._checks._instances import resolve_annotations
from .._checks._rules import (
    DATA,
    FILENAME,
    FLAG,
    FREE_TEXT,
    IDENTIFIER,
    JSON_VALUE,
    MEDIA_TYPE,
    ONE_OF,
    REASONING_SHAPE,
    REDACTED,
    REFERENCE,
    SPAN_WITHIN_TEXT,
    TITLE,
    URL,
    CannotFail,
    CrossRule,
    choice,
    many,
)
from .._errors import with_article
from .._json._values import json_key
from ._approvals import ApprovalRequestBlock, ApprovalResponseBlock
from ._values import (
    BlockRange,
    CacheBreakpoint,
    CharacterRange,
    Checked,
    Citation,
    CitationLocation,
    CitationSource,
    CitedReference,
    CitedUri,
    Outcome,
    PageRange,
    Role,
    Value,
    as_tuple,
    bytes_repr,
    metadata_field,
    ruled,
)

__all__ = [
    "ROLE_BLOCKS",
    "ApprovalRequestBlock",
    "ApprovalResponseBlock",
    "Block",
    "BlockRange",
    "BytesSource",
    "CacheBreakpoint",
    "CharacterRange",
    "Checked",
    "Citation",
    "CitationLocation",
    "CitationSource",
    "CitedReference",
    "CitedUri",
    "CompactionBlock",
    "FileBlock",
    "FileSource",
    "JsonBlock",
    "Message",
    "Outcome",
    "PageRange",
    "ReasoningBlock",
    "ReferenceSource",
    "RefusalBlock",
    "Role",
    "SearchResultBlock",
    "ServerToolCallBlock",
    "ServerToolResultBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolResultContent",
    "UrlSource",
    "as_tuple",
    "bytes_repr",
    "kind_name",
]


def _citations(value: Sequence[Citation]) -> tuple[Citation, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


def _texts(value: Sequence[TextBlock]) -> tuple[TextBlock, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


def _result_content(value: Sequence[ToolResultContent]) -> tuple[ToolResultContent, ...]:
    return as_tuple(value)  # type: ignore[no-any-return]


def _content(value: str | Sequence[Block]) -> tuple[Block, ...]:
    """A message's content as the field holds it; a string stays one until the check makes it a text block."""
    return value if type(value) is str else as_tuple(value)  # type: ignore[return-value]



# ---------------------------------------------------------------------------------------------- blocks

@attrs.frozen(kw_only=True)
class TextBlock(Value):
    """Text, optionally with citations; whitespace-only text is kept as it is.

    >>> import contentblocks as cb
    >>> cb.TextBlock(text="Paris is the capital of France.")
    TextBlock(text='Paris is the capital of France.', citations=(), cache=None, metadata=JsonObject({}))
    """

    text: str = attrs.field(metadata=ruled(FREE_TEXT))
    citations: tuple[Citation, ...] = attrs.field(
        metadata=ruled(many("citations", "a Citation")), default=(), converter=_citations
    )
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()

    __cross_rules__ = (SPAN_WITHIN_TEXT,)


@attrs.frozen(kw_only=True)
class RefusalBlock(Value):
    """The model declined to answer; ``text`` says so in its words."""

    text: str = attrs.field(metadata=ruled(FREE_TEXT))
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class BytesSource(Value):
    """File content held inline; base64 on the JSON wire, raw ``bytes`` in Python (and in msgpack or CBOR)."""

    data: bytes = attrs.field(metadata=ruled(DATA), repr=bytes_repr)


@attrs.frozen(kw_only=True)
class UrlSource(Value):
    """File content at an absolute http(s) URL; the library never fetches it."""

    url: str = attrs.field(metadata=ruled(URL))


@attrs.frozen(kw_only=True)
class ReferenceSource(Value):
    """A file hosted by a provider or store: an Anthropic or OpenAI file id, a Gemini file URI, an S3 URI."""

    id: str = attrs.field(metadata=ruled(REFERENCE))
    provider: str | None = attrs.field(metadata=ruled(IDENTIFIER), default=None)


FileSource: TypeAlias = BytesSource | UrlSource | ReferenceSource


@attrs.frozen(kw_only=True)
class FileBlock(Value):
    """A file or media item (image, audio, PDF...) given inline, by URL or by a provider's reference.

    A document may carry a ``title`` and a ``context`` (what the model should know about it, which is not
    part of it), and ``citable`` says whether the model may cite it (``None``: the provider's default).
    """

    media_type: str = attrs.field(metadata=ruled(MEDIA_TYPE))
    source: FileSource = attrs.field(metadata=ruled(ONE_OF))
    filename: str | None = attrs.field(metadata=ruled(FILENAME), default=None)
    title: str | None = attrs.field(metadata=ruled(TITLE), default=None)
    context: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    citable: bool | None = attrs.field(metadata=ruled(FLAG), default=None)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class ReasoningBlock(Value):
    """The model's reasoning: visible ``text``, an opaque ``signature`` to send back, or ``redacted`` bytes.

    At least one is present; redacted reasoning carries neither text nor a signature.
    """

    text: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    signature: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    redacted: bytes | None = attrs.field(metadata=ruled(REDACTED), default=None, repr=bytes_repr)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()

    __cross_rules__ = (REASONING_SHAPE,)


@attrs.frozen(kw_only=True)
class ToolCallBlock(Value):
    """A request to run a tool; ``input`` is any JSON value (``None`` included), held read-only."""

    tool_call_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    tool_name: str = attrs.field(metadata=ruled(IDENTIFIER))
    input: Any = attrs.field(metadata=ruled(JSON_VALUE), eq=json_key)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class JsonBlock(Value):
    """A JSON value as content (structured tool output, a form's answers); held read-only."""

    value: Any = attrs.field(metadata=ruled(JSON_VALUE), eq=json_key)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class CompactionBlock(Value):
    """A compacted history segment: the provider replaced what came before it with this block.

    ``summary`` is the readable summary when the provider gives one (Anthropic does); the provider's state (an
    item id, encrypted content, a signature) lives in ``metadata`` with its issuer, as reasoning's does, and goes
    back only to that issuer. A compaction may have no summary: an OpenAI Responses compaction is encrypted
    state alone, and Anthropic sends ``null`` content for a compaction that failed.

    >>> import contentblocks as cb
    >>> cb.CompactionBlock(summary="The user asked for a trip plan; Oslo in May was agreed.").summary
    'The user asked for a trip plan; Oslo in May was agreed.'
    """

    summary: str | None = attrs.field(metadata=ruled(FREE_TEXT), default=None)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class SearchResultBlock(Value):
    """A search result given to the model as citable content: where it came from, its title and its text.

    ``source`` names the result as a citation names its source (a URL or an opaque id), so that a citation of
    it can be matched to it; ``content`` holds its text parts, in order (at least one). ``citable`` says whether
    the model may cite it (``None``: the provider's default). A tool returns them, or a user turn carries them.

    >>> import contentblocks as cb
    >>> result = cb.SearchResultBlock(source=cb.CitedUri(value="https://example.com/lawns"), title="Lawns",
    ...                               content=[cb.TextBlock(text="Grass is green.")], citable=True)
    >>> result.content[0].text
    'Grass is green.'
    """

    source: CitationSource = attrs.field(metadata=ruled(ONE_OF))
    title: str | None = attrs.field(metadata=ruled(TITLE), default=None)
    content: tuple[TextBlock, ...] = attrs.field(
        metadata=ruled(many("blocks", "a TextBlock", nonempty="a search result holds at least one text block")),
        converter=_texts,
    )
    citable: bool | None = attrs.field(metadata=ruled(FLAG), default=None)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


ToolResultContent: TypeAlias = TextBlock | FileBlock | JsonBlock | SearchResultBlock


@attrs.frozen(kw_only=True)
class ToolResultBlock(Value):
    """What a tool call produced: its ``outcome`` and content (text, files and JSON, in order; may be empty)."""

    tool_call_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    tool_name: str = attrs.field(metadata=ruled(IDENTIFIER))
    outcome: Outcome = attrs.field(metadata=ruled(choice(get_args(Outcome))))
    content: tuple[ToolResultContent, ...] = attrs.field(
        metadata=ruled(many("blocks", "a TextBlock, FileBlock, JsonBlock or SearchResultBlock")),
        default=(),
        converter=_result_content,
    )
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class ServerToolCallBlock(Value):
    """A tool the provider ran on its side (a web search, code execution, a remote MCP call): the model's call.

    It records what the model asked for; it asks nothing of the client: a conversation never waits for it
    (:meth:`Conversation.pending_tool_calls` leaves it out) and no tool message answers it. ``input`` is any JSON
    value, held read-only; state only the provider can read (an item id, encrypted content) rides in ``metadata``
    with its issuer.

    >>> import contentblocks as cb
    >>> cb.ServerToolCallBlock(tool_call_id="srv_1", tool_name="web_search", input={"query": "Oslo"}).tool_name
    'web_search'
    """

    tool_call_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    tool_name: str = attrs.field(metadata=ruled(IDENTIFIER))
    input: Any = attrs.field(metadata=ruled(JSON_VALUE), eq=json_key)
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


@attrs.frozen(kw_only=True)
class ServerToolResultBlock(Value):
    """What a tool the provider ran produced: its ``outcome`` and what a model can read of it, in order.

    The content is text (a program's output), files (a generated image, a file the code wrote) and JSON; what
    only the provider can read (encrypted search results, item ids) rides in ``metadata`` with its issuer. The
    block names its call's id and tool, and sits in the assistant message that holds the call or in a later one
    (a provider may pause a turn between the two).
    """

    tool_call_id: str = attrs.field(metadata=ruled(IDENTIFIER))
    tool_name: str = attrs.field(metadata=ruled(IDENTIFIER))
    outcome: Outcome = attrs.field(metadata=ruled(choice(get_args(Outcome))))
    content: tuple[ToolResultContent, ...] = attrs.field(
        metadata=ruled(many("blocks", "a TextBlock, FileBlock or JsonBlock")), default=(), converter=_result_content
    )
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()


Block: TypeAlias = (
    TextBlock
    | RefusalBlock
    | FileBlock
    | ReasoningBlock
    | ToolCallBlock
    | ToolResultBlock
    | JsonBlock
    | SearchResultBlock
    | ServerToolCallBlock
    | ServerToolResultBlock
    | CompactionBlock
    | ApprovalRequestBlock
    | ApprovalResponseBlock
)

# ---------------------------------------------------------------------------------------------- messages

#: The block classes each role may carry (SPEC §4).
ROLE_BLOCKS: dict[str, tuple[type, ...]] = {
    "system": (TextBlock,),
    "developer": (TextBlock,),
    "user": (TextBlock, FileBlock, JsonBlock, SearchResultBlock, ApprovalResponseBlock),
    "assistant": (
        TextBlock,
        RefusalBlock,
        FileBlock,
        ReasoningBlock,
        ToolCallBlock,
        JsonBlock,
        ServerToolCallBlock,
        ServerToolResultBlock,
        CompactionBlock,
        ApprovalRequestBlock,
    ),
    "tool": (ToolResultBlock, ApprovalResponseBlock),
}


def kind_name(cls: type) -> str:
    """The kind of block a class holds, as messages name it: ``TextBlock`` is ``text``, ``ToolCallBlock`` ``tool_call``.

    >>> kind_name(ToolResultBlock)
    'tool_result'
    """
    stem = cls.__name__.removesuffix("Block")
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(stem))


_ROLE_SETS = {role: frozenset(classes) for role, classes in ROLE_BLOCKS.items()}


def _role_table(problems: list[tuple[str, str]], path: str, role: object, content: object, given: object) -> None:
    """Each block must be of a kind the role may carry (a content string is one text block)."""
    if type(role) is not str or role not in ROLE_BLOCKS or type(content) is not tuple:
        return
    allowed = ROLE_BLOCKS[role]
    if _ROLE_SETS[role].issuperset(map(type, content)):
        return
    if type(given) is str:
        note = f"{with_article(role)} message cannot carry text (string content is a text block)"
        problems.append((f"{path}.content", note))
        return
    for i, block in enumerate(content):
        if isinstance(block, Value) and not isinstance(block, allowed):
            names = ", ".join(kind_name(c) for c in allowed)
            message = f"{with_article(role)} message cannot carry {kind_name(type(block))} blocks (allowed: {names})"
            problems.append((f"{path}.content[{i}]", message))


@attrs.frozen(kw_only=True)
class Message(Value):
    """One turn: a role and the blocks it carries (never empty).

    A string is shorthand for one text block, in Python as on the wire.

    >>> import contentblocks as cb
    >>> cb.Message(role="user", content="Hello").content
    (TextBlock(text='Hello', citations=(), cache=None, metadata=JsonObject({})),)
    """

    role: Role = attrs.field(metadata=ruled(choice(get_args(Role))))
    content: tuple[Block, ...] = attrs.field(
        metadata=ruled(many("blocks", "a block", nonempty="a message carries at least one block", shorthand=TextBlock)),
        converter=_content,
    )
    cache: CacheBreakpoint | None = attrs.field(metadata=ruled(ONE_OF), default=None)
    metadata: Mapping[str, Any] = metadata_field()

    __cross_rules__ = (
        CrossRule(
            ("role", "content"),
            _role_table,
            given=("content",),
            cannot_fail=CannotFail("allowed_types", "role", "content", _ROLE_SETS),
        ),
    )

    def text(self, sep: str = "") -> str:
        """The text of the message's text blocks, joined by ``sep`` (nothing by default); ``""`` when it has none.

        Refusals, reasoning and every other kind of block are left out.

        >>> import contentblocks as cb
        >>> reply = cb.Message(role="assistant", content=[
        ...     cb.ReasoningBlock(text="The user greets me."),
        ...     cb.TextBlock(text="Hello! "),
        ...     cb.TextBlock(text="How can I help?"),
        ... ])
        >>> reply.text()
        'Hello! How can I help?'
        """
        return sep.join([b.text for b in self.content if isinstance(b, TextBlock)])

    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The message's tool calls, in order (an assistant message asks for them to be run).

        >>> import contentblocks as cb
        >>> reply = cb.Message(role="assistant", content=[
        ...     cb.TextBlock(text="Checking."),
        ...     cb.ToolCallBlock(tool_call_id="c1", tool_name="weather", input={"city": "Oslo"}),
        ... ])
        >>> [call.tool_name for call in reply.tool_calls()]
        ['weather']
        """
        return tuple(b for b in self.content if isinstance(b, ToolCallBlock))

    def tool_results(self) -> tuple[ToolResultBlock, ...]:
        """The message's tool results, in order (a tool message carries them).

        >>> import contentblocks as cb
        >>> sunny = [cb.TextBlock(text="Sunny")]
        >>> result = cb.ToolResultBlock(tool_call_id="c1", tool_name="weather", outcome="succeeded", content=sunny)
        >>> answer = cb.Message(role="tool", content=[result])
        >>> [result.tool_call_id for result in answer.tool_results()]
        ['c1']
        """
        return tuple(b for b in self.content if isinstance(b, ToolResultBlock))


resolve_annotations(globals())
