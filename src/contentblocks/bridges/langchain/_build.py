"""LangChain's message objects from the writer's keyword arguments: what its constructors build, built directly.

LangChain's message classes are pydantic models, and a constructor runs pydantic's validation of every field and
LangChain's Python validators (``AIMessage`` rebuilds each tool call, ``ToolMessage`` copies its content list):
about a third of ``to_messages``. The writer's own arguments need none of it: the content is a string or a list
of strings and dicts (built from JSON values, so every key is a string), a tool call an ``id``, a ``name`` and
``args`` of those types, a status one of LangChain's two. For those, :class:`Builder` sets the fields the
constructor would set (its defaults, fresh containers, each tool call as LangChain's ``create_tool_call`` writes
it, copied as pydantic copies it) on a new instance, as pydantic's ``model_construct`` does (which itself costs
more than the constructor: it walks every field in Python).

Anything else goes through the constructor: a field kept from LangChain (``langchain/`` metadata), an invalid
tool call, a content item of another type. And the shortcut is only taken for a class whose validators are the
ones this module knows (the installed version's are checked once) and whose instances it builds equal to the
constructor's, fields, set fields and extras alike, on samples of every shape it takes (checked once too).

>>> from langchain_core import messages
>>> build = Builder(messages)
>>> kwargs = {"content": [{"type": "text", "text": "Hi"}], "tool_calls": [{"id": "c1", "name": "f", "args": {}}]}
>>> build("AIMessage", kwargs) == messages.AIMessage(**kwargs)
True
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

__all__ = ["Builder"]

#: The Python validators of each class the shortcut stands in for (LangChain 1.8), by name.
_VALIDATORS = {"HumanMessage": (), "SystemMessage": (), "AIMessage": ("_backwards_compat_tool_calls",),
               "ToolMessage": ("coerce_args",)}  # fmt: skip
#: The keyword arguments each class takes through the shortcut; any other sends a message to its constructor.
_FIELDS = {"HumanMessage": frozenset({"content", "additional_kwargs"}),
           "SystemMessage": frozenset({"content", "additional_kwargs"}),
           "AIMessage": frozenset({"content", "tool_calls"}),
           "ToolMessage": frozenset({"content", "tool_call_id", "status", "name"})}  # fmt: skip
_CALL_KEYS = frozenset({"id", "name", "args"})
_STATUSES = frozenset({"success", "error"})
#: A sample of every shape the shortcut takes, per class: built both ways once, they must be equal.
_SAMPLES: dict[str, list[dict[str, Any]]] = {
    "HumanMessage": [{"content": "Hi"}, {"content": ["a", {"type": "text", "text": "b", "extras": {"k": [1]}}]}],
    "SystemMessage": [{"content": "Be brief.", "additional_kwargs": {"__openai_role__": "developer"}},
                      {"content": [{"type": "text", "text": "x"}]}],
    "AIMessage": [{"content": ""}, {"content": [{"type": "reasoning", "reasoning": "r"}, "t"]},
                  {"content": [{"type": "tool_call", "id": "c1", "name": "f", "args": {"a": {"b": [1]}}}],
                   "tool_calls": [{"id": "c1", "name": "f", "args": {"a": {"b": [1]}}}]},
                  {"content": "", "tool_calls": [{"id": "c1", "name": "f", "args": {}}, {"id": "c2", "name": "g",
                                                                                           "args": {"x": None}}]}],
    "ToolMessage": [{"tool_call_id": "c1", "status": "success", "name": "f", "content": "18 C"},
                    {"tool_call_id": "c1", "status": "error", "name": None,
                     "content": [{"type": "text", "text": "x"}, "y"]}],
}  # fmt: skip

Make = Callable[[dict[str, Any]], Any]


def _plain_content(content: object) -> bool:
    if type(content) is str:
        return True
    if type(content) is not list:
        return False
    for item in content:  # noqa: SIM110 - a loop, not all() of a generator: this runs for every message
        if type(item) is not dict and type(item) is not str:
            return False
    return True


def _plain_calls(calls: object) -> bool:
    if type(calls) is not list:
        return False
    for call in calls:
        if type(call) is not dict or call.keys() != _CALL_KEYS or type(call["args"]) is not dict:
            return False
        if type(call["name"]) is not str or (call["id"] is not None and type(call["id"]) is not str):
            return False
    return True


def _takes(name: str, kwargs: dict[str, Any]) -> bool:
    """Whether ``kwargs`` are of the shapes the shortcut builds as the constructor of class ``name`` would."""
    if not kwargs.keys() <= _FIELDS[name] or not _plain_content(kwargs.get("content")):
        return False
    if "tool_calls" in kwargs and not _plain_calls(kwargs["tool_calls"]):
        return False
    if "additional_kwargs" in kwargs and (type(extra := kwargs["additional_kwargs"]) is not dict
                                          or not all(type(value) is str for value in extra.values())):  # fmt: skip
        return False
    if name == "ToolMessage":
        name_ = kwargs.get("name")
        return (type(kwargs.get("tool_call_id")) is str and kwargs.get("status") in _STATUSES
                and (name_ is None or type(name_) is str))  # fmt: skip
    return True


def _maker(cls: type[Any]) -> Make:
    """The shortcut for ``cls``: a new instance with the constructor's defaults, and the arguments as they are.

    The arguments' containers become the message's: the writer builds them for it, and nothing else holds them.
    """
    template = {name: field.get_default(call_default_factory=True) if not field.is_required() else None
                for name, field in cls.model_fields.items()}  # fmt: skip
    fresh: list[tuple[str, Callable[[], Any]]] = [(key, type(value)) for key, value in template.items()
                                                   if type(value) in (dict, list)]
    if any(template[key] for key, _ in fresh):
        raise TypeError("a default that is not an empty container")  # a new default this module does not know
    set_attribute = object.__setattr__
    new = object.__new__

    def make(kwargs: dict[str, Any]) -> Any:
        fields = template.copy()
        for key, kind in fresh:
            fields[key] = kind()
        fields.update(kwargs)
        if "tool_calls" in kwargs:  # as ``create_tool_call`` writes each, then pydantic copies it and its args
            fields["tool_calls"] = [{"name": call["name"], "args": dict(call["args"]), "id": call["id"],
                                     "type": "tool_call"} for call in kwargs["tool_calls"]]  # fmt: skip
        message = new(cls)
        set_attribute(message, "__dict__", fields)
        set_attribute(message, "__pydantic_fields_set__", set(kwargs))
        set_attribute(message, "__pydantic_extra__", {})
        set_attribute(message, "__pydantic_private__", None)
        return message

    return make


def _same(one: Any, other: Any) -> bool:
    return bool(type(one) is type(other) and one.__dict__ == other.__dict__
                and one.__pydantic_fields_set__ == other.__pydantic_fields_set__
                and one.__pydantic_extra__ == other.__pydantic_extra__
                and one.__pydantic_private__ == other.__pydantic_private__)  # fmt: skip


def _checked_maker(cls: type[Any]) -> Make | None:
    """The shortcut for ``cls`` if this installed version's class is the one it stands in for, else None."""
    decorators = cls.__pydantic_decorators__
    if (tuple(decorators.model_validators) != _VALIDATORS[cls.__name__] or decorators.field_validators
            or decorators.root_validators or decorators.validators or cls.__pydantic_post_init__ is not None
            or cls.model_config.get("extra") != "allow"):  # fmt: skip
        return None
    try:
        make = _maker(cls)
        if all(_same(make(copy.deepcopy(s)), cls(**copy.deepcopy(s))) for s in _SAMPLES[cls.__name__]):
            return make
    except Exception:  # noqa: BLE001 - a class this module does not know: its constructor builds it
        return None
    return None


class Builder:
    """Builds LangChain's messages of ``module`` (``langchain_core.messages``) by class name and arguments.

    ``kwargs`` are handed over: a message built by the shortcut holds their containers.
    """

    __slots__ = ("_makers", "_module")

    def __init__(self, module: Any) -> None:
        self._module = module
        self._makers = {name: _checked_maker(getattr(module, name)) for name in _FIELDS}

    def __call__(self, name: str, kwargs: dict[str, Any]) -> Any:
        """The message of class ``name`` for ``kwargs``: by the shortcut where it applies, else its constructor."""
        make = self._makers.get(name)
        if make is not None and _takes(name, kwargs):
            return make(kwargs)
        return getattr(self._module, name)(**kwargs)

    def fast(self, name: str) -> bool:
        """Whether class ``name`` is built by the shortcut, for arguments of its shapes."""
        return self._makers.get(name) is not None
