"""`histnorm fix --quarantine BAD.jsonl`: a JSONL dataset split into the records fix
makes clean (kept, in order, where they were) and those it cannot (moved to BAD.jsonl,
in order, each with its reason); and `--statistics`' table of each dataset."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from cli_helpers import invoke, put
from test_cli import CONFLICT

pytestmark = pytest.mark.usefixtures("cli_workdir")

CLEAN = b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}'
CLEAN2 = b'{"messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4"}]}'
REPAIRABLE = (
    b'{"messages":[{"role":"tool","tool_call_id":"call_gone","content":"42"},'
    b'{"role":"user","content":"Thanks!"},{"role":"assistant","content":"You are welcome."}]}'
)
"""An orphan tool result (HN002): its fix removes it."""
UNFIXABLE = (
    b'{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,'
    b'"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather",'
    b'"arguments":"{}"}}]},{"role":"user","content":"Never mind."}]}'
)
"""An orphan tool call (HN001), which `--policy orphan-tool-call=fail` leaves unfixed."""
NOT_JSON = b'{"messages": [{"role": "user", "content": "hi"'
NOT_TRANSCRIPT = b'{"name": "just metadata", "rows": 3}'
BAD_SHAPE = b'{"messages":[{"role":"user","content":5}]}'
"""Valid JSON that cannot be read as a transcript (HN000)."""
POLICY = ("--policy", "orphan-tool-call=fail")

MIXED = b"\n".join(
    [CLEAN, REPAIRABLE, UNFIXABLE, b"", NOT_JSON, NOT_TRANSCRIPT, BAD_SHAPE, CLEAN2, b""]
)
"""Line 4 is blank; every line ends with a newline."""


def repaired(record: bytes) -> bytes:
    """What plain `fix` makes of a one-record dataset."""
    put("one/alone.jsonl", record + b"\n")
    result = invoke("fix", *POLICY, "one/alone.jsonl")
    assert result.exit_code == 0, result.output
    fixed = Path("one/alone.jsonl").read_bytes()
    Path("one/alone.jsonl").unlink()
    return fixed


def entries(path: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(path).read_bytes().splitlines()]


def test_mixed_dataset_is_split_into_output_and_quarantine():
    fixed = repaired(REPAIRABLE)
    assert fixed != REPAIRABLE + b"\n"
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert result.exit_code == 0, result.output
    kept = Path("mixed.jsonl").read_bytes()
    # `fixed` ends its line; the blank line 4 stays
    assert kept == CLEAN + b"\n" + fixed + b"\n" + NOT_TRANSCRIPT + b"\n" + CLEAN2 + b"\n"
    bad = Path("bad.jsonl").read_bytes()
    assert bad.count(b"\n") == 3 and bad.endswith(b"\n")
    assert entries("bad.jsonl") == [
        {
            "reason": {
                "file": "mixed.jsonl",
                "line": 3,
                "diagnostics": [
                    {
                        "code": "HN001",
                        "name": "orphan-tool-call",
                        "severity": "error",
                        "message": "tool call 'c1' (weather) has no result, but later "
                        "messages follow",
                        "pointer": "/messages/1/tool_calls/0",
                    }
                ],
            },
            "record": json.loads(UNFIXABLE),
        },
        {
            "reason": {
                "file": "mixed.jsonl",
                "line": 5,
                "diagnostics": [
                    {
                        "code": "HN000",
                        "name": "unreadable-transcript",
                        "severity": "error",
                        "message": "not valid JSON: unexpected end of data",
                        "pointer": None,
                    }
                ],
            },
            "raw": NOT_JSON.decode(),
        },
        {
            "reason": {
                "file": "mixed.jsonl",
                "line": 7,
                "diagnostics": [
                    {
                        "code": "HN000",
                        "name": "unreadable-transcript",
                        "severity": "error",
                        "message": "expected content to be a string, an array of parts or "
                        "null, got a number",
                        "pointer": "/messages/0/content",
                    }
                ],
            },
            "record": json.loads(BAD_SHAPE),
        },
    ]
    # a readable record is carried byte for byte
    assert b'"record":' + UNFIXABLE + b"}\n" in bad
    assert "Records: 2 clean, 1 repaired, 3 quarantined to bad.jsonl." in result.stdout
    assert "1 record skipped: not a transcript." in result.stdout


def test_no_record_is_lost():
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert result.exit_code == 0, result.output
    kept = Path("mixed.jsonl").read_bytes().splitlines()
    back = []
    for entry in entries("bad.jsonl"):
        raw = entry.get("raw")
        back.append(raw.encode() if isinstance(raw, str) else orjson.dumps(entry["record"]))
    assert len(kept) + len(back) == len(MIXED.splitlines())
    assert NOT_JSON in back and orjson.dumps(json.loads(BAD_SHAPE)) in back


def test_quarantine_is_idempotent():
    put("mixed.jsonl", MIXED)
    first = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert first.exit_code == 0, first.output
    kept, bad = Path("mixed.jsonl").read_bytes(), Path("bad.jsonl").read_bytes()
    again = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert again.exit_code == 0, again.output
    assert Path("mixed.jsonl").read_bytes() == kept
    assert Path("bad.jsonl").read_bytes() == bad  # nothing appended
    other = invoke("fix", *POLICY, "--quarantine", "other.jsonl", "mixed.jsonl")
    assert other.exit_code == 0, other.output
    assert not Path("other.jsonl").exists()  # nothing to quarantine: not created
    assert "Records: 3 clean, 0 repaired, 0 quarantined to other.jsonl." in other.stdout


def test_a_clean_dataset_is_not_written():
    put("clean.jsonl", CLEAN + b"\n" + CLEAN2 + b"\n")
    before = Path("clean.jsonl").stat()
    result = invoke("fix", "--quarantine", "bad.jsonl", "clean.jsonl")
    assert result.exit_code == 0, result.output
    assert Path("clean.jsonl").stat().st_ino == before.st_ino
    assert not Path("bad.jsonl").exists()


def test_an_existing_quarantine_file_is_appended_to():
    put("bad.jsonl", b'{"earlier": true}')  # no final newline
    put("data.jsonl", CLEAN + b"\n" + NOT_JSON + b"\n")
    result = invoke("fix", "--quarantine", "bad.jsonl", "data.jsonl")
    assert result.exit_code == 0, result.output
    lines = Path("bad.jsonl").read_bytes().splitlines()
    assert lines[0] == b'{"earlier": true}'
    assert json.loads(lines[1])["raw"] == NOT_JSON.decode()
    assert len(lines) == 2


def test_several_files_share_one_quarantine_in_order():
    put("a/first.jsonl", CLEAN + b"\n" + NOT_JSON + b"\n")
    put("b/second.jsonl", BAD_SHAPE + b"\n" + CLEAN2 + b"\n" + NOT_JSON + b"\n")
    result = invoke("fix", "--quarantine", "bad.jsonl", "a", "b")
    assert result.exit_code == 0, result.output
    where = [(e["reason"]["file"], e["reason"]["line"]) for e in entries("bad.jsonl")]  # type: ignore[index]
    assert where == [("a/first.jsonl", 2), ("b/second.jsonl", 1), ("b/second.jsonl", 3)]
    assert Path("a/first.jsonl").read_bytes() == CLEAN + b"\n"
    assert Path("b/second.jsonl").read_bytes() == CLEAN2 + b"\n"
    assert "Records: 2 clean, 0 repaired, 3 quarantined to bad.jsonl." in result.stdout


def test_output_file_keeps_the_input():
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "-o", "out.jsonl", "mixed.jsonl")
    assert result.exit_code == 0, result.output
    assert Path("mixed.jsonl").read_bytes() == MIXED
    assert len(Path("out.jsonl").read_bytes().splitlines()) == 5  # the blank line too
    assert len(entries("bad.jsonl")) == 3


def test_warnings_are_kept_unless_strict():
    conflict = orjson.dumps(json.loads(CONFLICT))  # HN007, a warning whose fix is unsafe
    put("data.jsonl", CLEAN + b"\n" + conflict + b"\n")
    plain = invoke("fix", "--select", "HN007", "--quarantine", "bad.jsonl", "data.jsonl")
    assert plain.exit_code == 0, plain.output
    assert "HN007" in plain.stdout
    assert not Path("bad.jsonl").exists()
    assert "Records: 1 clean, 0 repaired, 1 kept with diagnostics, 0 quarantined" in plain.stdout
    args = ("fix", "--strict", "--select", "HN007", "--quarantine", "bad.jsonl", "data.jsonl")
    strict = invoke(*args)
    assert strict.exit_code == 0, strict.output
    assert [e["reason"]["diagnostics"][0]["code"] for e in entries("bad.jsonl")] == ["HN007"]  # type: ignore[index]
    assert Path("data.jsonl").read_bytes() == CLEAN + b"\n"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--diff", "mixed.jsonl"], "--diff"),
        (["--check", "mixed.jsonl"], "--check"),
        (["-"], "standard input"),
        (["-o", "-", "mixed.jsonl"], "standard output"),
        (["one.json"], "one.json: not a JSONL dataset"),
        (["session.jsonl"], "session.jsonl: one transcript"),
        (["--jsonl-mode", "message", "mixed.jsonl"], "--jsonl-mode message"),
        (["mixed.jsonl", "bad.jsonl"], "bad.jsonl is also an input"),
        (["."], "bad.jsonl is also an input"),
        (["-o", "bad.jsonl", "mixed.jsonl"], "is also the output"),
    ],
)
def test_refused_combinations(args, says):
    put("mixed.jsonl", MIXED)
    put("bad.jsonl", b"")
    put("one.json", b"[" + CLEAN + b"]\n")
    put("session.jsonl", b'{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n')
    before = {p: p.read_bytes() for p in Path().iterdir()}
    result = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", *args, input=MIXED)
    assert result.exit_code == 2, result.output
    assert "histnorm: error: " in result.stderr
    assert says in result.stderr
    assert "Traceback" not in result.output
    assert {p: p.read_bytes() for p in Path().iterdir()} == before


def test_quarantine_to_standard_output_is_refused():
    put("mixed.jsonl", MIXED)
    result = invoke("fix", "--quarantine", "-", "mixed.jsonl")
    assert result.exit_code == 2
    assert "--quarantine takes a file" in result.stderr
    assert Path("mixed.jsonl").read_bytes() == MIXED


def test_machine_output_stays_valid():
    put("mixed.jsonl", MIXED)
    result = invoke(
        "fix", *POLICY, "--quarantine", "bad.jsonl", "--output-format", "json", "mixed.jsonl"
    )
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)
    assert "Records: 2 clean, 1 repaired, 3 quarantined to bad.jsonl." in result.stderr


# --statistics: the table of each dataset


def table(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("records"))
    return lines[start : start + 2]


def test_lint_statistics_table():
    put("mixed.jsonl", MIXED)
    result = invoke("lint", "--statistics", "mixed.jsonl")
    assert result.exit_code == 1
    assert table(result.stdout) == [
        "records  clean  flagged  skipped  dataset      rules",
        "      7      2        4        1  mixed.jsonl  HN000=2 HN001=1 HN002=1",
    ]


def test_fix_statistics_table_with_quarantine():
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--statistics", "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert result.exit_code == 0, result.output
    assert table(result.stdout) == [
        "records  clean  repaired  flagged  quarantined  skipped  dataset      rules",
        "      7      2         1        0            3        1  mixed.jsonl  "
        "HN000=2 HN001=1 HN002=1",
    ]


def test_fix_statistics_table_without_quarantine():
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--statistics", "mixed.jsonl")
    assert result.exit_code == 1
    assert table(result.stdout) == [
        "records  clean  repaired  flagged  skipped  dataset      rules",
        "      7      2         1        3        1  mixed.jsonl  HN000=2 HN001=1 HN002=1",
    ]


def test_statistics_table_of_several_datasets_has_a_total():
    put("a.jsonl", CLEAN + b"\n" + NOT_JSON + b"\n")
    put("b.jsonl", REPAIRABLE + b"\n")
    result = invoke("lint", "--statistics", "a.jsonl", "b.jsonl")
    lines = result.stdout.splitlines()
    start = lines.index("records  clean  flagged  skipped  dataset  rules")
    assert lines[start + 1 : start + 4] == [
        "      2      1        1        0  a.jsonl  HN000=1",
        "      1      0        1        0  b.jsonl  HN002=1",
        "      3      1        2        0  total    HN000=1 HN002=1",
    ]


def test_statistics_table_goes_to_stderr_for_machine_formats():
    put("mixed.jsonl", MIXED)
    result = invoke("lint", "--statistics", "--output-format", "json", "mixed.jsonl")
    json.loads(result.stdout)
    assert table(result.stderr)[1].startswith("      7      2        4        1  mixed.jsonl")


def test_statistics_with_jobs_counts_the_same(monkeypatch):
    import histnorm_cli.parallel as parallel

    monkeypatch.setattr(parallel, "MIN_PART", 16)
    put("mixed.jsonl", MIXED)
    one = invoke("lint", "--statistics", "mixed.jsonl")
    two = invoke("lint", "--statistics", "-j", "2", "mixed.jsonl")
    assert table(one.stdout) == table(two.stdout)


@pytest.mark.parametrize("earlier", [None, b'{"earlier": true}\n'], ids=["new", "appended"])
def test_a_file_that_cannot_be_written_takes_its_records_back(monkeypatch, earlier):
    import histnorm_cli.files as files

    def refuse(self, always, backup=False):
        raise OSError(28, "No space left on device", str(self.target))

    monkeypatch.setattr(files.LazyWriter, "commit", refuse)
    if earlier is not None:
        put("bad.jsonl", earlier)
    put("mixed.jsonl", MIXED)
    result = invoke("fix", *POLICY, "--quarantine", "bad.jsonl", "mixed.jsonl")
    assert result.exit_code == 2
    assert "mixed.jsonl: No space left on device" in result.stderr
    assert "Traceback" not in result.output
    assert Path("mixed.jsonl").read_bytes() == MIXED
    if earlier is None:
        assert not Path("bad.jsonl").exists()
    else:
        assert Path("bad.jsonl").read_bytes() == earlier
    assert [p.name for p in Path().iterdir() if p.name.endswith(".histnorm")] == []


def test_a_byte_order_mark_stays_with_the_file():
    put("data.jsonl", b"\xef\xbb\xbf" + NOT_JSON + b"\n" + CLEAN + b"\n")
    result = invoke("fix", "--quarantine", "bad.jsonl", "data.jsonl")
    assert result.exit_code == 0, result.output
    assert Path("data.jsonl").read_bytes() == b"\xef\xbb\xbf" + CLEAN + b"\n"
    assert entries("bad.jsonl")[0]["raw"] == NOT_JSON.decode()
