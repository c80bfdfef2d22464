"""Checks of the arguments the adapters and stream readers take from the caller's own code.

A provider's payload or response is data: what is wrong in it is a ``ValidationError`` with a path into it. The
other arguments (the conversation to write, ``strict``, ``issuer``, an index, an option) come from the caller's
code, so a value of the wrong kind is a ``TypeError`` (and a value of the right kind outside the accepted ones
a ``ValueError``) raised before any work, naming the call, what it takes and what came, in the caller's terms.

>>> conversation_argument([{"role": "user", "content": "Hi"}], "anthropic.to_provider")
Traceback (most recent call last):
TypeError: anthropic.to_provider takes a cb.Conversation (or a list of cb.Message), got a list of dicts: \
structure it first with cb.structure(raw, cb.Conversation)
>>> strict_argument("content_dropped", "gemini.to_provider")
Traceback (most recent call last):
TypeError: gemini.to_provider takes strict=True, False or a collection of loss kinds, got the string \
'content_dropped': write strict={'content_dropped'}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._model._classes import Block, Message, ToolResultBlock
from .._model._conversation import Conversation
from .._sealing import Keyring, SealKey, as_keyring
from ._contract import Converted, LossKind, Reply, raising_kinds

__all__ = [
    "conversation_argument",
    "flag_argument",
    "index_argument",
    "issuer_argument",
    "keys_argument",
    "option_argument",
    "reading_argument",
    "strict_argument",
    "string_argument",
    "tool_result_argument",
]

_STRUCTURE = "structure it first with cb.structure(raw, cb.Conversation)"


def _described(value: object) -> str:
    """What ``value`` is, in a user's words: ``None``, ``a string``, ``a list of dicts``, ``a Message``."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the bool {value}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, list | tuple) and value and all(isinstance(item, Mapping) for item in value):
        return f"a {type(value).__name__} of dicts"
    if isinstance(value, Mapping):
        return "a dict" if type(value) is dict else f"a mapping ({type(value).__name__})"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def conversation_argument(value: object, call: str) -> None:
    """Check the conversation ``call`` writes: a ``Conversation``, or a list or tuple of ``Message``.

    Raw dicts are refused rather than structured here: the conversation is the caller's own, and structuring it
    is a separate, checked step whose errors carry the raw data's paths.
    """
    if isinstance(value, Conversation):
        return
    if isinstance(value, list | tuple) and all(isinstance(item, Message) for item in value):
        return
    expected = f"{call} takes a cb.Conversation (or a list of cb.Message), got {_described(value)}"
    if isinstance(value, Message):
        msg = f"{expected}: wrap it as cb.Conversation(messages=[message])"
    elif isinstance(value, Mapping) or (isinstance(value, list | tuple) and value and isinstance(value[0], Mapping)):
        msg = f"{expected}: {_STRUCTURE}"
    elif isinstance(value, list | tuple):
        wrong = next(item for item in value if not isinstance(item, Message))
        msg = f"{expected}: item {value.index(wrong)} is {_described(wrong)}"
    else:
        msg = expected
    raise TypeError(msg)


def strict_argument(value: object, call: str) -> bool | frozenset[LossKind]:
    """``strict`` as ``True``, ``False`` or the frozen set of kinds named (an unknown kind is a ``ValueError``).

    A string is refused: it is iterable, and would otherwise be read one character at a time.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        hint = f": write strict={{{value!r}}}" if isinstance(value, str) else ""
        msg = f"{call} takes strict=True, False or a collection of loss kinds, got {_described(value)}{hint}"
        raise TypeError(msg)
    kinds = tuple(value)
    for kind in kinds:
        if not isinstance(kind, str):
            msg = f"{call} takes loss kinds as strings in strict=, got {_described(kind)}"
            raise TypeError(msg)
    return raising_kinds(kinds)


def issuer_argument(value: object, call: str) -> str | None:
    """``issuer``: a string (``"provider"`` or ``"provider/model-family"``) or ``None``."""
    if value is None or isinstance(value, str):
        return value
    msg = f"{call} takes issuer= as a string such as 'anthropic' or 'gemini/gemini-2.5-pro', got {_described(value)}"
    raise TypeError(msg)


def keys_argument(keys: object, context: object, call: str) -> tuple[Keyring | None, bytes]:
    """``keys`` (a ``SealKey``, a ``Keyring`` or ``None``) and ``context`` (``str`` or ``bytes``, only with keys)."""
    if keys is not None and not isinstance(keys, (SealKey, Keyring)):
        # the type alone: a string here may well be the secret itself
        msg = f"{call} takes keys= as a cb.SealKey or a cb.Keyring, got a {type(keys).__name__}"
        raise TypeError(msg)
    if not isinstance(context, (str, bytes)):
        msg = f"{call} takes context= as a str or bytes, got {_described(context)}"
        raise TypeError(msg)
    if keys is None:
        if context:
            msg = f"{call} got context= without keys=: the context only matters when seals are verified"
            raise TypeError(msg)
        return None, b""
    return as_keyring(keys), context.encode("utf-8") if isinstance(context, str) else context


def index_argument(value: object, name: str, call: str) -> int:
    """A ``choice`` or ``candidate`` index: a non-negative ``int`` (a ``bool`` is no index)."""
    if not isinstance(value, int) or isinstance(value, bool):
        msg = f"{call} takes {name}= as a non-negative integer, got {_described(value)}"
        raise TypeError(msg)
    if value < 0:
        msg = f"{call} takes {name}= as a non-negative integer, got {value}"
        raise ValueError(msg)
    return value


def flag_argument(value: object, name: str, call: str) -> bool:
    """A keyword flag (``thinking``, ``store``...): ``True`` or ``False``, never a truthy stand-in."""
    if isinstance(value, bool):
        return value
    msg = f"{call} takes {name}= as True or False, got {_described(value)}"
    raise TypeError(msg)


def option_argument(value: object, name: str, choices: tuple[str, ...], call: str) -> str:
    """A keyword option with named values (``tool_result_files``): one of ``choices``."""
    if not isinstance(value, str):
        msg = f"{call} takes {name}= as one of {', '.join(map(repr, choices))}, got {_described(value)}"
        raise TypeError(msg)
    if value not in choices:
        msg = f"{call} takes {name}= as one of {', '.join(map(repr, choices))}, got {value!r}"
        raise ValueError(msg)
    return value


def string_argument(value: object, name: str, call: str, *, optional: bool = False) -> str | None:
    """A keyword argument naming something (``tool_call_id``): a string, or ``None`` too where ``optional``."""
    if isinstance(value, str) or (optional and value is None):
        return value
    msg = f"{call} takes {name}= as a string{' or None' if optional else ''}, got {_described(value)}"
    raise TypeError(msg)


def tool_result_argument(value: object, call: str) -> ToolResultBlock:
    """The tool result block ``call`` writes."""
    if isinstance(value, ToolResultBlock):
        return value
    hint = ": structure it first with cb.structure(raw, cb.ToolResultBlock)" if isinstance(value, Mapping) else ""
    msg = f"{call} takes a cb.ToolResultBlock, got {_described(value)}{hint}"
    raise TypeError(msg)


def reading_argument(value: Any, what: str, call: str) -> Any:
    """``value`` unchanged, unless it is one of this library's own objects, handed to a reader by mistake.

    A reader takes the provider's data (``what``: the SDK's object or any dict of it); anything else that is
    data stays for the reader to refuse with a ``ValidationError`` and its path. A conversation, a message, a
    block, a reply or a ``Converted`` is no such data, but the caller's own object going the wrong way.
    """
    if isinstance(value, Converted):
        msg = f"{call} reads {what}, got a Converted: pass its payload (converted.payload)"
    elif isinstance(value, Reply):
        msg = f"{call} reads {what}, got a Reply, which is already read: use reply.message"
    elif isinstance(value, Conversation | Message | Block):
        msg = f"{call} reads {what}, got {_described(value)}, which is already a contentblocks value"
    else:
        return value
    raise TypeError(msg)
