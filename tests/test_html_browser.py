"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, which
`.ci/run` installs when missing) driven by Playwright. The page renders, each finding is
visible at its message, the filters and paging work, and a message holding markup stays
text and runs nothing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.reporters.html_page import PAGE
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
SESSION = ROOT / "fixtures" / "formats" / "claude-code" / "no-parents.jsonl"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
EVIL = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


def orphan(text: str, call: str = "call_1") -> dict[str, Any]:
    """An openai-chat transcript whose tool call has no result (HN001), `text` in it."""
    return {
        "messages": [
            {"role": "user", "content": text},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": call, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "user", "content": "never mind"},
        ]
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # test-only: imported when used

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    pages = []

    def opened(path: Path, scheme: str = "light") -> Any:
        page = browser.new_page(color_scheme=scheme, java_script_enabled=True)
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda dialog: (page.errors.append("dialog"), dialog.dismiss()))
        page.goto(path.resolve().as_uri())
        pages.append(page)
        return page

    yield opened
    for page in pages:
        page.close()


def report(tmp_path: Path, *args: str) -> tuple[Path, list[dict[str, Any]]]:
    """The HTML report of `args` and the json records of the same run."""
    runner = CliRunner()
    out = tmp_path / "report.html"
    result = runner.invoke(app, [*args, "--output-format", "html", "--output-file", str(out)])
    assert result.exit_code in (0, 1), result.output
    if args[0] != "lint":
        return out, []
    records = orjson.loads(runner.invoke(app, [*args, "--output-format", "json"]).stdout)
    return out, records


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Mixed formats: the demo (MEAI, openai-chat, a JSONL dataset), a Claude Code
    session, and a dataset whose message holds markup."""
    folder = tmp_path / "corpus"
    shutil.copytree(DEMO, folder)
    shutil.copy(SESSION, folder / "session.jsonl")
    (folder / "evil.openai-chat.jsonl").write_bytes(orjson.dumps(orphan(EVIL)) + b"\n")
    return folder


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_renders_with_its_summary(corpus, tmp_path, open_page, scheme):
    out, _ = report(tmp_path, "lint", str(corpus))
    page = open_page(out, scheme)
    assert page.title() == "histnorm lint report"
    assert page.locator('.tile[data-count="transcripts"] b').inner_text() == "7"
    assert page.locator("svg.chart").first.is_visible()
    assert page.locator("#f-info").inner_text() == "5 of 5 transcripts"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert (background == "rgb(13, 17, 23)") == (scheme == "dark")
    assert page.errors == []


def test_each_finding_is_visible_at_its_message(corpus, tmp_path, open_page):
    out, records = report(tmp_path, "lint", str(corpus))
    page = open_page(out)
    assert len(records) == 5
    for found in records:
        location = found["location"]
        section = page.locator(f'section.t[data-file="{found["filename"]}"]')
        bubble = section.locator(f'.msg[id$="-m{location["message_index"]}"]')
        note = bubble.locator(f'.finding[data-code="{found["code"]}"]')
        assert note.is_visible(), found
        assert found["message"] in note.inner_text()
        assert location["pointer"] in note.inner_text()
    assert page.errors == []


def test_rule_and_file_filters(corpus, tmp_path, open_page):
    out, _ = report(tmp_path, "lint", str(corpus))
    page = open_page(out)
    visible = page.locator("section.t:visible")
    assert visible.count() == 5
    page.select_option("#f-rule", "HN002")
    assert visible.count() == 1
    assert visible.first.get_attribute("data-file").endswith("dataset.openai-chat.jsonl")
    assert page.locator("#f-info").inner_text() == "1 of 5 transcripts"
    page.select_option("#f-rule", "")
    page.fill("#f-file", "session")
    assert visible.count() == 1
    assert visible.first.locator('.finding[data-code="HN011"]').first.is_visible()
    page.fill("#f-file", "no such file")
    assert visible.count() == 0
    page.fill("#f-file", "")
    assert visible.count() == 5


def test_markup_in_a_message_stays_text_and_runs_nothing(corpus, tmp_path, open_page):
    out, _ = report(tmp_path, "lint", str(corpus))
    page = open_page(out)
    bubble = page.locator('section.t[data-file$="evil.openai-chat.jsonl"] .msg.user').first
    assert bubble.inner_text().endswith(EVIL)
    assert page.evaluate("window.pwned") is None
    assert page.locator("section.t img").count() == 0
    assert page.errors == []


def test_paging_draws_later_transcripts_when_shown(tmp_path, open_page):
    lines = [orjson.dumps(orphan(f"question {i}", f"c{i}")) for i in range(PAGE + 3)]
    (tmp_path / "many.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    out, _ = report(tmp_path, "lint", str(tmp_path / "many.jsonl"))
    page = open_page(out)
    assert page.locator("section.t:visible").count() == PAGE
    assert page.get_by_text(f"question {PAGE + 1}").count() == 0  # not drawn yet
    page.click("#next")
    assert page.locator("section.t:visible").count() == 3
    assert page.get_by_text(f"question {PAGE + 1}", exact=True).is_visible()
    assert page.locator("#next").is_disabled()
    page.click("#prev")
    assert page.get_by_text("question 0", exact=True).is_visible()


def test_fix_diff_shows_before_and_after(tmp_path, open_page):
    shutil.copytree(DEMO, tmp_path / "corpus")
    out, _ = report(tmp_path, "fix", "--diff", str(tmp_path / "corpus"))
    page = open_page(out)
    assert page.title() == "histnorm fix --diff report"
    assert page.locator(".side.before").count() == 3
    assert page.locator(".msg.removed .mark").first.inner_text() == "removed"
    assert page.locator(".msg.moved .mark").first.is_visible()
    page.locator(".finding.applied .jump").first.click()
    assert page.errors == []
