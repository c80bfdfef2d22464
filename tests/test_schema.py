"""The JSON Schema of the wire format: valid Draft 2020-12, true to the library, and honest about its gaps.

The schema must accept everything ``cb.structure`` accepts (strategies, conformance accept cases, boundaries)
and refuse every reject case except the reviewed list of rules no schema can express (``INEXPRESSIBLE``).
"""

from __future__ import annotations

import base64
import builtins
import json
import math
import os
import random
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")

import contentblocks as cb  # noqa: E402 - after the optional-dependency check
from contentblocks._checks import _grammar  # noqa: E402
from contentblocks._checks._patterns import (  # noqa: E402
    check_base64,
    check_filename,
    check_identifier,
    check_media_type,
    check_no_surrounding_space,
    check_uri,
    check_url,
)
from contentblocks._conversion._gen import CLASSES  # noqa: E402
from contentblocks._model._wire import TAGGED, UNIONS, keys_of  # noqa: E402
from contentblocks._schema._document import SCHEMA_TARGETS, json_schema, schema_command  # noqa: E402

Validator = jsonschema.Draft202012Validator
ROOT = Path(__file__).resolve().parent.parent
CASES_PATH = Path(os.environ.get("CONTENTBLOCKS_CONFORMANCE", ROOT.parent / "shared" / "conformance" / "cases.json"))
CASES: list[dict[str, Any]] = json.loads(CASES_PATH.read_text(encoding="utf-8")) if CASES_PATH.is_file() else []
TARGETS = {"block": cb.Block, "message": cb.Message, "conversation": cb.Conversation}
FULL = json_schema(cb.Conversation)  # reaches every definition
VALIDATORS = {name: Validator(json_schema(target)) for name, target in TARGETS.items()}

LONE_SURROGATES = "a string holds a lone surrogate: JSON text can spell one (\\ud800), a pattern cannot refuse it portably"
SPAN = "a citation span must end within its block's text: the schema cannot compare a number with a string's length"
PAIRING = "tool-call pairing relates blocks across messages: JSON Schema has no cross-references between values"
INT64 = "integers in [-2**63, 2**64-1]: JSON Schema cannot tell the integer 2**64 from the float 1.8e19, which is valid"
#: Reject cases the schema accepts, each with the reason no schema can refuse it; reviewed, kept exact by a test.
INEXPRESSIBLE: dict[str, str] = {
    "text-lone-surrogate": LONE_SURROGATES,
    "spec-tool-call-input-lone-surrogate-value": LONE_SURROGATES,
    "spec-json-value-lone-surrogate-key": LONE_SURROGATES,
    "spec-citation-span-astral-utf16-length": SPAN,
    "spec-citation-span-second-citation-bad": SPAN,
    "spec-tool-call-input-depth-101-objects": "nesting depth: a recursive $ref has no depth counter",
    "spec-json-int-max-plus-1": INT64,
    "spec-metadata-value-2pow64": INT64,
    "spec-conv-pairing-unknown-id": PAIRING,
    "spec-conv-pairing-duplicate-call-id-after-answer": PAIRING,
    "spec-conv-pairing-name-mismatch": PAIRING,
    "spec-conv-pairing-answered-twice-same-message": PAIRING,
    "spec-conv-pairing-answered-twice-across-messages": PAIRING,
    "spec-conv-pairing-result-before-call": PAIRING,
}
#: Values with more JSON nodes than this are skipped: pure-Python jsonschema needs about 0.1 ms a node.
MAX_NODES = 20_000


def sub_validator(pointer: str) -> Any:
    """A validator for one part of the full schema, named by a JSON pointer under ``#/$defs``."""
    return Validator({"$schema": FULL["$schema"], "$defs": FULL["$defs"], "$ref": f"#/$defs/{pointer}"})


def wire_value(raw: Any) -> Any:
    """``raw`` as a JSON parser would hand it over (tuples become lists), or ``None`` when it is not JSON."""
    stack = [raw]
    nodes = 0
    while stack:
        value = stack.pop()
        nodes += 1
        t = type(value)
        if t in (list, tuple):
            stack.extend(value)
        elif t is dict:
            if any(type(k) is not str for k in value):
                return None
            stack.extend(value.values())
        elif not (value is None or t in (bool, int, str) or (t is float and math.isfinite(value))):
            return None
    if nodes > MAX_NODES:
        pytest.skip(f"more than {MAX_NODES:,} JSON nodes: too slow for pure-Python jsonschema")
    # The values are at most a few hundred containers deep, which the C codec copies without trouble.
    return json.loads(json.dumps(raw, allow_nan=False))


def case_value(case: dict[str, Any]) -> Any:
    """The input of a conformance case as JSON, or a skip when it is a Python-only (non-JSON) value."""
    if "input" in case:
        return case["input"]
    raw = eval(case["python"], {"__builtins__": builtins})  # noqa: S307 - the case format says to evaluate it
    value = wire_value(raw)
    if value is None:
        pytest.skip("not a JSON value: a schema sees JSON documents only")
    return value


# -------------------------------------------------------------------------------- the schema itself


ALL_TARGETS = [cb.Block, cb.Message, cb.Conversation, cb.ToolResultContent, cb.FileSource, cb.CitationSource, *CLASSES]


@pytest.mark.parametrize("target", ALL_TARGETS, ids=lambda t: getattr(t, "__name__", None) or str(t))
def test_schema_is_valid_draft_2020_12(target: Any):
    """Every target's schema is a valid Draft 2020-12 schema, plain JSON, with only the definitions it reaches."""
    schema = json_schema(target)
    Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(schema)) == schema
    referenced = set(re.findall(r'"#/\$defs/(\w+)', json.dumps(schema)))
    assert set(schema["$defs"]) == referenced
    assert "$id" not in json.dumps(schema)


def test_schema_is_a_fresh_dict_each_time():
    """Changing a returned schema changes neither the next one nor another part of it."""
    first = json_schema(cb.Block)
    first["$defs"]["Text"]["maxLength"] = 1
    assert json_schema(cb.Block)["$defs"]["Text"]["maxLength"] == 10_000_000
    citation = first["$defs"]["Citation"]["properties"]
    citation["start"]["minimum"] = 5  # start and end refer to one definition, through parts of their own
    assert citation["end"] == {"$ref": "#/$defs/Offset"}
    assert first["$defs"]["Offset"]["minimum"] == 0
    # The content of a message holds the free-text definition inline: a copy, not the one under $defs.
    message = json_schema(cb.Message)
    message["$defs"]["Message"]["properties"]["content"]["anyOf"][0]["minLength"] = 9
    assert message["$defs"]["Text"]["minLength"] == 1


def test_descriptions_are_the_first_lines_of_the_docstrings():
    """Each class definition is described by its class docstring's first line, each union by its members."""
    for cls in (*CLASSES, cb.Conversation):
        first_line = cls.__doc__.strip().splitlines()[0]
        assert FULL["$defs"][cls.__name__]["description"] == first_line
    for union in UNIONS:
        description = FULL["$defs"][union.name]["description"]
        assert all(tag in description for tag in union.members)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_definitions_follow_the_wire_keys(cls: type):
    """Each class definition is closed, lists exactly the wire keys in their order, and pins its tag."""
    definition = FULL["$defs"][cls.__name__]
    assert definition["type"] == "object"
    assert definition["additionalProperties"] is False
    assert tuple(definition["properties"]) == keys_of(cls)
    if cls in TAGGED:
        key, tag, _ = TAGGED[cls]
        assert key == ("kind" if cls in (cb.CitedUri, cb.CitedReference, cb.PageRange, cb.CharacterRange, cb.BlockRange) else "type")
        assert definition["properties"][key] == {"const": tag}
        assert key in definition["required"]


def test_unknown_targets_and_options_are_refused():
    """Targets outside the wire format, unknown options and mixed limit styles raise with a clear message."""
    with pytest.raises(TypeError, match="no schema for"):
        json_schema(dict)
    with pytest.raises(ValueError, match="unknown option"):
        json_schema(cb.Block, max_texts=3)
    with pytest.raises(ValueError, match="either limits or keyword options"):
        json_schema(cb.Block, limits=cb.Limits(), max_text_chars=3)
    with pytest.raises(ValueError, match="positive"):
        json_schema(cb.Block, max_text_chars=0)
    with pytest.raises(ValueError, match="choose one of: block, message, conversation"):
        schema_command("blocks")


def test_schema_command_names():
    """The CLI names give the schemas of the matching targets."""
    assert schema_command("block") == json_schema(cb.Block)
    assert schema_command("message")["$ref"] == "#/$defs/Message"
    assert schema_command("TextBlock") == json_schema(cb.TextBlock)
    for name in SCHEMA_TARGETS:
        assert schema_command(name)["$ref"] == f"#/$defs/{name[0].upper()}{name[1:]}"


# -------------------------------------------------------------------------------- conformance cases


@pytest.mark.skipif(not CASES, reason="conformance cases not found")
@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "accept"], ids=lambda c: c["id"])
def test_accept_cases_validate(case: dict[str, Any]):
    """Every conformance accept case, and its canonical form, validates under the schema of its target."""
    validator = VALIDATORS[case["target"]]
    value = case_value(case)
    assert validator.is_valid(value)
    if "canonical" in case:
        assert validator.is_valid(case["canonical"])


@pytest.mark.skipif(not CASES, reason="conformance cases not found")
@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "reject"], ids=lambda c: c["id"])
def test_reject_cases_are_refused(case: dict[str, Any]):
    """Every reject case is refused by the schema, except the reviewed ones no schema can express (accepted)."""
    verdict = VALIDATORS[case["target"]].is_valid(case_value(case))
    assert verdict is (case["id"] in INEXPRESSIBLE)


@pytest.mark.skipif(not CASES, reason="conformance cases not found")
def test_inexpressible_list_names_reject_cases():
    """Every id on the reviewed list is a reject case of the conformance file."""
    rejects = {c["id"] for c in CASES if c["expect"] == "reject"}
    assert set(INEXPRESSIBLE) <= rejects


# -------------------------------------------------------------------------------- strategies


@pytest.mark.parametrize(("target", "strategy", "examples"), [
    ("block", "blocks", 100), ("message", "messages", 50), ("conversation", "conversations", 20)])
def test_strategy_values_validate(target: str, strategy: str, examples: int):
    """Every block, message and conversation the Hypothesis strategies draw validates once unstructured."""
    hypothesis = pytest.importorskip("hypothesis")
    strategies = pytest.importorskip("contentblocks.strategies")
    validator = VALIDATORS[target]

    @hypothesis.settings(max_examples=examples, deadline=None, database=None)
    @hypothesis.given(getattr(strategies, strategy)())
    def check(value: Any) -> None:
        errors = [e.message[:200] for e in validator.iter_errors(cb.unstructure(value))]
        assert not errors

    check()


def test_strategy_parts_validate():
    """Citations and file sources drawn on their own validate under their own schemas."""
    hypothesis = pytest.importorskip("hypothesis")
    strategies = pytest.importorskip("contentblocks.strategies")
    citation = Validator(json_schema(cb.Citation))
    source = Validator(json_schema(cb.FileSource))

    @hypothesis.settings(max_examples=50, deadline=None, database=None)
    @hypothesis.given(strategies.citations("Paris is nice."), strategies.file_sources())
    def check(c: cb.Citation, s: Any) -> None:
        assert citation.is_valid(cb.unstructure(c))
        assert source.is_valid(cb.unstructure(s))

    check()


# -------------------------------------------------------------------------------- rules, against the library

EXAMPLES: dict[str, dict[str, Any]] = {
    "text": {"type": "text", "text": "hi"},
    "refusal": {"type": "refusal", "text": "no"},
    "file": {"type": "file", "media_type": "image/png", "source": {"type": "url", "url": "https://example.com/a.png"}},
    "reasoning": {"type": "reasoning", "text": "thinking"},
    "tool_call": {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": None},
    "tool_result": {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "denied", "content": []},
    "json": {"type": "json", "value": [1, 1.5, "x", True, None, {"k": {}}]},
}


def library_accepts(raw: Any, target: Any, converter: Any = None) -> bool:
    try:
        (converter or cb).structure(raw, target)
    except cb.ValidationError:
        return False
    return True


@pytest.mark.parametrize("role", ["system", "developer", "user", "assistant", "tool"])
def test_role_table(role: str):
    """The schema allows exactly the blocks the library allows for each role, and string content only with text."""
    validator = VALIDATORS["message"]
    for block in EXAMPLES.values():
        message = {"role": role, "content": [block]}
        assert validator.is_valid(message) is library_accepts(message, cb.Message)
    # SPEC 4: a string is one text block, so a tool message cannot take one.
    assert validator.is_valid({"role": role, "content": "hi"}) is (role != "tool")


def test_reasoning_combinations():
    """Reasoning needs text, a signature or redacted bytes, and redacted excludes the other two, as in the library."""
    validator = VALIDATORS["block"]
    fields = {"text": "t", "signature": "s", "redacted": "AQID"}
    for mask in range(8):
        raw = {"type": "reasoning", **{k: v for i, (k, v) in enumerate(fields.items()) if mask >> i & 1}}
        assert validator.is_valid(raw) is library_accepts(raw, cb.Block)
    assert not validator.is_valid({"type": "reasoning", "redacted": ""})


def test_citation_span_comes_whole():
    """A citation span needs both start and end, non-negative integers (never booleans)."""
    citation = sub_validator("Citation")
    source = {"kind": "reference", "value": "doc-1"}
    assert citation.is_valid({"source": source, "start": 0, "end": 0})
    for span in ({"start": 1}, {"end": 1}, {"start": -1, "end": 2}, {"start": True, "end": 2}, {"start": "1", "end": 2}):
        assert not citation.is_valid({"source": source, **span})
    # On its own a citation has no text to bound its span; inside a text block the text limit bounds it.
    assert Validator(json_schema(cb.Citation)).is_valid({"source": source, "start": 0, "end": 10**12})
    assert library_accepts({"source": source, "start": 0, "end": 10**12}, cb.Citation)


@pytest.mark.parametrize("max_bytes", range(1, 8))
def test_binary_limit_is_exact(max_bytes: int):
    """Base64 of up to max_binary_bytes validates and one byte more does not, whatever the padding."""
    validator = Validator(json_schema(cb.BytesSource, max_binary_bytes=max_bytes))
    converter = cb.make_converter(max_binary_bytes=max_bytes)
    for size in range(max_bytes + 5):
        raw = {"type": "base64", "data": base64.b64encode(bytes(range(1, size + 1))).decode()}
        assert validator.is_valid(raw) is (size <= max_bytes) is library_accepts(raw, cb.BytesSource, converter)


def test_text_and_uri_limits_are_reflected():
    """max_text_chars and max_uri_chars set the lengths of text, titles, spans, JSON strings, URLs and references."""
    validator = Validator(json_schema(cb.Block, max_text_chars=5, max_uri_chars=30))
    url = {"type": "url", "url": "https://example.com/" + "a" * 10}
    assert validator.is_valid({"type": "text", "text": "12345", "citations": [
        {"source": {"kind": "uri", "value": "urn:" + "x" * 26}, "title": "t", "start": 0, "end": 5}]})
    assert validator.is_valid({"type": "file", "media_type": "image/png", "source": url})
    for raw in (
        {"type": "text", "text": "123456"},
        {"type": "text", "text": "1", "citations": [{"source": {"kind": "reference", "value": "r"}, "start": 0, "end": 6}]},
        {"type": "text", "text": "1", "citations": [{"source": {"kind": "uri", "value": "urn:" + "x" * 27}}]},
        {"type": "json", "value": {"k": ["123456"]}},
        {"type": "json", "value": {"123456": 1}},
        {"type": "json", "value": 1, "metadata": {"123456": 1}},
        {"type": "file", "media_type": "image/png", "source": {**url, "url": url["url"] + "a"}},
    ):
        assert not validator.is_valid(raw)
        assert not library_accepts(raw, cb.Block, cb.make_converter(max_text_chars=5, max_uri_chars=30))


# Characters that break string rules: whitespace of every kind, controls, format characters (BMP and astral),
# separators, quotes, non-ASCII letters, an emoji and a lone surrogate.
TRICKY = list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2000\u2028\u2029\u202f\u3000\x00\x1b\x7f\u200b\u200d\u202e\u2066"
              "\ufeff\U000110bd\U000e0001/\\:@?#%[]=;\"'*.+-_~éЖ中😀\ud800") + list("AQgwEIMQ09+/=") + list("httpsurn")

# The schema accepts these though the library does not (docs/schema.md lists them); everything else must agree.
ASTRAL_FORMAT = re.compile("[\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                           "\U000e0001\U000e0020-\U000e007f]")


def known_gap(rule: str, value: str) -> bool:
    """Whether ``value`` is refused by the library for a reason the schema for ``rule`` cannot express."""
    if re.search("[\ud800-\udfff]", value):
        return True
    if rule in {"Identifier", "Url", "Filename"} and ASTRAL_FORMAT.search(value):
        return True
    return rule == "Filename" and len(value.encode("utf-8", "surrogatepass")) > 255


RULES = {
    "Identifier": lambda v: check_identifier(v) is None,
    "MediaType": lambda v: check_media_type(v) is None,
    "Url": lambda v: check_url(v, 8192) is None,
    "Uri": lambda v: check_uri(v, 8192) is None,
    "Filename": lambda v: check_filename(v) is None,
    "Title": lambda v: check_no_surrounding_space(v, 10_000_000) is None,
    "Reference": lambda v: check_no_surrounding_space(v, 8192) is None,
    "Base64": lambda v: type(check_base64(v, 32 * 1024 * 1024)) is bytes,
}
PREFIXES = ["", "", "http://", "HTTPS://a", "https://example.com/", "urn:", "text/plain", "image/*; q=", "QQ", "aGVsbG"]


@pytest.mark.parametrize("rule", list(RULES))
def test_string_rules_match_the_library(rule: str):
    """On strings built from tricky characters, each pattern agrees with the library's check, gaps aside."""
    validator = sub_validator(rule)
    rng = random.Random(rule)  # noqa: S311 - reproducible samples, not secrets
    samples = ["..", ".", "a" * 256, "a" * 257, "é" * 128, "QQ==", "QR==", "AQJ=", "AQI=", "https://", "urn:", "a:#b"]
    for _ in range(3000):
        body = "".join(rng.choice(TRICKY) for _ in range(rng.randint(0, 8)))
        samples.append(rng.choice(PREFIXES) + body)
    for value in samples:
        library = RULES[rule](value)
        schema = validator.is_valid(value)
        if library:
            assert schema, ascii(value)
        elif schema:
            assert known_gap(rule, value), ascii(value)


def test_base64_pad_bits_exhaustive():
    """Every final quantum with padding validates exactly when its pad bits are zero (canonical base64)."""
    validator = sub_validator("Base64")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for ch in alphabet:
        for value in (f"A{ch}==", f"AA{ch}=", f"QUJD/{ch}==", f"QUJD//{ch}="):
            assert validator.is_valid(value) is (type(check_base64(value, 100)) is bytes), value


@pytest.mark.parametrize(("definition", "grammar"), [("Uri", "URI"), ("Url", "URL"), ("MediaType", "MEDIA_TYPE"),
                                                   ("Base64", "BASE64")])
def test_string_patterns_are_the_grammars(definition: str, grammar: str):
    """The schema's pattern for a URI, a URL, a media type and base64 is the grammar the library's check compiles."""
    assert FULL["$defs"][definition]["pattern"] == getattr(_grammar, grammar).schema()


@pytest.mark.parametrize(
    ("definition", "check"),
    [
        ("Filename", check_filename),
        ("Title", lambda v: check_no_surrounding_space(v, 100)),
        ("Identifier", check_identifier),
    ],
)
def test_character_classes_are_the_checks_on_the_bmp(definition: str, check: Any):
    """Each BMP character, alone and between letters, passes the schema's pattern exactly when the check takes it."""
    pattern = re.compile(FULL["$defs"][definition]["pattern"])
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        for value in (chr(code), f"a{chr(code)}b"):
            if value != ".":  # "." is refused by the schema's "not", beside the pattern
                assert (pattern.search(value) is not None) is (check(value) is None), (definition, f"U+{code:04X}")


def test_patterns_read_the_same_in_ecma_262():
    """Every pattern compiles as an ECMA-262 RegExp (with and without the u flag) and matches as in Python."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    patterns = sorted(set(re.findall(r'"pattern": ("(?:[^"\\]|\\.)*")', json.dumps(FULL))))
    patterns = [json.loads(p) for p in patterns]
    rng = random.Random(0)  # noqa: S311 - reproducible samples, not secrets
    strings = [rng.choice(PREFIXES) + "".join(rng.choice(TRICKY) for _ in range(rng.randint(0, 6))) for _ in range(2000)]
    script = (
        "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const out = {}; for (const f of ['u', '']) out[f || 'none'] = d.p.map("
        "p => { const r = new RegExp(p, f); return d.s.map(s => r.test(s)); });"
        "process.stdout.write(JSON.stringify(out));"
    )
    run = subprocess.run([node, "-e", script], input=json.dumps({"p": patterns, "s": strings}),  # noqa: S603
                         capture_output=True, text=True, check=True, timeout=60)
    results = json.loads(run.stdout)
    for i, pattern in enumerate(patterns):
        python = [re.search(pattern, s) is not None for s in strings]
        assert results["u"][i] == python, pattern[:60]
        assert results["none"][i] == python, pattern[:60]
    assert unicodedata.unidata_version in FULL["$comment"]
