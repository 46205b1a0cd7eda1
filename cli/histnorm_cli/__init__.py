"""The histnorm command-line shell."""

from __future__ import annotations

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
    from histnorm_cli.app import main as run

    run()
