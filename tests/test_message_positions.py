"""Diagnostics name other messages so a person finds them: 1-based, with the total
("message 2 of 4"), never the 0-based index the pointer holds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from histnorm_cli.app import app
from test_rules_fixtures import CASES
from typer.testing import CliRunner

import histnorm
from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
MENTION = re.compile(r"\bmessages? (\d+)(?:-(\d+))?(?: of (\d+))?")
NAMING = ("HN006", "HN008", "HN009", "HN010", "HN012", "HN102", "HN105", "HN107")
"""The rules whose messages name another message."""


def _cases() -> list[tuple[str, histnorm.Transcript, histnorm.Settings]]:
    found = [(c.id, c.load(), c.settings) for c in CASES]
    for rule in ALL_RULES:
        for n, example in enumerate(rule.examples):
            transcript = histnorm.load(example.bad, format=example.format)
            found.append((f"{rule.code}-example-{n}", transcript, example.settings))
    return found


def test_every_message_named_is_one_based_with_the_total():
    checked = set()
    for name, transcript, settings in _cases():
        total = len(transcript.messages)
        for diagnostic in histnorm.lint(transcript, settings):
            texts = [diagnostic.message] + ([diagnostic.fix.title] if diagnostic.fix else [])
            for text in texts:
                for first, last, of in MENTION.findall(text):
                    checked.add(diagnostic.code)
                    assert of == str(total), f"{name}: {text!r} (the transcript has {total})"
                    assert 1 <= int(first) <= int(last or first) <= total, f"{name}: {text!r}"
    assert set(NAMING) <= checked


def test_the_command_names_the_call_message_one_based(tmp_path, monkeypatch):
    """The demo's displaced result answers the call at /1 (message 2 of 4)."""
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(ROOT / "fixtures/demo/approval-resumed.meai.json", "chat.json")
    result = CliRunner().invoke(app, ["lint", "chat.json"])
    assert result.exit_code == 1
    assert "answers a call in message 2 of 4, but 1 other message comes between them" in (
        result.stdout
    ), result.stdout
    assert "(at /3/contents/0)" in result.stdout


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_docs_do_not_show_zero_based_positions(rule):
    for line in rule.doc.splitlines():
        for _first, _, of in MENTION.findall(line):
            assert of, f"{rule.code}: {line!r}"
