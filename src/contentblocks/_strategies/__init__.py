"""Hypothesis strategies, re-exported by :mod:`contentblocks.strategies`.

``_values`` draws the leaves (strings, identifiers, URIs, JSON values); ``_blocks`` draws blocks, messages and
conversations from them.
"""
