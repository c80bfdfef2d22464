"""Shared pytest configuration: Hypothesis profiles and the import path for ``tests/strategies.py``.

Choose a profile with the ``HYPOTHESIS_PROFILE`` environment variable:

- ``default``: a modest number of examples, no deadline (the normal, quick run);
- ``ci``: the same, derandomized, so that CI runs are reproducible;
- ``long``: many examples, for a thorough run before a release.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
