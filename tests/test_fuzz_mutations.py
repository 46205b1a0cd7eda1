"""Mutation fuzzing in the suite: the driver's own cases (tests/fuzzing), a few hundred.

Each case damages a valid fixture (a transcript of any format, a Claude Code session
file, a transcript-per-line JSONL file) with `tests/fuzzing/damages.py` and checks the
invariants of `tests/fuzzing/invariants.py`: `fix` succeeds; its output decodes in the
same format; no error is left but the allowed ones; fixing again changes nothing (for
files: the same bytes); untouched parts are kept, in order; clean lines are copied.
Case `i` here is `PYTHONPATH=tests python -m fuzzing --seed 0 --case i`; `make fuzz`
runs 1 000 000 of them. `HISTNORM_FUZZ_EXAMPLES` sets how many run here (default 300).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from fuzzing import __main__ as driver
from fuzzing import cases
from fuzzing.cases import Failure, FileRun, build, minimize, run_case, samples, transcript_case
from fuzzing.damages import DAMAGES, LINE_DAMAGES
from fuzzing.invariants import FILE_INVARIANTS, number_spelling_kept
from hypothesis import strategies as st

import histnorm
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.model import Transcript

ERROR = Severity.ERROR

SEED = 0
EXAMPLES = int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "300"))


@pytest.mark.parametrize("case", range(EXAMPLES))
def test_fuzz_case(case: int) -> None:
    failure = run_case(SEED, case, shrink=False)
    assert failure is None, f"{failure.invariant}: {failure.where}: {failure.message}"


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, str, Transcript, list[bool], list[str]]:
    """A damaged transcript sample: format, fixture, transcript, kept flags, damages."""
    sample, run, applied = transcript_case(SEED, draw(st.integers(0, 1 << 30)))
    return sample.fmt, sample.name, run.broken, run.kept, applied


def test_every_format_and_layout_is_sampled() -> None:
    found = {(s.kind, s.fmt) for s in samples()}
    assert {fmt for kind, fmt in found if kind == "transcript"} == set(histnorm.CODECS)
    assert ("session", "claude-code") in found
    assert {fmt for kind, fmt in found if kind == "dataset"} >= {"anthropic", "sharegpt"}


def test_a_case_is_the_same_every_time() -> None:
    runs = [build(7, 123)[1] for _ in range(2)]
    assert [type(r) for r in runs] == [type(runs[0])] * 2
    first, second = (r.data if isinstance(r, FileRun) else r.broken for r in runs)
    assert first == second


def test_every_damage_applies_somewhere() -> None:
    rng = random.Random(1)
    transcripts = [s.transcript for s in samples() if s.transcript is not None]
    for damage in DAMAGES:
        assert any(damage(t, rng) is not None for t in transcripts), damage.__name__
    sessions = [list(s.lines) for s in samples() if s.kind == "session"]
    for line_damage in LINE_DAMAGES:
        assert any(line_damage(lines, rng) is not None for lines in sessions)


def test_a_damage_does_not_change_its_input() -> None:
    sample = next(s for s in samples() if s.transcript is not None and len(s.transcript.messages))
    assert sample.transcript is not None
    before = sample.transcript.model_dump()
    for damage in DAMAGES:
        damage(sample.transcript, random.Random(3))
    assert sample.transcript.model_dump() == before


def test_the_driver_runs_cases_over_processes(capsys: pytest.CaptureFixture[str]) -> None:
    assert driver.main(["--cases", "40", "--jobs", "2", "--seed", "3"]) == 0
    assert "fuzz: 40 cases (seed 3, from 0)" in capsys.readouterr().out


def test_a_failure_prints_its_case_and_writes_its_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails(seed: int, case: int) -> Failure | None:
        return Failure(seed, case, "x/y.json", "fix_succeeds", "boom", b"{}", ".json")

    monkeypatch.setattr(driver, "run_case", fails)
    assert driver.main(["--seed", "5", "--case", "17", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL --seed 5 --case 17: fix_succeeds: x/y.json: boom" in out
    assert (tmp_path / "seed5-case17.json").read_bytes() == b"{}"


def test_minimize_keeps_the_lines_that_still_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    def needs_b(run: FileRun) -> str | None:
        return "has b" if b"b" in run.data.splitlines() else None

    monkeypatch.setattr(cases, "FILE_INVARIANTS", [needs_b])
    run = FileRun("claude-code", "s.jsonl", b"a\nb\nc\n", lambda data: pytest.fail())
    assert minimize(run, "needs_b").data == b"b\n"


def test_number_spelling_is_a_file_invariant() -> None:
    assert number_spelling_kept in FILE_INVARIANTS


def test_number_spelling_is_kept_in_rewritten_lines() -> None:
    problems = [
        number_spelling_kept(run)
        for case in range(200)
        if isinstance(run := build(SEED, case)[1], FileRun)
    ]
    assert not any(problems), next(p for p in problems if p)


def test_replay_checks_a_reproducer_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(cases.ROOT / "claude-code" / "tool-use.jsonl")
    assert driver.main(["--replay", str(path), "--format", "claude-code"]) == 0
    assert capsys.readouterr().out.endswith(": ok\n")


def test_a_refused_fix_is_a_fuzz_failure() -> None:
    """A fix the conservation check refused took more than it owns: the fuzzer says so."""
    from fuzzing.invariants import FILE_INVARIANTS as FILES
    from fuzzing.invariants import MODEL_INVARIANTS, _not_conserved, file_fixes_conserve

    assert file_fixes_conserve in FILES and any(
        check.__name__ == "fixes_conserve" for check in MODEL_INVARIANTS
    )
    refused = Diagnostic(
        "HN001", "x", "m (not fixed: HN001's fix would drop the value 'a' at /1/name)", ERROR
    )
    assert _not_conserved([refused]) == (
        "a fix did not conserve: HN001's fix would drop the value 'a' at /1/name"
    )
    tried = Diagnostic("HN107", "x", "m (not fixable: HN107's fix would drop 'a')", ERROR)
    assert _not_conserved([tried]) is None  # a merge not offered is no bug
