"""`LineDatasink`: the rows of `fix_dataset` (or `fix_files`) written back as files, each
line's bytes exactly as given (Ray Data has no sink that writes bytes as they are), each
file with the mode of the file it was read from, and only while that file is unchanged
(`histnorm.file_identity`, as `histnorm fix` checks)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from histnorm.file_identity import FileChanged, Source, keep_identity

try:
    from ray.data.block import BlockAccessor
    from ray.data.datasource import Datasink
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.ray needs Ray Data: pip install 'ray[data]'"
    ) from error

Stamp = dict[str, int] | None
"""A file as it was read (the `read` column: device, inode, size, mtime), or None."""
Part = tuple[str, int, str, Stamp]
"""A share of a file written by one task: the file's path, its first line, the part file,
the file as it was read."""
Written = tuple[list[Part], list[str]]
"""What a task wrote: shares of files, and the files it left as they were (changed since
they were read)."""

STAGING = ".histnorm-parts"
"""The folder, inside the output folder, where shares of files wait to be joined."""


class LineDatasink(Datasink[Written]):
    """Writes each file of rows `path`, `line`, `last`, `bytes` to `output` (a folder on
    a file system every worker and the driver share), at its path relative to `root`.

    A task that holds every line of a file writes it at once; lines of a file spread over
    several tasks are written as parts and joined in line order when the write ends.
    Every file is replaced atomically, with the owner, group and mode of the file it was
    read from; an unchanged file is written back byte-identical. A file that changed since
    it was read (a line appended, say) is left as it was, like `histnorm fix` leaves it:
    the others are written, then `FileChanged` names it.
    """

    def __init__(self, output: str | os.PathLike[str], *, root: str | os.PathLike[str]) -> None:
        self.output = Path(output).absolute()
        self.root = Path(root).absolute()

    def target(self, path: str) -> Path:
        """Where the file read at `path` is written."""
        source = Path(path).absolute()
        if not source.is_relative_to(self.root):
            raise ValueError(f"{path}: not under the root {self.root}")
        return self.output / source.relative_to(self.root)

    def on_write_start(self, schema: Any = None) -> None:
        (self.output / STAGING).mkdir(parents=True, exist_ok=True)

    def write(self, blocks: Iterable[Any], ctx: Any) -> Written:
        """Write what this task holds: whole files in place, shares of files as parts."""
        runs: list[tuple[str, int, bool, list[bytes], Stamp]] = []  # path, first, last?, ...
        for block in blocks:
            table = BlockAccessor.for_block(block).to_arrow()
            columns = table.select(["path", "line", "last", "bytes", "read"]).to_pydict()
            for path, line, last, data, read in zip(*columns.values(), strict=True):
                if runs and runs[-1][0] == path and runs[-1][1] + len(runs[-1][3]) == line:
                    path, first, _, pieces, read = runs[-1]
                    pieces.append(data)
                    runs[-1] = (path, first, last, pieces, read)
                else:
                    runs.append((path, line, last, [data], read))
        parts: list[Part] = []
        left: list[str] = []
        for path, first, last, pieces, read in runs:
            if first == 1 and last:
                if not _replace(self.target(path), pieces, path, read):
                    left.append(path)
                continue
            name = str(self.output / STAGING / f"{uuid.uuid4().hex}.part")
            with open(name, "wb") as out:
                out.writelines(pieces)
            parts.append((path, first, name, read))
        return parts, left

    def on_write_complete(self, write_result: Any) -> None:
        """Join the parts of each file in line order, remove the staging folder, then
        raise `FileChanged` naming the files left as they were, if any."""
        shares: dict[str, list[tuple[int, str]]] = {}
        reads: dict[str, Stamp] = {}
        left: list[str] = []
        for parts, kept in write_result.write_returns:
            left += kept
            for path, first, name, read in parts:
                shares.setdefault(path, []).append((first, name))
                reads[path] = read
        for path, found in shares.items():
            names = [name for _, name in sorted(found)]
            if not _replace(self.target(path), names, path, reads[path], joined=True):
                left.append(path)
        shutil.rmtree(self.output / STAGING, ignore_errors=True)
        if left:
            raise FileChanged(", ".join(sorted(left)))

    def on_write_failed(self, error: Exception) -> None:
        shutil.rmtree(self.output / STAGING, ignore_errors=True)


def _replace(
    target: Path, pieces: list[Any], source: str, read: Stamp, joined: bool = False
) -> bool:
    """Write `pieces` (bytes, or the names of part files when `joined`) to `target`
    atomically, with the identity of the file `source`; False, and `target` untouched,
    when `source` changed since it was `read`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            for piece in pieces:
                if not joined:
                    out.write(piece)
                    continue
                with open(piece, "rb") as share:
                    shutil.copyfileobj(share, out, 1 << 20)
            with contextlib.suppress(FileNotFoundError):
                keep_identity(out.fileno(), os.stat(source), source)
        if read is not None:
            Source(source, **read).check()
        os.replace(name, target)
    except FileChanged:
        Path(name).unlink(missing_ok=True)
        return False
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return True
