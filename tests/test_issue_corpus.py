"""The issue corpus: one folder per public report, holding the shape it describes.

`fixtures/issues/<owner>__<repo>__<N>/` names the report it was built from (a GitHub
issue or pull request) and holds `bad.<ext>` (the shape the report shows), `clean.<ext>`
(its twin, as the target accepts it) and `expect.json`: the report (`issue`), what the
shape is (`shape`), the input `format`, the `profile` it is linted under (the target the
report was against), the `codes` the bad file must report, and optional `settings`
(keyword arguments for `histnorm.Settings`). The bad file must report every listed code
and the clean twin must report nothing at all under the same profile.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

import histnorm
from histnorm.profiles import get_profile

ROOT = Path(__file__).resolve().parent.parent
ISSUES = ROOT / "fixtures" / "issues"
SLUG = re.compile(r"[A-Za-z0-9][\w.-]*__[\w.-]+__[0-9]+")
KEYS = {"issue", "shape", "format", "profile", "codes", "settings"}


def _cases() -> list[Path]:
    return sorted(p for p in ISSUES.iterdir() if p.is_dir())


def _expect(folder: Path) -> dict[str, Any]:
    expect: dict[str, Any] = orjson.loads((folder / "expect.json").read_bytes())
    return expect


def _one(folder: Path, stem: str) -> Path:
    found = sorted(folder.glob(f"{stem}.*"))
    assert len(found) == 1, f"{folder.name}: want one {stem}.<ext>, found {found}"
    return found[0]


def _codes(folder: Path, stem: str) -> list[str]:
    expect = _expect(folder)
    settings = histnorm.Settings(profile=expect["profile"], **expect.get("settings", {}))
    data = _one(folder, stem).read_bytes()
    return [d.code for d in histnorm.lint(data, settings, format=expect["format"])]


CASES = _cases()


def test_the_corpus_has_cases() -> None:
    assert len(CASES) >= 1


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_case_is_named_after_its_report(folder: Path) -> None:
    expect = _expect(folder)
    assert set(expect) <= KEYS and {"issue", "shape", "format", "profile", "codes"} <= set(expect)
    assert SLUG.fullmatch(folder.name), folder.name
    owner, repo, number = folder.name.split("__")
    assert expect["issue"] == f"{owner}/{repo}#{number}"
    assert expect["codes"], "a case names at least one code"
    get_profile(expect["profile"])


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_bad_reports_the_expected_codes(folder: Path) -> None:
    found = _codes(folder, "bad")
    missing = [code for code in _expect(folder)["codes"] if code not in found]
    assert not missing, f"{folder.name}: expected {missing}, got {found}"


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_clean_twin_stays_clean(folder: Path) -> None:
    assert _codes(folder, "clean") == []
