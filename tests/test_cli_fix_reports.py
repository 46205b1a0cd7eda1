"""What `histnorm fix` reports: each fix applied (`--show-fixes`, the JSON reports) and a
`--diff` a reviewer can read (no autojunk, JSONL records pretty-printed)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import jsonschema
import orjson
import pytest
from cli_helpers import invoke
from histnorm_cli import parallel

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
REPORT_SCHEMA = orjson.loads((ROOT / "schemas" / "report.schema.json").read_bytes())

DEMO_FIXES = [
    "  HN008 approval-resumed.meai.json:7 /3/contents/0: move the result to just after "
    "message 2 of 4 (tool result 'call_1' answers a call in message 2 of 4, but 1 other "
    "message comes between them)",
    "  HN001 cancelled-stream.openai-chat.json:11 /messages/2/tool_calls/1: remove the tool "
    "call (tool call 'call_book' (book_table) has no result, but later messages follow)",
    "  HN002 dataset.openai-chat.jsonl:3 /messages/0: remove the tool result (tool result "
    "'call_gone' answers no earlier tool call)",
]


pytestmark = pytest.mark.usefixtures("cli_workdir")


def copy_demo() -> None:
    for source in sorted(DEMO.iterdir()):
        shutil.copyfile(source, source.name)


def tool_calls(n: int) -> list[dict[str, object]]:
    return [
        {"id": f"call_{i}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for i in range(n)
    ]


def orphan_transcript(text: str = "x" * 40) -> list[dict[str, object]]:
    """HN001: `call_1` has no result, but the user wrote again."""
    return [
        {"role": "user", "content": text},
        {"role": "assistant", "content": None, "tool_calls": tool_calls(2)},
        {"role": "tool", "tool_call_id": "call_0", "content": "done"},
        {"role": "user", "content": "thanks"},
    ]


# --- --show-fixes ----------------------------------------------------------------------


def test_show_fixes_lists_what_each_fix_did():
    copy_demo()
    result = invoke("fix", "--show-fixes", ".")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = lines.index("Applied fixes:")
    assert lines[start + 1 : start + 4] == DEMO_FIXES
    assert lines[start + 4] == "Fixed 3 diagnostics in 3 files."


def test_show_fixes_with_check_says_what_would_be_done_and_writes_nothing():
    copy_demo()
    before = {p.name: p.read_bytes() for p in Path(".").iterdir()}
    result = invoke("fix", "--check", "--show-fixes", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    start = lines.index("Fixes that would be applied:")
    assert lines[start + 1 : start + 4] == DEMO_FIXES
    assert {p.name: p.read_bytes() for p in Path(".").iterdir()} == before


def test_without_show_fixes_nothing_is_listed():
    copy_demo()
    result = invoke("fix", ".")
    assert result.exit_code == 0
    assert "Applied fixes" not in result.stdout
    assert result.stdout == "Fixed 3 diagnostics in 3 files.\nNo diagnostics remain.\n"


def test_show_fixes_names_each_fix_of_a_transcript_in_an_array_and_a_message_per_line_file():
    Path("many.json").write_bytes(json.dumps([{"messages": orphan_transcript()}] * 2).encode())
    lines = b"".join(orjson.dumps(m) + b"\n" for m in orphan_transcript())
    Path("session.jsonl").write_bytes(lines)
    result = invoke("fix", "--show-fixes", "many.json", "session.jsonl")
    assert result.exit_code == 0, result.output
    assert "  HN001 many.json:1 /0/messages/1/tool_calls/1: remove the tool call" in result.stdout
    assert "  HN001 many.json:1 /1/messages/1/tool_calls/1: remove the tool call" in result.stdout
    assert "  HN001 session.jsonl:2 /tool_calls/1: remove the tool call" in result.stdout


def test_show_fixes_is_the_same_with_a_file_shared_between_workers(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PART", 2_000)
    record = orjson.dumps({"messages": orphan_transcript("y" * 200)}) + b"\n"
    clean = orjson.dumps({"messages": [{"role": "user", "content": "z" * 200}]}) + b"\n"
    data = (clean * 7 + record) * 6
    Path("a.jsonl").write_bytes(data)
    Path("b.jsonl").write_bytes(data)
    one = invoke("fix", "--show-fixes", "-j", "1", "a.jsonl")
    two = invoke("fix", "--show-fixes", "-j", "2", "b.jsonl")
    assert one.exit_code == two.exit_code == 0, one.output
    listed = [line for line in two.stdout.splitlines() if line.startswith("  HN001 b.jsonl:")]
    assert [line.split()[1] for line in listed] == [f"b.jsonl:{8 * k}" for k in range(1, 7)]
    assert one.stdout.replace("a.jsonl", "b.jsonl") == two.stdout


# --- the JSON reports ------------------------------------------------------------------


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_fix_json_reports_the_fixes_applied_and_what_remains(check):
    copy_demo()
    Path("open.json").write_bytes(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "tool_calls": tool_calls(1)},
            ]
        ).encode()
    )
    result = invoke("fix", *check, "--output-format", "json", ".")
    records = orjson.loads(result.stdout)
    jsonschema.validate(records, REPORT_SCHEMA)
    remaining = [r for r in records if "code" in r]
    assert [r["code"] for r in remaining] == ["HN011"]  # an open call at the end is kept
    applied = [r for r in records if "applied" in r]
    assert [(r["applied"]["code"], r["filename"], r["location"]["line"]) for r in applied] == [
        ("HN008", "approval-resumed.meai.json", 7),
        ("HN001", "cancelled-stream.openai-chat.json", 11),
        ("HN002", "dataset.openai-chat.jsonl", 3),
    ]
    assert applied[1] == {
        "applied": {
            "code": "HN001",
            "name": "orphan-tool-call",
            "applicability": "safe",
            "title": "remove the tool call",
        },
        "message": "tool call 'call_book' (book_table) has no result, but later messages follow",
        "filename": "cancelled-stream.openai-chat.json",
        "location": {
            "line": 11,
            "pointer": "/messages/2/tool_calls/1",
            "transcript_index": None,
            "message_index": 2,
            "part_index": 1,
        },
    }


def test_fix_jsonl_reports_the_fixes_applied_too():
    copy_demo()
    result = invoke("fix", "--output-format", "jsonl", ".")
    assert result.exit_code == 0
    records = [orjson.loads(line) for line in result.stdout.splitlines()]
    jsonschema.validate(records, REPORT_SCHEMA)
    assert [r["applied"]["code"] for r in records] == ["HN008", "HN001", "HN002"]


def test_lint_json_has_no_applied_records():
    copy_demo()
    records = orjson.loads(invoke("lint", "--output-format", "json", ".").stdout)
    assert records and not [r for r in records if "applied" in r]


# --- --diff ----------------------------------------------------------------------------


def tool_turn(*ids: str) -> list[dict[str, object]]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    return [
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": ids[0], "content": "done"},
    ]


def chatter(rng: random.Random, turns: int) -> list[dict[str, object]]:
    """Turns made of a few words and answered calls: every line of it is frequent."""
    words = ["yes", "no", "ok", "thanks", "go on"]
    out: list[dict[str, object]] = []
    for _ in range(turns):
        out.append({"role": "user", "content": rng.choice(words)})
        if rng.random() < 0.5:
            out.extend(tool_turn("call_x"))
        else:
            out.append({"role": "assistant", "content": rng.choice(words)})
    return out


def test_diff_of_small_changes_in_a_large_file_is_small():
    """Thousands of frequent lines and two unanswered calls: difflib's autojunk takes the
    frequent lines for junk, finds nothing to match between the two changes and prints
    most of the file (3,153 lines here)."""
    rng = random.Random(7)
    messages = [
        *chatter(rng, 100),
        *tool_turn("call_x", "call_y"),
        *chatter(rng, 100),
        *tool_turn("call_x", "call_z"),
        *chatter(rng, 100),
    ]
    text = json.dumps(messages, indent=2) + "\n"
    assert len(text.splitlines()) > 3000
    Path("big.json").write_text(text)
    result = invoke("fix", "--diff", "big.json")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) < 40, len(lines)
    removed = [line for line in lines if line.startswith("-") and not line.startswith("---")]
    assert len(removed) == 2 * 8  # the 8 lines of each call dropped
    assert sum(line.startswith("@@ -") for line in lines) == 2


def test_diff_of_jsonl_shows_each_changed_record_pretty_printed_under_its_line_and_rules():
    long = "a long question " * 300
    lines = [
        orjson.dumps({"messages": [{"role": "user", "content": "fine"}]}),
        orjson.dumps({"messages": orphan_transcript(long)}),
        orjson.dumps(
            {
                "messages": [
                    {"role": "tool", "tool_call_id": "gone", "content": "?"},
                    *orphan_transcript(long),
                ]
            }
        ),
    ]
    data = b"\n".join(lines) + b"\n"
    Path("d.jsonl").write_bytes(data)
    result = invoke("fix", "--diff", "d.jsonl")
    assert result.exit_code == 1
    out = result.stdout
    assert out.startswith("--- d.jsonl\n+++ d.jsonl\n@@ line 2: HN001 @@\n")
    assert "\n@@ line 3: HN001, HN002 @@\n" in out
    assert max(len(line) for line in out.splitlines()) < len(long) + 40
    assert '\n-        {\n-          "id": "call_1",\n' in out
    assert '\n-      "role": "tool",\n-      "tool_call_id": "gone",\n' in out
    assert "line 1" not in out
    assert Path("d.jsonl").read_bytes() == data  # display only


def test_diff_of_a_single_line_json_file_is_pretty_printed():
    data = json.dumps({"messages": orphan_transcript("q " * 2000)}).encode()
    Path("one.json").write_bytes(data)
    result = invoke("fix", "--diff", "one.json")
    assert result.exit_code == 1
    out = result.stdout
    assert out.startswith("--- one.json\n+++ one.json\n@@ line 1: HN001 @@\n")
    assert '\n-        {\n-          "id": "call_1",\n' in out
    assert max(len(line) for line in out.splitlines()) < 4100
    invoke("fix", "one.json")
    assert b"\n" not in Path("one.json").read_bytes()  # the file itself stays on one line


def test_diff_of_message_per_line_jsonl_is_pretty_printed():
    messages = orphan_transcript("w " * 1000)
    data = b"".join(orjson.dumps(m) + b"\n" for m in messages)
    Path("s.jsonl").write_bytes(data)
    result = invoke("fix", "--diff", "s.jsonl")
    assert result.exit_code == 1
    out = result.stdout
    assert out.startswith("--- s.jsonl\n+++ s.jsonl\n@@ line 2: HN001 @@\n")
    assert '\n-    {\n-      "id": "call_1",\n' in out
    assert max(len(line) for line in out.splitlines()) < 2100
