"""One `lint` or `fix` run over many paths: configuration, files, reporting, exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TextIO

from histnorm.diagnostic import Severity
from histnorm.document import DETECT_MODES
from histnorm.engine import fix_allowed
from histnorm.formats import CODECS
from histnorm.settings import Settings
from histnorm_cli.config import (
    ConfigError,
    FileConfig,
    build_settings,
    find_config,
    ignored_for,
    load_config,
)
from histnorm_cli.exitcodes import ExitCode
from histnorm_cli.files import DEFAULT_INCLUDE, STDIN, expand
from histnorm_cli.progress import Progress
from histnorm_cli.reporters import FORMATS, Summary, reporter
from histnorm_cli.runner import Job, Outcome, run
from histnorm_cli.split import Part, merge, parts, run_part


@dataclass
class Request:
    """Everything the command line said."""

    mode: Literal["lint", "fix"]
    paths: list[str]
    config: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    output_format: str | None = None
    format: str | None = None
    jsonl_mode: str | None = None
    detect: str | None = None
    include: list[str] | None = None
    exclude: list[str] | None = None
    exit_zero: bool = False
    strict: bool = False
    statistics: bool = False
    quiet: bool = False
    jobs: int = 1
    diff: bool = False
    check: bool = False
    output: str | None = None
    backup: bool = False
    exit_non_zero_on_fix: bool = False


def _fail(message: str) -> int:
    print(f"histnorm: error: {message}", file=sys.stderr)
    return ExitCode.ERROR


def _config(request: Request) -> FileConfig:
    if request.config is not None:
        return load_config(Path(request.config))
    found = find_config(Path.cwd())
    return load_config(found) if found is not None else FileConfig()


def _output_format(request: Request, config: FileConfig) -> str:
    chosen = request.output_format or config.output_format or "auto"
    if chosen == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    if chosen not in FORMATS:
        raise ConfigError(
            f"output-format: unknown format {chosen!r}; known: auto, " + ", ".join(FORMATS)
        )
    return chosen


def _check_choices(request: Request, config: FileConfig) -> None:
    fmt = request.format or config.format
    if fmt is not None and fmt not in CODECS:
        raise ConfigError(f"format: unknown format {fmt!r}; known: {', '.join(CODECS)}")
    mode = request.jsonl_mode or config.jsonl_mode
    if mode is not None and mode not in JSONL_MODES:
        raise ConfigError(f"jsonl-mode: unknown mode {mode!r}; known: {', '.join(JSONL_MODES)}")
    detect = request.detect or config.detect
    if detect is not None and detect not in DETECT_MODES:
        raise ConfigError(f"detect: unknown mode {detect!r}; known: {', '.join(DETECT_MODES)}")


JSONL_MODES = ("auto", "transcript", "message")


Task = tuple[str, Job, bytes | None] | Part


def _process(task: Task) -> Outcome:
    if isinstance(task, Part):
        return run_part(task)
    path, job, data = task
    return run(path, job, data)


def _tasks(items: list[tuple[str, Job, bytes | None]], jobs: int) -> list[Task]:
    """One task per file; with several jobs, a large JSONL file is shared between them."""
    tasks: list[Task] = []
    for path, job, data in items:
        shared = parts(path, job, 2 * jobs) if jobs > 1 and data is None else None
        tasks.extend(shared or [(path, job, data)])
    return tasks


def _outcomes(items: list[tuple[str, Job, bytes | None]], jobs: int) -> Iterator[Outcome]:
    tasks = _tasks(items, jobs)
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield from _joined(tasks, pool.map(_process, tasks, chunksize=1))
    else:
        yield from map(_process, tasks)


def _joined(tasks: list[Task], outcomes: Iterator[Outcome]) -> Iterator[Outcome]:
    """Outcomes in task order, with the parts of a shared file merged into one. If a
    worker process dies, every file not reported yet gets an error instead."""
    shares: list[Outcome] = []
    done = 0
    try:
        for task, outcome in zip(tasks, outcomes, strict=True):
            done += 1
            if not isinstance(task, Part):
                yield outcome
                continue
            shares.append(outcome)
            if task.index == task.count - 1:
                yield merge(task.path, task.job, shares)
                shares = []
    except BrokenProcessPool as exc:
        for share in shares:
            if share.part_file is not None:
                Path(share.part_file).unlink(missing_ok=True)
        left = dict.fromkeys(_path_of(task) for task in tasks[done - len(shares) :])
        for path in left:
            yield Outcome(path, error=f"{path}: not checked: a worker process stopped ({exc})")


def _path_of(task: Task) -> str:
    return task.path if isinstance(task, Part) else task[0]


def execute(request: Request) -> int:
    """Run `lint` or `fix` as requested; return the exit code."""
    try:
        config = _config(request)
        settings = build_settings(config, dict(request.overrides))
        output_format = _output_format(request, config)
        _check_choices(request, config)
    except ConfigError as exc:
        return _fail(str(exc))
    if request.output and len(request.paths) != 1:
        return _fail("-o/--output needs exactly one input path")
    writes_stdout = (
        request.diff
        or request.output == STDIN
        or (request.mode == "fix" and not request.check and STDIN in request.paths)
    )
    stream: TextIO = sys.stderr if writes_stdout else sys.stdout
    color = output_format == "text" and stream.isatty() and "NO_COLOR" not in os.environ
    report = reporter(output_format)(
        stream, color=color, quiet=request.quiet, statistics=request.statistics
    )
    summary = Summary(request.mode, check=request.check or request.diff)
    include = request.include or config.include or list(DEFAULT_INCLUDE)
    exclude = request.exclude or config.exclude
    base = Job(
        mode=request.mode,
        settings=settings,
        format=request.format or config.format,
        jsonl_mode=request.jsonl_mode or config.jsonl_mode or "auto",
        detect=request.detect or config.detect or "file",
        write=request.mode == "fix" and not (request.check or request.diff),
        diff=request.diff,
        output=request.output,
        backup=request.backup,
    )
    items: list[tuple[str, Job, bytes | None]] = []
    for path, error in expand(request.paths or ["."], include, exclude):
        if error is not None:
            print(f"histnorm: error: {error}", file=sys.stderr)
            summary.errors += 1
            continue
        data = sys.stdin.buffer.read() if path == STDIN else None
        items.append((path, _job_for(base, config, settings, path), data))
    progress = Progress(len(items))
    for outcome in _outcomes(items, request.jobs):
        progress.advance(outcome.path)
        _record(outcome, report, summary, settings)
    progress.close()
    report.finish(summary)
    return _exit_code(request, summary)


def _job_for(base: Job, config: FileConfig, settings: Settings, path: str) -> Job:
    if path == STDIN or not config.per_file_ignores:
        return base
    extra = ignored_for(config, path)
    if not extra:
        return base
    return replace(base, settings=settings.model_copy(update={"ignore": settings.ignore + extra}))


def _record(outcome: Outcome, report: Any, summary: Summary, settings: Settings) -> None:
    summary.files += 1
    summary.transcripts += outcome.transcripts
    if outcome.skipped_file:
        summary.skipped_files += 1
    else:
        summary.skipped_records += len(outcome.skipped)

    if outcome.error is not None:
        print(f"histnorm: error: {outcome.error}", file=sys.stderr)
        summary.errors += 1
    diagnostics = sorted(outcome.diagnostics, key=lambda d: d.sort_key())
    for diagnostic in diagnostics:
        summary.add(diagnostic, fix_allowed(diagnostic, settings))
    summary.fixed.update(outcome.applied)
    if outcome.changed:
        summary.changed_files += 1
    if outcome.diff:
        sys.stdout.write(outcome.diff)
    elif diagnostics or outcome.skipped:
        report.report(diagnostics, outcome.path, outcome.skipped, outcome.skipped_file)
    if outcome.stdout is not None:
        sys.stdout.buffer.write(outcome.stdout)
        sys.stdout.flush()


def _exit_code(request: Request, summary: Summary) -> int:
    if summary.errors:
        return ExitCode.ERROR
    if request.exit_zero:
        return ExitCode.OK
    failing = summary.counts[Severity.ERROR] + (
        summary.counts[Severity.WARNING] if request.strict else 0
    )
    if failing:
        return ExitCode.FAILED
    if (
        request.mode == "fix"
        and summary.changed_files
        and (request.check or request.diff or request.exit_non_zero_on_fix)
    ):
        return ExitCode.FAILED
    return ExitCode.OK
