"""Token estimates with no network and no tokenizer: bytes per token by kind, per-provider constants.

An estimate is for budgeting (what :func:`~contentblocks.window` keeps), not billing: text costs its UTF-8
bytes over the provider's bytes per token, JSON its compact text, images their published formula when the
bytes give the dimensions, PDFs a cost per page. A caller with an exact tokenizer passes it as ``count_text``
(``len(encoding.encode(text))`` for tiktoken) and it is used for every piece of text; this module imports none.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from math import ceil
from typing import Any
from weakref import ref

import attrs

from .._model._classes import (
    BytesSource,
    CompactionBlock,
    FileBlock,
    JsonBlock,
    Message,
    ReasoningBlock,
    RefusalBlock,
    SearchResultBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._model._conversation import Conversation
from ._images import image_size, image_tokens, pdf_pages

__all__ = ["PROFILES", "Profile", "TokenEstimator", "estimate_tokens"]


@attrs.frozen(kw_only=True)
class Profile:
    """One provider's constants for estimates (see ``docs/history.md`` for where each comes from).

    Attributes:
        family: whose image formula applies: ``"anthropic"``, ``"openai"`` or ``"gemini"``.
        bytes_per_token: UTF-8 bytes of text per token (about 4 for English, fewer tokens per byte for CJK).
        per_message: the tokens each message adds for its role and separators.
        per_tool_block: the tokens a tool call or result adds for its name, id and wrapping.
        image: the tokens of an image whose dimensions are not known (a URL, a reference, an unread format).
        pdf_page: the tokens of a PDF page (its text and, where the provider sends it, its image).
        file: the tokens of any other file that is not sent inline as text.
        tool_prompt: the tokens the provider adds to a request that sends tool definitions (Anthropic's
            tool-use system prompt: 346 with ``tool_choice`` auto on current models, 313 with any or tool).
    """

    family: str
    bytes_per_token: float
    per_message: int
    per_tool_block: int
    image: int
    pdf_page: int
    file: int
    tool_prompt: int = 0


_OPENAI = Profile(family="openai", bytes_per_token=4.0, per_message=4, per_tool_block=10, image=765, pdf_page=1000,
                  file=256)

#: The constants of each provider ``TokenEstimator`` knows; ``None`` is the default (OpenAI's).
PROFILES: Mapping[str | None, Profile] = {
    None: _OPENAI,
    "anthropic": Profile(family="anthropic", bytes_per_token=3.5, per_message=4, per_tool_block=12, image=1600,
                         pdf_page=2300, file=256, tool_prompt=346),
    "gemini": Profile(family="gemini", bytes_per_token=4.0, per_message=2, per_tool_block=8, image=1032,
                      pdf_page=258, file=256),
    "openai_chat": _OPENAI,
    "openai_responses": _OPENAI,
}


def _count_text_argument(value: object) -> Callable[[str], int] | None:
    if value is not None and not callable(value):
        msg = f"count_text must be a callable from a string to its token count, or None, got {type(value).__name__}"
        raise TypeError(msg)
    return value


def _provider_argument(value: object) -> str | None:
    if value not in PROFILES:
        names = ", ".join(sorted(str(k) for k in PROFILES if k is not None))
        msg = f"provider must be one of {names} or None, got {value!r}"
        raise ValueError(msg)
    return value  # type: ignore[return-value]


#: A value's compact JSON text (one encoder, made once: ``json.dumps`` with options makes one a call).
_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class _Memo:
    """Estimates by message identity: ``id(message)`` to a weak reference to it and its estimate.

    An agent loop windows its history every turn with one estimator, so each message is estimated once,
    not once a turn. Messages are immutable, so an estimate stays right while the message lives; the weak
    reference tells a live message from a new one that took a dead one's id, and holds no message alive.
    Entries of dead messages are swept when the memo has doubled since the last sweep, so it stays within
    about twice the messages alive.
    """

    __slots__ = ("entries", "sweep_at")

    def __init__(self) -> None:
        self.entries: dict[int, tuple[ref[Message], int]] = {}
        self.sweep_at = 1024

    def sweep(self) -> dict[int, tuple[ref[Message], int]]:
        """Drop the entries of dead messages; the next sweep is when the memo has doubled again."""
        self.entries = entries = {k: v for k, v in self.entries.items() if v[0]() is not None}
        self.sweep_at = max(1024, 2 * len(entries))
        return entries


@attrs.frozen
class TokenEstimator:
    """A message's estimated tokens for a provider: ``estimator(message)``, the estimator ``window`` takes.

    ``count_text`` is the hook for an exact tokenizer: a callable from a string to its token count, used for
    every piece of text (text, reasoning, refusals, tool inputs and JSON as their compact JSON text) instead of
    the bytes-per-token rule. Files are costed by formula either way.

    >>> import contentblocks as cb
    >>> estimate = cb.TokenEstimator("anthropic")
    >>> estimate(cb.Message(role="user", content="How many tokens is this sentence, roughly?"))
    16
    >>> words = cb.TokenEstimator("openai_chat", count_text=lambda text: len(text.split()))
    >>> words(cb.Message(role="user", content="How many tokens is this sentence, roughly?"))
    11

    .. versionadded:: 2026.12.0
    """

    provider: str | None = attrs.field(default=None, converter=_provider_argument)
    count_text: Callable[[str], int] | None = attrs.field(default=None, kw_only=True,
                                                          converter=_count_text_argument)
    #: The constants in use, looked up once.
    profile: Profile = attrs.field(init=False, repr=False, eq=False,
                                   default=attrs.Factory(lambda self: PROFILES[self.provider], takes_self=True))
    #: The estimates of the messages seen, by object identity.
    memo: _Memo = attrs.field(init=False, repr=False, eq=False, factory=_Memo)

    def text(self, text: str) -> int:
        """The tokens of a piece of text."""
        if self.count_text is not None:
            return self.count_text(text)
        return ceil((len(text) if text.isascii() else _utf8_size(text)) / self.profile.bytes_per_token)

    def file(self, block: FileBlock) -> int:
        """The tokens of a file, and of the title and context a document sends beside it.

        An image costs its formula, a PDF its pages, inline text its text.
        """
        described = sum(self.text(text) for text in (block.title, block.context) if text is not None)
        return described + self._content(block)

    def _content(self, block: FileBlock) -> int:
        profile = self.profile
        media_type = block.media_type.lower()
        data = block.source.data if isinstance(block.source, BytesSource) else None
        if media_type.startswith("image/"):
            size = image_size(data) if data is not None else None
            return profile.image if size is None else image_tokens(profile.family, *size)
        if media_type == "application/pdf":
            pages = pdf_pages(data) if data is not None else None
            return profile.pdf_page * (pages or 1)
        if data is not None and media_type.startswith("text/"):
            return self.text(data.decode("utf-8", "replace"))
        return profile.file

    def block(self, block: Any) -> int:
        """The tokens of one block."""
        kind = type(block)
        if kind is TextBlock or kind is RefusalBlock:
            return self.text(block.text)
        if kind is ToolCallBlock or kind is ServerToolCallBlock:
            return self.profile.per_tool_block + self.text(block.tool_name) + self.text(_json(block.input))
        if kind is ToolResultBlock or kind is ServerToolResultBlock:
            return self.profile.per_tool_block + sum(map(self.block, block.content))
        if kind is ReasoningBlock:
            return self.text(block.text) if block.text is not None else self.text(block.signature or "") + (
                len(block.redacted) // 4 if block.redacted else 0)
        if kind is JsonBlock:
            return self.text(_json(block.value))
        if kind is FileBlock:
            return self.file(block)
        if kind is CompactionBlock:  # its summary; its state is opaque, what it expands to unknown: counted as 0
            return self.text(block.summary) if block.summary is not None else 0
        if kind is SearchResultBlock:  # its text parts, and the title and source the provider shows beside them
            return self.text(f"{block.title or ''}{block.source.value}") + sum(map(self.block, block.content))
        return 0

    def __call__(self, message: Message) -> int:
        """The tokens of a message: its blocks and the per-message overhead, remembered for the message object."""
        memo = self.memo
        entries = memo.entries
        key = id(message)
        known = entries.get(key)
        if known is not None and known[0]() is message:
            return known[1]
        tokens = self.profile.per_message
        if self.count_text is None:
            rate = self.profile.bytes_per_token
            for block in message.content:
                if type(block) is TextBlock:  # most blocks: ``text`` inline
                    text = block.text
                    tokens += ceil((len(text) if text.isascii() else _utf8_size(text)) / rate)
                else:
                    tokens += self.block(block)
        else:
            tokens += sum(map(self.block, message.content))
        if len(entries) >= memo.sweep_at:
            entries = memo.sweep()
        entries[key] = (ref(message), tokens)
        return tokens

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied as its arguments: the memo holds weak references, and a copy starts its own."""
        return _rebuild, (self.provider, self.count_text)

    def tools(self, definitions: Iterable[Mapping[str, Any]]) -> int:
        """The tokens of tool definitions (each a JSON object: name, description, schema).

        OpenAI's are costed as the TypeScript namespace its models read them in, the others as their JSON
        text. A request with at least one definition also costs the profile's ``tool_prompt`` (Anthropic's
        tool-use system prompt), once.
        """
        definitions = list(definitions)
        if not definitions:
            return 0
        if self.profile.family == "openai":  # OpenAI renders definitions as TypeScript types, terser than JSON
            return self.profile.tool_prompt + self.text(_typescript(definitions))
        costs = [self.profile.per_tool_block + self.text(_json(definition)) for definition in definitions]
        return self.profile.tool_prompt + sum(costs)


def _typescript(definitions: Sequence[Mapping[str, Any]]) -> str:
    """Function definitions as the TypeScript namespace OpenAI's models read them in (the tokens they cost).

    >>> print(_typescript([{"name": "get_weather", "description": "Weather now", "parameters": {
    ...     "type": "object", "required": ["city"], "properties": {
    ...         "city": {"type": "string", "description": "City name"},
    ...         "unit": {"type": "string", "enum": ["c", "f"]}}}}]))
    # Tools
    <BLANKLINE>
    ## functions
    <BLANKLINE>
    namespace functions {
    <BLANKLINE>
    // Weather now
    type get_weather = (_: {
    // City name
    city: string,
    unit?: "c" | "f",
    }) => any;
    <BLANKLINE>
    } // namespace functions
    """
    lines = ["# Tools", "", "## functions", "", "namespace functions {", ""]
    for definition in definitions:
        name, description = definition.get("name", ""), definition.get("description")
        schema = definition.get("parameters")
        if description:
            lines.append(f"// {description}")
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(properties, Mapping) or not properties:
            lines += [f"type {name} = () => any;", ""]
            continue
        required = schema.get("required") or ()  # type: ignore[union-attr]
        lines.append(f"type {name} = (_: {{")
        for key, value in properties.items():
            if isinstance(value, Mapping) and value.get("description"):
                lines.append(f"// {value['description']}")
            lines.append(f"{key}{'' if key in required else '?'}: {_typescript_type(value)},")
        lines += ["}) => any;", ""]
    lines.append("} // namespace functions")
    return "\n".join(lines)


_SCALARS = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}


def _typescript_type(schema: object) -> str:
    """A JSON Schema as the TypeScript type OpenAI writes for it; what has no short form stays JSON."""
    if not isinstance(schema, Mapping):
        return "any"
    if isinstance(schema.get("enum"), list):
        return " | ".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"{_typescript_type(schema.get('items'))}[]"
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    return _json(schema)


def _rebuild(provider: str | None, count_text: Callable[[str], int] | None) -> TokenEstimator:
    return TokenEstimator(provider, count_text=count_text)


def estimate_tokens(
    history: Conversation | Sequence[Message] | Message,
    *,
    provider: str | None = None,
    count_text: Callable[[str], int] | None = None,
    tools: Iterable[Mapping[str, Any]] = (),
) -> int:
    """The estimated input tokens of a history (and of the tool definitions sent with it) for ``provider``.

    A shorthand for summing :class:`TokenEstimator` over the messages; see it for ``count_text``.

    >>> import contentblocks as cb
    >>> history = [cb.Message(role="user", content="Hello there!"), cb.Message(role="assistant", content="Hi!")]
    >>> cb.estimate_tokens(history, provider="gemini")
    8
    >>> cb.estimate_tokens(history, provider="gemini", tools=[{"name": "search", "parameters": {}}])
    25

    .. versionadded:: 2026.12.0
    """
    estimator = TokenEstimator(provider, count_text=count_text)
    messages = (history,) if isinstance(history, Message) else history
    return sum(map(estimator, messages)) + estimator.tools(tools)
