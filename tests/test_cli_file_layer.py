"""The file layer and the reporters: which files are transcripts, where results go, and
what reaches the report when names and data hold bytes a terminal or JSON cannot take."""

from __future__ import annotations

import fcntl
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from histnorm_cli.files import AtomicWriter
from histnorm_cli.reporters import Summary, reporter
from hypothesis import given, settings
from hypothesis import strategies as st

import histnorm.document as document
from histnorm.diagnostic import Diagnostic, Location, Severity
from histnorm.document import Skip
from histnorm.document.prefix import readable_prefix
from tests.cli_helpers import CLEAN, ORPHAN, invoke, put
from tests.strategies_json import JSON_VALUES

pytestmark = pytest.mark.usefixtures("cli_workdir")


# -o/--output takes one input file


@pytest.mark.parametrize(
    "args",
    [
        ("dir",),
        (),
        ("dir/a.json", "dir/b.json"),
    ],
    ids=["folder", "working-folder", "two-paths"],
)
def test_output_with_several_input_files_is_refused_and_writes_nothing(args):
    put("dir/a.json", ORPHAN)
    put("dir/b.json", CLEAN)
    result = invoke("fix", *args, "-o", "out.json")
    assert result.exit_code == 2, result.output
    assert "-o/--output" in result.output
    assert not Path("out.json").exists()
    assert Path("dir/a.json").read_bytes() == ORPHAN


def test_output_with_a_folder_of_one_file_writes_it():
    put("dir/a.json", ORPHAN)
    result = invoke("fix", "dir", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert Path("out.json").read_bytes() != ORPHAN
    assert Path("dir/a.json").read_bytes() == ORPHAN


# lone surrogates in the data never stop a run

SURROGATE = b'{"messages": [{"role": "\\ud800"}, {"role": "user", "content": "hi"}]}\n'
"""A role that is a lone surrogate escape: valid JSON, but no text UTF-8 can carry."""


def _no_crash(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def test_lone_surrogate_messages_are_valid_utf8_at_the_source():
    found = document.lint_document(SURROGATE, path_hint="a.json").diagnostics
    assert found
    for diagnostic in found:
        diagnostic.message.encode("utf-8")
        assert "\\ud800" in diagnostic.message or "ud800" not in diagnostic.message


def test_lone_surrogate_does_not_stop_fix_of_the_other_files():
    put("dir/a.json", SURROGATE)
    put("dir/b.json", ORPHAN)
    result = invoke("fix", "dir")
    _no_crash(result)
    assert Path("dir/b.json").read_bytes() != ORPHAN
    assert Path("dir/a.json").read_bytes() == SURROGATE
    assert "\\ud800" in result.output


@pytest.mark.parametrize(
    "fmt", ["json", "jsonl", "sarif", "gitlab", "github", "junit", "text", "html"]
)
def test_lone_surrogate_every_reporter_writes_its_whole_report(fmt):
    put("dir/a.json", SURROGATE)
    put("dir/b.json", ORPHAN)
    result = invoke("lint", "dir", "--output-format", fmt)
    _no_crash(result)
    assert result.exit_code == 1
    out = result.stdout
    out.encode("utf-8")
    if fmt in ("json", "sarif", "gitlab"):
        text = json.dumps(json.loads(out))
    elif fmt == "jsonl":
        text = json.dumps([json.loads(line) for line in out.splitlines()])
    elif fmt == "junit":
        text = ET.tostring(ET.fromstring(out), encoding="unicode")
    else:
        text = out
    assert "b.json" in text  # the file after the one with the surrogate is reported
    assert "HN001" in text


@pytest.mark.parametrize(
    "fmt", ["json", "jsonl", "sarif", "gitlab", "github", "junit", "text", "html"]
)
def test_reporters_escape_lone_surrogates_they_are_handed(fmt):
    """The last line of defence: a diagnostic built elsewhere with a lone surrogate in its
    message, pointer or path still gives a whole report."""
    where = Location(pointer="/messages/0/\udfff", path="a\ud800.json", line=1)
    bad = Diagnostic("HN000", "unreadable-transcript", "x", Severity.ERROR, where)
    object.__setattr__(bad, "message", "role \ud800")  # as if built without escaping
    out = io.StringIO()
    report = reporter(fmt)(out)
    report.report([bad], "a\ud800.json", [], whole=False)
    report.report([], "b\ud800.json", [Skip("no transcript \ud800")], whole=True)
    summary = Summary("lint", files=2, transcripts=1)
    summary.add(bad, False)
    report.finish(summary)
    out.getvalue().encode("utf-8")


# JSON with comments or trailing commas is no transcript

TSCONFIG = b'{\n  // the compiler\n  "compilerOptions": {"strict": true,},\n}\n'
ESLINTRC = b'{\n  "extends": ["eslint:recommended"], /* base */\n  "rules": {},\n}\n'
SETTINGS = b'{"editor.tabSize": 2, "files.exclude": {"**/.git": true,},}\n'
"""Configuration files in JSONC: comments and trailing commas."""


@pytest.mark.parametrize("data", [TSCONFIG, ESLINTRC, SETTINGS], ids=["ts", "eslint", "settings"])
def test_jsonc_is_skipped_as_no_transcript_by_the_core(data):
    result = document.lint_document(data, path_hint="config.json")
    assert result.diagnostics == ()
    assert result.skipped_file
    assert "no transcript" in result.skipped[0].message
    fixed = document.fix_document(data, path_hint="config.json")
    assert fixed.output is None


@pytest.mark.parametrize(
    "data",
    [
        b'{"messages": [{"role": "user", "content": "hi"},]}',
        b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}, // more\n]}',
        b'[{"role": "user", "content": "hi"},]',
        b'[\n  {"messages": [{"role": "user", "content": "hi"}]},\n]\n',
        b'{"messages": [{"role": "user", "content": "cut short',
        b'{"contents": [{"role": "user", "parts": [{"text": "hi"}]},]}',
    ],
    ids=["envelope", "envelope-after-model", "message-list", "array", "truncated", "gemini"],
)
def test_broken_json_that_reads_as_a_transcript_is_still_hn000(data):
    result = document.lint_document(data, path_hint="t.json")
    assert [d.code for d in result.diagnostics] == ["HN000"]
    assert not result.skipped


def test_jsonc_with_an_explicit_format_is_hn000():
    result = document.lint_document(TSCONFIG, path_hint="t.json", format="openai-chat")
    assert [d.code for d in result.diagnostics] == ["HN000"]


def test_jsonc_named_on_the_command_line_is_skipped_not_an_error():
    put("settings.json", SETTINGS)
    put("tsconfig.json", TSCONFIG)
    result = invoke("lint", "settings.json", "tsconfig.json")
    assert result.exit_code == 0, result.output
    assert "HN000" not in result.output
    assert "2 files skipped: not a transcript." in result.output
    result = invoke("lint", "settings.json", "--output-format", "json")
    [record] = json.loads(result.stdout)
    assert record["skipped"] == "not-a-transcript"
    assert record["filename"] == "settings.json"


def test_a_typescript_repository_lints_clean():
    put("tsconfig.json", TSCONFIG)
    put("packages/web/tsconfig.build.json", TSCONFIG)
    put("jsconfig.json", TSCONFIG)
    put(".eslintrc.json", ESLINTRC)
    put(".vscode/settings.json", SETTINGS)
    put("package-lock.json", b'{"lockfileVersion": 3, "packages": {}}\n')
    put("composer.lock", b"{}\n")
    put("chats/one.json", CLEAN)
    result = invoke("lint", ".", "--output-format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == []  # the configurations were not even read
    result = invoke("lint", ".", "--include", "*")
    assert result.exit_code == 0, result.output
    assert "skipped" not in result.output


def test_pre_commit_excludes_known_configuration_files():
    put("tsconfig.json", TSCONFIG)
    put("web/tsconfig.app.json", TSCONFIG)
    put(".eslintrc.json", ESLINTRC)
    put("package-lock.json", b"{}\n")
    put("chat.json", ORPHAN)
    named = ["tsconfig.json", "web/tsconfig.app.json", ".eslintrc.json", "package-lock.json"]
    result = invoke("fix", "--force-exclude", *named, "chat.json")
    assert "4 named paths excluded" in result.output
    assert Path("tsconfig.json").read_bytes() == TSCONFIG
    assert Path("chat.json").read_bytes() != ORPHAN


# smaller ones

PRETTY_BROKEN = (
    b'{\n  "messages": [\n    {"role": "user", "content": "hi"},\n'
    b'    {"role": "assistant", "content": "hello"},\n  ]\n}\n'
)
"""Pretty-printed JSON with a trailing comma: one document, one precise HN000."""


def test_pretty_printed_json_on_stdin_is_read_as_json_not_jsonl():
    found = document.lint_document(PRETTY_BROKEN).diagnostics
    assert [(d.code, d.location.line) for d in found] == [("HN000", 4)]
    result = invoke("lint", "-", input=PRETTY_BROKEN)
    assert result.output.count("HN000") == 1, result.output
    assert ":4: HN000" in result.output


def test_jsonl_on_stdin_is_still_read_line_by_line():
    data = ORPHAN + b"not json\n" + CLEAN
    found = document.lint_document(data).diagnostics
    assert [(d.code, d.location.line) for d in found] == [("HN001", 1), ("HN000", 2)]


def test_a_removed_message_line_takes_no_blank_line_with_it():
    user = b'{"role":"user","content":"hi"}\n'
    orphan = b'{"role":"tool","tool_call_id":"nope","content":"x"}\n'
    reply = b'{"role":"assistant","content":"hello"}\n'
    data = user + b"\n" + orphan + b"\n\n" + reply
    result = document.fix_document(data, path_hint="s.jsonl")
    assert result.applied == {"HN002": 1}
    assert result.output == user + b"\n\n\n" + reply
    at_end = document.fix_document(user + reply + b"\n" + orphan, path_hint="s.jsonl")
    assert at_end.output == user + reply + b"\n"


def test_a_file_that_failed_is_not_counted_as_checked(monkeypatch):
    import histnorm_cli.per_file as per_file

    real = per_file.check_document
    seen: list[bytes] = []

    def first_fails(data: bytes, *args: object, **kwargs: object) -> object:
        seen.append(data)
        if len(seen) == 1:
            raise RuntimeError("boom")
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(per_file, "check_document", first_fails)
    put("a.json", CLEAN)
    put("b.json", CLEAN)
    result = invoke("lint", "a.json")
    assert result.exit_code == 2
    assert "internal error" in result.stderr
    assert "checked" not in result.stdout
    assert "1 path could not be processed." in result.stdout
    seen.clear()
    result = invoke("lint", "a.json", "b.json")
    assert "No diagnostics in the 1 file checked." in result.stdout


def test_a_symlink_loop_is_reported_as_one():
    import os

    os.symlink("loop-b.json", "loop-a.json")
    os.symlink("loop-a.json", "loop-b.json")
    os.symlink("gone.json", "dangling.json")
    result = invoke("lint", "loop-a.json", "dangling.json", "missing.json")
    assert result.exit_code == 2
    errors = result.stderr.splitlines()
    assert "loop-a.json: a symlink loop" in errors[0]
    assert "no such file" not in errors[0]
    assert "dangling.json: a broken symlink (it points to gone.json" in errors[1]
    assert "missing.json: no such file or directory" in errors[2]


def test_a_newline_in_a_file_name_stays_on_its_report_line():
    put("a\nb.json", ORPHAN)
    put("c\rd.json", b'[{"role": "user", "content": "hi"} not json')
    result = invoke("lint", ".")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("a\\nb.json:1: HN001 ")
    assert lines[1].startswith("c\\rd.json:1: HN000 ")
    result = invoke("fix", "--check", "--show-fixes", ".")
    fixes = result.stdout.splitlines()
    assert any(line.startswith("  HN001 a\\nb.json:1 /1/tool_calls/0") for line in fixes)
    result = invoke("lint", ".", "--output-format", "github")
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert [line.split(",")[0] for line in annotations] == [
        "::error file=a%0Ab.json",
        "::error file=c%0Dd.json",
    ]
    result = invoke("lint", "gone\nx.json")
    assert "histnorm: error: gone\\nx.json: no such file or directory" in result.stderr


# temporary files a killed fix left behind


def _dead_pid() -> int:
    """The pid of a process that has exited (and been waited for)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        check=True,
    )
    return int(done.stdout)


def test_a_temporary_file_names_its_run_and_is_locked_while_written():
    put("x.json", CLEAN)
    with AtomicWriter(Path("x.json")) as writer:
        assert writer.temp.name.startswith(f".x.json.p{os.getpid()}.")
        fd = os.open(writer.temp, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)


def test_fix_removes_its_own_stale_temporary_files_and_nothing_else():
    dead = _dead_pid()
    put("big.jsonl", ORPHAN + ORPHAN)
    stale = [f".big.jsonl.p{dead}.abcd_123.histnorm", f".big.jsonl.1.p{dead}.a1b2c3d4.histnorm"]
    kept = [
        f".big.jsonl.p{os.getpid()}.abcdefgh.histnorm",  # a live run's
        ".big.jsonl.abcdefgh.histnorm",  # no owner named: not provably histnorm's
        f".other.jsonl.p{dead}.abcdefgh.histnorm",  # another file's
        f".big.jsonl.p{dead}.abcdefgh.histnorm.bak",  # another name
        f"big.jsonl.p{dead}.abcdefgh.histnorm",  # no leading dot
        f".big.jsonl.p{dead}.locked00.histnorm",  # someone holds its lock
    ]
    for name in stale + kept:
        put(name, b'{"half": "written')
    link = Path(f".big.jsonl.p{dead}.symlink0.histnorm")
    link.symlink_to("elsewhere.json")
    put("elsewhere.json", CLEAN)
    assert invoke("lint", "big.jsonl").exit_code == 1
    assert invoke("fix", "--check", "big.jsonl").exit_code == 1
    assert all(Path(name).exists() for name in stale)  # only a fix that writes cleans up
    held = os.open(kept[-1], os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = invoke("fix", "big.jsonl")
    finally:
        os.close(held)
    assert result.exit_code == 0, result.output
    assert [name for name in stale if Path(name).exists()] == []
    assert [name for name in kept if not Path(name).exists()] == []
    assert link.is_symlink()
    assert Path("elsewhere.json").read_bytes() == CLEAN
    assert result.stderr.count("a temporary file a stopped run left behind") == 2
    assert b"tool_calls" not in Path("big.jsonl").read_bytes()


def test_quiet_removes_stale_temporary_files_without_a_word():
    stale = Path(f".one.json.p{_dead_pid()}.abcdefgh.histnorm")
    put("one.json", CLEAN)
    put(stale.name, b"[")
    result = invoke("fix", "--quiet", "one.json")
    assert result.exit_code == 0, result.output
    assert not stale.exists()
    assert result.stderr == ""
    assert Path("one.json").read_bytes() == CLEAN


def test_jsonc_with_an_envelope_key_of_no_messages_is_skipped():
    data = b'{\n  "input": ["src/**/*.ts"], // globs\n  "output": "dist",\n}\n'
    result = document.lint_document(data, path_hint="build.json")
    assert result.diagnostics == ()
    assert result.skipped_file


@settings(max_examples=60, deadline=None)
@given(value=JSON_VALUES, indent=st.sampled_from([None, 2]))
def test_the_readable_prefix_of_valid_json_is_the_whole_value(value, indent):
    text = json.dumps(value, indent=indent)
    assert readable_prefix(text) == value
    if isinstance(value, list | dict):  # cut short: still the container it starts
        cut = readable_prefix(text[: max(1, len(text) // 2)] + "// a comment")
        assert type(cut) is type(value)
