"""The redesign's guarantees: every rule declared once, conversion generated from it, C free of wire keys."""

from __future__ import annotations

import ast
import inspect
import linecache
import pickle
import re
import typing
from pathlib import Path

import attrs
import cattrs
import pytest
from cattrs.preconf.json import make_converter as cattrs_json_converter

import contentblocks as cb
from contentblocks._checks import _rules
from contentblocks._checks._instances import plan_of
from contentblocks._conversion import _gen
from contentblocks._model import _classes as _model
from contentblocks._model import _wire
from contentblocks._schema import _document as _schema
from contentblocks._schema._parts import DEFINITIONS

SRC = Path(cb.__file__).parent
SPEEDUPS = SRC.parent / "speedups"


def test_every_field_of_every_wire_class_names_its_rule():
    """No field is converted by a rule stated somewhere else: each carries its rule in its metadata."""
    for cls in (*_gen.CLASSES, cb.Conversation):
        for field in attrs.fields(cls):
            assert isinstance(field.metadata.get("rule"), _rules.Rule), (cls.__name__, field.name)


def test_the_role_and_outcome_choices_are_the_literal_types():
    """The roles and outcomes a value may take are the ``Role`` and ``Outcome`` literals, and the role table's keys."""
    role = next(p for p in plan_of(cb.Message)[0] if p.key == "role")
    outcome = next(p for p in plan_of(cb.ToolResultBlock)[0] if p.key == "outcome")
    assert role.rule.choices == typing.get_args(cb.Role) == tuple(_model.ROLE_BLOCKS)
    assert outcome.rule.choices == typing.get_args(cb.Outcome)


def test_block_kind_names_are_the_wire_tags():
    """The model's names for block kinds (in its role messages) are the tags the wire gives them."""
    union = _wire.union_of(cb.Block)
    assert union is not None
    assert {tag: _model.kind_name(cls) for tag, cls in union.members.items()} == {t: t for t in union.members}


def _c_sources() -> list[Path]:
    return sorted([*SPEEDUPS.glob("*.c"), *SPEEDUPS.glob("*.h")])


@pytest.mark.skipif(not SPEEDUPS.is_dir(), reason="the C sources are not in this checkout")
def test_no_c_source_holds_a_wire_key_or_tag():
    """A change of the format never touches C: no C file spells a key or a tag of the wire format."""
    words = {key for cls in _gen.CLASSES for key in _wire.keys_of(cls)}
    words |= {tag for union in _wire.UNIONS for tag in union.members}
    found = []
    for path in _c_sources():
        literals = set(re.findall(r'"((?:[^"\\]|\\.)*)"', path.read_text()))
        found += [(path.name, word) for word in sorted(words & literals)]
    assert not found
    assert _c_sources()


def _imports(module: str) -> set[str]:
    """The package's modules that ``module`` (dotted, below the package) imports at its top level."""
    path = SRC.joinpath(*module.split(".")).with_suffix(".py")
    package = module.split(".")[:-1]
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            source = [*base, *(node.module.split(".") if node.module else [])]
            for alias in node.names if node.module is None else [None]:
                name = ".".join([*source, alias.name] if alias else source)
                if SRC.joinpath(*name.split(".")).with_suffix(".py").exists():
                    names.add(name)
    return names


def test_the_model_imports_neither_the_c_extension_nor_the_wire():
    """Importing the model loads no C and no conversion: its imports reach neither, at any depth."""
    seen, stack = set(), ["_model._classes", "_model._conversation"]
    while stack:
        module = stack.pop()
        if module not in seen:
            seen.add(module)
            stack.extend(_imports(module))
    assert "_checks._rules" in seen  # the walk follows imports
    assert not {name for name in seen if name.startswith("_conversion.") or name == "_model._wire"}, seen


def test_public_classes_belong_to_the_facade():
    """``help()``, reprs and pickles name the public classes as ``contentblocks.X``."""
    for name in cb.__all__:
        value = getattr(cb, name)
        if isinstance(value, type):
            assert value.__module__ == "contentblocks", name
    assert repr(cb.TextBlock) == "<class 'contentblocks.TextBlock'>"
    assert b"contentblocks\x94\x8c\tTextBlock" in pickle.dumps(cb.TextBlock(text="a"))
    assert pickle.loads(pickle.dumps(cb.TextBlock(text="a"))) == cb.TextBlock(text="a")  # noqa: S301 - our own bytes


def test_generated_functions_show_their_source():
    """The generated structure and unstructure functions are registered with linecache, as cattrs' are."""
    bodies = _gen.structure_bodies(cb.Limits(), native_binary=False)
    structure = bodies.by_class[cb.TextBlock]
    assert inspect.getsource(structure).startswith("def structure_TextBlock(raw, problems):")
    code = structure.__code__
    assert linecache.getline(code.co_filename, code.co_firstlineno).startswith("def structure_TextBlock")
    unstructure = _gen.unstructure_functions(native_binary=False, plain_json=True)[cb.Citation]
    assert "def unstructure_Citation(obj):" in inspect.getsource(unstructure)


def test_every_rule_has_a_schema_definition_and_every_cross_rule_a_schema():
    """The schema is derived: each rule names a definition that exists, each cross rule has its fragment."""
    for cls in _gen.CLASSES:
        fields, cross_rules = plan_of(cls)
        for plan in fields:
            if plan.rule.kind.name not in ("choice", "one", "many"):
                assert plan.rule.schema in DEFINITIONS, (cls.__name__, plan.key)
        for cross in cross_rules:
            assert cross in _schema._CROSS, cls.__name__


@pytest.mark.parametrize(
    "make",
    [cattrs.BaseConverter, cattrs.Converter, cattrs_json_converter],
    ids=["BaseConverter", "Converter", "preconf-json"],
)
def test_hooks_survive_copy_and_leave_other_types_alone(make):
    """The hook factories survive ``copy()`` on every kind of converter; a user's own types convert as before."""

    @attrs.define
    class Note:
        body: str
        tags: tuple[str, ...] = ()

    def outcomes(conv):
        """What the converter does with a user's class and with shared types: results, or the error's type."""
        results = []
        for call in (
            lambda: conv.structure({"body": "x", "tags": ["a"]}, Note),
            lambda: conv.unstructure(Note("x", ("a",))),
            lambda: conv.structure(b"x", bytes),
            lambda: conv.structure({"a": 1}, dict),
        ):
            try:
                results.append(call())
            except Exception as e:  # noqa: BLE001 - the type is what is compared
                results.append(type(e))
        return results

    before = outcomes(make())
    converter = make()
    cb.configure_converter(converter, max_text_chars=3)
    for conv in (converter, converter.copy()):
        assert outcomes(conv) == before
        assert conv.structure({"type": "text", "text": "abc"}, cb.Block) == cb.TextBlock(text="abc")
        with pytest.raises(cb.ValidationError, match="longer than 3"):
            conv.structure({"type": "text", "text": "abcd"}, cb.TextBlock)
        assert conv.unstructure(cb.Message(role="user", content="hi")) == {
            "role": "user",
            "content": [{"type": "text", "text": "hi"}],
        }


def test_preconf_modules_have_their_own_documented_functions():
    """Each preconf module's configure and make functions are real functions whose docstrings say what they add."""
    from contentblocks.preconf import cbor2, json, msgpack, orjson  # noqa: PLC0415

    for module in (json, orjson, msgpack, cbor2):
        for function in (module.configure_converter, module.make_converter):
            assert inspect.isfunction(function)
            assert function.__module__ == module.__name__
        assert "register_structure_hook_factory" in (module.configure_converter.__doc__ or "")
