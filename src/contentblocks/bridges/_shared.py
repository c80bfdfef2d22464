"""What every bridge does the same way: check the framework's installed version, and hand out metadata."""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any

from .._conversion._kernels import thaw
from .._model._classes import Message
from ..providers import _cache
from ..providers._contract import LossKind, LossRecorder
from ..providers._extras import PROVIDER_STATE

__all__ = ["MetadataHandout", "report_breakpoints", "require_version"]

#: The blocks whose parts may carry breakpoints of their own (``providers._cache`` walks them).


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def require_version(
    bridge: str, distribution: str, supported: str, extra: str, lowest: tuple[int, ...], below: tuple[int, ...]
) -> None:
    """Raise ``ImportError`` saying what to install when ``distribution`` is missing or outside ``supported``.

    ``lowest`` and ``below`` are ``supported`` (``">=1.8,<2"``) as version tuples: at least the one, under the other.
    """
    try:
        version = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        msg = f"contentblocks.bridges.{bridge} needs {distribution}: pip install 'contentblocks[{extra}]'"
        raise ImportError(msg) from None
    if not lowest <= _version(version) < below:
        msg = (f"contentblocks.bridges.{bridge} is tested with {distribution}{supported}, and {version} is "
               f"installed: pip install 'contentblocks[{extra}]'")  # fmt: skip
        raise ImportError(msg)


def report_breakpoints(loss: Callable[[str, str, LossKind], None], message: Message, index: int, reason: str) -> None:
    """Report every breakpoint of the message at ``$[index]`` as not sent (``providers._cache.report_breakpoints``).

    The writers with no place for a breakpoint call this on every message; most hold none, and this says so
    without building the message's path or walking it with generators.

    >>> import contentblocks as cb
    >>> from contentblocks.providers._contract import LossRecorder
    >>> losses = LossRecorder()
    >>> report_breakpoints(losses.add, cb.Message(role="user", content="Hi"), 0, "not sent")
    >>> cached = cb.Message(role="user", content=[cb.TextBlock(text="Hi", cache=cb.CacheBreakpoint())])
    >>> report_breakpoints(losses.add, cached, 3, "not sent")
    >>> [loss.path for loss in losses.losses]
    ['$[3].content[0].cache']
    """
    if not _cache.unmarked(message):
        _cache.report_breakpoints(loss, message, f"$[{index}]", reason)


def _key_path(path: str, key: str) -> str:
    """``key_path(path, key)``, quoting the key as ``json.dumps(key, ensure_ascii=False)`` does, without its call.

    ``json.dumps`` builds an encoder on every call with ``ensure_ascii`` off (a few microseconds), and a writer
    reports a key for every metadata key a framework has no place for: a thousand in the benchmark's history.

    >>> from contentblocks.providers._toolkit import key_path
    >>> _key_path("$[0].content[1]", 'app/"ü"') == key_path("$[0].content[1]", 'app/"ü"')
    True
    """
    return f"{path}.metadata[{encode_basestring(key)}]"


class MetadataHandout:
    """One block's or message's metadata, handed out key by key; what nobody took is reported as not sent.

    ``framework`` names the target in the loss's words ("LangChain has no place for this key ..."),
    ``namespace`` is the bridge's metadata prefix (``"langchain/"``) and ``kept`` the key that holds the
    framework's own metadata field when it could not be spread over plain keys.
    """

    __slots__ = ("framework", "kept", "losses", "namespace", "path", "taken", "values")

    def __init__(
        self, metadata: Mapping[str, Any], path: str, losses: LossRecorder, framework: str, namespace: str, kept: str
    ) -> None:
        self.values, self.path, self.losses = metadata, path, losses
        self.framework, self.namespace, self.kept = framework, namespace, kept
        self.taken: set[str] = set()

    def take(self, key: str, default: Any = None) -> Any:
        """The value under ``key`` as plain JSON (``default`` when absent), now counted as sent."""
        if key not in self.values:
            return default
        self.taken.add(key)
        return thaw(self.values[key])

    def drop(self) -> None:
        """Everything goes with the block it belongs to (reported dropped itself)."""
        self.taken.update(self.values)

    def own(self) -> Any:
        """The framework's own metadata field: the keys outside the namespaces, or what the ``kept`` key holds.

        A key already taken (provider state ``state`` reported) is not handed out again.
        """
        if not self.values:
            return None
        flat = {k: self.take(k) for k in self.values
                if not k.startswith((self.namespace, "contentblocks/")) and k not in self.taken}  # fmt: skip
        if self.kept not in self.values:
            return flat or None
        value = self.take(self.kept)
        if flat and isinstance(value, dict):
            return {**value, **flat}
        for key in flat:
            self.taken.discard(key)
        return value

    def state(self, framework: str) -> None:
        """Report the provider state nobody took (``anthropic/server_result``) as not replayed, and count it sent.

        A framework that holds a tool the provider ran keeps its own form of it, not another provider's: that
        state goes back only to its issuer, through the provider adapters.
        """
        for key in self.values:
            if key in PROVIDER_STATE and key not in self.taken:
                self.taken.add(key)
                self.losses.add(_key_path(self.path, key), f"provider state only its issuer can use; not sent to "
                                f"{framework}", "state_not_replayed")  # fmt: skip

    def done(self, where: str) -> None:
        """Report each key nobody took as not sent."""
        for key in self.values:
            if key not in self.taken:
                self.losses.add(_key_path(self.path, key), f"{self.framework} has no place for this key {where}",
                                "metadata_not_sent")  # fmt: skip
