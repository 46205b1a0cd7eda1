"""Which files `histnorm lint` and `fix` take: default excludes, `.gitignore`, exclude
patterns that match a name at any depth, and `--force-exclude` for named paths.

Every test runs in its own `tmp_path` as the working directory, through typer's runner.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest
from cli_helpers import ORPHAN, invoke, put
from histnorm_cli.gitignore import GitIgnore

pytestmark = pytest.mark.usefixtures("cli_workdir")


def linted(*args: str) -> list[str]:
    """The files `lint --output-format json` reported a diagnostic in."""
    result = invoke("lint", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return sorted({d["filename"] for d in orjson.loads(result.stdout)})


VENDORED = [
    ".git/objects/x.json",
    ".venv/lib/python3.11/site-packages/pkg/data.json",
    "venv/lib/data.json",
    "node_modules/pkg/package.json",
    "src/__pycache__/x.json",
    "env/lib/python3.11/site-packages/pkg/x.json",
    ".vscode/settings.json",
    ".cache/deep/x.jsonl",
]


def test_lint_with_no_path_skips_vendored_and_hidden_folders():
    for name in VENDORED:
        put(name)
    put("data/a.json")
    put("top.json")
    assert linted() == ["data/a.json", "top.json"]
    assert linted(".") == ["data/a.json", "top.json"]


def test_fix_with_no_path_leaves_vendored_and_ignored_files_byte_identical():
    for name in VENDORED:
        put(name)
    put(".gitignore", b"ignored/\n")
    put("ignored/x.json")
    put("data/a.json")
    result = invoke("fix")
    assert result.exit_code == 0, result.output
    assert Path("data/a.json").read_bytes() != ORPHAN
    for name in [*VENDORED, "ignored/x.json"]:
        assert Path(name).read_bytes() == ORPHAN, name


def test_a_hidden_or_vendored_folder_named_explicitly_is_scanned():
    put(".claude/projects/p/session.json")
    put("node_modules/x.json")
    assert linted(".claude") == [".claude/projects/p/session.json"]
    assert linted("node_modules") == ["node_modules/x.json"]


def test_gitignore_is_respected_by_default_and_can_be_turned_off():
    put(".gitignore", b"# generated\n*.out.json\n/build/\nlogs/**/tmp\n!keep.out.json\n")
    put("a.out.json")
    put("keep.out.json")
    put("build/x.json")
    put("sub/build/y.json")  # `/build/` is anchored to the .gitignore's folder
    put("logs/2024/tmp/z.json")
    put("logs/2024/t.json")
    assert linted() == ["keep.out.json", "logs/2024/t.json", "sub/build/y.json"]
    everything = linted("--no-respect-gitignore")
    assert "a.out.json" in everything
    assert "build/x.json" in everything
    assert "logs/2024/tmp/z.json" in everything


def test_a_nested_gitignore_applies_below_its_folder():
    put("a/.gitignore", b"secret.json\n")
    put("a/secret.json")
    put("a/b/secret.json")
    put("secret.json")
    assert linted() == ["secret.json"]


def test_gitignore_of_the_repository_applies_when_scanning_a_subfolder():
    subprocess.run(["git", "init", "-q"], check=True)
    put(".gitignore", b"cache/\n")
    put("project/cache/x.json")
    put("project/ok.json")
    put(".git/info/exclude", b"*.local.json\n")
    put("project/mine.local.json")
    assert linted("project") == ["project/ok.json"]


def test_an_exclude_without_a_slash_matches_a_folder_name_at_any_depth():
    put("a/config/x.json")
    put("config/y.json")
    put("a/configs/z.json")
    put("a/b.json")
    assert linted("--exclude", "config") == ["a/b.json", "a/configs/z.json"]
    assert linted("--exclude", "config/") == ["a/b.json", "a/configs/z.json"]
    # With a slash, a pattern is anchored to the working directory.
    assert linted("--exclude", "a/config") == ["a/b.json", "a/configs/z.json", "config/y.json"]
    assert linted("--exclude", "**/config/*.json") == ["a/b.json", "a/configs/z.json"]


def test_a_named_file_is_taken_unless_force_exclude():
    put("config/x.json")
    put(".vscode/settings.json")
    put("keep.json")
    named = ["config/x.json", ".vscode/settings.json", "keep.json"]
    assert linted("--exclude", "config", *named) == sorted(named)
    assert linted("--exclude", "config", "--force-exclude", *named) == ["keep.json"]


def test_force_exclude_with_every_named_file_excluded_is_no_error():
    put("node_modules/x.json")
    result = invoke("lint", "--force-exclude", "node_modules/x.json")
    assert result.exit_code == 0, result.output
    assert "HN001" not in result.output
    assert "excluded" in result.output


def test_config_keys_for_discovery(tmp_path: Path):
    put(
        "pyproject.toml",
        b'[tool.histnorm]\nexclude = ["generated"]\nrespect-gitignore = false\n'
        b"force-exclude = true\n",
    )
    put(".gitignore", b"ignored.json\n")
    put("ignored.json")
    put("x/generated/a.json")
    put("b.json")
    assert linted() == ["b.json", "ignored.json"]
    assert linted("x/generated/a.json", "b.json") == ["b.json"]


@pytest.mark.parametrize(
    ("pattern", "path", "folder", "ignored"),
    [
        ("*.json", "a/b.json", False, True),
        ("b.json", "a/b.json", False, True),
        ("/b.json", "a/b.json", False, False),
        ("/b.json", "b.json", False, True),
        ("a/b.json", "a/b.json", False, True),
        ("a/b.json", "x/a/b.json", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("**/logs", "x/y/logs", True, True),
        ("logs/**", "logs/a/b.json", False, True),
        ("a/**/b", "a/x/y/b", True, True),
        ("a/**/b", "a/b", True, True),
        ("doc/*.json", "doc/x/y.json", False, False),
        ("\\#name.json", "#name.json", False, True),
        ("# comment", "# comment", False, False),
        ("f?.json", "f1.json", False, True),
        ("f[0-9].json", "fa.json", False, False),
        ("trailing.json   ", "trailing.json", False, True),
    ],
)
def test_gitignore_matching(pattern: str, path: str, folder: bool, ignored: bool):
    rules = GitIgnore.parse(pattern + "\n", base="")
    assert rules.match(path, folder) is (True if ignored else None)


def test_gitignore_negation_last_match_wins():
    rules = GitIgnore.parse("*.json\n!keep.json\n", base="")
    assert rules.match("x.json", False) is True
    assert rules.match("keep.json", False) is False
    assert rules.match("other.txt", False) is None
