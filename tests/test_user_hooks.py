"""A user's hook for a class the library nests is used wherever that class is nested, on that converter only."""

import attrs
import cattrs
import pytest

import contentblocks as cb
import contentblocks.preconf.json

CITED = {"source": {"kind": "uri", "value": "https://example.com/"}, "title": "Example"}
TEXT = {"type": "text", "text": "Paris", "citations": [CITED]}
FILE = {"type": "file", "media_type": "text/plain", "source": {"type": "url", "url": "http://example.com/a"}}


def _configured(kind):
    if kind == "base":
        conv = cattrs.BaseConverter()
        cb.configure_converter(conv)
        return conv
    if kind == "preconf-json":
        return contentblocks.preconf.json.make_converter()
    return cb.make_converter()


KINDS = ["converter", "base", "preconf-json"]


def _hook_citation_titles(conv):
    """Register a structure hook for Citation that wraps the library's own and upper-cases the title."""
    ours = conv.get_structure_hook(cb.Citation)
    conv.register_structure_hook(cb.Citation, lambda raw, cl: attrs.evolve(ours(raw, cl), title=raw["title"].upper()))


@pytest.mark.parametrize("kind", KINDS)
def test_a_citation_hook_applies_inside_text_blocks_messages_and_conversations(kind):
    """A structure hook for Citation changes the citations of a text block, a message and a conversation."""
    conv = _configured(kind)
    _hook_citation_titles(conv)
    assert conv.structure(TEXT, cb.TextBlock).citations[0].title == "EXAMPLE"
    assert conv.structure(TEXT, cb.Block).citations[0].title == "EXAMPLE"
    message = conv.structure({"role": "assistant", "content": [TEXT]}, cb.Message)
    assert message.content[0].citations[0].title == "EXAMPLE"
    conversation = conv.structure([{"role": "user", "content": "Capital?"}, {"role": "assistant", "content": [TEXT]}],
                                  cb.Conversation)  # fmt: skip
    assert conversation[1].content[0].citations[0].title == "EXAMPLE"


def test_a_hook_changes_nothing_on_other_converters():
    """Another converter, the module-level API and a copy made before the hook keep the library's hooks."""
    conv = cb.make_converter()
    before = conv.copy()
    _hook_citation_titles(conv)
    assert cb.structure(TEXT, cb.TextBlock).citations[0].title == "Example"
    assert cb.make_converter().structure(TEXT, cb.TextBlock).citations[0].title == "Example"
    assert before.structure(TEXT, cb.TextBlock).citations[0].title == "Example"
    assert conv.copy().structure(TEXT, cb.TextBlock).citations[0].title == "EXAMPLE"


@pytest.mark.parametrize("kind", KINDS)
def test_a_citation_unstructure_hook_applies_inside_blocks_messages_and_conversations(kind):
    """An unstructure hook for Citation writes every nested citation, through unstructure and dumps."""
    conv = _configured(kind)
    ours = conv.get_unstructure_hook(cb.Citation)
    conv.register_unstructure_hook(cb.Citation, lambda citation: {**ours(citation), "checked": True})
    block = cb.structure(TEXT, cb.TextBlock)
    conversation = cb.Conversation(messages=[cb.Message(role="assistant", content=[block])])
    assert conv.unstructure(block)["citations"][0]["checked"] is True
    assert conv.unstructure(block, cb.Block)["citations"][0]["checked"] is True
    assert conv.unstructure(conversation)[0]["content"][0]["citations"][0]["checked"] is True
    assert cb.unstructure(conversation)[0]["content"][0]["citations"][0] == CITED
    if kind == "preconf-json":
        assert '"checked": true' in conv.dumps(conversation)
        assert '"checked": true' in conv.dumps(block)


def test_a_source_hook_applies_inside_file_blocks_and_words_its_problems_in_place():
    """A hook for UrlSource runs for a file block's source; its ValidationError keeps the full path."""
    conv = cb.make_converter()
    ours = conv.get_structure_hook(cb.UrlSource)
    conv.register_structure_hook(cb.UrlSource, lambda raw, cl: ours({**raw, "url": raw["url"].replace("http:", "https:")}, cl))
    assert conv.structure(FILE, cb.FileBlock).source == cb.UrlSource(url="https://example.com/a")
    bad = {**FILE, "source": {"type": "url", "url": "ftp://example.com/a"}}
    with pytest.raises(cb.ValidationError) as caught:
        conv.structure([{"role": "user", "content": [FILE, bad]}], cb.Conversation)
    assert [path for path, _ in caught.value.errors] == ["$[0].content[1].source.url"]
    assert cb.structure(FILE, cb.FileBlock).source == cb.UrlSource(url="http://example.com/a")


def test_string_content_is_a_text_block_made_without_the_text_block_hook():
    """A message's string content becomes a text block directly; the TextBlock hook sees the objects only."""
    conv = cb.make_converter()
    conv.register_structure_hook(cb.TextBlock, lambda raw, cl: cb.TextBlock(text="hooked"))
    assert conv.structure({"role": "user", "content": "hi"}, cb.Message).content == (cb.TextBlock(text="hi"),)
    assert conv.structure({"role": "user", "content": [{"type": "text", "text": "hi"}]}, cb.Message).content == (
        cb.TextBlock(text="hooked"),
    )


def test_a_block_hook_applies_to_the_members_of_every_union_that_holds_it():
    """A hook for JsonBlock runs for json blocks in a message's content and in a tool result's content."""
    conv = cb.make_converter()
    ours = conv.get_structure_hook(cb.JsonBlock)
    conv.register_structure_hook(cb.JsonBlock, lambda raw, cl: ours({**raw, "value": "seen"}, cl))
    result = {"type": "tool_result", "tool_call_id": "c", "tool_name": "f", "outcome": "succeeded",
              "content": [{"type": "json", "value": 1}]}  # fmt: skip
    message = conv.structure({"role": "tool", "content": [result]}, cb.Message)
    assert message.content[0].content[0].value == "seen"
    assert conv.structure({"type": "json", "value": 1}, cb.Block).value == "seen"


def test_a_class_hook_registered_before_configuring_is_used_too():
    """A hook registered with register_structure_hook(cls, ...) before configure_converter still applies."""
    conv = cattrs.Converter()
    conv.register_structure_hook(cb.Citation, lambda raw, cl: cb.Citation(source=cb.CitedUri(value="urn:x:before")))
    conv.register_unstructure_hook(cb.Citation, lambda citation: "before")
    cb.configure_converter(conv)
    block = conv.structure(TEXT, cb.TextBlock)
    assert block.citations[0].source.value == "urn:x:before"
    assert conv.unstructure(cb.Message(role="assistant", content=[block]))["content"][0]["citations"] == ["before"]


def test_a_predicate_hook_registered_before_configuring_is_shadowed():
    """A predicate hook registered before configure_converter loses to it, as any earlier one does in cattrs."""
    conv = cattrs.Converter()
    conv.register_structure_hook_func(lambda t: t is cb.Citation, lambda raw, cl: "never")
    cb.configure_converter(conv)
    assert conv.structure(TEXT, cb.TextBlock).citations[0].title == "Example"
    conv.register_structure_hook_func(lambda t: t is cb.Citation, lambda raw, cl: "after")
    assert conv.structure(TEXT, cb.TextBlock).citations == ("after",)


def test_hooks_registered_later_replace_earlier_ones_inside_blocks():
    """Each registration is picked up inside blocks already structured once, as cattrs clears its hook cache."""
    conv = cb.make_converter()
    assert conv.structure(TEXT, cb.TextBlock).citations[0].title == "Example"
    _hook_citation_titles(conv)
    assert conv.structure(TEXT, cb.TextBlock).citations[0].title == "EXAMPLE"
    conv.register_structure_hook(cb.Citation, lambda raw, cl: "replaced")
    assert conv.structure(TEXT, cb.TextBlock).citations == ("replaced",)


def test_a_converter_without_user_hooks_keeps_the_fast_path():
    """Without a user hook for a nested class, no hook dispatches through the converter, and the shared ones serve."""
    plain = cb.make_converter()
    unrelated = cb.make_converter()
    unrelated.register_structure_hook(int, lambda raw, cl: 0)  # a hook for a type no block nests as a class
    unrelated.register_unstructure_hook(str, lambda s: s)
    for conv in (plain, unrelated, plain.copy()):
        for target in (cb.TextBlock, cb.FileBlock, cb.Message, cb.Block):
            assert conv.get_structure_hook(target).dispatches == frozenset()
            assert conv.get_unstructure_hook(target).dispatches == frozenset()
        # The unstructure hooks are the library's shared ones (the C walk first, where it is built).
        assert conv.get_unstructure_hook(cb.Message) is cb.make_converter().get_unstructure_hook(cb.Message)
    hooked = cb.make_converter()
    _hook_citation_titles(hooked)
    assert hooked.get_structure_hook(cb.Message).dispatches == {cb.Citation}
    assert hooked.get_structure_hook(cb.FileBlock).dispatches == frozenset()
    assert hooked.get_unstructure_hook(cb.Message) is plain.get_unstructure_hook(cb.Message)


def test_json_values_do_not_go_through_the_converter():
    """JSON values are checked and copied by the library: a hook for the read-only containers is not consulted."""
    conv = cb.make_converter()
    conv.register_unstructure_hook(cb.JsonObject, lambda value: "hooked")
    block = cb.JsonBlock(value={"a": 1})
    assert conv.unstructure(block) == {"type": "json", "value": {"a": 1}}
    assert conv.get_unstructure_hook(cb.JsonBlock).dispatches == frozenset()
