"""Tool names (HN111, HN112) and the `mistral` and `ollama` profiles (issue #15).

Each shape is one a public report shows: an empty function name (continuedev/continue#5091),
a name with NUL bytes in a resumed Codex session (openai/codex#24369), a model-invented
dotted name, a Mistral call id of the wrong form (anomalyco/opencode#1680), a Gemini
functionResponse named after a placeholder (archestra-ai/archestra#7583), Ollama results
paired by `tool_name`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import histnorm
from histnorm.diagnostic import Applicability, Severity
from histnorm.engine import outline_clean
from histnorm.formats import get_codec
from histnorm.profiles import PROFILES, call_id_problem
from histnorm.rules._common import new_call_id
from histnorm.rules.invalid_tool_name import name_problem, safe_name
from histnorm.settings import Settings


def _lint(body: Any, format: str, profile: str | None = None) -> list[Any]:
    return list(histnorm.lint(json.dumps(body), Settings(profile=profile), format=format))


def _codes(body: Any, format: str, profile: str | None = None) -> list[str]:
    return [d.code for d in _lint(body, format, profile)]


def _chat(name: str, result_name: str | None = None, call_id: str = "call_1") -> Any:
    tool: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": "ok"}
    if result_name is not None:
        tool["name"] = result_name
    return [
        {"role": "user", "content": "read main.py"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": '{"filepath": "main.py"}'},
                }
            ],
        },
        tool,
    ]


def _responses(name: str) -> Any:
    return {
        "input": [
            {"role": "user", "content": "apply the patch"},
            {"type": "function_call", "call_id": "call_E", "name": name, "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_E", "output": "unsupported call"},
        ]
    }


# --- HN111: empty, missing and rejected names ------------------------------------------


@pytest.mark.parametrize("profile", [None, *PROFILES])
def test_an_empty_name_is_an_error_under_every_profile(profile: str | None) -> None:
    found = [d for d in _lint(_chat(""), "openai-chat", profile) if d.code == "HN111"]
    assert [(d.severity, d.fix) for d in found] == [(Severity.ERROR, None)]
    assert "empty name" in found[0].message


def test_a_missing_name_is_an_error() -> None:
    body = _chat("x")
    del body[1]["tool_calls"][0]["function"]["name"]
    assert "HN111" in _codes(body, "openai-chat")


def test_a_name_with_nul_bytes_breaks_the_responses_pattern() -> None:
    found = _lint(_responses("apply\u0000\u0000\u0000"), "openai-responses")
    assert [d.code for d in found] == ["HN111"]
    assert "does not match [a-zA-Z0-9_-]+" in found[0].message


def test_a_dotted_name_breaks_openai_and_bedrock_but_not_anthropic_or_gemini() -> None:
    body = _chat("browser.tabs.open")
    assert "HN111" in _codes(body, "openai-chat")
    assert "HN111" in _codes(body, "openai-chat", "bedrock-converse")
    assert "HN111" in _codes(body, "openai-chat", "portable")
    assert "HN111" not in _codes(body, "openai-chat", "anthropic")
    assert "HN111" not in _codes(body, "openai-chat", "gemini")


def test_a_name_over_64_characters_is_too_long() -> None:
    assert name_problem("a" * 65, PROFILES["openai-chat"]) == (
        "is 65 characters long (the limit is 64)"
    )
    assert name_problem("a" * 64, PROFILES["openai-chat"]) is None


def test_the_rename_is_unsafe_deterministic_and_carries_to_named_results() -> None:
    body = _chat("browser.tabs.open", result_name="browser.tabs.open")
    (found,) = [d for d in _lint(body, "openai-chat") if d.code == "HN111"]
    assert found.fix is not None and found.fix.applicability is Applicability.UNSAFE
    assert histnorm.fix(json.dumps(body), format="openai-chat").applied == {}
    done = histnorm.fix(json.dumps(body), Settings(unsafe_fixes=True), format="openai-chat")
    out = histnorm.encode(done.transcript)
    assert isinstance(out, list)
    assert out[1]["tool_calls"][0]["function"]["name"] == "browser_tabs_open"
    assert out[2]["name"] == "browser_tabs_open"
    again = histnorm.fix(done.transcript, Settings(unsafe_fixes=True))
    assert again.applied == {}


def test_safe_name_cuts_to_the_limit_and_keeps_valid_names() -> None:
    limits = PROFILES["bedrock-converse"]
    assert safe_name("mcp__git.push/force", limits) == "mcp__git_push_force"
    assert safe_name("x" * 70, limits) == "x" * 64
    assert safe_name("get_weather", limits) == "get_weather"


def test_the_name_check_runs_on_the_outline() -> None:
    outline = get_codec("openai-chat").outline(_chat(""))
    assert not outline_clean(outline, Settings(), _chat(""))
    clean = _chat("read_file")
    assert outline_clean(get_codec("openai-chat").outline(clean), Settings(), clean)


# --- HN112: result names ----------------------------------------------------------------


def _gemini(call: str, response: str, with_ids: bool = True) -> Any:
    ids = {"id": "c1"} if with_ids else {}
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [{"functionCall": {**ids, "name": call, "args": {}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {**ids, "name": response, "response": {}}}],
            },
        ]
    }


def test_a_gemini_response_named_after_another_function_is_an_error() -> None:
    (found,) = _lint(_gemini("get_weather", "tool_result"), "gemini")
    assert (found.code, found.severity) == ("HN112", Severity.ERROR)
    assert found.fix is not None and found.fix.applicability is Applicability.SAFE
    done = histnorm.fix(json.dumps(_gemini("get_weather", "tool_result")), format="gemini")
    assert histnorm.encode(done.transcript) == _gemini("get_weather", "get_weather")


def test_an_empty_call_name_is_never_copied_over_a_real_result_name() -> None:
    """HN112 offers no fix that would write a call's empty name over the name its result
    keeps: that name is the only record of which tool ran."""
    body = _gemini("", "get_weather")
    found = [d for d in _lint(body, "gemini") if d.code == "HN112"]
    assert found and all(d.fix is None for d in found)
    done = histnorm.fix(json.dumps(body), format="gemini")
    assert "HN112" not in done.applied
    assert histnorm.encode(done.transcript)["contents"][2] == body["contents"][2]


def test_without_ids_the_rename_is_unsafe() -> None:
    (found,) = _lint(_gemini("get_weather", "tool_result", with_ids=False), "gemini")
    assert found.fix is not None and found.fix.applicability is Applicability.UNSAFE


def test_a_mismatch_is_information_where_the_target_ignores_result_names() -> None:
    found = _lint(_chat("read_file", result_name="cat"), "openai-chat")
    assert [(d.code, d.severity) for d in found] == [("HN112", Severity.INFO)]


def test_matching_names_are_clean() -> None:
    assert _codes(_gemini("get_weather", "get_weather"), "gemini") == []
    body = _chat("read_file", result_name="read_file", call_id="FI5qQGzDE")
    assert _codes(body, "openai-chat", "portable") == []


# --- ollama: results paired by tool_name ------------------------------------------------


def _ollama(*results: dict[str, Any]) -> Any:
    calls = [
        {"type": "function", "function": {"index": i, "name": n, "arguments": {"city": "NY"}}}
        for i, n in enumerate(("get_temperature", "get_conditions"))
    ]
    return {
        "model": "qwen3",
        "messages": [
            {"role": "user", "content": "Weather and temperature in New York?"},
            {"role": "assistant", "tool_calls": calls},
            *results,
        ],
    }


_TEMP = {"role": "tool", "tool_name": "get_temperature", "content": "22°C"}
_COND = {"role": "tool", "tool_name": "get_conditions", "content": "Partly cloudy"}


def test_the_documented_ollama_history_is_clean() -> None:
    assert _codes(_ollama(_TEMP, _COND), "chat-template", "ollama") == []


def test_tool_name_is_read_and_written_back() -> None:
    body = _ollama(_TEMP, _COND)
    transcript = histnorm.load(json.dumps(body), format="chat-template")
    assert [p.name for m in transcript.messages for p in m.parts if p.kind == "tool_result"] == [
        "get_temperature",
        "get_conditions",
    ]
    assert histnorm.encode(transcript) == body


def test_an_ollama_result_without_a_name_is_an_error_there_only() -> None:
    body = _ollama({"role": "tool", "content": "22°C"}, _COND)
    found = _lint(body, "chat-template", "ollama")
    assert [(d.code, d.severity) for d in found] == [("HN112", Severity.ERROR)]
    assert _codes(body, "chat-template") == []


# --- mistral: call ids of 9 letters and digits ------------------------------------------


def test_a_call_prefixed_id_breaks_mistral_and_is_rewritten_to_nine_alphanumerics() -> None:
    body = _chat("read_file", call_id="call_PTLP8xhu3uwZk4l3nlnrrJha")
    found = _lint(body, "openai-chat", "mistral")
    assert [d.code for d in found] == ["HN104"]
    assert "[a-zA-Z0-9]{9}" in found[0].message
    done = histnorm.fix(json.dumps(body), Settings(profile="mistral"), format="openai-chat")
    out = histnorm.encode(done.transcript)
    assert isinstance(out, list)
    new = out[1]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", new) and out[2]["tool_call_id"] == new
    assert histnorm.lint(done.transcript, Settings(profile="mistral")) == ()


def test_a_mistral_id_is_clean_there() -> None:
    assert _codes(_chat("read_file", call_id="FI5qQGzDE"), "openai-chat", "mistral") == []


def test_new_ids_fit_every_profile_and_keep_the_old_form_where_it_fits() -> None:
    assert new_call_id("x", (1, 0)) == new_call_id("x", (1, 0), PROFILES["openai-chat"])
    assert new_call_id("x", (1, 0)).startswith("call_")
    for profile in PROFILES.values():
        assert call_id_problem(new_call_id("x", (1, 0), profile), profile) is None


# --- portable is the strictest ----------------------------------------------------------

_IDS = ["FI5qQGzDE", "call_1", "toolu_01A", "fc_" + "a" * 60, "call.1", "a:b", "abcdefghi"]
_NAMES = ["get_weather", "browser.tabs.open", "a" * 65, "a-b", "x"]


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.name)
def test_portable_rejects_every_id_and_name_any_profile_rejects(profile: Any) -> None:
    portable = PROFILES["portable"]
    for call_id in _IDS:
        if call_id_problem(call_id, profile) is not None:
            assert call_id_problem(call_id, portable) is not None, (profile.name, call_id)
    for name in _NAMES:
        if name_problem(name, profile) is not None:
            assert name_problem(name, portable) is not None, (profile.name, name)
    order = ("free", "checked", "paired")
    assert order.index(portable.result_names) >= order.index(profile.result_names)


def test_a_client_run_tool_search_call_has_no_name_by_design() -> None:
    body = {  # the shape OpenAI answered 200 to (pydantic-ai's tool_search cassettes)
        "input": [
            {"role": "user", "content": "What is the USD to EUR rate?"},
            {
                "type": "tool_search_call",
                "call_id": "call_dAz2",
                "execution": "client",
                "status": "completed",
                "arguments": {"queries": ["exchange rate USD EUR"]},
            },
            {
                "type": "tool_search_output",
                "call_id": "call_dAz2",
                "execution": "client",
                "status": "completed",
                "tools": [],
            },
        ]
    }
    assert "HN111" not in _codes(body, "openai-responses")
