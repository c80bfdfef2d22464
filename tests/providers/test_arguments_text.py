"""Tool-call arguments read from JSON text: the text is kept exactly when compact JSON would not give it back.

``read_arguments`` asks the C writer whether the text is the value's compact JSON where it can answer (ASCII text
with no ``\\u`` escape and no DEL), and ``json`` otherwise; both must decide as ``json_text(value) == raw`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contentblocks import strategies
from contentblocks.providers._arguments import _is_json_text, json_text, raw_arguments, read_arguments

#: The ways a provider or a user spells the same arguments.
SPELLINGS: dict[str, Callable[[Any], str]] = {
    "compact": json_text,
    "compact ASCII": lambda v: json.dumps(v, separators=(",", ":")),
    "json.dumps": json.dumps,
    "json.dumps, non-ASCII as it is": lambda v: json.dumps(v, ensure_ascii=False),
    "sorted compact": lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True),
}

#: Strings whose compact text differs between the ASCII and the non-ASCII writer, or holds a ``\u`` of its own.
AWKWARD = st.sampled_from(["é", "\u001f", "\x7f", "\\u00e9", "\u2028", "😀", "tab\there", 'q"uote', "plain"])


@given(
    value=st.one_of(strategies.json_values(), st.dictionaries(AWKWARD, st.lists(AWKWARD, max_size=3), max_size=3)),
    spelling=st.sampled_from(sorted(SPELLINGS)),
)
def test_the_text_is_compact_json_exactly_when_json_says_so(value: Any, spelling: str) -> None:
    raw = SPELLINGS[spelling](value)
    assert _is_json_text(value, raw) is (json_text(value) == raw)


@given(
    value=st.one_of(strategies.json_values(), st.lists(AWKWARD, max_size=4)),
    spelling=st.sampled_from(sorted(SPELLINGS)),
)
def test_arguments_go_back_byte_for_byte(value: Any, spelling: str) -> None:
    raw = SPELLINGS[spelling](value)
    read, kept = read_arguments(raw)
    assert raw_arguments(read, kept) == raw
    assert ("openai/arguments" in kept) is (json_text(json.loads(raw)) != raw)


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ('{"a":"é"}', False),  # non-ASCII as it is: compact JSON
        ('{"a":"\\u00e9"}', True),  # the same value escaped: ASCII text, but not what json_text writes
        ('{"a":"\\u001f"}', False),  # a control character: both writers escape it so
        ('{"a":"\x7f"}', False),  # DEL: only the ASCII writer escapes it
        ('{"a":"\\u007f"}', True),
        ('{"a":"\\\\u00e9"}', False),  # a backslash and a "u", no escape: compared by json
        ('{"a": 1}', True),
        ('{"a":1.0}', False),
        ('{"a":1E2}', True),
    ],
)
def test_escapes_and_spacing_decide_whether_the_text_is_kept(raw: str, kept: bool) -> None:
    value, meta = read_arguments(raw)
    assert ("openai/arguments" in meta) is kept
    assert raw_arguments(value, meta) == raw
