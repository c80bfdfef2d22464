"""Tests of ``contentblocks.streaming``: the vocabulary, the fold, the provider stream readers."""
