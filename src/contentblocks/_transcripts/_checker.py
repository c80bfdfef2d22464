"""Checking conversations in bulk: one check for the command line, a process pool and a distributed engine.

:func:`check_conversation` checks one parsed conversation. A :class:`Checker` holds a set of limits and checks
parsed values, JSON texts and the lines of a JSON Lines dataset. It pickles as its limits alone, so a process
pool or a distributed engine (Dask, Ray, Spark) ships it to its workers cheaply, and each copy builds its
converter on first use. ``_checkfiles`` applies it to the files ``contentblocks check`` reads.
"""

from __future__ import annotations

import functools
import importlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal, NamedTuple, TypeAlias, get_args

import attrs
from cattrs import Converter

from .._api import parse_json
from .._checks._rules import DEFAULT_LIMITS, Limits
from .._conversion._converter import make_converter, structure_parsed
from .._errors import ValidationError
from .._json._values import EMPTY_OBJECT, _object_from_items
from .._model._classes import ServerToolResultBlock, ToolResultBlock, kind_name
from .._model._conversation import Conversation

__all__ = [
    "INPUT_FORMATS",
    "CheckResult",
    "Checker",
    "InputFormat",
    "Problem",
    "check_conversation",
    "count_blocks",
    "failed",
    "unreadable",
    "with_format_hint",
    "without_newline",
]

InputFormat: TypeAlias = Literal["contentblocks", "openai_chat", "anthropic", "gemini", "openai_responses"]
"""What a checked conversation is written in: the wire format, or a provider's request (read by its adapter)."""

#: Every input format, the wire format first.
INPUT_FORMATS: tuple[InputFormat, ...] = get_args(InputFormat)

#: What a failed conversation's problems say about the format it is in: (what a problem says, the format).
_FORMAT_SIGNS: tuple[tuple[str, str, InputFormat], ...] = (
    (".tool_calls", "unknown key", "openai_chat"),
    (".tool_call_id", "unknown key", "openai_chat"),
    (".weight", "unknown key", "openai_chat"),
    (".type", 'unknown block type "image_url"', "openai_chat"),
    (".type", 'unknown block type "input_audio"', "openai_chat"),
    (".type", 'unknown block type "tool_use"', "anthropic"),
    (".type", 'unknown block type "thinking"', "anthropic"),
    (".type", 'unknown block type "image"', "anthropic"),
    (".type", 'unknown block type "document"', "anthropic"),
    (".parts", "unknown key", "gemini"),
    (".type", 'unknown block type "input_text"', "openai_responses"),
    (".type", 'unknown block type "function_call"', "openai_responses"),
)


def format_hint(problems: Iterable[Problem]) -> str | None:
    """A hint naming the provider format that problems of a wire-format check point to, or None.

    >>> format_hint([Problem("$.messages[2].tool_calls", "unknown key (a message has: role, content, metadata)")])
    'these look like openai_chat requests: check them with --input-format openai_chat'
    """
    for path, message in problems:
        for end, start, input_format in _FORMAT_SIGNS:
            if path.endswith(end) and message.startswith(start):
                return f"these look like {input_format} requests: check them with --input-format {input_format}"
    return None


def with_format_hint(result: CheckResult) -> CheckResult:
    """``result``, with the hint its problems give (see ``format_hint``), if any."""
    hint = format_hint(result.problems)
    return result if hint is None else attrs.evolve(result, hint=hint)


_JSON_SPACE = " \t\r\n"
_JSON_SPACE_BYTES = b" \t\r\n"


class Problem(NamedTuple):
    """One problem: the JSON path of the value at fault, from the checked value (``$``), and what is wrong."""

    path: str
    message: str


@attrs.frozen
class CheckResult:
    """What checking one conversation (one value, one line) found.

    Attributes:
        problems: the problems kept, in the order found (at most the limits' ``max_errors``).
        omitted: how many more problems were found than ``problems`` holds.
        unreadable: the text is not JSON that the strict parser accepts (not UTF-8, a syntax error, a
            duplicate key, NaN, a number of more than 4,300 digits, nesting too deep to parse);
            ``problems`` then holds one problem saying why.
        messages: the messages of a valid conversation (0 when it has problems).
        blocks: the blocks of a valid conversation by kind, tool results' parts included (a read-only mapping,
            in the order of the kinds' names).
        hint: what the problems suggest, when they point to another way of reading the input (a provider's
            format, or one conversation a line): not a problem, and not counted as one.

    .. versionadded:: 2026.11.0
    """

    problems: tuple[Problem, ...] = ()
    omitted: int = 0
    unreadable: bool = False
    messages: int = 0
    blocks: Mapping[str, int] = attrs.field(default=EMPTY_OBJECT, hash=False)
    hint: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the conversation is valid (nothing was found)."""
        return not self.problems and not self.omitted


@functools.lru_cache(maxsize=16)
def _converter_for(limits: Limits) -> Converter:
    """One converter per set of limits in a process: every Checker with these limits shares it."""
    return make_converter(**attrs.asdict(limits))


class Checker:
    """Checks conversations against the wire format with one set of limits, or a provider's requests.

    With ``input_format`` set to an adapter's name (``"openai_chat"``, ``"anthropic"``, ``"gemini"``,
    ``"openai_responses"``), each conversation is that provider's request payload (an OpenAI fine-tuning line,
    ``{"messages": [...], "tools": [...]}`` with ``weight`` and ``tool_calls``, is an ``openai_chat`` request),
    read by the adapter's ``from_provider``: its problems are the adapter's, at paths into the payload. Limits
    other than the defaults then apply to the conversation read, and its problems say so.

    A checker pickles as its limits and format: a process pool or a distributed engine sends it to each worker,
    where it builds its converter the first time it checks something. It holds no other state, so one checker
    can serve many threads.

    >>> import contentblocks as cb
    >>> checker = cb.Checker(cb.Limits(max_text_chars=5))
    >>> result = checker.check_line('[{"role": "user", "content": "hi"}]')
    >>> result.ok, result.messages, result.blocks
    (True, 1, JsonObject({'text': 1}))
    >>> checker.check_line('{"messages": [{"role": "user", "content": "hello!"}], "id": 7}').problems
    (Problem(path='$.messages[0].content', message='longer than 5 characters'),)
    >>> checker.check_line('[{"role": "user"').unreadable
    True
    >>> line = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo", "weight": 0}]}'
    >>> cb.Checker().check_line(line).hint
    'these look like openai_chat requests: check them with --input-format openai_chat'
    >>> cb.Checker(input_format="openai_chat").check_line(line).messages
    2

    .. versionadded:: 2026.11.0
    """

    __slots__ = ("_converter", "_input_format", "_limits")

    def __init__(self, limits: Limits | None = None, *, input_format: InputFormat = "contentblocks") -> None:
        if limits is None:
            limits = DEFAULT_LIMITS
        elif type(limits) is not Limits:
            msg = f"limits must be a contentblocks.Limits, not {type(limits).__name__}"
            raise TypeError(msg)
        if input_format not in INPUT_FORMATS:
            msg = f"input_format must be one of {', '.join(INPUT_FORMATS)}, not {input_format!r}"
            raise ValueError(msg)
        self._limits = limits
        self._input_format: InputFormat = input_format
        self._converter: Converter | None = None

    @property
    def limits(self) -> Limits:
        """The limits every check of this checker enforces."""
        return self._limits

    @property
    def input_format(self) -> InputFormat:
        """What the checked conversations are written in (``"contentblocks"``: the wire format)."""
        return self._input_format

    def __reduce__(self) -> tuple[Any, tuple[Limits, InputFormat]]:
        return (_checker, (self._limits, self._input_format))

    def __repr__(self) -> str:
        if self._input_format == "contentblocks":
            return f"Checker({self._limits!r})"
        return f"Checker({self._limits!r}, input_format={self._input_format!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Checker:
            return NotImplemented
        return other._limits == self._limits and other._input_format == self._input_format

    def __hash__(self) -> int:
        return hash((self._limits, self._input_format))

    def converter(self) -> Converter:
        """The converter enforcing these limits (built on first use, shared by checkers with equal limits)."""
        converter = self._converter
        if converter is None:
            converter = self._converter = _converter_for(self._limits)
        return converter

    def check(self, data: object) -> CheckResult:
        """Check one parsed conversation: an array of messages, or an object with a ``"messages"`` array.

        An object's other keys are ignored (fine-tuning datasets keep ``tools`` or an id beside the messages);
        its problems' paths start with ``$.messages``. ``data`` is not changed.
        """
        return self._check(data, consume=False)

    def check_line(self, line: str | bytes) -> CheckResult:
        """Check the JSON text of one conversation (a line of a dataset), as :meth:`check` checks it parsed.

        Text that is not JSON gives an ``unreadable`` result; whitespace around the value is allowed.
        """
        try:
            data = parse_json(line)
        except ValidationError as e:
            return unreadable(e)
        return self._check(data, consume=True)

    def check_lines(self, lines: Iterable[str | bytes], *, start: int = 1) -> Iterator[tuple[int, CheckResult]]:
        r"""Check each line of a JSON Lines dataset: ``(line number, result)`` for each line that is not blank.

        Lines are numbered from ``start``; a line may end with its newline (as files and ``dask.bag.read_text``
        give them), which is dropped. A blank line (JSON whitespace only) holds no conversation and is skipped.

        >>> import contentblocks as cb
        >>> lines = ['[{"role": "user", "content": "hi"}]\n', "\n", '[{"role": "robot", "content": "hi"}]\n']
        >>> [(number, result.ok) for number, result in cb.Checker().check_lines(lines)]
        [(1, True), (3, False)]
        """
        for number, line in enumerate(lines, start):
            text = without_newline(line)
            if text is not None:
                yield number, self.check_line(text)

    def _check(self, data: object, *, consume: bool) -> CheckResult:
        if self._input_format != "contentblocks":
            return self._check_request(data)
        value, prefix = data, "$"
        if isinstance(data, dict):  # read through dict's own methods: a subclass's overrides never run
            if not dict.__contains__(data, "messages"):
                hint = 'required key missing (a conversation is an array of messages or {"messages": [...]})'
                return CheckResult(problems=(Problem("$.messages", hint),))
            value, prefix = dict.__getitem__(data, "messages"), "$.messages"
        converter = self.converter()
        try:
            if consume:
                conversation = structure_parsed(converter, value, Conversation)
            else:
                conversation = converter.structure(value, Conversation)
        except ValidationError as e:
            return with_format_hint(failed(e, prefix))
        return _counted(conversation)

    def _check_request(self, data: object) -> CheckResult:
        """A provider's request payload, read by its adapter (and held to these limits, where not the defaults)."""
        adapter = importlib.import_module(f"contentblocks.providers.{self._input_format}")
        try:
            conversation = adapter.from_provider(data)
        except ValidationError as e:
            return failed(e)
        if self._limits != DEFAULT_LIMITS:
            converter = self.converter()
            try:
                conversation = converter.structure(converter.unstructure(conversation), Conversation)
            except ValidationError as e:
                problems = tuple(Problem(p, f"{m} (in the conversation read from the request)") for p, m in e.errors)
                return CheckResult(problems=problems, omitted=e.omitted)
        return _counted(conversation)


def _checker(limits: Limits, input_format: InputFormat) -> Checker:
    """A checker made again from what it pickles as."""
    return Checker(limits, input_format=input_format)


def _counted(conversation: Conversation) -> CheckResult:
    kinds: Counter[str] = Counter()
    for message in conversation:
        count_blocks(kinds, message.content)
    return CheckResult(messages=len(conversation), blocks=_object_from_items(sorted(kinds.items())))


def without_newline(line: str | bytes) -> str | bytes | None:
    """A line without its newline (so that its parse errors say "line 1" however it was read); None if blank."""
    if isinstance(line, str):
        text = line.rstrip("\r\n")
        return text if text.strip(_JSON_SPACE) else None
    data = line.rstrip(b"\r\n")
    return data if data.strip(_JSON_SPACE_BYTES) else None


def check_conversation(data: object, *, limits: Limits | None = None) -> tuple[Problem, ...]:
    """The problems of one parsed conversation (an array of messages or ``{"messages": [...]}``); ``()`` if valid.

    At most ``limits.max_errors`` problems are returned; :meth:`Checker.check` also counts the rest.

    >>> import contentblocks as cb
    >>> cb.check_conversation([{"role": "user", "content": "hi"}])
    ()
    >>> cb.check_conversation({"messages": [{"role": "user", "content": ""}], "tools": []})
    (Problem(path='$.messages[0].content', message='must not be empty'),)

    .. versionadded:: 2026.11.0
    """
    return Checker(limits).check(data).problems


def unreadable(error: ValidationError) -> CheckResult:
    """The result for a text that ``parse_json`` refused (its error holds one problem, at ``$``)."""
    return CheckResult(problems=(Problem(*error.errors[0]),), unreadable=True)


def failed(error: ValidationError, prefix: str = "$") -> CheckResult:
    """The result for a value the converter refused, its paths under ``prefix``."""
    return CheckResult(problems=tuple(Problem(*p) for p in error.prefixed(prefix)), omitted=error.omitted)


def count_blocks(kinds: Counter[str], blocks: Iterable[object]) -> None:
    """Count ``blocks`` by kind into ``kinds``, with the parts of tool results (a provider's tools' too)."""
    for block in blocks:
        kinds[kind_name(type(block))] += 1
        if type(block) is ToolResultBlock or type(block) is ServerToolResultBlock:
            count_blocks(kinds, block.content)
