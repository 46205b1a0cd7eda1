"""Rule fixtures: every case under fixtures/rules/<CODE>/ is linted, fixed and snapshotted.

A case is a plain native transcript `<case>.<format>.json` (`<format>` names a codec,
such as `openai-chat` or `meai`), optionally with a sibling
`<case>.<format>.settings.json` holding keyword arguments for `histnorm.Settings`. Each
case must report the code of its folder, except negative cases whose name starts with
`ok-`, which must not report it. The snapshots record the diagnostics and the fixed
native output (in native key order); the assertions check the contracts every fix must
keep (nothing fixable is left, a second fix changes nothing, and a transcript with
nothing to fix is written back byte for byte).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from syrupy.extensions.json import JSONSnapshotExtension

import histnorm
import histnorm.rules
from histnorm.diagnostic import Diagnostic
from histnorm.engine import fix_allowed

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "fixtures" / "rules"
SETTINGS_SUFFIX = ".settings.json"
CODES = tuple(f"HN{n:03d}" for n in range(1, 12))
"""The catalogue rules: each has 2 to 5 cases, in every format that can express it."""


@dataclass(frozen=True)
class Case:
    """One fixture file and the settings it runs under."""

    code: str
    name: str
    format: str
    path: Path
    options: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.code}-{self.name}.{self.format}"

    @property
    def negative(self) -> bool:
        return self.name.startswith("ok-")

    @property
    def settings(self) -> histnorm.Settings:
        return histnorm.Settings(**self.options)

    def raw(self) -> Any:
        return orjson.loads(self.path.read_bytes())

    def load(self) -> histnorm.Transcript:
        return histnorm.load(self.path.read_bytes(), format=self.format)


def _split(path: Path) -> tuple[str, str]:
    name, _, fmt = path.name.removesuffix(".json").rpartition(".")
    return name, fmt


def collect_cases() -> list[Case]:
    cases = []
    for path in sorted(RULES_DIR.glob("*/*.json")):
        if path.name.endswith(SETTINGS_SUFFIX):
            continue
        name, fmt = _split(path)
        settings_path = path.with_name(path.name.removesuffix(".json") + SETTINGS_SUFFIX)
        options = orjson.loads(settings_path.read_bytes()) if settings_path.exists() else {}
        cases.append(Case(path.parent.name, name, fmt, path, options))
    return cases


CASES = collect_cases()
PARAMS = [pytest.param(case, id=case.id) for case in CASES]


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


def diagnostic_record(diagnostic: Diagnostic) -> dict[str, Any]:
    loc = diagnostic.location
    offer = diagnostic.fix
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "severity": diagnostic.severity.value,
        "message_index": loc.message_index,
        "part_index": loc.part_index,
        "pointer": loc.pointer,
        "fix": None
        if offer is None
        else {"applicability": offer.applicability.value, "title": offer.title},
    }


def ordered(value: Any) -> Any:
    """`value` with every object as an OrderedDict, so the snapshot keeps native key order."""
    if isinstance(value, dict):
        return OrderedDict((k, ordered(v)) for k, v in value.items())
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


def allowed(diagnostics: tuple[Diagnostic, ...], settings: histnorm.Settings) -> list[Diagnostic]:
    return [d for d in diagnostics if fix_allowed(d, settings)]


# --------------------------------------------------------------------------- layout


def test_fixture_layout():
    assert CASES, "no rule fixtures found"
    folders = {p.name for p in RULES_DIR.iterdir() if p.is_dir()}
    assert set(CODES) <= folders
    for folder in folders:
        assert re.fullmatch(r"HN\d{3}", folder), f"{folder} is not a rule code"
        histnorm.rules.resolve(folder)
    for case in CASES:
        assert case.format in histnorm.CODECS, f"{case.path}: unknown format {case.format!r}"
        assert case.name and "." not in case.name, f"{case.path}: bad case name"
    for path in RULES_DIR.glob(f"*/*{SETTINGS_SUFFIX}"):
        target = path.with_name(path.name.removesuffix(SETTINGS_SUFFIX) + ".json")
        assert target.exists(), f"{path} has no transcript next to it"


@pytest.mark.parametrize("code", CODES)
def test_every_code_has_two_to_five_cases(code):
    names = {case.name for case in CASES if case.code == code}
    assert 2 <= len(names) <= 5, f"{code}: {sorted(names)}"
    assert any(not case.negative for case in CASES if case.code == code)


def test_approval_cases_are_meai_only():
    assert {case.format for case in CASES if case.code == "HN003"} <= {
        "meai",
        "agent-framework",
        "vercel-ai",
    }


# --------------------------------------------------------------------------- per case


@pytest.mark.parametrize("case", PARAMS)
def test_fixture_is_read_in_its_named_format(case: Case):
    assert histnorm.detect_format(case.raw()) == case.format
    transcript = case.load()
    assert orjson.dumps(histnorm.encode(transcript)) == orjson.dumps(case.raw())


@pytest.mark.parametrize("case", PARAMS)
def test_snapshot(case: Case, snapshot_json):
    settings = case.settings
    transcript = case.load()
    diagnostics = histnorm.lint(transcript, settings)
    result = histnorm.fix(transcript, settings)
    record = {
        "settings": case.options,
        "diagnostics": [diagnostic_record(d) for d in diagnostics],
        "applied": dict(sorted(result.applied.items())),
        "remaining": [d.code for d in result.remaining],
        "fixed": histnorm.encode(result.transcript),
    }
    assert ordered(record) == snapshot_json


@pytest.mark.parametrize("case", PARAMS)
def test_case_reports_its_code(case: Case):
    codes = {d.code for d in histnorm.lint(case.load(), case.settings)}
    if case.negative:
        assert case.code not in codes, f"negative case reports {case.code}"
    else:
        assert case.code in codes, f"expected {case.code}, got {sorted(codes)}"


@pytest.mark.parametrize("case", PARAMS)
def test_nothing_fixable_remains(case: Case):
    settings = case.settings
    fixed = histnorm.fix(case.load(), settings).transcript
    left = allowed(histnorm.lint(fixed, settings), settings)
    assert not left, [diagnostic_record(d) for d in left]


@pytest.mark.parametrize("case", PARAMS)
def test_fix_is_idempotent(case: Case):
    settings = case.settings
    once = histnorm.fix(case.load(), settings)
    twice = histnorm.fix(once.transcript, settings)
    assert twice.transcript == once.transcript
    assert dict(twice.applied) == {}
    reread = histnorm.fix(histnorm.dump(once.transcript), settings, format=case.format)
    assert dict(reread.applied) == {}


@pytest.mark.parametrize("case", PARAMS)
def test_unfixable_input_is_written_back_byte_for_byte(case: Case):
    settings = case.settings
    transcript = case.load()
    result = histnorm.fix(transcript, settings)
    if allowed(histnorm.lint(transcript, settings), settings):
        assert result.changed
        return
    assert not result.changed
    assert orjson.dumps(histnorm.encode(result.transcript)) == orjson.dumps(case.raw())


@pytest.mark.parametrize("case", PARAMS)
def test_lint_and_fix_accept_the_raw_document(case: Case):
    raw = case.raw()
    before = orjson.dumps(raw)
    by_value = histnorm.fix(raw, case.settings, format=case.format)
    assert orjson.dumps(raw) == before
    assert by_value.transcript == histnorm.fix(case.load(), case.settings).transcript
