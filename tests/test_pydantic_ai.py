"""Tests for the `pydantic-ai` codec (`ModelMessagesTypeAdapter` JSON of Pydantic AI).

The fixtures were written by real runs (tests/pydantic_ai_runs.py); every fixed output is
read back with Pydantic AI's own `ModelMessagesTypeAdapter.validate_json`. Byte comparisons
go through `orjson.dumps` because Python `==` treats `1`, `1.0` and `True` as equal.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, resolve
from hypothesis import given
from strategies_pydantic_ai import transcripts

import histnorm
from histnorm.convert import convert
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats import detect_format, get_codec
from histnorm.formats.pydantic_ai import PydanticAICodec
from histnorm.model import (
    MediaPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    UnknownPart,
)
from histnorm.pairing import pair_transcript

pydantic_ai_messages = pytest.importorskip("pydantic_ai.messages")
ADAPTER = pydantic_ai_messages.ModelMessagesTypeAdapter

CODEC = PydanticAICodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "pydantic-ai"
DAMAGED = sorted((ROOT / "fixtures" / "rules").glob("*/*.pydantic-ai.json"))
PROPERTY = PROPERTY_SETTINGS["pydantic-ai"]


def _load(name: str) -> Any:
    return orjson.loads((FIXTURES / name).read_bytes())


def request(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"parts": list(parts), "timestamp": "2026-12-01T21:12:00Z", "kind": "request", **fields}


def response(*parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"parts": list(parts), "model_name": "m", "kind": "response", **fields}


def prompt(text: str) -> dict[str, Any]:
    return {"content": text, "timestamp": "2026-12-01T21:12:00Z", "part_kind": "user-prompt"}


def call(call_id: str, name: str = "lookup", args: Any = None) -> dict[str, Any]:
    args = {"q": "x"} if args is None else args
    return {"tool_name": name, "args": args, "tool_call_id": call_id, "part_kind": "tool-call"}


def ret(call_id: str, name: str = "lookup", **fields: Any) -> dict[str, Any]:
    out = {"tool_name": name, "content": "r", "tool_call_id": call_id, "outcome": "success"}
    return {**out, **fields, "part_kind": "tool-return"}


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert dump(resolve(doc, at)) == dump(message.native)
        for j, part in enumerate(message.parts):
            assert CODEC.part_pointer(transcript, i, j) == f"{at}/parts/{j}"
            assert dump(resolve(doc, f"{at}/parts/{j}")) == dump(part.native)


# --- the fixtures: real runs ------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_real_runs_are_detected_clean_and_byte_identical(path: Path) -> None:
    data = path.read_bytes()
    ADAPTER.validate_json(data)
    assert detect_format(orjson.loads(data)) == "pydantic-ai"
    result = histnorm.fix_document(data)
    assert result.diagnostics == () and result.output is None
    assert dump(CODEC.encode(CODEC.decode(orjson.loads(data)))) == dump(orjson.loads(data))


@pytest.mark.parametrize("path", DAMAGED, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("policy", ["drop", "synthesize"])
def test_damaged_runs_are_fixed_into_what_pydantic_ai_loads(path: Path, policy: str) -> None:
    data = path.read_bytes()
    code = path.parent.name
    assert code in {d.code for d in histnorm.lint_document(data).diagnostics}
    result = histnorm.fix_document(data, orphan_tool_call=policy, unsafe_fixes=True)
    assert result.output is not None and result.diagnostics == ()
    loaded = ADAPTER.validate_json(result.output)
    assert len(loaded) >= 1
    assert histnorm.fix_document(result.output, orphan_tool_call=policy).output is None
    before, after = orjson.loads(data), orjson.loads(result.output)
    kept = [m for m in after if m in before]
    assert len(kept) >= len(after) - 1  # only the repaired message is rewritten


def test_a_cancelled_run_loses_only_its_unanswered_call() -> None:
    data = (ROOT / "fixtures/rules/HN001/cancelled-partial-turn.pydantic-ai.json").read_bytes()
    before = orjson.loads(data)
    after = orjson.loads(histnorm.fix_document(data).output or b"")
    assert after == [before[0], before[2], before[3]]  # the call's response held nothing else


def test_a_synthesized_return_is_a_tool_return_pydantic_ai_reads() -> None:
    data = (ROOT / "fixtures/rules/HN001/cancelled-partial-turn.pydantic-ai.json").read_bytes()
    fixed = histnorm.fix_document(data, orphan_tool_call="synthesize", unsafe_fixes=True)
    loaded = ADAPTER.validate_json(fixed.output or b"")
    returns = [p for m in loaded for p in m.parts if p.part_kind == "tool-return"]
    assert [r.tool_call_id for r in returns] == ["pyd_ai_tool_call_id__get_weather"]
    assert returns[0].tool_name == "get_weather" and returns[0].outcome == "failed"
    assert returns[0].metadata == {"histnorm.synthesized": True}


# --- decoding: each shape --------------------------------------------------------------


def test_parts_decode_to_what_they_are() -> None:
    doc = _load("tools-and-retry.json")
    t = CODEC.decode(doc)
    assert [m.role for m in t.messages] == ["user", "assistant"] * 3
    thinking, hosted_call, hosted_result, lookup = t.messages[1].parts
    assert isinstance(thinking, ReasoningPart) and thinking.opaque == "sig-1"
    assert isinstance(hosted_call, ToolCallPart) and hosted_call.family is ToolFamily.HOSTED
    assert isinstance(hosted_result, ToolResultPart) and hosted_result.family is ToolFamily.HOSTED
    assert isinstance(lookup, ToolCallPart) and lookup.arguments == '{"sku": "A-1"}'
    retried = t.messages[2].parts[0]
    assert isinstance(retried, ToolResultPart) and retried.is_error
    pairing = pair_transcript(t)
    assert pairing.call_results[(1, 1)] == (1, 2)  # the builtin pair lives in the response
    assert pairing.call_results[(1, 3)] == (2, 0)
    assert not pairing.unmatched_calls and not pairing.orphan_results


def test_a_retry_prompt_answers_its_call_only_when_it_names_the_tool() -> None:
    t = CODEC.decode(_load("legacy-retry-prompt.json"))
    bound, unbound = t.messages[2].parts[0], t.messages[6].parts[0]
    assert isinstance(bound, ToolResultPart) and bound.is_error and bound.call_id == "c1"
    assert isinstance(unbound, UnknownPart) and unbound.type == "retry-prompt"
    pairing = pair_transcript(t)
    assert pairing.call_results[(1, 0)] == (2, 0) and not pairing.orphan_results


def test_media_and_multimodal_prompts() -> None:
    t = CODEC.decode(_load("media.json"))
    assert isinstance(t.messages[0].parts[0], UnknownPart)  # a list prompt: kept verbatim
    file = t.messages[1].parts[0]
    assert isinstance(file, MediaPart) and file.media_type == "image/png"
    assert histnorm.lint(_load("media.json")) == ()


def test_unknown_part_kinds_are_reported_and_kept() -> None:
    doc = [
        request(prompt("hi")),
        response({"part_kind": "tool-teleport", "tool_call_id": "t1"}, call("c1")),
        request(ret("c1")),
    ]
    diagnostics = histnorm.lint(doc)
    assert [d.code for d in diagnostics] == ["HN013"]
    assert diagnostics[0].location.pointer == "/1/parts/0"
    fixed = histnorm.repair(doc)
    assert fixed.value == doc and not fixed.changed


def test_bookkeeping_parts_are_kept_verbatim_without_a_report() -> None:
    delta = {"tools_added": ["x"], "tool_call_id": None, "part_kind": "tool-availability-delta"}
    doc = [request(prompt("hi"), delta), response({"content": "ok", "part_kind": "text"})]
    assert histnorm.lint(doc) == ()


# --- encoding --------------------------------------------------------------------------


def test_dropping_a_call_keeps_every_other_key_and_object() -> None:
    doc = [
        request(prompt("hi"), run_id="r1", metadata={"x": 1}),
        response({"content": "Let me look.", "part_kind": "text"}, call("c1"), usage={"n": 1}),
        request(prompt("go on")),
    ]
    before = copy.deepcopy(doc)
    out = CODEC.encode(rewrite(CODEC.decode(doc), remove=[(1, 1)]))
    expected = copy.deepcopy(before)
    del expected[1]["parts"][1]
    assert dump(out) == dump(expected)
    assert out[0] is doc[0] and out[2] is doc[2] and out[1]["parts"][0] is doc[1]["parts"][0]
    assert dump(doc) == dump(before)


def test_new_messages_are_requests_or_responses_pydantic_ai_reads() -> None:
    doc = [request(prompt("hi"))]
    t = CODEC.decode(doc)
    new = (
        Message(role="assistant", parts=(TextPart(text="a"), ToolCallPart(call_id="c", name="f"))),
        Message(role="tool", parts=(ToolResultPart(call_id="c", name="f", content="x"),)),
        Message(role="system", parts=(TextPart(text="be brief"),)),
    )
    out = CODEC.encode(t.evolve(messages=(*t.messages, *new)))
    assert [m["kind"] for m in out] == ["request", "response", "request", "request"]
    assert [p["part_kind"] for p in out[1]["parts"]] == ["text", "tool-call"]
    assert out[3]["parts"][0]["part_kind"] == "system-prompt"
    loaded = ADAPTER.validate_python(out)
    assert loaded[2].parts[0].outcome == "success"


def test_an_edited_call_keeps_its_other_keys() -> None:
    native = {**call("c1"), "id": "fc_1", "provider_name": "openai"}
    t = CODEC.decode([response(native)])
    edited = t.messages[0].parts[0].evolve(call_id="c2")
    out = CODEC.encode(t.evolve(messages=(t.messages[0].evolve(parts=(edited,)),)))
    assert out[0]["parts"][0] == {**native, "tool_call_id": "c2"}


@pytest.mark.parametrize(
    ("message", "what"),
    [
        (Message(role="user", parts=(ToolCallPart(call_id="c"),)), "model request"),
        (Message(role="assistant", parts=(ToolResultPart(call_id="c"),)), "model response"),
        (Message(role="user", parts=(ReasoningPart(text="x"),)), "model request"),
    ],
)
def test_parts_the_message_cannot_hold_raise(message: Message, what: str) -> None:
    t = CODEC.decode([request(prompt("hi"))])
    with pytest.raises(HistnormError, match=what):
        CODEC.encode(t.evolve(messages=(message,)))


def test_converting_another_format_gives_what_pydantic_ai_loads() -> None:
    chat = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."},
    ]
    source = get_codec("openai-chat").decode(chat)
    out = CODEC.encode(convert(source, "pydantic-ai"))
    loaded = ADAPTER.validate_python(out)
    assert [m.kind for m in loaded] == ["request", "request", "response", "request", "response"]
    assert loaded[0].parts[0].part_kind == "system-prompt"
    assert loaded[2].parts[0].args == '{"city": "Paris"}'


# --- sniffing and bad input ------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        [],
        [{"kind": "request", "parts": []}],
        [{"kind": "request", "parts": [{"content": "hi"}]}],
        [{"role": "user", "parts": [{"text": "hi"}]}],  # Gemini
        [{"kind": "request", "parts": [prompt("hi")]}, {"role": "user", "content": "x"}],
        {"contents": [request(prompt("hi"))]},
    ],
)
def test_sniff_rejects_what_lacks_the_marks(doc: Any) -> None:
    assert CODEC.sniff(doc) == 0.0


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([{"kind": "event", "parts": []}], "/0/kind"),
        ([{"kind": "request", "parts": {}}], "/0/parts"),
        ([request("x")], "/0/parts/0"),  # type: ignore[arg-type]
        ([response({"tool_name": "f", "part_kind": "tool-call"})], "/0/parts/0/tool_call_id"),
        ([response({"content": 1, "part_kind": "thinking"})], "/0/parts/0/content"),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


def test_a_request_of_system_prompts_alone_is_a_system_message() -> None:
    system = {"content": "Be brief.", "part_kind": "system-prompt"}
    doc = [request(system), request(system, prompt("hi")), response(call("c1"))]
    assert [m.role for m in CODEC.decode(doc).messages] == ["system", "user", "assistant"]
    assert [s.role for s in CODEC.outline(doc).messages] == ["system", "user", "assistant"]


_NAMELESS: list[Any] = [
    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Find cats."}]},
    {
        "kind": "response",
        "parts": [
            {"part_kind": "tool-call", "tool_name": None, "args": "not json", "tool_call_id": "c1"}
        ],
    },
    {
        "kind": "request",
        "parts": [
            {
                "part_kind": "retry-prompt",
                "tool_name": "search",
                "content": "bad args",
                "tool_call_id": "c1",
            }
        ],
    },
    {"kind": "response", "parts": [{"part_kind": "text", "content": "Sorry."}]},
]


def test_a_null_tool_name_stays_null_and_a_real_one_is_never_emptied() -> None:
    """A call whose `tool_name` is null, answered by a retry prompt naming the tool: a fix
    of the call (HN109) keeps the null, no later fix writes "" over "search", and fixing
    the fixed file changes nothing."""
    once = histnorm.fix_document(orjson.dumps(_NAMELESS), path_hint="r.json", profile="portable")
    assert once.output is not None
    fixed = orjson.loads(once.output)
    assert fixed[1]["parts"][0]["tool_name"] is None
    assert fixed[2]["parts"][0]["tool_name"] == "search"
    twice = histnorm.fix_document(once.output, path_hint="r.json", profile="portable")
    assert twice.output is None, twice.applied
