"""`LineDatasink`: the rows of `fix_dataset` (or `fix_files`) written back as files, each
line's bytes exactly as given (Ray Data has no sink that writes bytes as they are)."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

try:
    from ray.data.block import BlockAccessor
    from ray.data.datasource import Datasink
except ImportError as error:
    raise ImportError(
        "histnorm.integrations.ray needs Ray Data: pip install 'ray[data]'"
    ) from error

Part = tuple[str, int, str]
"""A share of a file written by one task: the file's path, its first line, the part file."""

STAGING = ".histnorm-parts"
"""The folder, inside the output folder, where shares of files wait to be joined."""


class LineDatasink(Datasink[list[Part]]):
    """Writes each file of rows `path`, `line`, `last`, `bytes` to `output` (a folder on
    a file system every worker and the driver share), at its path relative to `root`.

    A task that holds every line of a file writes it at once; lines of a file spread over
    several tasks are written as parts and joined in line order when the write ends.
    Every file is replaced atomically; an unchanged file is written back byte-identical.
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

    def write(self, blocks: Iterable[Any], ctx: Any) -> list[Part]:
        """Write what this task holds: whole files in place, shares of files as parts."""
        runs: list[tuple[str, int, bool, list[bytes]]] = []  # path, first line, last?, bytes
        for block in blocks:
            table = BlockAccessor.for_block(block).to_arrow()
            columns = table.select(["path", "line", "last", "bytes"]).to_pydict()
            for path, line, last, data in zip(*columns.values(), strict=True):
                if runs and runs[-1][0] == path and runs[-1][1] + len(runs[-1][3]) == line:
                    path, first, _, pieces = runs[-1]
                    pieces.append(data)
                    runs[-1] = (path, first, last, pieces)
                else:
                    runs.append((path, line, last, [data]))
        parts: list[Part] = []
        for path, first, last, pieces in runs:
            if first == 1 and last:
                _replace(self.target(path), pieces)
                continue
            name = str(self.output / STAGING / f"{uuid.uuid4().hex}.part")
            with open(name, "wb") as out:
                out.writelines(pieces)
            parts.append((path, first, name))
        return parts

    def on_write_complete(self, write_result: Any) -> None:
        """Join the parts of each file in line order, then remove the staging folder."""
        shares: dict[str, list[tuple[int, str]]] = {}
        for parts in write_result.write_returns:
            for path, first, name in parts:
                shares.setdefault(path, []).append((first, name))
        for path, found in shares.items():
            _join(self.target(path), [name for _, name in sorted(found)])
        shutil.rmtree(self.output / STAGING, ignore_errors=True)

    def on_write_failed(self, error: Exception) -> None:
        shutil.rmtree(self.output / STAGING, ignore_errors=True)


def _replace(target: Path, pieces: list[bytes]) -> None:
    """Write `pieces` to `target` atomically (a temporary file beside it, renamed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.writelines(pieces)
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def _join(target: Path, names: list[str]) -> None:
    """Join the part files `names` into `target` atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            for part in names:
                with open(part, "rb") as share:
                    shutil.copyfileobj(share, out, 1 << 20)
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
