"""Build the optional C accelerator, ``contentblocks._speedups``; everything else is in ``pyproject.toml``.

The extension is optional: without a C compiler or the Python headers, or with ``CONTENTBLOCKS_PURE_PYTHON``
set to a non-empty value, the build goes on without it and the package runs its pure-Python code, which
gives the same results (``contentblocks.speedups_enabled()`` tells which is in use).
"""

import os
from pathlib import Path

from setuptools import Extension, setup

SOURCES = sorted(str(path.as_posix()) for path in Path("src/speedups").glob("*.c"))
HEADERS = sorted(str(path.as_posix()) for path in Path("src/speedups").glob("*.h"))

ext_modules = []
if not os.environ.get("CONTENTBLOCKS_PURE_PYTHON"):
    ext_modules.append(Extension("contentblocks._speedups", SOURCES, depends=HEADERS, optional=True))

setup(ext_modules=ext_modules)
