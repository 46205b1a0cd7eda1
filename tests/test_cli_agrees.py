"""The command line and the library agree: `histnorm lint` / `histnorm fix` on a file
give the diagnostics (code, line, pointer, message) and the bytes that
`histnorm.lint_document` / `histnorm.fix_document` give for the same bytes.

Run over every fixture (JSON, JSONL, Claude Code sessions, malformed and skipped
files) and over damaged cases the fuzzer's case builder makes (`tests/fuzzing`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from fuzzing.cases import build, reproducer
from histnorm_cli.app import app
from typer.testing import CliRunner

import histnorm
from histnorm.diagnostic import Diagnostic

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURES = sorted(
    p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.suffix in (".json", ".jsonl")
)
FUZZ_CASES = range(60)

Found = list[tuple[str, int | None, str | None, str]]


def _key(item: tuple[str, int | None, str | None, str]) -> tuple[Any, ...]:
    code, line, pointer, message = item
    return (line or -1, pointer or "", code, message)


def _cli(
    tmp_path: Path, name: str, data: bytes, mode: str, options: list[str]
) -> tuple[Found, bytes | None]:
    """The diagnostics `histnorm MODE --output-format json` prints for the file, and (fix)
    the bytes it writes to `-o` (None: it wrote nothing)."""
    path = tmp_path / Path(name).name
    path.write_bytes(data)
    out = tmp_path / f"out{path.suffix}"
    out.unlink(missing_ok=True)
    args = [mode, "--output-format", "json", "--exit-zero", *options]
    if mode == "fix":
        args += ["-o", str(out)]
    result = CliRunner().invoke(app, [*args, str(path)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    records = orjson.loads(result.stdout)
    found = [
        (r["code"], r["location"]["line"], r["location"]["pointer"], r["message"])
        for r in records
        if "code" in r
    ]
    return sorted(found, key=_key), out.read_bytes() if out.exists() else None


def _library(diagnostics: tuple[Diagnostic, ...]) -> Found:
    found = [(d.code, d.location.line, d.location.pointer, d.message) for d in diagnostics]
    return sorted(found, key=_key)


def _agree(
    tmp_path: Path, name: str, data: bytes, options: dict[str, Any], flags: list[str]
) -> None:
    """Lint with `options` / `flags`, then fix with unsafe fixes too when they say so."""
    unsafe = options.get("unsafe_fixes", False)
    lint_options = {k: v for k, v in options.items() if k != "unsafe_fixes"}
    cli_found, _ = _cli(tmp_path, name, data, "lint", flags)
    linted = histnorm.lint_document(data, path_hint=name, **lint_options)
    assert _library(linted.diagnostics) == cli_found
    assert linted.output is None
    fix_flags = [*flags, "--unsafe-fixes"] if unsafe else flags
    cli_left, written = _cli(tmp_path, name, data, "fix", fix_flags)
    fixed = histnorm.fix_document(data, path_hint=name, **options)
    assert _library(fixed.diagnostics) == cli_left
    if written is None:  # nothing is written for a file that holds no transcript
        assert fixed.skipped_file and fixed.output is None
    else:
        assert fixed.new_bytes(data) == written
    again = histnorm.fix_document(fixed.new_bytes(data), path_hint=name, **options)
    assert again.output is None, "fix_document(fix_document(x)) == fix_document(x)"


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(tmp_path)  # no configuration file of the repository applies
    _agree(tmp_path, name, (ROOT / name).read_bytes(), {}, [])


@pytest.mark.parametrize("case", FUZZ_CASES)
def test_damaged_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: int) -> None:
    monkeypatch.chdir(tmp_path)
    _, run, _ = build(0, case)
    data, suffix = reproducer(run)
    name = f"case{case}{suffix}"
    options = {"format": run.fmt, "tail": "close", "unsafe_fixes": True}
    _agree(tmp_path, name, data, options, ["--format", run.fmt, "--tail", "close"])
