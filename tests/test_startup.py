"""What `histnorm` does before its command runs: it builds only the command named, and it
holds off the garbage collector while it loads (`histnorm_cli.main`)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from histnorm_cli import app as cli_app
from histnorm_cli import collect_from_here

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = sorted(cli_app._name(info) for info in cli_app.app.registered_commands)


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], *, group: bool = False
) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of `histnorm ARGV`, through `main` or
    through the whole group of commands."""
    try:
        if group:
            cli_app.app(args=argv, prog_name="histnorm")
        else:
            cli_app.main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 0
    else:
        code = 0
    out, err = capsys.readouterr()
    return code, out, err


def _built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the commands typer builds from here on."""
    built: list[str] = []
    real = typer.main.get_command_from_info

    def spy(command_info: typer.models.CommandInfo, **kwargs: object) -> object:
        built.append(cli_app._name(command_info))
        return real(command_info, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(typer.main, "get_command_from_info", spy)
    return built


def test_the_commands_are_the_six_of_the_manual() -> None:
    assert COMMANDS == ["convert", "fix", "lint", "rule", "rules", "schema"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_named_first_is_the_only_one_built(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    built = _built(monkeypatch)
    code, out, _ = _run([command, "--help"], capsys)
    assert code == 0
    assert built == [command]
    assert f"Usage: histnorm {command} [OPTIONS]" in out


@pytest.mark.parametrize("argv", [[], ["--help"], ["nonesuch"], ["--version"]])
def test_without_a_command_every_command_is_built(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    built = _built(monkeypatch)
    _run(argv, capsys)
    assert sorted(built) == COMMANDS


@pytest.mark.parametrize(
    "argv",
    [
        *([command, "--help"] for command in COMMANDS),
        ["rules", "--output-format", "json"],
        ["rules", "--output-format", "yaml"],
        ["rule", "HN001"],
        ["rule"],
        ["lint", "--no-such-option"],
        ["fix", "--jobs", "0", "x.json"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_a_command_built_alone_answers_as_it_does_in_the_group(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    alone = _run(argv, capsys)
    assert alone == _run(argv, capsys, group=True)
    assert alone[1] or alone[2]


_PROBE = (
    "import atexit, gc, json, sys\n"
    "from histnorm_cli import main\n"
    "seen = {}\n"
    "import histnorm_cli.run as run\n"
    "real = run._run_request\n"
    "def probe(*args):\n"
    "    code = real(*args)\n"
    "    seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count())\n"
    "    return code\n"
    "run._run_request = probe\n"
    "atexit.register(lambda: print(json.dumps(seen)))\n"
    "sys.argv = ['histnorm', 'lint', '--quiet', sys.argv[1]]\n"
    "main()\n"
)


def test_a_command_collects_garbage_with_what_start_up_made_left_out(tmp_path: Path) -> None:
    """While `histnorm lint` works the collector is on, and the objects loaded before it
    (modules, classes, the command) are frozen out of every collection."""
    history = tmp_path / "history.json"
    history.write_text(json.dumps({"messages": [{"role": "user", "content": "Hi."}]}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "cli")])}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(history)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000


def test_collecting_from_here_leaves_a_process_that_never_held_off_the_collector() -> None:
    """In-process callers (the tests, an embedding) keep their collector as it was: nothing
    of theirs is frozen."""
    assert gc.isenabled()
    before = gc.get_freeze_count()
    collect_from_here()
    assert gc.isenabled()
    assert gc.get_freeze_count() == before


_LOADED = (
    "import atexit, json, sys\n"
    "from histnorm_cli import main\n"
    "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
    "sys.argv = ['histnorm', 'lint', sys.argv[1]]\n"
    "main()\n"
)
WRITING = ("hashlib", "tempfile", "secrets", "random", "concurrent.futures")
"""What only a fix (new ids, temporary files, backups) or a parallel run uses."""


def test_a_lint_loads_nothing_only_writing_uses(tmp_path: Path) -> None:
    """A clean transcript (a damaged one builds models for the trial fix, and pydantic
    loads some of these itself)."""
    history = tmp_path / "history.json"
    calls = [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    history.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Hi."},
                {"role": "assistant", "content": None, "tool_calls": calls},
                {"role": "tool", "tool_call_id": "call_1", "content": "done"},
                {"role": "assistant", "content": "Done."},
            ]
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "cli")])}
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, str(history)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout
    loaded = set(json.loads(done.stderr.splitlines()[-1]))
    assert "histnorm.engine" in loaded
    assert not loaded & set(WRITING), sorted(loaded & set(WRITING))


def test_the_default_excludes_are_compiled_only_for_a_folder_scan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from histnorm_cli import discovery

    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "Hi."}]))
    discovery._defaults.cache_clear()
    assert _run(["lint", str(history)], capsys)[0] == 0
    assert discovery._defaults.cache_info().currsize == 0
    assert _run(["lint", str(tmp_path)], capsys)[0] == 0
    assert discovery._defaults.cache_info().currsize == 1
