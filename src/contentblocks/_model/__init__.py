"""The model: the attrs classes of blocks, messages and conversations, and what the wire adds to them.

``_classes`` declares the blocks and messages, each field naming its rule; ``_conversation`` and ``_growth`` hold a
conversation and the pairing of its tool calls as it grows; ``_wire`` says what the fields do not (the tags that
tell union members apart, the keys always written). These modules import attrs and the rules, never cattrs.
"""
