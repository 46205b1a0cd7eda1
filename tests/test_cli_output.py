"""Snapshots of what `histnorm` prints in every output format.

The inputs are the broken transcripts of fixtures/demo plus one file that is not JSON at
all (HN000). The histnorm version and the full rule documentation in SARIF (checked
against the catalogue in test_cli.py and test_cli_reports.py) are redacted so that the
snapshots only change when the output itself does. Regenerate with `pytest tests/test_cli_output.py
--snapshot-update`, then read the diff.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.catalog import describe
from typer.testing import CliRunner

import histnorm
from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
UNREADABLE = b'{"messages": [{"role": "user", "content": "hi"'

COMMANDS = {"lint": ["lint"], "fix-check": ["fix", "--check"]}
FORMATS = {
    "text": (["--output-format", "text"], {}),
    "text-statistics": (["--output-format", "text", "--statistics"], {}),
    "json": (["--output-format", "json"], {}),
    "jsonl": (["--output-format", "jsonl"], {}),
    "github": (["--output-format", "github"], {}),
    "sarif": (["--output-format", "sarif"], {}),
    "gitlab": (["--output-format", "gitlab"], {}),
    "junit": (["--output-format", "junit"], {}),
    "auto": (["--output-format", "auto"], {}),
    "auto-on-github-actions": (["--output-format", "auto"], {"GITHUB_ACTIONS": "true"}),
}


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for source in DEMO.iterdir():
        shutil.copyfile(source, tmp_path / source.name)
    (tmp_path / "unreadable.json").write_bytes(UNREADABLE)
    return tmp_path


def redact(text: str) -> str:
    """Replace the version and each rule's full documentation (help.text) and page
    (help.markdown) with placeholders."""
    version = f'"version": "{histnorm.__version__}"'
    assert text.count(version) <= 1
    text = text.replace(version, '"version": "<histnorm version>"')
    for rule in ALL_RULES:
        doc = orjson.dumps(rule.doc).decode()
        page = orjson.dumps(describe(rule.code)).decode()
        if doc in text:
            assert text.count(doc) == text.count(page) == 1, rule.code
            text = text.replace(doc, f'"<documentation of {rule.code}>"')
            text = text.replace(page, f'"<page of {rule.code}>"')
    return text


@pytest.mark.parametrize("output", FORMATS)
@pytest.mark.parametrize("command", COMMANDS)
def test_output(broken, snapshot, command, output):
    flags, env = FORMATS[output]
    before = {p.name: p.read_bytes() for p in broken.iterdir()}
    result = CliRunner().invoke(app, [*COMMANDS[command], *flags, "."], env=env)
    assert result.exit_code == 1, result.output
    assert result.stderr == ""
    assert {p.name: p.read_bytes() for p in broken.iterdir()} == before
    assert redact(result.stdout) == snapshot
