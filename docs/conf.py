"""Sphinx configuration: MyST pages, the furo theme, autodoc from docstrings, and every example run as a doctest.

Build (both must pass with warnings as errors and nitpicky references)::

    sphinx-build -W -n -b html docs docs/_build/html
    sphinx-build -W -n -b doctest docs docs/_build/doctest
"""

from __future__ import annotations

import doctest
import os
import re
from importlib.metadata import version as _version
from pathlib import Path

from sphinx.application import Sphinx

project = "contentblocks"
author = "The contentblocks developers"
copyright = "2026, The contentblocks developers"
release = _version("contentblocks")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# ------------------------------------------------------------------------------------------ MyST

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# ------------------------------------------------------------------------------------------ HTML

html_theme = "furo"
html_title = f"contentblocks {release}"
html_static_path: list[str] = []

# ------------------------------------------------------------------------------------------ autodoc

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# ------------------------------------------------------------------------------------------ doctest

# The same flags and the same pre-import as tests/test_docs.py, so both runs agree on every example.
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
doctest_global_setup = "import contentblocks as cb"
doctest_test_doctest_blocks = ""  # only the explicit {doctest} fences run; docstrings run under pytest

# ------------------------------------------------------------------------------------------ references

nitpicky = True

# Intersphinx needs the network to fetch the Python, attrs and cattrs inventories; the build must pass
# offline, so it is switched on only where the network is open (CONTENTBLOCKS_DOCS_INTERSPHINX=1).
if os.environ.get("CONTENTBLOCKS_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "attrs": ("https://www.attrs.org/en/stable/", None),
        "cattrs": ("https://catt.rs/en/stable/", None),
    }

nitpick_ignore = [
    # cattrs' converter classes (in signatures and as base classes): resolvable only through intersphinx.
    ("py:class", "cattrs.converters.BaseConverter"),
    ("py:class", "cattrs.converters.Converter"),
    ("py:class", "cattrs.preconf.json.JsonConverter"),
    ("py:class", "cattrs.preconf.orjson.OrjsonConverter"),
    ("py:class", "cattrs.preconf.msgpack.MsgpackConverter"),
    ("py:class", "cattrs.preconf.cbor2.Cbor2Converter"),
    # Hypothesis' strategy type (the return type of every contentblocks.strategies function): intersphinx only.
    ("py:class", "hypothesis.strategies.SearchStrategy"),
    # Standard-library ABCs in signatures (``metadata: Mapping``, ``errors: Iterable``): resolvable only through
    # intersphinx.
    ("py:class", "collections.abc.Mapping"),
    ("py:class", "collections.abc.Iterable"),
    ("py:class", "collections.abc.Iterator"),
    ("py:class", "collections.abc.Sequence"),
    ("py:class", "collections.abc.Callable"),
]
nitpick_ignore_regex = [
    # The type variable of generic signatures (``structure(data, target: type[T]) -> T``, the preconf ``loads``):
    # a TypeVar is not a documented object.
    ("py:class", r"contentblocks\.(_api|preconf\.(json|orjson|msgpack|cbor2))\.T"),
    ("py:class", r"contentblocks\.providers\._contract\.PayloadT"),
    # ``structure(data, target: TypeForm[T]) -> T`` (PEP 747): TypeForm is imported for type checkers only, so
    # autodoc sees the names unresolved.
    ("py:class", r"TypeForm|T"),
]

# ------------------------------------------------------------------------------------------ optional pages

# Pages written alongside this site; while one of them does not exist yet, toctree entries naming it are dropped
# and {doc} links to it become plain emphasis, so the build stays clean (-W) whatever order the pages land in.
# Nothing else is ever dropped.
OPTIONAL_PAGES = frozenset(
    {
        "benchmarks",
        "security",
        "limits",
        "schema",
        "providers/anthropic",
        "providers/openai_chat",
        "providers/openai_responses",
        "providers/gemini",
        "providers/mcp",
    }
)
_TOCTREE = re.compile(r"(```\{toctree\}.*?\n)(.*?)(```)", re.DOTALL)
_DOC_ROLE = re.compile(r"\{doc\}`(?P<text>[^`<]*?)(?:\s*<(?P<target>[^>`]+)>)?`")


def _drop_missing_pages(app: Sphinx, docname: str, source: list[str]) -> None:
    """Drop toctree entries of, and links to, optional pages whose files are not there yet."""
    found = app.env.found_docs  # Sphinx's own list, so a page appearing mid-build cannot half-exist
    folder = Path(docname).parent

    def keep(line: str) -> bool:
        entry = line.strip()
        if not entry or entry.startswith(":"):
            return True
        target = (folder / entry).as_posix().removeprefix("./")
        return target not in OPTIONAL_PAGES or target in found

    def rewrite(match: re.Match[str]) -> str:
        body = "".join(line for line in match.group(2).splitlines(keepends=True) if keep(line))
        return match.group(1) + body + match.group(3)

    def unlink(match: re.Match[str]) -> str:
        text, target = match.group("text").strip(), match.group("target") or match.group("text").strip()
        resolved = (folder / target).as_posix().removeprefix("./") if not target.startswith("/") else target[1:]
        if resolved in OPTIONAL_PAGES and resolved not in found:
            return f"*{text}*"
        return match.group(0)

    source[0] = _DOC_ROLE.sub(unlink, _TOCTREE.sub(rewrite, source[0]))


def setup(app: Sphinx) -> None:
    """Register the toctree filter for optional pages."""
    app.connect("source-read", _drop_missing_pages)
