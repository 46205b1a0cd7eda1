"""Configuration found per file, as ruff finds it: the nearest `.histnorm.toml`,
`histnorm.toml` or `pyproject.toml` with a `[tool.histnorm]` table at or above each
file's folder (up to the repository's top), else the one above the working directory;
`--config` for every file; flags over any of them; `--stdin-filename` for standard input.

Every test runs in its own `tmp_path` as the working directory, through typer's runner.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from cli_helpers import CLEAN, ORPHAN, invoke, put
from histnorm_cli import configs

pytestmark = pytest.mark.usefixtures("cli_workdir")


def pyproject(folder: str, body: str) -> Path:
    return put(f"{folder}/pyproject.toml", ("[tool.histnorm]\n" + body).encode())


def found(*args: str, input: bytes | None = None) -> list[tuple[str, str]]:
    """(file, code) of every diagnostic `lint --output-format json` reports."""
    result = invoke("lint", "--output-format", "json", *args, input=input)
    assert result.exit_code in (0, 1), result.output
    return sorted((d["filename"], d["code"]) for d in orjson.loads(result.stdout))


# --- configuration per file ---------------------------------------------------------------


def test_each_file_gets_the_configuration_of_its_own_folder():
    pyproject("a", 'ignore = ["HN001"]\n')
    pyproject("b", 'select = ["HN002"]\n')
    put("a/x.json")
    put("b/x.json")
    put("c/x.json")
    assert found() == [("c/x.json", "HN001")]
    assert found("a/x.json", "c/x.json") == [("c/x.json", "HN001")]


def test_a_nearer_configuration_wins_over_the_one_above_the_working_directory():
    pyproject(".", 'ignore = ["HN001"]\n')
    pyproject("sub", 'select = ["HN001"]\n')
    put("top.json")
    put("sub/deep/x.json")
    assert found() == [("sub/deep/x.json", "HN001")]
    os.chdir("sub")
    assert found("../top.json", "deep/x.json") == [("deep/x.json", "HN001")]


def test_a_pyproject_without_a_histnorm_table_is_passed_over():
    pyproject(".", 'ignore = ["HN001"]\n')
    put("sub/pyproject.toml", b"[tool.other]\nx = 1\n")
    put("sub/x.json")
    assert found() == []


@pytest.mark.parametrize("name", ["histnorm.toml", ".histnorm.toml"])
def test_histnorm_toml_has_its_keys_at_the_top(name: str):
    put(f"a/{name}", b'ignore = ["HN001"]\n')
    put("a/x.json")
    put("b/x.json")
    assert found() == [("b/x.json", "HN001")]


def test_histnorm_toml_wins_over_pyproject_in_the_same_folder():
    pyproject("a", 'ignore = ["HN001"]\n')
    put("a/histnorm.toml", b'select = ["HN001"]\n')
    put("a/x.json")
    assert found() == [("a/x.json", "HN001")]


def test_the_search_stops_at_the_repository_top(tmp_path: Path):
    pyproject(".", 'ignore = ["HN001"]\n')
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    put("repo/src/x.json")
    os.chdir("repo")
    assert found() == [("src/x.json", "HN001")]


def test_profile_and_per_file_ignores_come_from_each_files_configuration():
    pyproject("a", 'per-file-ignores = {"legacy/*.json" = ["HN001"]}\n')
    pyproject("b", 'profile = "openai-chat"\n')
    put("a/legacy/x.json")
    put("legacy/x.json")
    put("b/legacy/x.json")
    assert found() == [("b/legacy/x.json", "HN001"), ("legacy/x.json", "HN001")]
    os.chdir("a/legacy")
    assert found("x.json") == []


def test_exclude_is_relative_to_its_configuration():
    pyproject("a", 'exclude = ["/gen"]\n')
    put("a/gen/x.json")
    put("a/src/gen/x.json")
    put("gen/x.json")
    assert found() == [("a/src/gen/x.json", "HN001"), ("gen/x.json", "HN001")]
    assert found("--force-exclude", "a/gen/x.json", "gen/x.json") == [("gen/x.json", "HN001")]


def test_include_comes_from_each_files_configuration():
    pyproject("a", 'include = ["*.log"]\n')
    put("a/x.json")
    put("a/x.log")
    put("b/x.json")
    assert found() == [("a/x.log", "HN001"), ("b/x.json", "HN001")]


def test_include_globs_with_a_slash_are_relative_to_their_configuration():
    pyproject("a", 'include = ["logs/*.log"]\n')
    put("a/logs/x.log")
    put("a/b/logs/x.log")
    assert found() == [("a/logs/x.log", "HN001")]


def test_jsonl_mode_comes_from_each_files_configuration():
    pyproject("a", 'jsonl-mode = "message"\n')
    lines = CLEAN + ORPHAN
    put("a/x.jsonl", lines)
    put("b/x.jsonl", lines)
    # in a/, each line is read as one message: a transcript line is none
    assert found() == [("a/x.jsonl", "HN000"), ("b/x.jsonl", "HN001")]


def test_config_option_applies_to_every_file():
    pyproject("a", 'ignore = ["HN001"]\n')
    put("conf/histnorm.toml", b'select = ["HN001"]\n')
    put("a/x.json")
    assert found() == []
    assert found("--config", "conf/histnorm.toml") == [("a/x.json", "HN001")]
    assert found("--config", "a/pyproject.toml", "a/x.json") == []


def test_flags_override_each_files_configuration():
    pyproject("a", 'select = ["HN002"]\n')
    pyproject("b", 'ignore = ["HN001"]\n')
    put("a/x.json")
    put("b/x.json")
    assert found() == []
    assert found("--select", "HN001") == [("a/x.json", "HN001")]
    assert found("--ignore", "HN002", "--extend-select", "HN001") == [("a/x.json", "HN001")]


def test_fix_uses_each_files_configuration():
    pyproject("a", 'ignore = ["HN001"]\n')
    put("a/x.json")
    put("b/x.json")
    result = invoke("fix")
    assert result.exit_code == 0, result.output
    assert Path("a/x.json").read_bytes() == ORPHAN
    assert Path("b/x.json").read_bytes() != ORPHAN


@pytest.mark.parametrize(
    ("name", "body", "key"),
    [
        ("pyproject.toml", '[tool.histnorm]\nselectt = ["HN001"]\n', "selectt"),
        ("pyproject.toml", '[tool.histnorm]\ntail = "q"\n', "tail"),
        ("pyproject.toml", '[tool.histnorm]\nselect = ["HN999"]\n', "select"),
        ("pyproject.toml", '[tool.histnorm]\nformat = "nope"\n', "format"),
        ("histnorm.toml", 'severity = {HN001 = "fatal"}\n', "severity"),
        ("histnorm.toml", "ignore = [\n", "not valid TOML"),
    ],
)
def test_a_bad_configuration_stops_only_its_own_files(name: str, body: str, key: str):
    put(f"bad/{name}", body.encode())
    put("bad/x.json")
    put("bad/y.json")
    put("good/x.json")
    result = invoke("lint", "--output-format", "json")
    assert result.exit_code == 2, result.output
    assert f"bad/{name}" in result.stderr
    assert key in result.stderr
    assert result.stderr.count(f"bad/{name}") == 1, result.stderr  # said once
    assert "Traceback" not in result.output
    assert [d["filename"] for d in orjson.loads(result.stdout)] == ["good/x.json"]
    fixed = invoke("fix")
    assert fixed.exit_code == 2, fixed.output
    assert Path("bad/x.json").read_bytes() == ORPHAN
    assert Path("good/x.json").read_bytes() != ORPHAN


def test_a_bad_flag_still_stops_the_run():
    pyproject("a", 'ignore = ["HN002"]\n')
    put("a/x.json")
    result = invoke("lint", "--select", "HN999")
    assert result.exit_code == 2
    assert "HN999" in result.stderr


def test_configuration_is_looked_up_once_per_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / ".git").mkdir()  # the search stops here
    looked: list[str] = []
    own = configs.own_config

    def counting(folder: str) -> Path | None:
        looked.append(folder)
        return own(folder)

    monkeypatch.setattr(configs, "own_config", counting)
    pyproject("a", 'ignore = ["HN001"]\n')
    for i in range(20):
        put(f"a/deep/x{i}.json")
        put(f"b/y{i}.json")
    assert found() == sorted((f"b/y{i}.json", "HN001") for i in range(20))
    assert sorted(looked) == sorted(str(tmp_path / d) for d in ("", "a", "a/deep", "b")), looked


# --- --stdin-filename ----------------------------------------------------------------------


def test_stdin_filename_names_the_diagnostics():
    assert found("-", input=ORPHAN) == [("-", "HN001")]
    assert found("--stdin-filename", "x/y.json", "-", input=ORPHAN) == [("x/y.json", "HN001")]
    assert found("--stdin-filename", "x/y.json", input=ORPHAN) == [("x/y.json", "HN001")]
    text = invoke("lint", "--stdin-filename", "x/y.json", input=ORPHAN)
    assert text.exit_code == 1
    assert text.stdout.startswith("x/y.json:1: HN001")


def test_stdin_filename_takes_per_file_ignores_and_configuration():
    pyproject(".", 'per-file-ignores = {"legacy/*.json" = ["HN001"]}\n')
    pyproject("strict", 'select = ["HN002"]\n')
    assert found("--stdin-filename", "legacy/x.json", input=ORPHAN) == []
    assert found("--stdin-filename", "new/x.json", input=ORPHAN) == [("new/x.json", "HN001")]
    assert found("--stdin-filename", "strict/x.json", input=ORPHAN) == []


def test_stdin_filename_decides_the_layout():
    lines = CLEAN + ORPHAN
    assert found("--stdin-filename", "d.jsonl", input=lines) == [("d.jsonl", "HN001")]
    result = invoke("lint", "--output-format", "json", "--stdin-filename", "d.json", input=lines)
    assert [d["code"] for d in orjson.loads(result.stdout)] == ["HN000"]
    text = invoke("lint", "--stdin-filename", "d.jsonl", input=lines)
    assert text.stdout.startswith("d.jsonl:2: HN001"), text.stdout


def test_stdin_filename_with_force_exclude():
    pyproject(".", 'exclude = ["generated"]\n')
    assert found("--stdin-filename", "generated/x.json", input=ORPHAN) == [
        ("generated/x.json", "HN001")
    ]
    assert found("--force-exclude", "--stdin-filename", "generated/x.json", input=ORPHAN) == []
    fixed = invoke("fix", "--force-exclude", "--stdin-filename", "generated/x.json", input=ORPHAN)
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout.encode() == ORPHAN  # handed back unchanged, as ruff does


def test_fix_with_stdin_filename_writes_standard_output_only():
    put("x.json", CLEAN)
    fixed = invoke("fix", "--stdin-filename", "x.json", input=ORPHAN)
    assert fixed.exit_code == 0, fixed.output
    assert orjson.loads(fixed.stdout) != orjson.loads(ORPHAN)
    assert Path("x.json").read_bytes() == CLEAN
    assert not Path("new.json").exists()
    diff = invoke("fix", "--diff", "--stdin-filename", "new.json", input=ORPHAN)
    assert diff.exit_code == 1
    assert "--- new.json" in diff.stdout
    assert not Path("new.json").exists()


def test_stdin_filename_needs_standard_input():
    put("x.json")
    result = invoke("lint", "--stdin-filename", "y.json", "x.json")
    assert result.exit_code == 2
    assert "--stdin-filename" in result.stderr
