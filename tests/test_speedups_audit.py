"""Regression tests for what an audit of the C kernels found: each fails on the code before its fix.

- ``thaw`` copied a ``JsonArray`` with ``PyList_GetSlice`` after reading its size; the copy allocates, an
  allocation can run a garbage collection, and a finalizer run by it can shrink the array, so the copy read
  freed slots.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from contentblocks import _json

speedups = _json.speedups
needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

# ------------------------------------------------------------------------------------------ thaw

THAW_DURING_A_COLLECTION = textwrap.dedent(
    """
    import gc
    from contentblocks import _json
    from contentblocks._accel import MISS, speedups

    victim = _json._array_from_items([_json._array_from_items([i]) for i in range(100)])
    shrunk = []

    def shrink(phase, info):
        if phase == "start" and not shrunk:
            list.clear(victim)  # what a finalizer can do to any JsonArray it can reach
            shrunk.append(True)

    gc.collect()
    gc.callbacks.append(shrink)
    threshold = gc.get_threshold()
    drain = [[] for _ in range(200)]  # no free list entry left: thaw's list is a new GC allocation
    gc.set_threshold(1)  # and that allocation starts a collection
    try:
        out = speedups.thaw(victim, MISS)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(shrink)
    print(shrunk == [True], out is MISS, _json.thaw(victim))
    """
)


@needs_speedups
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 collects between bytecodes, never inside an allocation")
def test_thaw_misses_an_array_a_collection_shrinks_while_it_allocates():
    """A collection started by thaw's own allocation empties the array: thaw misses, the Python walk copies it."""
    run = subprocess.run(  # noqa: S603 - our own interpreter; a crash must fail this test, not the suite
        [sys.executable, "-c", THAW_DURING_A_COLLECTION], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["True", "True", "[]"]
