"""Fixtures shared by test modules that ask for them by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import enter_workdir


@pytest.fixture
def cli_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path` as the working folder, with no CI or colour variables set."""
    return enter_workdir(tmp_path, monkeypatch)
