"""What the command-line tests share: one way to run the command, and a clean working
folder for the modules that ask for it (`pytestmark = pytest.mark.usefixtures("cli_workdir")`,
the fixture in `conftest.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

CLEAN = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]\n'
ORPHAN = (
    b'[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,'
    b'"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather",'
    b'"arguments":"{}"}}]},{"role":"user","content":"Never mind."}]\n'
)
"""A clean history, and one with an orphan call: HN001 (error, safe fix)."""


def put(name: str, data: bytes = ORPHAN) -> Path:
    """Write `data` to `name` (relative to the working folder), folders and all."""
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def invoke(*args: str, input: bytes | None = None) -> Result:
    """Run `histnorm ARGS...` in process, with `input` as standard input."""
    return CliRunner().invoke(app, list(args), input=input)


def enter_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `tmp_path` the working folder, with no CI or colour variables set."""
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "CI", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path
