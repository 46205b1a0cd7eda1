"""What a file was when it was read, so that it is replaced only when unchanged, and
the identity (owner, group, mode, extended attributes) a rewrite of it keeps.

The command line (`histnorm fix`) and the corpus sinks (`histnorm.integrations.ray`) share
it: before a rewrite is renamed into place, the path must still name the file that was
read, unchanged (device, inode, size, mtime).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import BinaryIO

from histnorm._record import record

CHANGED = "changed while being fixed; left as it was"


class FileChanged(OSError):
    """The file changed (or went away) after it was read: it is not replaced."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EAGAIN, CHANGED, path)


@record(frozen=True)
class Source:
    """The file an input was read from, as it was when reading began."""

    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str, stream: BinaryIO) -> Source:
        """The file open as `stream` (named `path`), as it is now."""
        return cls.of_stat(path, os.fstat(stream.fileno()))

    @classmethod
    def of_stat(cls, path: str, st: os.stat_result) -> Source:
        """The file named `path` whose status is `st`."""
        return cls(path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def _same(self, st: os.stat_result) -> bool:
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
            self.dev,
            self.ino,
            self.size,
            self.mtime_ns,
        )

    def check_open(self, stream: BinaryIO) -> None:
        """Raise `FileChanged` if the file open as `stream` was written since."""
        if not self._same(os.fstat(stream.fileno())):
            raise FileChanged(self.path)

    def check(self) -> None:
        """Raise `FileChanged` unless `path` still names this file, unchanged."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise FileChanged(self.path) from None
        if not self._same(st):
            raise FileChanged(self.path)


def keep_identity(fd: int, original: os.stat_result, path: str) -> None:
    """Give the new file open as `fd` the owner, group, mode and extended attributes of
    `original` (the file at `path` it replaces). Setuid and setgid are dropped when the
    owner cannot be kept, as rename-based editors do."""
    mode = stat.S_IMODE(original.st_mode)
    try:
        os.fchown(fd, original.st_uid, original.st_gid)
    except PermissionError:
        mode &= ~(stat.S_ISUID | stat.S_ISGID)
        with contextlib.suppress(PermissionError):
            os.fchown(fd, -1, original.st_gid)  # a group the user is in
    _copy_xattrs(path, fd)
    os.fchmod(fd, mode)


def _copy_xattrs(path: str, fd: int) -> None:
    try:
        keys = os.listxattr(path)
    except OSError:
        return  # none, or not supported here
    for key in keys:
        try:
            os.setxattr(fd, key, os.getxattr(path, key))
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EACCES):
                raise
