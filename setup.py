"""Build the optional C accelerator, ``contentblocks._speedups``; everything else is in ``pyproject.toml``.

The extension is optional: without a C compiler or the Python headers, or with ``CONTENTBLOCKS_PURE_PYTHON``
set to a non-empty value, the build goes on without it and the package runs its pure-Python walks, which
give the same results (``contentblocks.speedups_enabled()`` tells which is in use).
"""

import os

from setuptools import Extension, setup

ext_modules = []
if not os.environ.get("CONTENTBLOCKS_PURE_PYTHON"):
    ext_modules.append(Extension("contentblocks._speedups", ["src/contentblocks/_speedups.c"], optional=True))

setup(ext_modules=ext_modules)
