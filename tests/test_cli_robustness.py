"""Large files: an interrupted in-place fix never leaves a half-written file, and JSONL is
streamed in flat memory.

(a) `histnorm fix BIG.jsonl` runs as a real process (the console script next to the
interpreter) and is killed with SIGKILL at several moments, including while its temporary
file is being written; the file must then hold either its original bytes or the
completely fixed ones. (b) `histnorm_cli.per_file.run_file` lints and fixes a file of some
30 MB under tracemalloc; the peak traced memory must stay far below the file's size.
Both measure outcomes, never wall-clock time.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import orjson
import pytest
from histnorm_cli.job import Job
from histnorm_cli.per_file import run_file

import histnorm

HISTNORM = Path(sys.executable).parent / "histnorm"
MB = 1024 * 1024


def write_big(path: Path, lines: int, pad: int) -> int:
    """A JSONL dataset where every other line has an orphan tool call (HN001) to drop."""
    filler = "lorem ipsum " * (pad // 12)
    with path.open("wb") as out:
        for i in range(lines):
            messages: list[dict[str, object]] = [
                {"role": "system", "content": f"conversation {i}"},
                {"role": "user", "content": f"question {i}: {filler}"},
            ]
            if i % 2 == 0:
                messages += [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": "lookup", "arguments": '{"q": 1}'},
                            }
                        ],
                    },
                    {"role": "user", "content": "never mind"},
                ]
            messages.append({"role": "assistant", "content": f"answer {i}"})
            out.write(orjson.dumps({"messages": messages}) + b"\n")
    return path.stat().st_size


# --- (a) SIGKILL during an in-place fix ----------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The original BIG.jsonl (~30 MB) and the bytes a completed `fix` gives."""
    folder = tmp_path_factory.mktemp("big")
    original = folder / "original.jsonl"
    size = write_big(original, lines=8_000, pad=3_000)
    assert 20 * MB < size < 40 * MB
    done = folder / "done"
    done.mkdir()
    shutil.copyfile(original, done / "BIG.jsonl")
    completed = subprocess.run(
        [str(HISTNORM), "fix", "--quiet", "BIG.jsonl"],
        cwd=done,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    assert sorted(p.name for p in done.iterdir()) == ["BIG.jsonl"]
    fixed = (done / "BIG.jsonl").read_bytes()
    data = original.read_bytes()
    assert fixed != data
    assert fixed.count(b"\n") == data.count(b"\n") == 8_000
    assert b'"tool_calls"' in data
    assert b'"tool_calls"' not in fixed
    return original, fixed


def _temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(".BIG.jsonl.*.histnorm"))


STOPPER = """
import os, signal, sys
import histnorm_cli.files as files

at = int(sys.argv[1])  # stop once this many bytes are written; -1: just before the rename
written = 0
write, replace = files.AtomicWriter.write, os.replace


def counted(self, data):
    global written
    write(self, data)
    written += len(data)
    if 0 <= at <= written:
        self.stream.flush()  # the bytes are in the temporary file when it stops
        os.kill(os.getpid(), signal.SIGSTOP)


def renamed(source, target):
    if at < 0:
        os.kill(os.getpid(), signal.SIGSTOP)
    replace(source, target)


files.AtomicWriter.write = counted
os.replace = renamed
sys.argv = ["histnorm", "fix", "--quiet", "--jobs", "1", "BIG.jsonl"]
from histnorm_cli import main

main()
"""
"""`histnorm fix` that stops itself (SIGSTOP) at a chosen moment of writing its temporary
file, so that the test kills it at exactly that moment, on any machine load."""


MOMENTS: dict[str, tuple[str, float]] = {
    "after-0.05s": ("sleep", 0.05),
    "after-0.2s": ("sleep", 0.2),
    "after-0.5s": ("sleep", 0.5),
    "temp-file-first-write": ("stop", 0.0),
    "temp-file-half-written": ("stop", 0.5),
    "temp-file-nearly-done": ("stop", 0.97),
    "temp-file-complete-before-rename": ("stop", -1.0),
}
"""When to kill: a fixed delay after start (any moment, wherever it falls), or the moment
the process stops itself at: once the temporary file holds a fraction of the fixed
output, or with all of it written, just before the rename."""


def _fix_and_kill(big: tuple[Path, bytes], folder: Path, kind: str, value: float) -> None:
    """Start `histnorm fix` on a copy of the big file, SIGKILL it at the moment given and
    check that the file is the original or the fixed one."""
    original, fixed = big
    target = folder / "BIG.jsonl"
    shutil.copyfile(original, target)
    if kind == "sleep":
        argv = [str(HISTNORM), "fix", "--quiet", "BIG.jsonl"]
    else:
        at = -1 if value < 0 else max(1, int(value * len(fixed)))
        argv = [sys.executable, "-c", STOPPER, str(at)]
    process = subprocess.Popen(
        argv, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        if kind == "sleep":
            time.sleep(value)
        else:
            _, status = os.waitpid(process.pid, os.WUNTRACED)
            assert os.WIFSTOPPED(status), f"histnorm ended before the moment ({status})"
            temps = _temp_files(folder)
            assert len(temps) == 1
            written = temps[0].read_bytes()
            assert fixed.startswith(written) and len(written) >= min(at, len(fixed))
            assert target.read_bytes() == original.read_bytes()  # not renamed yet
    finally:
        process.send_signal(signal.SIGKILL)  # a no-op if it has already exited
        process.wait(timeout=60)
    after = target.read_bytes()
    assert after == original.read_bytes() or after == fixed, (
        f"BIG.jsonl is neither the original nor the fixed file ({len(after)} bytes)"
    )
    # Nothing but the file itself and (after a kill) the abandoned temporary file.
    leftovers = sorted(p.name for p in folder.iterdir() if p.name != "BIG.jsonl")
    assert all(n.startswith(".BIG.jsonl.") and n.endswith(".histnorm") for n in leftovers)


@pytest.mark.parametrize("moment", MOMENTS)
def test_sigkill_during_fix_leaves_the_original_or_the_fixed_file(big, tmp_path, moment):
    kind, value = MOMENTS[moment]
    _fix_and_kill(big, tmp_path, kind, value)


# --- (b) streaming memory ------------------------------------------------------------


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "large.jsonl"
    size = write_big(path, lines=1_000, pad=30_000)
    assert 25 * MB < size < 40 * MB
    return path


@pytest.mark.parametrize(
    ("mode", "backup"),
    [("lint", False), ("fix", False), ("fix", True)],
    ids=["lint", "fix", "fix-backup"],
)
def test_jsonl_is_streamed_in_flat_memory(large, tmp_path, mode, backup):
    path = tmp_path / "large.jsonl"
    shutil.copyfile(large, path)
    size = path.stat().st_size
    job = Job(mode=mode, settings=histnorm.Settings(), write=True, backup=backup)
    tracemalloc.start()
    try:
        outcome = run_file(str(path), job)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.error is None
    assert outcome.transcripts == 1_000
    if mode == "lint":
        assert len(outcome.diagnostics) == 500
        assert path.read_bytes() == large.read_bytes()
    else:
        assert outcome.changed
        assert outcome.applied["HN001"] == 500
        assert outcome.diagnostics == []
        assert path.stat().st_size < size
    if backup:
        assert (tmp_path / "large.jsonl.bak").read_bytes() == large.read_bytes()
    bound = min(size // 4, 16 * MB)
    assert peak < bound, f"{mode}: peak {peak / MB:.1f} MB for a {size / MB:.1f} MB file"
