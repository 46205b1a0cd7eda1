"""Case `i` of seed `S`: one fixture, damaged with `random.Random(f"{S}:{i}")`, checked.

Four kinds of sample: a transcript (a `*.json` fixture or one line of a dataset JSONL,
linting with no error), checked through `histnorm.fix`; the same `*.json` fixture as a
JSON document, damaged as a transcript and checked as a file; a Claude Code session file
(`claude-code/*.jsonl`), damaged as a transcript or in its lines (the uuid / parentUuid
chain) and checked as a file; and a transcript-per-line JSONL file, one of whose lines
is damaged, checked as a file.
"""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from histnorm_cli.files import STDIN
from histnorm_cli.job import Job, Outcome
from histnorm_cli.per_file import run_file

import histnorm
from fuzzing.damages import DAMAGES, LINE_DAMAGES
from fuzzing.invariants import (
    FILE_INVARIANTS,
    MODEL_INVARIANTS,
    FileRun,
    ModelRun,
    drawn_options,
    fix_options,
    untouched,
)
from histnorm.diagnostic import Severity
from histnorm.errors import HistnormError
from histnorm.model import Transcript
from histnorm.profiles import DEFAULT_FOR_FORMAT, NEUTRAL
from histnorm.settings import Settings

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "formats"
SESSION_FORMATS = {"claude-code"}
"""Formats whose JSONL files hold one transcript, a message (event) per line."""


@dataclass(frozen=True)
class Sample:
    kind: str
    """`transcript`, `document`, `session` or `dataset`."""
    fmt: str
    name: str
    transcript: Transcript | None = None
    lines: tuple[bytes, ...] = ()
    stable: frozenset[bytes] = frozenset()


@dataclass
class Failure:
    seed: int
    case: int
    where: str
    invariant: str
    message: str
    reproducer: bytes
    suffix: str


def profile_of(fmt: str) -> str:
    return DEFAULT_FOR_FORMAT.get(fmt, NEUTRAL)


def _clean(data: bytes | Any, fmt: str) -> bool:
    return not any(d.severity is Severity.ERROR for d in histnorm.lint(data, format=fmt))


def _workdir() -> Path:
    return _process_workdir(os.getpid())  # each worker its own: they write the same names


@cache
def _process_workdir(pid: int) -> Path:
    shm = Path("/dev/shm")  # in memory where there is one: each case writes its file
    return Path(tempfile.mkdtemp(prefix="histnorm-fuzz-", dir=shm if shm.is_dir() else None))


def fix_file(data: bytes, name: str, fmt: str, drawn: dict[str, Any] | None = None) -> Outcome:
    """`histnorm fix --format <fmt> --tail close --unsafe-fixes -o - <name>`, on `data`
    (with the `drawn` options instead, when given)."""
    path = _workdir() / name
    path.write_bytes(data)
    settings = Settings(**(fix_options(profile_of(fmt)) if drawn is None else drawn))
    job = Job(mode="fix", settings=settings, format=fmt, write=True, output=STDIN)
    return run_file(str(path), job)


@cache
def samples() -> tuple[Sample, ...]:
    out: list[Sample] = []
    for fmt in histnorm.CODECS:
        for path in sorted((ROOT / fmt).glob("*.json")):
            data = path.read_bytes()
            if _clean(data, fmt):
                transcript = histnorm.load(data, format=fmt)
                out.append(Sample("transcript", fmt, path.name, transcript))
                out.append(Sample("document", fmt, path.name, transcript))
        for path in sorted((ROOT / fmt).glob("*.jsonl")):
            lines = tuple(line for line in path.read_bytes().splitlines() if line.strip())
            if fmt in SESSION_FORMATS:
                if _clean(orjson.dumps([orjson.loads(x) for x in lines]), fmt):
                    out.append(Sample("session", fmt, path.name, lines=lines))
                continue
            fixed = fix_file(b"\n".join(lines) + b"\n", path.name, fmt).stdout or b""
            stable = frozenset(lines) & frozenset(fixed.splitlines())
            out.append(Sample("dataset", fmt, path.name, lines=lines, stable=stable))
            for n, line in enumerate(lines, 1):
                if _clean(line, fmt):
                    transcript = histnorm.load(line, format=fmt)
                    out.append(Sample("transcript", fmt, f"{path.name}:{n}", transcript))
    return tuple(out)


@cache
def weighted() -> tuple[Sample, ...]:
    """The samples, each JSONL file (session or dataset) four times: there are fewer."""
    return tuple(s for s in samples() for _ in range(4 if s.kind in ("session", "dataset") else 1))


def damage(transcript: Transcript, rng: random.Random, applied: list[str]) -> Transcript:
    """`transcript` with one to three damages that apply, their names added to `applied`."""
    for _ in range(rng.randint(1, 3)):
        for chosen in rng.sample(DAMAGES, len(DAMAGES)):
            damaged = chosen(transcript, rng)
            if damaged is not None:
                transcript = damaged
                applied.append(chosen.__name__)
                break
    return transcript


def _session_lines(sample: Sample, rng: random.Random, applied: list[str]) -> list[bytes]:
    lines = list(sample.lines)
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            for chosen in rng.sample(LINE_DAMAGES, len(LINE_DAMAGES)):
                damaged_lines = chosen(lines, rng)
                if damaged_lines is not None:
                    lines = damaged_lines
                    applied.append(chosen.__name__)
                    break
            continue
        try:
            transcript = histnorm.load(
                orjson.dumps([orjson.loads(x) for x in lines]), "claude-code"
            )
        except (HistnormError, orjson.JSONDecodeError):
            continue  # torn or unreadable by now: only line damages apply
        damaged = damage(transcript, rng, applied)
        try:
            encoded = histnorm.encode(damaged)
        except HistnormError:
            continue
        assert isinstance(encoded, list)
        lines = [orjson.dumps(line) for line in encoded]
    return lines


def build(seed: int, case: int, draw: bool = False) -> tuple[Sample, ModelRun | FileRun, list[str]]:
    """The sample, the damaged run (not checked yet) and the damages of case `case`. With
    `draw`, half the cases run with options drawn at random (`drawn_options`, from a
    stream of their own: the sample and damages are the same either way)."""
    rng = random.Random(f"{seed}:{case}")
    drawn = None
    if draw:
        options = random.Random(f"options:{seed}:{case}")
        drawn = drawn_options(options) if options.random() < 0.5 else None
    sample = rng.choice(weighted())
    applied: list[str] = []
    fix = _fixer(sample, drawn)
    if sample.kind == "transcript":
        assert sample.transcript is not None
        broken = damage(sample.transcript, rng, applied)
        kept = untouched(sample.transcript, broken)
        return sample, ModelRun(sample.fmt, profile_of(sample.fmt), broken, kept, drawn), applied
    if sample.kind == "document":
        assert sample.transcript is not None
        try:
            broken = damage(sample.transcript, rng, applied)
            data = orjson.dumps(histnorm.encode(broken), option=orjson.OPT_INDENT_2)
        except HistnormError:  # a damage the format cannot hold: the fixture as it was
            applied.clear()
            data = orjson.dumps(histnorm.encode(sample.transcript), option=orjson.OPT_INDENT_2)
        return sample, FileRun(sample.fmt, sample.name, data, fix, drawn=drawn), applied
    if sample.kind == "session":
        data = b"\n".join(_session_lines(sample, rng, applied)) + b"\n"
        return sample, FileRun(sample.fmt, sample.name, data, fix, drawn=drawn), applied
    lines = list(sample.lines)
    i = rng.randrange(len(lines))
    try:
        transcript = histnorm.load(lines[i], format=sample.fmt)
        lines[i] = orjson.dumps(histnorm.encode(damage(transcript, rng, applied)))
    except HistnormError:
        pass  # a line that is no transcript of the format, or a damage it cannot hold
    data = b"\n".join(lines) + b"\n"
    return sample, FileRun(sample.fmt, sample.name, data, fix, sample.stable, drawn), applied


def transcript_case(seed: int, case: int) -> tuple[Sample, ModelRun, list[str]]:
    """Like `build`, drawing from the transcript samples only."""
    rng = random.Random(f"transcript:{seed}:{case}")
    sample = rng.choice([s for s in samples() if s.kind == "transcript"])
    assert sample.transcript is not None
    applied: list[str] = []
    broken = damage(sample.transcript, rng, applied)
    kept = untouched(sample.transcript, broken)
    return sample, ModelRun(sample.fmt, profile_of(sample.fmt), broken, kept), applied


def _fixer(sample: Sample, drawn: dict[str, Any] | None = None) -> Any:
    return lambda data: fix_file(data, sample.name, sample.fmt, drawn)


def check(run: ModelRun | FileRun) -> tuple[str, str] | None:
    """The first invariant `run` breaks and what went wrong, or None."""
    checks: list[Any] = MODEL_INVARIANTS if isinstance(run, ModelRun) else FILE_INVARIANTS
    for invariant in checks:
        try:
            problem = invariant(run)
        except Exception as exc:  # a crash is a failure of that invariant
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem is not None:
            return invariant.__name__, problem
    return None


def reproducer(run: ModelRun | FileRun) -> tuple[bytes, str]:
    """The damaged input as bytes, and the file suffix it runs with."""
    if isinstance(run, FileRun):
        return run.data, Path(run.name).suffix
    try:
        return orjson.dumps(histnorm.encode(run.broken), option=orjson.OPT_INDENT_2), ".json"
    except HistnormError:
        return run.broken.model_dump_json(indent=2).encode(), ".model.json"


def minimize(run: FileRun, invariant: str) -> FileRun:
    """`run` with lines dropped, one at a time, while the same invariant still fails."""
    lines = run.data.splitlines()
    i = 0
    while i < len(lines) and len(lines) > 1:
        trial = FileRun(
            run.fmt,
            run.name,
            b"\n".join(lines[:i] + lines[i + 1 :]) + b"\n",
            run.fix,
            drawn=run.drawn,
        )
        broken = check(trial)
        if broken is not None and broken[0] == invariant:
            lines = lines[:i] + lines[i + 1 :]
        else:
            i += 1
    return FileRun(run.fmt, run.name, b"\n".join(lines) + b"\n", run.fix, drawn=run.drawn)


def run_case(seed: int, case: int, shrink: bool = True) -> Failure | None:
    sample, run, applied = build(seed, case, draw=True)
    broken = check(run)
    if broken is None:
        return None
    invariant, message = broken
    if shrink and isinstance(run, FileRun) and not run.stable:
        run = minimize(run, invariant)
    data, suffix = reproducer(run)
    where = f"{sample.fmt}/{sample.name} ({sample.kind}) damaged by {applied}"
    if run.drawn is not None:
        where += f", fixed with {run.drawn}"
    return Failure(seed, case, where, invariant, message, data, suffix)
