"""A progress bar on stderr for long runs on a terminal; silent in CI and when piped."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

DELAY_SECONDS = 1.0


def wanted() -> bool:
    """Whether a progress bar may be shown: stderr is a terminal and this is not CI."""
    return sys.stderr.isatty() and not os.environ.get("CI") and "GITHUB_ACTIONS" not in os.environ


class Progress:
    """Counts finished files; shows a bar once a run has taken longer than a second."""

    def __init__(self, total: int, *, enabled: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.enabled = wanted() if enabled is None else enabled
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def advance(self, path: str) -> None:
        """Mark one file as done."""
        self.done += 1
        if not self.enabled:
            return
        if self.bar is None and time.monotonic() - self.started > DELAY_SECONDS:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("histnorm", total=self.total, completed=self.done)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done, description=path[-40:])

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
