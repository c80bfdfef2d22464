"""Hypothesis strategies that build valid blocks, messages and conversations, for property-based tests.

Every strategy returns a ``SearchStrategy`` of Python objects built through the classes, so every rule of
the wire format holds for what it draws. They lean towards the content that breaks serialisers: NUL, astral
and CJK characters, whitespace-only text, binary sizes around base64's padding, identifiers of 1 and 256
characters, media types with parameters, every tool outcome and every shape of reasoning.

This module needs Hypothesis (``pip install contentblocks[hypothesis]``); the rest of the library does not.

>>> from hypothesis import given, settings
>>> import contentblocks as cb
>>> from contentblocks import strategies
>>> @settings(max_examples=25, deadline=None, database=None)
... @given(strategies.conversations(max_messages=4))
... def test_round_trip(conversation):
...     assert cb.structure(cb.unstructure(conversation), cb.Conversation) == conversation
>>> test_round_trip()

.. versionadded:: 2026.11.0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from ._blocks import (
    Block,
    BytesSource,
    Citation,
    CitedReference,
    CitedUri,
    FileBlock,
    JsonBlock,
    ReasoningBlock,
    ReferenceSource,
    RefusalBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultContent,
    UrlSource,
)
from ._messages import ROLE_BLOCKS, Conversation, Message
from ._strategies_values import (
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
    "blocks",
    "citations",
    "conversations",
    "file_blocks",
    "file_sources",
    "json_blocks",
    "json_values",
    "messages",
    "metadata",
    "reasoning_blocks",
    "refusal_blocks",
    "text_blocks",
    "tool_call_blocks",
    "tool_result_blocks",
]

ROLES = tuple(ROLE_BLOCKS)
OUTCOMES = ("succeeded", "failed", "denied")


@st.composite
def _citation(draw: st.DrawFn, text: str | None) -> Citation:
    source = draw(st.one_of(
        uris().map(lambda v: CitedUri(value=v)),
        opaque_references().map(lambda v: CitedReference(value=v)),
    ))
    title = draw(st.one_of(st.none(), trimmed_texts()))
    quote = draw(st.one_of(st.none(), free_texts(max_size=20)))
    start = end = None
    if text is not None and draw(st.booleans()):
        end = draw(st.integers(0, len(text)))
        start = draw(st.integers(0, end))
    return Citation(source=source, title=title, quote=quote, start=start, end=end)


def citations(text: str | None = None) -> st.SearchStrategy[Citation]:
    """Citations; with ``text``, some carry a span that fits it (code point offsets), without it none do.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> citation = find(strategies.citations("Paris"), lambda c: c.start is not None and c.end > c.start)
    >>> 0 <= citation.start < citation.end <= len("Paris")
    True
    """
    return _citation(text)


@st.composite
def _text_block(draw: st.DrawFn, max_text_size: int, max_citations: int) -> TextBlock:
    text = draw(free_texts(max_size=max_text_size))
    cited = draw(st.lists(_citation(text), max_size=max_citations))
    return TextBlock(text=text, citations=cited, metadata=draw(metadata()))


def text_blocks(*, max_text_size: int = 40, max_citations: int = 3) -> st.SearchStrategy[TextBlock]:
    """Text blocks (whitespace-only and NUL-bearing text included), some with citations and metadata.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.text_blocks(), lambda b: b.text.isspace()).text.isspace()
    True
    """
    return _text_block(max_text_size, max_citations)


def refusal_blocks(*, max_text_size: int = 40) -> st.SearchStrategy[RefusalBlock]:
    """Refusal blocks.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> type(find(strategies.refusal_blocks(), lambda b: True)).__name__
    'RefusalBlock'
    """
    return st.builds(RefusalBlock, text=free_texts(max_size=max_text_size), metadata=metadata())


def _bytes_sources(max_binary_size: int) -> st.SearchStrategy[BytesSource]:
    return binaries(max_size=max_binary_size).map(lambda data: BytesSource(data=data))


_URL_SOURCES = urls().map(lambda url: UrlSource(url=url))
_REFERENCE_SOURCES = st.builds(
    ReferenceSource,
    id=opaque_references(),
    provider=st.one_of(st.none(), st.sampled_from(["anthropic", "openai", "gemini", "s3"]), identifiers()),
)


def file_sources(*, max_binary_size: int = 64) -> st.SearchStrategy[BytesSource | UrlSource | ReferenceSource]:
    """File sources: inline bytes (0-3 bytes often, for base64 padding), http(s) URLs, provider references.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.file_sources(), lambda s: hasattr(s, "url")).url.startswith("http")
    True
    """
    return st.one_of(_bytes_sources(max_binary_size), _URL_SOURCES, _REFERENCE_SOURCES)


@st.composite
def _file_block(draw: st.DrawFn, max_binary_size: int) -> FileBlock:
    source = draw(file_sources(max_binary_size=max_binary_size))
    # A "*" subtype names a URL whose exact type is unknown; inline bytes and references get exact types.
    media_type = draw(media_types(wildcard=isinstance(source, UrlSource)))
    filename = draw(st.one_of(st.none(), filenames()))
    return FileBlock(media_type=media_type, source=source, filename=filename, metadata=draw(metadata()))


def file_blocks(*, max_binary_size: int = 64) -> st.SearchStrategy[FileBlock]:
    """File blocks of every source kind, with RFC 6838 media types (parameters, ``image/*`` for URLs).

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.file_blocks(), lambda b: b.filename is not None).filename != ""
    True
    """
    return _file_block(max_binary_size)


@st.composite
def _reasoning_block(draw: st.DrawFn, max_text_size: int, max_binary_size: int) -> ReasoningBlock:
    shape = draw(st.sampled_from(["text", "signature", "text+signature", "redacted"]))
    text = signature = redacted = None
    if "text" in shape:
        text = draw(free_texts(max_size=max_text_size))
    if "signature" in shape:
        signature = draw(st.one_of(free_texts(max_size=max_text_size), st.sampled_from(["EqQBCkgIARABGAIiQL", "sig"])))
    if shape == "redacted":
        redacted = draw(redacted_binaries(max_size=max_binary_size))
    return ReasoningBlock(text=text, signature=signature, redacted=redacted, metadata=draw(metadata()))


def reasoning_blocks(*, max_text_size: int = 40, max_binary_size: int = 64) -> st.SearchStrategy[ReasoningBlock]:
    """Reasoning in all four shapes: text only, signature only, text and signature, redacted bytes only.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.reasoning_blocks(), lambda b: b.redacted is not None).text is None
    True
    """
    return _reasoning_block(max_text_size, max_binary_size)


@st.composite
def _tool_call_block(draw: st.DrawFn, tool_call_id: str | None, tool_name: str | None, max_depth: int) -> ToolCallBlock:
    return ToolCallBlock(
        tool_call_id=draw(identifiers()) if tool_call_id is None else tool_call_id,
        tool_name=draw(identifiers()) if tool_name is None else tool_name,
        input=draw(json_values(max_depth=max_depth)),
        metadata=draw(metadata()),
    )


def tool_call_blocks(
    *, tool_call_id: str | None = None, tool_name: str | None = None, max_depth: int = 4
) -> st.SearchStrategy[ToolCallBlock]:
    """Tool calls with any JSON ``input`` (``None`` included); ``tool_call_id``/``tool_name`` fix those fields.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.tool_call_blocks(tool_name="get_weather"), lambda b: True).tool_name
    'get_weather'
    """
    return _tool_call_block(tool_call_id, tool_name, max_depth)


def json_blocks(*, max_depth: int = 4, max_leaves: int = 20) -> st.SearchStrategy[JsonBlock]:
    """JSON blocks holding any JSON value (``None``, ``-0.0``, 64-bit integers, nested containers).

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.json_blocks(), lambda b: isinstance(b.value, dict) and b.value).value != {}
    True
    """
    return st.builds(JsonBlock, value=json_values(max_depth=max_depth, max_leaves=max_leaves), metadata=metadata())


def _result_content(max_text_size: int, max_binary_size: int) -> st.SearchStrategy[ToolResultContent]:
    return st.one_of(
        text_blocks(max_text_size=max_text_size, max_citations=1),
        file_blocks(max_binary_size=max_binary_size),
        json_blocks(max_depth=3, max_leaves=10),
    )


@st.composite
def _tool_result_block(
    draw: st.DrawFn, tool_call_id: str | None, tool_name: str | None, max_content: int, max_text_size: int,
    max_binary_size: int,
) -> ToolResultBlock:
    return ToolResultBlock(
        tool_call_id=draw(identifiers()) if tool_call_id is None else tool_call_id,
        tool_name=draw(identifiers()) if tool_name is None else tool_name,
        outcome=draw(st.sampled_from(OUTCOMES)),
        content=draw(st.lists(_result_content(max_text_size, max_binary_size), max_size=max_content)),
        metadata=draw(metadata()),
    )


def tool_result_blocks(
    *, tool_call_id: str | None = None, tool_name: str | None = None, max_content: int = 3,
    max_text_size: int = 40, max_binary_size: int = 64,
) -> st.SearchStrategy[ToolResultBlock]:
    """Tool results with every outcome and 0 to ``max_content`` text, file and JSON blocks.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.tool_result_blocks(), lambda b: b.outcome == "denied").content
    ()
    """
    return _tool_result_block(tool_call_id, tool_name, max_content, max_text_size, max_binary_size)


def _kind_strategies(max_text_size: int, max_binary_size: int) -> dict[type, st.SearchStrategy[Any]]:
    return {
        TextBlock: text_blocks(max_text_size=max_text_size),
        RefusalBlock: refusal_blocks(max_text_size=max_text_size),
        FileBlock: file_blocks(max_binary_size=max_binary_size),
        ReasoningBlock: reasoning_blocks(max_text_size=max_text_size, max_binary_size=max_binary_size),
        ToolCallBlock: tool_call_blocks(),
        ToolResultBlock: tool_result_blocks(max_text_size=max_text_size, max_binary_size=max_binary_size),
        JsonBlock: json_blocks(),
    }


def blocks(*, max_text_size: int = 40, max_binary_size: int = 64) -> st.SearchStrategy[Block]:
    """Blocks of every kind.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> type(find(strategies.blocks(), lambda b: hasattr(b, "outcome"))).__name__
    'ToolResultBlock'
    """
    return st.one_of(list(_kind_strategies(max_text_size, max_binary_size).values()))


def _check_roles(roles: Iterable[str] | None) -> tuple[str, ...]:
    chosen = ROLES if roles is None else tuple(roles)
    unknown = [r for r in chosen if r not in ROLE_BLOCKS]
    if unknown or not chosen:
        msg = f"roles must be a non-empty selection of {', '.join(ROLES)}"
        raise ValueError(msg)
    return chosen


@st.composite
def _message(draw: st.DrawFn, roles: tuple[str, ...], max_blocks: int, max_text_size: int, max_binary_size: int) -> Message:
    role = draw(st.sampled_from(roles))
    kinds = _kind_strategies(max_text_size, max_binary_size)
    allowed = ROLE_BLOCKS[role]
    if TextBlock in allowed and draw(st.integers(0, 4)) == 0:
        # the string shorthand for one text block
        return Message(role=role, content=draw(free_texts(max_size=max_text_size)), metadata=draw(metadata()))
    block = st.one_of([kinds[cls] for cls in allowed])
    content = draw(st.lists(block, min_size=1, max_size=max_blocks))
    return Message(role=role, content=content, metadata=draw(metadata()))


def messages(
    roles: Iterable[str] | None = None, *, max_blocks: int = 4, max_text_size: int = 40, max_binary_size: int = 64
) -> st.SearchStrategy[Message]:
    """Messages of the given roles (all by default), each carrying 1 to ``max_blocks`` blocks its role allows.

    Raises:
        ValueError: when ``roles`` is empty or names an unknown role.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> find(strategies.messages(roles=["tool"]), lambda m: True).content[0].outcome in {"succeeded", "failed", "denied"}
    True
    """
    return _message(_check_roles(roles), max_blocks, max_text_size, max_binary_size)


def _fresh_id(draw: st.DrawFn, used: set[str]) -> str:
    """A tool call id not used yet in the conversation (a drawn one, suffixed when it collides)."""
    drawn = draw(identifiers())
    candidate, n = drawn, 0
    while candidate in used:
        n += 1
        suffix = f"~{n}"
        candidate = drawn[: 256 - len(suffix)] + suffix
    used.add(candidate)
    return candidate


_ASSISTANT_KINDS = (TextBlock, RefusalBlock, FileBlock, ReasoningBlock, ToolCallBlock, JsonBlock)


@st.composite
def _conversation(draw: st.DrawFn, max_messages: int, max_text_size: int, max_binary_size: int) -> Conversation:
    kinds = _kind_strategies(max_text_size, max_binary_size)
    used: set[str] = set()
    open_calls: list[tuple[str, str]] = []
    out: list[Message] = []
    for _ in range(draw(st.integers(0, max_messages))):
        role = draw(st.sampled_from(ROLES if open_calls else tuple(r for r in ROLES if r != "tool")))
        if role == "tool":
            picked = draw(st.lists(st.sampled_from(range(len(open_calls))), min_size=1, max_size=3, unique=True))
            results = [
                draw(tool_result_blocks(tool_call_id=open_calls[i][0], tool_name=open_calls[i][1],
                                        max_text_size=max_text_size, max_binary_size=max_binary_size))
                for i in picked
            ]
            open_calls = [call for i, call in enumerate(open_calls) if i not in picked]
            out.append(Message(role="tool", content=results, metadata=draw(metadata())))
        elif role == "assistant":
            content: list[Block] = []
            for cls in draw(st.lists(st.sampled_from(_ASSISTANT_KINDS), min_size=1, max_size=4)):
                if cls is ToolCallBlock:
                    call = draw(tool_call_blocks(tool_call_id=_fresh_id(draw, used)))
                    open_calls.append((call.tool_call_id, call.tool_name))
                    content.append(call)
                else:
                    content.append(draw(kinds[cls]))
            out.append(Message(role="assistant", content=content, metadata=draw(metadata())))
        else:
            out.append(draw(messages(roles=[role], max_text_size=max_text_size, max_binary_size=max_binary_size)))
    return Conversation(messages=out)


def conversations(
    max_messages: int = 8, *, max_text_size: int = 40, max_binary_size: int = 64
) -> st.SearchStrategy[Conversation]:
    """Conversations with tool calls paired to results.

    Call ids are unique across the conversation; every result answers an earlier call with the same id and
    name, at most once; some calls stay unanswered.

    >>> from hypothesis import find
    >>> from contentblocks import strategies
    >>> conversation = find(strategies.conversations(), lambda c: any(m.role == "tool" for m in c))
    >>> [m.role for m in conversation]
    ['assistant', 'tool']
    """
    return _conversation(max_messages, max_text_size, max_binary_size)

