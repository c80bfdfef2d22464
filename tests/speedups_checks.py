"""Helpers the accelerator tests share: the skip marker, the miss, the hostile inputs and the pure freeze.

``ANY_VALUES`` draws any value, valid or not: lone surrogates, integers past 64 bits, NaN, non-str keys,
over-long text and the subclasses below, which the C walks hand back and the Python walks read safely.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from contentblocks._checks._rules import Limits
from contentblocks._conversion._kernels import speedups
from contentblocks._json import _freeze

needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built or is turned off")
MISS = object()


# ------------------------------------------------------------------------------------------ the inputs


class StrKey(str):
    __slots__ = ()


class IntSub(int):
    pass


class DictSub(dict):
    pass


class ListSub(list):
    pass


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.sampled_from([-(2**63), -(2**63) - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 0, -1]),
    st.floats(),  # NaN and the infinities included
    st.sampled_from([0.0, -0.0, 1e308, -5e-324]),
    st.text(max_size=8),  # lone surrogates, astral and Latin-1 characters included
    st.sampled_from(["", "abcdef", "abcdefg", "é" * 6, "é" * 7, "\U0001f600\ud800", "\udfff", "\u0100\ud800"]),
    st.builds(IntSub, st.integers(0, 3)),
    st.builds(StrKey, st.text(max_size=3)),
    st.sampled_from([b"x", {1, 2}, 1j, object]),
)
_KEYS = st.one_of(
    st.text(max_size=7),
    st.sampled_from(["\ud800", "k" * 7, "é\udc00"]),
    st.builds(StrKey, st.text(max_size=3)),
    st.sampled_from([1, 1.5, None, True, (1,), b"k"]),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=6),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=3).map(ListSub),
        st.dictionaries(_KEYS, children, max_size=6),
        st.dictionaries(st.text(max_size=3), children, max_size=3).map(DictSub),
    )


ANY_VALUES = st.recursive(_SCALARS, _containers, max_leaves=40)


def python_freeze(value: Any, limits: Limits, extra_depth: int = 0) -> tuple[Any, list[tuple[str, str]]]:
    """The pure walk's copy of ``value`` and the problems it found."""
    problems: list[tuple[str, str]] = []
    out = _freeze.freeze(value, "$", limits, problems, extra_depth=extra_depth)
    return out, problems
