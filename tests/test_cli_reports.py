"""Reports for CI: SARIF for GitHub code scanning, GitLab Code Quality, JUnit XML, and
`lint --output-file`, each through the real command."""

from __future__ import annotations

import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import orjson
import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
SARIF_SCHEMA = ROOT / "schemas" / "vendor" / "sarif-2.1.0-rtm.5.json"
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}

TWO_ORPHANS = [
    {"role": "user", "content": "Weather in Oslo, and book a table?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_w", "type": "function", "function": {"name": "wx", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "book", "arguments": "{}"}},
        ],
    },
    {"role": "user", "content": "Never mind."},
]
"""Two defects of one rule (HN001 for call_w and for call_b)."""


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for source in DEMO.iterdir():
        shutil.copyfile(source, tmp_path / source.name)
    (tmp_path / "broken.json").write_bytes(b'[{"role": "user", "content": "hi"} {not json\n')
    return tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def sarif(*paths: str) -> dict:
    result = invoke("lint", "--output-format", "sarif", *paths)
    assert result.exit_code == 1, result.output
    log = orjson.loads(result.stdout)
    jsonschema.Draft4Validator(orjson.loads(SARIF_SCHEMA.read_bytes())).validate(log)
    return log


def results(log: dict) -> list[dict]:
    return log["runs"][0]["results"]


def test_sarif_rules_carry_their_page_as_markdown():
    """The page travels in the log (`help.markdown`); no `helpUri` is written, since
    histnorm cannot know where a user's copy of the pages is served."""
    rules = sarif(".")["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) == len(ALL_RULES)
    for entry, rule in zip(rules, ALL_RULES, strict=True):
        assert "helpUri" not in entry
        assert entry["help"]["text"] == rule.doc
        assert entry["help"]["markdown"] == invoke("rule", rule.code).stdout


def _fingerprints(log: dict) -> list[str]:
    return [r["partialFingerprints"]["histnorm/v1"] for r in results(log)]


def _lines(log: dict) -> list[int]:
    return [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results(log)]


def test_sarif_fingerprint_survives_reformatting_and_tells_defects_apart():
    target = Path("orphans.json")
    target.write_bytes(orjson.dumps(TWO_ORPHANS, option=orjson.OPT_INDENT_2))
    pretty = sarif("orphans.json")
    target.write_bytes(orjson.dumps(TWO_ORPHANS))
    compact = sarif("orphans.json")
    assert [r["ruleId"] for r in results(pretty)] == ["HN001", "HN001"]
    assert _lines(pretty) != _lines(compact)  # the lines moved...
    assert _fingerprints(pretty) == _fingerprints(compact)  # ...the identity did not
    assert len(set(_fingerprints(pretty))) == 2  # call_w and call_b are two findings
    every = _fingerprints(sarif("."))
    assert len(set(every)) == len(every)
    assert all(len(f) == 32 and int(f, 16) >= 0 for f in every)


def test_fingerprints_tell_apart_the_same_finding_on_two_jsonl_lines():
    line = orjson.dumps(TWO_ORPHANS)
    Path("two.jsonl").write_bytes(line + b"\n" + line + b"\n")
    found = results(sarif("two.jsonl"))
    assert [r["ruleId"] for r in found] == ["HN001"] * 4
    assert len(set(_fingerprints({"runs": [{"results": found}]}))) == 4


def test_gitlab_code_quality_report():
    result = invoke("lint", "--output-format", "gitlab", ".")
    assert result.exit_code == 1
    assert result.stderr == ""
    issues = orjson.loads(result.stdout)
    report = orjson.loads(invoke("lint", "--output-format", "json", ".").stdout)
    found = [r for r in report if r["code"] != "skipped"]
    assert [i["check_name"] for i in issues] == [r["code"] for r in found]
    assert [i["location"]["path"] for i in issues] == [r["filename"] for r in found]
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in GITLAB_SEVERITIES
        assert issue["description"].startswith(issue["check_name"] + " ")
        assert isinstance(issue["location"]["lines"]["begin"], int)
        assert issue["location"]["lines"]["begin"] >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    severities = {i["check_name"]: i["severity"] for i in issues}
    assert severities["HN001"] == "major"
    Path("clean").mkdir()
    Path("clean/ok.json").write_bytes(b'[{"role":"user","content":"hi"}]')
    empty = invoke("lint", "--output-format", "gitlab", "clean")
    assert (empty.exit_code, empty.stdout) == (0, "[]\n")


def test_junit_report_parses_with_a_failure_per_diagnostic():
    result = invoke("lint", "--output-format", "junit", ".")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    (suite,) = root.iter("testsuite")
    report = orjson.loads(invoke("lint", "--output-format", "json", ".").stdout)
    found = [r for r in report if r["code"] != "skipped"]
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == list(dict.fromkeys(r["filename"] for r in found))
    failures = [f for c in cases for f in c.findall("failure")]
    assert len(failures) == len(found) == int(suite.get("failures", "0"))
    assert int(suite.get("tests", "0")) == len(cases)
    assert [f.get("message", "").split(" ")[0] for f in failures] == [r["code"] for r in found]


def test_junit_report_stays_well_formed_with_control_characters():
    bad = [dict(TWO_ORPHANS[0]), dict(TWO_ORPHANS[1]), TWO_ORPHANS[2]]
    bad[1]["tool_calls"] = [
        {"id": "call\x01\x1b", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]
    Path("odd.json").write_bytes(orjson.dumps(bad))
    result = invoke("lint", "--output-format", "junit", "odd.json")
    assert result.exit_code == 1
    (failure,) = ET.fromstring(result.stdout).iter("failure")
    assert failure.get("message", "").startswith("HN001 ")


@pytest.mark.parametrize("output", ["text", "json", "sarif", "gitlab", "junit", "html"])
def test_output_file_takes_the_report_and_keeps_the_exit_code(output):
    plain = invoke("lint", "--output-format", output, ".")
    result = invoke("lint", "--output-format", output, "--output-file", "report.out", ".")
    assert result.exit_code == plain.exit_code == 1
    assert result.stdout == ""
    assert Path("report.out").read_text(encoding="utf-8") == plain.stdout
    Path("clean").mkdir()
    Path("clean/ok.json").write_bytes(b'[{"role":"user","content":"hi"}]')
    clean = invoke("lint", "--output-format", output, "--output-file", "clean.out", "clean")
    assert clean.exit_code == 0
    assert clean.stdout == ""
    assert Path("clean.out").exists()


def test_output_file_that_cannot_be_written_is_a_clear_error():
    result = invoke("lint", "--output-file", "missing/dir/report.json", ".")
    assert result.exit_code == 2
    assert "--output-file missing/dir/report.json" in result.stderr
    assert "Traceback" not in result.output


def test_rules_write_docs_writes_each_page_once():
    first = invoke("rules", "--write-docs", "pages")
    assert first.exit_code == 0
    assert len(first.stdout.splitlines()) == len(ALL_RULES)
    for rule in ALL_RULES:
        assert Path("pages", f"{rule.code}.md").read_text() == invoke("rule", rule.code).stdout
    again = invoke("rules", "--write-docs", "pages")
    assert (again.exit_code, again.stdout) == (0, "")


def test_committed_rule_pages_are_generated_one_per_sarif_rule():
    committed = {p.name: p.read_bytes() for p in (ROOT / "docs" / "rules").iterdir()}
    assert invoke("rules", "--write-docs", "fresh").exit_code == 0
    fresh = {p.name: p.read_bytes() for p in Path("fresh").iterdir()}
    assert committed == fresh, "docs/rules is stale: run `histnorm rules --write-docs docs/rules`"
    pages = sorted(committed)
    rules = sarif(".")["runs"][0]["tool"]["driver"]["rules"]
    assert sorted(f"{entry['id']}.md" for entry in rules) == pages
