"""Worker processes for `--jobs`, and signals that end a run.

Workers die with their parent (Linux: `PR_SET_PDEATHSIG`; elsewhere a watchdog thread),
turn SIGTERM and SIGINT into an exception while they work (so the writers' cleanup
removes their temporary files) and exit, and send diagnostics back in chunks through a
spool file each, which the parent reads in order: no process holds a whole file's.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from histnorm.diagnostic import Diagnostic
from histnorm.document import Skip
from histnorm_cli import stale
from histnorm_cli.job import Emit, Job, Outcome
from histnorm_cli.parallel import Part, run_part
from histnorm_cli.per_file import run_file

Task = tuple[str, Job, bytes | None] | Part
Chunk = tuple[list[Diagnostic], list[Skip]]

PR_SET_PDEATHSIG = 1
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: the run stops, cleaning up as it unwinds."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


_pending = 0
"""A signal whose exception landed in a finalizer, to be raised again (0: none)."""


def _unraisable(info: Any) -> None:
    """An interrupt that landed in a finalizer is swallowed there ("Exception ignored"):
    say nothing, and raise it again 10 ms later, once out of the finalizer (never from
    inside this hook)."""
    global _pending
    if isinstance(info.exc_value, Interrupted):
        _pending = info.exc_value.signum
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return
    sys.__unraisablehook__(info)


def _again(handler: Any) -> Any:
    """A SIGALRM handler that hands the pending signal to `handler`."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if _pending:
            handler(_pending, frame)

    return on_alarm


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """While the run lasts, SIGINT and SIGTERM raise `Interrupted` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _raise) for s in SIGNALS}
    before[signal.SIGALRM] = signal.signal(signal.SIGALRM, _again(_raise))
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)  # no raise-again left for after the run
        sys.unraisablehook = hook
        for number, handler in before.items():
            signal.signal(number, handler)


def process(task: Task, emit: Emit | None = None) -> Outcome:
    """Lint or fix one file or part, handing findings to `emit` as they are found."""
    if isinstance(task, Part):
        return run_part(task, emit)
    path, job, data = task
    return run_file(path, job, data, emit)


def workers(requested: int, tasks: int) -> int:
    """How many worker processes to start: no more than the CPUs this process may use,
    nor than there are tasks."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(requested, cpus, tasks))


_busy = False


_stopping = False
"""A worker's first SIGINT/SIGTERM is unwinding it: a second one must not cut its cleanup."""


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _stopping
    if _stopping:
        return
    _stopping = True
    _resume(signum, frame)


def _resume(signum: int, frame: FrameType | None) -> None:
    if _busy:
        raise Interrupted(signum)  # unwinds the task: temporary files are removed
    os._exit(128 + signum)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


def _initializer(parent: int) -> None:
    stale.owner = parent  # the temporary files a worker makes are the run's
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGALRM, _again(_resume))
    sys.unraisablehook = _unraisable
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # blocked while forked
    watched = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes  # only a worker process needs it

            libc = ctypes.CDLL(None, use_errno=True)
            watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    if not watched:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(128 + signal.SIGTERM)


def _work(item: tuple[Task, str]) -> Outcome:
    global _busy
    import pickle  # the spool of a worker process

    task, spool = item
    _busy = True
    try:
        with open(spool, "wb") as out:

            def emit(diagnostics: list[Diagnostic], skipped: list[Skip]) -> None:
                pickle.dump((diagnostics, skipped), out, protocol=pickle.HIGHEST_PROTOCOL)

            outcome = process(task, emit)
            outcome.flush(force=True)
            outcome.emit = None
        return outcome
    except Interrupted as exc:
        Path(spool).unlink(missing_ok=True)
        os._exit(128 + exc.signum)
    finally:
        _busy = False


def chunks(spool: str) -> Iterator[Chunk]:
    """The chunks a worker wrote to `spool`, one at a time; the file is removed."""
    import pickle

    try:
        with open(spool, "rb") as stream:
            while True:
                try:
                    yield pickle.load(stream)
                except EOFError:
                    return
    finally:
        Path(spool).unlink(missing_ok=True)


class Pool:
    """Worker processes and their spool folder; stopped and removed however the run ends."""

    def __init__(self, count: int) -> None:
        import tempfile
        from concurrent.futures import ProcessPoolExecutor  # only a parallel run needs them

        self.folder = tempfile.mkdtemp(prefix="histnorm-")
        self.executor = ProcessPoolExecutor(
            max_workers=count, initializer=_initializer, initargs=(os.getpid(),)
        )

    def results(self, tasks: list[Task]) -> Iterator[tuple[Outcome, Iterator[Chunk]]]:
        """Each task's outcome and its chunks of findings, in task order."""
        spools = [os.path.join(self.folder, f"{i}.pickle") for i in range(len(tasks))]
        # futures, not `map`, which cancels them when stopped early: a pool that then
        # breaks fails on the cancelled ones (Python 3.11)
        # the workers start at the first submit: they must not get a signal before their
        # handlers are set, nor the parent while it forks them
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            items = zip(tasks, spools, strict=True)
            futures = [self.executor.submit(_work, item) for item in items]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for future, spool in zip(futures, spools, strict=True):
            yield future.result(), chunks(spool)

    def __enter__(self) -> Pool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if kind is None:
                self.executor.shutdown(wait=True)
            else:
                self._stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _stop(self) -> None:
        """End the workers now: SIGTERM (they clean up and exit), then SIGKILL if need be."""
        processes: list[Any] = list(getattr(self.executor, "_processes", {}).values())
        for worker in processes:
            if worker.is_alive():
                worker.terminate()
        for worker in processes:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
                worker.join(timeout=5)
        self.executor.shutdown(wait=False)
