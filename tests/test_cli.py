"""The `histnorm` command line, driven through typer's CliRunner.

Every test runs in its own `tmp_path` as the working directory, so printed paths are
relative and stable, and nothing outside it is ever written. The exit-code contract:
0 no error-severity diagnostics remain, 1 diagnostics remain (or `--check`/`--diff`
found changes, or an input was unreadable: HN000), 2 histnorm itself failed (bad usage
or configuration, a path that does not exist or cannot be read or written, a bug).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from histnorm_cli import per_file as runner_module
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

import histnorm
from histnorm.engine import FixDidNotConverge
from histnorm.profiles import PROFILES
from histnorm.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
SCHEMAS = ROOT / "schemas"
SARIF_SCHEMA = SCHEMAS / "vendor" / "sarif-2.1.0-rtm.5.json"
OLD_NS = 1_600_000_000_123_456_789
"""An mtime far in the past: any rewrite would move it to now."""

CLEAN = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]\n'

ORPHAN_CALL = b"""[
  {"role": "user", "content": "Weather in Oslo, and book a table?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_w", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
    {"id": "call_b", "type": "function", "function": {"name": "book", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
  {"role": "user", "content": "Never mind the table."}
]
"""
"""HN001 (error, safe fix) at line 5: `call_b` has no result but the user wrote again."""

CONFLICT = orjson.dumps(
    [
        {"role": "user", "content": "Weather and time in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"tz":"Europe/Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "4 C"},
        {"role": "tool", "tool_call_id": "call_0", "content": "17:42"},
        {"role": "assistant", "content": "4 C at 17:42."},
    ],
    option=orjson.OPT_INDENT_2,
)
"""HN007 (warning) and HN010 (error): both fixes are unsafe (they choose between values)."""

OPEN_AT_END = orjson.dumps(
    [
        {"role": "user", "content": "Weather and time in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_w",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{}"},
                },
                {
                    "id": "call_t",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_t", "content": "17:42"},
    ],
    option=orjson.OPT_INDENT_2,
)
"""HN011 (info) with the default tail=keep; HN001 with tail=close."""

SESSION = (
    b'{"role":"user","content":"hi"}\n'
    b'{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",'
    b'"function":{"name":"f","arguments":"{}"}}]}\n'
    b'{"role":"user","content":"again"}\n'
)
"""One message per line (a session log): HN001 on line 2."""

BROKEN = b'[{"role": "user", "content": "hi"} {not json\n'
"""A message list that stops being JSON (what does not read as a transcript is skipped)."""


pytestmark = pytest.mark.usefixtures("cli_workdir")


def invoke(
    *args: str, input: bytes | str | None = None, env: dict[str, str] | None = None
) -> Result:
    return CliRunner().invoke(app, list(args), input=input, env=env)


def put(name: str, data: bytes, mode: int | None = None, mtime_ns: int | None = None) -> Path:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        path.chmod(mode)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def copy_demo(folder: str = ".") -> list[str]:
    Path(folder).mkdir(parents=True, exist_ok=True)
    names = []
    for source in sorted(DEMO.iterdir()):
        shutil.copyfile(source, Path(folder) / source.name)
        names.append(source.name)
    return names


def tree(root: Path = Path(".")) -> dict[str, tuple[bytes, int, int]]:
    """Every regular file below `root`: bytes, mtime (ns) and permission bits."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_mode)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def codes(result: Result) -> list[str]:
    return [record["code"] for record in orjson.loads(result.stdout)]


def lint_clean(path: Path) -> bool:
    return invoke("lint", "--output-format", "json", str(path)).exit_code == 0


# --- lint: inputs and exit codes -------------------------------------------------------


def test_lint_clean_file_exits_0():
    put("clean.json", CLEAN)
    result = invoke("lint", "clean.json")
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed!\n"
    assert result.stderr == ""


def test_lint_dirty_file_exits_1():
    put("orphan.json", ORPHAN_CALL)
    result = invoke("lint", "orphan.json")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        "orphan.json:5: HN001 [*] tool call 'call_b' (book) has no result, but later messages "
        "follow (at /1/tool_calls/1)",
        "Found 1 diagnostic (1 error) in 1 transcript.",
        "[*] 1 fixable with `histnorm fix`.",
    ]


def test_lint_unreadable_input_is_hn000_and_exits_1():
    put("broken.json", BROKEN)
    put("binary.json", b'[{"role": "user", "content": "\xff\xfe\x00garbage"}]')
    put("garbage.json", b"\xff\xfe\x00garbage")  # nothing reads as a transcript
    result = invoke("lint", "broken.json", "binary.json", "garbage.json")
    assert result.exit_code == 1, result.output
    assert result.stderr == ""
    assert result.stdout.startswith("broken.json:1: HN000 not valid JSON")
    assert "binary.json" in result.stdout
    assert result.stdout.count(" HN000 ") == 2
    assert "1 file skipped: not a transcript." in result.stdout


def test_lint_missing_path_among_good_ones_exits_2_and_reports_the_others():
    put("clean.json", CLEAN)
    put("orphan.json", ORPHAN_CALL)
    result = invoke("lint", "clean.json", "missing.json", "orphan.json")
    assert result.exit_code == 2, result.output
    assert "missing.json" in result.stderr
    assert "orphan.json:5: HN001" in result.stdout
    assert "in 2 transcripts" in result.stdout
    assert "1 path could not be processed." in result.stdout


def test_lint_dangling_symlink_exits_2():
    put("orphan.json", ORPHAN_CALL)
    Path("dangling.json").symlink_to("nowhere.json")
    result = invoke("lint", "dangling.json", "orphan.json")
    assert result.exit_code == 2
    assert "dangling.json" in result.stderr
    assert "orphan.json:5: HN001" in result.stdout


def test_lint_path_that_cannot_be_read_exits_2_and_reports_the_others(monkeypatch):
    # Running as root makes chmod 000 useless, so the read failure is simulated.
    put("secret.json", ORPHAN_CALL)
    put("orphan.json", ORPHAN_CALL)
    real = runner_module.read_regular

    def read_regular(path: str) -> Any:
        if Path(path).name == "secret.json":
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(runner_module, "read_regular", read_regular)
    result = invoke("lint", "secret.json", "orphan.json")
    assert result.exit_code == 2, result.output
    assert "secret.json: Permission denied" in result.stderr
    assert "orphan.json:5: HN001" in result.stdout


def test_lint_internal_error_in_one_file_exits_2_and_reports_the_others(monkeypatch):
    """An unexpected exception is a histnorm bug: exit 2, and the other files still run."""
    put("a.json", ORPHAN_CALL)
    put("boom.json", b'[{"role":"user","content":"boom"}]')
    put("z.json", ORPHAN_CALL)
    real = runner_module.is_jsonl

    def is_jsonl(path: str, data: bytes | None) -> bool:
        if "boom" in path:
            raise RuntimeError("simulated bug")
        return real(path, data)

    monkeypatch.setattr(runner_module, "is_jsonl", is_jsonl)
    result = invoke("lint", "a.json", "boom.json", "z.json")
    assert result.exit_code == 2, result.output
    assert "a.json:5: HN001" in result.stdout
    assert "z.json:5: HN001" in result.stdout
    assert "boom.json" in result.stderr


def test_fix_that_does_not_converge_exits_2_and_fixes_the_others(monkeypatch):
    put("a.json", ORPHAN_CALL)
    put("loop.json", b'[{"role":"user","content":"loop"}]')
    real = runner_module.is_jsonl

    def is_jsonl(path: str, data: bytes | None) -> bool:
        if "loop" in path:
            raise FixDidNotConverge("fixes kept changing the transcript")
        return real(path, data)

    monkeypatch.setattr(runner_module, "is_jsonl", is_jsonl)
    result = invoke("fix", "a.json", "loop.json")
    assert result.exit_code == 2, result.output
    assert "loop.json: internal error" in result.stderr
    assert Path("a.json").read_bytes() != ORPHAN_CALL
    assert lint_clean(Path("a.json"))


def test_lint_folder_is_recursive_with_default_globs():
    put("a/one.json", ORPHAN_CALL)
    put("a/b/two.jsonl", orjson.dumps({"messages": orjson.loads(ORPHAN_CALL)}) + b"\n")
    put("a/b/notes.txt", ORPHAN_CALL)
    put("a/b/c/three.JSON", ORPHAN_CALL)
    result = invoke("lint", "a")
    assert result.exit_code == 1
    assert "a/one.json:5: HN001" in result.stdout
    assert "a/b/two.jsonl:1: HN001" in result.stdout
    assert "notes.txt" not in result.stdout
    # A file named explicitly is always taken, whatever its suffix.
    named = invoke("lint", "a/b/notes.txt")
    assert named.exit_code == 1
    assert "a/b/notes.txt:5: HN001" in named.stdout


def test_lint_without_paths_lints_the_working_directory():
    put("sub/orphan.json", ORPHAN_CALL)
    result = invoke("lint")
    assert result.exit_code == 1
    assert "sub/orphan.json:5: HN001" in result.stdout


def test_include_and_exclude_globs():
    put("d/keep.json", ORPHAN_CALL)
    put("d/skip.json", ORPHAN_CALL)
    put("d/log.txt", ORPHAN_CALL)
    result = invoke("lint", "d", "--include", "*.txt", "--include", "*.json", "--exclude", "skip*")
    assert "d/keep.json:5" in result.stdout
    assert "d/log.txt:5" in result.stdout
    assert "skip.json" not in result.stdout
    only_txt = invoke("lint", "d", "--include", "*.txt")
    assert "d/log.txt:5" in only_txt.stdout
    assert ".json" not in only_txt.stdout


def test_lint_stdin():
    result = invoke("lint", "-", input=ORPHAN_CALL)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("-:5: HN001 [*] tool call 'call_b'")
    clean = invoke("lint", "-", input=CLEAN)
    assert clean.exit_code == 0
    assert clean.stdout == "All checks passed!\n"


def test_lint_stdin_jsonl():
    data = (DEMO / "dataset.openai-chat.jsonl").read_bytes()
    result = invoke("lint", "-", input=data)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("-:3: HN002")
    assert "in 3 transcripts" in result.stdout


# --- lint: common options ---------------------------------------------------------------


def test_exit_zero():
    put("orphan.json", ORPHAN_CALL)
    result = invoke("lint", "--exit-zero", "orphan.json")
    assert result.exit_code == 0
    assert "HN001" in result.stdout
    # --exit-zero never hides a failure of histnorm itself.
    assert invoke("lint", "--exit-zero", "orphan.json", "missing.json").exit_code == 2


def test_strict_makes_warnings_fail():
    put("conflict.json", CONFLICT)
    plain = invoke("lint", "--select", "HN007", "conflict.json")
    assert plain.exit_code == 0, plain.output
    assert "HN007" in plain.stdout
    strict = invoke("lint", "--select", "HN007", "--strict", "conflict.json")
    assert strict.exit_code == 1


def test_info_never_fails_even_with_strict():
    put("open.json", OPEN_AT_END)
    for extra in ([], ["--strict"]):
        result = invoke("lint", *extra, "open.json")
        assert result.exit_code == 0, result.output
        assert "HN011" in result.stdout
        assert "1 info" in result.stdout


def test_statistics_and_quiet():
    copy_demo()
    stats = invoke("lint", "--statistics", ".")
    assert "     1  HN001  orphan-tool-call" in stats.stdout
    assert "     1  HN008  displaced-tool-result" in stats.stdout
    quiet = invoke("lint", "--quiet", ".")
    assert quiet.exit_code == 1
    assert "Found" not in quiet.stdout
    assert len(quiet.stdout.splitlines()) == 3
    assert all(" HN0" in line for line in quiet.stdout.splitlines())
    counts = invoke("lint", "-q", "--statistics", ".").stdout
    assert len(re.findall(r"^ +\d+  HN00\d  ", counts, re.MULTILINE)) == 3


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], ["HN001", "HN002", "HN008"]),
        (["--select", "HN001"], ["HN001"]),
        (["--select", "orphan-tool-call"], ["HN001"]),
        (["--select", "HN001", "--select", "displaced-tool-result"], ["HN001", "HN008"]),
        (["--ignore", "HN001"], ["HN002", "HN008"]),
        (["--ignore", "orphan-tool-call", "--ignore", "HN002"], ["HN008"]),
        (["--select", "HN001", "--ignore", "orphan-tool-call"], []),
    ],
)
def test_select_and_ignore_by_code_and_name(flags, expected):
    copy_demo()
    result = invoke("lint", "--output-format", "json", *flags, ".")
    assert sorted(codes(result)) == expected
    assert result.exit_code == (1 if expected else 0)


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "--select", "HN999", "x.json"],
        ["lint", "--ignore", "no-such-rule", "x.json"],
        ["fix", "--select", "HN999", "x.json"],
        ["rule", "HN999"],
    ],
)
def test_unknown_rule_exits_2(args):
    put("x.json", ORPHAN_CALL)
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert "unknown rule" in result.stderr
    assert Path("x.json").read_bytes() == ORPHAN_CALL


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "--output-format", "xml", "x.json"],
        ["lint", "--jobs", "0", "x.json"],
        ["lint", "--tail", "sometimes", "x.json"],
        ["lint", "--scope", "middle", "x.json"],
        ["fix", "--policy", "orphan-tool-call", "x.json"],
        ["fix", "--policy", "no-such-policy=drop", "x.json"],
        ["fix", "--policy", "orphan-tool-call=ignore", "x.json"],
        ["fix", "-o", "out.json", "x.json", "y.json"],
        ["lint", "--no-such-flag", "x.json"],
    ],
)
def test_bad_usage_exits_2_and_writes_nothing(args):
    put("x.json", ORPHAN_CALL)
    put("y.json", ORPHAN_CALL)
    before = tree()
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert tree() == before


def test_format_option_forces_the_codec():
    shutil.copyfile(DEMO / "approval-resumed.meai.json", "meai.json")
    detected = invoke("lint", "meai.json")
    assert "HN008" in detected.stdout
    forced = invoke("lint", "--format", "openai-chat", "meai.json")
    assert forced.exit_code == 1
    assert "meai.json: HN000" in forced.stdout
    assert invoke("lint", "--format", "meai", "meai.json").stdout == detected.stdout


def test_unknown_format_is_bad_usage():
    """`--format bogus` is a usage error (exit 2), not an unreadable input in every file."""
    put("x.json", ORPHAN_CALL)
    result = invoke("lint", "--format", "bogus", "x.json")
    assert result.exit_code == 2, result.output
    assert "bogus" in result.stderr


def test_jsonl_mode_detected_and_overridden():
    put("session.jsonl", SESSION)
    detected = invoke("lint", "session.jsonl")
    assert detected.exit_code == 1
    assert detected.stdout.startswith("session.jsonl:2: HN001 [*] tool call 'c1'")
    assert "in 1 transcript." in detected.stdout
    forced = invoke("lint", "--jsonl-mode", "transcript", "session.jsonl")
    assert forced.exit_code == 1
    assert forced.stdout.count(": HN000 ") == 3
    shutil.copyfile(DEMO / "dataset.openai-chat.jsonl", "dataset.jsonl")
    as_messages = invoke(
        "lint", "--jsonl-mode", "message", "--output-format", "json", "dataset.jsonl"
    )
    assert codes(as_messages) == ["HN000"]


@pytest.mark.parametrize("name", ["session.jsonl", "-"])
def test_unknown_jsonl_mode_is_bad_usage(name):
    """`--jsonl-mode bogus` exits 2 naming the option, for every kind of input."""
    put("session.jsonl", SESSION)
    result = invoke("lint", "--jsonl-mode", "bogus", name, input=SESSION)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "jsonl" in result.stderr


def test_jobs_2_gives_the_same_output_as_jobs_1(tmp_path):
    for folder in ("one", "two"):
        copy_demo(folder)
        put(f"{folder}/orphan.json", ORPHAN_CALL)
        put(f"{folder}/conflict.json", CONFLICT)
        put(f"{folder}/open.json", OPEN_AT_END)
        put(f"{folder}/session.jsonl", SESSION)
        put(f"{folder}/broken.json", BROKEN)
        put(f"{folder}/clean.json", CLEAN)
    os.chdir(tmp_path / "one")
    for output in ("text", "json", "sarif"):
        serial = invoke("lint", "--output-format", output, "--jobs", "1", ".")
        parallel = invoke("lint", "--output-format", output, "--jobs", "2", ".")
        assert serial.exit_code == parallel.exit_code == 1
        assert parallel.stdout == serial.stdout
    diff1 = invoke("fix", "--diff", "-j", "1", ".")
    diff2 = invoke("fix", "--diff", "-j", "2", ".")
    assert diff2.stdout == diff1.stdout
    assert diff1.stdout.count("\n--- ") + diff1.stdout.startswith("--- ") == 5
    fixed1 = invoke("fix", "-j", "1", ".")
    os.chdir(tmp_path / "two")
    fixed2 = invoke("fix", "-j", "2", ".")
    assert (fixed1.exit_code, fixed1.stdout) == (fixed2.exit_code, fixed2.stdout)
    assert {k: v[0] for k, v in tree(tmp_path / "one").items()} == {
        k: v[0] for k, v in tree(tmp_path / "two").items()
    }


# --- output formats ------------------------------------------------------------------


def _broken_folder() -> None:
    copy_demo()
    put("broken.json", BROKEN)
    put("conflict.json", CONFLICT)
    put("open.json", OPEN_AT_END)


def test_json_output_validates_against_the_report_schema():
    _broken_folder()
    schema = orjson.loads((SCHEMAS / "report.schema.json").read_bytes())
    validator = jsonschema.Draft202012Validator(schema)
    result = invoke("lint", "--output-format", "json", ".")
    assert result.exit_code == 1
    report = orjson.loads(result.stdout)
    validator.validate(report)
    assert {r["code"] for r in report} >= {"HN000", "HN001", "HN002", "HN007", "HN008", "HN011"}
    assert all(r["filename"] for r in report)
    # An empty run is an empty array, still valid.
    put("clean/clean.json", CLEAN)
    empty = invoke("lint", "--output-format", "json", "clean")
    assert empty.exit_code == 0
    assert orjson.loads(empty.stdout) == []


def test_jsonl_output_is_one_valid_record_per_line():
    _broken_folder()
    schema = orjson.loads((SCHEMAS / "report.schema.json").read_bytes())
    validator = jsonschema.Draft202012Validator(schema)
    whole = orjson.loads(invoke("lint", "--output-format", "json", ".").stdout)
    lines = invoke("lint", "--output-format", "jsonl", ".").stdout.splitlines()
    records = [orjson.loads(line) for line in lines]
    validator.validate(records)
    assert records == whole


def test_sarif_output_validates_and_lists_every_rule():
    _broken_folder()
    schema = orjson.loads(SARIF_SCHEMA.read_bytes())
    result = invoke("lint", "--output-format", "sarif", ".")
    assert result.exit_code == 1
    log = orjson.loads(result.stdout)
    jsonschema.Draft4Validator(schema).validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "histnorm"
    assert driver["version"] == histnorm.__version__
    assert [r["id"] for r in driver["rules"]] == [rule.code for rule in ALL_RULES]
    assert [r["name"] for r in driver["rules"]] == [rule.name for rule in ALL_RULES]
    for entry, rule in zip(driver["rules"], ALL_RULES, strict=True):
        assert entry["help"]["text"] == rule.doc
    for entry in run["results"]:
        assert driver["rules"][entry["ruleIndex"]]["id"] == entry["ruleId"]
    report = orjson.loads(invoke("lint", "--output-format", "json", ".").stdout)
    assert [r["ruleId"] for r in run["results"]] == [r["code"] for r in report]
    assert {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    } == {r["filename"] for r in report}
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["HN001"] == "error"
    assert levels["HN007"] == "warning"
    assert levels["HN011"] == "note"


def test_sarif_for_stdin_validates():
    schema = orjson.loads(SARIF_SCHEMA.read_bytes())
    result = invoke("lint", "--output-format", "sarif", "-", input=ORPHAN_CALL)
    log = orjson.loads(result.stdout)
    jsonschema.Draft4Validator(schema).validate(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["HN001"]


def test_auto_is_github_annotations_on_github_actions():
    put("orphan.json", ORPHAN_CALL)
    put("conflict.json", CONFLICT)
    put("open.json", OPEN_AT_END)
    result = invoke(
        "lint", "conflict.json", "open.json", "orphan.json", env={"GITHUB_ACTIONS": "true"}
    )
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        "::error file=orphan.json,line=5,title=HN001 orphan-tool-call::tool call 'call_b' (book) "
        "has no result, but later messages follow (at /1/tool_calls/1)"
    ) in lines
    assert any(line.startswith("::warning file=conflict.json,") for line in lines)
    assert any(line.startswith("::notice file=open.json,") for line in lines)
    explicit = invoke(
        "lint", "--output-format", "auto", "orphan.json", env={"GITHUB_ACTIONS": "true"}
    )
    assert explicit.stdout.startswith("::error file=orphan.json,line=5,")


def test_auto_is_text_elsewhere():
    put("orphan.json", ORPHAN_CALL)
    for env in (None, {"GITHUB_ACTIONS": "false"}):
        result = invoke("lint", "--output-format", "auto", "orphan.json", env=env)
        assert result.stdout.startswith("orphan.json:5: HN001 [*]")


# --- fix: what is written --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("clean.json", CLEAN),
        ("clean.jsonl", b'{"messages":[{"role":"user","content":"hi"}]}\n' * 3),
        ("session.jsonl", b'{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n'),
        ("open.json", OPEN_AT_END),
    ],
)
def test_fix_leaves_a_clean_file_untouched_bytes_and_mtime(name, data):
    path = put(name, data, mtime_ns=OLD_NS)
    before = tree()
    result = invoke("fix", name)
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == data
    assert path.stat().st_mtime_ns == OLD_NS
    assert tree() == before


def test_fix_rewrites_a_changed_file_and_keeps_its_mode():
    path = put("orphan.json", ORPHAN_CALL, mode=0o640, mtime_ns=OLD_NS)
    put("clean.json", CLEAN, mtime_ns=OLD_NS)
    result = invoke("fix", ".")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Fixed 1 diagnostic in 1 file.\nNo diagnostics remain.\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_mtime_ns != OLD_NS
    fixed = orjson.loads(path.read_bytes())
    assert [m["role"] for m in fixed] == ["user", "assistant", "tool", "user"]
    assert [c["id"] for c in fixed[1]["tool_calls"]] == ["call_w"]
    assert Path("clean.json").stat().st_mtime_ns == OLD_NS
    assert sorted(os.listdir(".")) == ["clean.json", "orphan.json"]
    assert lint_clean(path)


def test_fix_jsonl_copies_unchanged_lines_byte_for_byte():
    original = (DEMO / "dataset.openai-chat.jsonl").read_bytes()
    path = put("dataset.jsonl", original, mode=0o600)
    result = invoke("fix", "dataset.jsonl")
    assert result.exit_code == 0, result.output
    before, after = original.splitlines(keepends=True), path.read_bytes().splitlines(keepends=True)
    assert after[:2] == before[:2]
    assert after[2] != before[2]
    assert after[2].endswith(b"\n")
    assert [m["role"] for m in orjson.loads(after[2])["messages"]] == ["user", "assistant"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(os.listdir(".")) == ["dataset.jsonl"]


def test_fix_session_jsonl():
    path = put("session.jsonl", SESSION)
    result = invoke("fix", "session.jsonl")
    assert result.exit_code == 0, result.output
    assert (
        path.read_bytes() == b'{"role":"user","content":"hi"}\n{"role":"user","content":"again"}\n'
    )


def test_fix_writes_the_target_of_a_symlink_and_keeps_the_link():
    target = put("store/real.json", ORPHAN_CALL, mode=0o640)
    link = Path("link.json")
    link.symlink_to(Path("store") / "real.json")
    result = invoke("fix", "link.json")
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert os.readlink(link) == os.path.join("store", "real.json")
    assert target.read_bytes() != ORPHAN_CALL
    assert lint_clean(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(".")) == ["link.json", "store"]
    assert os.listdir("store") == ["real.json"]


def test_fix_backup_keeps_the_original():
    path = put("orphan.json", ORPHAN_CALL)
    put("clean.json", CLEAN)
    result = invoke("fix", "--backup", ".")
    assert result.exit_code == 0, result.output
    assert Path("orphan.json.bak").read_bytes() == ORPHAN_CALL
    assert path.read_bytes() != ORPHAN_CALL
    assert not Path("clean.json.bak").exists()
    assert sorted(os.listdir(".")) == ["clean.json", "orphan.json", "orphan.json.bak"]


def test_fix_backup_keeps_the_original_mode():
    """A 0640 transcript must not get a world-readable backup."""
    put("orphan.json", ORPHAN_CALL, mode=0o640)
    assert invoke("fix", "--backup", "orphan.json").exit_code == 0
    assert stat.S_IMODE(Path("orphan.json.bak").stat().st_mode) == 0o640


def test_fix_stdin_to_stdout():
    result = invoke("fix", "-", input=ORPHAN_CALL)
    assert result.exit_code == 0, result.output
    fixed = orjson.loads(result.stdout_bytes)
    assert [c["id"] for c in fixed[1]["tool_calls"]] == ["call_w"]
    assert "Fixed 1 diagnostic" in result.stderr
    assert os.listdir(".") == []


def test_fix_stdin_jsonl_to_stdout():
    original = (DEMO / "dataset.openai-chat.jsonl").read_bytes()
    result = invoke("fix", "-", input=original)
    assert result.exit_code == 0, result.output
    out = result.stdout_bytes.splitlines(keepends=True)
    assert out[:2] == original.splitlines(keepends=True)[:2]
    assert len(out) == 3
    assert "Fixed 1 diagnostic" in result.stderr


def test_fix_stdin_that_needs_no_fix_is_echoed():
    """`histnorm fix - < in > out` is a filter: clean input must come out unchanged."""
    result = invoke("fix", "-", input=CLEAN)
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == CLEAN


def test_fix_output_file_leaves_the_input_alone():
    put("orphan.json", ORPHAN_CALL, mtime_ns=OLD_NS)
    result = invoke("fix", "orphan.json", "-o", "fixed.json")
    assert result.exit_code == 0, result.output
    assert Path("orphan.json").read_bytes() == ORPHAN_CALL
    assert Path("orphan.json").stat().st_mtime_ns == OLD_NS
    assert lint_clean(Path("fixed.json"))
    # A clean input is still written to -o, unchanged.
    put("clean.json", CLEAN)
    assert invoke("fix", "clean.json", "--output", "copy.json").exit_code == 0
    assert Path("copy.json").read_bytes() == CLEAN
    # JSONL goes through the streaming path.
    shutil.copyfile(DEMO / "dataset.openai-chat.jsonl", "dataset.jsonl")
    assert invoke("fix", "dataset.jsonl", "-o", "dataset.fixed.jsonl").exit_code == 0
    assert Path("dataset.jsonl").read_bytes() == (DEMO / "dataset.openai-chat.jsonl").read_bytes()
    assert len(Path("dataset.fixed.jsonl").read_bytes().splitlines()) == 3
    assert lint_clean(Path("dataset.fixed.jsonl"))


def test_fix_output_dash_is_stdout():
    put("orphan.json", ORPHAN_CALL)
    result = invoke("fix", "orphan.json", "-o", "-")
    assert result.exit_code == 0, result.output
    assert [c["id"] for c in orjson.loads(result.stdout_bytes)[1]["tool_calls"]] == ["call_w"]
    assert Path("orphan.json").read_bytes() == ORPHAN_CALL
    shutil.copyfile(DEMO / "dataset.openai-chat.jsonl", "dataset.jsonl")
    jsonl = invoke("fix", "dataset.jsonl", "-o", "-")
    assert len(jsonl.stdout_bytes.splitlines()) == 3
    assert sorted(os.listdir(".")) == ["dataset.jsonl", "orphan.json"]


def test_fix_new_output_file_gets_ordinary_permissions():
    """-o creates a normal file (0666 minus the umask), not a private 0600 temp file."""
    put("orphan.json", ORPHAN_CALL)
    umask = os.umask(0o022)
    try:
        assert invoke("fix", "orphan.json", "-o", "fixed.json").exit_code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(Path("fixed.json").stat().st_mode) == 0o644


def test_fix_output_that_cannot_be_written_exits_2_naming_it():
    put("orphan.json", ORPHAN_CALL)
    result = invoke("fix", "orphan.json", "-o", "no-such-dir/fixed.json")
    assert result.exit_code == 2, result.output
    assert "no-such-dir/fixed.json" in result.stderr
    assert Path("orphan.json").read_bytes() == ORPHAN_CALL


def test_fix_write_failure_exits_2_and_fixes_the_others(monkeypatch):
    put("a.json", ORPHAN_CALL)
    put("locked.json", ORPHAN_CALL)
    put("z.jsonl", orjson.dumps({"messages": orjson.loads(ORPHAN_CALL)}) + b"\n")
    real = os.replace

    def replace(src: Any, dst: Any) -> None:
        if Path(dst).name == "locked.json":
            raise PermissionError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    result = invoke("fix", ".")
    assert result.exit_code == 2, result.output
    assert "locked.json" in result.stderr
    assert Path("locked.json").read_bytes() == ORPHAN_CALL
    assert lint_clean(Path("a.json"))
    assert lint_clean(Path("z.jsonl"))
    assert sorted(os.listdir(".")) == ["a.json", "locked.json", "z.jsonl"]


def test_fix_diff_prints_a_unified_diff_and_writes_nothing():
    copy_demo()
    put("clean.json", CLEAN)
    before = tree()
    result = invoke("fix", "--diff", ".")
    assert result.exit_code == 1, result.output
    assert tree() == before
    out = result.stdout
    assert "--- cancelled-stream.openai-chat.json\n+++ cancelled-stream.openai-chat.json\n" in out
    jsonl = "dataset.openai-chat.jsonl"
    assert f"--- {jsonl}\n+++ {jsonl}\n@@ line 3: HN002 @@\n" in out
    assert "clean.json" not in out
    assert '\n-        {"id": "call_book", "type": "function"' in out
    assert "Would fix 3 diagnostics in 3 files." in result.stderr
    nothing = invoke("fix", "--diff", "clean.json")
    assert nothing.exit_code == 0
    assert nothing.stdout == ""


def apply_unified(old: bytes, diff: str) -> bytes:
    """Apply the hunks of a one-file unified diff to `old`, strictly (context must match)."""
    lines = old.decode().splitlines(keepends=True)
    rows = diff.splitlines(keepends=True)[2:]
    hunks: list[tuple[int, list[tuple[str, str]]]] = []
    for row in rows:
        if row.startswith("@@"):
            match = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", row)
            assert match, row
            start = int(match.group(1)) - (1 if match.group(2) != "0" else 0)
            hunks.append((start, []))
        elif row.startswith("\\"):
            tag, text = hunks[-1][1][-1]
            assert text.endswith("\n")
            hunks[-1][1][-1] = (tag, text[:-1])
        else:
            hunks[-1][1].append((row[0], row[1:]))
    out: list[str] = []
    pos = 0
    for start, body in hunks:
        out.extend(lines[pos:start])
        pos = start
        for tag, text in body:
            if tag in " -":
                assert lines[pos] == text, (pos, lines[pos], text)
                pos += 1
            if tag in " +":
                out.append(text)
    out.extend(lines[pos:])
    return "".join(out).encode()


def split_diff(text: str) -> dict[str, str]:
    """The diff of each file in `fix --diff` output, by path."""
    starts = [m.start() for m in re.finditer(r"^--- (.+)\n\+\+\+ \1\n", text, re.M)]
    parts = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    return {part.split("\n", 1)[0][4:]: part for part in parts}


def pretty_lines(data: bytes) -> set[str]:
    """Every line of each record of `data` (one per line) pretty-printed, as `--diff`
    shows the records of JSONL and one-line JSON."""
    return {
        line
        for record in data.splitlines()
        if record.strip()
        for line in json.dumps(json.loads(record), indent=2, ensure_ascii=False).splitlines()
    }


def test_fix_diff_applies_as_a_patch_to_give_the_fixed_file(tmp_path):
    """What `--diff` prints is exactly what `fix` would write: an applicable patch for a
    file laid out over lines; for JSONL and one-line JSON, the records it changes
    pretty-printed before and after."""
    copy_demo()
    put("orphan.json", ORPHAN_CALL)
    put(
        "nonl.json",
        b'[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"x","content":"1"}]',
    )
    put(
        "nonl.jsonl",
        b'{"messages":[{"role":"user","content":"a"}]}\n'
        b'{"messages":[{"role":"tool","tool_call_id":"x","content":"1"},'
        b'{"role":"user","content":"a"}]}',
    )
    originals = {name: Path(name).read_bytes() for name in os.listdir(".")}
    diff = invoke("fix", "--diff", ".")
    assert diff.exit_code == 1
    per_file = split_diff(diff.stdout)
    assert sorted(per_file) == sorted(originals)
    assert invoke("fix", ".").exit_code == 0
    by_record = {"nonl.json", "nonl.jsonl", "dataset.openai-chat.jsonl"}
    for name, old in originals.items():
        new = Path(name).read_bytes()
        if name not in by_record:
            assert apply_unified(old, per_file[name]) == new, name
            continue
        rows = per_file[name].splitlines()[2:]
        assert rows[0].startswith("@@ line "), name
        before, after = pretty_lines(old), pretty_lines(new)
        for row in rows:
            assert row.startswith("@@ line ") or row[1:] in (after if row[0] == "+" else before)


def test_fix_check_exits_1_and_writes_nothing():
    copy_demo()
    put("clean.json", CLEAN)
    before = tree()
    result = invoke("fix", "--check", ".")
    assert result.exit_code == 1, result.output
    assert tree() == before
    assert "Would fix 3 diagnostics in 3 files." in result.stdout
    assert invoke("fix", "--check", "clean.json").exit_code == 0
    stdin = invoke("fix", "--check", "-", input=ORPHAN_CALL)
    assert stdin.exit_code == 1
    assert "Would fix 1 diagnostic" in stdin.stdout
    assert tree() == before


def test_fix_unreadable_input_exits_1_and_is_untouched():
    put("broken.json", BROKEN, mtime_ns=OLD_NS)
    result = invoke("fix", "broken.json")
    assert result.exit_code == 1, result.output
    assert "HN000" in result.stdout
    assert Path("broken.json").read_bytes() == BROKEN
    assert Path("broken.json").stat().st_mtime_ns == OLD_NS


def test_unsafe_fixes_change_the_result():
    path = put("conflict.json", CONFLICT, mtime_ns=OLD_NS)
    safe = invoke("fix", "conflict.json")
    assert safe.exit_code == 1, safe.output
    assert "HN010" in safe.stdout
    assert "3 more fixable with `--unsafe-fixes`." in safe.stdout
    assert path.read_bytes() == CONFLICT
    assert path.stat().st_mtime_ns == OLD_NS
    unsafe = invoke("fix", "--unsafe-fixes", "conflict.json")
    assert unsafe.exit_code == 0, unsafe.output
    fixed = orjson.loads(path.read_bytes())
    calls = fixed[1]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_time"]  # HN016
    assert [m.get("tool_call_id") for m in fixed[2:4]] == [c["id"] for c in calls]
    assert [m["role"] for m in fixed] == ["user", "assistant", "tool", "tool", "assistant"]


def test_policy_synthesize_changes_the_fix():
    put("drop.json", ORPHAN_CALL)
    put("synth.json", ORPHAN_CALL)
    assert invoke("fix", "drop.json").exit_code == 0
    result = invoke("fix", "--policy", "orphan-tool-call=synthesize", "synth.json")
    assert result.exit_code == 0, result.output
    dropped = orjson.loads(Path("drop.json").read_bytes())
    synthesized = orjson.loads(Path("synth.json").read_bytes())
    assert [c["id"] for c in dropped[1]["tool_calls"]] == ["call_w"]
    assert [c["id"] for c in synthesized[1]["tool_calls"]] == ["call_w", "call_b"]
    assert synthesized[3] == {
        "role": "tool",
        "tool_call_id": "call_b",
        "content": "Tool call was interrupted before it produced a result.",
    }
    # policy fail: report only, nothing written.
    put("fail.json", ORPHAN_CALL)
    failed = invoke("fix", "--policy", "orphan-tool-call=fail", "fail.json")
    assert failed.exit_code == 1
    assert Path("fail.json").read_bytes() == ORPHAN_CALL


def test_tail_keep_and_close():
    path = put("open.json", OPEN_AT_END)
    keep = invoke("lint", "--tail", "keep", "open.json")
    assert keep.exit_code == 0
    assert "HN011" in keep.stdout
    close = invoke("lint", "--tail", "close", "open.json")
    assert close.exit_code == 1
    assert "HN001" in close.stdout
    assert invoke("fix", "open.json").exit_code == 0
    assert path.read_bytes() == OPEN_AT_END
    assert invoke("fix", "--tail", "close", "open.json").exit_code == 0
    assert path.read_bytes() != OPEN_AT_END
    assert "call_w" not in path.read_text()


def test_scope():
    put("orphan.json", ORPHAN_CALL)
    assert invoke("lint", "--scope", "all", "orphan.json").exit_code == 1
    # The orphan call sits before the last user message, and nothing is marked partial.
    assert invoke("lint", "--scope", "tail", "orphan.json").exit_code == 0
    assert invoke("lint", "--scope", "marked", "orphan.json").exit_code == 0


def test_exit_non_zero_on_fix():
    put("a.json", ORPHAN_CALL)
    put("b.json", ORPHAN_CALL)
    put("clean.json", CLEAN)
    assert invoke("fix", "a.json").exit_code == 0
    assert invoke("fix", "--exit-non-zero-on-fix", "b.json").exit_code == 1
    assert lint_clean(Path("b.json"))
    assert invoke("fix", "--exit-non-zero-on-fix", "clean.json").exit_code == 0


# --- configuration ------------------------------------------------------------------


def pyproject(body: str, folder: str = ".") -> Path:
    return put(f"{folder}/pyproject.toml", ("[tool.histnorm]\n" + body).encode())


def test_config_is_found_in_the_nearest_pyproject(tmp_path):
    put("orphan.json", ORPHAN_CALL)
    assert invoke("lint", "orphan.json").exit_code == 1
    pyproject('ignore = ["HN001"]\n')
    assert invoke("lint", "orphan.json").exit_code == 0
    # ...from a folder below, too.
    put("deep/er/orphan.json", ORPHAN_CALL)
    os.chdir(tmp_path / "deep" / "er")
    assert invoke("lint", "orphan.json").exit_code == 0
    # A nearer pyproject.toml with its own [tool.histnorm] wins.
    pyproject('select = ["HN001"]\n')
    assert invoke("lint", "orphan.json").exit_code == 1


def test_pyproject_without_a_histnorm_table_is_skipped(tmp_path):
    pyproject('ignore = ["HN001"]\n')
    put("sub/pyproject.toml", b"[tool.other]\nx = 1\n")
    put("sub/orphan.json", ORPHAN_CALL)
    os.chdir(tmp_path / "sub")
    assert invoke("lint", "orphan.json").exit_code == 0


def test_config_values_apply():
    pyproject(
        'output-format = "json"\nunsafe-fixes = true\ntail = "close"\n'
        'policy = {orphan-tool-call = "synthesize"}\n'
    )
    put("conflict.json", CONFLICT)
    put("open.json", OPEN_AT_END)
    result = invoke("lint", "open.json")
    assert codes(result) == ["HN001"]
    assert invoke("fix", "conflict.json").exit_code == 0
    assert invoke("fix", "open.json").exit_code == 0
    assert "Tool call was interrupted" in Path("open.json").read_text()


def test_per_file_ignores():
    pyproject(
        'per-file-ignores = {"legacy/*.json" = ["HN001"], "*.jsonl" = ["orphan-tool-result"]}\n'
    )
    put("legacy/old.json", ORPHAN_CALL)
    put("new/new.json", ORPHAN_CALL)
    shutil.copyfile(DEMO / "dataset.openai-chat.jsonl", "dataset.jsonl")
    result = invoke("lint", "--output-format", "json", ".")
    assert [(r["filename"], r["code"]) for r in orjson.loads(result.stdout)] == [
        ("new/new.json", "HN001")
    ]
    assert invoke("lint", "legacy/old.json").exit_code == 0
    assert invoke("fix", "legacy/old.json").exit_code == 0
    assert Path("legacy/old.json").read_bytes() == ORPHAN_CALL


def test_per_file_ignores_are_relative_to_the_config_file(tmp_path):
    """Patterns name paths from the project root, whatever folder histnorm runs in."""
    pyproject('per-file-ignores = {"legacy/*.json" = ["HN001"]}\n')
    put("legacy/old.json", ORPHAN_CALL)
    os.chdir(tmp_path / "legacy")
    result = invoke("lint", "old.json")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('selectt = ["HN001"]\n', "selectt"),
        ("unsafe-fixes = 'maybe'\n", "unsafe-fixes"),
        ('tail = "sometimes"\n', "tail"),
        ('scope = "middle"\n', "scope"),
        ('output-format = "xml"\n', "output-format"),
        ('per-file-ignores = ["x"]\n', "per-file-ignores"),
        ('severity = {HN001 = "fatal"}\n', "severity"),
        ('policy = {orphan-tool-call = "ignore"}\n', "orphan-tool-call"),
        ('policy = {no-such-policy = "drop"}\n', "no-such-policy"),
    ],
)
def test_bad_config_exits_2_naming_the_key(body, key):
    pyproject(body)
    put("orphan.json", ORPHAN_CALL)
    result = invoke("fix", "orphan.json")
    assert result.exit_code == 2, result.output
    assert key in result.stderr
    assert Path("orphan.json").read_bytes() == ORPHAN_CALL


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('select = ["HN999"]\n', "select"),
        ('ignore = ["no-such-rule"]\n', "ignore"),
        ('format = "nope"\n', "format"),
        ('jsonl-mode = "bogus"\n', "jsonl-mode"),
    ],
)
def test_bad_config_value_exits_2_naming_the_key(body, key):
    """Values checked only later (rule names, format, JSONL mode) must name their key too."""
    pyproject(body)
    put("orphan.json", ORPHAN_CALL)
    put("session.jsonl", SESSION)
    result = invoke("lint", "orphan.json", "session.jsonl")
    assert result.exit_code == 2, result.output
    assert f"{key}:" in result.stderr or f"{key} " in result.stderr


def test_config_that_is_not_toml_exits_2():
    """A broken pyproject.toml is bad configuration, not a file to skip silently."""
    put("pyproject.toml", b'[tool.histnorm\nignore = ["HN001"]\n')
    put("orphan.json", ORPHAN_CALL)
    result = invoke("lint", "orphan.json")
    assert result.exit_code == 2, result.output
    assert "pyproject.toml" in result.stderr


def test_config_option_names_the_file():
    pyproject('ignore = ["HN001"]\n', folder="conf")
    put("orphan.json", ORPHAN_CALL)
    assert invoke("lint", "orphan.json").exit_code == 1
    assert invoke("lint", "--config", "conf/pyproject.toml", "orphan.json").exit_code == 0
    missing = invoke("lint", "--config", "conf/nope.toml", "orphan.json")
    assert missing.exit_code == 2
    assert "conf/nope.toml" in missing.stderr
    put("bad.toml", b"[tool.histnorm\n")
    assert invoke("lint", "--config", "bad.toml", "orphan.json").exit_code == 2


def test_flags_override_the_config():
    pyproject(
        'select = ["HN002"]\noutput-format = "json"\ntail = "close"\n'
        'policy = {orphan-tool-call = "synthesize"}\n'
    )
    put("orphan.json", ORPHAN_CALL)
    put("open.json", OPEN_AT_END)
    assert codes(invoke("lint", "orphan.json")) == []
    assert codes(invoke("lint", "--select", "HN001", "orphan.json")) == ["HN001"]
    text = invoke("lint", "--output-format", "text", "--select", "HN001", "orphan.json")
    assert text.stdout.startswith("orphan.json:5: HN001")
    assert codes(invoke("lint", "--select", "HN011", "--select", "HN001", "open.json")) == ["HN001"]
    assert codes(
        invoke("lint", "--tail", "keep", "--select", "HN011", "--select", "HN001", "open.json")
    ) == ["HN011"]
    assert (
        invoke(
            "fix", "--select", "HN001", "--policy", "orphan-tool-call=drop", "orphan.json"
        ).exit_code
        == 0
    )
    fixed = orjson.loads(Path("orphan.json").read_bytes())
    assert [m["role"] for m in fixed] == ["user", "assistant", "tool", "user"]


# --- rules, rule, convert, schema --------------------------------------------------------


def test_rules_table():
    result = invoke("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["code", "name", "severity", "fix", "summary"]
    for rule in ALL_RULES:
        assert any(line.split()[:2] == [rule.code, rule.name] for line in lines[1:])


def test_rules_json():
    result = invoke("rules", "--output-format", "json")
    assert result.exit_code == 0
    rows = orjson.loads(result.stdout)
    listed = [row["code"] for row in rows]
    assert listed[:13] == [f"HN{n:03d}" for n in range(13)]
    assert listed == [rule.code for rule in ALL_RULES]
    assert set(rows[0]) == {"code", "name", "severity", "fix", "summary", "profiles"}
    assert rows[1] == {
        "code": "HN001",
        "name": "orphan-tool-call",
        "severity": "error",
        "fix": "safe",
        "summary": "a tool call has no result while later messages follow",
        "profiles": list(PROFILES),
    }
    by_code = {row["code"]: row for row in rows}
    assert by_code["HN107"]["profiles"] == ["bedrock-converse", "vllm", "portable"]
    assert rows[0]["fix"] == "none"
    assert rows[7]["fix"] == "unsafe"


def test_rule_prints_its_documentation():
    result = invoke("rule", "HN001")
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("# HN001 orphan-tool-call\n\nSeverity: error. Fix: safe.\n")
    for section in (
        "## What it does",
        "## Why it breaks a replay",
        "## Example",
        "## Fix",
        "## Fix safety",
        "## References",
        "### Example (openai-chat):",
        "What `histnorm fix` changes:",
        "```diff\n--- before\n+++ after\n@@ ",
    ):
        assert section in text
    assert invoke("rule", "orphan-tool-call").stdout == text
    assert invoke("rule", "hn001").stdout == text


def test_convert_round_trips_openai_chat_through_meai():
    source = ROOT / "fixtures" / "formats" / "openai-chat" / "weather-tool.json"
    shutil.copyfile(source, "chat.json")
    to_meai = invoke("convert", "chat.json", "--to", "meai", "-o", "chat.meai.json")
    assert to_meai.exit_code == 0, to_meai.output
    meai = Path("chat.meai.json").read_bytes()
    assert histnorm.detect_format(orjson.loads(meai)) == "meai"
    assert b'"$type"' in meai
    back = invoke("convert", "chat.meai.json", "--to", "openai-chat", "--from", "meai")
    assert back.exit_code == 0, back.output
    assert orjson.loads(back.stdout_bytes) == orjson.loads(source.read_bytes())
    # stdin to stdout as well
    piped = invoke("convert", "-", "--to", "openai-chat", input=meai)
    assert piped.exit_code == 0
    assert orjson.loads(piped.stdout_bytes) == orjson.loads(source.read_bytes())
    assert Path("chat.json").read_bytes() == source.read_bytes()


def test_convert_errors():
    put("chat.json", ORPHAN_CALL)
    assert invoke("convert", "chat.json", "--to", "xml").exit_code == 2
    assert invoke("convert", "chat.json", "--to", "meai", "--from", "xml").exit_code == 2
    missing = invoke("convert", "missing.json", "--to", "meai")
    assert missing.exit_code == 2
    assert "missing.json" in missing.stderr
    put("broken.json", BROKEN)
    broken = invoke("convert", "broken.json", "--to", "meai")
    assert broken.exit_code == 1
    assert "HN000" in broken.stderr


def test_convert_with_the_wrong_from_does_not_silently_drop_content():
    """Reading openai-chat as meai must fail (or keep the calls), never exit 0 with less."""
    put("chat.json", ORPHAN_CALL)
    result = invoke("convert", "chat.json", "--from", "meai", "--to", "openai-chat")
    if result.exit_code == 0:
        out = orjson.loads(result.stdout_bytes)
        assert out == orjson.loads(ORPHAN_CALL)
    else:
        assert result.exit_code == 1


def test_schema_check_passes_on_the_committed_schemas():
    result = invoke("schema", "--check", "--out", str(SCHEMAS))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


def test_schema_check_fails_on_a_stale_file_and_writes_nothing():
    out = Path("schemas")
    shutil.copytree(SCHEMAS, out, ignore=shutil.ignore_patterns("vendor"))
    assert invoke("schema", "--check", "--out", "schemas").exit_code == 0
    stale = out / "report.schema.json"
    stale.write_bytes(stale.read_bytes().replace(b'"Record"', b'"Rekord"', 1))
    before = tree(out)
    result = invoke("schema", "--check", "--out", "schemas")
    assert result.exit_code == 1
    assert "report.schema.json" in result.stderr
    assert tree(out) == before
    # Without --check the stale file is rewritten and the check passes again.
    assert invoke("schema", "--out", "schemas").exit_code == 0
    assert stale.read_bytes() == (SCHEMAS / "report.schema.json").read_bytes()
    assert invoke("schema", "--check", "--out", "schemas").exit_code == 0
    # A missing schema is stale too.
    (out / "transcript.schema.json").unlink()
    assert invoke("schema", "--check", "--out", "schemas").exit_code == 1


def test_a_folder_mixing_every_format_is_read_file_by_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "formats"
    copied = {}
    for fmt in histnorm.CODECS:
        source = sorted((root / fmt).glob("*.json"))[0]
        target = tmp_path / f"{fmt}-{source.name}"
        shutil.copyfile(source, target)
        copied[target.name] = fmt
    for name, fmt in copied.items():
        assert histnorm.detect_format(orjson.loads((tmp_path / name).read_bytes())) == fmt
    result = invoke("lint", ".", "--output-format", "json")
    records = orjson.loads(result.stdout)
    assert result.exit_code in (0, 1)
    assert [r for r in records if r["code"] == "HN000"] == []
