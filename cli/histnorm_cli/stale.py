"""Temporary files a stopped run left behind (`kill -9` while a file was being fixed).

A temporary file of histnorm's is named `.NAME.pPID.XXXXXXXX.histnorm` (a share of a
file fixed by several processes: `.NAME.N.pPID.XXXXXXXX.histnorm`), where PID is the
process of the run that owns it, and is locked (`flock`) while it is written. The next
`fix` of NAME removes such a file only when it can prove it is its own and stale: the
name says so for that very NAME, it is a regular file of the same user, no process PID
is alive, and no one holds its lock. A file of any other name is never touched.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from histnorm_cli.identity import SUFFIX

_OWNED = re.compile(r"\.(?P<head>.+)\.p(?P<pid>[0-9]+)\.[a-z0-9_]{8}" + re.escape(SUFFIX))
_PART = re.compile(r"(?P<name>.+)\.[0-9]+")

owner: int | None = None
"""The process of the run that owns the temporary files made here (set in a worker to
its parent's); None: this process."""


def prefix(target: Path, index: int | None = None) -> str:
    """The start of the name of a temporary file for `target` (share `index` of it)."""
    share = f"{index}." if index is not None else ""
    return f".{target.name}.{share}p{owner or os.getpid()}."


def lock(fd: int) -> None:
    """Lock a new temporary file while it is written (the lock goes with the process)."""
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _alive(pid: int) -> bool:
    if pid <= 0 or pid == os.getpid() or pid == owner:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process, say
    return True


def _owned_by(name: str, targets: set[str]) -> int | None:
    """The pid in `name` when it names a temporary file of one of `targets`."""
    found = _OWNED.fullmatch(name)
    if found is None:
        return None
    head = found["head"]
    part = _PART.fullmatch(head)
    if head in targets or (part is not None and part["name"] in targets):
        return int(found["pid"])
    return None


def _remove_if_stale(path: str, pid: int) -> bool:
    """Remove `path` if it is a regular file of this user that no live process owns or
    holds locked; whether it was removed."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or _alive(pid):
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        try:
            lock(fd)
        except OSError:
            return False  # being written
        if os.fstat(fd).st_ino != info.st_ino:
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def remove_stale(targets: Iterable[Path]) -> Iterator[str]:
    """Remove the stale temporary files of `targets` (files about to be fixed); yield the
    path of each removed. Each folder is listed once."""
    folders: dict[Path, set[str]] = {}
    for target in targets:
        real = target.resolve() if target.is_symlink() else target
        folders.setdefault(real.parent, set()).add(real.name)
    for folder, names in folders.items():
        try:
            entries = [entry.name for entry in os.scandir(folder)]
        except OSError:
            continue
        for name in sorted(entries):
            pid = _owned_by(name, names)
            if pid is not None and _remove_if_stale(str(folder / name), pid):
                yield str(folder / name)
