"""A request body is closed: what it holds at its end was sent to be answered as it is.

A value with request-body keys (`model`, `max_tokens`, a generation config...) beside its
messages is linted with `tail=close` unless the user chose a tail; a dataset record
(messages, maybe `tools`) keeps its tail open (HN011), where a final call is a
training target or a live state.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner

import histnorm
from histnorm.diagnostic import Severity
from histnorm.settings import Settings, TailMode
from histnorm.tail import is_request_body


def _call(id_: str, name: str) -> Any:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": "{}"}}


_MESSAGES: Any = [
    {"role": "user", "content": "Weather and time?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c1", "w"), _call("c2", "t")]},
    {"role": "tool", "tool_call_id": "c1", "content": "4 C"},
]
_BODY: Any = {"model": "gpt-4o", "messages": _MESSAGES}
"""OpenAI answered 400 `An assistant message with 'tool_calls' must be followed by tool
messages responding to each 'tool_call_id'. The following tool_call_ids did not have
response messages: c2`."""


def _codes(value: Any, settings: Settings | None = None) -> list[tuple[str, Severity]]:
    found = histnorm.lint(json.dumps(value), settings or Settings(), format="openai-chat")
    return [(d.code, d.severity) for d in found]


def test_a_request_body_ending_in_half_a_batch_is_an_error() -> None:
    found = histnorm.lint(json.dumps(_BODY), format="openai-chat")
    assert [(d.code, d.severity) for d in found] == [("HN001", Severity.ERROR)]
    assert "a request body: its tail is closed" in found[0].message


def test_fix_closes_the_tail_of_a_request_body() -> None:
    result = histnorm.fix(json.dumps(_BODY), format="openai-chat")
    assert result.applied == {"HN001": 1}
    assert histnorm.lint(result.transcript) == ()


@pytest.mark.parametrize(
    "record",
    [
        {"messages": _MESSAGES},
        {"messages": _MESSAGES, "tools": [{"type": "function", "function": {"name": "w"}}]},
        _MESSAGES,
    ],
    ids=["record", "record-with-tools", "bare-list"],
)
def test_a_record_keeps_its_tail(record: Any) -> None:
    assert _codes(record) == [("HN011", Severity.INFO)]


def test_a_chosen_tail_wins_over_the_body() -> None:
    assert _codes(_BODY, Settings(tail=TailMode.KEEP)) == [("HN011", Severity.INFO)]
    assert _codes({"messages": _MESSAGES}, Settings(tail=TailMode.CLOSE)) == [
        ("HN001", Severity.ERROR)
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"model": "m", "messages": []}, True),
        ({"max_tokens": 10, "messages": []}, True),
        ({"contents": [], "generationConfig": {}}, True),
        ({"messages": [], "tools": []}, False),
        ({"contents": []}, False),
        ([{"role": "user"}], False),
        ("text", False),
    ],
)
def test_request_body_keys(value: Any, expected: bool) -> None:
    assert is_request_body(value) is expected


def test_the_command_line_fails_a_request_body_unless_told_to_keep(tmp_path: Any) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(_BODY))
    runner = CliRunner()
    closed = runner.invoke(app, ["lint", str(path)])
    assert closed.exit_code == 1, closed.output
    assert "HN001" in closed.output and "a request body" in closed.output
    kept = runner.invoke(app, ["lint", "--tail", "keep", str(path)])
    assert kept.exit_code == 0, kept.output
    assert "HN011" in kept.output


_ANTHROPIC_IN_FLIGHT_SEARCH: Any = {  # Anthropic answered 200 (pause_turn continued)
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [
        {"role": "user", "content": "Search the news, then add 2 and 2."},
        {
            "role": "assistant",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}},
                {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 2}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "4"}],
        },
    ],
}


def test_a_server_run_call_in_flight_at_the_end_is_the_providers_to_continue() -> None:
    found = histnorm.lint(json.dumps(_ANTHROPIC_IN_FLIGHT_SEARCH), format="anthropic")
    assert [(d.code, d.severity) for d in found] == [("HN011", Severity.INFO)]


def test_a_prefill_in_a_request_body_is_no_defect_where_some_models_take_it() -> None:
    body = {
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "Name a colour."},
            {"role": "assistant", "content": "The colour is"},
        ],
    }
    assert histnorm.lint(json.dumps(body), format="anthropic") == ()
    chosen = histnorm.lint(json.dumps(body), Settings(tail=TailMode.CLOSE), format="anthropic")
    assert [(d.code, d.severity) for d in chosen] == [("HN121", Severity.WARNING)]
    portable = histnorm.lint(json.dumps(body), Settings(profile="portable"), format="anthropic")
    (found,) = [d for d in portable if d.code == "HN121"]
    assert found.severity is Severity.ERROR and "a request body" in found.message
