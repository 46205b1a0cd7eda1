"""Rule selection as in ruff: comma lists, code prefixes, ALL, extend-select, fixable and
unfixable (reported, never fixed), and profile aliases; in the library and the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

import histnorm
from histnorm import HistnormError, Settings
from histnorm.engine import selected_rules
from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
ORPHAN = "cancelled-stream.openai-chat.json"  # HN001
DISPLACED = "approval-resumed.meai.json"  # HN008
DATASET = "dataset.openai-chat.jsonl"  # HN002


def codes(settings: Settings) -> list[str]:
    return [rule.code for rule in selected_rules(settings)]


def test_prefix_selects_every_code_it_starts():
    assert codes(Settings(select=("HN1",))) == [r.code for r in ALL_RULES if r.code[2] == "1"]
    assert codes(Settings(select=("hn01",))) == [r.code for r in ALL_RULES if r.code[:4] == "HN01"]
    assert codes(Settings(select=("HN00",), ignore=("HN0",))) == []


def test_all_and_extend_select():
    assert codes(Settings(select=("ALL",))) == [r.code for r in ALL_RULES]
    assert codes(Settings(select=("HN001",), extend_select=("HN008", "HN10"))) == [
        "HN001",
        "HN008",
        *[r.code for r in ALL_RULES if r.code.startswith("HN10")],
    ]
    assert codes(Settings(extend_select=("HN001",))) == [r.code for r in ALL_RULES]


@pytest.mark.parametrize("name", ["HN9", "HN0011", "H", "XX", "HN1x"])
def test_unknown_selector_raises(name):
    with pytest.raises(HistnormError, match="unknown rule"):
        selected_rules(Settings(select=(name,)))


def _orphan() -> histnorm.Transcript:
    return histnorm.load((DEMO / ORPHAN).read_bytes())


def test_unfixable_rules_are_reported_but_never_fixed():
    transcript = _orphan()
    for settings in (Settings(unfixable=("HN001",)), Settings(fixable=("HN008", "HN1"))):
        result = histnorm.fix(transcript, settings)
        assert not result.changed
        assert [d.code for d in result.remaining] == ["HN001"]
        assert all(d.fix is None for d in histnorm.lint(transcript, settings))
    assert histnorm.fix(transcript, Settings(fixable=("HN0",))).changed


def test_profile_alias():
    assert Settings(profile="bedrock").profile == "bedrock-converse"


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for source in DEMO.iterdir():
        shutil.copyfile(source, tmp_path / source.name)
    return tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def reported(result: Result) -> set[str]:
    return {line.split(": ")[1].split()[0] for line in result.stdout.splitlines() if ": HN" in line}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--select", "HN001,HN008"], {"HN001", "HN008"}),
        (["--select", "HN001, orphan-tool-result"], {"HN001", "HN002"}),
        (["--select", "HN00", "--ignore", "HN001,HN002"], {"HN008"}),
        (["--select", "ALL"], {"HN001", "HN002", "HN008"}),
        (["--select", "HN1"], set()),
        (["--select", "HN001", "--extend-select", "HN002"], {"HN001", "HN002"}),
    ],
)
def test_cli_selection(args, expected):
    result = invoke("lint", *args, ".")
    assert result.exit_code == (1 if expected else 0), result.output
    assert reported(result) == expected


def test_config_extend_select_and_cli_select():
    Path("pyproject.toml").write_text(
        '[tool.histnorm]\nselect = ["HN001"]\nextend-select = ["HN8"]\n'
    )
    assert invoke("lint", ".").exit_code == 2  # HN8 names no rule
    Path("pyproject.toml").write_text(
        '[tool.histnorm]\nselect = ["HN001"]\nextend-select = ["HN00"]\n'
    )
    assert reported(invoke("lint", ".")) == {"HN001", "HN002", "HN008"}
    # as in ruff, --select replaces the file's select and extend-select; --extend-select adds
    assert reported(invoke("lint", "--select", "HN001", ".")) == {"HN001"}
    assert reported(invoke("lint", "--extend-select", "HN002", ".")) == {"HN001", "HN002", "HN008"}
    Path("pyproject.toml").write_text('[tool.histnorm]\nselect = ["HN001"]\n')
    assert reported(invoke("lint", "--extend-select", "HN002", ".")) == {"HN001", "HN002"}


@pytest.mark.parametrize(
    ("args", "toml"),
    [
        (["--unfixable", "HN001"], ""),
        (["--fixable", "HN002,HN008"], ""),
        ([], 'unfixable = ["orphan-tool-call"]\n'),
        ([], 'fixable = ["HN0"]\nunfixable = ["HN001"]\n'),
        (["--unfixable", "HN001"], 'fixable = ["ALL"]\n'),
    ],
)
def test_cli_unfixable_rules_are_reported_not_fixed(args, toml):
    if toml:
        Path("pyproject.toml").write_text("[tool.histnorm]\n" + toml)
    before = Path(ORPHAN).read_bytes()
    result = invoke("fix", *args, ".")
    assert result.exit_code == 1, result.output
    assert Path(ORPHAN).read_bytes() == before
    assert Path(DISPLACED).read_bytes() != (DEMO / DISPLACED).read_bytes()
    assert Path(DATASET).read_bytes() != (DEMO / DATASET).read_bytes()
    assert reported(result) == {"HN001"}
    assert "Fixed 2 diagnostics in 2 files." in result.stdout
    lint = invoke("lint", *args, ORPHAN)
    assert "HN001 [*]" not in lint.stdout and "HN001 " in lint.stdout
    assert "fixable" not in lint.stdout


def test_cli_profile_alias():
    result = invoke("lint", "--profile", "bedrock", "--select", "HN1", ".")
    assert result.exit_code in (0, 1), result.output
    assert result.stderr == ""


@pytest.mark.parametrize("flag", ["--select", "--extend-select", "--ignore", "--unfixable"])
def test_cli_unknown_selector_is_named(flag):
    result = invoke("lint", flag, "HN001,HN9", ".")
    assert result.exit_code == 2
    assert "unknown rule 'HN9'" in result.stderr
