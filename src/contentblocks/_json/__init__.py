"""Frozen JSON values: the read-only containers blocks hold, and the strict copy into them.

``_values`` holds the containers, thawing and the canonical equality key; ``_freeze`` copies a value into them,
with the path of every problem.
"""
