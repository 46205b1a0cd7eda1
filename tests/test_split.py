"""`--jobs N` on one large JSONL file: shared between workers, same result as one process.

Parts are made tiny here (`MIN_PART` is patched), so a file of a few hundred kilobytes
is cut into several ranges and every seam is exercised: line numbers, CRLF endings, a
BOM, blank lines, unreadable lines and a missing final newline.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import orjson
import pytest
from histnorm_cli import parallel
from histnorm_cli.app import app
from histnorm_cli.job import Job
from typer.testing import CliRunner, Result

from benchmarks.corpus import transcripts
from histnorm.settings import Settings


@pytest.fixture(autouse=True)
def _small_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(parallel, "MIN_PART", 20_000)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


def corpus(tmp_path: Path, name: str = "big.jsonl", *, tail: bytes = b"\n") -> Path:
    """About 40 transcripts with defects, and the awkward lines a real export has."""
    values = [v for _, v in itertools.islice(transcripts("openai-chat", 0.5, seed=5), 40)]
    lines = [orjson.dumps(v) for v in values]
    lines[3] += b"\r"  # a CRLF line
    lines[10] = b""  # a blank line
    lines[17] = b'{"messages": [{"role": "user"'  # an unreadable line
    body = b"\xef\xbb\xbf" + b"\n".join(lines) + tail
    path = tmp_path / name
    path.write_bytes(body)
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_parts_cover_the_file_at_line_starts(tmp_path: Path) -> None:
    path = corpus(tmp_path)
    data = path.read_bytes()
    cut = parallel.parts(str(path), Job(mode="lint", settings=Settings()), 4)
    assert cut is not None and 2 <= len(cut) <= 4
    assert cut[0].start == 0 and cut[-1].end == len(data)
    for before, after in itertools.pairwise(cut):
        assert before.end == after.start
        assert data[after.start - 1 : after.start] == b"\n"
    assert [p.index for p in cut] == list(range(len(cut)))


def test_small_message_per_line_and_stdin_are_not_shared(tmp_path: Path) -> None:
    job = Job(mode="lint", settings=Settings())
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"messages": []}\n')
    assert parallel.parts(str(small), job, 4) is None
    session = tmp_path / "session.jsonl"
    session.write_bytes(b'{"role": "user", "content": "hi"}\n' * 5000)
    assert parallel.parts(str(session), job, 4) is None
    assert parallel.parts("-", job, 4) is None


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_lint_with_two_jobs_reports_the_same(tmp_path: Path, fmt: str) -> None:
    path = corpus(tmp_path)
    one = invoke("lint", "--jobs", "1", "--output-format", fmt, str(path.name))
    two = invoke("lint", "--jobs", "2", "--output-format", fmt, str(path.name))
    assert one.exit_code == two.exit_code == 1
    assert one.stdout == two.stdout
    assert ":18: HN000" in invoke("lint", "--jobs", "2", path.name).stdout


@pytest.mark.parametrize("tail", [b"\n", b""])
def test_fix_with_two_jobs_writes_the_same_bytes(tmp_path: Path, tail: bytes) -> None:
    first = corpus(tmp_path, "a.jsonl", tail=tail)
    second = corpus(tmp_path, "b.jsonl", tail=tail)
    one = invoke("fix", "--jobs", "1", first.name)
    two = invoke("fix", "--jobs", "2", second.name)
    assert one.exit_code == two.exit_code
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes().startswith(b"\xef\xbb\xbf")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl"]


def test_diff_and_output_with_two_jobs_are_the_same(tmp_path: Path) -> None:
    path = corpus(tmp_path)
    before = path.read_bytes()
    one = invoke("fix", "--diff", "--jobs", "1", path.name)
    two = invoke("fix", "--diff", "--jobs", "2", path.name)
    assert one.stdout == two.stdout and one.stdout.count("@@ line ") >= 3
    assert path.read_bytes() == before
    invoke("fix", "--jobs", "1", "-o", "one.jsonl", path.name)
    invoke("fix", "--jobs", "2", "-o", "two.jsonl", path.name)
    assert Path("one.jsonl").read_bytes() == Path("two.jsonl").read_bytes() != before
    assert path.read_bytes() == before


def test_a_failing_part_leaves_the_file_alone_and_no_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = corpus(tmp_path)
    before = path.read_bytes()
    real = parallel.run_lines

    def failing(lines, job, outcome, sink, file_start=True):  # type: ignore[no-untyped-def]
        if not file_start:
            raise RuntimeError("simulated bug")
        return real(lines, job, outcome, sink, file_start)

    monkeypatch.setattr(parallel, "run_lines", failing)
    result = invoke("fix", "--jobs", "2", path.name)
    assert result.exit_code == 2
    assert "internal error" in result.stderr
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_worker_that_dies_is_an_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed mid-run (out of memory, a crash in a C extension): the files it did
    not finish are reported as not checked, exit 2, and the others are still reported."""
    from histnorm_cli import pool

    clean = b'{"messages":[{"role":"user","content":"hi"}]}\n'
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        (tmp_path / name).write_bytes(clean)
    real = pool.run_file

    def dying(path: str, job: Job, data: bytes | None = None, emit=None):  # type: ignore[no-untyped-def]
        if path.endswith("b.jsonl"):
            import os

            os._exit(3)
        return real(path, job, data, emit)

    monkeypatch.setattr(pool, "run_file", dying)
    result = invoke("lint", "--jobs", "2", "a.jsonl", "b.jsonl", "c.jsonl")
    assert result.exit_code == 2
    assert "b.jsonl: not checked: a worker process stopped" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
