"""What `histnorm lint` and `fix` print for people: statistics, closing lines, errors
in plain words (never pydantic's), and help that names the real choices."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
PYDANTIC = ("Value error,", "Extra inputs are not permitted", "Input should be", "pydantic")


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


def test_statistics_prints_counts_not_diagnostics():
    result = invoke("lint", "--statistics", ".")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "     1  HN001  orphan-tool-call",
        "     1  HN002  orphan-tool-result",
        "     1  HN008  displaced-tool-result",
        "records  clean  flagged  skipped  dataset                    rules",
        "      3      2        1        0  dataset.openai-chat.jsonl  HN002=1",
        "Found 3 diagnostics (3 errors) in 5 transcripts.",
        "[*] 3 fixable with `histnorm fix`.",
    ]


@pytest.mark.parametrize("flag", ["--check", "--diff"])
def test_check_and_diff_do_not_claim_nothing_remains(flag):
    result = invoke("fix", flag, ".")
    assert result.exit_code == 1
    assert "Would fix 3 diagnostics in 3 files." in result.output
    assert "No diagnostics remain" not in result.output
    assert "All checks passed" not in result.output


def test_fix_still_says_nothing_remains():
    result = invoke("fix", ".")
    assert result.stdout.splitlines()[-1] == "No diagnostics remain."


@pytest.mark.parametrize("args", [["nothere.json"], ["--allow-no-files", "nothere*.json"]])
def test_missing_path_claims_nothing(args):
    result = invoke("lint", *args)
    assert result.exit_code == 2
    assert "All checks passed" not in result.output
    assert "Found 0" not in result.output
    assert "1 path could not be processed." in result.stdout


@pytest.mark.parametrize(
    ("toml", "args", "expected"),
    [
        ("foo = 1\n", [], "[tool.histnorm] foo: unknown key"),
        ('profile = "nowhere"\n', [], "unknown profile 'nowhere'"),
        ('tail = "q"\n', [], "tail: expected 'keep' or 'close', got 'q'"),
        ('select = "HN001"\n', [], "select: expected a list"),
        ("", ["--profile", "nowhere"], "profile: unknown profile 'nowhere'; known profiles:"),
        ("", ["--tail", "q"], "tail: expected 'keep' or 'close', got 'q'"),
        ("", ["--scope", "q"], "scope: expected 'all', 'tail' or 'marked', got 'q'"),
        ("", ["--policy", "orphan-tool-call=q"], "expected 'drop', 'synthesize' or 'fail'"),
    ],
)
def test_errors_in_plain_words(toml, args, expected):
    if toml:
        Path("pyproject.toml").write_text("[tool.histnorm]\n" + toml)
    result = invoke("lint", *args, ".")
    assert result.exit_code == 2
    assert expected in result.stderr
    assert not any(word in result.output for word in PYDANTIC), result.output


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_help_shows_real_choices(command):
    text = " ".join(invoke(command, "--help").stdout.split())
    assert "list[str]" not in text
    assert "<str>" not in text
    for shown in (
        "--tail [keep|close]",
        "--scope [all|tail|marked]",
        "--jsonl-mode [auto|transcript|message]",
        "--detect [file|per-line]",
        "--select RULE[,RULE...]",
        "--profile [openai-chat|",
        "--format [openai-chat|",
    ):
        assert shown in text, shown


def test_help_of_the_other_commands_names_the_choices():
    assert "--output-format [text|json]" in invoke("rules", "--help").stdout
    assert "--out FOLDER" in invoke("schema", "--help").stdout
    text = " ".join(invoke("fix", "--help").stdout.split())
    for flag in ("--extend-select", "--fixable", "--unfixable"):
        assert f"{flag} RULE[,RULE...]" in text
