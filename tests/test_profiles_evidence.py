"""Profiles as verified data: each constraint cites its evidence, and holds against the
verdicts providers gave.

The bodies below are ours, written in the shapes of request bodies the providers answered
(recorded by pydantic-ai's test cassettes; `benchmarks.realworld.verdicts` checks the
recorded folder itself): accepted ones must lint without an error or warning under their
provider's profile and `fix` must leave them byte-identical; the rejected one must get an
error.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest

import histnorm
from histnorm.diagnostic import Severity
from histnorm.engine import outline_clean, proven_clean
from histnorm.formats import get_codec
from histnorm.profiles import (
    CONSTRAINTS,
    PROFILES,
    RULES_OF,
    Profile,
    evidence_for,
    is_default,
    profile_for,
)
from histnorm.settings import Settings


def _flagged(body: Any, format: str, profile: str | None = None) -> list[str]:
    found = histnorm.lint(json.dumps(body), Settings(profile=profile), format=format)
    return [d.code for d in found if d.severity in (Severity.ERROR, Severity.WARNING)]


def _fix_keeps_bytes(body: Any, format: str, profile: str | None = None) -> bool:
    result = histnorm.fix(json.dumps(body), Settings(profile=profile), format=format)
    return not result.applied


# --- accepted bodies (200) ---------------------------------------------------------------

_RESPONSES_EMPTY_ANSWER: Any = {  # structured output: the model's text answer was empty
    "model": "gpt-5",
    "input": [
        {"role": "user", "content": "What is the largest city in Mexico?"},
        {"content": "", "role": "assistant"},
        {"role": "user", "content": "Please answer in JSON."},
    ],
}
_RESPONSES_EMPTY_OUTPUT_TEXT: Any = {
    "model": "gpt-5",
    "input": [
        {"role": "user", "content": "Draw a cat."},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_01",
            "status": "completed",
            "content": [{"type": "output_text", "text": "", "annotations": []}],
        },
        {"role": "user", "content": "And a dog."},
    ],
}
_GEMINI_EMPTY_TEXTS: Any = {
    "contents": [
        {"role": "user", "parts": [{"text": ""}]},
        {"role": "model", "parts": [{"text": ""}]},
        {"role": "user", "parts": [{"text": "Hello?"}]},
    ]
}
_CHAT_TOOL_ROW: Any = {  # the common dataset row: content "" beside tool_calls
    "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "4 C"},
        {"role": "assistant", "content": "4 C in Oslo."},
    ]
}


def _anthropic_back_to_back_calls() -> Any:
    def use(id_: str, name: str) -> Any:
        return {"type": "tool_use", "id": id_, "name": name, "input": {}}

    def result(id_: str, text: str) -> Any:
        return {"type": "tool_result", "tool_use_id": id_, "content": text}

    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Refund order-1?"}]},
            {"role": "assistant", "content": [use("call_a", "load_capability")]},
            {"role": "assistant", "content": [use("auto_1", "search_tools")]},
            {"role": "user", "content": [result("call_a", "loaded"), result("auto_1", "found")]},
            {"role": "assistant", "content": [{"type": "text", "text": "Yes, within 30 days."}]},
        ],
    }


_GEMINI_BACK_TO_BACK_CALLS: Any = {
    "contents": [
        {"role": "user", "parts": [{"text": "Refund order-1?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "load", "args": {}}}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c2", "name": "search", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "c1", "name": "load", "response": {"ok": True}}},
                {"functionResponse": {"id": "c2", "name": "search", "response": {"ok": True}}},
            ],
        },
        {"role": "model", "parts": [{"text": "Yes, within 30 days."}]},
    ]
}


def _anthropic_id_reused_after_answer() -> Any:
    def turn(name: str, text: str) -> list[Any]:
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "0usajhl5", "name": name, "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "0usajhl5", "content": text}],
            },
        ]

    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Can I get a refund?"},
            *turn("load_capability", "loaded"),
            *turn("search_tools", "found"),
            {"role": "assistant", "content": "Yes."},
        ],
    }


_ANTHROPIC_MID_SYSTEM: Any = {
    "model": "claude-opus-4-8",
    "max_tokens": 1024,
    "system": "You are a code reviewer.",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Review `add`."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Looks fine."}]},
        {"role": "user", "content": [{"type": "text", "text": "Review it again."}]},
        {"role": "system", "content": [{"type": "text", "text": "Always add type hints."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "def add(a: int) -> int"}]},
        {"role": "user", "content": [{"type": "text", "text": "Now `mul`."}]},
    ],
}

ACCEPTED = [
    pytest.param(_RESPONSES_EMPTY_ANSWER, "openai-responses", id="responses-empty-content"),
    pytest.param(_RESPONSES_EMPTY_OUTPUT_TEXT, "openai-responses", id="responses-output-text"),
    pytest.param(_GEMINI_EMPTY_TEXTS, "gemini", id="gemini-empty-texts"),
    pytest.param(_CHAT_TOOL_ROW, "openai-chat", id="chat-empty-content-beside-calls"),
    pytest.param(_anthropic_back_to_back_calls(), "anthropic", id="anthropic-merged-calls"),
    pytest.param(_GEMINI_BACK_TO_BACK_CALLS, "gemini", id="gemini-merged-calls"),
    pytest.param(_anthropic_id_reused_after_answer(), "anthropic", id="anthropic-id-reused"),
    pytest.param(_ANTHROPIC_MID_SYSTEM, "anthropic", id="anthropic-mid-system"),
]


@pytest.mark.parametrize(("body", "format"), ACCEPTED)
def test_a_body_its_provider_accepted_gets_no_error_or_warning(body: Any, format: str) -> None:
    assert _flagged(body, format) == []


@pytest.mark.parametrize(("body", "format"), ACCEPTED)
def test_fix_leaves_a_body_its_provider_accepted_unchanged(body: Any, format: str) -> None:
    assert _fix_keeps_bytes(body, format)


def test_a_mid_conversation_system_message_is_information_under_anthropic() -> None:
    found = histnorm.lint(json.dumps(_ANTHROPIC_MID_SYSTEM), format="anthropic")
    assert [(d.code, d.severity) for d in found] == [("HN108", Severity.INFO)]


# --- constraints kept where the provider rejects -----------------------------------------


def test_empty_text_stays_an_error_for_anthropic() -> None:
    body = {
        "model": "m",
        "max_tokens": 1,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": [{"type": "text", "text": ""}]},
            {"role": "user", "content": "Hello?"},
        ],
    }
    assert _flagged(body, "anthropic") == ["HN004"]
    assert "HN004" in _flagged(_CHAT_TOOL_ROW, "openai-chat", profile="anthropic")


def test_empty_text_beside_a_function_response_stays_an_error_for_gemini() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "w", "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "w", "response": {}}}, {"text": " "}],
            },
        ]
    }
    assert _flagged(body, "gemini") == ["HN004"]


def test_a_result_behind_a_user_message_is_still_displaced_under_anthropic() -> None:
    body = _anthropic_back_to_back_calls()
    body["messages"].insert(3, {"role": "assistant", "content": "Let me check."})
    body["messages"].insert(4, {"role": "user", "content": "Hurry."})
    assert "HN008" in _flagged(body, "anthropic")


def test_call_id_reuse_after_an_answer_stays_an_error_for_bedrock() -> None:
    assert _flagged(_anthropic_id_reused_after_answer(), "anthropic", "bedrock-converse") == [
        "HN105"
    ]


def test_mid_conversation_system_stays_a_warning_for_portable() -> None:
    assert "HN108" in _flagged(_ANTHROPIC_MID_SYSTEM, "anthropic", "portable")


# --- the miss: reasoning followed by an answer without an id (400) -----------------------

_REASONING_THEN_EASY_ANSWER: Any = {
    "model": "gpt-5",
    "input": [
        {"role": "user", "content": "What is the meaning of life?"},
        {
            "type": "reasoning",
            "id": "rs_68c4",
            "summary": [{"type": "summary_text", "text": "Thinking about it."}],
            "encrypted_content": "gAAAAB...",
        },
        {"content": "The meaning of life is 42", "role": "assistant"},
        {"content": "Anything to add?", "role": "user"},
    ],
}


def test_reasoning_followed_by_an_answer_without_an_id_is_an_error() -> None:
    found = histnorm.lint(json.dumps(_REASONING_THEN_EASY_ANSWER), format="openai-responses")
    assert [(d.code, d.severity) for d in found] == [("HN103", Severity.ERROR)]
    assert "rs_68c4" in found[0].message


def test_the_fast_path_does_not_prove_that_history_clean() -> None:
    outline = get_codec("openai-responses").outline(_REASONING_THEN_EASY_ANSWER)
    profile = Settings(profile="openai-responses")
    assert not outline_clean(outline, profile)  # HN103 finds it on the outline
    assert not proven_clean(_REASONING_THEN_EASY_ANSWER, "openai-responses", profile)


def test_fix_removes_the_reasoning_the_answer_cannot_be_tied_to() -> None:
    result = histnorm.fix(json.dumps(_REASONING_THEN_EASY_ANSWER), format="openai-responses")
    kept = histnorm.encode(result.transcript)
    assert isinstance(kept, dict)
    assert [item.get("type", "message") for item in kept["input"]] == ["message"] * 3
    assert histnorm.lint(result.transcript) == ()


def test_reasoning_followed_by_its_own_output_item_is_clean() -> None:
    body = json.loads(json.dumps(_REASONING_THEN_EASY_ANSWER))
    body["input"][2] = {
        "type": "message",
        "id": "msg_68c4",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "The meaning of life is 42"}],
    }
    assert _flagged(body, "openai-responses") == []
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    body["input"][2:] = [call, {"type": "function_call_output", "call_id": "c1", "output": "x"}]
    assert _flagged(body, "openai-responses") == []


# --- every constraint carries its evidence -----------------------------------------------

_NOT_CONSTRAINTS = {"name", "summary", "evidence"}


def test_constraints_are_every_profile_field_but_its_identity_and_evidence() -> None:
    assert set(CONSTRAINTS) == {f.name for f in fields(Profile)} - _NOT_CONSTRAINTS


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.name)
def test_every_non_default_constraint_cites_its_evidence(profile: Profile) -> None:
    missing = [c for c in CONSTRAINTS if not is_default(profile, c) and c not in profile.evidence]
    assert missing == [], f"{profile.name}: no evidence for {missing}"


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.name)
def test_evidence_names_only_constraints_and_says_something(profile: Profile) -> None:
    assert set(profile.evidence) <= set(CONSTRAINTS)
    assert all(len(text) > 20 for text in profile.evidence.values())


def test_every_constraint_names_the_rules_it_drives() -> None:
    assert set(RULES_OF) == set(CONSTRAINTS) - {"severity"}


def test_relaxed_constraints_cite_the_verdicts_that_relaxed_them() -> None:
    assert "test_native_output" in PROFILES["openai-responses"].evidence["empty_text"]
    assert "200" in PROFILES["anthropic"].evidence["unique_call_ids"]
    assert "200" in PROFILES["anthropic"].evidence["system_placement"]


def test_evidence_is_found_by_rule() -> None:
    by_profile = {profile: constraint for profile, constraint, _ in evidence_for("HN004")}
    assert by_profile["anthropic"] == "empty_text"
    assert "openai-chat" in by_profile  # the relaxation is documented too
    assert ("openai-responses", "severity") in {(p, c) for p, c, _ in evidence_for("HN008")}


def test_histnorm_rule_shows_the_evidence_of_each_profile() -> None:
    from histnorm_cli.catalog import describe

    text = describe("HN004")
    assert text is not None and "## Evidence by profile" in text
    assert "- `anthropic` empty_text: lone-blank: Anthropic 400: `messages: text content" in text
    assert "## Evidence by profile" not in (describe("HN001") or "")


# --- issue #23: bodies accepted that rules flagged ----------------------------------------


def _gemini_parallel_split() -> Any:
    """Gemini 2.5 answered 200: a parallel call's responses in three user contents."""

    def call(name: str) -> Any:
        return {"functionCall": {"name": name, "args": {}}}

    def response(name: str) -> Any:
        return {"role": "user", "parts": [{"functionResponse": {"name": name, "response": {}}}]}

    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather, time and news?"}]},
            {"role": "model", "parts": [call("weather"), call("time"), call("news")]},
            response("weather"),
            response("time"),
            response("news"),
        ],
        "generationConfig": {"temperature": 0},
    }


_ANTHROPIC_SPACE_BEFORE_TOOL_USE: Any = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [
        {"role": "user", "content": "List the files."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": " "},
                {"type": "tool_use", "id": "toolu_01", "name": "ls", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.txt"}],
        },
        {"role": "assistant", "content": "One file."},
        {"role": "user", "content": "Thanks."},
    ],
}

_OLLAMA_RESULT_WITHOUT_ID_OR_NAME: Any = {
    "model": "llama3.1",
    "stream": False,
    "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}],
        },
        {"role": "tool", "content": "4 C"},
    ],
}

ACCEPTED_23 = [
    pytest.param(_gemini_parallel_split(), "gemini", "gemini", id="gemini-split-responses"),
    pytest.param(_ANTHROPIC_SPACE_BEFORE_TOOL_USE, "anthropic", None, id="anthropic-space"),
    pytest.param(_OLLAMA_RESULT_WITHOUT_ID_OR_NAME, "chat-template", "ollama", id="ollama"),
]


@pytest.mark.parametrize(("body", "format", "profile"), ACCEPTED_23)
def test_issue_23_accepted_bodies_lint_clean(body: Any, format: str, profile: str | None) -> None:
    assert _flagged(body, format, profile) == []
    assert _fix_keeps_bytes(body, format, profile)


def test_vertex_rejects_what_the_gemini_api_accepts() -> None:
    """Vertex AI answered 400 to an empty text part (google/adk-python#338) and to a
    parallel call's responses in separate contents (docker/docker-agent#2959); the Gemini
    API answered 200 to both (the gemini-2.5 cassette, Oaklight/llm-rosetta#300)."""
    assert _flagged(_GEMINI_EMPTY_TEXTS, "gemini", "vertex") == ["HN004", "HN004"]
    assert _flagged(_GEMINI_EMPTY_TEXTS, "gemini", "gemini") == []
    assert _flagged(_gemini_parallel_split(), "gemini", "vertex") == ["HN102"]


def test_split_responses_with_a_user_text_between_stay_flagged_for_gemini() -> None:
    body = _gemini_parallel_split()
    body["contents"].insert(3, {"role": "user", "parts": [{"text": "Any news too?"}]})
    assert set(_flagged(body, "gemini", "gemini")) == {"HN008"}


def test_a_lone_blank_or_a_final_one_stays_an_error_for_anthropic() -> None:
    alone = json.loads(json.dumps(_ANTHROPIC_SPACE_BEFORE_TOOL_USE))
    alone["messages"][3]["content"] = [{"type": "text", "text": " "}]
    assert _flagged(alone, "anthropic") == ["HN004"]
    final = json.loads(json.dumps(_ANTHROPIC_SPACE_BEFORE_TOOL_USE))
    final["messages"][4]["content"] = [
        {"type": "text", "text": "Thanks."},
        {"type": "text", "text": "\n"},
    ]
    assert _flagged(final, "anthropic") == ["HN004"]


def test_ollama_results_of_parallel_calls_without_names_stay_an_error() -> None:
    body = json.loads(json.dumps(_OLLAMA_RESULT_WITHOUT_ID_OR_NAME))
    call = body["messages"][1]["tool_calls"][0]
    body["messages"][1]["tool_calls"] = [call, {"function": {"name": "time", "arguments": {}}}]
    body["messages"].append({"role": "tool", "tool_name": "time", "content": "9:00"})
    assert _flagged(body, "chat-template", "ollama") == ["HN112"]


_CHAT_PARALLEL: Any = {
    "messages": [
        {"role": "user", "content": "Weather and time?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "t", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "4 C"},
        {"role": "tool", "tool_call_id": "c2", "content": "9:00"},
        {"role": "user", "content": "Thanks."},
    ]
}


def test_openai_chat_parallel_results_are_one_turn_for_the_gemini_api() -> None:
    assert _flagged(_CHAT_PARALLEL, "openai-chat", "gemini") == []


def test_a_split_the_format_cannot_merge_is_reported_without_a_fix() -> None:
    """OpenAI Chat keeps each result in a `tool` message of its own: the merge HN102
    offers cannot be written, so lint offers none and fix reports it unfixed."""
    data = json.dumps(_CHAT_PARALLEL)
    (found,) = [d for d in histnorm.lint(data, Settings(profile="vertex")) if d.code == "HN102"]
    assert found.fix is None
    assert "openai-chat" in found.message
    result = histnorm.fix(data, Settings(profile="vertex"), format="openai-chat")
    assert "HN102" not in result.applied
    assert "HN102" in {d.code for d in result.remaining}


# --- issue #23: Mistral rejects a user message right after a tool message -------------

_MISTRAL_USER_AFTER_TOOL: Any = {
    "model": "mistral-large-latest",
    "messages": [
        {"role": "user", "content": "Which grants are open?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "D681PevKs",
                    "type": "function",
                    "function": {"name": "search", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "D681PevKs", "name": "search", "content": "none"},
        {"role": "user", "content": "And next year?"},
    ],
}


def test_a_user_message_right_after_a_tool_message_is_an_error_for_mistral() -> None:
    found = histnorm.lint(json.dumps(_MISTRAL_USER_AFTER_TOOL), Settings(profile="mistral"))
    assert [(d.code, d.severity, d.location.message_index) for d in found] == [
        ("HN124", Severity.ERROR, 3)
    ]
    assert found[0].fix is None
    assert "HN124" in _flagged(_MISTRAL_USER_AFTER_TOOL, "openai-chat", "portable")


def test_an_answer_between_the_results_and_the_user_is_clean_for_mistral() -> None:
    body = json.loads(json.dumps(_MISTRAL_USER_AFTER_TOOL))
    body["messages"].insert(3, {"role": "assistant", "content": "None are open."})
    assert _flagged(body, "openai-chat", "mistral") == []
    assert "HN124" not in _flagged(_MISTRAL_USER_AFTER_TOOL, "openai-chat", "openai-chat")
    assert "HN124" not in _flagged(_MISTRAL_USER_AFTER_TOOL, "openai-chat", "vllm")


# --- issue #23: an approval notice between a call and its output (Codex, Responses) -----

_RESPONSES_NOTICE_BETWEEN: Any = {
    "model": "gpt-5-codex",
    "input": [
        {"type": "message", "role": "user", "content": "Run the tests."},
        {"type": "function_call", "call_id": "call_t", "name": "shell", "arguments": "{}"},
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "Approved command prefix saved."}],
        },
        {"type": "function_call_output", "call_id": "call_t", "output": "12 passed"},
        {"type": "message", "role": "user", "content": "Thanks."},
    ],
}


def test_a_developer_message_between_a_call_and_its_output_is_no_displacement() -> None:
    assert _flagged(_RESPONSES_NOTICE_BETWEEN, "openai-responses") == []
    assert _fix_keeps_bytes(_RESPONSES_NOTICE_BETWEEN, "openai-responses")
    assert profile_for(None, "codex").instructions_between_results


def test_a_user_message_between_a_call_and_its_output_is_still_displaced() -> None:
    body = json.loads(json.dumps(_RESPONSES_NOTICE_BETWEEN))
    body["input"][2] = {"type": "message", "role": "user", "content": "Hurry."}
    assert _flagged(body, "openai-responses") == ["HN008"]
    assert "HN008" in _flagged(_RESPONSES_NOTICE_BETWEEN, "openai-responses", "openai-chat")


# --- issue #28: one tool_use id for two tools across back-to-back assistant messages -----


def _anthropic_shared_id_across_messages() -> Any:
    def use(name: str) -> Any:
        return {"type": "tool_use", "id": "toolu_0", "name": name, "input": {}}

    def result(text: str) -> Any:
        return {"type": "tool_result", "tool_use_id": "toolu_0", "content": text}

    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Weather and time in Oslo?"},
            {"role": "assistant", "content": [use("get_weather")]},
            {"role": "assistant", "content": [use("get_time")]},
            {"role": "user", "content": [result("4 C"), result("17:42")]},
            {"role": "user", "content": "Thanks."},
        ],
    }


@pytest.mark.parametrize("profile", ["anthropic", "anthropic-thinking"])
def test_one_id_for_two_tools_in_back_to_back_assistant_messages_is_an_error(
    profile: str,
) -> None:
    """Anthropic merges the two messages into one turn: the id is shared inside it."""
    body = _anthropic_shared_id_across_messages()
    found = histnorm.lint(json.dumps(body), Settings(profile=profile), format="anthropic")
    errors = [(d.code, d.location.message_index) for d in found if d.severity is Severity.ERROR]
    assert ("HN016", 2) in errors
    fixed = histnorm.fix(
        json.dumps(body), Settings(profile=profile, unsafe_fixes=True), format="anthropic"
    )
    assert "HN016" in fixed.applied
    assert not [d for d in histnorm.lint(fixed.transcript) if d.severity is Severity.ERROR]
