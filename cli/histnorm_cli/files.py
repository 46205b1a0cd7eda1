"""Bytes out: writing files atomically (finding them is `histnorm_cli.discovery`).

A new content is written to a temporary file beside its target, named
`.NAME.pPID.XXXXXXXX.histnorm` (`.NAME.N.pPID.XXXXXXXX.histnorm` for a share of a file
fixed by several processes; PID is the run's process, X one of `a-z0-9_`) and locked
while written, fsynced with the target's owner, group, mode and extended attributes,
then renamed over the target and the folder fsynced. A folder scan never takes such a
file, so one left behind by a killed run is never read as input; the next `fix` of the
same file removes it (`histnorm_cli.stale`).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from histnorm_cli import stale
from histnorm_cli.identity import (
    SUFFIX,
    NotRegular,
    backup_as_bak,
    keep_identity,
    open_regular,
    sync_folder,
)

DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
"""Names of files read as SQLite databases (`histnorm_cli.databases`)."""
SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of an SQLite database, whatever its name."""
DEFAULT_INCLUDE = ("*.json", "*.jsonl", *(f"*{suffix}" for suffix in DATABASE_SUFFIXES))
STDIN = "-"
TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.histnorm")
"""The name of a temporary file of histnorm's (see the module docstring)."""


def _new_file_mode() -> int:
    """The mode a new file gets from the process umask (0o666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class AtomicWriter:
    """Write a file's new content beside it, then rename it over the original.

    The temporary file is fsynced with the original's owner, group, mode and extended
    attributes before the rename (`verify`, if given, is called just before it and may
    raise to keep the original), then the folder is fsynced. A symlink is resolved and
    its target written. A hard-linked or non-regular target is refused. On any failure
    or interruption (or `discard()`) the temporary file is removed and the original is
    left as it was.
    """

    def __init__(self, path: Path, verify: Callable[[], None] | None = None) -> None:
        self.target = path.resolve() if path.is_symlink() else path
        self.verify = verify
        self.done = False
        try:
            self.original: os.stat_result | None = os.stat(self.target)
        except FileNotFoundError:
            self.original = None
        if self.original is not None:
            if not os.path.isfile(self.target):
                raise NotRegular(str(path), self.original.st_mode)
            if self.original.st_nlink > 1:
                raise OSError(
                    errno.EMLINK,
                    f"has {self.original.st_nlink} hard links; not rewritten, as that would "
                    "split them (write the result elsewhere with -o)",
                    str(path),
                )
        folder = self.target.parent
        import tempfile  # only a fix writes: a lint does not load it

        try:
            handle, name = tempfile.mkstemp(
                dir=folder, prefix=stale.prefix(self.target), suffix=SUFFIX
            )
        except OSError as exc:
            reason = exc.strerror
            if isinstance(exc, FileNotFoundError) and not folder.is_dir():
                reason = f"cannot write: the folder {folder} does not exist"
            raise OSError(exc.errno, reason, str(path)) from None
        self.temp = Path(name)
        try:
            stale.lock(handle)
            self.stream = os.fdopen(handle, "wb")
        except BaseException:
            os.close(handle)
            self.temp.unlink(missing_ok=True)
            raise

    def write(self, data: bytes | memoryview) -> None:
        """Append bytes to the new content."""
        self.stream.write(data)

    def commit(self, backup: bool = False) -> None:
        """Make the new content the file's content, keeping `FILE.bak` if asked."""
        self.stream.flush()
        fd = self.stream.fileno()
        if self.original is not None:
            keep_identity(fd, self.original, str(self.target))
        else:
            os.fchmod(fd, _new_file_mode())
        os.fsync(fd)
        self.stream.close()
        if self.verify is not None:
            self.verify()
        if backup and self.original is not None:
            backup_as_bak(self.target)
        os.replace(self.temp, self.target)
        self.done = True
        sync_folder(self.target.parent)

    def discard(self) -> None:
        """Drop the new content; the original stays untouched."""
        if not self.done:
            self.done = True
            try:
                self.stream.close()
            except OSError:
                pass  # e.g. no space left to flush: the file goes anyway
            finally:
                self.temp.unlink(missing_ok=True)

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.discard()


class LazyWriter:
    """An `AtomicWriter` that starts at the first line that differs from the source file.

    `write(data, unchanged)` takes each line of the new content in order; the unchanged
    lines before the first change are copied from the source when that change comes, so
    a file in which nothing changed is never written. `commit(always=True)` still writes
    it (a copy of the source), as an explicit output path needs. Given `stream` (the
    source, open), the copy is read from that very file, not from whatever has its name
    by then; `verify` is passed on to the `AtomicWriter`.
    """

    def __init__(
        self,
        source: Path,
        target: Path,
        stream: BinaryIO | None = None,
        verify: Callable[[], None] | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.stream = stream
        self.verify = verify
        self.skipped = 0
        self.writer: AtomicWriter | None = None

    def write(self, data: bytes, unchanged: bool) -> None:
        """Take the next line of the new content."""
        if self.writer is None:
            if unchanged:
                self.skipped += len(data)
                return
            self._start(self.skipped)
        assert self.writer is not None
        self.writer.write(data)

    def _start(self, length: int | None) -> None:
        """Open the writer and copy the first `length` bytes of the source (all if None)."""
        self.writer = AtomicWriter(self.target, self.verify)
        if self.stream is not None:
            self._copy(self.stream.fileno(), length)
            return
        with open_regular(str(self.source)) as source:
            self._copy(source.fileno(), length)

    def _copy(self, fd: int, length: int | None) -> None:
        assert self.writer is not None
        offset = 0
        while length is None or offset < length:
            want = 1 << 20 if length is None else min(length - offset, 1 << 20)
            block = os.pread(fd, want, offset)
            if not block:
                break
            self.writer.write(block)
            offset += len(block)

    def commit(self, always: bool, backup: bool = False) -> None:
        """Replace the target if anything changed (or `always`)."""
        if self.writer is None:
            if not always:
                return
            self._start(None)
        assert self.writer is not None
        self.writer.commit(backup)

    def discard(self) -> None:
        """Drop whatever was written; the target stays as it was."""
        if self.writer is not None:
            self.writer.discard()


def write_atomically(
    path: Path,
    data: bytes | Sequence[bytes | memoryview],
    backup: bool = False,
    verify: Callable[[], None] | None = None,
) -> None:
    """Replace the content of `path` with `data` (bytes, or pieces written one after the
    other) atomically (see `AtomicWriter`)."""
    with AtomicWriter(path, verify) as writer:
        for piece in (data,) if isinstance(data, bytes) else data:
            writer.write(piece)
        writer.commit(backup)
