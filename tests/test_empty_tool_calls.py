"""HN110: an empty `tool_calls` array, which chat templates that test for the key reject
(vllm-project/vllm#13978)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import histnorm
from histnorm.engine import proven_clean
from histnorm.settings import Settings

HISTORY: Any = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello!", "tool_calls": [], "refusal": None},
    {"role": "user", "content": "Weather?"},
]


def _codes(doc: Any, fmt: str, profile: str | None) -> list[str]:
    return [d.code for d in histnorm.lint(json.dumps(doc), Settings(profile=profile), format=fmt)]


@pytest.mark.parametrize("fmt", ["openai-chat", "chat-template"])
@pytest.mark.parametrize("profile", ["vllm", "portable"])
def test_an_empty_array_is_reported_where_templates_render(fmt: str, profile: str) -> None:
    assert "HN110" in _codes(HISTORY, fmt, profile)


@pytest.mark.parametrize("profile", [None, "openai-chat", "mistral", "groq"])
def test_other_targets_take_it(profile: str | None) -> None:
    assert "HN110" not in _codes(HISTORY, "openai-chat", profile)
    if profile != "groq":  # HN117 reads every message's keys under groq
        assert proven_clean(HISTORY, "openai-chat", Settings(profile=profile))


def test_a_message_with_calls_or_without_the_key_is_not_reported() -> None:
    calls = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    doc = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": [calls]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "assistant", "content": "Done.", "tool_calls": None},
        {"role": "user", "content": "Thanks"},
    ]
    assert "HN110" not in _codes(doc, "openai-chat", "vllm")


def test_the_fix_removes_only_the_key_and_is_a_fixed_point() -> None:
    settings = Settings(profile="vllm")
    result = histnorm.fix(json.dumps(HISTORY), settings, format="openai-chat")
    assert dict(result.applied) == {"HN110": 1}
    fixed = histnorm.encode(result.transcript)
    assert fixed == [
        HISTORY[0],
        {"role": "assistant", "content": "Hello!", "refusal": None},
        HISTORY[2],
    ]
    again = histnorm.fix(json.dumps(fixed), settings, format="openai-chat")
    assert not again.applied and not again.remaining
    assert HISTORY[1]["tool_calls"] == []  # the input is not changed
