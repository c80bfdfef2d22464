"""History transforms: repair a broken history, keep a window of it under a budget, prune what is old.

``_turns`` finds where a history may be cut, ``_repair``, ``_window`` and ``_prune`` are the transforms,
``_estimate`` (with ``_images``) estimates tokens for budgets, and ``_usage`` totals what the replies used.
Each transform returns a ``Converted``: the new ``Conversation`` and a ``Loss`` for every change. The facade
re-exports the public names.
"""

from __future__ import annotations

from ._estimate import TokenEstimator, estimate_tokens
from ._prune import PRUNED_RESULT_TEXT, prune
from ._repair import UNANSWERED_RESULT_TEXT, repair
from ._usage import total_usage
from ._window import window

__all__ = ["PRUNED_RESULT_TEXT", "UNANSWERED_RESULT_TEXT", "TokenEstimator", "estimate_tokens", "prune", "repair",
           "total_usage", "window"]
