"""`make bench`'s `--jobs 1` against `--jobs 2` comparison, with its corpus and its runs
of `histnorm` stood in for (what it measures is timed, and tests time nothing): each
record names its input, the number of files and both runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from benchmarks import __main__ as bench


def test_the_jobs_comparison_records_each_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.jsonl").write_bytes(b"{}\n")
    single = SimpleNamespace(path=str(tmp_path / "a.jsonl"), bytes=3)
    monkeypatch.setattr(bench.corpus, "ensure_folder", lambda *a: tmp_path)
    monkeypatch.setattr(bench.corpus, "ensure", lambda *a: single)
    monkeypatch.setattr(bench, "parallel_capacity", lambda repeats: {"speedup": 2.0})
    seen: list[list[str]] = []

    def run(argv: list[str]) -> dict[str, Any]:
        seen.append(argv)
        return {"seconds": 1.0 if "1" in argv else 0.5, "cpu_s": 1.0}

    monkeypatch.setattr(bench, "cli", run)
    args = argparse.Namespace(
        folder_files=7, folder_file_mb=1.0, defect_rate=0.1, seed=0, cli_repeats=1
    )
    out = bench.measure_jobs(args, ("openai-chat",), 1.0)
    assert out["folder"]["files"] == 7 and out["single_jsonl"]["files"] == 1
    assert out["folder"]["speedup"] == 2.0
    assert all("--no-respect-gitignore" in argv for argv in seen)
    assert {argv[-1] for argv in seen} == {str(tmp_path), single.path}
