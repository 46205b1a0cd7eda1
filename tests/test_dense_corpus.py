"""The dense benchmark corpus (`benchmarks.dense`) is what it claims to be.

Same arguments give the same bytes; about 2,400 messages of about 440 bytes per MB;
the damaged share is the defect rate; and the damage is real: every damaged record lints
with a diagnostic and fix repairs it, every other record lints clean. No timings here
(speed is measured by `python -m benchmarks`)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import histnorm
from benchmarks import dense
from benchmarks.corpus import MB


@pytest.mark.parametrize("format", dense.FORMATS)
def test_same_arguments_give_the_same_bytes(format: str, tmp_path: Path) -> None:
    one = dense.ensure(format, 0.05, seed=3, root=tmp_path / "a")
    two = dense.ensure(format, 0.05, seed=3, root=tmp_path / "b")
    other = dense.ensure(format, 0.05, seed=4, root=tmp_path / "c")
    assert Path(one.path).read_bytes() == Path(two.path).read_bytes()
    assert Path(one.path).read_bytes() != Path(other.path).read_bytes()
    assert dense.ensure(format, 0.05, seed=3, root=tmp_path / "a") == one  # cached


@pytest.mark.parametrize("format", dense.FORMATS)
def test_size_density_and_damaged_share(format: str, tmp_path: Path) -> None:
    info = dense.ensure(format, 0.5, defect_rate=0.1, root=tmp_path)
    figures = dense.summary(info)
    assert info.bytes >= 0.5 * MB
    assert info.bytes == Path(info.path).stat().st_size
    assert 2_160 <= figures["messages_per_mb"] <= 2_640  # 2,400 within 10%
    assert 380 <= figures["bytes_per_message"] <= 490
    # Evenly spread: round(n * rate) of n records, give or take one.
    assert abs(info.defective - info.transcripts * 0.1) <= 1
    assert set(info.defects) <= set(dense.DEFECTS[format])


def test_a_clean_corpus_has_no_damage(tmp_path: Path) -> None:
    info = dense.ensure("sharegpt", 0.05, defect_rate=0.0, root=tmp_path)
    assert info.defective == 0
    assert info.transcripts > 0


@pytest.mark.parametrize("format", dense.FORMATS)
def test_damaged_records_are_reported_and_repaired_and_the_others_are_clean(
    format: str,
) -> None:
    damaged = 0
    for record, value in itertools.islice(dense.records(format, 0.1, seed=1), 300):
        diagnostics = histnorm.lint(value, format=format)
        if not record.defects:
            assert diagnostics == (), (record.index, diagnostics)
            continue
        damaged += 1
        assert diagnostics, (record.index, record.defects)
        fixed = histnorm.fix(value, format=format)
        assert fixed.applied, (record.index, record.defects)
        assert histnorm.lint(histnorm.encode(fixed.transcript), format=format) == ()
    assert damaged == 30


def test_a_corpus_that_does_not_fit_on_the_disk_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not enough free disk space"):
        dense.check_space(tmp_path, 1e12)
    assert not list(tmp_path.iterdir())


def test_a_removed_corpus_leaves_nothing_behind(tmp_path: Path) -> None:
    info = dense.ensure("openai-chat", 0.05, root=tmp_path)
    dense.remove("openai-chat", 0.05, root=tmp_path)
    assert not Path(info.path).exists()
    assert [p.name for p in tmp_path.iterdir()] == [".gitignore"]
