"""Inputs found by fuzzing (atheris in ``fuzz/``, the mutation properties in ``test_hostile.py``), kept as tests.

Each test names what was found and when; the input is written out literally (or by a tiny builder), so the
test needs neither atheris nor a corpus file.
"""

from __future__ import annotations

import pytest

import contentblocks as cb
from hostile_strategies import MAX_MESSAGE_CHARS


def messages_of(raw: object, target: object = cb.Block, conv: object = cb) -> list[str]:
    with pytest.raises(cb.ValidationError) as info:
        conv.structure(raw, target)  # type: ignore[attr-defined]
    return [message for _, message in info.value.errors]


# atheris, fuzz/harness.py, first run (crash-4ffd2c62): a block type of 17 astral code points. The preview
# is 32 code points, but escaped with ensure_ascii each astral one becomes 12 characters (a surrogate pair),
# so the message grew past 300 characters: the preview must be bounded by its escaped length.
ASTRAL_TAG = "\U001070ff\U00102240" + "\U0010ffff" * 15


@pytest.mark.parametrize("raw", [
    {"type": ASTRAL_TAG},
    {"type": "\U0001f600" * 40},
    {"type": "text", "text": "x", "\U0001f600" * 40: 1},
    {"type": "file", "media_type": "a/b", "source": {"type": "\U0001f600" * 40}},
    {"type": "text", "text": "x", "citations": [{"source": {"kind": "\U0001f600" * 40, "value": "x"}}]},
])
def test_preview_of_astral_characters_stays_short(raw: object) -> None:
    """A preview of astral characters (12 escaped characters each) keeps the message short (``MAX_MESSAGE_CHARS``)."""
    for message in messages_of(raw):
        assert len(message) < MAX_MESSAGE_CHARS


def test_preview_of_astral_key_in_path_stays_short() -> None:
    """A path through an object key of astral characters stays short too."""
    with pytest.raises(cb.ValidationError) as info:
        cb.structure({"type": "json", "value": {"\U0001f600" * 40: float("nan")}}, cb.Block)
    (path, _), = info.value.errors
    assert len(path) < MAX_MESSAGE_CHARS
