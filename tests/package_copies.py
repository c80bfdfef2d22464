"""Throw-away copies of the package, edited the way a contributor would, and a script run against a copy.

The design tests (``test_new_kinds``, ``test_one_source``) change a declaration in a copy and check that every
backend follows, with the accelerator and without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import contentblocks


def copy_package(root: Path) -> Path:
    """A copy of the installed package (its built extension included) under ``root``; the copy's directory."""
    package = root / "contentblocks"
    shutil.copytree(Path(contentblocks.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one place ``old`` stands in ``path`` with ``new``."""
    text = path.read_text()
    assert text.count(old) == 1, (path.name, old)
    path.write_text(text.replace(old, new))


def run_in_copy(root: Path, script: str, *, pure: bool) -> tuple[Any, bool]:
    """What ``script`` prints as JSON, run on the copy under ``root``; and whether the accelerator should be on."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("CONTENTBLOCKS_PURE_PYTHON", None)
    if pure:
        env["CONTENTBLOCKS_PURE_PYTHON"] = "1"
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)  # noqa: S603
    assert run.returncode == 0, run.stderr
    built = any(path.suffix in (".so", ".pyd") for path in (root / "contentblocks").glob("_speedups*"))
    return json.loads(run.stdout), built and not pure
