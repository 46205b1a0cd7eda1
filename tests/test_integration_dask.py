"""histnorm.integrations.dask against the real Dask: `dask.bag.read_text` with `READ_TEXT`,
`map_partitions` and `to_textfiles` give byte for byte what `histnorm fix` writes, and the
records `histnorm lint --output-format json` prints, on the synchronous scheduler and on
the processes one (the work pickled to worker processes); `quarantine` splits a bag of
records as the `datasets` adapter splits a dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dask
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
from quarantine_rows import ROWS, WARNING_ONLY, check_split

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


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_quarantine_splits_records_in_order_with_their_reasons(
    tmp_path: Path, scheduler: dict[str, Any]
) -> None:
    """JSONL read a partition per file: a quarantined record's `row` counts the records
    of the files before its own."""
    paths = []
    for name, rows in (("a.jsonl", ROWS[:3]), ("b.jsonl", ROWS[3:])):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(str(tmp_path / name))
    kept, moved = hd.quarantine(db.read_text(paths).map(json.loads))
    assert kept.npartitions == moved.npartitions == 2
    errors = {2: {"HN000"}, 3: {"HN007", "HN010", "HN016"}}
    check_split(
        *dask.compute(kept, moved, **scheduler), moved_ids=[2, 3], codes=errors, numbered=True
    )


def test_quarantine_repairs_once_computed_together_and_strict_sets_warnings_aside() -> None:
    """Under options that leave CONFLICT with only a warning, it is kept unless `strict`.
    Both bags computed together repair each record once; one after the other, twice."""
    seen: list[int] = []

    def count(record: dict[str, Any]) -> dict[str, Any]:
        seen.append(record["id"])
        return record

    bag = db.from_sequence(ROWS, partition_size=1).map(count)
    for strict in (False, True):
        seen.clear()
        kept, moved = hd.quarantine(bag, strict=strict, **WARNING_ONLY)
        together = dask.compute(kept, moved, scheduler="sync")
        assert sorted(seen) == [r["id"] for r in ROWS]
        apart = kept.compute(scheduler="sync"), moved.compute(scheduler="sync")
        assert len(seen) == 3 * len(ROWS) and apart == together
        codes = {2: {"HN000"}, 3: {"HN007"}}
        moved_ids = [2, 3] if strict else [2]
        check_split(*together, moved_ids=moved_ids, codes=codes, numbered=True, **WARNING_ONLY)


def test_quarantine_refuses_a_bag_of_lines() -> None:
    lines = db.from_sequence([json.dumps(ROWS[0])])
    with pytest.raises(TypeError, match="bag of records"):
        hd.quarantine(lines)[0].compute(scheduler="sync")
