"""The rule pages and summaries say what the rules do: real profile names, severities
that lint reports, and citations of documents that exist."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.catalog import describe
from typer.testing import CliRunner

import histnorm
from histnorm.profiles import PROFILES, RULES_OF, is_default
from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
PROFILE_LIST = re.compile(r"\(profiles: ([^)]*)\)")
NOT_A_NAME = {"information", "under", "warning", "info"}


def _driving(code: str) -> set[str]:
    """The profiles with a constraint of their own (not the default) that drives `code`."""
    return {
        profile.name
        for profile in PROFILES.values()
        for constraint, codes in RULES_OF.items()
        if code in codes and not is_default(profile, constraint)
    }


def _rules_listed() -> list[dict[str, str]]:
    result = CliRunner().invoke(app, ["rules", "--output-format", "json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, str]] = orjson.loads(result.stdout)
    return rows


def test_rules_name_profiles_as_profile_accepts_them():
    """`histnorm rules` names each profile as `--profile` takes it, and exactly the
    profiles whose own constraints drive the rule."""
    rows = _rules_listed()
    assert [row["code"] for row in rows] == [rule.code for rule in ALL_RULES]
    for row in rows:
        found = PROFILE_LIST.search(row["summary"])
        if found is None:
            continue
        named = [w for w in re.findall(r"[a-z][a-z-]*", found.group(1)) if w not in NOT_A_NAME]
        assert set(named) <= set(PROFILES), f"{row['code']} names {set(named) - set(PROFILES)}"
        assert set(named) == _driving(row["code"]), row["code"]


SEVERITY_LINE = re.compile(r"^Severity: (.+)$", re.M)
LEVELS = ("error", "warning", "info")


def _reported() -> dict[str, set[str]]:
    """The severities lint reports for each code over every fixture file and every rule
    example, under its own settings and under each profile."""
    found: dict[str, set[str]] = {}
    profiles = [histnorm.Settings(profile=p) for p in PROFILES]

    def run(data: bytes, name: str, settings: list[histnorm.Settings], fmt: str | None) -> None:
        for each in settings:
            result = histnorm.lint_document(data, path_hint=name, settings=each, format=fmt)
            for d in result.diagnostics:
                found.setdefault(d.code, set()).add(d.severity.value)

    rules_dir = ROOT / "fixtures" / "rules"
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.suffix not in (".json", ".jsonl") or path.name.endswith(".settings.json"):
            continue
        own = path.with_name(path.name.removesuffix(".json") + ".settings.json")
        extra = [histnorm.Settings(**orjson.loads(own.read_bytes()))] if own.exists() else []
        fmt = path.name.split(".")[-2] if path.is_relative_to(rules_dir) else None
        run(path.read_bytes(), path.name, [*extra, histnorm.Settings(), *profiles], fmt)
    for rule in ALL_RULES:
        for example in rule.examples:
            data = orjson.dumps(example.bad)
            run(data, "example.json", [example.settings, *profiles], example.format)
    return found


REPORTED = _reported()


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_a_page_states_every_severity_the_rule_reports(rule):
    """The page's `Severity:` line opens with the rule's severity and names every other
    severity lint reports for it (HN108: information under anthropic), no more."""
    page = (ROOT / "docs" / "rules" / f"{rule.code}.md").read_text()
    line = SEVERITY_LINE.search(page)
    assert line is not None, f"{rule.code}.md states no severity"
    words = re.findall(r"\b(?:error|warning|info)\b", line.group(1))
    assert words[0] == rule.severity.value, line.group(0)
    assert set(words) == REPORTED.get(rule.code, set()) | {rule.severity.value}, (
        f"{rule.code}.md says {line.group(0)!r}; lint reports "
        f"{sorted(REPORTED.get(rule.code, set()))}"
    )
    assert describe(rule.code).splitlines()[2] == line.group(0)
