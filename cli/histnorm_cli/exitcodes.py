"""The exit-code contract (ruff's and sqlfluff's convention)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What the process exit status means."""

    OK = 0
    """No error-severity diagnostics remain (for `fix`: everything fixable was fixed)."""
    FAILED = 1
    """Diagnostics remain, `--check`/`--diff` found changes, or an input was unreadable."""
    ERROR = 2
    """histnorm itself failed: bad usage or configuration, an unreadable path, a bug."""
