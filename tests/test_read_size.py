"""The request-size check (HN113) on the transcripts a run of fixes makes: what they still
hold as read is bounded by the length of the text it was read from
(`histnorm.analysis.read_size`), so only the messages a fix made are measured."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_helpers import session
from strategies_json import JSON_VALUES

import histnorm
import histnorm.jsonio as jsonio
import histnorm.rules.oversized_content as oversized
from histnorm.analysis.read_size import GROWTH
from histnorm.document import fix_document, lint_document, read_document
from histnorm.engine import fix, lint
from histnorm.settings import Settings


def _texts(values: list[Any]) -> list[bytes]:
    """`values` as a list in three spellings: compact, indented, and ASCII-escaped."""
    return [
        orjson.dumps(values),
        json.dumps(values, indent=2).encode(),
        json.dumps(values, ensure_ascii=True).encode(),
    ]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(JSON_VALUES, max_size=6))
def test_the_items_of_a_parsed_list_measure_at_most_growth_times_its_text(
    values: list[Any],
) -> None:
    for text in _texts(values):
        items = jsonio.loads(text)
        assert sum(oversized._plain(item) for item in items) <= GROWTH * len(text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(-30, 30), st.booleans()), min_size=1))
def test_floats_in_exponent_form_stay_within_the_bound(floats: list[tuple[int, int, bool]]) -> None:
    """The one token Python spells longer than a JSON text may: `1e15` is
    `1000000000000000.0`; an envelope's list is bounded the same way."""
    tokens = [f"{'-' if minus else ''}{digit}e{power}" for digit, power, minus in floats]
    for text in (f"[{','.join(tokens)}]", f'{{"messages":[{",".join(tokens)}]}}'):
        parsed = jsonio.loads(text.encode())
        items = parsed["messages"] if isinstance(parsed, dict) else parsed
        assert sum(oversized._plain(item) for item in items) <= GROWTH * len(text)


def test_the_worst_float_is_four_and_a_half_times_its_text() -> None:
    """`GROWTH` is that, rounded up: a tighter one would undercount."""
    assert oversized._plain(jsonio.loads(b"[1e15]")[0]) == 18 == 4.5 * len("1e15")


def _spied(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    """What the function `name` of HN113's module is called with from now on, in order."""
    found: list[Any] = []
    real = getattr(oversized, name)

    def spy(value: Any) -> Any:
        found.append(value)
        return real(value)

    monkeypatch.setattr(oversized, name, spy)
    return found


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The values HN113 writes out to measure (`_plain`), in order."""
    return _spied(monkeypatch, "_plain")


@pytest.mark.parametrize("check", [lint_document, fix_document])
def test_a_fixed_session_measures_none_of_the_lines_it_holds_as_read(
    check: Any, measured: list[Any]
) -> None:
    """Claude Code sessions are checked under Anthropic's 32 MiB request limit. The
    session the fix of HN002 makes holds every line but the one it drops as read: the
    length of the file bounds them, and none is written out to be measured."""
    result = check(session("claude-code", True, "parallel-tools"), path_hint="session.jsonl")
    codes = [d.code for d in (result.diagnostics if check is lint_document else result.fixes)]
    assert codes == ["HN002"]
    assert measured == []


def test_a_message_is_measured_once_however_many_transcripts_hold_it(
    measured: list[Any],
) -> None:
    """Without a text to bound them (a transcript built in memory), each message's size is
    kept on it: the transcripts a run of fixes makes measure only the messages it made."""
    data = session("claude-code", True, "parallel-tools")
    transcript = read_document(data, path_hint="session.jsonl").records[0].transcript
    assert transcript is not None
    first = oversized._plain_size(transcript.messages)
    assert len(measured) == len(transcript.messages)
    assert oversized._plain_size(transcript.messages) == first
    assert len(measured) == len(transcript.messages)


def _over_the_limit() -> list[dict[str, Any]]:
    """Four turns of 9 MiB of text (36 MiB, over Anthropic's 32 MiB request limit) and a
    result no call answers (HN002), whose fix leaves the rest as read."""
    turns: list[dict[str, Any]] = [
        {"role": role, "content": "y" * (9 * 1024 * 1024)} for role in ("user", "assistant")
    ] * 2
    orphan = {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "ok"}
    return [*turns, {"role": "user", "content": [orphan]}]


def test_a_fixed_transcript_over_the_request_limit_is_still_reported() -> None:
    """The bound rules out only what it can: a history as long as the limit is measured,
    after a fix as before it."""
    data = orjson.dumps(_over_the_limit())
    found = histnorm.lint(data, format="anthropic")
    assert sorted(d.code for d in found) == ["HN002", "HN113"]
    transcript = read_document(data, format="anthropic").records[0].transcript
    assert transcript is not None
    settings = Settings(profile="anthropic")
    result = fix(transcript, settings)
    assert dict(result.applied) == {"HN002": 1}
    assert [d.code for d in result.remaining] == ["HN113"]
    assert [d.code for d in lint(result.transcript, settings)] == ["HN113"]


def _orphan_call_history() -> bytes:
    """An OpenAI Chat history whose second call no result answers (HN001, whose fix
    rewrites the assistant message without it and leaves the others as read)."""
    calls = [
        {"id": f"call_{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for n in (1, 2)
    ]
    messages = [
        {"role": "user", "content": "weather and a table?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_1", "content": "4 C"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "you are welcome"},
    ]
    return orjson.dumps({"messages": messages})


def test_a_fixed_transcript_checks_the_strings_of_the_messages_a_fix_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under OpenAI's 10 MiB string limit, the messages decoded from a shorter text hold
    no longer string; only the message the fix of HN001 rewrote is looked at."""
    looked = _spied(monkeypatch, "_part_value")
    result = fix_document(_orphan_call_history(), path_hint="history.json")
    assert dict(result.applied) == {"HN001": 1}
    assert [getattr(part, "call_id", None) for part in looked] == ["call_1"]


def test_a_string_over_the_limit_in_a_fixed_transcript_is_still_reported() -> None:
    """A text longer than the limit rules nothing out: its strings are looked at, after a
    fix as before it."""
    history = orjson.loads(_orphan_call_history())
    history["messages"][3]["content"] = "x" * (10 * 1024 * 1024 + 1)
    data = orjson.dumps(history)
    transcript = read_document(data, path_hint="history.json").records[0].transcript
    assert transcript is not None
    result = fix(transcript, Settings(ignore=("HN113",)))
    assert dict(result.applied) == {"HN001": 1}
    found = lint(result.transcript, Settings())
    assert [(d.code, d.location.message_index) for d in found] == [("HN113", 3)]


def _rollout(*texts: str) -> bytes:
    """A Codex rollout of user turns holding `texts`, each answered, and a last line with
    an output no call answers (HN002, whose fix drops that line and leaves the rest as
    read)."""

    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {
            "timestamp": "2026-07-14T09:50:02.000Z",
            "type": "response_item",
            "payload": payload,
        }

    lines: list[dict[str, Any]] = []
    for text in texts:
        said = [{"type": "input_text", "text": text}]
        lines.append(item({"type": "message", "role": "user", "content": said}))
        answer = [{"type": "output_text", "text": "Done."}]
        lines.append(item({"type": "message", "role": "assistant", "content": answer}))
    lines.append(item({"type": "function_call_output", "call_id": "call_gone", "output": "ok"}))
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def test_a_session_longer_than_the_string_limit_is_bounded_line_by_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under OpenAI's 10 MiB string limit, a rollout of 11 MiB whose lines are each shorter:
    every string is read from one line, so the fix of HN002 looks at the strings of no
    message it leaves as read."""
    looked = _spied(monkeypatch, "_part_value")
    data = _rollout(*["x" * (1024 * 1024)] * 11)
    assert len(data) > 11 * 1024 * 1024
    result = fix_document(data, path_hint="rollout.jsonl")
    assert dict(result.applied) == {"HN002": 1}
    assert result.diagnostics == ()
    assert looked == []


def test_a_line_over_the_string_limit_in_a_fixed_session_is_still_reported() -> None:
    """The longest line bounds the strings: one longer than the limit rules nothing out."""
    data = _rollout("x" * (10 * 1024 * 1024 + 1), "short")
    assert sorted(d.code for d in lint_document(data, path_hint="rollout.jsonl").diagnostics) == [
        "HN002",
        "HN113",
    ]
    result = fix_document(data, path_hint="rollout.jsonl", settings=Settings(ignore=("HN113",)))
    assert dict(result.applied) == {"HN002": 1}
    assert result.output is not None
    found = lint_document(result.output, path_hint="rollout.jsonl").diagnostics
    assert [(d.code, d.location.line) for d in found] == [("HN113", 1)]
