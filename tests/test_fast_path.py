"""The lint fast path gives what the full path gives, for every codec.

`proven_clean(value)` runs the selected structural rules on the codec's outline and asks
the content rules' flags (`engine.outline_clean`); the full path decodes and lints. For
every fixture, corpus transcripts with defects and fuzzed damage of the format fixtures
(`make fuzz` runs `test_fast_path_on_fuzzed_damage` with HISTNORM_FUZZ_EXAMPLES), under
every profile: an outline found clean lints without a single diagnostic, and the
outline of the native value is the outline of its model (`outline_helpers.check_outline`).
Then, end to end, the command-line runner reports and writes the same without the fast
path.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli import per_file
from histnorm_cli.job import Job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from outline_helpers import FAST, ROOT, SAMPLES, check_outline, generated
from test_fuzz_mutations import damaged

import histnorm
from histnorm.analysis.context import Context
from histnorm.analysis.outline import ALWAYS, CALLS, ORPHANED, PARTIAL, RESULTS, UNANSWERED
from histnorm.document import check as document_check
from histnorm.engine import check_rule, outline_clean, outline_flags, proven_clean
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, outline_of, seed_read
from histnorm.model import MediaPart, Message, TextPart, Transcript
from histnorm.profiles import PROFILES, get_profile
from histnorm.rules import ALL_RULES, oversized_content, resolve
from histnorm.settings import Settings


def check_needs(where: str, transcript: Transcript, outline: Any, chosen: Settings) -> None:
    """The `Rule.needs` promise: a rule whose check the engine skips, because the
    transcript holds no tool part of the kinds it names and its pairing found none of what
    it names (`Context.facts`), finds nothing when it is run."""
    facts = Context(outline, chosen).facts
    for rule in ALL_RULES:
        if rule.needs and not rule.needs & facts:
            found = list(rule.check(transcript, chosen))
            assert found == [], f"{where}: {rule.code} skipped (needs {rule.needs}), finds {found}"


def check_wants(where: str, transcript: Transcript, chosen: Settings) -> None:
    """The `Rule.wants` promise, which the engine keeps on the model path too: a content
    rule whose check is not run, because the outline shows none of the flags it wants,
    finds nothing when it is run."""
    flags = outline_flags(outline_of(transcript))
    for rule in ALL_RULES:
        if rule.check_outline is None and not rule.wants & flags:
            found = list(rule.check(transcript, chosen))
            assert found == [], f"{where}: {rule.code} skipped (wants {rule.wants}), finds {found}"


def check_read_json(where: str, transcript: Transcript, value: Any, chosen: Settings) -> None:
    """What a transcript decoded from a parsed value keeps of it (`seed_read`): every
    structural rule reports the same with that value and its JSON as without them."""
    outline = outline_of(transcript)
    try:
        raw: bytes | None = orjson.dumps(value)
    except TypeError:  # a number orjson does not write
        raw = None
    alone = Context(outline, chosen, transcript)
    for native, text in ((value, raw), (value, None)):
        read = Context(outline, chosen, transcript, native, text)
        for rule in ALL_RULES:
            if rule.check_outline is not None:
                got, want = list(rule.check_outline(read)), list(rule.check_outline(alone))
                assert got == want, f"{where}: {rule.code} reads the JSON otherwise"


def check_promises(fmt: str, where: str, value: Any) -> bool:
    """The representation promise, and under every profile: a clean outline lints clean,
    and the fast path decides as the outline of the model does (with the value's JSON,
    which size and media checks read: `Context.native`). True when the value was proven
    clean under some profile."""
    reference = check_outline(fmt, where, value)
    if reference is None:
        return False
    transcript = CODECS[fmt].decode(value)
    proven_anywhere = False
    for name in PROFILES:
        chosen = Settings(profile=name)
        clean = outline_clean(reference, chosen, value)
        check_needs(where, transcript, reference, chosen)
        check_wants(where, transcript, chosen)
        check_read_json(where, transcript, value, chosen)
        if clean:
            found = histnorm.lint(transcript, chosen)
            assert found == (), f"{where}: clean outline under {name}, yet lint reports {found}"
        fast = proven_clean(value, fmt, chosen)
        assert not fast or clean, f"{where}: proven clean under {name} by another outline"
        proven_anywhere = proven_anywhere or fast
    return proven_anywhere


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_fast_path_promises(fmt: str, where: str, value: Any) -> None:
    check_promises(fmt, where, value)


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_public_lint_is_the_same_without_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, fmt: str, where: str, value: Any
) -> None:
    """`histnorm.lint` of a native value or its bytes gives the same without the fast path."""
    fast = (histnorm.lint(value, format=fmt), histnorm.lint(orjson.dumps(value), format=fmt))
    monkeypatch.setattr(histnorm.engine, "checked_outline", lambda *args: (False, None))
    slow = (histnorm.lint(value, format=fmt), histnorm.lint(orjson.dumps(value), format=fmt))
    assert fast == slow


EXAMPLES = [
    (rule.code, n, example) for rule in ALL_RULES for n, example in enumerate(rule.examples)
]


@pytest.mark.parametrize(
    ("code", "n", "example"), EXAMPLES, ids=[f"{c}-{n}" for c, n, _ in EXAMPLES]
)
def test_no_rule_example_is_clean_where_its_rule_reports(code: str, n: int, example: Any) -> None:
    """Every documented defect is found on the fast path (a new rule's examples included)."""
    found = histnorm.lint(histnorm.load(example.bad, example.format), example.settings)
    if any(d.code == code for d in found):
        assert not proven_clean(example.bad, example.format, example.settings)
        decoded = CODECS[example.format].decode(example.bad)
        assert not outline_clean(outline_of(decoded), example.settings)
    if example.good is not None:
        check_promises(example.format, f"{code} example {n} fixed", example.good)
    check_promises(example.format, f"{code} example {n}", example.bad)


@pytest.mark.parametrize("fmt", FAST)
def test_most_clean_corpus_transcripts_are_proven_clean(fmt: str) -> None:
    """The fast path is taken: clean generated transcripts are proven clean."""
    values = generated(fmt, 0.0, 3, 60)
    plain = [v for v in values if proven_clean(v, fmt)]
    assert len(plain) >= 0.9 * len(values), f"{fmt}: only {len(plain)}/{len(values)} proven"


_ASKED: list[Any] = [
    {"role": "user", "content": "Weather?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
        ],
    },
]
"""A user's question and the assistant's call of a tool to answer it."""


def test_the_needs_promise_catches_a_rule_that_names_the_wrong_kinds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call with no result and no result anywhere: HN001 reports it, so HN001 naming
    `RESULTS` as what it needs would skip a real finding, which `check_needs` catches."""
    value = [*_ASKED, {"role": "user", "content": "Never mind."}]
    transcript = CODECS["openai-chat"].decode(value)
    outline = outline_of(transcript)
    assert outline.tool_kinds() == CALLS
    check_needs("right", transcript, outline, Settings())
    rules = [replace(r, needs=RESULTS) if r.code == "HN001" else r for r in ALL_RULES]
    monkeypatch.setattr(sys.modules[__name__], "ALL_RULES", rules)
    with pytest.raises(AssertionError, match="HN001 skipped"):
        check_needs("wrong", transcript, outline, Settings())


def test_a_rule_is_not_run_on_a_transcript_without_the_parts_it_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine skips a rule's check where `needs` says it finds nothing, on the fast
    path and on the model, and runs it where the parts are: HN001 (unanswered calls) only
    where the pairing leaves a call unanswered."""
    monkeypatch.setattr(histnorm.engine, "_SELECTED", {})  # the checks below are the spies
    asked: list[str] = []
    spied = [(r, r.check_outline) for r in ALL_RULES if r.code in ("HN001", "HN008")]
    for rule, inner in spied:

        def spy(context: Any, inner: Any = inner, code: str = rule.code) -> Any:
            asked.append(code)
            return inner(context)

        object.__setattr__(rule, "check_outline", spy)  # rules are frozen records
    try:
        _lint_with_and_without_calls(asked)
    finally:
        for rule, inner in spied:
            object.__setattr__(rule, "check_outline", inner)


def _lint_with_and_without_calls(asked: list[str]) -> None:
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert proven_clean(plain, "openai-chat")
    assert histnorm.lint(CODECS["openai-chat"].decode(plain)) == ()
    assert asked == []
    calls = [
        *_ASKED,
        {"role": "tool", "tool_call_id": "c1", "content": "4 C"},
        {"role": "assistant", "content": "4 C."},
    ]
    assert proven_clean(calls, "openai-chat")
    assert sorted(set(asked)) == ["HN008"]  # every call answered: HN001 finds nothing
    asked.clear()
    open_call = [*_ASKED, {"role": "user", "content": "Never mind."}]
    assert any(d.code == "HN001" for d in histnorm.lint(open_call))
    assert "HN001" in asked


def test_the_needs_promise_catches_a_rule_that_names_the_wrong_pairing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HN001 naming `ORPHANED` (results without a call) as what it needs would skip the
    unanswered call, which `check_needs` catches; `UNANSWERED` is what it needs."""
    value = [*_ASKED, {"role": "user", "content": "Never mind."}]
    transcript = CODECS["openai-chat"].decode(value)
    outline = outline_of(transcript)
    assert Context(outline, Settings()).facts == CALLS | UNANSWERED
    rules = [replace(r, needs=ORPHANED) if r.code == "HN001" else r for r in ALL_RULES]
    monkeypatch.setattr(sys.modules[__name__], "ALL_RULES", rules)
    with pytest.raises(AssertionError, match="HN001 skipped"):
        check_needs("wrong", transcript, outline, Settings())


def test_the_wants_promise_catches_a_rule_that_names_the_wrong_flags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An empty user message: HN005 reports it, so HN005 wanting `PARTIAL` rather than
    `EMPTY` would skip a real finding on the model path, which `check_wants` catches."""
    transcript = CODECS["openai-chat"].decode(
        [{"role": "user", "content": []}, {"role": "assistant", "content": "Hello."}]
    )
    assert any(d.code == "HN005" for d in histnorm.lint(transcript))
    check_wants("right", transcript, Settings())
    rules = [replace(r, wants=PARTIAL) if r.code == "HN005" else r for r in ALL_RULES]
    monkeypatch.setattr(sys.modules[__name__], "ALL_RULES", rules)
    with pytest.raises(AssertionError, match="HN005 skipped"):
        check_wants("wrong", transcript, Settings())


def test_a_content_rule_is_not_run_on_a_model_without_the_flags_it_wants() -> None:
    """On the model path (a transcript with something to report), the engine skips a
    content rule whose flags the outline does not show, and runs it where they are."""
    rule = next(r for r in ALL_RULES if r.code == "HN005")
    inner = rule.check
    asked: list[int] = []

    def spy(transcript: Transcript, chosen: Settings) -> Any:
        asked.append(len(transcript.messages))
        return inner(transcript, chosen)

    object.__setattr__(rule, "check", spy)  # rules are frozen records
    try:
        orphan = CODECS["openai-chat"].decode([*_ASKED, {"role": "user", "content": "Go on."}])
        assert [d.code for d in histnorm.lint(orphan)] == ["HN001"]
        assert asked == []
        empty = CODECS["openai-chat"].decode([*_ASKED, {"role": "user", "content": []}])
        assert "HN005" in {d.code for d in histnorm.lint(empty)}
        assert asked
    finally:
        object.__setattr__(rule, "check", inner)


def test_a_model_read_from_json_is_measured_on_that_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HN113 rules its string limit out on the JSON a decoded transcript was read from
    (`seed_read`), as on the fast path, and walks the strings of one without it."""
    walked: list[int] = []
    strings = oversized_content._strings

    def spy(transcript: Transcript, limit: int) -> Any:
        walked.append(limit)
        return strings(transcript, limit)

    monkeypatch.setattr(oversized_content, "_strings", spy)
    value = [*_ASKED, {"role": "user", "content": "Go on."}]  # HN001: not proven clean
    chosen = Settings(profile="openai-chat")
    rule = oversized_content.RULE
    read = seed_read(CODECS["openai-chat"].decode(value), None, value, orjson.dumps(value))
    assert check_rule(rule, read, chosen) == []
    assert walked == []
    assert check_rule(rule, CODECS["openai-chat"].decode(value), chosen) == []
    assert walked == [10_485_760]


def test_every_rule_checks_the_outline_or_names_its_flags() -> None:
    """A rule on the model declares the flags it needs, else lint always decodes for it."""
    for rule in ALL_RULES:
        assert rule.check_outline is not None or rule.wants != ALWAYS, rule.code


def test_a_system_message_without_text_is_what_the_rule_says() -> None:
    """HN108 passes over a system message without text; the fast path agrees with it."""
    transcript = Transcript(
        messages=(
            Message(role="user", parts=(TextPart(text="hi"),)),
            Message(role="system", parts=(MediaPart(uri="https://example.com/a.png"),)),
            Message(role="assistant", parts=(TextPart(text="hello"),)),
        ),
        format="openai-chat",
    )
    chosen = Settings(profile="anthropic", ignore=("HN113", "HN114"))  # they read the image
    assert histnorm.lint(transcript, chosen) == ()
    assert outline_clean(outline_of(transcript), chosen)


@settings(
    max_examples=int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "100")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_fast_path_on_fuzzed_damage(data: st.DataObject) -> None:
    fmt, name, broken, _, applied = data.draw(damaged())
    try:
        value = histnorm.encode(broken)
    except HistnormError:
        return  # damage the format cannot hold: there is nothing to read
    check_promises(fmt, f"{fmt}/{name} damaged by {applied}", value)


def _corpus_file(tmp_path: Path, fmt: str) -> Path:
    rows = [orjson.dumps(v) for v in generated(fmt, 0.3, 11, 80)]
    path = tmp_path / f"{fmt}.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


@pytest.mark.parametrize("fmt", FAST)
@pytest.mark.parametrize("mode", ["lint", "fix"])
def test_runner_is_the_same_without_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, mode: str
) -> None:
    path = _corpus_file(tmp_path, fmt)
    fixtures = [
        *ROOT.glob(f"formats/{fmt}/*.json*"),
        *ROOT.glob(f"rules/*/*.{fmt}.json"),
        *ROOT.glob("malformed/*"),
        *ROOT.glob("demo/*"),
    ]
    copies = []
    for n, fixture in enumerate(sorted(fixtures)):
        copy = tmp_path / f"{n}-{fixture.name}"  # fix writes in place
        copy.write_bytes(fixture.read_bytes())
        copies.append(str(copy))
    paths = [str(path), *copies]
    outcomes = []
    for fast_path in (True, False):
        if not fast_path:
            monkeypatch.setattr(document_check, "checked_outline", lambda *args: (False, None))
        job = Job(mode="fix" if mode == "fix" else "lint", settings=Settings(), diff=True)
        outcomes.append([per_file.run_file(p, job) for p in paths])  # diff only: nothing is written
    fast, slow = outcomes
    for a, b in zip(fast, slow, strict=True):
        assert a.diagnostics == b.diagnostics, a.path
        assert (a.diff, a.changed, a.error) == (b.diff, b.changed, b.error), a.path
    assert any(o.diagnostics or o.changed for o in fast), "the corpus has defects to find"


@pytest.mark.parametrize(
    "value",
    [
        [{"role": ["user"], "content": "hi"}],
        [{"role": {"a": 1}, "content": "hi"}],
        [{"role": "user", "content": "hi", "name": ["x"]}],
        [{"role": "assistant", "tool_calls": [{"id": ["c"], "function": {}}]}],
        [["user", "hi"]],
        {"messages": None},
        None,
        42,
    ],
)
def test_odd_values_never_raise(value: Any) -> None:
    """Odd types anywhere give an outline that keeps the promises, or a clean error."""
    for fmt in CODECS:
        check_promises(fmt, f"{fmt}: {value!r}", value)


def test_huge_integers_survive_the_fast_path_and_the_rules(tmp_path: Path) -> None:
    """A clean line is proven clean from a typed parse (a huge integer reads as a float
    there) and kept byte for byte; a line the rules must fix is read exactly."""
    huge = b"123456789012345678901234567890"
    plain = b'{"seed":' + huge + b',"messages":[{"role":"user","content":"hi"}]}'
    broken = (
        b'{"seed":' + huge + b',"messages":[{"role":"user","content":"hi"},'
        b'{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",'
        b'"function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"again"}]}'
    )
    path = tmp_path / "huge.jsonl"
    path.write_bytes(plain + b"\n" + broken + b"\n")
    outcome = per_file.run_file(str(path), Job(mode="fix", settings=Settings(), write=True))
    assert outcome.changed and outcome.error is None
    first, second = path.read_bytes().splitlines()
    assert first == plain
    assert second != broken and second.startswith(b'{"seed":' + huge + b",")


def test_a_rule_is_not_run_under_a_profile_it_cannot_report_under(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Rule.applies`: HN107 (consecutive roles) checks what only some profiles limit; the
    fast path plans without it and the model path does not run it under the others, and
    both run it where the profile asks for alternating roles."""
    monkeypatch.setattr(histnorm.engine, "_SELECTED", {})  # the plans below hold the spy
    rule = resolve("HN107")
    inner = rule.check_outline
    asked: list[str] = []

    def spy(context: Any) -> Any:
        asked.append(context.profile.name)
        assert inner is not None
        return inner(context)

    twice = [
        {"role": "user", "content": "Hi."},
        {"role": "user", "content": "Are you there?"},
        {"role": "assistant", "content": "Yes."},
    ]
    object.__setattr__(rule, "check_outline", spy)  # rules are frozen records
    try:
        assert rule.applies is not None and not rule.applies(get_profile("openai-chat"))
        assert proven_clean(twice, "openai-chat", Settings(profile="openai-chat"))
        found = histnorm.lint(twice, format="openai-chat", settings=Settings(profile="openai-chat"))
        assert "HN107" not in [d.code for d in found]
        assert asked == []
        portable = Settings(profile="portable")
        assert not proven_clean(twice, "openai-chat", portable)
        found = histnorm.lint(twice, format="openai-chat", settings=portable)
        assert "HN107" in [d.code for d in found]
        assert set(asked) == {"portable"}
    finally:
        object.__setattr__(rule, "check_outline", inner)
