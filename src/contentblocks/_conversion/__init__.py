"""The wire plan and the conversion generated from it, installed as cattrs hooks.

``_plan`` derives each field's wire facts once; ``_gen`` writes the structure and unstructure functions, which
read their slow paths with ``_readers`` and ``_raw``; ``_structure_table`` is the C structurer's table;
``_kernels`` loads the optional C extension; ``_structure``, ``_unstructure`` and ``_converter`` install the
hooks; ``_unchecked`` builds instances the hooks have already checked.
"""
