"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit.

`pre-commit try-repo` (which installs the hook afresh on each call) runs the lint hook
once; the other tests name the hooks' repository in a `.pre-commit-config.yaml`, as a
user does, so that `pre-commit run` installs the hook once for all of them. pre-commit
builds the hook's environment as it does for a user: a fresh virtualenv into
which it pip-installs the package with its declared dependencies (no extra), from a
git repository holding a copy of this source tree. The repository it runs in holds a
transcript with a defect, a clean one, `package.json` and `.vscode/settings.json`.
"""

from __future__ import annotations

import importlib.util
import site
import subprocess
import sys
from pathlib import Path

import pytest
from test_install import CLEAN, ORPHAN, clean_env, copy_source

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_JSON = b'{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": {"test": "jest"}\n}\n'
SETTINGS = b'{\n  "editor.tabSize": 2,\n  "files.exclude": {"**/.git": true}\n}\n'


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=clean_env(),
    )


def pre_commit_env(home: Path) -> dict[str, str]:
    """The environment for pre-commit: none of this source tree on the path (the hook
    must run the installed package), pre-commit itself importable, a private cache."""
    spec = importlib.util.find_spec("pre_commit")
    assert spec is not None and spec.origin, "pre-commit is a test dependency (.[test])"
    where = str(Path(spec.origin).parent.parent)
    env = clean_env()
    if where not in site.getsitepackages():
        env["PYTHONPATH"] = where  # installed with --target: holds no typer or rich
    env["PRE_COMMIT_HOME"] = str(home)
    env.pop("GITHUB_ACTIONS", None)
    return env


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed git repository holding this package and its hooks."""
    source = copy_source(tmp_path_factory.mktemp("hooks"))
    (source / ".pre-commit-hooks.yaml").write_bytes((ROOT / ".pre-commit-hooks.yaml").read_bytes())
    git("init", "-q", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-q", "-m", "histnorm", cwd=source)
    return source


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(cache: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=pre_commit_env(cache),
        capture_output=True,
        text=True,
    )


def run_hook(
    hooks: Path, cache: Path, hook: str, cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """`pre-commit run HOOK` with the hooks' repository named in the project's config."""
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=hooks, capture_output=True, text=True, check=True
    ).stdout.strip()
    config = f"repos:\n- repo: {hooks}\n  rev: {rev}\n  hooks:\n"
    config += "  - id: histnorm-lint\n  - id: histnorm-fix\n"
    (cwd / ".pre-commit-config.yaml").write_text(config)
    git("add", ".pre-commit-config.yaml", cwd=cwd)
    return pre_commit(cache, cwd, "run", hook, "--verbose", *args)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository: one transcript with a defect, one clean, other JSON."""
    files = {
        "chats/bad.json": ORPHAN,
        "chats/clean.json": CLEAN,
        "package.json": PACKAGE_JSON,
        ".vscode/settings.json": SETTINGS,
    }
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    git("init", "-q", cwd=tmp_path)
    git("add", "-A", cwd=tmp_path)
    git("commit", "-q", "-m", "data", cwd=tmp_path)
    return tmp_path


def test_try_repo_lint_hook_fails_on_the_defect_only(
    hooks: Path, cache: Path, project: Path
) -> None:
    done = pre_commit(
        cache, project, "try-repo", str(hooks), "histnorm-lint", "--verbose", "--all-files"
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "chats/bad.json:1: HN001" in output
    assert "ModuleNotFoundError" not in output
    for other in ("clean.json", "package.json", "settings.json"):
        assert f"{other}:" not in output, output


def test_fix_hook_repairs_the_defect_and_leaves_other_json_alone(
    hooks: Path, cache: Path, project: Path
) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*.json")}
    fixed = run_hook(hooks, cache, "histnorm-fix", project, "--all-files")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # files were modified
    assert "files were modified by this hook" in fixed.stdout
    assert (project / "chats/bad.json").read_bytes() != ORPHAN
    for path, data in before.items():
        if path.name != "bad.json":
            assert path.read_bytes() == data, path
    git("add", "-A", cwd=project)
    again = run_hook(hooks, cache, "histnorm-lint", project, "--all-files")
    assert again.returncode == 0, again.stdout + again.stderr


def test_hooks_apply_the_configured_excludes_to_the_files_pre_commit_passes(
    hooks: Path, cache: Path, project: Path
) -> None:
    (project / "pyproject.toml").write_text('[tool.histnorm]\nexclude = ["fixtures"]\n')
    (project / "tests/fixtures").mkdir(parents=True)
    (project / "tests/fixtures/broken-on-purpose.json").write_bytes(ORPHAN)
    git("add", "-A", cwd=project)
    done = run_hook(hooks, cache, "histnorm-lint", project)  # the staged files only
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken-on-purpose.json:" not in done.stdout
    fixed = run_hook(hooks, cache, "histnorm-fix", project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (project / "tests/fixtures/broken-on-purpose.json").read_bytes() == ORPHAN
