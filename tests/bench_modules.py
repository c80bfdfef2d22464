"""The benchmark's modules (``bench/``), loaded by path for the tests that use them.

``bench/`` is not a package and its file names are short (``corpus``, ``profile``); each module is loaded
under a name of its own, once, so that no test shadows a standard-library module or loads one twice.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["BENCH", "bench_corpus", "load_bench_module"]

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench_module(name: str, path: Path, *, package: bool = False) -> ModuleType:
    """The module at ``path`` under ``name`` (a package's ``__init__.py`` with ``package``), loaded once."""
    if name in sys.modules:
        return sys.modules[name]
    locations = [str(path.parent)] if package else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bench_corpus() -> ModuleType:
    """``bench/corpus.py``, the deterministic corpus generator."""
    return load_bench_module("_contentblocks_bench_corpus", BENCH / "corpus.py")
