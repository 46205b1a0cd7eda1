"""HN015 (tool parts in a message of the wrong role) and HN016 (one id, two tools, one
message): the defects mutation fuzzing found, and the damages that make them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import histnorm
from histnorm.diagnostic import Severity
from histnorm.engine import has_errors
from histnorm.model import Transcript
from tests.damages_roles import (
    DAMAGES,
    call_into_user,
    result_into_assistant,
    result_into_call_message,
    shared_call_id,
)

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
OURS = {"HN015", "HN016"}


def codes(doc: Any, fmt: str, **options: Any) -> list[str]:
    return [d.code for d in histnorm.lint(doc, histnorm.Settings(**options), format=fmt)]


def native(transcript: Transcript) -> Any:
    return histnorm.encode(transcript)


# ----------------------------------------------------------------- item 1: wrong role

USE = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}
ANTHROPIC_RESULT_IN_ASSISTANT = [
    {"role": "user", "content": "List files."},
    {"role": "assistant", "content": [USE]},
    {"role": "user", "content": "go on"},
    {"role": "assistant", "content": [RESULT, {"type": "text", "text": "a.txt"}]},
]
ANTHROPIC_USE_IN_USER = [
    {"role": "user", "content": [{"type": "text", "text": "List files."}, USE]},
    {"role": "user", "content": [RESULT]},
    {"role": "assistant", "content": "a.txt"},
]
CALL = {"$type": "functionCall", "callId": "c1", "name": "ls", "arguments": {}}
FRESULT = {"$type": "functionResult", "callId": "c1", "result": "a.txt"}
AF_CALL = {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": {}}
AF_RESULT = {"type": "function_result", "call_id": "c1", "result": "a.txt"}
GEM_CALL = {"functionCall": {"id": "c1", "name": "ls", "args": {}}}
GEM_RESULT = {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a"}}}


def _af(role: str, *contents: Any) -> dict[str, Any]:
    return {"type": "message", "role": role, "contents": list(contents)}


WRONG_ROLE = {
    "anthropic-result-in-assistant": ("anthropic", ANTHROPIC_RESULT_IN_ASSISTANT, True),
    "anthropic-tool-use-in-user": ("anthropic", ANTHROPIC_USE_IN_USER, False),
    "meai-result-in-assistant": (
        "meai",
        [
            {"role": "user", "contents": [{"$type": "text", "text": "List files."}]},
            {"role": "assistant", "contents": [CALL]},
            {"role": "assistant", "contents": [FRESULT]},
        ],
        True,
    ),
    "meai-call-in-tool": (
        "meai",
        [
            {"role": "user", "contents": [{"$type": "text", "text": "List files."}]},
            {"role": "tool", "contents": [CALL]},
            {"role": "tool", "contents": [FRESULT]},
        ],
        False,
    ),
    "agent-framework-result-in-assistant": (
        "agent-framework",
        [_af("user", {"type": "text", "text": "hi"}), _af("assistant", AF_CALL, AF_RESULT)],
        True,
    ),
    "agent-framework-call-in-tool": (
        "agent-framework",
        [_af("user", {"type": "text", "text": "hi"}), _af("tool", AF_CALL), _af("tool", AF_RESULT)],
        False,
    ),
    "gemini-call-in-user": (
        "gemini",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "List files."}, GEM_CALL]},
                {"role": "user", "parts": [GEM_RESULT]},
            ]
        },
        False,
    ),
    "gemini-response-in-model": (
        "gemini",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "List files."}]},
                {"role": "model", "parts": [GEM_CALL]},
                {"role": "model", "parts": [GEM_RESULT, {"text": "a.txt"}]},
            ]
        },
        True,
    ),
}


@pytest.mark.parametrize(("fmt", "doc", "fixable"), WRONG_ROLE.values(), ids=list(WRONG_ROLE))
def test_part_in_wrong_role_is_an_error_even_under_portable(fmt, doc, fixable):
    for profile in (None, "portable"):
        found = histnorm.lint(doc, histnorm.Settings(profile=profile), format=fmt)
        ours = [d for d in found if d.code == "HN015"]
        assert ours and all(d.severity is Severity.ERROR for d in ours)
    result = histnorm.fix(doc, format=fmt)
    if fixable:
        assert "HN015" in result.applied
        assert "HN015" not in {d.code for d in result.remaining}
        assert not has_errors(histnorm.lint(native(result.transcript), format=fmt))
    else:
        assert "HN015" in {d.code for d in result.remaining}, "a misplaced call is reported"
        assert has_errors(result.remaining), "fix must not exit clean"


def test_claude_code_result_line_in_an_assistant_reply():
    session = "9d2e4f61-0a3b-4c5d-8e7f-1a2b3c4d5e6f"

    def line(uuid: str, parent: str | None, kind: str, content: Any) -> dict[str, Any]:
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message = {"id": "msg_1", "type": "message", **message}
        return {"parentUuid": parent, "sessionId": session, "type": kind, "message": message,
                "uuid": uuid}  # fmt: skip

    doc = [
        line("u1", None, "user", "List files."),
        line("u2", "u1", "assistant", [USE]),
        line("u3", "u2", "assistant", [RESULT]),
        line("u4", "u3", "assistant", [{"type": "text", "text": "a.txt"}]),
    ]
    assert "HN015" in codes(doc, "claude-code")
    fixed = native(histnorm.fix(doc, format="claude-code").transcript)
    assert [(x["type"], x["message"]["content"][0]["type"]) for x in fixed[1:]] == [
        ("assistant", "tool_use"),
        ("user", "tool_result"),
        ("assistant", "text"),
    ]
    assert [x["parentUuid"] for x in fixed[1:]] == [fixed[i]["uuid"] for i in range(3)]


def test_server_tool_results_in_the_assistant_message_are_not_misplaced():
    for path in sorted((ROOT / "anthropic").glob("*.json")):
        assert "HN015" not in codes(path.read_bytes(), "anthropic"), path.name


@pytest.mark.parametrize("fmt", sorted(histnorm.CODECS))
def test_format_fixtures_have_no_misplaced_parts(fmt):
    for path in sorted((ROOT / fmt).glob("*.json")):
        found = set(codes(path.read_bytes(), fmt)) & OURS
        assert not found, f"{fmt}/{path.name}: {found}"


# ----------------------------------------------------------------- item 3: same message


def test_anthropic_result_in_its_calls_message_is_split_out_in_order():
    doc = [
        {"role": "user", "content": "List files."},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, USE, RESULT,
                                          {"type": "text", "text": "a.txt"}]},
    ]  # fmt: skip
    (diagnostic,) = [d for d in histnorm.lint(doc, format="anthropic") if d.code == "HN015"]
    assert "same assistant message as its call" in diagnostic.message
    assert diagnostic.location.pointer == "/1/content/2"
    result = histnorm.fix(doc, format="anthropic")
    assert native(result.transcript) == [
        doc[0],
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, USE]},
        {"role": "user", "content": [RESULT]},
        {"role": "assistant", "content": [{"type": "text", "text": "a.txt"}]},
    ]
    assert not result.remaining


def test_meai_call_and_result_in_one_message():
    doc = [
        {"role": "user", "contents": [{"$type": "text", "text": "List files."}]},
        {"role": "assistant", "messageId": "m1", "contents": [CALL, FRESULT]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "a.txt"}]},
    ]
    result = histnorm.fix(doc, format="meai")
    assert native(result.transcript) == [
        doc[0],
        {"role": "assistant", "messageId": "m1", "contents": [CALL]},
        {"role": "tool", "contents": [FRESULT]},
        doc[2],
    ]
    assert not result.remaining


def test_result_whose_call_is_misplaced_is_not_moved():
    doc = [
        {"role": "user", "contents": [{"$type": "text", "text": "List files."}]},
        {"role": "tool", "contents": [CALL, FRESULT]},
    ]
    found = [d for d in histnorm.lint(doc, format="meai") if d.code == "HN015"]
    assert len(found) == 1 and found[0].fix is None  # the call; the result is in a tool message
    doc[1]["role"] = "system"
    found = [d for d in histnorm.lint(doc, format="meai") if d.code == "HN015"]
    assert len(found) == 2 and all(d.fix is None for d in found)
    assert not histnorm.fix(doc, format="meai").changed


# ----------------------------------------------------------------- item 2: shared id


def _call(name: str) -> dict[str, Any]:
    return {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}


TWO_CALLS_ONE_RESULT = [
    {"role": "user", "content": "Weather and time?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("get_weather"), _call("get_time")]},
    {"role": "tool", "tool_call_id": "call_0", "content": "4 C"},
]


def test_same_id_for_two_tools_in_one_message_is_an_error_fix_does_not_exit_clean():
    found = histnorm.lint(TWO_CALLS_ONE_RESULT, format="openai-chat")
    (ours,) = [d for d in found if d.code == "HN016"]
    assert ours.severity is Severity.ERROR and ours.location.pointer == "/1/tool_calls/1"
    result = histnorm.fix(TWO_CALLS_ONE_RESULT, format="openai-chat")
    assert has_errors(result.remaining)
    assert native(result.transcript) == TWO_CALLS_ONE_RESULT


def test_shared_id_with_unsafe_fixes_gives_results_in_order():
    result = histnorm.fix(
        TWO_CALLS_ONE_RESULT,
        histnorm.Settings(unsafe_fixes=True, tail="close"),
        format="openai-chat",
    )
    fixed = native(result.transcript)
    assert not has_errors(result.remaining)
    assert fixed[1]["tool_calls"] == [_call("get_weather")]  # the renamed one had no result
    assert fixed[2] == TWO_CALLS_ONE_RESULT[2]
    assert result.applied["HN016"] == 1 and result.applied["HN001"] == 1


def test_shared_id_results_named_by_tool_are_given_by_name_and_fixed_by_default():
    doc = [
        *TWO_CALLS_ONE_RESULT[:2],
        {"role": "tool", "tool_call_id": "call_0", "name": "get_time", "content": "17:42"},
        {"role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": "4 C"},
    ]
    result = histnorm.fix(doc, format="openai-chat")
    fixed = native(result.transcript)
    assert not result.remaining
    new_id = fixed[1]["tool_calls"][1]["id"]
    assert new_id != "call_0" and fixed[1]["tool_calls"][0]["id"] == "call_0"
    assert fixed[2]["tool_call_id"] == new_id and fixed[3]["tool_call_id"] == "call_0"


def test_same_tool_twice_under_one_id_stays_hn006():
    doc = [
        TWO_CALLS_ONE_RESULT[0],
        {"role": "assistant", "content": None, "tool_calls": [_call("ls"), _call("ls")]},
        TWO_CALLS_ONE_RESULT[2],
    ]
    assert "HN016" not in codes(doc, "openai-chat")
    assert "HN006" in codes(doc, "openai-chat")


# ----------------------------------------------------------------- damages


def _fixtures() -> list[tuple[str, str, Transcript]]:
    out = []
    for fmt in sorted(histnorm.CODECS):
        for path in sorted((ROOT / fmt).glob("*.json")):
            data = path.read_bytes()
            if has_errors(histnorm.lint(data, format=fmt)):
                continue
            out.append((fmt, path.name, histnorm.load(data, format=fmt)))
    return out


FIXTURES = _fixtures()
UNSAFE = histnorm.Settings(unsafe_fixes=True, tail="close")


def _parts(transcript: Transcript) -> list[Any]:
    return [p.model_dump(exclude={"native", "slot"}) for m in transcript.messages for p in m.parts]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(FIXTURES),
    damage=st.sampled_from(DAMAGES),
    seed=st.integers(0, 2**16),
)
def test_damage_then_fix(case, damage, seed):
    fmt, _, transcript = case
    before = transcript.model_dump()
    damaged = damage(transcript, random.Random(seed))
    assert transcript.model_dump() == before, "a damage must not change its input"
    if damaged is None:
        return
    damaged = histnorm.load(histnorm.encode(damaged), format=fmt)
    assert set(codes(native(damaged), fmt, unsafe_fixes=True)) & OURS, "the damage is seen"
    once = histnorm.fix(damaged, UNSAFE)
    left = {d.code for d in once.remaining if "fix held back" not in d.message} & OURS
    if damage is call_into_user:
        assert left == {"HN015"}, "a misplaced call stays reported"
        return
    assert not left
    assert histnorm.fix(once.transcript, UNSAFE).transcript == once.transcript
    kept = [p for p in _parts(transcript)]
    fixed = _parts(once.transcript)
    if damage in (result_into_assistant, result_into_call_message):
        assert sorted(map(repr, fixed)) == sorted(map(repr, kept)), "no part lost or changed"


def test_damages_apply_where_roles_constrain_parts_only():
    rng = random.Random(0)
    for fmt, name, transcript in FIXTURES:
        for damage in (result_into_assistant, call_into_user, result_into_call_message):
            if fmt not in ("anthropic", "claude-code", "meai", "agent-framework", "gemini"):
                assert damage(transcript, rng) is None, (fmt, name)
    assert any(shared_call_id(t, rng) is not None for _, _, t in FIXTURES)
