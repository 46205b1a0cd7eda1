"""`fix` never leaves a user's files worse than it found them.

A file that changes while it is fixed is left as it is; a rewrite keeps the file's owner,
group, mode and extended attributes; hard links, FIFOs, devices, `FILE.bak` symlinks and
symlinks out of a scanned folder are never written through; temporary files go away on
any failure and a stale one is never taken for input.
"""

from __future__ import annotations

import errno
import os
import resource
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli_helpers import invoke
from histnorm_cli.job import Job
from histnorm_cli.parallel import merge, parts, run_part
from histnorm_cli.per_file import run_file

import histnorm
from histnorm.document import check as fix_module

HISTNORM = Path(sys.executable).parent / "histnorm"
ORPHAN = orjson.dumps(
    [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
            ],
        },
        {"role": "user", "content": "Never mind."},
    ]
)
"""One transcript with an HN001 (safe fix): the call has no result."""
CLEAN = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]'
CHANGED = "changed while being fixed; left as it was"


pytestmark = pytest.mark.usefixtures("cli_workdir")


def put(name: str, data: bytes, mode: int | None = None) -> Path:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        path.chmod(mode)
    return path


def names(folder: str = ".") -> list[str]:
    return sorted(os.listdir(folder))


def during_fix(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run `action` once, while the first transcript is being fixed (after it was read)."""
    real = fix_module.fix
    done = []

    def fix(*args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)
            action()
        return real(*args, **kwargs)

    monkeypatch.setattr(fix_module, "fix", fix)


def cli(*args: str, memory: int | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the installed command; a hang or a runaway read fails instead of stalling."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [str(HISTNORM), *args], capture_output=True, timeout=120, preexec_fn=limit, check=False
    )


# --- 1. a file that changes while it is fixed ------------------------------------------

LOG = b"\n".join([CLEAN, ORPHAN, CLEAN]) + b"\n"
"""Transcript-per-line JSONL: the first change is at line 2, after a copied line."""


@pytest.mark.parametrize("name", ["log.jsonl", "one.json"])
def test_lines_appended_during_a_fix_are_kept(monkeypatch, name):
    data = LOG if name.endswith(".jsonl") else ORPHAN
    path = put(name, data)
    other = put("other.json", ORPHAN)
    extra = b"".join(CLEAN + b"\n" for _ in range(10))

    def append() -> None:
        with open(path, "ab") as stream:
            stream.write(extra)

    during_fix(monkeypatch, append)
    result = invoke("fix", name, "other.json")
    assert result.exit_code == 2, result.output
    assert f"{name}: {CHANGED}" in result.output
    assert path.read_bytes() == data + extra
    assert other.read_bytes() != ORPHAN  # the other file went on
    assert names() == sorted([name, "other.json"])


SESSION = Path(__file__).resolve().parent.parent / (
    "fixtures/rules/HN006/reemitted-without-arguments.claude-code.json"
)


def test_a_live_claude_code_session_appended_during_a_fix_keeps_the_new_lines(monkeypatch):
    events = orjson.loads(SESSION.read_bytes())
    data = b"".join(orjson.dumps(event) + b"\n" for event in events)
    path = put("session.jsonl", data)
    assert invoke("fix", "--check", "session.jsonl").exit_code == 1  # there is a fix to make
    extra = b"".join(orjson.dumps({**events[0], "uuid": f"u{n}"}) + b"\n" for n in range(10))

    def append() -> None:
        with open(path, "ab") as stream:
            stream.write(extra)

    during_fix(monkeypatch, append)
    result = invoke("fix", "session.jsonl")
    assert result.exit_code == 2, result.output
    assert f"session.jsonl: {CHANGED}" in result.output
    assert path.read_bytes() == data + extra
    assert names() == ["session.jsonl"]


@pytest.mark.parametrize("name", ["log.jsonl", "one.json"])
def test_a_file_replaced_during_a_fix_is_left_as_the_new_version(monkeypatch, name):
    path = put(name, LOG if name.endswith(".jsonl") else ORPHAN)
    new = b"\n".join([b'[{"role":"user","content":"new"}]', ORPHAN]) + b"\n"

    def replace() -> None:
        put("incoming", new)
        os.replace("incoming", path)

    during_fix(monkeypatch, replace)
    result = invoke("fix", name)
    assert result.exit_code == 2, result.output
    assert CHANGED in result.output
    assert path.read_bytes() == new
    assert names() == [name]


@pytest.mark.parametrize("name", ["log.jsonl", "one.json"])
def test_a_file_deleted_during_a_fix_does_not_come_back(monkeypatch, name):
    path = put(name, LOG if name.endswith(".jsonl") else ORPHAN)
    during_fix(monkeypatch, path.unlink)
    result = invoke("fix", name)
    assert result.exit_code == 2, result.output
    assert CHANGED in result.output
    assert names() == []


def test_a_file_changed_during_a_fix_with_backup_is_left_as_it_is(monkeypatch):
    path = put("log.jsonl", LOG)
    during_fix(monkeypatch, lambda: path.write_bytes(LOG + CLEAN + b"\n"))
    result = invoke("fix", "--backup", "log.jsonl")
    assert result.exit_code == 2, result.output
    assert path.read_bytes() == LOG + CLEAN + b"\n"
    assert names() == ["log.jsonl"]


def test_a_shared_file_changed_during_a_fix_is_left_as_it_is(tmp_path):
    path = put("big.jsonl", LOG * 200)
    job = Job(mode="fix", settings=histnorm.Settings(), write=True)
    shares = parts(str(path), job, 4, min_part=len(LOG) * 20)
    assert shares is not None and len(shares) > 1
    outcomes = [run_part(share) for share in shares]
    with open(path, "ab") as stream:
        stream.write(CLEAN + b"\n")
    outcome = merge(str(path), shares[0].job, outcomes)
    assert outcome.error == f"big.jsonl: {CHANGED}"
    assert path.read_bytes() == LOG * 200 + CLEAN + b"\n"
    assert names() == ["big.jsonl"]


# --- 2. owner, group, mode, extended attributes, hard links, non-regular files ---------


@pytest.mark.parametrize("name", ["one.json", "log.jsonl"])
def test_a_rewrite_keeps_owner_group_mode_and_extended_attributes(name):
    path = put(name, ORPHAN if name.endswith(".json") else LOG, mode=0o640)
    os.chown(path, 1000, 1000)
    os.setxattr(path, "user.origin", b"session export")
    before = path.stat().st_ino
    result = invoke("fix", name)
    assert result.exit_code == 0, result.output
    after = path.stat()
    assert after.st_ino != before  # it was rewritten (by rename)
    assert (after.st_uid, after.st_gid) == (1000, 1000)
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert os.getxattr(path, "user.origin") == b"session export"


def test_setuid_is_kept_with_the_owner():
    path = put("one.json", ORPHAN, mode=0o6750)
    os.chown(path, 1000, 1000)
    os.chmod(path, 0o6750)  # chown cleared the bits
    assert invoke("fix", "one.json").exit_code == 0
    after = path.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (1000, 1000, 0o6750)


def test_setuid_and_setgid_are_dropped_when_the_owner_cannot_be_kept(monkeypatch):
    path = put("one.json", ORPHAN)
    os.chown(path, 1000, 1000)
    os.chmod(path, 0o6750)

    def refuse(*args: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refuse)
    result = invoke("fix", "one.json")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() != ORPHAN
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


def test_a_hard_linked_file_is_refused_and_the_links_stay_one_file():
    path = put("one.json", ORPHAN)
    os.link(path, "twin.json")
    other = put("dirty/other.json", ORPHAN)
    result = invoke("fix", "one.json", "dirty")
    assert result.exit_code == 2, result.output
    assert "one.json: has 2 hard links" in result.output
    assert path.read_bytes() == ORPHAN and Path("twin.json").read_bytes() == ORPHAN
    assert path.stat().st_nlink == 2 and path.stat().st_ino == Path("twin.json").stat().st_ino
    assert other.read_bytes() != ORPHAN


def test_a_clean_hard_linked_file_is_fine():
    path = put("one.json", CLEAN + b"\n")
    os.link(path, "twin.json")
    assert invoke("fix", "one.json").exit_code == 0


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_a_fifo_named_explicitly_is_an_error_and_never_blocks(command):
    os.mkfifo("pipe.json")
    put("other.json", ORPHAN)
    completed = cli(command, "pipe.json", "other.json")
    assert completed.returncode == 2, completed.stderr
    err = completed.stderr.decode()
    assert "pipe.json: not a regular file (a FIFO)" in err
    if command == "fix":
        assert Path("other.json").read_bytes() != ORPHAN  # the other file went on
    else:
        assert "other.json" in completed.stdout.decode()
    assert stat.S_ISFIFO(os.stat("pipe.json").st_mode)


def test_a_device_is_never_read():
    Path("zero.json").symlink_to("/dev/zero")
    completed = cli("lint", "zero.json", "/dev/null", memory=1 << 30)
    assert completed.returncode == 2, completed.stderr
    err = completed.stderr.decode()
    assert "zero.json: not a regular file (a character device)" in err
    assert "/dev/null: not a regular file (a character device)" in err


def test_a_folder_scan_takes_no_fifo_or_device():
    os.mkdir("logs")
    os.mkfifo("logs/pipe.json")
    Path("logs/zero.json").symlink_to("/dev/zero")
    put("logs/good.json", CLEAN + b"\n")
    completed = cli("lint", "logs", memory=1 << 30)
    assert completed.returncode == 0, completed.stderr


def test_stdin_still_works():
    result = invoke("fix", "-", input=ORPHAN)
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.startswith(b"[") and result.stdout_bytes != ORPHAN


# --- 3. --backup never follows FILE.bak --------------------------------------------------


def test_backup_replaces_a_bak_symlink_and_never_writes_through_it():
    victim = put("elsewhere/victim.txt", b"precious\n")
    path = put("one.json", ORPHAN)
    Path("one.json.bak").symlink_to(victim.resolve())
    result = invoke("fix", "--backup", "one.json")
    assert result.exit_code == 0, result.output
    assert victim.read_bytes() == b"precious\n"
    assert not Path("one.json.bak").is_symlink()
    assert Path("one.json.bak").read_bytes() == ORPHAN
    assert path.read_bytes() != ORPHAN
    assert names() == ["elsewhere", "one.json", "one.json.bak"]


# --- 4. temporary files -----------------------------------------------------------------


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Temporary files are created as usual, but every write to them fails with ENOSPC."""
    real = tempfile.mkstemp

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        handle, name = real(*args, **kwargs)
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, handle)
        os.close(full)
        return handle, name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("name", ["one.json", "log.jsonl"])
@pytest.mark.parametrize("backup", [False, True])
def test_no_space_left_removes_the_temporary_file(full_disk, name, backup):
    data = ORPHAN if name.endswith(".json") else LOG
    path = put(name, data)
    result = invoke("fix", *(["--backup"] if backup else []), name)
    assert result.exit_code == 2, result.output
    assert "No space left on device" in result.output
    assert path.read_bytes() == data
    assert names() == [name]


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("name", ["one.json", "log.jsonl"])
def test_an_interrupt_mid_write_removes_the_temporary_file(monkeypatch, stop, name):
    data = ORPHAN if name.endswith(".json") else LOG * 3
    path = put(name, data)
    real = os.fsync

    def interrupted(fd: int) -> None:
        real(fd)
        raise stop()

    if name.endswith(".json"):
        monkeypatch.setattr(os, "fsync", interrupted)
    else:  # stopped at the second fixed line, the temporary file part written
        calls = []
        real_fix = fix_module.fix

        def fix(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 2:
                raise stop()
            return real_fix(*args, **kwargs)

        monkeypatch.setattr(fix_module, "fix", fix)
    job = Job(mode="fix", settings=histnorm.Settings(), write=True)
    with pytest.raises(stop):
        run_file(name, job)
    assert path.read_bytes() == data
    assert names() == [name]


def test_an_interrupt_in_a_worker_removes_its_share(monkeypatch):
    path = put("big.jsonl", LOG * 200)
    job = Job(mode="fix", settings=histnorm.Settings(), write=True)
    shares = parts(str(path), job, 4, min_part=len(LOG) * 20)
    assert shares is not None
    calls = []
    real_fix = fix_module.fix

    def fix(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_fix(*args, **kwargs)

    monkeypatch.setattr(fix_module, "fix", fix)
    with pytest.raises(KeyboardInterrupt):
        run_part(shares[0])
    assert names() == ["big.jsonl"]


@pytest.mark.parametrize("stale", [".one.json.k3j_9xqa.histnorm", ".big.jsonl.2.a1b2c3d4.histnorm"])
def test_a_stale_temporary_file_is_never_taken_from_a_folder(stale):
    put("one.json", CLEAN + b"\n")
    put(stale, b"{half written")
    for include in ([], ["--include", "*"], ["--include", "*.histnorm"]):
        result = invoke("lint", "--output-format", "json", *include, ".")
        only_the_temp = include == ["--include", "*.histnorm"]
        assert result.exit_code == (2 if only_the_temp else 0), result.output
        assert ("no files matched" in result.output) is only_the_temp
        assert stale not in result.output


# --- 5. symlinks --------------------------------------------------------------------------


def test_a_folder_scan_does_not_follow_a_file_symlink_out_of_the_folder():
    outside = put("outside/secret.json", ORPHAN)
    put("logs/own.json", ORPHAN)
    Path("logs/link.json").symlink_to(outside.resolve())
    result = invoke("fix", "logs")
    assert result.exit_code == 0, result.output
    assert outside.read_bytes() == ORPHAN
    assert Path("logs/own.json").read_bytes() != ORPHAN
    assert Path("logs/link.json").is_symlink()


def test_a_folder_scan_takes_a_symlink_inside_the_folder_once():
    put("logs/real.json", ORPHAN)
    Path("logs/alias.json").symlink_to("real.json")
    result = invoke("lint", "--output-format", "json", "logs")
    assert result.exit_code == 1
    assert len(orjson.loads(result.stdout)) == 1


def test_an_explicit_symlink_is_followed_and_the_link_kept():
    outside = put("outside/real.json", ORPHAN, mode=0o640)
    os.chown(outside, 1000, 1000)
    Path("link.json").symlink_to(outside.resolve())
    result = invoke("fix", "link.json")
    assert result.exit_code == 0, result.output
    assert Path("link.json").is_symlink()
    assert outside.read_bytes() != ORPHAN
    after = outside.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (1000, 1000, 0o640)
    assert names("outside") == ["real.json"]


# --- 6. -o ---------------------------------------------------------------------------------


def test_fix_stdin_with_an_output_path_writes_there():
    result = invoke("fix", "-", "-o", "out.json", input=ORPHAN)
    assert result.exit_code == 0, result.output
    assert Path("out.json").read_bytes() not in (b"", ORPHAN)
    assert result.stdout_bytes == b""


@pytest.mark.parametrize("name", ["one.json", "log.jsonl", "-"])
def test_an_output_in_a_missing_folder_is_a_clear_error(name):
    if name != "-":
        put(name, ORPHAN)
    result = invoke("fix", name, "-o", "nowhere/out.json", input=ORPHAN)
    assert result.exit_code == 2, result.output
    assert "nowhere/out.json: cannot write: the folder nowhere does not exist" in result.output
    assert "Traceback" not in result.output
    assert not Path("nowhere").exists()


def test_convert_reads_no_fifo_and_reports_a_missing_output_folder():
    os.mkfifo("pipe.json")
    completed = cli("convert", "pipe.json", "--to", "openai-chat")
    assert completed.returncode == 2
    assert b"pipe.json: not a regular file (a FIFO)" in completed.stderr
    put("one.json", CLEAN)
    result = invoke("convert", "one.json", "--to", "openai-chat", "-o", "nowhere/out.json")
    assert result.exit_code == 2, result.output
    assert "nowhere/out.json: cannot write: the folder nowhere does not exist" in result.output


def test_backup_is_a_copy_with_the_identity_where_hard_links_are_not_allowed(monkeypatch):
    path = put("one.json", ORPHAN, mode=0o640)
    os.chown(path, 1000, 1000)
    os.setxattr(path, "user.origin", b"export")

    def no_links(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    result = invoke("fix", "--backup", "one.json")
    assert result.exit_code == 0, result.output
    bak = Path("one.json.bak")
    assert bak.read_bytes() == ORPHAN
    st = bak.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1000, 1000, 0o640)
    assert os.getxattr(bak, "user.origin") == b"export"
    assert names() == ["one.json", "one.json.bak"]


def test_an_output_that_is_no_regular_file_is_never_replaced():
    put("one.json", ORPHAN)
    os.mkfifo("pipe.json")
    result = invoke("fix", "one.json", "-o", "pipe.json")
    assert result.exit_code == 2, result.output
    assert "pipe.json: not a regular file (a FIFO)" in result.output
    assert stat.S_ISFIFO(os.stat("pipe.json").st_mode)
    assert names() == ["one.json", "pipe.json"]
