"""histnorm.integrations.dask against the real Dask: `dask.bag.read_text` with `READ_TEXT`,
`map_partitions` and `to_textfiles` give byte for byte what `histnorm fix` writes, and the
records `histnorm lint --output-format json` prints, on the synchronous scheduler and on
the processes one (the work pickled to worker processes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.bag as db
import pytest
from engine_corpus import (
    FILES,
    canonical,
    cli_fix,
    cli_lint,
    expect_changes,
    relative,
    write_corpus,
)

from histnorm.integrations import dask as hd

SCHEDULERS = [
    pytest.param({"scheduler": "synchronous"}, id="synchronous"),
    pytest.param({"scheduler": "processes", "num_workers": 2}, id="processes"),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("dask")
    root = base / "corpus"
    paths = write_corpus(root)
    fixed = cli_fix(root, base / "cli")
    expect_changes(fixed)
    return {"root": root, "paths": paths, "fixed": fixed, "lint": cli_lint(paths)}


def _names(paths: list[Path]) -> list[str]:
    return [str(p) for p in paths]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_fix_over_read_text_writes_what_the_cli_writes(
    corpus: dict[str, Any], tmp_path: Path, scheduler: dict[str, Any]
) -> None:
    paths = _names(corpus["paths"])
    out = tmp_path / "fixed"
    lines = db.read_text(paths, **hd.READ_TEXT)
    assert lines.npartitions == len(FILES)
    targets = hd.targets(paths, str(out), root=str(corpus["root"]))
    lines.map_partitions(hd.fix_partition).to_textfiles(targets, encoding=None, **scheduler)
    assert relative(out) == corpus["fixed"]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_lint_over_read_text_gives_the_records_of_the_cli(
    corpus: dict[str, Any], scheduler: dict[str, Any]
) -> None:
    lines = db.read_text(_names(corpus["paths"]), **hd.READ_TEXT)
    found = lines.map_partitions(hd.lint_partition).compute(**scheduler)
    assert canonical(found) == canonical(corpus["lint"])
    assert {r.get("code") for r in found} >= {"HN000", "HN001", "HN002", "HN008", "HN011"}
    assert any(r.get("skipped") for r in found)


def test_per_file_lint_and_fix_give_what_the_cli_gives(
    corpus: dict[str, Any], tmp_path: Path
) -> None:
    paths = _names(corpus["paths"])
    found = db.from_sequence(paths).map(hd.lint_file).flatten().compute(scheduler="sync")
    assert canonical(found) == canonical(corpus["lint"])
    out = tmp_path / "fixed"
    targets = hd.targets(paths, str(out), root=str(corpus["root"]))
    done = db.from_sequence(list(zip(paths, targets, strict=True)), npartitions=2)
    summaries = done.starmap(hd.fix_file).compute(scheduler="processes", num_workers=2)
    assert relative(out) == corpus["fixed"]
    changed = {
        Path(s["path"]).relative_to(corpus["root"]).as_posix() for s in summaries if s["changed"]
    }
    assert changed == {n for n, data in corpus["fixed"].items() if data != FILES[n]}


def test_options_are_settings_as_for_the_cli(corpus: dict[str, Any]) -> None:
    paths = _names(corpus["paths"])
    lines = db.read_text(paths, **hd.READ_TEXT)
    found = lines.map_partitions(hd.lint_partition, select=("HN001",)).compute(scheduler="sync")
    expected = [r for r in corpus["lint"] if r.get("code") in ("HN001", "HN000") or "skipped" in r]
    assert canonical(found) == canonical(expected)
    with pytest.raises(TypeError, match="selec"):
        hd.lint_partition([], selec=("HN001",))


def test_lines_read_without_read_text_arguments_are_refused(corpus: dict[str, Any]) -> None:
    paths = _names(corpus["paths"])
    plain = db.read_text(paths[:1])
    with pytest.raises(ValueError, match="READ_TEXT"):
        plain.map_partitions(hd.fix_partition).compute(scheduler="sync")
    together = db.read_text(paths[:2], files_per_partition=2, **hd.READ_TEXT)
    with pytest.raises(ValueError, match="one partition per file"):
        together.map_partitions(hd.lint_partition).compute(scheduler="sync")
    with pytest.raises(ValueError, match="Latin-1"):
        hd.fix_partition([("caf\u00e9 \u2603", paths[0])])
