"""One `lint` or `fix` run over many paths: configuration, files, reporting, exit code."""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from histnorm._record import record
from histnorm.diagnostic import Severity
from histnorm.document import DETECT_MODES, JSONL_MODES
from histnorm.formats import CODECS
from histnorm_cli import collect_from_here
from histnorm_cli.config_keys import ConfigError, NoConfig
from histnorm_cli.configs import Jobs, Resolver, discovery_for
from histnorm_cli.discovery import expand
from histnorm_cli.exitcodes import ExitCode
from histnorm_cli.feed import Feed, PipeClosed, shifted, shown
from histnorm_cli.files import STDIN
from histnorm_cli.job import Emit, Job, Outcome
from histnorm_cli.parallel import Part, merge, parts
from histnorm_cli.pool import Interrupted, Pool, Task, process, signals_raise, workers
from histnorm_cli.postgres import is_url
from histnorm_cli.postgres import shown as shown_url
from histnorm_cli.progress import Progress
from histnorm_cli.reporters import FORMATS, Reporter, Summary, one_line, reporter
from histnorm_cli.stale import remove_stale
from histnorm_cli.tally import dataset_lines, records_line

if TYPE_CHECKING:
    from histnorm_cli.config import FileConfig


@record
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
    force_exclude: bool | None = None
    respect_gitignore: bool | None = None
    exit_zero: bool = False
    strict: bool = False
    statistics: bool = False
    quiet: bool = False
    jobs: int = 1
    diff: bool = False
    check: bool = False
    output: str | None = None
    output_file: str | None = None
    backup: bool = False
    exit_non_zero_on_fix: bool = False
    allow_no_files: bool = False
    stdin_filename: str | None = None
    show_fixes: bool = False
    quarantine: str | None = None


def _fail(message: str) -> int:
    print(f"histnorm: error: {one_line(message)}", file=sys.stderr)
    return ExitCode.ERROR


def _output_format(request: Request, config: FileConfig | NoConfig) -> str:
    chosen = request.output_format or config.output_format or "auto"
    if chosen == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    if chosen not in FORMATS:
        raise ConfigError(
            f"output-format: unknown format {chosen!r}; known: auto, " + ", ".join(FORMATS)
        )
    return chosen


def _check_choices(request: Request) -> None:
    """The flags' choices (a configuration file's are checked as it is read)."""
    fmt = request.format
    if fmt is not None and fmt not in CODECS:
        raise ConfigError(f"format: unknown format {fmt!r}; known: {', '.join(CODECS)}")
    mode = request.jsonl_mode
    if mode is not None and mode not in JSONL_MODES:
        raise ConfigError(f"jsonl-mode: unknown mode {mode!r}; known: {', '.join(JSONL_MODES)}")
    detect = request.detect
    if detect is not None and detect not in DETECT_MODES:
        raise ConfigError(f"detect: unknown mode {detect!r}; known: {', '.join(DETECT_MODES)}")


Item = tuple[str, Job, bytes | None]


def _tasks(items: list[Item], jobs: int) -> list[Task]:
    """One task per file; with several jobs, a large JSONL file is shared between them."""
    tasks: list[Task] = []
    for path, job, data in items:
        shared = parts(path, job, 2 * jobs) if jobs > 1 and data is None else None
        tasks.extend(shared or [(path, job, data)])
    return tasks


class _Run:
    """Feeds each file's findings to the reporter, in file order, as they come."""

    def __init__(
        self,
        report: Reporter,
        summary: Summary,
        items: list[Item],
        diff: bool,
        work: Callable[[Task, Emit], Outcome] = process,
    ) -> None:
        self.report = report
        self.summary = summary
        self.settings = {path: job.settings for path, job, _ in items}
        self.diff = diff
        self.work = work
        """What is done with each file in this process (`histnorm_cli.pool.process`)."""
        self.progress: Progress | None = None

    def feed(self, path: str) -> Feed:
        return Feed(path, self.report, self.summary, self.settings[path], hold=self.diff)

    def done(self, feed: Feed, outcome: Outcome) -> None:
        feed.finish(outcome)
        if self.progress is not None:
            self.progress.advance(feed.shown)

    def alone(self, tasks: list[Task]) -> None:
        """In this process: findings go straight from the reader to the reporter."""
        for task in tasks:
            assert not isinstance(task, Part)
            feed = self.feed(task[0])
            self.done(feed, self.work(task, feed.take))

    def pooled(self, tasks: list[Task], pool: Pool) -> None:
        """In worker processes, whose chunks of findings are read back in task order.
        If a worker dies, every file not reported yet gets an error instead."""
        from concurrent.futures import BrokenExecutor  # a broken process pool

        shares: list[Outcome] = []
        feed: Feed | None = None
        offset = done = 0
        try:
            for task, (outcome, found) in zip(tasks, pool.results(tasks), strict=True):
                done += 1
                feed = feed or self.feed(_path_of(task))
                part = isinstance(task, Part)
                # a part's findings count until a part fails (the file is then not written)
                kept = not part or not any(s.error is not None for s in [*shares, outcome])
                for diagnostics, skipped in found:
                    if kept:
                        feed.take(*shifted(diagnostics, skipped, offset))
                if not isinstance(task, Part):
                    self.done(feed, outcome)
                    feed = None
                    continue
                if kept:
                    feed.share(outcome, offset)
                offset += outcome.lines
                shares.append(outcome)
                if task.index == task.count - 1:
                    self.done(feed, merge(task.path, task.job, shares))
                    shares, feed, offset = [], None, 0
        except BrokenExecutor as exc:
            for share in shares:
                if share.part_file is not None:
                    Path(share.part_file).unlink(missing_ok=True)
            for path in dict.fromkeys(_path_of(task) for task in tasks[done:]):
                error = f"{path}: not checked: a worker process stopped ({exc})"
                current = feed if feed is not None and feed.path == path else self.feed(path)
                self.done(current, Outcome(path, error=error))
                feed = None


def _path_of(task: Task) -> str:
    return task.path if isinstance(task, Part) else task[0]


def run_request(request: Request) -> int:
    """Run `lint` or `fix` as requested; return the exit code. With `output_file` the
    report goes to that file instead of standard output."""
    if request.output_file is None:
        return _run_request(request, None)
    try:
        sink = open(request.output_file, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    except OSError as exc:
        return _fail(f"--output-file {shown(request.output_file)}: {exc.strerror or exc}")
    with sink:
        return _run_request(request, sink)


def _run_request(request: Request, sink: TextIO | None) -> int:
    collect_from_here()
    try:
        _check_choices(request)
        resolver = Resolver(request.config, dict(request.overrides))
        config = resolver.run.config
        output_format = _output_format(request, config)
    except ConfigError as exc:
        return _fail(str(exc))
    if request.output and len(request.paths) != 1:
        return _fail("-o/--output takes one input file, but several paths were named")
    if request.stdin_filename is not None and request.paths != [STDIN]:
        return _fail("--stdin-filename names standard input: give no PATH, or -")
    kind = reporter(output_format)
    writes_stdout = (
        (request.diff and not kind.draws_changes)  # a report that draws the diff takes stdout
        or request.output == STDIN
        or (request.mode == "fix" and not request.check and STDIN in request.paths)
    )
    stream: TextIO = sink or (sys.stderr if writes_stdout else sys.stdout)
    color = output_format == "text" and stream.isatty() and "NO_COLOR" not in os.environ
    show_fixes = request.mode == "fix" and request.show_fixes
    report = kind(
        stream,
        color=color,
        quiet=request.quiet,
        statistics=request.statistics,
        show_fixes=show_fixes,
    )
    summary = Summary(request.mode, check=request.check or request.diff)
    discovery = discovery_for(request, resolver)
    jobs = Jobs(
        request,
        show_fixes=request.mode == "fix" and (show_fixes or report.lists_fixes),
        versions=request.diff and report.draws_changes,
    )
    found = list(expand(request.paths or ["."], discovery))
    if request.output and sum(error is None for _, error in found) > 1:
        count = sum(error is None for _, error in found)
        return _fail(
            f"-o/--output takes one input file, but {count} were found: "
            "fix them in place, or name one file"
        )
    items: list[Item] = []
    for path, error in found:
        if error is not None:
            if not os.path.lexists(path) and glob.has_magic(path):
                error = f"no files matched: {shown(path)} (a pattern nothing matched)"
            print(f"histnorm: error: {one_line(shown(error))}", file=sys.stderr)
            summary.errors += 1
            continue
        named = shown_url(path) if is_url(path) else path
        if path == STDIN and request.stdin_filename is not None:
            named = request.stdin_filename
            if discovery.force_exclude and discovery.force_excluded(named):
                discovery.excluded.append(named)
                _hand_back(request)
                continue
        # a database named by URL takes the configuration of the working folder
        resolved = resolver.for_folder(os.getcwd()) if is_url(path) else resolver.for_path(named)
        if isinstance(resolved, ConfigError):
            if jobs.failed(resolved):
                print(f"histnorm: error: {one_line(shown(str(resolved)))}", file=sys.stderr)
            summary.errors += 1
            continue
        data = sys.stdin.buffer.read() if path == STDIN else None
        job = jobs.job(resolved, named, stdin=path == STDIN)
        if is_url(path):
            job = replace(job, database=path)
        items.append((named, job, data))
    if discovery.excluded:
        count = len(discovery.excluded)
        print(
            f"histnorm: {count} named path{'s' * (count != 1)} excluded (--force-exclude)",
            file=sys.stderr,
        )
    if not items and not summary.errors and not discovery.excluded:
        print(
            f"histnorm: no files matched: {one_line(' '.join(map(shown, request.paths or ['.'])))}",
            file=sys.stderr,
        )
        if not request.allow_no_files:
            return ExitCode.ERROR
    run = _Run(report, summary, items, request.diff)
    jobs_wanted = request.jobs
    if request.quarantine is not None:
        from histnorm_cli.quarantine import Quarantine, refusal

        problem = refusal(request, items)
        if problem is not None:
            return _fail(problem)
        summary.quarantine = shown(request.quarantine)
        run.work = Quarantine(request.quarantine, request.strict).process
        jobs_wanted = 1  # one file after another: the quarantine file takes them in order
    report.plan({path: job for path, job, _ in items})
    if request.mode == "fix":
        _remove_stale(items, request.quiet, request.quarantine)
    stopped = _run(run, items, jobs_wanted)
    if stopped is not None:
        return stopped
    report.finish(summary)
    if not report.closes:
        _close_on_stderr(request, summary)
    return _exit_code(request, summary)


def _close_on_stderr(request: Request, summary: Summary) -> None:
    """For a report for machines, what the text report ends with that they have no place
    for: the `--statistics` table of datasets, and where `fix --quarantine` put records."""
    lines = dataset_lines(summary) if request.statistics else []
    if summary.quarantine is not None and not request.quiet:
        lines.append(records_line(summary, summary.quarantine))
    for line in lines:
        print(one_line(line), file=sys.stderr)


def _remove_stale(items: list[Item], quiet: bool, quarantine: str | None = None) -> None:
    """Remove what a stopped fix of these files (and of the quarantine file) left behind
    (see `histnorm_cli.stale`)."""
    targets = [
        Path(job.output or path)
        for path, job, data in items
        if job.write
        and data is None
        and not job.stdin
        and job.output != STDIN
        and job.database is None
    ]
    if quarantine is not None:
        targets.append(Path(quarantine))
    for removed in remove_stale(targets):
        if quiet:
            continue
        note = f"removed {shown(removed)}, a temporary file a stopped run left behind"
        print(f"histnorm: {one_line(note)}", file=sys.stderr)


def _hand_back(request: Request) -> None:
    """Standard input that `--force-exclude` leaves out: `fix` writes it back unchanged
    (as ruff does), so that an editor replacing a buffer with the output loses nothing."""
    data = sys.stdin.buffer.read()
    if request.mode == "fix" and not (request.check or request.diff):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


def _run(run: _Run, items: list[Item], jobs: int) -> int | None:
    """Process every file; the exit code if the run was stopped (by a signal, or by the
    reader of standard output closing it), else None."""
    progress = run.progress = Progress(len(items))
    try:
        with signals_raise():
            jobs = workers(jobs, sys.maxsize)  # no more than the CPUs
            tasks = _tasks(items, jobs)
            count = workers(jobs, len(tasks))
            if count > 1:
                with Pool(count) as pool:
                    run.pooled(tasks, pool)
            else:
                run.alone(tasks)
    except Interrupted as exc:
        progress.close()
        what = "interrupted" if exc.signum == signal.SIGINT else "terminated"
        print(f"histnorm: {what}: the run was stopped before it finished", file=sys.stderr)
        with contextlib.suppress(OSError):
            sys.stdout.flush()
            sys.stderr.flush()
        # Every temporary file went with the unwinding. Skip the interpreter's exit hooks:
        # after a signal, the process pool's hook can find its wakeup pipe closed and print
        # a traceback ("Bad file descriptor") after the run has already stopped cleanly.
        os._exit(128 + exc.signum)
    except (PipeClosed, BrokenPipeError):
        progress.close()
        _quiet_stdout()
        return PIPE_CLOSED
    progress.close()
    return None


PIPE_CLOSED = 128 + signal.SIGPIPE
"""The exit code when the reader of standard output closed it (as a shell reports a
process killed by SIGPIPE)."""


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


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
