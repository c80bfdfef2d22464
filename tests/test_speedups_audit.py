"""Regression tests for what an audit of the C kernels found: each fails on the code before its fix.

- ``thaw`` copied a ``JsonArray`` with ``PyList_GetSlice`` after reading its size; the copy allocates, an
  allocation can run a garbage collection, and a finalizer run by it can shrink the array, so the copy read
  freed slots.
- ``freeze`` cast ``max_depth`` from ``long`` to ``int`` with no lower bound, so ``-(2**32) + 3`` was a depth
  of 3 and ``2**63`` an OverflowError; a negative size limit was taken as "refuse everything".
- ``instance_maker`` accepted a slot named twice (or under two names), and each call then leaked the
  reference it overwrote.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

from contentblocks._conversion._kernels import MISS, speedups

needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")

# ------------------------------------------------------------------------------------------ thaw

THAW_DURING_A_COLLECTION = textwrap.dedent(
    """
    import gc
    from contentblocks._json import _values as _json
    from contentblocks._conversion._kernels import MISS, speedups

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


# ------------------------------------------------------------------------------------------ freeze's limits


@needs_speedups
@pytest.mark.parametrize("place", ["max_chars", "max_depth", "max_nodes"])
@pytest.mark.parametrize("value", [-1, -(2**32) + 3, -(2**63), -(10**30)])
def test_freeze_refuses_a_negative_limit(place, value):
    """A negative limit is a ValueError naming it, never a limit (``-(2**32) + 3`` was a depth of 3)."""
    limits = {"max_chars": 10, "max_depth": 5, "max_nodes": 100, place: value}
    with pytest.raises(ValueError, match=f"freeze\\(\\) {place} must not be negative"):
        speedups.freeze([[1]], limits["max_chars"], limits["max_depth"], limits["max_nodes"], MISS)


@needs_speedups
@pytest.mark.parametrize("place", [1, 2, 3])
@pytest.mark.parametrize("value", [1.5, "3", None])
def test_freeze_refuses_a_limit_that_is_not_an_int(place, value):
    """A limit of another type is a TypeError."""
    args: list[object] = [[1], 10, 5, 100, MISS]
    args[place] = value
    with pytest.raises(TypeError):
        speedups.freeze(*args)


@needs_speedups
def test_freeze_takes_every_limit_from_zero_up():
    """Zero admits nothing of its kind; a depth past what C recurses, however large, hands the value back."""
    assert speedups.freeze(7, 0, 0, 0, MISS) == 7
    assert speedups.freeze([], 10, 0, 100, MISS) is MISS
    assert speedups.freeze([[1]], 10, 2, 100, MISS) == [[1]]
    assert speedups.freeze([[1]], 10, 1, 100, MISS) is MISS
    assert speedups.freeze("ab", 1, 5, 100, MISS) is MISS
    assert speedups.freeze([1, 2], 10, 5, 2, MISS) is MISS
    for depth in (1001, 2**31 + 2, 2**63, 10**30):
        assert speedups.freeze([[1]], 10, depth, 100, MISS) is MISS


# ------------------------------------------------------------------------------------------ instance_maker


class Pair:
    __slots__ = ("first", "second")


class Aliased(Pair):
    __slots__ = ()


Aliased.also_first = Pair.__dict__["first"]  # type: ignore[attr-defined]  # one slot, two names


@needs_speedups
@pytest.mark.parametrize(
    ("cls", "names", "message"),
    [
        (Pair, ("first", "first"), "'first' names the same slot as 'first'"),
        (Pair, ("second", "first", "second"), "'second' names the same slot as 'second'"),
        (Aliased, ("first", "second", "also_first"), "'also_first' names the same slot as 'first'"),
    ],
)
def test_instance_maker_refuses_a_slot_named_twice(cls, names, message):
    """Two names of one slot are a ValueError: the second value would overwrite the first without releasing it."""
    with pytest.raises(ValueError, match=message):
        speedups.instance_maker(cls, names)


@needs_speedups
def test_no_maker_leaks_a_reference():
    """Whatever names a maker is asked for, the values it was given are released with the instances it made."""
    values: list[Any] = [object(), object(), object()]
    before = [sys.getrefcount(value) for value in values]
    for names in [("first", "second"), ("second", "first"), ("first", "first"), ("first", "also_first")]:
        try:
            make = speedups.instance_maker(Aliased, names)
        except ValueError:
            continue
        for _ in range(1000):
            make(*values[: len(names)])
    assert [sys.getrefcount(value) for value in values] == before
