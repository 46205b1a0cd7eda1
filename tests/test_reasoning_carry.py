"""Reasoning carry as profile data: what each target needs back (HN116), rejects (HN117)
and cannot verify (HN118), each silent under the profiles that do not ask for it."""

from __future__ import annotations

import json
from typing import Any

import pytest

import histnorm
from histnorm.diagnostic import Severity
from histnorm.engine import outline_clean
from histnorm.formats import get_codec
from histnorm.settings import Settings


def _codes(body: Any, format: str, profile: str | None = None) -> list[str]:
    found = histnorm.lint(json.dumps(body), Settings(profile=profile), format=format)
    return [d.code for d in found]


def _call(call_id: str = "call_1") -> Any:
    return {"id": call_id, "type": "function", "function": {"name": "ls", "arguments": "{}"}}


def _chat(**reasoning: str) -> Any:
    turn = {"role": "assistant", "content": None, **reasoning, "tool_calls": [_call()]}
    return [
        {"role": "user", "content": "list the files"},
        turn,
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "assistant", "content": "a.txt"},
    ]


# --- DeepSeek: reasoning_content on every tool-call turn ----------------------------------


def test_deepseek_reports_a_tool_call_turn_without_reasoning_content() -> None:
    assert _codes(_chat(), "openai-chat", "deepseek") == ["HN116"]


def test_deepseek_accepts_the_turn_with_its_reasoning_content() -> None:
    assert _codes(_chat(reasoning_content="List them."), "openai-chat", "deepseek") == []


def test_openai_chat_and_portable_do_not_need_reasoning_back() -> None:
    assert _codes(_chat(), "openai-chat") == []
    assert "HN116" not in _codes(_chat(), "openai-chat", "portable")


def test_deepseek_does_not_hold_responses_items_to_the_chat_wire() -> None:
    items = [
        {"role": "user", "content": "list the files"},
        {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "a.txt"},
    ]
    assert _codes(items, "openai-responses", "deepseek") == []


# --- Groq: reasoning fields rejected ------------------------------------------------------


def test_groq_rejects_reasoning_content_as_an_error_and_reasoning_as_a_warning() -> None:
    body = _chat(reasoning_content="List them.")
    body[3]["reasoning"] = "Done."
    found = histnorm.lint(json.dumps(body), Settings(profile="groq"), format="openai-chat")
    assert [(d.code, d.severity, d.location.message_index) for d in found] == [
        ("HN117", Severity.ERROR, 1),
        ("HN117", Severity.WARNING, 3),
    ]


def test_groq_accepts_reasoning_kept_as_think_text() -> None:
    body = _chat()
    body[1]["content"] = "<think>\nList them.\n</think>"
    assert _codes(body, "openai-chat", "groq") == []


def test_the_groq_fix_is_unsafe_removes_only_the_key_and_is_idempotent() -> None:
    body = _chat(reasoning_content="List them.")
    safe = histnorm.fix(json.dumps(body), Settings(profile="groq"), format="openai-chat")
    assert not safe.applied
    settings = Settings(profile="groq", unsafe_fixes=True)
    once = histnorm.fix(json.dumps(body), settings, format="openai-chat")
    assert histnorm.encode(once.transcript) == _chat()
    twice = histnorm.fix(once.transcript, settings)
    assert not twice.applied
    assert histnorm.lint(once.transcript, settings) == ()


def test_portable_rejects_reasoning_like_groq() -> None:
    found = _codes(_chat(reasoning_content="x"), "openai-chat", "portable")
    assert [code for code in found if code != "HN104"] == ["HN117"]  # HN104: Mistral's ids


# --- Anthropic with thinking: the open tool loop opens with its thinking block ------------

_THINKING: Any = {"type": "thinking", "thinking": "List them.", "signature": "EqQBCkYI..."}


def _loop(*opening: Any, closed: bool = False) -> Any:
    use = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "list the files"}]},
        {"role": "assistant", "content": [*opening, use]},
        {"role": "user", "content": [result]},
    ]
    if closed:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "a.txt"}]})
    return messages


def test_an_open_loop_without_its_thinking_block_is_reported_under_thinking() -> None:
    assert _codes(_loop(), "anthropic", "anthropic-thinking") == ["HN116"]


def test_the_plain_anthropic_profile_does_not_ask_for_thinking() -> None:
    assert _codes(_loop(), "anthropic") == []


@pytest.mark.parametrize(
    "body",
    [
        _loop(_THINKING),
        _loop({"type": "redacted_thinking", "data": "EmwKAhgB..."}),
        _loop(closed=True),
    ],
    ids=["thinking", "redacted", "closed-loop"],
)
def test_thinking_first_or_a_closed_loop_is_clean(body: Any) -> None:
    assert _codes(body, "anthropic", "anthropic-thinking") == []


def test_later_steps_of_the_loop_need_no_thinking_of_their_own() -> None:
    body = _loop(_THINKING)
    use = {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {}}
    body.append({"role": "assistant", "content": [use]})
    body.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "b"}],
        }
    )
    assert _codes(body, "anthropic", "anthropic-thinking") == []


# --- Claude Code: thinking signed by another model (HN118) --------------------------------


def _session(last_model: str) -> Any:
    def line(uuid: str, parent: str, model: str, content: Any) -> Any:
        message = {"id": f"m_{uuid}", "role": "assistant", "model": model, "content": content}
        return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "message": message}

    def user(uuid: str, parent: str | None, text: str) -> Any:
        message = {"role": "user", "content": text}
        return {"type": "user", "uuid": uuid, "parentUuid": parent, "message": message}

    return [
        user("u1", None, "Hi"),
        line("a1", "u1", "claude-opus-4-5", [_THINKING, {"type": "text", "text": "Hello"}]),
        user("u2", "a1", "Bye"),
        line("a2", "u2", last_model, [{"type": "text", "text": "Goodbye"}]),
    ]


def test_thinking_from_before_a_model_switch_is_reported() -> None:
    found = _codes(_session("claude-sonnet-4-5"), "claude-code", "anthropic-thinking")
    assert found == ["HN118"]


def test_one_model_throughout_is_clean_and_portable_leaves_it_to_hn117() -> None:
    assert _codes(_session("claude-opus-4-5"), "claude-code", "anthropic-thinking") == []
    assert _codes(_session("claude-sonnet-4-5"), "claude-code", "portable").count("HN118") == 0


def test_the_foreign_thinking_fix_removes_the_block_and_keeps_the_text() -> None:
    settings = Settings(profile="anthropic-thinking", unsafe_fixes=True)
    result = histnorm.fix(json.dumps(_session("claude-sonnet-4-5")), settings, format="claude-code")
    lines = histnorm.encode(result.transcript)
    assert isinstance(lines, list)
    assert lines[1]["message"]["content"] == [{"type": "text", "text": "Hello"}]
    assert not histnorm.fix(result.transcript, settings).applied


# --- Gemini 3: a signature on the first call of each step of the current turn -------------


def _call_part(name: str, signature: str | None = None) -> Any:
    part: Any = {"functionCall": {"name": name, "args": {}}}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def _reply(name: str) -> Any:
    return {"role": "user", "parts": [{"functionResponse": {"name": name, "response": {}}}]}


def test_an_unsigned_call_in_the_current_turn_is_reported_under_gemini_3() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {"role": "model", "parts": [_call_part("weather")]},
            _reply("weather"),
        ]
    }
    assert _codes(body, "gemini", "gemini-3") == ["HN116"]
    assert _codes(body, "gemini") == []


def test_earlier_turns_and_parallel_calls_after_the_first_need_no_signature() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {"role": "model", "parts": [_call_part("weather")]},
            _reply("weather"),
            {"role": "model", "parts": [{"text": "Sunny."}]},
            {"role": "user", "parts": [{"text": "and the time?"}]},
            {"role": "model", "parts": [_call_part("clock", "CiQB..."), _call_part("zone")]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "clock", "response": {}}},
                    {"functionResponse": {"name": "zone", "response": {}}},
                ],
            },
        ]
    }
    assert _codes(body, "gemini", "gemini-3") == []


# --- speed: default profiles never need the model for these rules -------------------------


@pytest.mark.parametrize("profile", [None, "openai-chat", "anthropic"])
def test_default_profiles_keep_the_fast_path(profile: str | None) -> None:
    body = {"messages": _chat(reasoning_content="List them.")}
    outline = get_codec("openai-chat").outline(body)
    assert outline_clean(outline, Settings(profile=profile), body)
