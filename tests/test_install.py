"""The package as a user installs it: one `pip install histnorm` gives a working command.

These tests build the wheel (pip, with hatchling from the package registry), install it
into a fresh virtual environment with its declared dependencies only, and run the
installed `histnorm`; `make demo` is run from a copy of the source tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import histnorm

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SOURCE = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "Makefile")
"""The files besides the packages that building and `make demo` need."""

CLEAN = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]\n'
ORPHAN = (
    b'[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,'
    b'"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather",'
    b'"arguments":"{}"}}]},{"role":"user","content":"Never mind."}]\n'
)
"""HN001 (error, safe fix): the call `c1` has no result but the user wrote again."""


def clean_env() -> dict[str, str]:
    """The environment without anything that points Python at this source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.pop("PYTHONHOME", None)
    return env


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=clean_env(), capture_output=True, text=True
    )


def copy_source(target: Path) -> Path:
    """A copy of what a clone holds to build the package (no caches, no .venv)."""
    for name in SOURCE:
        if (ROOT / name).exists():  # test_license_file_matches_pyproject requires each
            shutil.copy2(ROOT / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for folder in ("histnorm", "cli", "fixtures/demo"):
        shutil.copytree(ROOT / folder, target / folder, ignore=ignore)
    return target


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = copy_source(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("dist")
    done = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source)
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("histnorm-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Iterator[Path]:
    """A fresh virtual environment where `pip install histnorm` (no extra) was run."""
    folder = tmp_path_factory.mktemp("venv") / "v"
    made = run(sys.executable, "-m", "venv", folder)
    assert made.returncode == 0, made.stderr
    done = run(folder / "bin" / "python", "-m", "pip", "install", "-q", wheel)
    assert done.returncode == 0, done.stderr
    yield folder / "bin"


def test_plain_install_gives_a_working_command(venv: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(ORPHAN)
    (tmp_path / "clean.json").write_bytes(CLEAN)
    version = run(venv / "histnorm", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"histnorm {histnorm.__version__}\n"
    lint = run(venv / "histnorm", "lint", "bad.json", "clean.json", cwd=tmp_path)
    assert lint.returncode == 1, lint.stderr
    assert "bad.json:1: HN001" in lint.stdout
    assert "clean.json" not in lint.stdout
    fixed = run(venv / "histnorm", "fix", "bad.json", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "bad.json").read_bytes() != ORPHAN


def test_python_m_histnorm_runs_the_command(venv: Path) -> None:
    done = run(venv / "python", "-m", "histnorm", "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"histnorm {histnorm.__version__}\n"
    helped = run(venv / "python", "-m", "histnorm", "--help")
    assert helped.returncode == 0 and "lint" in helped.stdout and "fix" in helped.stdout


def test_installed_core_imports_no_cli_dependency(venv: Path) -> None:
    code = (
        "import sys, pkgutil, importlib, histnorm, histnorm.__main__\n"
        "for m in pkgutil.walk_packages(histnorm.__path__, 'histnorm.'):\n"
        "    if not m.name.startswith('histnorm.integrations.'):  # each needs its framework\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('typer', 'rich', 'click', 'histnorm_cli', 'jsonschema'))\n"
        "print(bad)\n"
    )
    done = run(venv / "python", "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


def test_installed_adapter_without_its_framework_names_the_package(venv: Path) -> None:
    done = run(venv / "python", "-c", "import histnorm.integrations.langchain")
    assert done.returncode == 1
    assert "ImportError: histnorm.integrations.langchain needs LangChain" in done.stderr
    assert "pip install langchain-core" in done.stderr


def test_wheel_declares_each_runtime_dependency_once(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode()
        names = archive.namelist()
    required = {
        re.split(r"[<>=!~ ;\[]", line.removeprefix("Requires-Dist: "))[0]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    }
    assert required == {"pydantic", "orjson", "typer", "rich"}
    assert "License-Expression: MIT" in metadata
    assert any(n.endswith("licenses/LICENSE") for n in names)
    # The HTML report's style and script travel with the package.
    assert {"histnorm_cli/reporters/page.css", "histnorm_cli/reporters/page.js"} <= set(names)


def test_every_runtime_dependency_is_imported_by_the_package() -> None:
    sources = "\n".join(
        p.read_text(encoding="utf-8")
        for folder in ("histnorm", "cli/histnorm_cli")
        for p in (ROOT / folder).rglob("*.py")
    )
    for requirement in PYPROJECT["project"]["dependencies"]:
        module = re.split(r"[<>=!~ ;\[]", requirement)[0].replace("-", "_")
        assert re.search(rf"^\s*(import|from) {module}\b", sources, re.M), module
    test_only = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(r.startswith("jsonschema") for r in test_only)


def test_license_file_matches_pyproject() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_version_is_written_once_and_named_by_the_changelog() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "histnorm/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", histnorm.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[?(\d+\.\d+\.\d+)\]?", changelog, re.M)
    assert releases[0] == histnorm.__version__
    # The tag a pre-commit `rev:` names is the version with a leading v.
    assert f"`v{histnorm.__version__}`" in changelog


def test_make_demo_installs_the_package_without_the_test_stack(tmp_path: Path) -> None:
    source = copy_source(tmp_path)
    # --no-print-directory: under an outer make (CI runs `make test`) a nested make would
    # add "Entering/Leaving directory" lines around what `make demo` prints.
    done = run("make", "--no-print-directory", "demo", f"PYTHON={sys.executable}", cwd=source)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "$ histnorm lint fixtures/demo" in done.stdout
    assert "HN001" in done.stdout
    # ... and ends by writing the demo corpus's HTML report, with its path.
    report = source / "build" / "demo-report.html"
    assert done.stdout.rstrip().endswith(f"Report written: {report} (open it in a browser)")
    assert 'data-code="HN001"' in report.read_text(encoding="utf-8")
    listed = run(source / ".venv" / "bin" / "python", "-m", "pip", "list", "--format=freeze")
    installed = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert {"histnorm", "typer", "rich", "pydantic", "orjson"} <= installed
    assert not installed & {"pytest", "hypothesis", "mypy", "ruff", "openai", "jsonschema"}
    # `make test` adds the test extras to the same environment.
    planned = run("make", "-n", "test", cwd=source)
    assert "'.[test]'" in planned.stdout
