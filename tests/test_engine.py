"""The engine: selection, severities, scope, fix gating, the fixed-point loop."""

from __future__ import annotations

import copy
import re
from dataclasses import replace

import pytest

import histnorm
from histnorm import engine
from histnorm.analysis.outline import ALWAYS
from histnorm.diagnostic import Severity
from histnorm.rule import Rule
from histnorm.rules import BY_CODE
from histnorm.settings import Scope, Settings, TailMode

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
NEUTRAL = "meai"  # a profile under which the blank text in BROKEN is a defect (HN004)
BROKEN = [
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": " ", "tool_calls": [CALL]},
    {"role": "user", "content": "hurry"},
    {"role": "tool", "tool_call_id": "c1", "content": "done"},
    {"role": "tool", "tool_call_id": "zz", "content": "stray"},
]


def codes(diagnostics):
    return [d.code for d in diagnostics]


def test_lint_finds_every_defect_sorted_by_position():
    assert codes(histnorm.lint(BROKEN, profile=NEUTRAL)) == ["HN004", "HN008", "HN002"]


def test_select_and_ignore_by_code_or_name():
    chosen = histnorm.lint(BROKEN, select=("empty-text", "HN002"), profile=NEUTRAL)
    assert codes(chosen) == ["HN004", "HN002"]
    ignored = histnorm.lint(BROKEN, ignore=("hn004", "displaced-tool-result"), profile=NEUTRAL)
    assert codes(ignored) == ["HN002"]


def test_unknown_rule_names_are_errors():
    with pytest.raises(histnorm.HistnormError, match="unknown rule 'HN999'"):
        histnorm.lint(BROKEN, select=("HN999",))
    with pytest.raises(histnorm.HistnormError, match="unknown rule 'nope'"):
        histnorm.lint(BROKEN, severity={"nope": "info"})


def test_the_settings_asked_about_last_are_found_again(monkeypatch):
    monkeypatch.setattr(engine, "_SELECTED", {})
    settings = Settings(select=("HN001", "HN002"), severity={"HN001": "info"})
    first = engine._selection(settings)
    assert engine._selection(settings) is first
    assert engine._SELECTED[engine._LAST][0] is settings  # found by identity, not hashed
    other = Settings(select=("HN001", "HN002"), severity={"HN001": "info"})
    assert engine._selection(other) is first  # equal fields: the same selection
    assert [rule.code for rule in first.rules] == ["HN001", "HN002"]
    wider = Settings(select=("HN001", "HN002", "HN005"))
    assert [rule.code for rule in engine._selection(wider).rules] == ["HN001", "HN002", "HN005"]
    # the one field a caller could still change after the settings were made: a rule its
    # severities name is checked again when they change, asked about last or not
    assert engine._selection(settings) is first
    settings.severity["nope"] = Severity.INFO
    with pytest.raises(histnorm.HistnormError, match="unknown rule 'nope'"):
        engine._selection(settings)


def test_a_rule_that_cannot_report_under_the_profile_is_not_asked(monkeypatch):
    """Which rules can report under a profile (`Rule.applies`) is worked out once per
    selection and profile: lint, its trial fix and fix ask only those."""
    monkeypatch.setattr(engine, "_SELECTED", {})
    asked: list[str] = []
    limited = BY_CODE["HN105"]  # duplicate call ids: not under openai-chat's profile
    inner = limited.applies
    assert inner is not None

    def applies(profile, inner=inner):
        asked.append(profile.name)
        return inner(profile)

    object.__setattr__(limited, "applies", applies)  # rules are frozen records
    try:
        settings = Settings(profile="openai-chat")
        assert [d.code for d in histnorm.lint(BROKEN, settings=settings)]
        first = len(asked)
        for _ in range(3):
            assert [d.code for d in histnorm.lint(BROKEN, settings=settings)]
            assert histnorm.fix(BROKEN, settings=settings).changed
        assert set(asked) == {"openai-chat"} and len(asked) == first <= 2  # the two plans
        portable = Settings(profile="portable")
        assert histnorm.lint(BROKEN, settings=portable)
        assert "portable" in asked
    finally:
        object.__setattr__(limited, "applies", inner)


def test_unknown_setting_is_rejected():
    with pytest.raises(TypeError, match="colour"):
        Settings(colour="red")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"tail": "q"}, "tail: expected 'keep' or 'close', got 'q'"),
        ({"select": "HN001"}, "select: expected a list of rule names, got 'HN001'"),
        ({"claude_code_line_limit": 0}, "claude_code_line_limit: expected an integer greater"),
        ({"unsafe_fixes": "maybe"}, "unsafe_fixes: expected a boolean, got 'maybe'"),
        ({"severity": {"HN001": "loud"}}, "severity.HN001: expected 'error', 'warning' or"),
        ({"profile": "nope"}, "profile: unknown profile 'nope'"),
    ],
)
def test_a_setting_it_cannot_take_is_a_settings_error(given, said):
    with pytest.raises(histnorm.SettingsError, match=re.escape(said)):
        Settings(**given)
    with pytest.raises(ValueError, match=re.escape(said)):  # as pydantic's error was
        histnorm.lint(BROKEN, **given)


def test_settings_take_lists_and_names_and_keep_their_normal_form():
    settings = Settings(
        select=["HN001"], severity={"HN001": "info"}, tail="keep", profile="anthropic"
    )
    assert settings.select == ("HN001",) and settings.severity == {"HN001": Severity.INFO}
    assert settings.tail is TailMode.KEEP and settings.severity["HN001"] is Severity.INFO
    assert Settings.model_validate(settings.model_dump()) == settings
    assert settings.model_copy(update={"ignore": ["HN002"]}).ignore == ("HN002",)
    assert "HN018" in (Settings.model_fields["claude_code_line_limit"].description or "")


def test_severity_override():
    found = histnorm.lint(BROKEN, severity={"HN002": "warning"})
    assert {d.code: d.severity for d in found}["HN002"] is Severity.WARNING


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"HN002": "warning", "orphan-tool-result": "info"}, Severity.WARNING),
        ({"orphan-tool-result": "info", "HN002": "warning"}, Severity.INFO),
    ],
)
def test_a_rule_named_twice_takes_the_first_severity_given(given, expected):
    found = histnorm.lint(BROKEN, severity=given)
    assert {d.code: d.severity for d in found}["HN002"] is expected


def test_fix_repairs_everything_in_fix_order():
    result = histnorm.fix(BROKEN, profile=NEUTRAL)
    assert dict(result.applied) == {"HN008": 1, "HN002": 1, "HN004": 1}
    assert result.remaining == ()
    assert histnorm.encode(result.transcript) == [
        BROKEN[0],
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        BROKEN[3],
        BROKEN[2],
    ]


def test_fix_never_mutates_and_is_idempotent():
    value = copy.deepcopy(BROKEN)
    transcript = histnorm.load(value)
    once = histnorm.fix(transcript)
    assert value == BROKEN
    twice = histnorm.fix(once.transcript)
    assert twice.transcript == once.transcript
    assert not twice.changed


def test_untouched_messages_keep_their_identity():
    transcript = histnorm.load(BROKEN)
    fixed = histnorm.fix(transcript).transcript
    assert fixed.messages[0] is transcript.messages[0]
    assert fixed.messages[3] is transcript.messages[2]


def test_unsafe_fixes_are_gated():
    differing = [
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
        {"role": "tool", "tool_call_id": "c1", "content": "b"},
    ]
    (diagnostic,) = histnorm.lint(differing)
    assert diagnostic.fix.applicability.value == "unsafe"
    assert not histnorm.fix(differing).changed
    assert codes(histnorm.fix(differing).remaining) == ["HN010"]
    assert histnorm.fix(differing, unsafe_fixes=True).applied == {"HN010": 1}


def test_fail_policy_reports_without_a_fix():
    history = [
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "user", "content": "?"},
    ]
    (diagnostic,) = histnorm.lint(history, orphan_tool_call="fail")
    assert diagnostic.fix is None
    assert not histnorm.fix(history, orphan_tool_call="fail").changed


def test_tail_keep_and_close():
    history = [
        {"role": "user", "content": "?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
    ]
    assert codes(histnorm.lint(history)) == ["HN011"]
    assert not histnorm.fix(history).changed
    assert codes(histnorm.lint(history, tail=TailMode.CLOSE)) == ["HN001"]
    closed = histnorm.fix(history, tail="close")
    assert histnorm.encode(closed.transcript) == history[:1]


def test_scope_limits_reports_to_the_tail_or_marked_messages():
    history = [
        {"role": "user", "contents": [{"$type": "text", "text": ""}]},
        {"role": "user", "contents": [{"$type": "text", "text": "hi"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": " "}]},
        {
            "role": "assistant",
            "additionalProperties": {"agent_framework.partial_response": True},
            "contents": [{"$type": "text", "text": "\n"}],
        },
    ]
    assert len(histnorm.lint(history)) == 3
    assert [d.location.message_index for d in histnorm.lint(history, scope=Scope.TAIL)] == [2, 3]
    assert [d.location.message_index for d in histnorm.lint(history, scope="marked")] == [3]


def _cycling_rule(monkeypatch, steps):
    """Register a rule whose fix flips the first text part between two values forever."""
    base = BY_CODE["HN004"]

    def check(transcript, settings):
        yield base.diagnostic("flip", message_index=0, part_index=0, fix_title="flip")

    def flip(transcript, diagnostics, settings):
        message = transcript.messages[0]
        text = steps[message.parts[0].text]
        part = message.parts[0].evolve(text=text, native=None)
        return transcript.evolve(messages=(message.evolve(parts=(part,)),))

    rule = replace(base, check=check, fix=flip, wants=ALWAYS)  # it reports on any text
    monkeypatch.setattr(engine, "ALL_RULES", (rule,))
    monkeypatch.setattr(engine, "FIX_ORDER", (rule,))
    monkeypatch.setattr(engine, "resolve", lambda name: rule)
    monkeypatch.setattr(engine, "_SELECTED", {})  # selections of the real rules
    return rule


def test_a_fix_cycle_is_an_internal_error(monkeypatch):
    _cycling_rule(monkeypatch, {"a": "b", "b": "a"})
    with pytest.raises(engine.FixDidNotConverge, match="cycle"):
        histnorm.fix([{"role": "user", "content": "a"}])


def test_a_fix_that_never_settles_is_an_internal_error(monkeypatch):
    steps = {str(i): str(i + 1) for i in range(100)}
    _cycling_rule(monkeypatch, steps)
    with pytest.raises(engine.FixDidNotConverge, match="did not settle"):
        histnorm.fix([{"role": "user", "content": "0"}])


def test_a_fix_returning_garbage_is_an_internal_error(monkeypatch):
    rule = _cycling_rule(monkeypatch, {})
    bad = replace(rule, fix=lambda t, d, s: None)
    monkeypatch.setattr(engine, "FIX_ORDER", (bad,))
    monkeypatch.setattr(engine, "ALL_RULES", (bad,))
    with pytest.raises(engine.FixDidNotConverge, match="returned NoneType"):
        histnorm.fix([{"role": "user", "content": "0"}])


def test_rules_are_plain_records():
    assert isinstance(histnorm.RULES[1], Rule)
    assert histnorm.RULES[1].code == "HN001"


@pytest.mark.parametrize("call", ["lint", "fix"])
def test_no_rule_runs_twice_on_one_transcript(call, monkeypatch):
    """A lint with its trial fix, or a fix with the lint that ends it, runs each rule once
    per transcript it looks at: what a pass that changed nothing found is what the final
    lint reports, and what `lint` found is where its trial fix starts."""
    from histnorm.formats import get_codec

    transcript = get_codec("openai-chat").decode(copy.deepcopy(BROKEN))
    settings = Settings(profile=NEUTRAL)
    asked: list[tuple[str, int]] = []
    kept = []  # every transcript looked at stays alive, so no two share an id
    real = engine.check_rule

    def spy(rule, seen, chosen, *look):
        asked.append((rule.code, id(seen)))
        kept.append(seen)
        return real(rule, seen, chosen, *look)

    monkeypatch.setattr(engine, "check_rule", spy)
    run = engine.lint if call == "lint" else engine.fix
    result = run(transcript, settings)
    assert result
    assert len(set(asked)) == len(asked), sorted(c for c in asked if asked.count(c) > 1)
    assert len({seen for _, seen in asked}) >= 2, "the fix changed the transcript"
