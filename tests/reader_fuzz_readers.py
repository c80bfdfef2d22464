"""The readers under the differential fuzz, the check of one case, and the failures already known.

Every reader gets each case in two forms: the JSON dicts, and the objects the provider's SDK builds
(``reader_fuzz_sdks.sdk_form``). What may come out: a reply (or a tool result block), or a ``ValidationError``
whose paths point into the input (``$...``; a stream reader's ``StreamError`` paths are stream positions,
``$[n]...``, or ``$`` for the stream as a whole). A stream reader is also held to the SDK: when the SDK
accumulates the mutated stream, a fold that succeeds must equal the adapter's ``from_response`` of what the SDK
accumulated (and so that ``from_response`` must not refuse it); where the SDK cannot accumulate the events, or
pydantic cannot dump what it accumulated faithfully (a value nested past its limits; a non-finite number, which
its JSON mode writes as null), only the exceptions are checked. A reader must not change its input.

A failure's key names its class: the reader, the exception and the innermost frame of the package that it left
from (``openai_chat.stream: TypeError at streaming._chat_merge:merge``), or what disagreed. ``KNOWN`` holds the
classes known and not yet fixed (none now), each with a reproducer in ``tests/fuzz_cases/``.
"""

from __future__ import annotations

import json
import math
import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import attrs
from google.genai import types as genai

import contentblocks as cb
from contentblocks import ValidationError
from contentblocks.providers import anthropic, gemini, mcp, openai_chat, openai_responses
from contentblocks.streaming import ReplyBuilder, StreamError
from contentblocks.streaming import anthropic as anthropic_stream
from contentblocks.streaming import gemini as gemini_stream
from contentblocks.streaming import openai_chat as openai_chat_stream
from contentblocks.streaming import openai_responses as openai_responses_stream
from reader_fuzz import mutate_payload, mutate_stream, payload_seeds, stream_seeds, strings_of
from reader_fuzz_sdks import accumulate, accumulated_responses, built_responses, sdk_form, sdk_stream

# The failure classes known and not yet fixed, each reproduced in tests/fuzz_cases/ (a reproducer test xfails while
# its class is here). Every class found when the fuzz was written (issue 30) is fixed; the reproducers stay as
# regression tests. A class found later and not fixed at once goes here, with its reproducer.
KNOWN: frozenset[str] = frozenset()

ADAPTERS: dict[str, Any] = {
    "anthropic": anthropic, "openai_chat": openai_chat, "openai_responses": openai_responses, "gemini": gemini,
}
STREAMS: dict[str, Any] = {
    "anthropic": anthropic_stream, "openai_chat": openai_chat_stream,
    "openai_responses": openai_responses_stream, "gemini": gemini_stream,
}


@dataclass(frozen=True)
class Failure:
    """One failure of one case: its class (``key``), the form that failed and what happened."""

    key: str
    form: str
    detail: str


@dataclass(frozen=True)
class Case:
    """One mutated input, reproducible from ``(seed, reader, index)``."""

    reader: str
    seed: int
    index: int
    seed_name: str
    mutations: list[str]
    value: Any


@dataclass
class Reader:
    """A reader under fuzz: its seeds, the words its provider uses, and the check of one mutated input."""

    name: str
    provider: str
    stream: bool
    seeds: dict[str, Any]
    read: Callable[[Any], Any]
    words: list[str] = field(default_factory=list)
    sdk: bool = True  # whether the input has an SDK object form (requests are typed dicts in the SDKs)

    def case(self, seed: int, index: int) -> Case:
        """The case ``index`` of run ``seed``."""
        rng = random.Random(f"{seed}:{self.name}:{index}")  # noqa: S311 - reproducible cases, not secrets
        name = rng.choice(sorted(self.seeds))
        mutate = mutate_stream if self.stream else mutate_payload
        value, done = mutate(rng, self.seeds[name], self.words)
        return Case(self.name, seed, index, name, done, value)

    def check(self, value: Any) -> list[Failure]:
        """The failures of one input, in each form."""
        if self.stream:
            return _check_stream(self, value)
        failures = []
        forms: list[tuple[str, Callable[[Any], Any]]] = [("dict", _copy)]
        if self.sdk:
            forms.append(("sdk", lambda v: sdk_form(self.provider, _copy(v))))
        for form, build in forms:
            try:
                given = build(value)
            except Exception:  # noqa: BLE001, S112 - a value the SDK cannot hold has no SDK form
                continue
            outcome = _outcome(self.read, given, self.name, form, stream=False)
            if isinstance(outcome, Failure):
                failures.append(outcome)
            if form == "dict" and given != value:
                failures.append(Failure(f"{self.name}: changes its input", form, "the dict read is not as given"))
        return failures


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))  # pickle's and deepcopy's recursion fails on values nested 600 deep


def _location(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "/contentblocks/" in f.filename.replace("\\", "/")]
    frame = (ours or frames)[-1]
    module = frame.filename.replace("\\", "/").rsplit("/contentblocks/", 1)[-1].removesuffix(".py")
    return f"{module.replace('/', '.')}:{frame.name}"


def _outcome(read: Callable[[Any], Any], given: Any, name: str, form: str, *, stream: bool) -> Any:
    """What ``read(given)`` gives: its result, a ``ValidationError``, or a ``Failure``."""
    try:
        return read(given)
    except ValidationError as e:
        bad = [p for p, _ in e.errors if not _located(p, stream=stream)]
        if bad:
            where = "a stream position" if stream else "the payload"
            return Failure(f"{name}: error path outside {where}", form, f"{bad[0]!r}: {e}"[:400])
        return e
    except RecursionError as e:  # its frames are too many to locate
        return Failure(f"{name}: RecursionError", form, str(e)[:400])
    except Exception as e:  # noqa: BLE001 - any other exception is what the fuzz looks for
        return Failure(f"{name}: {type(e).__name__} at {_location(e)}", form, f"{type(e).__name__}: {e}"[:400])


def _located(path: str, *, stream: bool) -> bool:
    return path == "$" or path.startswith("$[") if stream else path.startswith("$")


def _fold(module: Any) -> Callable[[list[Any]], Any]:
    def fold(events: list[Any]) -> Any:
        reader = module.Reader()
        builder = ReplyBuilder(module.PROVIDER)
        builder.feed(reader.events(events))
        return builder.reply()

    return fold


def _check_stream(reader: Reader, events: list[Any]) -> list[Failure]:
    failures: list[Failure] = []
    adapter = ADAPTERS[reader.provider]
    results = {}
    dicts = _copy(events)
    results["dict"] = _outcome(reader.read, dicts, reader.name, "dict", stream=True)
    if dicts != events:
        failures.append(Failure(f"{reader.name}: changes its input", "dict", "the events read are not as given"))
    try:
        objects = sdk_stream(reader.provider, _copy(events))
    except Exception:  # noqa: BLE001 - events the SDK cannot hold have no SDK form
        objects = None
    if objects is not None:
        results["sdk"] = _outcome(reader.read, objects, reader.name, "sdk", stream=True)
    failures += [r for r in results.values() if isinstance(r, Failure)]
    for form, result in results.items():
        if isinstance(result, ValidationError) and not isinstance(result, StreamError):
            failures.append(Failure(f"{reader.name}: ValidationError that is not a StreamError", form, str(result)))
    folded = {form: r for form, r in results.items() if isinstance(r, cb.providers.Reply)}
    if not folded or objects is None:
        return failures
    try:
        accumulated = accumulate(reader.provider, _accumulated_from(reader.provider, events, objects))
        if _not_finite(accumulated.model_dump(mode="python", warnings=False)):
            return failures  # pydantic dumps a non-finite number as null in JSON mode: the SDK loses it itself
        accumulated.model_dump(mode="json", warnings=False)  # an SDK object pydantic cannot dump has no fold
    except Exception:  # noqa: BLE001 - where the SDK's accumulator fails, only the exceptions are checked
        return failures
    expected = _outcome(adapter.from_response, accumulated, f"{reader.provider}.from_response", "accumulated",
                        stream=False)
    if isinstance(expected, Failure):
        return [*failures, expected]
    for form, reply in folded.items():
        if isinstance(expected, ValidationError):
            failures.append(Failure(f"{reader.name}: folds a stream whose accumulated response does not read",
                                    form, str(expected)[:400]))
        elif _sdk_view(reader.provider, reply) != expected:
            what = _difference(_sdk_view(reader.provider, reply), expected)
            failures.append(Failure(f"{reader.name}: fold differs from from_response in {what}", form,
                                    f"fold: {_field(reply, what)!r}\nfrom_response: {_field(expected, what)!r}"[:800]))
    return failures


def _accumulated_from(provider: str, events: list[Any], objects: Any) -> Any:
    """The SDK objects its accumulator takes (after the reader read them: an accumulator may change them)."""
    if provider == "openai_chat" and (once := _role_once(events)) != events:
        return sdk_stream(provider, once)  # the one deviation from the SDK's accumulator: see _role_once
    return objects


def _role_once(events: list[Any]) -> list[Any]:
    """Chat events with a delta's role left out where it repeats the role before it.

    Ollama sends ``"role": "assistant"`` in every delta; the SDK's accumulator concatenates the repeats into a role
    no reader takes, where the stream reader keeps the role once. The SDK is given the events it reads the same.
    """
    out, roles = _copy(events), {}
    for event in out:
        choices = event.get("choices") if type(event) is dict else None
        for choice in choices if type(choices) is list else ():
            delta = choice.get("delta") if type(choice) is dict else None
            if type(delta) is dict and delta.get("role") is not None:
                key = choice.get("index") if type(choice.get("index")) is int else None
                if roles.get(key) == delta["role"]:
                    del delta["role"]
                else:
                    roles[key] = delta["role"]
    return out


def _sdk_view(provider: str, reply: Any) -> Any:
    """``reply`` as far as the SDK can agree with it. google-genai validates ``usageMetadata`` and drops the keys
    its model does not define, while ``Usage.raw`` keeps the whole object a dict gave: for Gemini, a fold's raw
    usage is compared on the SDK's keys only."""
    if provider != "gemini" or reply.usage is None:
        return reply
    known = {field.alias or name for name, field in genai.GenerateContentResponseUsageMetadata.model_fields.items()}
    raw = {key: value for key, value in reply.usage.raw.items() if key in known}
    return attrs.evolve(reply, usage=attrs.evolve(reply.usage, raw=raw))


def _not_finite(value: Any) -> bool:
    """Whether a dumped value holds a float that is not finite (an explicit stack: dumps may be deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _difference(reply: Any, expected: Any) -> str:
    """The first field of ``Reply`` in which two replies differ (the message as a whole: a class, not a diff)."""
    return next((a.name for a in attrs.fields(type(reply)) if getattr(reply, a.name) != getattr(expected, a.name)), "?")


def _field(reply: Any, what: str) -> Any:
    return getattr(reply, what, None)


def _mcp_read(result: Any) -> Any:
    return mcp.from_call_tool_result(result, tool_call_id="call_1", tool_name="tool")


def readers() -> dict[str, Reader]:
    """Every reader under fuzz, by name: ``<provider>.from_response``, ``.from_provider``, ``.stream``."""
    found: dict[str, Reader] = {}
    for provider, adapter in ADAPTERS.items():
        streams = stream_seeds(provider)
        responses = {**payload_seeds(provider, responses=True), **built_responses(provider),
                     **accumulated_responses(provider, streams)}
        requests = payload_seeds(provider, responses=False)
        words = strings_of([*streams.values(), *responses.values(), *requests.values()])
        found[f"{provider}.from_response"] = Reader(f"{provider}.from_response", provider, False, responses,
                                                    adapter.from_response, words)
        found[f"{provider}.from_provider"] = Reader(f"{provider}.from_provider", provider, False, requests,
                                                    adapter.from_provider, words, sdk=False)
        found[f"{provider}.stream"] = Reader(f"{provider}.stream", provider, True, streams,
                                             _fold(STREAMS[provider]), words)
    results = payload_seeds("mcp", responses=False)
    found["mcp.from_call_tool_result"] = Reader("mcp.from_call_tool_result", "mcp", False, results, _mcp_read,
                                                strings_of(list(results.values())))
    return found
