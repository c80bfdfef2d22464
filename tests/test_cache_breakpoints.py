"""Cache breakpoints (issue 33, item 5): the ``cache`` field of every block and message, its rule and its wire form.

The breakpoint is a field, so its wire form, its rule's wording on both paths, the schema and the round trips are
tested here; the adapters' mappings are in ``tests/providers/test_cache_breakpoints.py``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

import contentblocks as cb
from contentblocks import strategies
from contentblocks._checks._grammar import TTL_MAX
from contentblocks.preconf import cbor2 as cbor_preconf
from contentblocks.preconf import json as json_preconf
from contentblocks.preconf import msgpack as msgpack_preconf

BREAKPOINT = cb.CacheBreakpoint(ttl=3600)
URL = cb.UrlSource(url="https://example.com/a.pdf")
BLOCKS = [
    cb.TextBlock(text="Long prompt", cache=BREAKPOINT),
    cb.RefusalBlock(text="No.", cache=BREAKPOINT),
    cb.FileBlock(media_type="application/pdf", source=URL, cache=BREAKPOINT),
    cb.ReasoningBlock(text="Hmm.", cache=BREAKPOINT),
    cb.ToolCallBlock(tool_call_id="c1", tool_name="f", input={}, cache=BREAKPOINT),
    cb.ToolResultBlock(tool_call_id="c1", tool_name="f", outcome="succeeded",
                       content=[cb.TextBlock(text="r", cache=cb.CacheBreakpoint())], cache=BREAKPOINT),
    cb.JsonBlock(value=1, cache=BREAKPOINT),
]


def problems(call):
    try:
        call()
    except cb.ValidationError as error:
        return error.errors
    raise AssertionError("accepted")


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: type(b).__name__)
def test_every_block_carries_a_breakpoint_just_before_its_metadata(block):
    wire = cb.unstructure(block)
    assert wire["cache"] == {"ttl": 3600}
    keys = list(wire)
    assert keys[-1] == "cache"  # metadata, when there is any, comes after it
    assert cb.structure(wire, cb.Block) == block
    assert cb.loads(cb.dumps(block), cb.Block) == block


def test_a_message_carries_one_after_its_last_block_and_no_breakpoint_is_no_key():
    message = cb.Message(role="user", content="Hi", cache=cb.CacheBreakpoint(), metadata={"app/x": 1})
    assert cb.unstructure(message) == {"role": "user", "content": [{"type": "text", "text": "Hi"}], "cache": {},
                                       "metadata": {"app/x": 1}}
    assert "cache" not in cb.unstructure(cb.Message(role="user", content="Hi"))
    assert "cache" not in cb.unstructure(cb.TextBlock(text="Hi"))


def test_existing_documents_read_and_write_as_before():
    raw = {"role": "user", "content": [{"type": "text", "text": "hi", "metadata": {"a/b": 1}}]}
    assert cb.unstructure(cb.structure(raw, cb.Message)) == raw


@pytest.mark.parametrize(
    ("cache", "expected"),
    [
        ({"ttl": 0}, [("$.cache.ttl", "must be 1 or more (seconds)")]),
        ({"ttl": -5}, [("$.cache.ttl", "must be 1 or more (seconds)")]),
        ({"ttl": TTL_MAX + 1}, [("$.cache.ttl", "must be at most 2147483647 seconds (2**31-1)")]),
        ({"ttl": True}, [("$.cache.ttl", "expected an integer, got a boolean")]),
        ({"ttl": 1.5}, [("$.cache.ttl", "expected an integer, got a float")]),
        ({"ttl": "5m"}, [("$.cache.ttl", "expected an integer, got a string")]),
        ({"ttl": None}, [("$.cache.ttl", "null is not allowed; omit the key instead")]),
        ({"mode": "explicit"}, [("$.cache.mode", "unknown key (a cache breakpoint has: ttl)")]),
        (None, [("$.cache", "null is not allowed; omit the key instead")]),
        ([], [("$.cache", "expected an object, got an array")]),
    ],
)
def test_each_way_a_breakpoint_is_wrong_is_worded(cache, expected):
    raw = {"type": "json", "value": 1, "cache": cache}
    assert problems(lambda: cb.structure(raw, cb.Block)) == expected
    assert problems(lambda: cb.loads(json.dumps(raw), cb.Block)) == expected
    message = {"role": "user", "content": "hi", "cache": cache}
    assert problems(lambda: cb.structure(message, cb.Message)) == expected


@pytest.mark.parametrize("ttl", [0, -1, TTL_MAX + 1, True, 1.0, "300"])
def test_a_breakpoint_built_in_python_is_checked(ttl):
    assert problems(lambda: cb.CacheBreakpoint(ttl=ttl))[0][0] == "$.ttl"


@pytest.mark.parametrize("ttl", [None, 1, 300, 3600, TTL_MAX])
def test_the_bounds_are_accepted(ttl):
    block = cb.JsonBlock(value=None, cache=cb.CacheBreakpoint(ttl=ttl))
    assert cb.structure(cb.unstructure(block), cb.Block) == block


def test_the_field_takes_only_a_breakpoint_in_python():
    assert problems(lambda: cb.TextBlock(text="a", cache={"ttl": 5}))[0][0] == "$.cache"  # type: ignore[arg-type]


def test_the_schema_describes_it():
    schema = cb.json_schema(cb.Conversation)["$defs"]
    assert schema["CacheBreakpoint"]["properties"] == {"ttl": {"$ref": "#/$defs/Ttl"}}
    assert schema["CacheBreakpoint"]["additionalProperties"] is False
    assert schema["Ttl"] == {"description": "A time to live in seconds.", "type": "integer", "minimum": 1,
                             "maximum": TTL_MAX}
    for name in ("TextBlock", "RefusalBlock", "FileBlock", "ReasoningBlock", "ToolCallBlock", "ToolResultBlock",
                 "JsonBlock", "Message"):
        properties = schema[name]["properties"]
        assert properties["cache"] == {"$ref": "#/$defs/CacheBreakpoint"}
        assert list(properties)[-2:] == ["cache", "metadata"]
        assert "cache" not in schema[name]["required"]


def test_the_c_walk_keeps_every_class():
    from contentblocks._conversion import _structure_table  # noqa: PLC0415

    if not cb.speedups_enabled():
        pytest.skip("the C accelerator is not in use")
    assert all(f.key is not None for f in _structure_table.fallbacks())


@pytest.mark.parametrize("preconf", [json_preconf, msgpack_preconf, cbor_preconf], ids=["json", "msgpack", "cbor2"])
def test_preconf_converters_carry_it(preconf):
    message = cb.Message(role="user", content=[cb.TextBlock(text="a", cache=cb.CacheBreakpoint(ttl=60))],
                         cache=cb.CacheBreakpoint())
    converter = preconf.make_converter()
    assert converter.loads(converter.dumps(message), cb.Message) == message


def test_the_cli_checker_words_a_bad_breakpoint(tmp_path, capsys):
    from contentblocks import cli  # noqa: PLC0415

    path = tmp_path / "c.jsonl"
    lines = [{"role": "user", "content": "hi", "cache": {"ttl": 300}}, {"role": "user", "content": "hi", "cache": {"ttl": 0}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert cli.main(["check", str(path)]) == 1
    assert f"{path}:2: $.cache.ttl: must be 1 or more (seconds)" in capsys.readouterr().out


@settings(max_examples=50, deadline=None, database=None)
@given(strategies.conversations(max_messages=4))
def test_breakpoints_survive_the_round_trip(conversation):
    assert cb.structure(cb.unstructure(conversation), cb.Conversation) == conversation
    assert cb.loads(cb.dumps(conversation), cb.Conversation) == conversation


def test_the_strategies_draw_breakpoints():
    seen: set[object] = set()

    @settings(max_examples=200, deadline=None, database=None)
    @given(strategies.blocks())
    def collect(block):
        seen.add(type(block.cache))

    collect()
    assert seen == {type(None), cb.CacheBreakpoint}
