"""The histnorm command-line shell."""

from __future__ import annotations

import gc
import os
import sys

VERSION_FLAGS = frozenset({"--version"})
"""The arguments `main` answers without loading the commands (`histnorm --version`)."""


def main() -> None:
    """Console-script entry point: `histnorm --version` answers at once; anything else
    loads the commands (`histnorm_cli.app`)."""
    if len(sys.argv) == 2 and sys.argv[1] in VERSION_FLAGS:
        from histnorm import __version__

        sys.stdout.write(f"histnorm {__version__}\n")
        return
    # The command runs no pydantic plugin: skip pydantic's scan of every installed package's
    # entry points for them (a user who wants one sets the variable themselves).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # Start-up makes some hundred thousand objects that live as long as the process
    # (modules, classes, the command typer builds) and no garbage, so the collector waits
    # for the command to begin its work (`collect_from_here`). At exit it skips them too:
    # the last collection would walk every one of them only to find them alive.
    gc.disable()
    try:
        from histnorm_cli.app import main as run

        run()
    finally:
        gc.freeze()


def collect_from_here() -> None:
    """Start collecting garbage where `main` held it off, leaving out of every collection
    the objects made so far (loaded modules and classes: they live until exit). Called
    where a command begins its work; a no-op in a process that never held it off."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
