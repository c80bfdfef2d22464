"""Shared pytest configuration: Hypothesis profiles and the import path for ``tests/strategies.py``.

Choose a profile with the ``HYPOTHESIS_PROFILE`` environment variable:

- ``default``: a modest number of examples, no deadline (the normal, quick run);
- ``ci``: the same, derandomized, so that CI runs are reproducible;
- ``long``: many examples, for a thorough run before a release.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Test modules import their helpers as ``import strategies`` (pytest runs with --import-mode=importlib,
# which does not put the test directory on sys.path).
_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

settings.register_profile(
    "default", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True, database=None)
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's module-level C calls turned off, in this process: the pure-Python JSON walks, base64
    decoder, duplicate-key hook and JSON writer run instead.

    The instance makers, the unstructurer and the surrogate scan are bound into the hooks when a converter is
    built, so they stay; a fresh interpreter with ``CONTENTBLOCKS_PURE_PYTHON=1`` (the second run in CI) covers
    them.
    """
    from contentblocks import _api, _json, _rules  # noqa: PLC0415

    monkeypatch.setattr(_api, "_c_dumps", None)
    monkeypatch.setattr(_rules, "_c_b64decode", None)
    monkeypatch.setattr(_json, "_c_freeze", None)
    monkeypatch.setattr(_json, "_c_thaw", None)
    decode = json.JSONDecoder(object_pairs_hook=_api._python_pairs, parse_constant=_api._constant).decode
    monkeypatch.setattr(_api, "_decode", decode)
