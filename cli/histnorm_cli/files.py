"""Paths in, bytes out: expanding arguments and writing files atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from types import TracebackType

DEFAULT_INCLUDE = ("*.json", "*.jsonl")
STDIN = "-"


def _matches(path: Path, patterns: tuple[str, ...] | list[str]) -> bool:
    text = path.as_posix()
    return any(fnmatch(path.name, p) or fnmatch(text, p) for p in patterns)


def expand(
    paths: list[str],
    include: tuple[str, ...] | list[str] = DEFAULT_INCLUDE,
    exclude: tuple[str, ...] | list[str] = (),
) -> Iterator[tuple[str, str | None]]:
    """Yield (path, error) for each file named or found below a named folder, sorted.

    Files named explicitly are always taken; files found in folders must match `include`
    and not `exclude`. A path that does not exist yields an error instead.
    """
    seen: set[str] = set()
    for name in paths:
        key = os.path.normpath(name)
        if name != STDIN and key in seen:
            continue
        seen.add(key)
        if name == STDIN:
            yield STDIN, None
            continue
        path = Path(name)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and _matches(p, include) and not _matches(p, exclude)
            )
            for file in found:
                if os.path.normpath(file) not in seen:
                    seen.add(os.path.normpath(file))
                    yield str(file), None
        elif path.exists():
            yield name, None
        else:
            yield name, f"{name}: no such file or directory"


def _new_file_mode() -> int:
    """The mode a new file gets from the process umask (0o666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class AtomicWriter:
    """Write a file's new content beside it, then rename it over the original.

    The temporary file is flushed and fsynced before the rename, and gets the original's
    permissions. A symlink is resolved and its target written. On any failure (or
    `discard()`) the temporary file is removed and the original is left as it was.
    """

    def __init__(self, path: Path) -> None:
        self.target = path.resolve() if path.is_symlink() else path
        self.mode = self.target.stat().st_mode if self.target.exists() else _new_file_mode()
        try:
            handle, name = tempfile.mkstemp(
                dir=self.target.parent, prefix=f".{self.target.name}.", suffix=".histnorm"
            )
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.target)) from None
        self.temp = Path(name)
        self.stream = os.fdopen(handle, "wb")
        self.done = False

    def write(self, data: bytes) -> None:
        """Append bytes to the new content."""
        self.stream.write(data)

    def commit(self, backup: bool = False) -> None:
        """Make the new content the file's content, keeping `FILE.bak` if asked."""
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.stream.close()
        os.chmod(self.temp, self.mode & 0o7777)
        if backup and self.target.exists():
            shutil.copy2(self.target, self.target.with_name(self.target.name + ".bak"))
        os.replace(self.temp, self.target)
        self.done = True

    def discard(self) -> None:
        """Drop the new content; the original stays untouched."""
        if not self.done:
            self.stream.close()
            self.temp.unlink(missing_ok=True)
            self.done = True

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
    lines before the first change are copied from `source` when that change comes, so a
    file in which nothing changed is never written. `commit(always=True)` still writes
    it (a copy of `source`), as an explicit output path needs.
    """

    def __init__(self, source: Path, target: Path) -> None:
        self.source = source
        self.target = target
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
        self.writer = AtomicWriter(self.target)
        with open(self.source, "rb") as source:
            left = length
            while left is None or left > 0:
                block = source.read(1 << 20 if left is None else min(left, 1 << 20))
                if not block:
                    break
                self.writer.write(block)
                if left is not None:
                    left -= len(block)

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


def write_atomically(path: Path, data: bytes, backup: bool = False) -> None:
    """Replace the content of `path` with `data` atomically."""
    with AtomicWriter(path) as writer:
        writer.write(data)
        writer.commit(backup)
