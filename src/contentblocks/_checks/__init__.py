"""Checking values: the grammars, the rules that use them, and the one object per kind of value.

``_grammar`` writes each string grammar once (for ``re`` and for JSON Schema) and ``_patterns`` compiles its checks;
``_rules`` declares every field and cross-field rule with its wording and limits; ``_kinds`` and ``_kinds_nested``
are the kinds of value the backends ask; ``_instances`` is the check a class built in Python runs.
"""
