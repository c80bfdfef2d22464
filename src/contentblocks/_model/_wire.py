"""The wire description: the tags that tell union members apart, and the few keys their fields do not imply.

Everything else about the wire form is read off the model: an object's keys are its attrs fields' names,
in field order, after its tag; a key whose field has a default may be left out, and is left out on the way
out when it holds its default (``None``, an empty tuple, empty metadata), unless ``ALWAYS_WRITTEN`` names it.
"""

from __future__ import annotations

from typing import NewType

import attrs

from .._errors import with_article
from ._classes import (
    ApprovalRequestBlock,
    ApprovalResponseBlock,
    Block,
    BlockRange,
    BytesSource,
    CharacterRange,
    CitationLocation,
    CitationSource,
    CitedReference,
    CitedUri,
    CompactionBlock,
    FileBlock,
    FileSource,
    JsonBlock,
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
from ._conversation import Conversation

__all__ = [
    "ALWAYS_WRITTEN",
    "ARRAYS",
    "SEARCH_RESULT_CONTENT",
    "TAGGED",
    "UNIONS",
    "Union",
    "keys_of",
    "listing",
    "union_of",
]

#: What a search result's ``content`` holds, as a union of one member: its items carry their ``type`` tag, and
#: a union checks it (a lone class nested in a list is read without looking at the tag). A name of its own,
#: since the class itself already stands for its own structuring.
SEARCH_RESULT_CONTENT = NewType("SEARCH_RESULT_CONTENT", TextBlock)


@attrs.frozen
class Union:
    """A union of the wire: the key its members' tags are under, and each member by its tag.

    ``where`` names the tag in messages ("unknown block type"); ``holder`` names what holds a member of a
    wider union that this one excludes ("a tool result cannot hold refusal blocks").
    """

    name: str
    alias: object
    key: str
    members: dict[str, type]
    where: str
    noun: str
    holder: str = ""


UNIONS: tuple[Union, ...] = (
    Union(
        "Block",
        Block,
        "type",
        {
            "text": TextBlock,
            "refusal": RefusalBlock,
            "file": FileBlock,
            "reasoning": ReasoningBlock,
            "tool_call": ToolCallBlock,
            "tool_result": ToolResultBlock,
            "json": JsonBlock,
            "server_tool_call": ServerToolCallBlock,
            "server_tool_result": ServerToolResultBlock,
            "compaction": CompactionBlock,
            "search_result": SearchResultBlock,
            "approval_request": ApprovalRequestBlock,
            "approval_response": ApprovalResponseBlock,
        },
        where="block type",
        noun="block",
    ),
    Union(
        "ToolResultContent",
        ToolResultContent,
        "type",
        {"text": TextBlock, "file": FileBlock, "json": JsonBlock, "search_result": SearchResultBlock},
        where="block type",
        noun="block",
        holder="a tool result",
    ),
    Union(
        "SearchResultContent",
        SEARCH_RESULT_CONTENT,
        "type",
        {"text": TextBlock},
        where="block type",
        noun="block",
        holder="a search result",
    ),
    Union(
        "FileSource",
        FileSource,
        "type",
        {"base64": BytesSource, "url": UrlSource, "reference": ReferenceSource},
        where="source type",
        noun="source",
    ),
    Union(
        "CitationSource",
        CitationSource,
        "kind",
        {"uri": CitedUri, "reference": CitedReference},
        where="citation source kind",
        noun="citation source",
    ),
    Union(
        "CitationLocation",
        CitationLocation,
        "kind",
        {"pages": PageRange, "characters": CharacterRange, "blocks": BlockRange},
        where="citation location kind",
        noun="location",
    ),
)

#: Each tagged class: its union's tag key, its tag and the noun it goes by ("text", "block").
TAGGED: dict[type, tuple[str, str, str]] = {}
for _union in UNIONS:
    for _tag, _cls in _union.members.items():
        TAGGED.setdefault(_cls, (_union.key, _tag, _union.noun))

#: Keys written and required even though their field has a default in Python (SPEC §3: a tool result's
#: content is always present, and may be empty).
ALWAYS_WRITTEN: dict[type, frozenset[str]] = {
    ToolResultBlock: frozenset({"content"}),
    ServerToolResultBlock: frozenset({"content"}),
}

#: Classes whose wire form is a bare array of one field's items.
ARRAYS: dict[type, str] = {Conversation: "messages"}


def union_of(alias: object) -> Union | None:
    """The wire union for a type alias (``cb.Block``...), or None."""
    for union in UNIONS:
        if alias is union.alias or (type(alias) is type(union.alias) and alias == union.alias):
            return union
    return None


def keys_of(cls: type) -> tuple[str, ...]:
    """The wire keys of a class's objects, in the order they are written: its tag key, then its fields."""
    tag = TAGGED.get(cls)
    names = tuple(field.name for field in attrs.fields(cls))
    return names if tag is None else (tag[0], *names)


def listing(cls: type) -> str:
    """The words that list an object's keys, for an unknown key: ``a text block has: type, text, ...``."""
    tag = TAGGED.get(cls)
    spaced = "".join(f" {c}" if c.isupper() and i else c for i, c in enumerate(cls.__name__)).lower()
    what = with_article(spaced) if tag is None else f"{with_article(tag[1])} {tag[2]}"
    return f"{what} has: {', '.join(keys_of(cls))}"
