"""Structure hooks: raw dicts and lists in, checked blocks out, every problem reported with its path.

``StructureHooks`` builds one function per class and one dispatcher per union when a converter is
configured; they call each other directly (lookups bound once), check each field the way the classes do,
and build instances without running the classes' own checks a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._blocks import (
    OUTCOMES,
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
    UrlSource,
)
from ._checks import (
    check_identifier_field,
    check_span,
    check_str,
    freeze_metadata,
    pairing_problems,
    reasoning_problems,
)
from ._errors import ValidationError, describe_type, join_key, preview
from ._json import EMPTY_OBJECT, freeze
from ._messages import KIND_NAMES, ROLE_BLOCKS, Conversation, Message, check_roles
from ._rules import (
    Limits,
    check_base64,
    check_filename,
    check_media_type,
    check_no_surrounding_space,
    check_uri,
    check_url,
)
from ._unchecked import unchecked

__all__ = ["StructureHooks"]

Hook = Callable[..., Any]
Problems = list[tuple[str, str]]
_MISSING: Any = object()

# Wire keys of every object, in output order; "type" or "kind" first where there is one.
KEYS: dict[type, tuple[str, ...]] = {
    TextBlock: ("type", "text", "citations", "metadata"),
    RefusalBlock: ("type", "text", "metadata"),
    FileBlock: ("type", "media_type", "source", "filename", "metadata"),
    ReasoningBlock: ("type", "text", "signature", "redacted", "metadata"),
    ToolCallBlock: ("type", "tool_call_id", "tool_name", "input", "metadata"),
    ToolResultBlock: ("type", "tool_call_id", "tool_name", "outcome", "content", "metadata"),
    JsonBlock: ("type", "value", "metadata"),
    BytesSource: ("type", "data"),
    UrlSource: ("type", "url"),
    ReferenceSource: ("type", "id", "provider"),
    Citation: ("source", "title", "quote", "start", "end"),
    CitedUri: ("kind", "value"),
    CitedReference: ("kind", "value"),
    Message: ("role", "content", "metadata"),
}
TAGS: dict[type, str] = {
    **KIND_NAMES,
    BytesSource: "base64",
    UrlSource: "url",
    ReferenceSource: "reference",
    CitedUri: "uri",
    CitedReference: "reference",
}
_WHAT = {cls: f"a {tag} {'block' if cls in KIND_NAMES else 'source'}" for cls, tag in TAGS.items()}
_WHAT.update(
    {
        Citation: "a citation",
        Message: "a message",
        CitedUri: "a uri citation source",
        CitedReference: "a reference citation source",
    }
)
_KEY_SETS = {cls: frozenset(keys) for cls, keys in KEYS.items()}


def as_object(value: object, path: str, problems: Problems) -> dict[str, Any] | None:
    """``value`` as a plain dict (subclasses copied at C level, overrides ignored), or a problem."""
    if type(value) is dict:
        return value
    if isinstance(value, dict):
        return dict.copy(value)
    problems.append((path, f"expected an object, got {describe_type(value)}"))
    return None


def unknown_keys(problems: Problems, path: str, raw: dict[str, Any], cls: type) -> None:
    if raw.keys() <= _KEY_SETS[cls]:
        return
    allowed = ", ".join(KEYS[cls])
    for key in raw:
        if type(key) is not str:
            problems.append((path, f"object keys must be strings, got {describe_type(key)}"))
        elif key not in _KEY_SETS[cls]:
            problems.append((join_key(path, key), f"unknown key ({_WHAT[cls]} has: {allowed})"))


def tag_problem(tag: object, where: str, allowed: list[str]) -> str:
    names = ", ".join(allowed)
    if tag is _MISSING:
        return f"required key missing: {where} needs one of: {names}"
    if type(tag) is not str:
        return f"expected a string naming one of: {names}; got {describe_type(tag)}"
    return f"unknown {where} {preview(tag)}; expected one of: {names}"


class StructureHooks:
    """Every structure hook for one converter, built once for its limits and binary mode."""

    def __init__(self, limits: Limits, *, native_binary: bool) -> None:
        self.limits = limits
        self.native_binary = native_binary
        self.max_errors = limits.max_errors
        self.new = {cls: unchecked(cls) for cls in (*KEYS, Conversation)}
        self.block_bodies: dict[str, Hook] = {
            "text": self.text_body,
            "refusal": self.refusal_body,
            "file": self.file_body,
            "reasoning": self.reasoning_body,
            "tool_call": self.tool_call_body,
            "tool_result": self.tool_result_body,
            "json": self.json_body,
        }
        self.block_tags = list(self.block_bodies)
        self.content_bodies = {tag: self.block_bodies[tag] for tag in ("text", "file", "json")}
        self.source_bodies: dict[str, Hook] = {
            "base64": self.bytes_source_body,
            "url": self.url_source_body,
            "reference": self.reference_source_body,
        }
        self.cited_bodies: dict[str, Hook] = {"uri": self.cited_uri_body, "reference": self.cited_reference_body}
        self.block_dispatch = self.tagged(self.block_bodies, "block type", self.block_tags)
        self.content_dispatch = self.tagged(self.content_bodies, "a tool result", list(self.content_bodies))
        self.source_dispatch = self.tagged(self.source_bodies, "source type", list(self.source_bodies))
        self.cited_dispatch = self.tagged(
            self.cited_bodies, "citation source kind", list(self.cited_bodies), key="kind"
        )

    # -------------------------------------------------------------------------------- entry points

    def fail(self, problems: Problems) -> ValidationError:
        return ValidationError(problems, max_errors=self.max_errors)

    def run(self, body: Hook, value: object, cls: type | None = None) -> Any:
        """Call a body on a top-level value: ``$`` is the value itself; raise if anything was wrong."""
        problems: Problems = []
        raw = as_object(value, "$", problems)
        result = None
        if raw is not None:
            if cls is not None and cls in TAGS:
                key = "kind" if cls in (CitedUri, CitedReference) else "type"
                if raw.get(key, _MISSING) != TAGS[cls]:
                    problems.append((f"$.{key}", f"expected {preview(TAGS[cls])}"))
            result = body(raw, "$", problems)
        if problems:
            raise self.fail(problems)
        return result

    def for_class(self, cls: type) -> Hook:
        bodies = {
            TextBlock: self.text_body,
            RefusalBlock: self.refusal_body,
            FileBlock: self.file_body,
            ReasoningBlock: self.reasoning_body,
            ToolCallBlock: self.tool_call_body,
            ToolResultBlock: self.tool_result_body,
            JsonBlock: self.json_body,
            BytesSource: self.bytes_source_body,
            UrlSource: self.url_source_body,
            ReferenceSource: self.reference_source_body,
            Citation: self.citation_body,
            CitedUri: self.cited_uri_body,
            CitedReference: self.cited_reference_body,
            Message: self.message_body,
        }
        body = bodies[cls]
        run = self.run

        def structure(value: object, _cls: object = None) -> Any:
            return run(body, value, cls)

        structure.__name__ = f"structure_{cls.__name__}"
        return structure

    def for_union(self, dispatch: Hook) -> Hook:
        run = self.run

        def structure(value: object, _cls: object = None) -> Any:
            return run(dispatch, value)

        return structure

    def tagged(self, bodies: dict[str, Hook], where: str, allowed: list[str], key: str = "type") -> Hook:
        """A body that dispatches on ``raw[key]`` to one of ``bodies``."""
        get = bodies.get
        known = self.block_bodies

        def dispatch(raw: dict[str, Any], path: str, problems: Problems) -> Any:
            tag = raw.get(key, _MISSING)
            body = get(tag) if type(tag) is str else None
            if body is None:
                if type(tag) is str and tag in known:
                    problems.append(
                        (f"{path}.{key}", f"{where} cannot hold {tag} blocks (allowed: {', '.join(allowed)})")
                    )
                else:
                    problems.append((f"{path}.{key}", tag_problem(tag, where, allowed)))
                return None
            return body(raw, path, problems)

        return dispatch

    def structure_conversation(self, value: object, _cls: object = None) -> Conversation:
        problems: Problems = []
        if not isinstance(value, (list, tuple)):
            raise self.fail([("$", f"expected an array of messages, got {describe_type(value)}")])
        message_body = self.message_body
        messages = []
        for i, item in enumerate(value):
            path = f"$[{i}]"
            raw = as_object(item, path, problems)
            if raw is not None:
                messages.append(message_body(raw, path, problems))
        if not problems:
            pairing_problems(
                problems,
                [
                    (
                        m.role,
                        [
                            (TAGS[type(b)], b.tool_call_id, b.tool_name)
                            for b in m.content
                            if type(b) is ToolCallBlock or type(b) is ToolResultBlock
                        ],
                    )
                    for m in messages
                ],
            )
        if problems:
            raise self.fail(problems)
        return self.new[Conversation](tuple(messages))  # type: ignore[no-any-return]

    # -------------------------------------------------------------------------------- shared pieces

    def metadata(self, raw: dict[str, Any], path: str, problems: Problems) -> Any:
        value = raw.get("metadata", _MISSING)
        if value is _MISSING:
            return EMPTY_OBJECT
        if value is None:
            problems.append((f"{path}.metadata", "null is not allowed; omit the key instead"))
            return EMPTY_OBJECT
        return freeze_metadata(problems, f"{path}.metadata", value, self.limits)

    def required(self, raw: dict[str, Any], key: str, path: str, problems: Problems) -> Any:
        value = raw.get(key, _MISSING)
        if value is _MISSING:
            problems.append((f"{path}.{key}", "required key missing"))
        return value

    def optional(self, raw: dict[str, Any], key: str, path: str, problems: Problems) -> Any:
        value = raw.get(key)
        if value is None and key in raw:
            problems.append((f"{path}.{key}", "null is not allowed; omit the key instead"))
        return value

    def free_text(self, raw: dict[str, Any], key: str, path: str, problems: Problems, *, optional: bool = False) -> Any:
        if optional:
            value = self.optional(raw, key, path, problems)
            if value is not None:
                check_str(problems, f"{path}.{key}", value, limits=self.limits)
            return value
        value = self.required(raw, key, path, problems)
        if value is _MISSING:
            return None
        check_str(problems, f"{path}.{key}", value, limits=self.limits)
        return value

    def identifier(self, raw: dict[str, Any], key: str, path: str, problems: Problems) -> Any:
        value = self.required(raw, key, path, problems)
        if value is not _MISSING:
            check_identifier_field(problems, f"{path}.{key}", value)
        return value

    def binary(self, raw: dict[str, Any], key: str, path: str, problems: Problems, *, optional: bool = False) -> Any:
        value = self.optional(raw, key, path, problems) if optional else self.required(raw, key, path, problems)
        if value is _MISSING or (value is None and optional):
            return None
        max_bytes = self.limits.max_binary_bytes
        if self.native_binary:
            if type(value) is not bytes:
                problems.append((f"{path}.{key}", f"expected bytes, got {describe_type(value)}"))
                return None
            if len(value) > max_bytes:
                problems.append((f"{path}.{key}", f"more than {max_bytes:,} bytes"))
            return value
        if type(value) is not str:
            problems.append((f"{path}.{key}", f"expected a base64 string, got {describe_type(value)}"))
            return None
        decoded = check_base64(value, max_bytes)
        if type(decoded) is str:
            problems.append((f"{path}.{key}", decoded))
            return None
        return decoded

    def nested(self, raw: dict[str, Any], key: str, path: str, problems: Problems, body: Hook) -> Any:
        value = self.required(raw, key, path, problems)
        if value is _MISSING:
            return None
        obj = as_object(value, f"{path}.{key}", problems)
        return None if obj is None else body(obj, f"{path}.{key}", problems)

    def array(
        self, raw: dict[str, Any], key: str, path: str, problems: Problems, body: Hook, *, optional: bool
    ) -> tuple[Any, ...]:
        value = self.optional(raw, key, path, problems) if optional else self.required(raw, key, path, problems)
        if value is _MISSING or (value is None and optional):
            return ()
        if type(value) is not list and not isinstance(value, (list, tuple)):
            problems.append((f"{path}.{key}", f"expected an array, got {describe_type(value)}"))
            return ()
        items = []
        for i, item in enumerate(value):
            item_path = f"{path}.{key}[{i}]"
            obj = as_object(item, item_path, problems)
            if obj is not None:
                items.append(body(obj, item_path, problems))
        return tuple(items)

    # -------------------------------------------------------------------------------- bodies

    def text_body(self, raw: dict[str, Any], path: str, problems: Problems) -> TextBlock:
        unknown_keys(problems, path, raw, TextBlock)
        text = self.free_text(raw, "text", path, problems)
        citations = self.array(raw, "citations", path, problems, self.citation_body, optional=True)
        if type(text) is str:
            length = len(text)
            for i, citation in enumerate(citations):
                if (
                    citation is not None
                    and citation.end is not None
                    and type(citation.end) is int
                    and citation.end > length
                ):
                    problems.append(
                        (f"{path}.citations[{i}].end", f"span ends after the text ({length} code points long)")
                    )
        metadata = self.metadata(raw, path, problems)
        return self.new[TextBlock](text, citations, metadata)  # type: ignore[no-any-return]

    def refusal_body(self, raw: dict[str, Any], path: str, problems: Problems) -> RefusalBlock:
        unknown_keys(problems, path, raw, RefusalBlock)
        text = self.free_text(raw, "text", path, problems)
        return self.new[RefusalBlock](text, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def file_body(self, raw: dict[str, Any], path: str, problems: Problems) -> FileBlock:
        unknown_keys(problems, path, raw, FileBlock)
        media_type = self.required(raw, "media_type", path, problems)
        if media_type is not _MISSING:
            check_str(problems, f"{path}.media_type", media_type, check_media_type, limits=self.limits)
        source = self.nested(raw, "source", path, problems, self.source_dispatch)
        filename = self.optional(raw, "filename", path, problems)
        if filename is not None:
            check_str(problems, f"{path}.filename", filename, check_filename, limits=self.limits)
        return self.new[FileBlock](media_type, source, filename, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def reasoning_body(self, raw: dict[str, Any], path: str, problems: Problems) -> ReasoningBlock:
        unknown_keys(problems, path, raw, ReasoningBlock)
        text = self.free_text(raw, "text", path, problems, optional=True)
        signature = self.free_text(raw, "signature", path, problems, optional=True)
        redacted = self.binary(raw, "redacted", path, problems, optional=True)
        if redacted is not None and not redacted:
            problems.append((f"{path}.redacted", "must hold at least one byte"))
        reasoning_problems(problems, path, text, signature, raw.get("redacted"))
        return self.new[ReasoningBlock](text, signature, redacted, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def tool_call_body(self, raw: dict[str, Any], path: str, problems: Problems) -> ToolCallBlock:
        unknown_keys(problems, path, raw, ToolCallBlock)
        call_id = self.identifier(raw, "tool_call_id", path, problems)
        name = self.identifier(raw, "tool_name", path, problems)
        value = self.required(raw, "input", path, problems)
        frozen = None if value is _MISSING else freeze(value, f"{path}.input", self.limits, problems)
        return self.new[ToolCallBlock](call_id, name, frozen, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def tool_result_body(self, raw: dict[str, Any], path: str, problems: Problems) -> ToolResultBlock:
        unknown_keys(problems, path, raw, ToolResultBlock)
        call_id = self.identifier(raw, "tool_call_id", path, problems)
        name = self.identifier(raw, "tool_name", path, problems)
        outcome = self.required(raw, "outcome", path, problems)
        if outcome is not _MISSING and (type(outcome) is not str or outcome not in OUTCOMES):
            problems.append((f"{path}.outcome", "expected one of: succeeded, failed, denied"))
        content = self.array(raw, "content", path, problems, self.content_dispatch, optional=False)
        return self.new[ToolResultBlock](call_id, name, outcome, content, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def json_body(self, raw: dict[str, Any], path: str, problems: Problems) -> JsonBlock:
        unknown_keys(problems, path, raw, JsonBlock)
        value = self.required(raw, "value", path, problems)
        frozen = None if value is _MISSING else freeze(value, f"{path}.value", self.limits, problems)
        return self.new[JsonBlock](frozen, self.metadata(raw, path, problems))  # type: ignore[no-any-return]

    def bytes_source_body(self, raw: dict[str, Any], path: str, problems: Problems) -> BytesSource:
        unknown_keys(problems, path, raw, BytesSource)
        return self.new[BytesSource](self.binary(raw, "data", path, problems))  # type: ignore[no-any-return]

    def url_source_body(self, raw: dict[str, Any], path: str, problems: Problems) -> UrlSource:
        unknown_keys(problems, path, raw, UrlSource)
        url = self.required(raw, "url", path, problems)
        if url is not _MISSING:
            max_chars = self.limits.max_uri_chars
            check_str(problems, f"{path}.url", url, lambda v: check_url(v, max_chars), limits=self.limits)
        return self.new[UrlSource](url)  # type: ignore[no-any-return]

    def reference_source_body(self, raw: dict[str, Any], path: str, problems: Problems) -> ReferenceSource:
        unknown_keys(problems, path, raw, ReferenceSource)
        ref = self.required(raw, "id", path, problems)
        if ref is not _MISSING:
            max_chars = self.limits.max_uri_chars
            check_str(
                problems, f"{path}.id", ref, lambda v: check_no_surrounding_space(v, max_chars), limits=self.limits
            )
        provider = self.optional(raw, "provider", path, problems)
        if provider is not None:
            check_identifier_field(problems, f"{path}.provider", provider)
        return self.new[ReferenceSource](ref, provider)  # type: ignore[no-any-return]

    def citation_body(self, raw: dict[str, Any], path: str, problems: Problems) -> Citation:
        unknown_keys(problems, path, raw, Citation)
        source = self.nested(raw, "source", path, problems, self.cited_dispatch)
        title = self.optional(raw, "title", path, problems)
        if title is not None:
            max_chars = self.limits.max_text_chars
            check_str(
                problems, f"{path}.title", title, lambda v: check_no_surrounding_space(v, max_chars), limits=self.limits
            )
        quote = self.free_text(raw, "quote", path, problems, optional=True)
        start = self.optional(raw, "start", path, problems)
        end = self.optional(raw, "end", path, problems)
        check_span(problems, path, start, end, None)
        return self.new[Citation](source, title, quote, start, end)  # type: ignore[no-any-return]

    def cited_uri_body(self, raw: dict[str, Any], path: str, problems: Problems) -> CitedUri:
        unknown_keys(problems, path, raw, CitedUri)
        value = self.required(raw, "value", path, problems)
        if value is not _MISSING:
            max_chars = self.limits.max_uri_chars
            check_str(problems, f"{path}.value", value, lambda v: check_uri(v, max_chars), limits=self.limits)
        return self.new[CitedUri](value)  # type: ignore[no-any-return]

    def cited_reference_body(self, raw: dict[str, Any], path: str, problems: Problems) -> CitedReference:
        unknown_keys(problems, path, raw, CitedReference)
        value = self.required(raw, "value", path, problems)
        if value is not _MISSING:
            max_chars = self.limits.max_uri_chars
            check_str(
                problems, f"{path}.value", value, lambda v: check_no_surrounding_space(v, max_chars), limits=self.limits
            )
        return self.new[CitedReference](value)  # type: ignore[no-any-return]

    def message_body(self, raw: dict[str, Any], path: str, problems: Problems) -> Message:
        unknown_keys(problems, path, raw, Message)
        role = self.required(raw, "role", path, problems)
        role_ok = type(role) is str and role in ROLE_BLOCKS
        if role is not _MISSING and not role_ok:
            problems.append((f"{path}.role", f"expected one of: {', '.join(ROLE_BLOCKS)}"))
        content = self.required(raw, "content", path, problems)
        blocks: tuple[Any, ...] = ()
        if type(content) is str:
            if not content:
                problems.append((f"{path}.content", "must not be empty"))
            elif check_str(problems, f"{path}.content", content, limits=self.limits):
                blocks = (self.new[TextBlock](content, (), EMPTY_OBJECT),)
        elif content is not _MISSING:
            before = len(problems)
            blocks = self.array(raw, "content", path, problems, self.block_dispatch, optional=False)
            if not blocks and len(problems) == before:
                problems.append((f"{path}.content", "a message carries at least one block"))
            elif role_ok:
                check_roles(problems, f"{path}.content", role, blocks)
        return self.new[Message](role, blocks, self.metadata(raw, path, problems))  # type: ignore[no-any-return]
