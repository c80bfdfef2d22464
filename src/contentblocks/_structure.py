"""Structure hooks: raw dicts and lists in, checked blocks out, every problem reported with its path.

``StructureHooks`` builds, once per converter, the hook for each class and each union, on top of the bodies
of ``_bodies``. A hook gathers every problem of its value and raises one ``ValidationError`` listing them
with JSON paths from the value passed in (``$``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._accel import MISS, speedups
from ._blocks import Citation, CitedReference, CitedUri, TextBlock
from ._bodies import KEYS, TAGS, Bodies
from ._errors import ValidationError, describe_type, preview, with_article
from ._fields import (
    MISSING,
    Problems,
    as_object,
    foreign_key,
    objects_past_cap,
    prefix_since,
    string_problem,
    unknown_keys,
)
from ._json import EMPTY_OBJECT, plain_container
from ._messages import ROLE_BLOCKS, Conversation, Message, check_roles, conversation_problems
from ._readers import Body
from ._rules import Limits, check_uri, find_surrogate
from ._unchecked import unchecked

__all__ = ["KEYS", "StructureHooks", "message_reader"]

_MESSAGE_KEYS = frozenset(KEYS[Message])
_MESSAGE_LISTING = f"a message has: {', '.join(KEYS[Message])}"
_ROLE_CLASSES = {role: frozenset(classes) for role, classes in ROLE_BLOCKS.items()}
_ROLE_LIST = ", ".join(ROLE_BLOCKS)


class StructureHooks:
    """Every structure hook for one converter, built once for its limits and binary mode."""

    def __init__(self, limits: Limits, *, native_binary: bool) -> None:
        self.limits = limits
        self.bodies = bodies = Bodies(limits, native_binary=native_binary)
        self.max_errors = limits.max_errors
        #: The Python message body, the reference; ``message`` tries the C reader first where there is one.
        self.python_message = self._message_body(bodies)
        self.message = _read_first(message_reader(bodies, limits), self.python_message)

    def fail(self, problems: Problems) -> ValidationError:
        """One ValidationError for the problems of a top-level value (their paths gain the ``$`` root)."""
        shown = problems[: self.max_errors]
        return ValidationError(
            [("$" + path, message) for path, message in shown],
            omitted=len(problems) - len(shown),
            max_errors=self.max_errors,
        )

    def refuse_foreign(self, value: object) -> None:
        """Raise the ValidationError for a key of ``value`` that is not a ``str``, if it has one (see ``foreign_key``).

        Called when structuring ``value`` raised something other than a ValidationError: a key's own
        ``__hash__`` or ``__eq__`` may have raised it, or changed a dict being read. Without such a key, the
        exception was not the input's doing, and the caller lets it go through.
        """
        problem = foreign_key(value)
        if problem is not None:
            raise self.fail([problem]) from None

    def hook(self, body: Body, cls: type | None = None) -> Any:
        """A cattrs structure hook running ``body`` on a top-level value (checking its tag for a class)."""
        fail = self.fail
        refuse_foreign = self.refuse_foreign
        tag_key = "kind" if cls in (CitedUri, CitedReference) else "type"
        expected = TAGS.get(cls) if cls is not None else None

        def structure(value: object, _cls: object = None) -> Any:
            problems: Problems = []
            try:
                raw = value if type(value) is dict else as_object(value, "", problems)
                result = None
                if raw is not None:
                    tag = raw.get(tag_key, MISSING)
                    if expected is not None and (type(tag) is not str or tag != expected):
                        problems.append((f".{tag_key}", f"expected {preview(expected)}"))
                    result = body(raw, problems)
            except Exception:
                refuse_foreign(value)
                raise
            if problems:
                raise fail(problems)
            return result

        structure.__name__ = f"structure_{cls.__name__ if cls is not None else 'union'}"
        return structure

    def for_class(self, cls: type) -> Any:
        """The hook for one class (a block, source, citation or message)."""
        body = self.message if cls is Message else self.bodies.by_class[cls]
        return self.hook(body, cls)

    def _message_body(self, bodies: Bodies) -> Body:  # noqa: C901 - one flat hook
        block = bodies.block
        tagged_items = bodies.tagged_items
        block_get = bodies.block_bodies.get
        metadata = bodies.metadata
        role_classes = _ROLE_CLASSES
        max_chars = self.limits.max_text_chars
        new_message = unchecked(Message)
        new_text = unchecked(TextBlock)
        cap = self.limits.max_errors
        surrogate = find_surrogate
        message_fits = _MESSAGE_KEYS.issuperset

        def message(raw: dict[str, Any], problems: Problems) -> Message:
            if not message_fits(raw):
                unknown_keys(problems, "", raw, _MESSAGE_KEYS, _MESSAGE_LISTING, cap)
            role = raw.get("role", MISSING)
            allowed = role_classes.get(role) if type(role) is str else None
            if allowed is None:
                problems.append(
                    (".role", "required key missing" if role is MISSING else f"expected one of: {_ROLE_LIST}")
                )
            content = raw.get("content", MISSING)
            blocks: tuple[Any, ...] = ()
            if type(content) is str:
                if content and len(content) <= max_chars and (content.isascii() or not surrogate(content)):
                    blocks = (new_text(content, (), EMPTY_OBJECT),)
                else:
                    string_problem(problems, ".content", content, max_chars)
                if allowed is not None and TextBlock not in allowed:
                    note = f"{with_article(role)} message cannot carry text (string content is a text block)"
                    problems.append((".content", note))
            elif content is MISSING:
                problems.append((".content", "required key missing"))
            elif type(content) is not list and plain_container(content)[0] != 2:
                problems.append((".content", f"expected a string or an array of blocks, got {describe_type(content)}"))
            else:
                before = len(problems)
                blocks = tagged_items(content, ".content", problems, block_get, block)
                if not blocks and len(problems) == before:
                    problems.append((".content", "a message carries at least one block"))
                if allowed is not None and not allowed.issuperset(map(type, blocks)):
                    check_roles(problems, ".content", role, blocks)
            meta = EMPTY_OBJECT if "metadata" not in raw else metadata(raw, problems)
            return new_message(role, blocks, meta)  # type: ignore[no-any-return]

        return message

    def structure_conversation(self, value: object, _cls: object = None) -> Conversation:
        """The hook for ``Conversation``: an array of messages, then tool-call pairing."""
        return self.conversation(value, consume=False)

    def structure_parsed_conversation(self, value: object, parse: Callable[[Any], Any] | None = None) -> Conversation:
        """The hook for ``Conversation`` on a value just parsed, which no other code holds (``loads``).

        Each message's dicts are dropped from the array once it is structured, so the parsed tree shrinks as
        the blocks are built and its memory is reused for them, instead of both trees living until the end.
        With ``parse``, ``value`` holds the texts of the messages (see ``conversation``).
        """
        return self.conversation(value, consume=type(value) is list, parse=parse)

    def conversation(self, value: object, *, consume: bool, parse: Callable[[Any], Any] | None = None) -> Conversation:
        """An array of messages, then tool-call pairing.

        With ``consume``, ``value`` (a list) is emptied as its messages are structured. With ``parse``, each
        item is the text of a message, parsed when its turn comes (whatever ``parse`` raises goes through).
        """
        problems: Problems = []
        kind, array = plain_container(value)
        if kind != 2:  # an array
            raise self.fail([("", f"expected an array of messages, got {describe_type(value)}")])
        try:
            messages = self._messages(array, problems, consume=consume, parse=parse)
        except Exception:
            if parse is None:  # parsed text holds no foreign object
                self.refuse_foreign(value)
            raise
        if not problems:
            conversation_problems(problems, messages)
            if problems:
                raise ValidationError(problems, max_errors=self.max_errors)
        if problems:
            raise self.fail(problems)
        return unchecked(Conversation)(tuple(messages))  # type: ignore[no-any-return]

    def _messages(
        self, array: Any, problems: Problems, *, consume: bool, parse: Callable[[Any], Any] | None
    ) -> list[Message]:
        """The messages of ``array`` (see ``conversation``), their problems added to ``problems``."""
        message = self.message
        messages: list[Message] = []
        cap = self.max_errors
        for i, item in enumerate(array):
            raw: dict[str, Any] | None
            if parse is not None:
                item = parse(item)  # noqa: PLW2901 - the same item, parsed
            if type(item) is dict:
                raw = item
            elif len(problems) >= cap:  # the rest is counted, not shown: no paths to work out
                rest = array if parse is None else [item, *map(parse, array[i + 1 :])]
                start = i if parse is None else 0
                messages.extend(message(obj, problems) for obj in objects_past_cap(rest, start, "", problems))
                break
            else:
                raw = as_object(item, f"[{i}]", problems)
                if raw is None:
                    continue
            before = len(problems)
            messages.append(message(raw, problems))
            if len(problems) != before and before < cap:
                prefix_since(problems, before, f"[{i}]")
            if consume:
                array[i] = None
        return messages


def _read_first(fast: Callable[[Any], Any] | None, python: Body) -> Body:
    """``python``, or a body that tries ``fast`` first and runs ``python`` when it misses (and so for every problem)."""
    if fast is None:
        return python
    miss = MISS

    def read(raw: dict[str, Any], problems: Problems) -> Any:
        made = fast(raw)
        return made if made is not miss else python(raw, problems)

    return read


def message_reader(bodies: Bodies, limits: Limits) -> Callable[[Any], Any] | None:
    """The C accelerator's reader of plain, valid messages for these bodies and limits (None without it).

    It reads the envelope, text blocks and citations in C and calls ``bodies`` for every other block; on
    anything else it returns ``MISS`` and the Python message body reads the message again and words its
    problems. Its results are the Python body's, object for object (the tests hold it to that).
    """
    if speedups is None:
        return None
    max_uri = limits.max_uri_chars
    return speedups.message_reader(  # type: ignore[no-any-return]
        limits.max_text_chars,
        max_uri,
        _ROLE_CLASSES,
        bodies.block_bodies,
        bodies.metadata,
        lambda value: check_uri(value, max_uri),
        unchecked(Message),
        unchecked(TextBlock),
        unchecked(Citation),
        unchecked(CitedUri),
        unchecked(CitedReference),
        TextBlock,
        EMPTY_OBJECT,
        MISS,
    )
