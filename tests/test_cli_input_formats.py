"""``contentblocks check --input-format``: datasets kept in a provider's request format, and the hints."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

import contentblocks as cb
from contentblocks import cli
from contentblocks._transcripts._checker import INPUT_FORMATS, format_hint

#: An OpenAI fine-tuning line as the fine-tuning guide writes them: tools, weights, a tool call, an image part.
FINE_TUNING: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You look at pictures."},
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}},
        ]},
        {"role": "assistant", "content": None, "weight": 0, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": '{"zoom": 2}'}},
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a cat on a mat"},
        {"role": "assistant", "content": "A cat.", "weight": 1},
    ],
    "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}],
    "parallel_tool_calls": False,
}  # fmt: skip

ANTHROPIC: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "Be brief."}],
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Call the tool.", "signature": "c2ln"},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C"}]},
        {"role": "assistant", "content": "18 C in Paris."},
    ],
}  # fmt: skip

GEMINI: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"c": 18}}}]},
        {"role": "model", "parts": [{"text": "18 C."}]},
    ],
}  # fmt: skip

RESPONSES: dict[str, Any] = {
    "instructions": "Be brief.",
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
        {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": '{"city": "Paris"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "18 C"},
        {"role": "assistant", "content": [{"type": "output_text", "text": "18 C.", "annotations": []}]},
    ],
}  # fmt: skip

REQUESTS = {"openai_chat": FINE_TUNING, "anthropic": ANTHROPIC, "gemini": GEMINI, "openai_responses": RESPONSES}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command in this process; return its status, standard output and standard error."""
    status = cli.main(["check", "--no-progress", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_adapter_is_a_format() -> None:
    """The formats are the wire format and every provider adapter, each importable by its name."""
    assert INPUT_FORMATS[0] == "contentblocks"
    assert set(INPUT_FORMATS[1:]) == set(REQUESTS)


@pytest.mark.parametrize("input_format", list(REQUESTS))
def test_a_provider_request_checks_clean_as_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], input_format: str
) -> None:
    """A line of each provider's request format passes with its --input-format; as the wire format it fails."""
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(REQUESTS[input_format]) + "\n", "utf-8")
    status, out, err = run(capsys, "--input-format", input_format, str(path))
    assert (status, err) == (0, ""), out
    assert out.startswith("checked 1 file, 1 conversation, ")
    assert out.endswith(", 0 problems\n")
    assert run(capsys, "--dataset", str(path))[0] == 1


@pytest.mark.parametrize("input_format", list(REQUESTS))
def test_a_json_document_is_one_request(tmp_path: Path, capsys: pytest.CaptureFixture[str], input_format: str) -> None:
    """A ``.json`` file in a provider format is one request, its problems at lines of the document."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REQUESTS[input_format], indent=2), "utf-8")
    status, out, _ = run(capsys, "--input-format", input_format, str(path))
    assert status == 0
    assert out.startswith(f"checked 1 file, 1 conversation, {run_count(input_format)} (")
    assert out.endswith("), 0 problems\n")


def run_count(input_format: str) -> str:
    """The message and block counts of the summary for ``REQUESTS[input_format]``, read by its adapter."""
    import importlib  # noqa: PLC0415

    conversation = importlib.import_module(f"contentblocks.providers.{input_format}").from_provider(
        REQUESTS[input_format]
    )
    blocks = sum(len(m.content) + sum(len(b.content) for b in m.content if isinstance(b, cb.ToolResultBlock))
                 for m in conversation)  # fmt: skip
    return f"{len(conversation)} messages, {blocks} blocks"


def test_a_bad_request_is_reported_at_its_own_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The adapter's problems name paths into the request and the line it is on; the next line is still read."""
    bad = json.loads(json.dumps(FINE_TUNING))
    bad["messages"][3]["tool_call_id"] = "call_2"  # answers no call
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(FINE_TUNING) + "\n" + json.dumps(bad) + "\n{\n", "utf-8")
    status, out, _ = run(capsys, "--input-format", "openai_chat", str(path))
    lines = out.splitlines()
    assert status == 2
    assert lines[0].startswith(f"{path}:2: $.messages[3]"), lines
    assert lines[1].startswith(f"{path}:3: $: invalid JSON")
    assert lines[-1].startswith("checked 1 file, 3 conversations, 5 messages, ")


def test_lowered_limits_apply_to_the_conversation_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A limit option holds the conversation read from a request, and its problems say where they come from."""
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(FINE_TUNING) + "\n", "utf-8")
    status, out, _ = run(capsys, "--input-format", "openai_chat", "--max-text-chars", "10", str(path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"{path}:1: $[0].content[0].text: longer than 10 characters (in the conversation read from the request)"
    )


def test_wire_format_problems_hint_at_the_provider_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Checked as the wire format, a fine-tuning file fails, and a hint on stderr names the format to use."""
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(FINE_TUNING) + "\n", "utf-8")
    status, out, err = run(capsys, "--dataset", str(path))
    assert status == 1
    assert "contentblocks: hint" not in out
    assert err == "contentblocks: hint: these look like openai_chat requests: check them with --input-format openai_chat\n"
    status, out, err = run(capsys, "--dataset", "--format", "json", str(path))
    assert json.loads(out)["status"] == 1  # the JSON report stays JSON: the hint is on stderr
    assert "--input-format openai_chat" in err


@pytest.mark.parametrize(
    ("request_", "named"),
    [(ANTHROPIC, "anthropic"), (GEMINI, "gemini"), (RESPONSES, "openai_responses")],
    ids=["anthropic", "gemini", "openai_responses"],
)
def test_each_provider_format_is_hinted(request_: dict[str, Any], named: str) -> None:
    """The wire format's problems on each provider's request name that provider."""
    # Each request is read the way its lines are: the keys holding its messages as the conversation.
    messages = request_.get("messages") or request_.get("contents") or request_["input"]
    result = cb.Checker().check({"messages": messages})
    assert not result.ok
    assert result.hint == f"these look like {named} requests: check them with --input-format {named}"


def test_a_line_holding_a_conversation_hints_at_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --dataset, a .jsonl line holding a whole conversation fails, and the hint names --dataset."""
    path = tmp_path / "data.jsonl"
    path.write_text('[{"role": "user", "content": "Hi"}]\n{"messages": [{"role": "user", "content": "Hi"}]}\n', "utf-8")
    status, _, err = run(capsys, str(path))
    assert status == 1
    assert err == (
        "contentblocks: hint: a line holds a whole conversation: with --dataset each line of a .jsonl file is one "
        "conversation\n"
    )
    assert run(capsys, "--dataset", str(path))[:3:2] == (0, "")


def test_a_clean_check_hints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No problem, no hint; and a problem that points nowhere gives none either."""
    assert format_hint([cb.Problem("$.messages[0].content", "must not be empty")]) is None
    path = tmp_path / "data.jsonl"
    path.write_text('{"role": "user", "content": ""}\n', "utf-8")
    assert run(capsys, str(path))[::2] == (1, "")


def test_input_format_implies_dataset_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A request holds a whole conversation: with --input-format each .jsonl line is a request, as with --dataset."""
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(ANTHROPIC) + "\n" + json.dumps(ANTHROPIC) + "\n", "utf-8")
    status, out, _ = run(capsys, "--input-format", "anthropic", str(path))
    assert status == 0
    assert out.startswith("checked 1 file, 2 conversations, 10 messages, ")  # the system prompt is one


def test_an_unknown_format_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """The option takes the known formats only; the class says which it takes."""
    with pytest.raises(SystemExit) as raised:
        cli.main(["check", "--input-format", "bedrock"])
    assert raised.value.code == 2
    assert "invalid choice: 'bedrock'" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"input_format must be one of contentblocks, openai_chat, .* not 'bedrock'"):
        cb.Checker(input_format="bedrock")  # type: ignore[arg-type]


@pytest.mark.parametrize("input_format", INPUT_FORMATS)
def test_a_checker_pickles_with_its_format(input_format: Any) -> None:
    """A checker sent to a worker keeps its format and limits; equality and hashing see the format."""
    checker = cb.Checker(cb.Limits(max_text_chars=7), input_format=input_format)
    again = pickle.loads(pickle.dumps(checker))  # noqa: S301 - our own bytes
    assert again == checker
    assert hash(again) == hash(checker)
    assert again.input_format == input_format
    assert again.limits == cb.Limits(max_text_chars=7)
    assert (checker == cb.Checker(cb.Limits(max_text_chars=7))) is (input_format == "contentblocks")
    assert ("input_format=" in repr(checker)) is (input_format != "contentblocks")


def test_workers_check_in_the_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --jobs 2 the workers read the requests with the adapter too, to the same report."""
    path = tmp_path / "data.jsonl"
    lines = [json.dumps(FINE_TUNING)] * 300 + ['{"messages": []}']
    path.write_text("\n".join(lines) + "\n", "utf-8")
    one = run(capsys, "--input-format", "openai_chat", str(path))
    two = run(capsys, "--input-format", "openai_chat", "--jobs", "2", str(path))
    assert one == two
    assert one[1].startswith("checked 1 file, 301 conversations, 1500 messages, ")
