"""What every benchmark corpus run shares: the floors, the in-process runs, best-of timing.

The parse floor is `orjson.loads` of every line, the round-trip floor `orjson.loads` and
`orjson.dumps` of every line; `histnorm lint` and `fix` run in process through
`histnorm_cli.per_file.run_file`, as the command line runs them, file by file.
"""

from __future__ import annotations

import gc
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson
from histnorm_cli.job import Job, Outcome
from histnorm_cli.per_file import run_file

import histnorm
from benchmarks import corpus

T = TypeVar("T")

SCRATCH = corpus.CORPUS_DIR / "scratch"

FLOOR_MIN_TIME = 0.5
"""Seconds each floor measurement repeats for at small sizes (it is only milliseconds)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- timing


def best_of(
    repeats: int, fn: Callable[[], T], *, min_time: float = 0.0, max_repeats: int = 50
) -> tuple[float, float, T]:
    """The fastest of `repeats` runs of `fn`: (perf_counter seconds, CPU seconds, result).

    With `min_time`, short measurements repeat until that many seconds were spent (at most
    `max_repeats` runs), so a few-millisecond floor is not one scheduler hiccup."""
    best, best_cpu, result = float("inf"), 0.0, None
    count, spent = 0, 0.0
    while count < max(1, repeats) or (spent < min_time and count < max_repeats):
        gc.collect()
        cpu = time.process_time()
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best, best_cpu = elapsed, time.process_time() - cpu
        count += 1
        spent += elapsed
    return best, best_cpu, result  # type: ignore[return-value]


def parse_floor(files: list[str]) -> int:
    """orjson.loads of every line; returns the number of lines."""
    count = 0
    loads = orjson.loads
    for path in files:
        with open(path, "rb") as stream:
            for line in stream:
                loads(line)
                count += 1
    return count


def roundtrip_floor(files: list[str]) -> int:
    """orjson.loads and orjson.dumps of every line; returns the number of lines."""
    count = 0
    loads, dumps = orjson.loads, orjson.dumps
    for path in files:
        with open(path, "rb") as stream:
            for line in stream:
                dumps(loads(line))
                count += 1
    return count


def run_files(files: list[str], job_for: Callable[[str], Job]) -> list[Outcome]:
    outcomes = [run_file(path, job_for(path)) for path in files]
    for outcome in outcomes:
        if outcome.error is not None:
            raise RuntimeError(f"histnorm failed on {outcome.path}: {outcome.error}")
    return outcomes


def _scratch_for(path: str) -> str:
    return str(SCRATCH / Path(path).name)


SETTINGS = histnorm.Settings()


def jsonl_mode(fmt: str) -> str:
    """Claude Code logs hold one message per line; say so rather than rely on detection."""
    return "message" if fmt == corpus.SESSION_FORMAT else "auto"


def lint_job(fmt: str) -> Callable[[str], Job]:
    job = Job(mode="lint", settings=SETTINGS, jsonl_mode=jsonl_mode(fmt))
    return lambda _path: job


def fix_job(fmt: str) -> Callable[[str], Job]:
    mode = jsonl_mode(fmt)
    return lambda path: Job(
        mode="fix", settings=SETTINGS, write=True, output=_scratch_for(path), jsonl_mode=mode
    )


def fix_in_place_job(fmt: str) -> Callable[[str], Job]:
    job = Job(mode="fix", settings=SETTINGS, write=True, jsonl_mode=jsonl_mode(fmt))
    return lambda _path: job


def cli_mode(fmt: str) -> list[str]:
    """The command line options a corpus of `fmt` is linted with: a folder of session files
    inside `benchmarks/.corpus`, which its `.gitignore` hides from a folder scan."""
    if fmt != corpus.SESSION_FORMAT:
        return []
    return ["--jsonl-mode", "message", "--no-respect-gitignore"]


def _summary(outcomes: list[Outcome]) -> dict[str, Any]:
    errors = sum(1 for o in outcomes for d in o.diagnostics if d.severity.value == "error")
    applied: dict[str, int] = {}
    for outcome in outcomes:
        for code, count in outcome.applied.items():
            applied[code] = applied.get(code, 0) + count
    return {
        "transcripts": sum(o.transcripts for o in outcomes),
        "diagnostics": sum(len(o.diagnostics) for o in outcomes),
        "errors": errors,
        "changed_files": sum(1 for o in outcomes if o.changed),
        "applied": dict(sorted(applied.items())),
    }


Timing = tuple[float, float, Any]


def _rates(timing: Timing, info: corpus.CorpusInfo, floor: Timing) -> dict[str, float]:
    """Throughput of one measurement, and its ratio to `floor` (wall clock and CPU time)."""
    seconds, cpu = timing[0], timing[1]
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "transcripts_per_s": info.transcripts / seconds if seconds else 0.0,
        "mb_per_s": info.bytes / corpus.MB / seconds if seconds else 0.0,
        "ratio": seconds / floor[0] if floor[0] else 0.0,
        "cpu_ratio": cpu / floor[1] if floor[1] else 0.0,
    }


def _clear_scratch() -> None:
    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    SCRATCH.mkdir(parents=True)


def verdict(value: float, limit: float, *, higher_is_better: bool = False) -> str:
    ok = value >= limit if higher_is_better else value <= limit
    return "PASS" if ok else "FAIL"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i > 0 else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])
