"""The registry and the rule docs keep their promises (codes, names, sections, fixtures)."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

import histnorm.rules
from histnorm.diagnostic import Applicability
from histnorm.rule import DOC_SECTIONS
from histnorm.rules import ALL_RULES, BY_CODE, FIX_ORDER, resolve

ROOT = Path(__file__).resolve().parent.parent


def test_every_rule_module_is_registered():
    modules = {
        m.name for m in pkgutil.iter_modules(histnorm.rules.__path__) if not m.name.startswith("_")
    }
    registered = {rule.name.replace("-", "_") for rule in ALL_RULES}
    assert modules == registered


def test_codes_are_unique_ordered_and_well_formed():
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(set(codes))
    assert all(re.fullmatch(r"HN\d{3}", code) for code in codes)


def test_public_contract_codes_and_names():
    assert {r.code: r.name for r in ALL_RULES} == {
        "HN000": "unreadable-transcript",
        "HN001": "orphan-tool-call",
        "HN002": "orphan-tool-result",
        "HN003": "pending-approval-request",
        "HN004": "empty-text",
        "HN005": "empty-message",
        "HN006": "repeated-request-id",
        "HN007": "conflicting-request-id",
        "HN008": "displaced-tool-result",
        "HN009": "duplicate-handoff",
        "HN010": "duplicate-tool-result",
        "HN011": "open-tool-call-at-end",
        "HN012": "repeated-partial-turn",
        "HN013": "unknown-content",
        "HN014": "missing-parent",
        "HN015": "tool-part-in-wrong-role",
        "HN016": "shared-call-id",
        "HN017": "missing-logical-parent",
        "HN018": "oversized-session-line",
        "HN101": "results-not-first",
        "HN102": "split-result-turn",
        "HN103": "reasoning-without-next",
        "HN104": "invalid-call-id",
        "HN105": "duplicate-call-id",
        "HN106": "first-message-not-user",
        "HN107": "consecutive-same-role",
        "HN108": "system-placement",
        "HN109": "invalid-tool-arguments",
        "HN110": "empty-tool-calls",
        "HN120": "call-turn-not-after-user",
        "HN121": "ends-on-assistant",
        "HN122": "trailing-whitespace-at-end",
        "HN123": "empty-error-result",
        "HN124": "user-after-tool-result",
        "HN113": "oversized-content",
        "HN114": "unsupported-media",
        "HN116": "reasoning-not-carried",
        "HN117": "reasoning-rejected",
        "HN118": "foreign-thinking-signature",
        "HN111": "invalid-tool-name",
        "HN112": "tool-result-name-mismatch",
    }


def test_names_are_unique_kebab_case():
    names = [rule.name for rule in ALL_RULES]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in names)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_docstring_has_every_section_in_order(rule):
    positions = [rule.doc.find(section + "\n") for section in DOC_SECTIONS]
    assert -1 not in positions, f"{rule.code} lacks {DOC_SECTIONS[positions.index(-1)]}"
    assert positions == sorted(positions)
    assert rule.doc.splitlines()[0].endswith("."), "the first line is a one-sentence summary"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_fix_and_applicability_agree(rule):
    assert (rule.fix is None) == (rule.applicability is None)
    assert (rule in FIX_ORDER) == (rule.fix is not None)
    if rule.applicability is Applicability.UNSAFE:
        assert "Unsafe" in rule.doc


def test_resolve_accepts_codes_and_names_in_any_case():
    assert resolve("hn001") is BY_CODE["HN001"]
    assert resolve("Orphan-Tool-Call") is BY_CODE["HN001"]
    with pytest.raises(histnorm.HistnormError, match="unknown rule 'HN999'"):
        resolve("HN999")


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.code != "HN000"], ids=lambda r: r.code)
def test_every_code_has_fixtures(rule):
    folder = ROOT / "fixtures" / "rules" / rule.code
    assert folder.is_dir() and any(folder.iterdir()), f"no fixtures under {folder}"


def test_readme_rule_table_is_current():
    readme = (ROOT / "README.md").read_text()
    for rule in ALL_RULES:
        fix = rule.applicability.value if rule.applicability else "none"
        row = f"| {rule.code} | `{rule.name}` | {rule.severity.value} | {fix} | {rule.summary} |"
        assert row in readme, f"README rule table lacks or misstates: {row}"
