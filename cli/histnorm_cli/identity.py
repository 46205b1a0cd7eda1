"""What a file is, so it is read only when regular and replaced only when unchanged
(`Source`, `FileChanged` and `keep_identity` live in `histnorm.file_identity`, which the
corpus sinks share).

An input is opened without blocking (a FIFO never stalls the run) and must be a regular
file. What was read is remembered as a `Source`; before its replacement is renamed into
place, the path must still name that file, unchanged (device, inode, size, mtime), and
the descriptor it was read from must show no write since. A rewrite keeps the owner,
group, mode and extended attributes of the file it replaces, and a backup is the
file itself (hard-linked as `FILE.bak`) or a copy with that identity.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path
from typing import BinaryIO

from histnorm.file_identity import CHANGED as CHANGED
from histnorm.file_identity import FileChanged as FileChanged
from histnorm.file_identity import Source as Source
from histnorm.file_identity import keep_identity as keep_identity

SUFFIX = ".histnorm"
"""The end of a temporary file's name (see `histnorm_cli.files`)."""
KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


class NotRegular(OSError):
    """A FIFO, device, socket or folder where a transcript file was expected."""

    def __init__(self, path: str, mode: int) -> None:
        kind = KINDS.get(stat.S_IFMT(mode), "not a file")
        super().__init__(errno.EINVAL, f"not a regular file ({kind}); not read", path)


def regular_error(path: str) -> str | None:
    """Why `path` (followed if a symlink) cannot be read as a transcript, or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # reading it says why
    if stat.S_ISREG(mode):
        return None
    error = NotRegular(path, mode)
    return f"{path}: {error.strerror}"


def open_regular(path: str, buffering: int = -1) -> BinaryIO:
    """Open `path` for reading; raises `NotRegular` (without blocking) unless regular."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str) -> tuple[bytes, Source]:
    """The whole content of a regular file, and the file it was read from."""
    with open_regular(path, buffering=0) as stream:
        source = Source.of(path, stream)
        data = stream.read()
        assert isinstance(data, bytes)
        source.check_open(stream)
    return data, source


def sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def backup_as_bak(target: Path) -> None:
    """Keep `target` as `TARGET.bak`, replacing whatever has that name (a symlink is
    replaced, never written through): the file itself is linked there when the file
    system allows, else a copy with its identity is."""
    import secrets  # only a fix keeping a backup names one: a lint does not load it

    bak = target.with_name(target.name + ".bak")
    for _ in range(100):
        name = target.with_name(f".{bak.name}.{secrets.token_hex(4)}{SUFFIX}")
        try:
            os.link(target, name, follow_symlinks=False)
            break
        except FileExistsError:
            continue
        except OSError:
            name = _copy(target)
            break
    else:
        raise OSError(errno.EEXIST, "cannot name a temporary file", str(target))
    try:
        os.replace(name, bak)
    except BaseException:
        name.unlink(missing_ok=True)
        raise


def _copy(target: Path) -> Path:
    import tempfile

    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.bak.", suffix=SUFFIX)
    try:
        with os.fdopen(handle, "wb") as out, open_regular(str(target)) as source:
            shutil.copyfileobj(source, out, 1 << 20)
            out.flush()
            keep_identity(out.fileno(), os.fstat(source.fileno()), str(target))
            os.fsync(out.fileno())
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)
