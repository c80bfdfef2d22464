"""Hypothesis strategies for blocks, built from the leaf strategies; re-exported by :mod:`contentblocks.strategies`.

Strategies are built once (cached by their options) and reused inside the composites: building and validating
a strategy costs far more than drawing from it.
"""

from __future__ import annotations

from functools import cache
from typing import Any, get_args

from hypothesis import strategies as st

from .._checks._grammar import TTL_MAX
from .._model._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BlockRange,
    BytesSource,
    CacheBreakpoint,
    CharacterRange,
    Citation,
    CitationLocation,
    CitedReference,
    CitedUri,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Outcome,
    PageRange,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    SearchResultBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultContent,
    UrlSource,
)
from ._values import (
    binaries,
    filenames,
    free_texts,
    identifiers,
    json_values,
    media_types,
    metadata,
    opaque_references,
    redacted_binaries,
    trimmed_texts,
    uris,
    urls,
)

__all__ = [
    "OUTCOMES",
    "approval_request_blocks",
    "approval_response_blocks",
    "blocks",
    "cache_breakpoints",
    "citation_locations",
    "citations",
    "compaction_blocks",
    "file_blocks",
    "file_sources",
    "json_blocks",
    "kind_strategies",
    "reasoning_blocks",
    "refusal_blocks",
    "search_result_blocks",
    "text_blocks",
    "tool_call_blocks",
    "tool_result_blocks",
    "tool_result_shapes",
    "up_to",
]

OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

_CITATION_SOURCES = st.one_of(
    uris().map(lambda v: CitedUri(value=v)),
    opaque_references().map(lambda v: CitedReference(value=v)),
)
_TITLES = st.one_of(st.none(), trimmed_texts())
_QUOTES = st.one_of(st.none(), free_texts(max_size=20))
_BOOLEANS = st.booleans()
_NO_MORE_THAN = [st.integers(0, n) for n in range(9)]
_BREAKPOINTS = st.builds(
    CacheBreakpoint, ttl=st.one_of(st.none(), st.sampled_from([1, 300, 3600, TTL_MAX]), st.integers(1, TTL_MAX))
)
#: A block's or message's cache field: absent three times in four, as in real prompts.
_CACHES = st.one_of(st.none(), st.none(), st.none(), _BREAKPOINTS)


def cache_breakpoints(*, optional: bool = False) -> st.SearchStrategy[CacheBreakpoint | None]:
    """Cache breakpoints: no time to live, the providers' usual ones (300, 3600 seconds), and any up to the bound.

    With ``optional``, mostly ``None``, as a block's or message's ``cache`` field is.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.cache_breakpoints())
    ... def check(breakpoint):
    ...     assert breakpoint.ttl is None or breakpoint.ttl >= 1
    >>> check()
    """
    return _CACHES if optional else _BREAKPOINTS


def up_to(draw: st.DrawFn, n: int) -> int:
    return draw(_NO_MORE_THAN[n] if n < len(_NO_MORE_THAN) else st.integers(0, n))


@st.composite
def _location(draw: st.DrawFn) -> CitationLocation:
    kinds: tuple[type[PageRange | CharacterRange | BlockRange], ...] = (PageRange, CharacterRange, BlockRange)
    kind = draw(st.sampled_from(kinds))
    first = 1 if kind is PageRange else 0
    start = draw(st.one_of(st.integers(first, first + 3), st.integers(first, 2**31)))
    return kind(start=start, end=start + draw(st.one_of(st.integers(1, 3), st.integers(1, 2**20))))


def citation_locations() -> st.SearchStrategy[CitationLocation]:
    """Locations in a cited document: page, character and content-block ranges, small and large.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.citation_locations())
    ... def check(location):
    ...     assert 0 <= location.start < location.end
    >>> check()
    """
    return _location()


_LOCATIONS = st.one_of(st.none(), _location())
#: How many further sources a citation names: most name one source, some two or three.
_OTHER_SOURCES = st.sampled_from((0, 0, 0, 1, 2))


@st.composite
def _citation(draw: st.DrawFn, text: str | None) -> Citation:
    source = draw(_CITATION_SOURCES)
    title = draw(_TITLES)
    quote = draw(_QUOTES)
    start = end = None
    if text is not None and draw(_BOOLEANS):
        end = draw(st.integers(0, len(text)))
        start = draw(st.integers(0, end))
    location = draw(_LOCATIONS)
    others = tuple(draw(_CITATION_SOURCES) for _ in range(draw(_OTHER_SOURCES)))
    return Citation(source=source, other_sources=others, title=title, quote=quote, start=start, end=end,
                    location=location)


def citations(text: str | None = None) -> st.SearchStrategy[Citation]:
    """Citations to URIs and opaque references; with ``text``, some carry a span that fits it, without it none do.

    Spans count code points of ``text`` (Python string indices): ``0 <= start <= end <= len(text)``.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.citations("Paris"))
    ... def check(citation):
    ...     assert citation.start is None or 0 <= citation.start <= citation.end <= 5
    >>> check()
    """
    return _citation(text)


@st.composite
def _text_block(draw: st.DrawFn, max_text_size: int, max_citations: int) -> TextBlock:
    text = draw(free_texts(max_size=max_text_size))
    cite = _citation(text)
    cited = tuple(draw(cite) for _ in range(up_to(draw, max_citations)))
    return TextBlock(text=text, citations=cited, cache=draw(_CACHES), metadata=draw(metadata()))


@cache
def text_blocks(*, max_text_size: int = 40, max_citations: int = 3) -> st.SearchStrategy[TextBlock]:
    """Text blocks (whitespace-only, NUL, astral and CJK text included), some with citations and metadata.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.text_blocks(max_text_size=5))
    ... def check(block):
    ...     assert 1 <= len(block.text) <= 5
    >>> check()
    """
    return _text_block(max_text_size, max_citations)


@cache
def refusal_blocks(*, max_text_size: int = 40) -> st.SearchStrategy[RefusalBlock]:
    """Refusal blocks.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.refusal_blocks())
    ... def check(block):
    ...     assert block.text
    >>> check()
    """
    return st.builds(RefusalBlock, text=free_texts(max_size=max_text_size), cache=_CACHES, metadata=metadata())


_URL_SOURCES = urls().map(lambda url: UrlSource(url=url))
_REFERENCE_SOURCES = st.builds(
    ReferenceSource,
    id=opaque_references(),
    provider=st.one_of(st.none(), st.sampled_from(["anthropic", "openai", "gemini", "s3"]), identifiers()),
)


@cache
def file_sources(*, max_binary_size: int = 64) -> st.SearchStrategy[BytesSource | UrlSource | ReferenceSource]:
    """File sources: inline bytes (0-3 bytes often, around base64 padding), http(s) URLs, provider references.

    >>> from hypothesis import given, settings
    >>> import contentblocks as cb
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.file_sources(max_binary_size=3))
    ... def check(source):
    ...     assert not isinstance(source, cb.BytesSource) or len(source.data) <= 3
    >>> check()
    """
    inline = binaries(max_size=max_binary_size).map(lambda data: BytesSource(data=data))
    return st.one_of(inline, _URL_SOURCES, _REFERENCE_SOURCES)


@st.composite
def _file_block(draw: st.DrawFn, max_binary_size: int) -> FileBlock:
    source = draw(file_sources(max_binary_size=max_binary_size))
    # A "*" subtype is for a URL whose exact type is unknown; inline bytes and references get exact types.
    media_type = draw(media_types(wildcard=type(source) is UrlSource))
    filename = draw(st.one_of(st.none(), filenames()))
    title = context = citable = None
    if draw(_BOOLEANS):  # a document: a title, a context, whether it may be cited
        title, context = draw(_TITLES), draw(_QUOTES)
        citable = draw(st.one_of(st.none(), _BOOLEANS))
    return FileBlock(media_type=media_type, source=source, filename=filename, title=title, context=context,
                     citable=citable, cache=draw(_CACHES), metadata=draw(metadata()))


@cache
def file_blocks(*, max_binary_size: int = 64) -> st.SearchStrategy[FileBlock]:
    """File blocks of every source kind, with RFC 6838 media types (parameters, ``image/*`` for URLs).

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.file_blocks())
    ... def check(block):
    ...     assert "/" in block.media_type
    >>> check()
    """
    return _file_block(max_binary_size)


_SIGNATURE_EXTRAS = st.sampled_from(["EqQBCkgIARABGAIiQL", "sig"])
_SHAPES = st.sampled_from(["text", "signature", "text+signature", "redacted"])


@st.composite
def _reasoning_block(draw: st.DrawFn, max_text_size: int, max_binary_size: int) -> ReasoningBlock:
    shape = draw(_SHAPES)
    text = signature = redacted = None
    texts = free_texts(max_size=max_text_size)
    if "text" in shape:
        text = draw(texts)
    if "signature" in shape:
        signature = draw(st.one_of(texts, _SIGNATURE_EXTRAS))
    if shape == "redacted":
        redacted = draw(redacted_binaries(max_size=max_binary_size))
    return ReasoningBlock(
        text=text, signature=signature, redacted=redacted, cache=draw(_CACHES), metadata=draw(metadata())
    )


@cache
def reasoning_blocks(*, max_text_size: int = 40, max_binary_size: int = 64) -> st.SearchStrategy[ReasoningBlock]:
    """Reasoning in all four shapes: text only, signature only, text and signature, redacted bytes only.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.reasoning_blocks())
    ... def check(block):
    ...     assert block.redacted is None or (block.text is None and block.signature is None)
    >>> check()
    """
    return _reasoning_block(max_text_size, max_binary_size)


@cache
def compaction_blocks(*, max_text_size: int = 40) -> st.SearchStrategy[CompactionBlock]:
    """Compactions with a readable summary or none (state alone, in the metadata, as OpenAI's are).

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.compaction_blocks())
    ... def check(block):
    ...     assert block.summary is None or block.summary != ""
    >>> check()
    """
    summaries = st.none() | free_texts(max_size=max_text_size)
    return st.builds(CompactionBlock, summary=summaries, cache=_CACHES, metadata=metadata())


def approval_request_blocks(*, tool_call_id: str | None = None) -> st.SearchStrategy[ApprovalRequestBlock]:
    """Approval requests; ``tool_call_id`` fixes the call they name (a conversation needs it in the same message).

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.approval_request_blocks(tool_call_id="call_1"))
    ... def check(block):
    ...     assert block.tool_call_id == "call_1"
    >>> check()
    """
    return st.builds(
        ApprovalRequestBlock,
        approval_id=identifiers(),
        tool_call_id=identifiers() if tool_call_id is None else st.just(tool_call_id),
        cache=_CACHES,
        metadata=metadata(),
    )


def approval_response_blocks(
    *, approval_id: str | None = None, max_text_size: int = 40
) -> st.SearchStrategy[ApprovalResponseBlock]:
    """Decisions on approval requests, approved or denied, with a reason or none; ``approval_id`` fixes the request.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.approval_response_blocks(approval_id="ap_1"))
    ... def check(block):
    ...     assert block.approval_id == "ap_1" and block.approved in (True, False)
    >>> check()
    """
    return st.builds(
        ApprovalResponseBlock,
        approval_id=identifiers() if approval_id is None else st.just(approval_id),
        approved=st.booleans(),
        reason=st.none() | free_texts(max_size=max_text_size),
        cache=_CACHES,
        metadata=metadata(),
    )


@st.composite
def _tool_call_block(draw: st.DrawFn, tool_call_id: str | None, tool_name: str | None, max_depth: int) -> ToolCallBlock:
    return ToolCallBlock(
        tool_call_id=draw(identifiers()) if tool_call_id is None else tool_call_id,
        tool_name=draw(identifiers()) if tool_name is None else tool_name,
        input=draw(json_values(max_depth=max_depth)),
        cache=draw(_CACHES),
        metadata=draw(metadata()),
    )


def tool_call_blocks(
    *, tool_call_id: str | None = None, tool_name: str | None = None, max_depth: int = 4
) -> st.SearchStrategy[ToolCallBlock]:
    """Tool calls with any JSON ``input`` (``None`` included); ``tool_call_id`` and ``tool_name`` fix those fields.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.tool_call_blocks(tool_name="get_weather"))
    ... def check(block):
    ...     assert block.tool_name == "get_weather"
    >>> check()
    """
    return _tool_call_block(tool_call_id, tool_name, max_depth)


@cache
def json_blocks(*, max_depth: int = 4, max_leaves: int = 20) -> st.SearchStrategy[JsonBlock]:
    """JSON blocks holding any JSON value (``None``, ``-0.0``, 64-bit integers, nested containers).

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.json_blocks(max_depth=0))
    ... def check(block):
    ...     assert not isinstance(block.value, (list, dict))
    >>> check()
    """
    return st.builds(
        JsonBlock, value=json_values(max_depth=max_depth, max_leaves=max_leaves), cache=_CACHES, metadata=metadata()
    )


@st.composite
def _search_result_block(draw: st.DrawFn, max_text_size: int, max_parts: int) -> SearchResultBlock:
    part = text_blocks(max_text_size=max_text_size, max_citations=1)
    return SearchResultBlock(
        source=draw(_CITATION_SOURCES),
        title=draw(_TITLES),
        content=tuple(draw(part) for _ in range(1 + up_to(draw, max_parts - 1))),
        citable=draw(st.one_of(st.none(), _BOOLEANS)),
        cache=draw(_CACHES),
        metadata=draw(metadata()),
    )


@cache
def search_result_blocks(*, max_text_size: int = 40, max_parts: int = 3) -> st.SearchStrategy[SearchResultBlock]:
    """Search results naming a URI or an opaque reference, some titled, with 1 to ``max_parts`` text parts.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.search_result_blocks(max_parts=2))
    ... def check(block):
    ...     assert 1 <= len(block.content) <= 2
    >>> check()
    """
    return _search_result_block(max_text_size, max_parts)


@cache
def _result_content(max_text_size: int, max_binary_size: int) -> st.SearchStrategy[ToolResultContent]:
    return st.one_of(
        text_blocks(max_text_size=max_text_size, max_citations=1),
        file_blocks(max_binary_size=max_binary_size),
        json_blocks(max_depth=3, max_leaves=10),
        search_result_blocks(max_text_size=max_text_size, max_parts=2),
    )


_OUTCOMES = st.sampled_from(OUTCOMES)


@st.composite
def _tool_result_block(
    draw: st.DrawFn, tool_call_id: str | None, tool_name: str | None, max_content: int, max_text_size: int,
    max_binary_size: int,
) -> ToolResultBlock:
    item = _result_content(max_text_size, max_binary_size)
    return ToolResultBlock(
        tool_call_id=draw(identifiers()) if tool_call_id is None else tool_call_id,
        tool_name=draw(identifiers()) if tool_name is None else tool_name,
        outcome=draw(_OUTCOMES),
        content=tuple(draw(item) for _ in range(up_to(draw, max_content))),
        cache=draw(_CACHES),
        metadata=draw(metadata()),
    )


def tool_result_blocks(
    *, tool_call_id: str | None = None, tool_name: str | None = None, max_content: int = 3,
    max_text_size: int = 40, max_binary_size: int = 64,
) -> st.SearchStrategy[ToolResultBlock]:
    """Tool results with every outcome and 0 to ``max_content`` text, file, JSON and search result blocks.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.tool_result_blocks(tool_call_id="call_1", max_content=1))
    ... def check(block):
    ...     assert block.tool_call_id == "call_1" and len(block.content) <= 1
    >>> check()
    """
    return _tool_result_block(tool_call_id, tool_name, max_content, max_text_size, max_binary_size)


def server_tool_call_blocks(
    *, tool_name: str | None = None, max_depth: int = 4
) -> st.SearchStrategy[ServerToolCallBlock]:
    """Calls of tools the provider runs, with any JSON ``input``; ``tool_name`` fixes the tool.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.server_tool_call_blocks(tool_name="web_search"))
    ... def check(block):
    ...     assert block.tool_name == "web_search"
    >>> check()
    """
    return st.builds(
        ServerToolCallBlock,
        tool_call_id=identifiers(),
        tool_name=identifiers() if tool_name is None else st.just(tool_name),
        input=json_values(max_depth=max_depth),
        cache=_CACHES,
        metadata=metadata(),
    )


def server_tool_result_blocks(
    *, max_content: int = 3, max_text_size: int = 40, max_binary_size: int = 64
) -> st.SearchStrategy[ServerToolResultBlock]:
    """Results of tools the provider ran: every outcome, 0 to ``max_content`` text, file and JSON blocks.

    >>> from hypothesis import given, settings
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.server_tool_result_blocks(max_content=1))
    ... def check(block):
    ...     assert len(block.content) <= 1
    >>> check()
    """
    item = _result_content(max_text_size, max_binary_size)
    return st.builds(
        ServerToolResultBlock,
        tool_call_id=identifiers(),
        tool_name=identifiers(),
        outcome=_OUTCOMES,
        content=st.lists(item, max_size=max_content).map(tuple),
        cache=_CACHES,
        metadata=metadata(),
    )


@cache
def kind_strategies(max_text_size: int, max_binary_size: int) -> dict[type, st.SearchStrategy[Any]]:
    return {
        TextBlock: text_blocks(max_text_size=max_text_size),
        RefusalBlock: refusal_blocks(max_text_size=max_text_size),
        FileBlock: file_blocks(max_binary_size=max_binary_size),
        ReasoningBlock: reasoning_blocks(max_text_size=max_text_size, max_binary_size=max_binary_size),
        ToolCallBlock: tool_call_blocks(),
        ToolResultBlock: tool_result_blocks(max_text_size=max_text_size, max_binary_size=max_binary_size),
        JsonBlock: json_blocks(),
        ServerToolCallBlock: server_tool_call_blocks(),
        ServerToolResultBlock: server_tool_result_blocks(max_text_size=max_text_size, max_binary_size=max_binary_size),
        CompactionBlock: compaction_blocks(max_text_size=max_text_size),
        SearchResultBlock: search_result_blocks(max_text_size=max_text_size),
        ApprovalRequestBlock: approval_request_blocks(),
        ApprovalResponseBlock: approval_response_blocks(max_text_size=max_text_size),
    }


@cache
def blocks(*, max_text_size: int = 40, max_binary_size: int = 64) -> st.SearchStrategy[Block]:
    """Blocks of every kind.

    >>> from hypothesis import given, settings
    >>> import contentblocks as cb
    >>> from contentblocks import strategies
    >>> @settings(max_examples=10, database=None)
    ... @given(strategies.blocks())
    ... def check(block):
    ...     assert cb.structure(cb.unstructure(block), cb.Block) == block
    >>> check()
    """
    return st.one_of(list(kind_strategies(max_text_size, max_binary_size).values()))


def tool_result_shapes(max_text_size: int, max_binary_size: int) -> st.SearchStrategy[ToolResultBlock]:
    """Tool results whose id and name are placeholders, for callers that set them (conversations)."""
    return _tool_result_block("-", "-", 3, max_text_size, max_binary_size)
