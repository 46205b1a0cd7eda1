"""The run layer: findings streamed to the reporter, workers, signals, closed pipes, file
names that are not UTF-8, and reports that must not mislead.

In-process tests use the CLI through typer's runner; signals and pipes use `histnorm` as
a real process (the console script next to the interpreter). Nothing here measures time
or memory (see `python -m benchmarks.memory`): waits only bound how long a test may hang.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar
from xml.etree import ElementTree

import orjson
import pytest
from histnorm_cli import parallel
from histnorm_cli import run as run_module
from histnorm_cli.app import app
from histnorm_cli.reporters import Reporter
from typer.testing import CliRunner

HISTNORM = Path(sys.executable).parent / "histnorm"
MB = 1 << 20
CHUNK = 1000
"""`histnorm_cli.job.CHUNK`: diagnostics gathered before they are handed on."""
FORMATS = ("text", "json", "jsonl", "sarif", "github", "gitlab", "junit")


def defective_line(i: int, calls: int = 2, pad: int = 0) -> bytes:
    """One openai-chat transcript with `calls` orphan tool calls (one HN001 each)."""
    tool_calls = [
        {"id": f"c{i}_{k}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for k in range(calls)
    ]
    messages = [
        {"role": "user", "content": f"q{i} " + "lorem ipsum " * (pad // 12)},
        {"role": "assistant", "content": None, "tool_calls": tool_calls},
        {"role": "user", "content": "never mind"},
        {"role": "assistant", "content": f"a{i}"},
    ]
    return orjson.dumps({"messages": messages}) + b"\n"


def write_lines(path: Path, lines: int, **kwargs: Any) -> Path:
    with path.open("wb") as out:
        for i in range(lines):
            out.write(defective_line(i, **kwargs))
    return path


def invoke(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(cwd)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner().invoke(app, args)


# --- 1. findings are streamed -----------------------------------------------------------


class Recording(Reporter):
    """Keeps the size of each batch it is handed (and nothing else)."""

    batches: ClassVar[list[tuple[str, int]]] = []

    def report(self, diagnostics: Any, path: str, skipped: Any, whole: bool) -> None:
        Recording.batches.append((path, len(diagnostics)))


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> type[Recording]:
    Recording.batches = []
    monkeypatch.setattr(run_module, "reporter", lambda name: Recording)
    return Recording


@pytest.mark.parametrize("jobs", [1, 2])
def test_reporter_gets_diagnostics_in_bounded_chunks_while_the_file_is_read(
    tmp_path, monkeypatch, recording, jobs
):
    from histnorm_cli.job import CHUNK as chunk

    assert chunk == CHUNK
    monkeypatch.setattr(parallel, "MIN_PART", 64 * 1024)  # so that two workers share the file
    lines = 3 * CHUNK
    write_lines(tmp_path / "big.jsonl", lines)
    result = invoke(["lint", "--jobs", str(jobs), "big.jsonl"], tmp_path, monkeypatch)
    assert result.exit_code == 1, result.output
    sizes = [n for path, n in recording.batches if path == "big.jsonl"]
    assert sum(sizes) == 2 * lines
    assert len(sizes) >= 3, sizes  # not one batch holding the whole file's
    assert max(sizes) <= CHUNK + 2, sizes


@pytest.mark.parametrize("output", ["json", "jsonl", "sarif", "text", "gitlab", "junit"])
def test_streamed_report_is_the_same_with_jobs(tmp_path, monkeypatch, output):
    monkeypatch.setattr(parallel, "MIN_PART", 64 * 1024)
    write_lines(tmp_path / "big.jsonl", 2 * CHUNK)
    (tmp_path / "one.json").write_bytes(defective_line(0).strip())
    one = invoke(["lint", "--output-format", output, "."], tmp_path, monkeypatch)
    two = invoke(["lint", "--jobs", "2", "--output-format", output, "."], tmp_path, monkeypatch)
    assert one.exit_code == two.exit_code == 1
    assert one.stdout == two.stdout
    assert one.stdout.count("HN001") >= 4 * CHUNK + 2


@pytest.mark.parametrize(
    "items",
    [[], [{}], [[]], [{"a": [1, {"b": []}], "c": {}}], [{"x": "multi\nline"}, {"y": None}]],
)
@pytest.mark.parametrize("depth", [0, 3])
def test_array_writer_matches_orjson_indentation(items, depth):
    from histnorm_cli.reporters.jsonout import ArrayWriter

    out = _Text()
    writer = ArrayWriter(out, depth)  # type: ignore[arg-type]
    for item in items:
        writer.add(item)
    writer.close()
    nested: Any = items
    for _ in range(depth):
        nested = [nested]
    whole = orjson.dumps(nested, option=orjson.OPT_INDENT_2).decode()
    assert out.text in whole
    assert whole.count(out.text) == 1


class _Text:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text


# --- 3. file names that are not UTF-8 ---------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="Linux file names are bytes")
@pytest.mark.parametrize("output", FORMATS)
def test_non_utf8_file_name_is_reported_escaped_and_the_run_goes_on(tmp_path, monkeypatch, output):
    folder = tmp_path / "in"
    folder.mkdir()
    bad = os.path.join(os.fsencode(folder), b"bad\xff.json")
    with open(bad, "wb") as out:
        out.write(defective_line(0).strip())
    (folder / "good.json").write_bytes(defective_line(1).strip())
    result = invoke(["lint", "--output-format", output, "in"], tmp_path, monkeypatch)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "bad\\xff.json" in result.stdout.replace("\\\\", "\\")
    assert "good.json" in result.stdout
    if output in ("json", "sarif", "gitlab"):
        orjson.loads(result.stdout)
    if output == "junit":
        ElementTree.fromstring(result.stdout)


# --- 4. reports that mislead ------------------------------------------------------------


def test_all_checks_passed_is_never_said_when_a_path_failed(tmp_path, monkeypatch):
    (tmp_path / "clean.json").write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}')
    result = invoke(["lint", "clean.json", "missing.json"], tmp_path, monkeypatch)
    assert result.exit_code == 2
    assert "All checks passed!" not in result.stdout
    assert "1 path could not be processed." in result.stdout


@pytest.mark.parametrize(
    "args", [["empty"], ["nothere/*.json"], []], ids=["empty-folder", "glob", "cwd"]
)
def test_a_run_that_matched_no_file_says_so_and_fails(tmp_path, monkeypatch, args):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a transcript")
    monkeypatch.chdir(tmp_path / "empty") if not args else None
    cwd = tmp_path / "empty" if not args else tmp_path
    result = invoke(["lint", *args], cwd, monkeypatch)
    assert result.exit_code == 2
    assert "no files matched" in result.stderr
    assert "All checks passed!" not in result.stdout
    allowed = invoke(["lint", "--allow-no-files", *args], cwd, monkeypatch)
    if args != ["nothere/*.json"]:  # a path that does not exist is an error either way
        assert allowed.exit_code == 0, allowed.output
        assert "no files matched" in allowed.stderr


# --- 2. workers, signals, pipes ---------------------------------------------------------


def test_jobs_are_capped_by_cpus_and_tasks(monkeypatch):
    from histnorm_cli.pool import workers

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert workers(64, 100) == 3
    assert workers(64, 2) == 2
    assert workers(1, 100) == 1
    assert workers(8, 0) == 1


needs_two_cpus = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity") else True,
    reason="--jobs is capped at the CPUs; needs two, and Linux /proc",
)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 30 MB of JSONL with an orphan call in every line: seconds to lint or fix."""
    path = tmp_path_factory.mktemp("big") / "original.jsonl"
    write_lines(path, 8_000, calls=1, pad=3_000)
    return path


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(n) for n in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(condition: Any, limit: float = 60.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def _start(args: list[str], cwd: Path, **kwargs: Any) -> subprocess.Popen[bytes]:
    kwargs.setdefault("stdout", subprocess.DEVNULL)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([str(HISTNORM), *args], cwd=cwd, **kwargs)


@needs_two_cpus
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_their_parent(big, tmp_path, signum):
    shutil.copyfile(big, tmp_path / "BIG.jsonl")
    process = _start(["lint", "--jobs", "2", "BIG.jsonl"], tmp_path)
    try:
        assert _wait(lambda: len(_children(process.pid)) >= 2), "no workers started"
        workers = _children(process.pid)
        process.send_signal(signum)
        process.wait(timeout=60)
        assert _wait(lambda: not any(_alive(w) for w in workers)), "orphan workers left"
    finally:
        process.kill()
        process.wait()
    if signum == signal.SIGTERM:
        stderr = process.stderr.read().decode()  # type: ignore[union-attr]
        assert process.returncode == 143, stderr
        assert "histnorm: terminated" in stderr
        # A signal that lands in a finalizer is not printed ("Exception ignored"): it is
        # raised again, where it unwinds the run.
        assert "Traceback" not in stderr
        assert "Error" not in stderr.rsplit("histnorm: terminated", 1)[1]


@needs_two_cpus
def test_a_closed_pipe_ends_the_run_quietly(big, tmp_path):
    shutil.copyfile(big, tmp_path / "BIG.jsonl")
    process = _start(["lint", "--jobs", "2", "BIG.jsonl"], tmp_path, stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    try:
        assert process.stdout.readline().startswith(b"BIG.jsonl:1: HN001")  # like `| head -1`
        process.stdout.close()
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 141
    assert process.stderr.read() == b""


def _temp_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name != "BIG.jsonl")


def _temp_size(folder: Path) -> int:
    total = 0
    for path in _temp_files(folder):
        with contextlib.suppress(FileNotFoundError):
            total += path.stat().st_size
    return total


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_fix_leaves_the_original_and_no_temp_file(big, tmp_path, jobs, signum):
    if jobs == "2" and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("--jobs is capped at the CPUs: needs two")
    target = tmp_path / "BIG.jsonl"
    shutil.copyfile(big, target)
    process = _start(["fix", "--quiet", "--jobs", jobs, "BIG.jsonl"], tmp_path)
    try:
        saw = _wait(lambda: _temp_size(tmp_path) > MB)
        running = process.poll() is None
        process.send_signal(signum)
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert saw and running, "the fix ended before it could be interrupted"
    stderr = process.stderr.read().decode()  # type: ignore[union-attr]
    assert process.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    if signum == signal.SIGINT:
        assert "interrupted" in stderr
    assert _temp_files(tmp_path) == []
    assert target.read_bytes() == big.read_bytes()
