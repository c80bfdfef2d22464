"""One object per kind of value a field holds: every backend asks it, and no switch anywhere names kinds.

A rule's ``kind`` (``_rules.Rule.kind``) is one of these objects. Each says, for its kind: what is wrong with
one value (``check``), how a field of it is held when a class is built in Python (``hold``), the structure
lines and the unstructure expression the generator writes (``structure``, ``written``), the C kernels it maps
to (``shape`` for the unstructurer, ``table`` for the structurer, None where C has none: the class is then
left to the generated function), and its JSON Schema fragment (``schema``). The nested kinds (an instance,
a sequence of instances) are in ``_kinds_nested``. Adding a kind is one new object: its tests follow.

The generator's lines use the names its namespace binds (``MISSING``, ``read_text``, ``freeze``...) and
bind their own under ``prefix``; ``plan`` there is the field's wire plan (``_plan.WireField``).
"""

# ruff: noqa: ARG002 - each kind overrides the methods whose arguments it needs; the rest keep the signature
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from .._errors import describe_type
from .._json._freeze import freeze, freeze_metadata
from .._json._values import EMPTY_OBJECT, JsonObject
from ._grammar import ASCII_IDENTIFIER_CHARS, MAX_IDENTIFIER_CHARS, METADATA_KEY_MIN_CHARS
from ._patterns import ascii_identifier, check_base64, uri_match

if TYPE_CHECKING:
    from .._conversion._plan import WireField
    from ._instances import FieldPlan
    from ._rules import Limits, Rule

__all__ = [
    "ASCII_IDENTIFIER",
    "BINARY",
    "CHOICE",
    "FLAG",
    "FLAG_NONEMPTY",
    "FLAG_OPTIONAL",
    "FLAG_REQUIRED",
    "FREE",
    "JSON",
    "METADATA",
    "MISSING_KEY",
    "NULL_OPTIONAL",
    "OFFSET",
    "SCALAR",
    "TEXT",
    "TRIMMED",
    "URI_MATCH",
    "Entry",
    "FastText",
    "Kernel",
    "Kind",
    "Predicate",
    "Problems",
    "expected_one_of",
    "text_problem",
]

Problems = list[tuple[str, str]]


class Kernel(NamedTuple):
    """The C structurer's kernel for a field, by name, with its flags, argument and (for text) its limit."""

    name: str
    flags: int = 0
    arg: Any = None
    limit: int = 0


#: A field's C kernel, or None where C has none; the predicate compiles a rule the C walk calls back.
Entry = Kernel | None
Predicate = Callable[["WireField", "Limits"], Any]
MISSING_KEY = "required key missing"
NULL_OPTIONAL = "null is not allowed; omit the key instead"



@attrs.frozen
class FastText:
    """A text rule's fast check: a condition only valid values meet, and the C kernel that tests the same.

    ``condition`` is Python for the generator to inline: ``{v}`` is the value, ``{max}`` the limit's name,
    ``surrogate`` the scan for lone surrogates (C where the accelerator is built) and ``names`` binds any other
    name it calls. ``kernel`` names the C structurer's check for the same condition (one of
    ``_speedups.STRUCTURER["text_checks"]``); without one, C calls the condition compiled as a Python predicate,
    and ``_structure_table.fallbacks`` lists the field. A kernel that tests ASCII text against a set of
    characters (``ascii_chars``) takes them from ``chars``, its bound from ``longest`` where the rule has its
    own, and calls the predicate for any other text.
    """

    condition: str
    kernel: str | None = None
    names: dict[str, Any] = attrs.field(factory=dict, eq=False)
    chars: str | None = None
    longest: int | None = None


FREE = FastText("type({v}) is str and {v} and len({v}) <= {max} and ({v}.isascii() or not surrogate({v}))", "free")
TRIMMED = FastText(FREE.condition + " and not {v}[0].isspace() and not {v}[-1].isspace()", "trimmed")
ASCII_IDENTIFIER = FastText("type({v}) is str and ascii_identifier({v}) is not None", "ascii_chars",
                            names={"ascii_identifier": ascii_identifier}, chars=ASCII_IDENTIFIER_CHARS,
                            longest=MAX_IDENTIFIER_CHARS)
#: The whole check of a URI but its words: a call of the problem function saved per valid URI.
URI_MATCH = FastText("type({v}) is str and len({v}) <= {max} and uri_match({v}) is not None",
                     names={"uri_match": uri_match})
#: The flags of a field in the C structurer's table.
FLAG_OPTIONAL, FLAG_REQUIRED, FLAG_NONEMPTY = 1, 2, 4


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _absent(var: str, key: str, plan: WireField, none: str = "None") -> list[str]:
    """Read the key into ``var``: ``none`` where an optional key is absent, a missing-key problem elsewhere."""
    read = [f"{var} = raw.get({key!r}, MISSING)", f"if {var} is MISSING:"]
    if plan.optional:
        return [*read, f"    {var} = {none}"]
    return [*read, f"    problems.append(('.{key}', MISSING_KEY))"]


@attrs.frozen
class Kind:
    """A kind of value: text, a choice, a scalar, an offset, bytes, JSON, metadata, an instance or a sequence."""

    name: str

    def accepts(self, hint: Any) -> tuple[type, ...]:
        """The classes a value (or an item) of a field annotated ``hint`` may be; none for a plain value."""
        return ()

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        """What is wrong with one value for ``rule``, or None (``Rule.check``)."""
        msg = f"a {self.name} rule is checked by reading its field, not one value"
        raise TypeError(msg)

    def decode(self, rule: Rule, value: str, limits: Limits) -> bytes | str:
        """The bytes a value holds (``Rule.decode``): binary rules only."""
        msg = f"a {self.name} rule holds no bytes"
        raise TypeError(msg)

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        """A new instance's value as the field holds it; its problems appended under ``path``."""
        if value is None and plan.optional:
            return value
        message = self.check(plan.rule, value, limits)
        if message is not None:
            problems.append((path, message))
        return value

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        """The generated lines that read the field's key from ``raw`` into ``var``, appending to ``problems``."""
        # Any kind can be read by calling its own check: the fast path is for the kinds that inline theirs.
        key = plan.key
        ns[f"{prefix}rule"], ns[f"{prefix}limits"] = plan.rule, limits
        null = [f"elif {var} is None:", f"    problems.append(('.{key}', NULL_OPTIONAL))"] if plan.omitted else []
        return [*_absent(var, key, plan), *null, "else:", f"    problem = {prefix}rule.check({var}, {prefix}limits)",
                "    if problem is not None:", f"        problems.append(('.{key}', problem))"]  # fmt: skip

    def written(self, plan: WireField, value: str) -> str:
        """The generated expression that writes the field's ``value`` on the wire."""
        return value

    def shape(self, plan: WireField) -> str:
        """The C unstructurer's kernel for the field."""
        return "optional_attr" if plan.omitted else "attr"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        """The C structurer's kernel, flags, argument and limit for the field; None where C has no kernel."""
        return None

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        """The field's JSON Schema: the definition its rule names, or any value for a rule that names none."""
        return _ref(plan.rule.schema) if plan.rule.schema else {}


def text_problem(rule: Rule, value: object, max_chars: int, *, optional: bool = False) -> str | None:
    """What is wrong with ``value`` for a ``text`` rule (null counts as absent only where ``optional``)."""
    if type(value) is not str:
        if value is None and optional:
            return NULL_OPTIONAL
        return f"expected a string, got {describe_type(value)}"
    return rule.problem(value, max_chars)  # type: ignore[misc]


@attrs.frozen
class _Text(Kind):
    """A string ruled by its rule's ``problem`` and bound by its limit; the generator inlines ``fast``."""

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        return text_problem(rule, value, rule.max_chars(limits))

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key, optional = plan.key, plan.optional
        fast = bind_text_rule(plan.rule, var, prefix, ns, limits)
        slow = f"{var} = read_text(raw, {key!r}, problems, {prefix}rule, {prefix}max, {optional})"
        if optional:
            return [f"{var} = raw.get({key!r}, MISSING)", f"if {var} is MISSING:", f"    {var} = None",
                    f"elif not ({fast}):", f"    {slow}"]  # fmt: skip
        return [f"{var} = raw.get({key!r}, MISSING)", f"if not ({fast}):", f"    {slow}"]

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        fast, limit = plan.rule.fast, plan.rule.max_chars(limits)
        if fast is None or fast.kernel is None:
            return Kernel("string", FLAG_OPTIONAL if plan.optional else 0, predicate(plan, limits), limit)
        check = fast.kernel if fast.chars is None else (fast.kernel, fast.chars, predicate(plan, limits))
        return Kernel("string", FLAG_OPTIONAL if plan.optional else 0, check, fast.longest or limit)


def bind_text_rule(rule: Rule, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> str:
    """Bind a text rule, its bound and its check under ``prefix``; the inline condition on ``var`` that uses them."""
    ns[f"{prefix}rule"] = rule
    ns[f"{prefix}max"] = rule.max_chars(limits)
    ns[f"{prefix}problem"] = rule.problem
    ns.update(rule.fast.names if rule.fast is not None else {})
    return rule.fast_condition(var, f"{prefix}max", f"{prefix}problem")


def expected_one_of(rule: Rule) -> str:
    """The words for a value that is not one of a ``choice`` rule's values."""
    return f"expected one of: {', '.join(rule.choices)}"


@attrs.frozen
class _Choice(Kind):
    """A string that is one of the rule's ``choices``."""

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        return None if type(value) is str and value in rule.choices else expected_one_of(rule)

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key = plan.key
        ns[f"{prefix}choices"] = frozenset(plan.rule.choices)
        ns[f"{prefix}words"] = expected_one_of(plan.rule)
        return [f"{var} = raw.get({key!r}, MISSING)", f"if type({var}) is not str or {var} not in {prefix}choices:",
                f"    problems.append(('.{key}', MISSING_KEY if {var} is MISSING else {prefix}words))"]  # fmt: skip

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("choice", arg=frozenset(plan.rule.choices))

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        return {"enum": list(plan.rule.choices)}


@attrs.frozen
class _Scalar(Kind):
    """An int or a bool held as it is, ruled by the rule's ``problem`` (its type included)."""

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        return rule.problem(value, rule.max_chars(limits))  # type: ignore[misc]


@attrs.frozen
class _Flag(Kind):
    """A bool (``1`` is not one), held as it is."""

    def check(self, rule: Rule, value: object, limits: Limits) -> str | None:
        return None if type(value) is bool else f"expected a boolean, got {describe_type(value)}"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("flag", FLAG_OPTIONAL if plan.optional else 0)


@attrs.frozen
class _Offset(Kind):
    """An int ruled with its pair by a cross rule (a citation span's ends, a location's range)."""

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        return value

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key = plan.key
        return [f"{var} = raw.get({key!r})", f"if {var} is None and {key!r} in raw:",
                f"    problems.append(('.{key}', NULL_OPTIONAL))"]  # fmt: skip

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("offset", FLAG_OPTIONAL)


@attrs.frozen
class _Binary(Kind):
    """Bytes, base64 text on the JSON wire; empty refused where the rule's ``nonempty`` gives the words."""

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        if value is None and plan.optional:
            return value
        if isinstance(value, (bytearray, memoryview)):
            value = bytes(value)
        if type(value) is not bytes:
            problems.append((path, f"expected bytes, got {describe_type(value)}"))
        elif not value and plan.rule.nonempty:
            problems.append((path, plan.rule.nonempty))
        elif len(value) > limits.max_binary_bytes:
            problems.append((path, f"more than {limits.max_binary_bytes:,} bytes"))
        return value

    def decode(self, rule: Rule, value: str, limits: Limits) -> bytes | str:
        """The bytes base64 ``value`` holds under ``limits``, or a message saying what is wrong."""
        decoded = check_base64(value, limits.max_binary_bytes)
        return rule.nonempty if rule.nonempty and decoded == b"" else decoded

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        optional = plan.optional
        args = f"{optional}, {plan.rule.nonempty!r}, native_binary, {limits.max_binary_bytes}"
        return [f"{var} = read_binary(raw, {plan.key!r}, problems, {args})"]

    def written(self, plan: WireField, value: str) -> str:
        return f"binary({value})"

    def shape(self, plan: WireField) -> str:
        return "optional_binary" if plan.omitted else "binary"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        flags = (FLAG_OPTIONAL if plan.optional else 0) | (FLAG_NONEMPTY if plan.rule.nonempty else 0)
        return Kernel("binary", flags)

    def schema(self, plan: WireField, limits: Limits) -> dict[str, Any]:
        return {**_ref(plan.rule.schema), "minLength": 1} if plan.rule.nonempty else _ref(plan.rule.schema)


@attrs.frozen
class _Json(Kind):
    """Any JSON value, held read-only."""

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        return freeze(value, path, limits, problems)

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key = plan.key
        return [*_absent(var, key, plan), "else:", f"    {var} = freeze({var}, '.{key}', limits, problems)"]

    def written(self, plan: WireField, value: str) -> str:
        return f"thaw({value})"

    def shape(self, plan: WireField) -> str:
        return "thawed"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("json_value")


@attrs.frozen
class _Metadata(_Json):
    """A JSON object with non-empty keys, empty by default and then left out."""

    def hold(self, problems: Problems, path: str, value: Any, plan: FieldPlan, limits: Limits) -> Any:
        if type(value) is JsonObject and not value:
            return value
        return freeze_metadata(problems, path, value, limits)

    def structure(self, plan: WireField, var: str, prefix: str, ns: dict[str, Any], limits: Limits) -> list[str]:
        key = plan.key  # absent (most often) or empty is the one empty object; null is refused
        return [f"if {key!r} not in raw:", f"    {var} = EMPTY_OBJECT", f"elif raw[{key!r}] is None:",
                f"    problems.append(('.{key}', NULL_OPTIONAL))", f"    {var} = EMPTY_OBJECT",
                "else:", f"    {var} = freeze_metadata(problems, '.{key}', raw[{key!r}], limits, freeze)"]  # fmt: skip

    def shape(self, plan: WireField) -> str:
        return "nonempty_thawed"

    def table(self, plan: WireField, limits: Limits, predicate: Predicate) -> Entry:
        return Kernel("json_object", arg=EMPTY_OBJECT, limit=METADATA_KEY_MIN_CHARS)


TEXT = _Text("text")
CHOICE = _Choice("choice")
SCALAR = _Scalar("scalar")
FLAG = _Flag("flag")
OFFSET = _Offset("offset")
BINARY = _Binary("binary")
JSON = _Json("json")
METADATA = _Metadata("metadata")
