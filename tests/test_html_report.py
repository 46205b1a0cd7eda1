"""`--output-format html`: the page builder and the reporter, through the real command
(escaping of untrusted text, counts, filters, paging, the size cap, before/after)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.job import Job
from histnorm_cli.reporters import Summary, reporter
from histnorm_cli.reporters.html import HtmlReporter
from histnorm_cli.reporters.html_changes import change_marks
from histnorm_cli.reporters.html_charts import bar_chart
from histnorm_cli.reporters.html_page import PAGE, Totals, View, build_page
from typer.testing import CliRunner

from histnorm.document import lint_document
from histnorm.model import Message, TextPart, Transcript
from histnorm.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
SESSION = ROOT / "fixtures" / "formats" / "claude-code" / "no-parents.jsonl"
EVIL = "<script>window.pwned=1</script><img src=x onerror=alert(1)>"


def orphan(text: str, call: str = "call_1") -> dict[str, object]:
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


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def html(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, [*args, "--output-format", "html", "--output-file", "report.html"]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, Path("report.html").read_text(encoding="utf-8")


def corpus() -> None:
    """The demo corpus, a Claude Code session, and a dataset with an attack in it."""
    shutil.copytree(DEMO, "corpus")
    shutil.copy(SESSION, "corpus/session.jsonl")
    lines = [
        orjson.dumps(orphan(EVIL)),
        orjson.dumps({"messages": [{"role": "user", "content": "ok"}]}),
    ]
    Path("corpus/evil.openai-chat.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def test_untrusted_text_stays_text():
    corpus()
    code, page = html("lint", "corpus")
    assert code == 1
    assert "window.pwned" in page
    assert EVIL not in page
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page
    assert page.count("<script") == 1  # the page's own, and nothing from the data
    assert "onerror=alert" not in page.replace("&lt;img src=x onerror=alert(1)&gt;", "")


def test_the_page_is_self_contained():
    corpus()
    _, page = html("lint", "corpus")
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "@import" not in page
    assert "default-src 'none'" in page  # nothing is fetched, not even by injected markup
    assert "prefers-color-scheme:dark" in page


def test_lone_surrogates_in_messages_and_names_are_escaped():
    Path("bad.json").write_bytes(orjson.dumps(orphan("x")).replace(b'"x"', b'"a\\ud800b"'))
    code, page = html("lint", "bad.json")
    assert code == 1
    page.encode("utf-8")
    assert "a\\ud800b" in page


def test_every_json_record_is_on_the_page_at_its_message():
    corpus()
    records = orjson.loads(
        CliRunner().invoke(app, ["lint", "--output-format", "json", "corpus"]).stdout
    )
    _, page = html("lint", "corpus")
    assert records
    for found in records:
        assert f'data-code="{found["code"]}"' in page
        message = found["message"].replace("'", "&#x27;")
        # listed in its transcript's header and again at its message
        assert page.count(message) >= 2, found
    for index in range(len(records)):
        assert f'id="t{index}-m' in page


def test_summary_counts():
    corpus()
    _, page = html("lint", "corpus")
    tiles = dict(re.findall(r'data-count="([^"]+)"><b>([\d,]+)</b>', page))
    assert tiles["files"] == "5"
    assert tiles["transcripts"] == "8"  # 3 in the dataset, 2 in evil, 1 each in the others
    assert tiles["with errors"] == "4"
    assert tiles["clean"] == str(8 - 5)  # the session has an info finding
    assert tiles["skipped"] == "0"


def test_rule_filter_file_filter_and_rule_docs_are_present():
    corpus()
    _, page = html("lint", "corpus")
    options = re.findall(r'<option value="(HN\d+)">', page)
    assert options == ["HN001", "HN002", "HN008", "HN011"]
    assert 'id="f-file"' in page
    assert '<option value="corpus/evil.openai-chat.jsonl">' in page
    for code in options:
        assert f'id="rule-{code}"' in page
        assert f'href="#rule-{code}"' in page  # the charts and findings link to it


def test_clean_corpus_says_so():
    Path("ok.json").write_bytes(b'[{"role":"user","content":"hi"}]')
    code, page = html("lint", "ok.json")
    assert code == 0
    assert "No transcript has findings." in page


def test_transcripts_past_the_first_page_wait_in_templates():
    lines = [orjson.dumps(orphan(f"q{i}", f"c{i}")) for i in range(PAGE + 5)]
    Path("many.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    _, page = html("lint", "many.jsonl")
    assert page.count('<section class="t') == PAGE + 5
    assert page.count("<template>") == 5
    assert f'id="t{PAGE}" data-file="many.jsonl" data-rules=" HN001 " hidden>' in page


def test_size_cap_keeps_findings_and_says_so():
    lines = [orjson.dumps(orphan(f"q{i}", f"c{i}")) for i in range(4)]
    Path("many.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    found = lint_document(Path("many.jsonl").read_bytes(), path_hint="many.jsonl").diagnostics
    diagnostics = [d.at(path="many.jsonl") for d in found]
    assert len(diagnostics) == 4
    out = io.StringIO()
    report = HtmlReporter(out, cap=1)  # the first conversation drawn fills it
    report.plan({"many.jsonl": Job("lint", Settings())})
    report.report(diagnostics, "many.jsonl", [], whole=False)
    summary = Summary("lint", files=1, transcripts=4)
    for d in diagnostics:
        summary.add(d, True)
    report.finish(summary)
    page = out.getvalue()
    assert "size cap" in page
    assert "3 transcripts list their findings without their conversation" in page
    assert page.count('class="conv"') == 1
    assert page.count('data-code="HN001"') == 4 + 1  # each listed, the first drawn too


def test_fix_diff_draws_before_and_after_and_prints_no_diff():
    shutil.copytree(DEMO, "corpus")
    before = {p.name: p.read_bytes() for p in Path("corpus").iterdir()}
    result = CliRunner().invoke(
        app, ["fix", "--diff", "--output-format", "html", "--output-file", "r.html", "corpus"]
    )
    assert result.exit_code == 1
    assert "@@" not in result.stdout
    page = Path("r.html").read_text(encoding="utf-8")
    assert {p.name: p.read_bytes() for p in Path("corpus").iterdir()} == before
    assert page.count('class="split"') == 3
    assert "moved to #2" in page and "moved from #3" in page  # the displaced result
    assert 'class="msg tool flagged removed"' in page  # the orphan result
    assert "changed (was #2)" in page  # the call taken out of the assistant message
    tiles = dict(re.findall(r'data-count="([^"]+)"><b>([\d,]+)</b>', page))
    assert tiles["changed by the fix"] == "3"
    assert "Fixes per rule" in page


def test_change_marks():
    def said(*texts: str) -> Transcript:
        return Transcript(
            messages=tuple(Message(role="user", parts=(TextPart(text=t),)) for t in texts)
        )

    left, right = change_marks(said("a", "b", "c", "d"), said("a", "c", "d", "b"))
    assert left == {1: ("moved", "moved to #3")}
    assert right == {3: ("moved", "moved from #1")}
    left, right = change_marks(said("a", "x", "c"), said("a", "y", "c"))
    assert left == {1: ("changed", "changed (now #1)")}
    assert right == {1: ("changed", "changed (was #1)")}
    left, right = change_marks(said("a", "b"), said("a"))
    assert left == {1: ("removed", "removed")} and right == {}
    left, right = change_marks(said("a"), said("a", "z"))
    assert left == {} and right == {1: ("added", "added")}


def test_bar_chart_escapes_and_scales():
    svg = bar_chart(
        "t<1>", [("HN001 <x>", "rule-HN001", 4, "error"), ("HN002", "rule-HN002", 2, "error")]
    )
    assert "<x>" not in svg and "&lt;x&gt;" in svg
    widths = [int(w) for w in re.findall(r'<rect x="\d+" y="\d+" width="(\d+)"', svg)]
    assert widths[0] == 2 * widths[1]
    assert bar_chart("empty", []) == ""


def test_build_page_escapes_file_names_and_notes():
    view = View('a"><script>x()</script>.json', "line 1", [], [], "")
    totals = Totals("lint", 1, 1, 0, {}, {})
    page = build_page(totals, [view], {}, ["note <b>"])
    assert page.count("<script") == 1
    assert "note &lt;b&gt;" in page
    assert 'data-file="a&quot;&gt;&lt;script&gt;x()&lt;/script&gt;.json"' in page


def test_html_is_a_known_output_format():
    assert reporter("html") is HtmlReporter


def test_fix_draws_the_file_as_written_and_lists_each_fix():
    Path("two.json").write_bytes(orjson.dumps(orphan("hello")))
    code, page = html("fix", "two.json")
    assert code == 0
    assert "<title>histnorm fix report</title>" in page
    assert page.count('class="finding applied"') == 1  # listed, not placed
    assert ">no result<" not in page  # the conversation is the fixed one: no orphan call
    assert 'class="card call"' not in page


def test_fix_check_names_its_flag_and_places_the_fixes():
    Path("two.json").write_bytes(orjson.dumps(orphan("hello")))
    code, page = html("fix", "--check", "two.json")
    assert code == 1
    assert "<title>histnorm fix --check report</title>" in page
    assert page.count('class="finding applied"') == 2  # listed, and at the call
    assert '<span class="nojoin">no result</span>' in page


def test_each_transcript_of_a_json_array_is_drawn_on_its_own():
    clean = {"messages": [{"role": "user", "content": "fine"}]}
    Path("arr.json").write_bytes(orjson.dumps([clean, orphan("first", "a"), orphan("second", "b")]))
    _, page = html("lint", "arr.json")
    assert re.findall(r'<span class="where">([^<]*)</span>', page) == [
        "transcript 1",
        "transcript 2",
    ]
    first, second = page.split('id="t1"')
    assert "first" in first and "second" not in first and "fine" not in first
    assert "second" in second
    _, page = html("fix", "--diff", "arr.json")
    assert page.count('class="split"') == 2
    # each assistant message held only the orphan call: removed with it
    assert page.count('class="msg assistant flagged removed"') == 2
