"""The rule pages and summaries say what the rules do: real profile names, severities
that lint reports, and citations of documents that exist."""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.catalog import describe
from typer.testing import CliRunner

import histnorm
from histnorm.profiles import ALIASES, PROFILES, RULES_OF, is_default
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
        named = [w for w in re.findall(r"[a-z][a-z0-9-]*", found.group(1)) if w not in NOT_A_NAME]
        assert set(named) <= set(PROFILES), f"{row['code']} names {set(named) - set(PROFILES)}"
        assert set(named) == _driving(row["code"]), row["code"]


SEVERITY_LINE = re.compile(r"^Severity: (.+)$", re.M)
LEVELS = ("error", "warning", "info")


@cache
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


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_a_page_states_every_severity_the_rule_reports(rule):
    """The page's `Severity:` line opens with the rule's severity and names every other
    severity lint reports for it (HN108: information under anthropic), no more."""
    page = (ROOT / "docs" / "rules" / f"{rule.code}.md").read_text()
    line = SEVERITY_LINE.search(page)
    assert line is not None, f"{rule.code}.md states no severity"
    words = re.findall(r"\b(?:error|warning|info)\b", line.group(1))
    assert words[0] == rule.severity.value, line.group(0)
    assert set(words) == _reported().get(rule.code, set()) | {rule.severity.value}, (
        f"{rule.code}.md says {line.group(0)!r}; lint reports "
        f"{sorted(_reported().get(rule.code, set()))}"
    )
    assert describe(rule.code).splitlines()[2] == line.group(0)


PROFILES_LINE = re.compile(r"^Profiles: (.*)\.$", re.MULTILINE)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_a_page_names_the_profiles_its_rule_runs_under(rule):
    """A rule that runs only under some profiles (`Rule.applies`) says which, and reports
    nothing under the others on its own examples; a rule that runs under every profile
    has no such line."""
    page = (ROOT / "docs" / "rules" / f"{rule.code}.md").read_text()
    line = PROFILES_LINE.search(page)
    if rule.applies is None:
        assert line is None, f"{rule.code} runs under every profile: {line.group(0)!r}"
        return
    assert line is not None, f"{rule.code}.md does not name the profiles it runs under"
    named = set(re.findall(r"`([\w-]+)`", line.group(1)))
    assert named == {p.name for p in PROFILES.values() if rule.applies(p)}
    for profile in set(PROFILES) - named:
        for example in rule.examples:
            settings = example.settings.model_copy(update={"profile": profile})
            found = histnorm.lint(orjson.dumps(example.bad), settings, format=example.format)
            assert rule.code not in {d.code for d in found}, (rule.code, profile)


PAGES = ROOT / "docs" / "rules"
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
URL = re.compile(r"https?://[^\s)>\]`'\"]+")
PATH = re.compile(
    r"(?<![\w/.:#-])(?:[\w*.-]+/)*[\w*-]+(?:\.[\w-]+)*\.(?:md|py|json|jsonl|toml|yaml)\b"
)
ISSUE = re.compile(r"\b[\w.-]+/[\w.-]+ ?#\d+|\bPR ?#\d+|(?<![\w/])#\d+\b")
MODULE = re.compile(r"`(histnorm(?:\.\w+)+)`")


def _prose(page: str) -> str:
    """The page without its examples (fenced blocks)."""
    return re.sub(r"```.*?```", "", page, flags=re.S)


def _slugs(markdown: Path) -> set[str]:
    """GitHub's anchors of the headings of a Markdown file."""
    slugs = set()
    for line in markdown.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slugs.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return slugs


def _well_formed(url: str) -> bool:
    parts = urlsplit(url)
    return (
        parts.scheme == "https"
        and "." in parts.netloc
        and not re.search(r"[\s\[\]{}|\\^<>]", url)
        and not url.endswith((".", ",", ";", ":"))
    )


@pytest.mark.parametrize("code", [rule.code for rule in ALL_RULES])
def test_every_document_a_rule_page_cites_exists(code):
    """Links resolve in this repository (anchors too) or are well-formed https URLs; a
    path named in the text is a file here; an issue is cited by its URL, not `org/repo#1`."""
    page = (PAGES / f"{code}.md").read_text()
    prose = _prose(page)
    for _, target in LINK.findall(prose):
        if target.startswith(("http://", "https://")):
            assert _well_formed(target), f"{code}.md: {target}"
            continue
        path, _, anchor = target.partition("#")
        resolved = (PAGES / path).resolve()
        assert resolved.exists() and resolved.is_relative_to(ROOT), f"{code}.md: {target}"
        if anchor:
            assert anchor in _slugs(resolved), f"{code}.md: no heading for #{anchor} in {path}"
    for url in URL.findall(prose):
        assert _well_formed(url.rstrip(".,;:")), f"{code}.md: {url}"
    bare = URL.sub("", LINK.sub(lambda m: "" if "://" in m.group(2) else m.group(1), prose))
    bare = LINK.sub("", bare)
    for path in PATH.findall(bare):
        assert (ROOT / path).exists(), f"{code}.md cites {path}, which is not in the repository"
    for reference in ISSUE.findall(bare):
        raise AssertionError(f"{code}.md cites {reference!r} without a link")
    cited = prose[prose.find("\n## References\n") :]
    for name in MODULE.findall(cited):
        module, _, attribute = name.rpartition(".")
        found = importlib.util.find_spec(name) or (
            importlib.util.find_spec(module) and hasattr(importlib.import_module(module), attribute)
        )
        assert found, f"{code}.md cites `{name}`, which histnorm does not have"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_examples_are_shown_as_a_diff_from_bad_to_good(rule):
    """One copy of each example: a unified diff when fix changes it, the JSON otherwise."""
    page = (PAGES / f"{rule.code}.md").read_text()
    diffs = re.findall(r"```diff\n(.*?)\n```", page, flags=re.S)
    changed = [e for e in rule.examples if e.good is not None and e.good != e.bad]
    assert len(diffs) == len(changed)
    assert page.count("```json\n") == len(rule.examples) - len(changed)
    for example, diff in zip(changed, diffs, strict=True):
        lines = diff.splitlines()
        assert lines[:2] == ["--- before", "+++ after"] and lines[2].startswith("@@ ")
        body = lines[3:]
        old = "\n".join(line[1:] for line in body if not line.startswith("+"))
        new = "\n".join(line[1:] for line in body if not line.startswith("-"))
        assert orjson.loads(old) == example.bad
        assert orjson.loads(new) == example.good


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_pages_name_profiles_as_profile_accepts_them(rule):
    """No page names a profile by an alias; "Under profiles whose target ..." lists, in
    its parentheses, exactly the profiles that drive the rule."""
    prose = _prose((PAGES / f"{rule.code}.md").read_text())
    assert not set(re.findall(r"`([a-z0-9-]+)`", prose)) & set(ALIASES), rule.code
    start = prose.find("Under profiles whose target")
    if start >= 0:
        paragraph = prose[start:].split("\n\n", 1)[0]
        listed = next(g for g in re.findall(r"\(([^)]*)\)", paragraph) if "`" in g)
        assert set(re.findall(r"`([a-z0-9-]+)`", listed)) == _driving(rule.code), listed
