"""Structure hooks: raw dicts and lists in, checked blocks out, every problem reported with its path.

``StructureHooks`` builds, once per converter, the hook for each class and each union, on top of the bodies
``_gen`` generates. A hook gathers every problem of its value and raises one ``ValidationError`` listing them
with JSON paths from the value passed in (``$``).

A converter on which a user hooked a class that others nest (``Citation``, ``UrlSource``...) gets a variant
(:meth:`StructureHooks.variant`): the same generated functions, that class's body replaced by a call of the
user's hook, and no C walk, since that walk would build the nested objects itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._checks._rules import Limits
from .._errors import ValidationError, describe_type, preview
from .._json._values import plain_container
from .._model._classes import Message
from .._model._conversation import Conversation, conversation_problems
from .._model._wire import TAGGED, UNIONS, Union
from ._gen import CLASSES, generate_structure_bodies, structure_bodies
from ._kernels import MISS
from ._raw import MISSING, Problems, as_object, foreign_key
from ._readers import Body, rest_items
from ._structure_table import structurer
from ._unchecked import unchecked

__all__ = ["StructureHooks"]

Hook = Callable[[Any, Any], Any]


def _through(hook: Hook, cls: type) -> Body:
    """A body that structures an object of ``cls`` with a converter's hook for it.

    A ValidationError from the hook (ours, wrapped by the user's, raises one) becomes problems of the object
    being read, its paths relative to it; anything else the hook raises goes through as cattrs lets it.
    """

    def body(raw: dict[str, Any], problems: Problems) -> Any:
        try:
            return hook(raw, cls)
        except ValidationError as error:
            problems.extend((path.removeprefix("$"), message) for path, message in error.errors)
            return None

    body.__name__ = f"through_{cls.__name__}"
    return body


class StructureHooks:
    """Every structure hook for one converter, built once for its limits and binary mode.

    ``dispatched`` maps the nested classes whose objects go through the converter's own hooks (the user's)
    to those hooks; it is empty for the hooks :func:`configure_converter` installs, which take the generated
    functions and the C walk all the way down.
    """

    def __init__(
        self, limits: Limits, *, native_binary: bool, dispatched: dict[type, Hook] | None = None,
        root: StructureHooks | None = None,
    ) -> None:  # fmt: skip
        self.limits = limits
        self.native_binary = native_binary
        self.dispatched = dispatched or {}
        #: The hooks of one configure_converter call: this object and every variant of it.
        self.root = self if root is None else root
        self._variants: dict[frozenset[tuple[type, int]], StructureHooks] = {}
        self._hooks: dict[object, Any] = {}
        self.max_errors = limits.max_errors
        # The C walk of the same declarations, where the accelerator is in use: it takes the valid values
        # and hands anything else back (MISS), for the generated functions to read and word.
        fast = None
        if self.dispatched:
            replaced = {cls: _through(hook, cls) for cls, hook in self.dispatched.items()}
            self.bodies = generate_structure_bodies(limits, native_binary=native_binary, replaced=replaced)
        else:
            self.bodies = structure_bodies(limits, native_binary=native_binary)
            fast = structurer(limits, native_binary=native_binary)
        self.message = self.bodies.by_class[Message]
        self.fast_object = None if fast is None else fast.object
        self.fast_objects = None if fast is None else fast.objects
        self.message_index = CLASSES.index(Message)

    def variant(self, dispatched: dict[type, Hook]) -> StructureHooks:
        """The hooks that send the objects of the classes in ``dispatched`` to those hooks (made once)."""
        if not dispatched:
            return self.root
        key = frozenset((cls, id(hook)) for cls, hook in dispatched.items())  # a hook need not be hashable
        variants = self.root._variants
        if key not in variants:
            variants[key] = StructureHooks(
                self.limits, native_binary=self.native_binary, dispatched=dispatched, root=self.root
            )
        return variants[key]

    def owns(self, hook: object) -> bool:
        """Whether ``hook`` is one of this converter's hooks for a class (the root's or a variant's)."""
        return getattr(hook, "contentblocks_hooks", None) is self.root

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

    def hook(self, body: Body, target: int, cls: type | None = None) -> Any:
        """A cattrs structure hook running ``body`` on a top-level value (checking its tag for a class).

        ``target`` names the class or union in the C structurer's table (see ``_structure_table``).
        """
        fail = self.fail
        refuse_foreign = self.refuse_foreign
        fast = self.fast_object
        tag_key, expected, _ = TAGGED.get(cls, ("type", None, None)) if cls is not None else ("type", None, None)

        def structure(value: object, _cls: object = None) -> Any:
            problems: Problems = []
            try:
                raw = value if type(value) is dict else as_object(value, "", problems)
                result = None
                if raw is not None:
                    tag = raw.get(tag_key, MISSING)
                    if expected is not None and (type(tag) is not str or tag != expected):
                        problems.append((f".{tag_key}", f"expected {preview(expected)}"))
                    elif fast is not None and (result := fast(raw, target)) is not MISS:
                        return result
                    result = body(raw, problems)
            except Exception:
                refuse_foreign(value)
                raise
            if problems:
                raise fail(problems)
            return result

        structure.__name__ = f"structure_{cls.__name__ if cls is not None else 'union'}"
        structure.contentblocks_hooks = self.root  # type: ignore[attr-defined]
        #: The nested classes this hook structures through the converter's hooks (none: the fast path).
        structure.dispatches = frozenset(self.dispatched)  # type: ignore[attr-defined]
        return structure

    def for_class(self, cls: type) -> Any:
        """The hook for one class (a block, source, citation or message), made once."""
        if cls not in self._hooks:
            self._hooks[cls] = self.hook(self.bodies.by_class[cls], CLASSES.index(cls), cls)
        return self._hooks[cls]

    def for_union(self, union: Union) -> Any:
        """The hook for a union (``cb.Block``...): its members told apart by their tags, made once."""
        if union.name not in self._hooks:
            self._hooks[union.name] = self.hook(self.bodies.unions[union.name], -1 - UNIONS.index(union))
        return self._hooks[union.name]

    def structure_conversation(self, value: object, _cls: object = None) -> Conversation:
        """The hook for ``Conversation``: an array of messages, then tool-call pairing."""
        return self.conversation(value, consume=False)

    def structure_parsed_conversation(self, value: object) -> Conversation:
        """The hook for ``Conversation`` on a value just parsed, which no other code holds (``loads``).

        Each message's dicts are dropped from the array once it is structured, so the parsed tree shrinks as
        the blocks are built and its memory is reused for them, instead of both trees living until the end.
        """
        return self.conversation(value, consume=type(value) is list)

    def conversation(self, value: object, *, consume: bool) -> Conversation:
        """An array of messages, then tool-call pairing; with ``consume``, ``value`` is emptied as it is read."""
        problems: Problems = []
        kind, array = plain_container(value)
        if kind != 2:  # an array
            raise self.fail([("", f"expected an array of messages, got {describe_type(value)}")])
        out: list[Message] = []
        fast = None
        if self.fast_objects is not None and type(array) is list:  # the C walk takes the valid messages
            walk, index = self.fast_objects, self.message_index

            def fast(i: int) -> int:
                return walk(array, i, out, index, consume)  # type: ignore[no-any-return]

        try:
            messages = rest_items(array, "", problems, self.message, 0, out, self.max_errors, fast, consume=consume)
        except Exception:
            self.refuse_foreign(value)
            raise
        if not problems:
            conversation_problems(problems, messages)
            if problems:
                raise ValidationError(problems, max_errors=self.max_errors)
        if problems:
            raise self.fail(problems)
        return unchecked(Conversation)(messages)  # type: ignore[no-any-return]
