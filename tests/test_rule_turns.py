"""Turn order the providers enforce (HN120-HN123): Gemini's call turn after a user turn,
the tail of a history sent as it is (tail=close), and Bedrock's empty error results."""

from __future__ import annotations

import json
from typing import Any

import pytest

import histnorm
from histnorm.diagnostic import Severity
from histnorm.engine import outline_clean
from histnorm.formats import get_codec
from histnorm.settings import Settings, TailMode

CLOSE = TailMode.CLOSE


def _found(body: Any, format: str, **options: Any) -> list[tuple[str, str]]:
    found = histnorm.lint(json.dumps(body), Settings(**options), format=format)
    return [(d.code, d.severity.value) for d in found]


def _outline_clean(body: Any, format: str, **options: Any) -> bool:
    """Whether the fast path (the codec's outline, no decoding) proves `body` clean."""
    outline = get_codec(format).outline(body)
    assert outline is not None
    return outline_clean(outline, Settings(**options), body)


def _codes(body: Any, format: str, **options: Any) -> list[str]:
    return [code for code, _ in _found(body, format, **options)]


def _call(name: str = "read_file") -> Any:
    return {"functionCall": {"name": name, "args": {"path": "notes.md"}}}


def _response(name: str = "read_file") -> Any:
    return {"functionResponse": {"name": name, "response": {"output": "- ship"}}}


# --- HN120: a function call turn comes after a user turn (Gemini) ---------------------

_GEMINI_CALL_FIRST: Any = {  # google-gemini/gemini-cli#11814: history starts with a call
    "contents": [
        {"role": "model", "parts": [_call()]},
        {"role": "user", "parts": [_response()]},
        {"role": "model", "parts": [{"text": "The notes say: ship."}]},
    ]
}
_CHAT_SYSTEM_THEN_CALL: Any = [  # lbjlaq/Antigravity-Manager#3396: system moved out
    {"role": "system", "content": "You are a background worker."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "poll", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "no jobs"},
]


def test_a_history_opening_with_a_function_call_is_an_error_for_gemini() -> None:
    assert ("HN120", "error") in _found(_GEMINI_CALL_FIRST, "gemini")


def test_a_call_after_only_a_system_message_is_reported_for_gemini() -> None:
    assert "HN120" in _codes(_CHAT_SYSTEM_THEN_CALL, "openai-chat", profile="gemini")
    assert "HN120" not in _codes(_CHAT_SYSTEM_THEN_CALL, "openai-chat")


def test_a_call_after_a_model_text_of_the_same_step_is_not_reported() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "What do the notes say?"}]},
            {"role": "model", "parts": [{"text": "Let me look."}]},
            {"role": "model", "parts": [_call()]},
            {"role": "user", "parts": [_response()]},
            {"role": "model", "parts": [{"text": "Ship it."}]},
        ]
    }
    assert _codes(body, "gemini") == []


def test_call_turn_check_reads_only_the_outline() -> None:
    assert not _outline_clean(_GEMINI_CALL_FIRST, "gemini")


# --- HN121: the history sent ends on an assistant message ----------------------------

_ANTHROPIC_ENDS_ON_ANSWER: Any = {  # smallmain/vscode-unify-chat-provider#249
    "model": "claude-sonnet-4-6",
    "max_tokens": 1024,
    "messages": [
        {"role": "user", "content": "Which port does the service use?"},
        {"role": "assistant", "content": "It listens on port 8080."},
    ],
}


def test_ending_on_an_answer_is_a_warning_for_anthropic_when_sent_as_it_is() -> None:
    assert ("HN121", "warning") in _found(_ANTHROPIC_ENDS_ON_ANSWER, "anthropic", tail=CLOSE)


def test_ending_on_an_answer_is_an_error_for_portable() -> None:
    found = _found(_ANTHROPIC_ENDS_ON_ANSWER, "anthropic", tail=CLOSE, profile="portable")
    assert ("HN121", "error") in found


def test_a_stored_conversation_may_end_on_the_answer() -> None:
    assert _codes(_ANTHROPIC_ENDS_ON_ANSWER, "anthropic") == []


def test_openai_chat_accepts_a_final_assistant_message() -> None:
    body = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    assert _codes(body, "openai-chat", tail=CLOSE) == []


def test_ending_on_a_model_turn_is_a_warning_for_gemini() -> None:
    body = {  # anomalyco/opencode#47034
        "contents": [
            {"role": "user", "parts": [{"text": "Summarise the notes."}]},
            {"role": "model", "parts": [{"text": "They say: ship."}]},
        ]
    }
    assert ("HN121", "warning") in _found(body, "gemini", tail=CLOSE)


def test_system_messages_after_the_last_user_message_are_not_turns() -> None:
    body = {
        "model": "claude-opus-4-8",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Shorter answers, please."},
            {"role": "system", "content": [{"type": "text", "text": "Answer briefly."}]},
        ],
    }
    assert [c for c in _codes(body, "anthropic", tail=CLOSE) if c in ("HN121", "HN122")] == []


def test_a_final_open_call_is_orphan_tool_call_not_ends_on_assistant() -> None:
    body = [
        {"role": "user", "content": "List the files."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
    ]
    codes = _codes(body, "openai-chat", tail=CLOSE, profile="portable")
    assert "HN001" in codes and "HN121" not in codes


# --- HN122: the final assistant text ends with whitespace (tail=close) ----------------


def _prefill(text: str) -> Any:  # tailcallhq/forgecode#1872
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Write a haiku about rain."},
            {"role": "assistant", "content": [{"type": "text", "text": text}]},
        ],
    }


def test_a_prefill_ending_with_a_newline_is_an_error_for_anthropic() -> None:
    assert ("HN122", "error") in _found(_prefill("Soft rain\n"), "anthropic", tail=CLOSE)


def test_trailing_whitespace_is_not_reported_when_the_tail_is_kept() -> None:
    assert "HN122" not in _codes(_prefill("Soft rain\n"), "anthropic", tail=TailMode.KEEP)
    record = {"messages": _prefill("Soft rain\n")["messages"]}  # no request: kept
    assert "HN122" not in _codes(record, "anthropic")


def test_a_request_body_is_sent_as_it_is() -> None:
    """A body with `model` and `max_tokens` is closed unless a tail is chosen."""
    assert ("HN122", "error") in _found(_prefill("Soft rain\n"), "anthropic")


def test_fix_strips_only_the_end_of_the_final_text() -> None:
    body = _prefill("Soft rain  \non the roof \t\n")
    result = histnorm.fix(json.dumps(body), Settings(tail=CLOSE), format="anthropic")
    assert result.applied == {"HN122": 1}
    fixed = json.loads(histnorm.dump(result.transcript))
    assert fixed["messages"][1]["content"][0]["text"] == "Soft rain  \non the roof"
    again = histnorm.fix(histnorm.dump(result.transcript), Settings(tail=CLOSE), format="anthropic")
    assert not again.applied


def test_an_earlier_answer_keeps_its_trailing_newline() -> None:
    body = _prefill("Soft rain\n")
    body["messages"].append({"role": "user", "content": "Another one."})
    assert "HN122" not in _codes(body, "anthropic", tail=CLOSE)


def test_whitespace_only_final_text_is_left_to_empty_text() -> None:
    codes = _codes(_prefill("\n"), "anthropic", tail=CLOSE)
    assert "HN004" in codes and "HN122" not in codes


def test_string_content_is_stripped_for_bedrock() -> None:  # langchain-ai/langchain-aws#599
    body = [
        {"role": "user", "content": "Start the list."},
        {"role": "assistant", "content": "1. "},
    ]
    settings = Settings(tail=CLOSE, profile="bedrock-converse")
    result = histnorm.fix(json.dumps(body), settings, format="openai-chat")
    assert json.loads(histnorm.dump(result.transcript))[1]["content"] == "1."


def test_openai_chat_accepts_trailing_whitespace() -> None:
    body = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!\n"}]
    assert "HN122" not in _codes(body, "openai-chat", tail=CLOSE)


# --- HN123: an error tool result without content (Bedrock) ---------------------------


def _failed(
    result: Any,
) -> Any:  # aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Deploy the staging branch."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "deploy", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01", **result}],
            },
        ],
    }


@pytest.mark.parametrize("content", [{}, {"content": ""}, {"content": []}])
def test_an_empty_error_result_is_an_error_for_bedrock(content: Any) -> None:
    body = _failed({"is_error": True, **content})
    assert ("HN123", "error") in _found(body, "anthropic", profile="bedrock-converse")


def test_an_empty_successful_result_is_accepted_by_bedrock() -> None:  # hermes-agent#55092
    assert _codes(_failed({"content": ""}), "anthropic", profile="bedrock-converse") == []


def test_anthropic_accepts_an_empty_error_result() -> None:
    assert "HN123" not in _codes(_failed({"is_error": True, "content": ""}), "anthropic")


def test_an_error_result_with_a_message_is_clean() -> None:
    body = _failed({"is_error": True, "content": "permission denied"})
    assert _codes(body, "anthropic", profile="bedrock-converse") == []


def test_the_default_profiles_never_decode_for_these_rules() -> None:
    body = _failed({"is_error": True, "content": "permission denied"})
    assert _outline_clean(body, "anthropic")
    assert _outline_clean({"messages": _prefill("Soft rain\n")["messages"]}, "anthropic")
    assert _outline_clean(_prefill("Soft rain"), "anthropic")  # a closed body, clean


def test_severities_are_the_documented_ones() -> None:
    from histnorm.rules import BY_CODE

    assert BY_CODE["HN121"].severity is Severity.ERROR
    assert BY_CODE["HN121"].other_severities[0][0] is Severity.WARNING
