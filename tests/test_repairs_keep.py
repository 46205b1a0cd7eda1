"""Repairs that keep: `fix` moves a displaced result next to its call instead of dropping
it, and a fix that would break what the record's consumer requires is refused.

The properties at the end run over every codec: for any transcript (every format
fixture, and generated transcripts converted to every format) with any mix of damage
(that of `tests/fuzzing/damages.py`, and a user message hoisted between a call and
its results), every tool result whose call precedes it in the input is still in the
output of `fix`, moved or not. `make test` runs 40 examples over the fixtures and 20 per
format (`HISTNORM_FUZZ_EXAMPLES`).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from damages_roles import call_into_user
from fuzzing.cases import samples
from fuzzing.damages import DAMAGES
from histnorm_cli.app import app
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import canonical_transcripts
from typer.testing import CliRunner

import histnorm
from histnorm.engine import _lint, fix_refused
from histnorm.model import Message, ToolResultPart, Transcript
from histnorm.pairing import pair_transcript
from histnorm.profiles import PROFILES
from histnorm.settings import DEFAULT_SETTINGS


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        ],
    }


def _tool(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


ASK = {"role": "user", "content": "Weather in Oslo, and book a table?"}
NEXT = {"role": "user", "content": "Any news?"}
WEATHER, BOOKING = _call("call_w", "get_weather"), _call("call_b", "book_table")
SEQUENTIAL = [
    ASK,
    WEATHER,
    BOOKING,
    _tool("call_w", "4 C"),
    NEXT,
    _tool("call_b", "booked, ref 7731"),
]
"""Two sequential calls; the first result came before the next user message, the second after."""
RESLOTTED = [ASK, WEATHER, _tool("call_w", "4 C"), BOOKING, SEQUENTIAL[5], NEXT]

PARALLEL_ITEMS = [
    {"type": "message", "role": "user", "content": "Weather in Oslo, and book a table?"},
    {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": "{}"},
    {"type": "function_call", "call_id": "call_b", "name": "book_table", "arguments": "{}"},
    {"type": "message", "role": "user", "content": "Any news?"},
    {"type": "function_call_output", "call_id": "call_w", "output": "4 C"},
    {"type": "function_call_output", "call_id": "call_b", "output": "booked, ref 7731"},
]
"""Parallel Responses calls whose outputs come after the next user message."""
PARALLEL_RESLOTTED = [*PARALLEL_ITEMS[:3], PARALLEL_ITEMS[4], PARALLEL_ITEMS[5], PARALLEL_ITEMS[3]]

CALL_IN_TEXT = {
    "conversations": [
        {"from": "human", "value": "Weather in Oslo?"},
        {"from": "gpt", "value": 'Action: get_weather{"city": "Oslo"}'},
        {"from": "observation", "value": "4 C"},
        {"from": "gpt", "value": "It is 4 C in Oslo."},
    ]
}
"""A ShareGPT record whose call was written into the gpt text: no function_call turn."""


def _results(transcript: Transcript) -> list[Any]:
    return [
        p.content for m in transcript.messages for p in m.parts if isinstance(p, ToolResultPart)
    ]


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


# What was seen 5: fixes dropped results that should be moved.


@pytest.mark.parametrize("tail", ["keep", "close"])
def test_sequential_calls_keep_the_result_behind_the_next_user_message(tail: str) -> None:
    result = histnorm.fix(SEQUENTIAL, format="openai-chat", tail=tail)
    assert histnorm.encode(result.transcript) == RESLOTTED
    assert "HN001" not in result.applied and not result.remaining


def test_parallel_responses_outputs_behind_a_user_message_are_moved_not_deleted() -> None:
    result = histnorm.fix(PARALLEL_ITEMS, format="openai-responses", tail="close")
    assert histnorm.encode(result.transcript) == PARALLEL_RESLOTTED
    assert set(result.applied) == {"HN008"}


@pytest.mark.parametrize(
    ("document", "fmt", "expected"),
    [
        (SEQUENTIAL, "openai-chat", RESLOTTED),
        (PARALLEL_ITEMS, "openai-responses", PARALLEL_RESLOTTED),
    ],
)
def test_cli_fix_tail_close_moves_instead_of_deleting(
    tmp_path: Path, document: Any, fmt: str, expected: Any
) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(orjson.dumps(document))
    run = _cli("fix", "--tail", "close", "--format", fmt, str(path))
    assert run.exit_code == 0, run.output
    assert orjson.loads(path.read_bytes()) == expected
    assert b"booked, ref 7731" in path.read_bytes()


def test_named_results_after_a_user_message_answer_the_call_of_their_name() -> None:
    """Gemini pairs by name: the weather response answers the weather call, though the
    booking call is the more recent one."""
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather, and book a table?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "book_table", "args": {}}}]},
            {"role": "user", "parts": [{"text": "Any news?"}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"r": "4 C"}}},
                    {"functionResponse": {"name": "book_table", "response": {"r": "7731"}}},
                ],
            },
        ]
    }
    fixed = histnorm.encode(histnorm.fix(body, format="gemini", tail="close").transcript)
    assert isinstance(fixed, dict)
    names = [
        next(iter(part.values()))["name"]
        for content in fixed["contents"]
        for part in content["parts"]
        if "text" not in part
    ]
    assert names == ["get_weather", "get_weather", "book_table", "book_table"]


def test_merging_into_an_empty_message_keeps_what_is_merged() -> None:
    """HN107 merges a run of same-role messages into its first; an empty first message
    used to swallow the rest."""
    doc = [
        {"role": "user", "contents": [{"$type": "text", "text": "hi"}]},
        {"role": "assistant", "contents": []},
        {"role": "assistant", "contents": [{"$type": "text", "text": "KEEP ME"}]},
        {"role": "user", "contents": [{"$type": "text", "text": "x"}]},
    ]
    result = histnorm.fix(doc, format="meai", profile="bedrock-converse", select=["HN107"])
    assert histnorm.encode(result.transcript) == [doc[0], doc[2], doc[3]]


# What was seen 6: fixes broke the record's consumer.


def test_sharegpt_fix_that_breaks_alternation_is_refused() -> None:
    result = histnorm.fix(CALL_IN_TEXT, format="sharegpt")
    assert not result.changed
    assert histnorm.encode(result.transcript) == CALL_IN_TEXT
    (left,) = result.remaining
    assert left.code == "HN002" and left.fix is None
    assert "alternat" in left.message and "not fixed" in left.message


def test_sharegpt_cli_leaves_the_record_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    data = orjson.dumps([CALL_IN_TEXT])
    path.write_bytes(data)
    run = _cli("fix", str(path))
    assert path.read_bytes() == data
    assert run.exit_code == 1 and "not fixed" in run.output


def test_sharegpt_cancelled_call_is_kept_when_dropping_it_would_skip_the_record() -> None:
    """human, function_call, human, gpt alternates; without the call it would not."""
    record = {
        "conversations": [
            {"from": "human", "value": "Check order 8812."},
            {"from": "function_call", "value": '{"name": "lookup_order", "arguments": {}}'},
            {"from": "human", "value": "Stop, I found it."},
            {"from": "gpt", "value": "No problem."},
        ]
    }
    result = histnorm.fix(record, format="sharegpt")
    assert histnorm.encode(result.transcript) == record
    (left,) = result.remaining
    assert left.code == "HN001" and "turn 2 (human) would be out of turn" in left.message


def test_sharegpt_fix_that_restores_alternation_applies() -> None:
    """A record the loader already skips (a call answered by nothing) may be fixed."""
    record = {
        "conversations": [
            {"from": "human", "value": "Weather?"},
            {"from": "function_call", "value": '{"name": "get_weather", "arguments": {}}'},
            {"from": "gpt", "value": "I could not check."},
        ]
    }
    result = histnorm.fix(record, format="sharegpt", tail="close")
    assert histnorm.encode(result.transcript) == {
        "conversations": [record["conversations"][0], record["conversations"][2]]
    }


def test_responses_string_input_never_becomes_an_array() -> None:
    # The Responses API takes empty text; a portable target does not, so its HN004 fix is
    # tried, and refused because it would turn the string into an array.
    body = {"model": "gpt-4.1", "input": ""}
    result = histnorm.fix(body, format="openai-responses", profile="portable")
    assert result.remaining
    assert histnorm.encode(result.transcript) == body
    assert all(d.fix is None for d in result.remaining)


def test_responses_refusal_names_the_key_and_both_types() -> None:
    body = {"model": "gpt-4.1", "input": ""}
    (left,) = histnorm.fix(body, format="openai-responses", profile="portable").remaining
    assert '"input" would change from a string to an array' in left.message


def test_refusal_keeps_every_diagnostic_and_names_the_reason() -> None:
    transcript = histnorm.load(CALL_IN_TEXT, format="sharegpt")
    offered = _lint(transcript, DEFAULT_SETTINGS)
    assert [d.code for d in offered] == ["HN002"] and offered[0].fix is not None
    refused = fix_refused(offered, "a reason")
    assert [d.code for d in refused] == ["HN002"]
    assert refused[0].fix is None and refused[0].message.endswith("(not fixed: a reason)")
    # lint and fix agree: lint withdraws the fix that fix refuses, with fix's reason
    (linted,) = histnorm.lint(transcript)
    assert linted.fix is None and "(not fixed: LLaMA-Factory would skip" in linted.message


# The property: every result whose call precedes it survives fix, moved or not.


def _key(part: ToolResultPart) -> bytes:
    return orjson.dumps(part.content, option=orjson.OPT_SORT_KEYS, default=str)


def _answered(transcript: Transcript) -> Counter[bytes]:
    """The results the input pairs with an earlier call, by content."""
    parts = [
        transcript.messages[mi].parts[pi] for mi, pi in pair_transcript(transcript).result_calls
    ]
    return Counter(_key(p) for p in parts if isinstance(p, ToolResultPart))


def _present(transcript: Transcript) -> Counter[bytes]:
    return Counter(
        _key(p) for m in transcript.messages for p in m.parts if isinstance(p, ToolResultPart)
    )


def _hoists(messages: tuple[Message, ...]) -> list[tuple[int, int]]:
    """(user message, earlier place after a call) pairs for `hoist_user`."""
    users = [
        k
        for k, m in enumerate(messages)
        if m.role_is("user") and not any(isinstance(p, ToolResultPart) for p in m.parts)
    ]
    calls = [j for j, m in enumerate(messages) if any(p.kind == "tool_call" for p in m.parts)]
    return [(k, j) for k in users for j in range(calls[0] + 1, k)] if calls else []


def hoist_user(transcript: Transcript, rng: random.Random) -> Transcript | None:
    """Move a user message up to a place after a call: the results between that place and
    the user message's old place now arrive after it (several at once)."""
    found = _hoists(transcript.messages)
    if not found:
        return None
    k, j = rng.choice(found)
    messages = list(transcript.messages)
    messages.insert(j, messages.pop(k).model_copy())
    return transcript.evolve(messages=tuple(messages))


def _damage(draw: st.DrawFn, transcript: Transcript, fmt: str) -> Transcript:
    """Up to three of the fuzzer's damages (tests/fuzzing/damages.py) or `hoist_user`."""
    rng = random.Random(draw(st.integers(0, 1 << 32)))
    # A call moved into a user message is left unrepaired by design (HN015 has no fix for
    # it), so the repairs around it are the keep guard's to refuse: not this test's case.
    choices = [*(d for d in DAMAGES if d is not call_into_user), hoist_user, hoist_user]
    for _ in range(draw(st.integers(0, 3))):
        for chosen in rng.sample(choices, len(choices)):
            damaged = chosen(transcript, rng)
            if damaged is not None:
                transcript = damaged
                break
    return transcript


@st.composite
def _settings(draw: st.DrawFn) -> histnorm.Settings:
    return histnorm.Settings(
        tail=draw(st.sampled_from(["keep", "close"])),
        unsafe_fixes=draw(st.booleans()),
        orphan_tool_call=draw(st.sampled_from(["drop", "synthesize"])),
        pending_approval=draw(st.sampled_from(["drop", "deny"])),
        profile=draw(st.sampled_from([None, *PROFILES])),
    )


@st.composite
def damaged_fixtures(draw: st.DrawFn) -> tuple[str, Transcript]:
    fixtures = [s for s in samples() if s.kind == "transcript" and ":" not in s.name]
    sample = draw(st.sampled_from(fixtures))  # the `*.json` fixtures that lint clean
    fmt, transcript = sample.fmt, sample.transcript
    assert transcript is not None
    return fmt, _damage(draw, transcript, fmt)


@st.composite
def damaged_conversions(draw: st.DrawFn, fmt: str) -> tuple[str, Transcript]:
    built = draw(canonical_transcripts())
    try:
        native = histnorm.encode(histnorm.convert(built, fmt))
        transcript = histnorm.load(orjson.dumps(native), format=fmt)
    except histnorm.HistnormError:
        assume(False)
    return fmt, _damage(draw, transcript, fmt)


KEEP = settings(
    max_examples=int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "40")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


PER_FORMAT = settings(
    max_examples=max(1, int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "40")) // 2),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _check_keeps(fmt: str, transcript: Transcript, chosen: histnorm.Settings) -> None:
    result = histnorm.fix(transcript, chosen)
    lost = _answered(transcript) - _present(result.transcript)
    assert not lost, f"{fmt}: fix lost answered results {dict(lost)} ({dict(result.applied)})"
    refused = [d for d in result.remaining if "not fixed: a fix would" in d.message]
    assert not refused, f"{fmt}: the keep guard had to refuse: {refused[0].message}"
    assert not histnorm.fix(result.transcript, chosen).changed, f"{fmt}: fix is not idempotent"


@KEEP
@given(damaged_fixtures(), _settings())
def test_fix_keeps_answered_results_of_damaged_fixtures(
    case: tuple[str, Transcript], chosen: histnorm.Settings
) -> None:
    _check_keeps(*case, chosen)


# trl: no conversion writes a new TRL record (where its prompt ends is the dataset's)
@pytest.mark.parametrize("fmt", sorted(set(histnorm.CODECS) - {"trl"}))
def test_fix_keeps_answered_results_in_every_format(fmt: str) -> None:
    @PER_FORMAT
    @given(damaged_conversions(fmt), _settings())
    def run(case: tuple[str, Transcript], chosen: histnorm.Settings) -> None:
        _check_keeps(*case, chosen)

    run()


@pytest.mark.parametrize(
    ("arguments", "dropped"),
    [
        ('{"city": "Oslo"', True),
        ("[]", True),
        ("42", True),
        ('{"city": NaN}', True),
        ([1, 2], True),
        ('{"city": "Oslo"}', False),
        ({"city": "Oslo"}, False),
        ('"{\\"city\\": \\"Oslo\\"}"', False),
        (None, False),
        ("", False),
    ],
)
def test_only_a_call_no_target_can_replay_may_take_its_results_with_it(
    arguments: object, dropped: bool
) -> None:
    """The keep guard lets a fix remove a result with its call only when the call's
    arguments hold no JSON object (HN109's drop); a merely misplaced call keeps them."""
    from histnorm.edit import unreplayable
    from histnorm.model import ToolCallPart

    assert unreplayable(ToolCallPart(call_id="c1", name="f", arguments=arguments)) is dropped


def test_a_result_is_not_moved_in_front_of_its_own_call() -> None:
    """HN101 under a results-first profile: a user message holding text, a call and its
    result cannot put the result first without stranding it before its call, so the
    diagnostic comes without a fix and `fix` leaves the message as it is."""
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather?"},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 C"},
                ],
            },
        ],
    }
    found = [d for d in histnorm.lint(body, profile="anthropic") if d.code == "HN101"]
    assert len(found) == 1 and found[0].fix is None
    assert "'toolu_1'" in found[0].message
    fixed = histnorm.fix(body, profile="anthropic", unsafe_fixes=True)
    parts = histnorm.encode(fixed.transcript)["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "tool_use", "tool_result"]


def _history(*results: tuple[str, str], calls: tuple[tuple[str, str], ...] = ()) -> Transcript:
    """An OpenAI Chat history: one assistant turn calling `calls` (id, arguments), then a
    tool message per result (call id, content)."""
    from histnorm.formats import get_codec

    made = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": a}} for i, a in calls
    ]
    value = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": made},
        *({"role": "tool", "tool_call_id": i, "content": c} for i, c in results),
    ]
    return get_codec("openai-chat").decode(value)


_TWO = (("c1", "{}"), ("c2", "{}"))


@pytest.mark.parametrize(
    ("after", "lost"),
    [
        (_history(("c1", "same"), ("c2", "same"), calls=_TWO), 0),  # as it was
        (_history(("c2", "same"), ("c1", "same"), calls=_TWO), 0),  # moved
        (_history(("c1", "same"), calls=_TWO), 1),  # one of two equal results gone
        (_history(calls=_TWO), 2),  # both gone, their calls kept
        (_history(("c1", "same and more"), ("c2", "same"), calls=_TWO), 0),  # text appended
        (_history(("c1", "other"), ("c2", "same"), calls=_TWO), 1),  # content rewritten
        (_history(("c2", "same"), calls=(("c2", "{}"),)), 1),  # c1 and its result gone
    ],
)
def test_dropped_answers_counts_the_results_a_repair_loses(after: Transcript, lost: int) -> None:
    """Results are compared by content (`result_key`, held as a digest): equal results
    count once each, a moved or extended one is kept, a rewritten or removed one is lost
    while its call can be replayed."""
    from histnorm.edit import dropped_answers

    before = _history(("c1", "same"), ("c2", "same"), calls=_TWO)
    assert dropped_answers(before, after) == lost


def test_dropped_answers_lets_a_result_go_with_its_unreplayable_call() -> None:
    """A result removed with a call no target can replay (arguments cut off) is not lost;
    the same removal of a replayable call's result is."""
    from histnorm.edit import dropped_answers

    cut = (("c1", '{"city": "Par'), ("c2", "{}"))
    before = _history(("c1", "a"), ("c2", "b"), calls=cut)
    assert dropped_answers(before, _history(("c2", "b"), calls=(("c2", "{}"),))) == 0
    assert dropped_answers(before, _history(("c1", "a"), calls=(("c1", cut[0][1]),))) == 1


def test_dropped_answers_finds_the_very_results_kept_without_reading_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A repair that keeps every answering result as the very part it was (a fix adds a
    message, or moves messages) loses none, and no content is serialised to tell."""
    from histnorm import edit

    before = _history(("c1", "a"), ("c2", "b"), calls=_TWO)
    moved = (before.messages[0], before.messages[1], before.messages[3], before.messages[2])
    note = before.messages[0].evolve(parts=before.messages[0].parts)  # a copy: another part
    keys: list[object] = []
    real = edit.result_key
    monkeypatch.setattr(edit, "result_key", lambda part: keys.append(part) or real(part))
    assert edit.dropped_answers(before, before.evolve(messages=moved)) == 0
    assert edit.dropped_answers(before, before.evolve(messages=(*moved, note))) == 0
    assert keys == []
    # a rewritten result is compared by key, as before
    rewritten = before.messages[3].evolve(parts=(before.messages[3].parts[0].evolve(content="x"),))
    after = before.evolve(messages=(*before.messages[:3], rewritten))
    assert edit.dropped_answers(before, after) == 1
    assert keys != []


def test_dropped_answers_counts_a_part_held_twice_as_two_results() -> None:
    """One part object answering two calls (the same id, called again in a later turn) is
    two results: a repair keeping it once loses one; the very part is found as often as
    it was held, no more."""
    from histnorm.edit import dropped_answers
    from histnorm.pairing import pair_transcript

    one = _history(("c1", "same"), calls=(("c1", "{}"),))
    user, call, answer = one.messages
    again = answer.evolve(parts=(answer.parts[0],))  # another message, the very same part
    twice = one.evolve(messages=(user, call, answer, call, again))
    assert len(pair_transcript(twice).result_calls) == 2
    assert dropped_answers(twice, twice) == 0
    assert dropped_answers(twice, one.evolve(messages=(user, call, answer, call))) == 1


def test_dropped_answers_keeps_a_result_replaced_with_a_placeholder() -> None:
    """A result whose content a fix replaced (`with_content`) still counts as kept."""
    from histnorm.edit import dropped_answers, with_content

    before = _history(("c1", "big"), calls=(("c1", "{}"),))
    message = before.messages[2]
    part = with_content(message.parts[0], "[removed]")
    after = before.evolve(messages=(*before.messages[:2], message.evolve(parts=(part,))))
    assert dropped_answers(before, after) == 0
