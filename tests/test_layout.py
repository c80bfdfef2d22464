"""The package's layout: no import cycles between its modules, deferred imports included; the core's line budget."""

from __future__ import annotations

import ast
from pathlib import Path

import contentblocks

PACKAGE = Path(contentblocks.__file__).parent


def _modules() -> dict[str, Path | None]:
    """Every module of the package by dotted name (an extension's stub stands for the extension)."""
    found: dict[str, Path | None] = {}
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in {".py", ".pyi"}:
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.setdefault(".".join(parts), path if path.suffix == ".py" else None)
    return found


def _imports(name: str, path: Path, modules: dict[str, Path | None]) -> set[str]:
    """The package's modules that ``name`` imports, at any depth, but for type checking only."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # an import for annotations never runs
            if isinstance(child, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - child.level + 1] if child.level else []
                source = ".".join([*base, *([child.module] if child.module else [])])
                subs = {f"{source}.{alias.name}" for alias in child.names} & modules.keys()
                found.update(subs if len(subs) == len(child.names) else {*subs, source})
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name in modules)
            visit(child)

    visit(ast.parse(path.read_text("utf-8")))
    return found & modules.keys() - {name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := walk(target)) is not None:
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start)) is not None:
            return found
    return None


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle, counting the imports deferred into functions, which only hide one."""
    modules = _modules()
    graph = {name: _imports(name, path, modules) if path else set() for name, path in modules.items()}
    assert len(graph) > 50  # the walk found the package
    assert _cycle(graph) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The check above can fail: a cycle of three is found, and a chain is not one."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


#: The conversion core (issue 32): checking, frozen JSON values, the wire facts and the conversion generated from
#: them. The model's declarations are counted apart: the attrs classes of blocks, messages, citations, approvals
#: and conversations, with their docstrings, grow with every block kind by design, while the machinery that
#: converts them must not.
CONVERSION_CORE = ("_checks", "_json", "_conversion", "_model")
DECLARATIONS = frozenset({"_classes.py", "_values.py", "_approvals.py", "_conversation.py", "_growth.py"})
CORE_LINE_BUDGET = 4_000


def _core_lines() -> dict[str, int]:
    """Lines (docstrings, comments and blank lines included, as ``wc -l`` counts) of each core module."""
    return {
        f"{package}/{path.name}": len(path.read_text("utf-8").splitlines())
        for package in CONVERSION_CORE
        for path in sorted((PACKAGE / package).glob("*.py"))
        if not (package == "_model" and path.name in DECLARATIONS)
    }


def test_the_conversion_core_stays_within_its_line_budget() -> None:
    lines = _core_lines()
    assert sum(lines.values()) <= CORE_LINE_BUDGET, sorted(lines.items(), key=lambda item: -item[1])


def test_the_line_count_leaves_out_only_declarations_that_exist() -> None:
    # a stale name in DECLARATIONS would leave out, unnoticed, a core module that later takes that name
    assert {path.name for path in (PACKAGE / "_model").glob("*.py")} >= DECLARATIONS
    assert "_model/_wire.py" in _core_lines()
