"""The rule pages and summaries say what the rules do: real profile names, severities
that lint reports, and citations of documents that exist."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from histnorm_cli.app import app
from typer.testing import CliRunner

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
