"""The choices the command line lists before loading anything (`histnorm.choices`) are the
registries' own, and a command that needs none of the core loads none of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from histnorm_cli.reporters import FORMATS, Reporter, reporter

from histnorm.choices import FORMAT_NAMES, PROFILE_NAMES
from histnorm.formats import CODECS
from histnorm.profiles import PROFILES


def test_the_format_names_are_the_codecs_in_order() -> None:
    assert tuple(CODECS) == FORMAT_NAMES


def test_the_profile_names_are_the_profiles_in_order() -> None:
    assert tuple(PROFILES) == PROFILE_NAMES


LOADED = """
import sys
{run}
heavy = ("histnorm.formats", "histnorm.rules", "histnorm.engine", "histnorm.profiles",
         "histnorm.model", "histnorm.settings", "histnorm_cli.reference", "pydantic")
print(sorted(m for m in sys.modules if m.startswith(heavy)))
"""

CLI = """
sys.argv = ["histnorm", {args}]
from histnorm_cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
"""


@pytest.mark.parametrize(
    "run",
    [
        "import histnorm",
        "import histnorm; histnorm.__version__",
        CLI.format(args='"--version"'),
        CLI.format(args='"--help"'),
    ],
    ids=["import", "version attribute", "--version", "--help"],
)
def test_what_needs_no_core_loads_none_of_it(run: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED.format(run=run)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_public_name_loads_on_first_use() -> None:
    code = "import histnorm, sys; histnorm.lint; print('histnorm.engine' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "True"


def test_an_unknown_name_is_an_attribute_error() -> None:
    import histnorm

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        histnorm.nothing_here  # noqa: B018


def test_a_submodule_of_the_same_name_does_not_hide_a_public_function() -> None:
    """`histnorm.convert` and `histnorm.repair` are functions and submodules: importing a
    submodule first (as any adapter does) leaves the package's name the function."""
    code = (
        "import histnorm.convert, histnorm.repair, histnorm, inspect;"
        "print(inspect.isfunction(histnorm.convert), inspect.isfunction(histnorm.repair))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True"], done.stderr


def test_a_run_loads_only_the_reporter_it_writes_with(tmp_path: Path) -> None:
    """`lint` of one file in the default text output imports no other reporter."""
    target = tmp_path / "chat.json"
    target.write_text('[{"role": "user", "content": "Hi"}]')
    code = (
        CLI.format(args=f'"lint", "--output-format", "text", {str(target)!r}')
        + "print(sorted(m for m in sys.modules if m.startswith('histnorm_cli.reporters.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "['histnorm_cli.reporters.text']", done.stdout


@pytest.mark.parametrize("name", FORMATS)
def test_every_output_format_names_a_reporter(name: str) -> None:
    found = reporter(name)
    assert issubclass(found, Reporter) and found is not Reporter
