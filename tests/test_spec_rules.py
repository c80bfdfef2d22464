"""One test (or parametrized case) per rule of SPEC.md §2-§6; each fails when its rule is broken.

Wire-level cases go through ``cb.structure``; limits go through ``cb.make_converter(**limits)``; the last
section checks that the classes enforce the same rules when built directly in Python.
"""

from __future__ import annotations

import copy

import pytest

import contentblocks as cb

TEXT = {"type": "text", "text": "hi"}
REFUSAL = {"type": "refusal", "text": "no"}
FILE = {"type": "file", "media_type": "image/png", "source": {"type": "base64", "data": "aGk="}}
URL_FILE = {"type": "file", "media_type": "image/png", "source": {"type": "url", "url": "https://example.com/a.png"}}
REF_FILE = {"type": "file", "media_type": "application/pdf", "source": {"type": "reference", "id": "file_1"}}
REASONING = {"type": "reasoning", "text": "thinking"}
CALL = {"type": "tool_call", "tool_call_id": "c1", "tool_name": "f", "input": {}}
RESULT = {"type": "tool_result", "tool_call_id": "c1", "tool_name": "f", "outcome": "succeeded", "content": []}
JSON = {"type": "json", "value": 1}
CITATION = {"source": {"kind": "uri", "value": "https://example.com"}}
CITED = {"type": "text", "text": "hello", "citations": [CITATION]}
BLOCKS = {"text": TEXT, "refusal": REFUSAL, "file": FILE, "reasoning": REASONING, "tool_call": CALL,
          "tool_result": RESULT, "json": JSON}


def with_(base, path, value):
    """A deep copy of ``base`` with the key at ``path`` (a tuple of keys and indexes) set to ``value``."""
    raw = copy.deepcopy(base)
    target = raw
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return raw


def without(base, path):
    """A deep copy of ``base`` without the key at ``path``."""
    raw = copy.deepcopy(base)
    target = raw
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return raw


def accepts(raw, target=cb.Block, converter=None):
    """Structure ``raw``; its canonical output must structure back to an equal object."""
    structure = converter.structure if converter is not None else cb.structure
    obj = structure(copy.deepcopy(raw), target)
    unstructure = converter.unstructure if converter is not None else cb.unstructure
    assert structure(unstructure(obj), target) == obj
    return obj


def rejects(raw, target=cb.Block, converter=None, path=None):
    """Structuring ``raw`` raises ValidationError (with a problem at ``path`` when given)."""
    structure = converter.structure if converter is not None else cb.structure
    with pytest.raises(cb.ValidationError) as info:
        structure(raw, target)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.errors
    if path is not None:
        paths = [p for p, _ in error.errors]
        assert path in paths, paths
    return error


# ---------------------------------------------------------------------------------------------- §2 keys and nulls

UNKNOWN_KEY_PLACES = [
    *[(kind, base, (), "$") for kind, base in BLOCKS.items()],
    ("base64 source", FILE, ("source",), "$.source"),
    ("url source", URL_FILE, ("source",), "$.source"),
    ("reference source", REF_FILE, ("source",), "$.source"),
    ("citation", CITED, ("citations", 0), "$.citations[0]"),
    ("citation source", CITED, ("citations", 0, "source"), "$.citations[0].source"),
    ("tool result content", with_(RESULT, ("content",), [TEXT]), ("content", 0), "$.content[0]"),
]


@pytest.mark.parametrize(("where", "base", "at", "path"), UNKNOWN_KEY_PLACES, ids=[p[0] for p in UNKNOWN_KEY_PLACES])
@pytest.mark.parametrize("key", ["extra", "Type", "mediaType", ""])
def test_unknown_keys_are_rejected_at_every_level(where, base, at, path, key):
    """An unknown key (including a camelCase spelling of a real one) is rejected wherever it appears."""
    rejects(with_(base, (*at, key), 1))


def test_unknown_keys_on_messages_are_rejected():
    """A message with an unknown key is rejected, with the key in the path."""
    rejects({"role": "user", "content": "hi", "name": "bob"}, cb.Message, path="$.name")


def test_unknown_key_path_names_the_key():
    """The problem's path ends with the unknown key."""
    rejects(with_(FILE, ("source", "extra"), 1), path="$.source.extra")


OPTIONAL_FIELDS = [
    ("text.citations", TEXT, ("citations",)),
    ("text.metadata", TEXT, ("metadata",)),
    ("citation.title", CITED, ("citations", 0, "title")),
    ("citation.quote", CITED, ("citations", 0, "quote")),
    ("citation.start", CITED, ("citations", 0, "start")),
    ("citation.end", CITED, ("citations", 0, "end")),
    ("refusal.metadata", REFUSAL, ("metadata",)),
    ("file.filename", FILE, ("filename",)),
    ("file.metadata", FILE, ("metadata",)),
    ("reference.provider", REF_FILE, ("source", "provider")),
    ("reasoning.text", {"type": "reasoning", "signature": "s"}, ("text",)),
    ("reasoning.signature", REASONING, ("signature",)),
    ("reasoning.redacted", REASONING, ("redacted",)),
    ("reasoning.metadata", REASONING, ("metadata",)),
    ("tool_call.metadata", CALL, ("metadata",)),
    ("tool_result.metadata", RESULT, ("metadata",)),
    ("json.metadata", JSON, ("metadata",)),
]


@pytest.mark.parametrize(("field", "base", "at"), OPTIONAL_FIELDS, ids=[f[0] for f in OPTIONAL_FIELDS])
def test_explicit_null_is_rejected_for_every_optional_field(field, base, at):
    """An optional field is absent when it has no value: an explicit null is rejected, at the field's path."""
    path = "$" + "".join(f"[{k}]" if type(k) is int else f".{k}" for k in at)
    rejects(with_(base, at, None), path=path)


def test_explicit_null_metadata_on_a_message_is_rejected():
    """A message's metadata may not be null."""
    rejects({"role": "user", "content": "hi", "metadata": None}, cb.Message, path="$.metadata")


def test_null_is_allowed_where_it_is_a_json_value():
    """tool_call input and json value take null (a JSON value), and it comes back out as null."""
    assert cb.unstructure(accepts(with_(CALL, ("input",), None)))["input"] is None
    assert cb.unstructure(accepts(with_(JSON, ("value",), None)))["value"] is None


REQUIRED_FIELDS = [
    ("text.text", TEXT, ("text",)),
    ("refusal.text", REFUSAL, ("text",)),
    ("file.media_type", FILE, ("media_type",)),
    ("file.source", FILE, ("source",)),
    ("base64.data", FILE, ("source", "data")),
    ("url.url", URL_FILE, ("source", "url")),
    ("reference.id", REF_FILE, ("source", "id")),
    ("tool_call.tool_call_id", CALL, ("tool_call_id",)),
    ("tool_call.tool_name", CALL, ("tool_name",)),
    ("tool_call.input", CALL, ("input",)),
    ("tool_result.tool_call_id", RESULT, ("tool_call_id",)),
    ("tool_result.tool_name", RESULT, ("tool_name",)),
    ("tool_result.outcome", RESULT, ("outcome",)),
    ("tool_result.content", RESULT, ("content",)),
    ("json.value", JSON, ("value",)),
    ("citation.source", CITED, ("citations", 0, "source")),
    ("citation source value", CITED, ("citations", 0, "source", "value")),
    ("type", TEXT, ("type",)),
    ("source type", FILE, ("source", "type")),
    ("citation source kind", CITED, ("citations", 0, "source", "kind")),
]


@pytest.mark.parametrize(("field", "base", "at"), REQUIRED_FIELDS, ids=[f[0] for f in REQUIRED_FIELDS])
def test_required_fields_are_required(field, base, at):
    """A block missing a required key is rejected."""
    rejects(without(base, at))


@pytest.mark.parametrize("field", ["role", "content"])
def test_message_fields_are_required(field):
    """A message needs a role and content."""
    rejects(without({"role": "user", "content": "hi"}, (field,)), cb.Message, path=f"$.{field}")


def test_empty_optional_collections_are_accepted_and_omitted():
    """Empty citations and metadata are accepted on input and omitted on output."""
    obj = accepts({"type": "text", "text": "a", "citations": [], "metadata": {}})
    assert cb.unstructure(obj) == {"type": "text", "text": "a"}
    message = accepts({"role": "user", "content": "a", "metadata": {}}, cb.Message)
    assert "metadata" not in cb.unstructure(message)


@pytest.mark.parametrize(
    ("base", "at", "value"),
    [
        (TEXT, ("type",), "Text"),
        (TEXT, ("type",), "TEXT"),
        (TEXT, ("type",), "text "),
        (TEXT, ("type",), "tool-call"),
        (CALL, ("type",), "toolCall"),
        (FILE, ("source", "type"), "Base64"),
        (URL_FILE, ("source", "type"), "URL"),
        (REF_FILE, ("source", "type"), "Reference"),
        (CITED, ("citations", 0, "source", "kind"), "URI"),
        (CITED, ("citations", 0, "source", "kind"), "url"),
        (RESULT, ("outcome",), "Succeeded"),
        (RESULT, ("outcome",), "success"),
        (RESULT, ("outcome",), "error"),
    ],
)
def test_discriminators_are_exact_and_case_sensitive(base, at, value):
    """Type tags, source types, citation kinds and outcomes match exactly."""
    rejects(with_(base, at, value))


@pytest.mark.parametrize("role", ["User", "ASSISTANT", "function", "model", "", "tool "])
def test_roles_are_exact(role):
    """Roles match exactly."""
    rejects({"role": role, "content": "hi"}, cb.Message, path="$.role")


# ---------------------------------------------------------------------------------------------- §2 field rules


@pytest.mark.parametrize("base", [TEXT, REFUSAL], ids=["text", "refusal"])
def test_text_must_not_be_empty_but_may_be_whitespace(base):
    """Text and refusal text are non-empty; whitespace-only text is kept as it is."""
    rejects(with_(base, ("text",), ""), path="$.text")
    for blank in (" ", "\n", "\t \u3000"):
        assert cb.unstructure(accepts(with_(base, ("text",), blank)))["text"] == blank


@pytest.mark.parametrize("field", ["text", "signature"])
def test_free_text_may_hold_nul_and_any_character(field):
    """Free text keeps NUL, astral characters, controls and bidi marks unchanged."""
    value = "a\x00b\U0001f600\u202e\x1b[0m\ufeff"
    raw = {"type": "reasoning", field: value}
    assert cb.unstructure(accepts(raw))[field] == value
    quote = with_(CITED, ("citations", 0, "quote"), value)
    assert cb.unstructure(accepts(quote))["citations"][0]["quote"] == value


@pytest.mark.parametrize(
    "fields",
    [{"text": "t"}, {"signature": "s"}, {"text": "t", "signature": "s"}, {"redacted": "AA=="}],
    ids=["text", "signature", "text+signature", "redacted"],
)
def test_reasoning_shapes_are_accepted(fields):
    """Reasoning with text, a signature, both, or redacted bytes alone is valid."""
    accepts({"type": "reasoning", **fields})


@pytest.mark.parametrize(
    "fields",
    [{}, {"metadata": {"k": 1}}, {"redacted": "AA==", "text": "t"}, {"redacted": "AA==", "signature": "s"},
     {"redacted": "AA==", "text": "t", "signature": "s"}, {"signature": ""}, {"text": ""}],
    ids=["nothing", "metadata-only", "redacted+text", "redacted+signature", "all-three", "empty-signature", "empty-text"],
)
def test_reasoning_shapes_are_rejected(fields):
    """Reasoning needs one of text, signature or redacted; redacted excludes the others; signature is non-empty."""
    rejects({"type": "reasoning", **fields})


def test_tool_call_input_takes_any_json_value():
    """tool_call input is any JSON value: scalars, arrays and objects."""
    for value in (None, 0, -1.5, "s", True, [], [1, "a"], {"a": {"b": [None]}}):
        assert cb.unstructure(accepts(with_(CALL, ("input",), value)))["input"] == value


@pytest.mark.parametrize("outcome", ["succeeded", "failed", "denied"])
def test_outcomes(outcome):
    """Each of the three outcomes is accepted."""
    accepts(with_(RESULT, ("outcome",), outcome))


@pytest.mark.parametrize("kind", ["refusal", "reasoning", "tool_call", "tool_result"])
def test_tool_result_content_is_text_file_and_json_only(kind):
    """A tool result's content holds only text, file and json blocks."""
    rejects(with_(RESULT, ("content",), [TEXT, BLOCKS[kind]]), path="$.content[1].type")


def test_tool_result_content_keeps_its_order():
    """Tool result content may be empty and keeps the order it was given in."""
    content = [JSON, TEXT, FILE, with_(TEXT, ("text",), "second")]
    out = cb.unstructure(accepts(with_(RESULT, ("content",), content)))
    assert out["content"] == content
    assert cb.unstructure(accepts(RESULT))["content"] == []


def test_tool_result_content_is_a_list():
    """Tool result content is a list, not a string or an object."""
    rejects(with_(RESULT, ("content",), "text"), path="$.content")
    rejects(with_(RESULT, ("content",), TEXT), path="$.content")


IDENTIFIER_OK = ["a", "x" * 256, "\U0001f527" * 256, "\u5de5\u5177", "call_01:a/b.c-d", "toolu_01A09q90qw90lq917835lq9"]
IDENTIFIER_BAD = [
    ("empty", ""),
    ("257-ascii", "x" * 257),
    ("257-astral", "\U0001f527" * 257),
    ("space", "a b"),
    ("tab", "a\tb"),
    ("newline", "a\n"),
    ("nbsp", "a\u00a0b"),
    ("ideographic-space", "a\u3000b"),
    ("line-separator", "a\u2028b"),
    ("nul", "a\x00b"),
    ("del", "a\x7fb"),
    ("c1-control", "a\x85b"),
    ("zero-width-space", "a\u200bb"),
    ("bidi-override", "a\u202eb"),
    ("bom", "\ufeffa"),
    ("lone-surrogate", "a\ud800"),
]
IDENTIFIER_FIELDS = [(CALL, "tool_call_id"), (CALL, "tool_name"), (RESULT, "tool_call_id"), (RESULT, "tool_name")]


@pytest.mark.parametrize(("base", "field"), IDENTIFIER_FIELDS, ids=[f"{b['type']}.{f}" for b, f in IDENTIFIER_FIELDS])
@pytest.mark.parametrize("value", IDENTIFIER_OK, ids=range(len(IDENTIFIER_OK)))
def test_identifiers_accepted(base, field, value):
    """Identifiers of 1 to 256 characters without whitespace, control or format characters are accepted."""
    accepts(with_(base, (field,), value))


@pytest.mark.parametrize(("base", "field"), IDENTIFIER_FIELDS, ids=[f"{b['type']}.{f}" for b, f in IDENTIFIER_FIELDS])
@pytest.mark.parametrize("value", [v for _, v in IDENTIFIER_BAD], ids=[n for n, _ in IDENTIFIER_BAD])
def test_identifiers_rejected(base, field, value):
    """Identifiers that are empty, longer than 256 characters, or hold whitespace/control/format characters."""
    rejects(with_(base, (field,), value), path=f"$.{field}")


@pytest.mark.parametrize("base", list(BLOCKS.values()), ids=list(BLOCKS))
def test_metadata_keys_must_be_non_empty_strings(base):
    """Metadata is an object of non-empty string keys."""
    accepts(with_(base, ("metadata",), {"app/trace_id": "t", "k": {"": 1}}))
    rejects(with_(base, ("metadata",), {"": 1}))
    rejects(with_(base, ("metadata",), {1: 1}))
    rejects(with_(base, ("metadata",), [["k", 1]]), path="$.metadata")
    rejects(with_(base, ("metadata",), "k=v"), path="$.metadata")


_EMPTY_KEY = ('$.metadata[""]', "metadata keys must not be empty")
_NOT_FINITE = "NaN and infinities are not JSON numbers"


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"": 1}, [_EMPTY_KEY]),
        ({"a": 1, "": {"b": [1]}}, [_EMPTY_KEY]),
        ({"": 1, "k": float("nan")}, [_EMPTY_KEY, ("$.metadata.k", _NOT_FINITE)]),
        ({"k": [float("inf")], "": 1}, [_EMPTY_KEY, ("$.metadata.k[0]", _NOT_FINITE)]),
    ],
    ids=["alone", "with-valid-values", "then-a-value", "before-a-value-given-first"],
)
@pytest.mark.parametrize("max_errors", [None, 1])
def test_an_empty_metadata_key_comes_before_the_problems_of_the_values(metadata, expected, max_errors):
    """The empty key is named first, whether the values are valid or not, and counts like any other problem."""
    structure = cb.structure if max_errors is None else cb.make_converter(max_errors=max_errors).structure
    with pytest.raises(cb.ValidationError) as info:
        structure({"type": "text", "text": "a", "metadata": metadata}, cb.Block)
    shown = expected if max_errors is None else expected[:max_errors]
    assert (info.value.errors, info.value.omitted) == (shown, len(expected) - len(shown))


def test_metadata_never_counts_as_content():
    """A block with metadata but without its payload is still rejected."""
    rejects({"type": "text", "metadata": {"text": "hi"}})
    rejects({"type": "reasoning", "metadata": {"anthropic/signature": "s"}})
    rejects({"role": "user", "content": [], "metadata": {"k": 1}}, cb.Message)


LONE_SURROGATE_PLACES = [
    (TEXT, ("text",)),
    (REFUSAL, ("text",)),
    (CITED, ("citations", 0, "quote")),
    (CITED, ("citations", 0, "title")),
    (CITED, ("citations", 0, "source", "value")),
    (with_(CITED, ("citations", 0, "source", "kind"), "reference"), ("citations", 0, "source", "value")),
    ({"type": "reasoning", "text": "t"}, ("signature",)),
    (REASONING, ("text",)),
    (FILE, ("media_type",)),
    (FILE, ("filename",)),
    (URL_FILE, ("source", "url")),
    (REF_FILE, ("source", "id")),
    (REF_FILE, ("source", "provider")),
    (JSON, ("value",)),
    (CALL, ("input",)),
    (TEXT, ("metadata",)),
]


@pytest.mark.parametrize(("base", "at"), LONE_SURROGATE_PLACES, ids=[".".join(map(str, a)) + f"@{b['type']}" for b, a in LONE_SURROGATE_PLACES])
def test_lone_surrogates_are_rejected_in_every_string(base, at):
    """Every string, anywhere, rejects lone surrogates."""
    value = {"k\ud800": 1} if at == ("metadata",) else "a\udc00b"
    rejects(with_(base, at, value))


def test_lone_surrogate_in_message_string_content_is_rejected():
    """The string shorthand of a message rejects lone surrogates too."""
    rejects({"role": "user", "content": "a\ud800"}, cb.Message, path="$.content")


# ---------------------------------------------------------------------------------------------- §2 citations

URI_OK = [
    "https://example.com", "http://example.com/a?b=c#d", "file:///etc/hosts", "urn:isbn:0451450523",
    "doi:10.1000/182", "mailto:someone@example.com", "s3://bucket/key", "https://example.com/caf%C3%A9",
    "https://example.com/#section-2", "x-custom+v1.0:thing", "https://[::1]:8080/",
]
URI_BAD = [
    ("no-scheme", "example.com/page"), ("empty", ""), ("urn-empty", "urn:"), ("https-empty", "https://"),
    ("only-fragment", "https:#frag"), ("non-ascii", "https://example.com/caf\u00e9"),
    ("idn-host", "https://b\u00fccher.example"), ("space", "https://example.com/a b"),
    ("tab", "https://exa\tmple.com"), ("newline-end", "https://example.com\n"), ("nul", "https://a.com/\x00"),
    ("leading-space", " https://example.com"), ("bad-percent", "https://a.com/%zz"),
    ("scheme-digit-first", "1http://a.com"), ("quote", 'https://a.com/"x"'), ("angle", "https://a.com/<x>"),
]


@pytest.mark.parametrize("uri", URI_OK, ids=range(len(URI_OK)))
def test_citation_uris_accepted(uri):
    """Absolute URIs of any scheme, with a non-empty target and RFC 3986 characters only."""
    accepts(with_(CITED, ("citations", 0, "source", "value"), uri))


@pytest.mark.parametrize("uri", [u for _, u in URI_BAD], ids=[n for n, _ in URI_BAD])
def test_citation_uris_rejected(uri):
    """URIs without a scheme or target, or with whitespace, controls or raw non-ASCII, are rejected."""
    rejects(with_(CITED, ("citations", 0, "source", "value"), uri), path="$.citations[0].source.value")


REF_CITED = with_(CITED, ("citations", 0, "source", "kind"), "reference")


@pytest.mark.parametrize("value", ["report:2026", "3", "doc 3", "\u6587\u732e", "a\x00b"])
def test_citation_references_accepted(value):
    """Reference values are opaque, non-empty identifiers (inner spaces allowed)."""
    accepts(with_(REF_CITED, ("citations", 0, "source", "value"), value))


@pytest.mark.parametrize("value", ["", " a", "a ", "\ta", "a\n", "\u3000a"])
def test_citation_references_rejected(value):
    """Reference values are non-empty, without leading or trailing whitespace."""
    rejects(with_(REF_CITED, ("citations", 0, "source", "value"), value))


@pytest.mark.parametrize(("value", "ok"), [("Title", True), ("A title", True), ("", False), (" T", False), ("T ", False), ("T\n", False)])
def test_citation_titles(value, ok):
    """Titles have no leading or trailing whitespace."""
    raw = with_(CITED, ("citations", 0, "title"), value)
    if ok:
        accepts(raw)
    else:
        rejects(raw, path="$.citations[0].title")


@pytest.mark.parametrize(
    ("text", "span", "ok"),
    [
        ("hello", {"start": 0, "end": 5}, True),
        ("hello", {"start": 5, "end": 5}, True),
        ("hello", {"start": 0, "end": 0}, True),
        ("hello", {"start": 2, "end": 1}, False),
        ("hello", {"start": 0, "end": 6}, False),
        ("hello", {"start": -1, "end": 2}, False),
        ("hello", {"start": 1}, False),
        ("hello", {"end": 1}, False),
        ("hello", {"start": True, "end": 2}, False),
        ("hello", {"start": 0, "end": 2.0}, False),
        ("hello", {"start": "0", "end": "2"}, False),
        ("\U0001f600\U0001f600", {"start": 0, "end": 2}, True),
        ("\U0001f600\U0001f600", {"start": 1, "end": 3}, False),
        ("\U0001f600\U0001f600", {"start": 0, "end": 4}, False),
        ("e\u0301", {"start": 1, "end": 2}, True),
    ],
)
def test_citation_spans(text, span, ok):
    """start/end: both or neither, ints (not bools), 0 <= start <= end <= len(text) in code points."""
    raw = {"type": "text", "text": text, "citations": [{**CITATION, **span}]}
    if ok:
        out = cb.unstructure(accepts(raw))
        assert out["citations"][0]["start"] == span["start"]
        assert out["citations"][0]["end"] == span["end"]
    else:
        rejects(raw)


# ---------------------------------------------------------------------------------------------- §3 files

MEDIA_OK = [
    "image/png", "text/plain; charset=utf-8", "text/plain;charset=UTF-8", 'multipart/form-data; boundary="a b"',
    "application/vnd.api+json", "Image/PNG", "audio/x-wav", "a/b", "application/octet-stream",
    "x" * 127 + "/" + "y" * 127, "text/plain; a=1; b=2",
]
MEDIA_BAD = [
    ("empty", ""), ("no-subtype", "image"), ("empty-subtype", "image/"), ("empty-type", "/png"), ("star-star", "*/*"),
    ("star-type", "*/png"), ("two-slashes", "image/png/x"), ("space-inside", "image/ png"), ("trailing-newline", "image/png\n"),
    ("leading-space", " image/png"), ("type-128", "x" * 128 + "/png"), ("subtype-128", "image/" + "y" * 128),
    ("bad-char", "image/p@ng"), ("param-no-value", "text/plain; charset"), ("nul", "image/png\x00"),
    ("non-ascii", "image/p\u00e9ng"),
]


@pytest.mark.parametrize("media_type", MEDIA_OK, ids=range(len(MEDIA_OK)))
def test_media_types_accepted_and_kept(media_type):
    """RFC 6838 type/subtype with optional parameters is accepted and kept exactly as given (case too)."""
    assert cb.unstructure(accepts(with_(FILE, ("media_type",), media_type)))["media_type"] == media_type


@pytest.mark.parametrize("media_type", [m for _, m in MEDIA_BAD], ids=[n for n, _ in MEDIA_BAD])
def test_media_types_rejected(media_type):
    """Malformed media types, */* and restricted names over 127 characters are rejected."""
    rejects(with_(FILE, ("media_type",), media_type), path="$.media_type")


def test_wildcard_subtype_accepted():
    """A '*' subtype (image/*) names a URL whose exact type is unknown."""
    accepts(with_(URL_FILE, ("media_type",), "image/*"))


@pytest.mark.parametrize(("data", "size"), [("", 0), ("AA==", 1), ("AAA=", 2), ("AAAA", 3), ("aGVsbG8=", 5), ("+/+/", 3)])
def test_canonical_base64_accepted(data, size):
    """Canonical padded standard base64 is accepted; "" is a zero-byte file; output is the same text."""
    obj = accepts(with_(FILE, ("source", "data"), data))
    assert len(obj.source.data) == size
    assert cb.unstructure(obj)["source"]["data"] == data


BASE64_BAD = [
    ("no-padding", "aGk"), ("no-padding-2", "aA"), ("trailing-newline", "aGk=\n"), ("inner-space", "aG k="),
    ("inner-newline", "aGVs\nbG8="), ("url-safe", "_-_-"), ("url-safe-mixed", "ab-_"), ("data-url", "data:image/png;base64,aGk="),
    ("pad-bits-1", "aGVsbG9="), ("pad-bits-2", "aGl="), ("only-padding", "===="), ("too-much-padding", "aA==="),
    ("padding-inside", "aA==aA=="), ("non-ascii", "a\u00e9k="), ("nul", "aGk\x00"),
]


@pytest.mark.parametrize("data", [d for _, d in BASE64_BAD], ids=[n for n, _ in BASE64_BAD])
def test_non_canonical_base64_rejected(data):
    """Missing padding, whitespace, URL-safe alphabet, data: prefixes and non-zero pad bits are rejected."""
    rejects(with_(FILE, ("source", "data"), data), path="$.source.data")


def test_redacted_uses_the_same_base64_rules():
    """Redacted reasoning bytes follow the same canonical base64 rules."""
    accepts({"type": "reasoning", "redacted": "aGk="})
    for data in ("aGk", "aGl=", "_-_-", "aGk=\n"):
        rejects({"type": "reasoning", "redacted": data}, path="$.redacted")


@pytest.mark.parametrize("data", [b"hi", bytearray(b"hi"), 1234, None, ["aGk="]], ids=["bytes", "bytearray", "int", "null", "list"])
def test_base64_field_takes_only_strings(data):
    """On the base64 wire the data is a string; bytes and other types are rejected."""
    rejects(with_(FILE, ("source", "data"), data), path="$.source.data")


URL_OK = [
    "https://example.com", "http://example.com/", "https://example.com:8443/a/b?c=d&e#f", "https://127.0.0.1/x",
    "https://[2001:db8::1]/", "https://example.com/caf%C3%A9", "https://sub.example.co.uk/a.png?x=1",
]
URL_BAD = [
    ("ftp", "ftp://example.com/a"), ("file", "file:///etc/passwd"), ("no-host", "https://"), ("empty-host", "https:///path"),
    ("relative", "/a.png"), ("scheme-relative", "//example.com/a.png"), ("userinfo", "https://user@example.com/"),
    ("userinfo-password", "https://user:pw@example.com/"), ("space", "https://example.com/a b"),
    ("tab-in-host", "https://exa\tmple.com/"), ("newline", "https://example.com/\n"), ("leading-space", " https://example.com"),
    ("leading-nul", "\x00https://example.com"), ("data", "data:image/png;base64,aGk="), ("javascript", "javascript:alert(1)"),
    ("empty", ""), ("no-scheme", "example.com"),
]


@pytest.mark.parametrize("url", URL_OK, ids=range(len(URL_OK)))
def test_urls_accepted(url):
    """Absolute http(s) URLs with a host are accepted and kept exactly."""
    assert cb.unstructure(accepts(with_(URL_FILE, ("source", "url"), url)))["source"]["url"] == url


@pytest.mark.parametrize("url", [u for _, u in URL_BAD], ids=[n for n, _ in URL_BAD])
def test_urls_rejected(url):
    """Other schemes, missing hosts, userinfo, whitespace and data: URLs are rejected."""
    rejects(with_(URL_FILE, ("source", "url"), url), path="$.source.url")


def test_data_url_gets_a_hint():
    """A data: URL is rejected with a hint to use a base64 source."""
    error = rejects(with_(URL_FILE, ("source", "url"), "data:text/plain,hi"))
    assert "base64" in str(error)


@pytest.mark.parametrize(("value", "ok"), [("file_1", True), ("s3://b/k with space", True), ("", False), (" f", False), ("f ", False)])
def test_reference_source_ids(value, ok):
    """Reference ids are non-empty without surrounding whitespace; a provider is optional."""
    raw = with_(REF_FILE, ("source", "id"), value)
    if ok:
        accepts(raw)
        accepts(with_(raw, ("source", "provider"), "anthropic"))
    else:
        rejects(raw, path="$.source.id")


FILENAME_OK = ["a", "report.pdf", ".hidden", "...", "a" * 255, "\u00e9" * 127 + "a", "\U0001f600" * 63 + "abc", "a b.txt", "\u65e5\u672c.txt"]
FILENAME_BAD = [
    ("empty", ""), ("dot", "."), ("dotdot", ".."), ("slash", "a/b"), ("backslash", "a\\b"), ("256-ascii", "a" * 256),
    ("256-bytes-multibyte", "\u00e9" * 128), ("256-bytes-astral", "\U0001f600" * 64), ("nul", "a\x00"), ("newline", "a\nb"),
    ("del", "a\x7f"), ("bidi-override", "gpj.\u202eexe"), ("zero-width", "a\u200bb"), ("leading-space", " a"),
    ("trailing-space", "a "), ("trailing-newline", "a\n"), ("lone-surrogate", "a\ud800"),
]


@pytest.mark.parametrize("name", FILENAME_OK, ids=range(len(FILENAME_OK)))
def test_filenames_accepted(name):
    """Base names of 1-255 UTF-8 bytes are accepted."""
    assert cb.unstructure(accepts(with_(FILE, ("filename",), name)))["filename"] == name


@pytest.mark.parametrize("name", [n for _, n in FILENAME_BAD], ids=[i for i, _ in FILENAME_BAD])
def test_filenames_rejected(name):
    """Filenames over 255 UTF-8 bytes, with separators, controls or format characters, or '.'/'..' are rejected."""
    rejects(with_(FILE, ("filename",), name), path="$.filename")


# ---------------------------------------------------------------------------------------------- §4 messages

ROLE_TABLE = {
    "system": {"text"},
    "developer": {"text"},
    "user": {"text", "file", "json"},
    "assistant": {"text", "refusal", "file", "reasoning", "tool_call", "json"},
    "tool": {"tool_result"},
}


@pytest.mark.parametrize("role", list(ROLE_TABLE))
@pytest.mark.parametrize("kind", list(BLOCKS))
def test_role_table(role, kind):
    """Each role carries exactly the block kinds of SPEC §4, at the right path."""
    raw = {"role": role, "content": [BLOCKS[kind]]}
    if kind in ROLE_TABLE[role]:
        accepts(raw, cb.Message)
    else:
        rejects(raw, cb.Message, path="$.content[0]")


def test_message_content_must_not_be_empty():
    """content is a non-empty list of blocks or a non-empty string."""
    rejects({"role": "user", "content": []}, cb.Message, path="$.content")
    rejects({"role": "user", "content": ""}, cb.Message, path="$.content")
    rejects({"role": "user", "content": None}, cb.Message, path="$.content")
    rejects({"role": "user", "content": TEXT}, cb.Message, path="$.content")


def test_string_content_is_shorthand_for_one_text_block():
    """A non-empty string is one text block; whitespace-only strings are kept."""
    message = accepts({"role": "system", "content": " "}, cb.Message)
    assert message.content == (cb.TextBlock(text=" "),)
    rejects({"role": "tool", "content": "result"}, cb.Message)


CALL_A = {"type": "tool_call", "tool_call_id": "a", "tool_name": "f", "input": {}}
CALL_B = {"type": "tool_call", "tool_call_id": "b", "tool_name": "g", "input": None}


def result(call_id, name, outcome="succeeded"):
    return {"type": "tool_result", "tool_call_id": call_id, "tool_name": name, "outcome": outcome, "content": []}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def tool(*blocks):
    return {"role": "tool", "content": list(blocks)}


CONVERSATIONS_OK = {
    "empty": [],
    "one-user": [{"role": "user", "content": [TEXT]}],
    "call-answered": [assistant(CALL_A), tool(result("a", "f"))],
    "call-unanswered": [assistant(CALL_A)],
    "two-calls-answered-out-of-order": [assistant(CALL_A, CALL_B), tool(result("b", "g"), result("a", "f", "denied"))],
    "answered-later": [assistant(CALL_A), {"role": "user", "content": [with_(TEXT, ("text",), "wait")]}, assistant(CALL_B), tool(result("a", "f"))],
    "answers-split": [assistant(CALL_A, CALL_B), tool(result("a", "f")), tool(result("b", "g", "failed"))],
}
CONVERSATIONS_BAD = {
    "duplicate-id-same-message": ([assistant(CALL_A, CALL_A)], "$[0].content[1].tool_call_id"),
    "duplicate-id-across": ([assistant(CALL_A), tool(result("a", "f")), assistant(CALL_A)], "$[2].content[0].tool_call_id"),
    "duplicate-id-other-name": ([assistant(CALL_A, {**CALL_B, "tool_call_id": "a"})], "$[0].content[1].tool_call_id"),
    "orphan-result": ([tool(result("a", "f"))], "$[0].content[0].tool_call_id"),
    "result-before-call": ([tool(result("a", "f")), assistant(CALL_A)], "$[0].content[0].tool_call_id"),
    "wrong-name": ([assistant(CALL_A), tool(result("a", "g"))], "$[1].content[0].tool_name"),
    "answered-twice": ([assistant(CALL_A), tool(result("a", "f")), tool(result("a", "f"))], "$[2].content[0].tool_call_id"),
    "answered-twice-same-message": ([assistant(CALL_A), tool(result("a", "f"), result("a", "f"))], "$[1].content[1].tool_call_id"),
    # paths count every block of the content, not only the tool blocks
    "duplicate-id-after-text": ([assistant(CALL_A), assistant(TEXT, CALL_A)], "$[1].content[1].tool_call_id"),
    "duplicate-id-after-two-blocks": ([assistant(TEXT, CALL_A, TEXT, CALL_A)], "$[0].content[3].tool_call_id"),
}


@pytest.mark.parametrize("name", list(CONVERSATIONS_OK))
def test_conversations_accepted(name):
    """Conversations where every result answers an earlier call of the same id and name, at most once."""
    raw = CONVERSATIONS_OK[name]
    conversation = accepts(raw, cb.Conversation)
    assert cb.unstructure(conversation) == raw
    assert cb.Conversation(messages=[cb.structure(m, cb.Message) for m in raw]) == conversation


@pytest.mark.parametrize("name", list(CONVERSATIONS_BAD))
def test_conversations_rejected(name):
    """Duplicate call ids, orphan or early results, mismatched names and second answers are rejected."""
    raw, path = CONVERSATIONS_BAD[name]
    rejects(raw, cb.Conversation, path=path)
    messages = [cb.structure(m, cb.Message) for m in raw]
    with pytest.raises(cb.ValidationError) as excinfo:
        cb.Conversation(messages=messages)
    assert excinfo.value.errors[0][0] == path.replace("$", "$.messages", 1) or excinfo.value.errors[0][0] == path


@pytest.mark.parametrize("raw", [{}, {"messages": []}, "[]", None, 1], ids=["object", "wrapped", "string", "null", "int"])
def test_conversation_is_a_json_array(raw):
    """A conversation's wire form is a JSON array of messages; anything else is rejected."""
    rejects(raw, cb.Conversation)


# ---------------------------------------------------------------------------------------------- §6 strictness


@pytest.mark.parametrize(
    ("base", "at", "value"),
    [
        (TEXT, ("text",), None),
        (TEXT, ("text",), 123),
        (TEXT, ("text",), ["h", "i"]),
        (TEXT, ("text",), b"hi"),
        (TEXT, ("citations",), "abc"),
        (TEXT, ("citations",), {"0": CITATION}),
        (CITED, ("citations", 0, "start"), "0"),
        (CITED, ("citations", 0, "title"), 5),
        (CALL, ("tool_call_id",), 12),
        (CALL, ("tool_name",), True),
        (RESULT, ("outcome",), True),
        (RESULT, ("content",), {"0": TEXT}),
        (FILE, ("media_type",), ["image/png"]),
        (FILE, ("source",), "aGk="),
        (FILE, ("source",), [{"type": "base64", "data": "aGk="}]),
        (TEXT, ("metadata",), [["k", "v"]]),
        (JSON, ("value",), {1, 2}),
    ],
)
def test_validate_never_coerce(base, at, value):
    """A string field takes only str, an int only int (never bool), a list only a list, an object only a dict."""
    rejects(with_(base, at, value))


def test_tuples_are_lists_from_python_callers():
    """Tuples are accepted where lists go, and come out as lists."""
    raw = {"role": "user", "content": ({"type": "text", "text": "a", "citations": (CITATION,)},)}
    out = cb.unstructure(cb.structure(raw, cb.Message))
    assert type(out["content"]) is list
    assert type(out["content"][0]["citations"]) is list
    assert cb.unstructure(cb.structure((raw,), cb.Conversation))[0] == out


@pytest.mark.parametrize("value", [None, 1, "text", [], [TEXT], b"{}", 1.5, True], ids=["null", "int", "str", "list", "list-of-block", "bytes", "float", "bool"])
@pytest.mark.parametrize("target", [cb.Block, cb.TextBlock, cb.Message, cb.ToolResultBlock], ids=["Block", "TextBlock", "Message", "ToolResultBlock"])
def test_non_objects_are_rejected_with_validation_error(value, target):
    """A block or message is an object: anything else raises ValidationError (never KeyError or TypeError)."""
    rejects(value, target, path="$")


def test_structuring_a_class_checks_its_tag():
    """Structuring into one block class refuses another kind of block."""
    rejects(REFUSAL, cb.TextBlock)
    rejects({"text": "hi"}, cb.TextBlock)


# ---------------------------------------------------------------------------------------------- §6 limits


LIMIT_CASES = {
    "max_text_chars:text": ("max_text_chars", 5, lambda n: with_(TEXT, ("text",), "x" * n)),
    "max_text_chars:refusal": ("max_text_chars", 5, lambda n: with_(REFUSAL, ("text",), "x" * n)),
    "max_text_chars:quote": ("max_text_chars", 5, lambda n: with_(CITED, ("citations", 0, "quote"), "x" * n)),
    "max_text_chars:signature": ("max_text_chars", 5, lambda n: {"type": "reasoning", "signature": "x" * n}),
    "max_text_chars:json-string": ("max_text_chars", 5, lambda n: with_(JSON, ("value",), ["x" * n])),
    "max_text_chars:json-key": ("max_text_chars", 5, lambda n: with_(JSON, ("value",), {"x" * n: 1})),
    "max_text_chars:metadata": ("max_text_chars", 5, lambda n: with_(TEXT, ("metadata",), {"k": "x" * n})),
    "max_binary_bytes:data": ("max_binary_bytes", 3, lambda n: with_(FILE, ("source", "data"), "AAAA" if n == 3 else "AAAAAA==")),
    "max_binary_bytes:data-5": ("max_binary_bytes", 5, lambda n: with_(FILE, ("source", "data"), "AAAAAAA=" if n == 5 else "AAAAAAAA")),
    "max_binary_bytes:redacted": ("max_binary_bytes", 1, lambda n: {"type": "reasoning", "redacted": "AA==" if n == 1 else "AAA="}),
    "max_uri_chars:url": ("max_uri_chars", 30, lambda n: with_(URL_FILE, ("source", "url"), "https://a.com/" + "p" * (n - 14))),
    "max_uri_chars:citation-uri": ("max_uri_chars", 30, lambda n: with_(CITED, ("citations", 0, "source", "value"), "urn:" + "x" * (n - 4))),
    "max_depth:value": ("max_depth", 3, lambda n: with_(JSON, ("value",), _nested(n))),
    "max_depth:input": ("max_depth", 3, lambda n: with_(CALL, ("input",), _nested(n))),
    "max_nodes:flat": ("max_nodes", 10, lambda n: with_(JSON, ("value",), list(range(n - 1)))),
    "max_nodes:nested": ("max_nodes", 10, lambda n: with_(JSON, ("value",), [[0, 1], [2, 3], *range(n - 7)])),
}


def _nested(depth):
    value = [0]
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("case", list(LIMIT_CASES))
def test_each_limit_at_n_and_n_plus_one(case):
    """Every configurable limit accepts a value at the limit and rejects one just past it."""
    option, n, build = LIMIT_CASES[case]
    converter = cb.make_converter(**{option: n})
    accepts(build(n), converter=converter)
    rejects(build(n + 1), converter=converter)
    # the default converter has room for both
    accepts(build(n + 1))


def test_max_errors_limits_the_problems_kept():
    """max_errors keeps that many problems and counts the rest in ``omitted``."""
    converter = cb.make_converter(max_errors=3)
    raw = {"role": "user", "content": [with_(TEXT, ("text",), 1) for _ in range(10)]}
    error = rejects(raw, cb.Message, converter=converter)
    assert len(error.errors) == 3
    assert len(error.errors) + error.omitted >= 10
    error = rejects(raw, cb.Message)
    assert len(error.errors) == 10
    assert error.omitted == 0


def test_base64_length_is_checked_before_decoding():
    """An over-long base64 string is refused for its length, whatever its characters, before decoding."""
    converter = cb.make_converter(max_binary_bytes=3)
    for data in ("!!!!!!!!", "AAAA\n\n\n\n", "AAAAAAAA"):
        error = rejects(with_(FILE, ("source", "data"), data), converter=converter, path="$.source.data")
        assert "more than" in str(error)
    junk = "!" * 50_000_000
    error = rejects(with_(FILE, ("source", "data"), junk), path="$.source.data")
    assert "more than" in str(error)
    assert len(str(error)) < 300


def test_native_binary_limits():
    """With binary="native" the bytes are raw and the same size limit applies."""
    converter = cb.make_converter(binary="native", max_binary_bytes=3)
    accepts(with_(FILE, ("source", "data"), b"abc"), converter=converter)
    rejects(with_(FILE, ("source", "data"), b"abcd"), converter=converter, path="$.source.data")
    rejects(with_(FILE, ("source", "data"), "YWJj"), converter=converter, path="$.source.data")


def test_default_text_limit():
    """By default a string holds up to 10,000,000 characters."""
    accepts(with_(TEXT, ("text",), "x" * 10_000_000))
    rejects(with_(TEXT, ("text",), "x" * 10_000_001), path="$.text")


def test_default_binary_limit():
    """By default binary holds up to 32 MiB once decoded; the base64 text of 32 MiB + 1 byte is refused."""
    limit = 32 * 1024 * 1024
    too_long = "A" * (4 * ((limit + 1 + 2) // 3))
    rejects(with_(FILE, ("source", "data"), too_long), path="$.source.data")


def test_default_url_limit():
    """By default URLs and URIs hold up to 8,192 characters."""
    url = "https://a.com/" + "p" * (8192 - 14)
    accepts(with_(URL_FILE, ("source", "url"), url))
    rejects(with_(URL_FILE, ("source", "url"), url + "p"), path="$.source.url")
    uri = "urn:" + "x" * (8192 - 4)
    accepts(with_(CITED, ("citations", 0, "source", "value"), uri))
    rejects(with_(CITED, ("citations", 0, "source", "value"), uri + "x"))


@pytest.mark.parametrize("option", ["max_text_chars", "max_binary_bytes", "max_uri_chars", "max_depth", "max_nodes", "max_errors"])
@pytest.mark.parametrize("value", [0, -1, "10", 1.5, True], ids=["zero", "negative", "str", "float", "bool"])
def test_invalid_limits_are_refused(option, value):
    """Limits are positive ints."""
    with pytest.raises((ValueError, TypeError)):
        cb.make_converter(**{option: value})


def test_unknown_options_are_refused():
    """make_converter refuses options it does not know and binary modes other than base64 and native."""
    with pytest.raises(ValueError):
        cb.make_converter(max_texts=3)
    with pytest.raises(ValueError):
        cb.make_converter(binary="base85")


# ---------------------------------------------------------------------------------------------- §6 errors


def test_errors_are_gathered_from_several_places():
    """Every problem in a value is reported, each with its JSON path, in one ValidationError."""
    raw = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": ""},
            {"type": "file", "media_type": "*/*", "source": {"type": "base64", "data": "aGk"}, "filename": ".."},
            {"type": "tool_call", "tool_call_id": "a b", "tool_name": "f", "input": [float("nan")], "extra": 1},
            {"type": "bogus"},
        ],
        "metadata": {"": 1},
    }
    error = rejects(raw, cb.Message)
    paths = {p for p, _ in error.errors}
    expected = {"$.content[0].text", "$.content[1].media_type", "$.content[1].source.data", "$.content[1].filename",
                "$.content[2].tool_call_id", "$.content[2].input[0]", "$.content[2].extra", "$.content[3].type"}
    assert expected <= paths, paths
    assert any(p.startswith("$.metadata") for p in paths)
    text = str(error)
    for path in expected:
        assert path in text


def test_errors_in_several_messages_are_gathered():
    """Problems in several messages of a conversation are all reported with $[i] paths."""
    raw = [{"role": "user", "content": ""}, {"role": "user", "content": "ok"}, {"role": "wizard", "content": "x"}]
    error = rejects(raw, cb.Conversation)
    paths = {p for p, _ in error.errors}
    assert {"$[0].content", "$[2].role"} <= paths


HUGE = "\u00e9" * 1_000_000


@pytest.mark.parametrize(
    "raw",
    [
        {"type": HUGE},
        {"type": "text", "text": "t", HUGE: 1},
        {"type": "tool_call", "tool_call_id": HUGE, "tool_name": "f", "input": None},
        {"type": "file", "media_type": HUGE, "source": {"type": "url", "url": "https://a.com"}},
        {"type": "file", "media_type": "a/b", "source": {"type": "url", "url": "https://a.com/" + HUGE + " "}},
        {"type": "file", "media_type": "a/b", "source": {"type": "base64", "data": HUGE}},
        {"type": "file", "media_type": "a/b", "source": {"type": "url", "url": "x"}, "filename": HUGE},
        {"type": "text", "text": "t", "citations": [{"source": {"kind": "uri", "value": HUGE}}]},
        {"type": "text", "text": "t", "citations": [{"source": {"kind": HUGE, "value": "x"}}]},
        {"type": "tool_result", "tool_call_id": "c", "tool_name": "f", "outcome": HUGE, "content": []},
        {"type": "json", "value": {HUGE: float("inf")}},
        {"type": "text", "text": "t", "metadata": {HUGE + "\ud800": 1}},
        {"type": "text", "text": "t", "citations": [{"source": {"kind": "uri", "value": "a:b"}, "start": 10**5000, "end": 1}]},
    ],
    ids=["tag", "unknown-key", "identifier", "media-type", "url", "base64", "filename", "uri", "kind", "outcome",
         "json-key", "metadata-key", "huge-int"],
)
def test_error_messages_never_echo_a_long_input(raw):
    """A 1 MB string (or a 5,000-digit int) in any field gives a short error message."""
    error = rejects(raw)
    assert len(str(error)) < 2000
    assert all(len(path) < 400 and len(message) < 500 for path, message in error.errors)


@pytest.mark.parametrize("target", [cb.Block, cb.Message, cb.Conversation])
@pytest.mark.parametrize(
    "raw",
    [
        {"type": "text", "text": {"nested": []}},
        {"role": "user", "content": [None]},
        [[{"role": "user"}]],
        {"type": "tool_result", "tool_call_id": "c", "tool_name": "f", "outcome": "failed", "content": [[]]},
        {"type": "file", "media_type": "a/b", "source": {"type": "url"}},
        {"type": "text", "text": "t", "citations": [{"source": None}]},
        {"type": ["text"]},
        {"type": None},
    ],
    ids=range(8),
)
def test_only_validation_errors_escape(target, raw):
    """Malformed input of any shape raises ValidationError, never KeyError, TypeError or a cattrs error."""
    rejects(raw, target)


# ---------------------------------------------------------------------------------------------- §6 Python classes

PYTHON_BAD = {
    "text-empty": lambda: cb.TextBlock(text=""),
    "text-not-str": lambda: cb.TextBlock(text=None),
    "text-surrogate": lambda: cb.TextBlock(text="\ud800"),
    "text-bad-citation": lambda: cb.TextBlock(text="t", citations=["https://a.com"]),
    "text-span-past-end": lambda: cb.TextBlock(text="ab", citations=[cb.Citation(source=cb.CitedUri(value="a:b"), start=0, end=3)]),
    "citation-half-span": lambda: cb.Citation(source=cb.CitedUri(value="a:b"), start=0),
    "citation-bool-span": lambda: cb.Citation(source=cb.CitedUri(value="a:b"), start=False, end=True),
    "citation-title-space": lambda: cb.Citation(source=cb.CitedUri(value="a:b"), title=" t"),
    "citation-source-str": lambda: cb.Citation(source="https://a.com"),
    "uri-no-target": lambda: cb.CitedUri(value="urn:"),
    "uri-non-ascii": lambda: cb.CitedUri(value="https://a.com/\u00e9"),
    "reference-space": lambda: cb.CitedReference(value=" r"),
    "refusal-empty": lambda: cb.RefusalBlock(text=""),
    "bytes-str": lambda: cb.BytesSource(data="aGk="),
    "url-userinfo": lambda: cb.UrlSource(url="https://u@a.com/"),
    "url-data": lambda: cb.UrlSource(url="data:,hi"),
    "url-ftp": lambda: cb.UrlSource(url="ftp://a.com/"),
    "reference-empty": lambda: cb.ReferenceSource(id=""),
    "file-star-star": lambda: cb.FileBlock(media_type="*/*", source=cb.UrlSource(url="https://a.com")),
    "file-source-dict": lambda: cb.FileBlock(media_type="a/b", source={"type": "url", "url": "https://a.com"}),
    "file-filename-256-bytes": lambda: cb.FileBlock(media_type="a/b", source=cb.BytesSource(data=b""), filename="\u00e9" * 128),
    "file-filename-dotdot": lambda: cb.FileBlock(media_type="a/b", source=cb.BytesSource(data=b""), filename=".."),
    "reasoning-empty": cb.ReasoningBlock,
    "reasoning-redacted-text": lambda: cb.ReasoningBlock(text="t", redacted=b"x"),
    "reasoning-redacted-signature": lambda: cb.ReasoningBlock(signature="s", redacted=b"x"),
    "reasoning-empty-signature": lambda: cb.ReasoningBlock(signature=""),
    "call-id-257": lambda: cb.ToolCallBlock(tool_call_id="x" * 257, tool_name="f", input=None),
    "call-name-space": lambda: cb.ToolCallBlock(tool_call_id="c", tool_name="get weather", input=None),
    "call-input-nan": lambda: cb.ToolCallBlock(tool_call_id="c", tool_name="f", input=float("nan")),
    "result-outcome": lambda: cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="ok"),
    "result-content-kind": lambda: cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="failed", content=[cb.RefusalBlock(text="no")]),
    "result-content-dict": lambda: cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="failed", content=[TEXT]),
    "json-set": lambda: cb.JsonBlock(value={1}),
    "json-big-int": lambda: cb.JsonBlock(value=2**64),
    "metadata-empty-key": lambda: cb.JsonBlock(value=1, metadata={"": 1}),
    "metadata-not-dict": lambda: cb.JsonBlock(value=1, metadata=[("k", 1)]),
    "metadata-none": lambda: cb.JsonBlock(value=1, metadata=None),
    "message-empty": lambda: cb.Message(role="user", content=[]),
    "message-empty-str": lambda: cb.Message(role="user", content=""),
    "message-role": lambda: cb.Message(role="bot", content="hi"),
    "message-role-table": lambda: cb.Message(role="user", content=[cb.RefusalBlock(text="no")]),
    "message-dict-content": lambda: cb.Message(role="user", content=[TEXT]),
    "conversation-orphan": lambda: cb.Conversation(messages=[cb.Message(role="tool", content=[cb.ToolResultBlock(tool_call_id="c", tool_name="f", outcome="failed")])]),
    "conversation-dicts": lambda: cb.Conversation(messages=[{"role": "user", "content": "hi"}]),
}


@pytest.mark.parametrize("case", list(PYTHON_BAD))
def test_invalid_blocks_cannot_be_built_in_python(case):
    """The classes enforce the same rules as the converter: an invalid block cannot be constructed."""
    with pytest.raises(cb.ValidationError) as info:
        PYTHON_BAD[case]()
    assert info.value.errors


def test_python_constructors_gather_several_problems():
    """A constructor reports every problem it finds, not only the first."""
    with pytest.raises(cb.ValidationError) as info:
        cb.ToolCallBlock(tool_call_id="", tool_name="a b", input=float("inf"), metadata={"": 1})
    assert len(info.value.errors) >= 4


# ---------------------------------------------------------------------------------------------- §5 JSON text


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "json", "value": NaN}',
        '{"type": "json", "value": Infinity}',
        '{"type": "json", "value": -Infinity}',
        '{"type": "json", "value": 1e400}',
        '{"type": "json", "value": {"a": 1, "a": 2}}',
        '{"type": "text", "text": "a", "text": "b"}',
        '{"type": "json", "value": "\\ud800"}',
        '{"type": "json", "value": ' + "[" * 10_000 + "]" * 10_000 + "}",
        '{"type": "json", "value": ' + "1" * 5000 + "}",
        '{"type": "json", "value": 1',
        b'{"type": "text", "text": "\xff"}',
    ],
    ids=["nan", "inf", "-inf", "1e400", "duplicate-key-in-value", "duplicate-key-in-block", "lone-surrogate-escape",
         "deep-nesting", "5000-digit-int", "truncated", "not-utf8"],
)
def test_loads_is_strict(text):
    """loads refuses NaN, infinities, out-of-range numbers, duplicate keys and broken text with ValidationError."""
    with pytest.raises(cb.ValidationError) as info:
        cb.loads(text)
    assert len(str(info.value)) < 500
