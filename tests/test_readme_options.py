"""The README's option table and `--help` agree, command by command.

The options are read from the click commands behind the typer app
(`typer.main.get_command`), the same objects `--help` prints, so an option added, removed
or given other choices fails here until the README says so too."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
from histnorm_cli.app import app
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
HEADER = "| option | commands | takes | meaning |"
TOP = "histnorm"
"""The name the table gives the options of `histnorm` itself (`--version`)."""
METAVAR = re.compile(r"\[[a-z0-9-]+(\|[a-z0-9-]+)+\]|[A-Z][A-Z\[\],.=]*")
"""What help may show for a value: its choices (`[a|b]`) or a name (`FILE`, `N`)."""


@dataclass(frozen=True)
class Shown:
    """One option as `--help` of one command shows it."""

    command: str
    names: frozenset[str]
    metavar: str | None

    @property
    def takes(self) -> list[str]:
        """The choices of the value, or its name; nothing for a flag."""
        if self.metavar is None:
            return []
        if self.metavar.startswith("[") and "|" in self.metavar:
            return self.metavar[1:-1].split("|")
        return [self.metavar]


def _shown(command: str, record: tuple[str, str]) -> Shown:
    tokens = [t.removesuffix(",") if t.startswith("-") else t for t in record[0].split()]
    names = frozenset(t for t in tokens if t.startswith("-"))
    rest = [t for t in tokens if not t.startswith("-") and t != "/"]
    return Shown(command, names, " ".join(rest) or None)


def _help_records() -> list[tuple[str, str, tuple[str, str], bool]]:
    """(command, kind, help record, is an option) of every visible parameter."""
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    context = group.make_context(TOP, [], resilient_parsing=True)
    found = []
    commands = [(TOP, group, context)] + [
        (name, command, command.make_context(name, [], parent=context, resilient_parsing=True))
        for name, command in group.commands.items()
    ]
    for name, command, ctx in commands:
        for param in command.params:
            record = param.get_help_record(ctx)
            if record is None or getattr(param, "hidden", False):
                continue
            kind = type(param).__name__
            found.append((name, kind, record, isinstance(param, typer.core.TyperOption)))
    return found


def options_in_help() -> list[Shown]:
    """Every option of every command, as `--help` shows it (`--help` itself aside)."""
    return [_shown(name, record) for name, _, record, is_option in _help_records() if is_option]


def options_in_readme() -> list[Shown]:
    """The rows of the README's option table, one `Shown` per command a row names."""
    text = (ROOT / "README.md").read_text()
    assert text.count(HEADER) == 1, f"the README has no single table headed {HEADER}"
    rows = text.split(HEADER, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    found = []
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        assert len(cells) == 4, row
        names = frozenset(re.findall(r"`(-[^`]*)`", cells[0]))
        takes = [t.replace("\\|", "|") for t in re.findall(r"`([^`]*)`", cells[2])]
        metavar = None
        if len(takes) > 1:
            metavar = "[" + "|".join(takes) + "]"
        elif takes:
            metavar = takes[0]
        for command in re.findall(r"`([a-z]+)`", cells[1]):
            found.append(Shown(command, names, metavar))
    return found


def test_the_table_is_found():
    assert len(options_in_readme()) >= len(options_in_help()) > 40


def test_every_option_of_help_is_in_the_readme():
    documented = {(s.command, name): s for s in options_in_readme() for name in s.names}
    for shown in options_in_help():
        for name in sorted(shown.names):
            row = documented.get((shown.command, name))
            assert row is not None, f"README option table lacks {name} of `{shown.command}`"
            assert row.names == shown.names, f"{shown.command} {name}: {row.names}"
            assert row.takes == shown.takes, (
                f"README: `{shown.command} {name}` takes {row.takes}; --help says {shown.takes}"
            )


def test_the_readme_lists_no_option_that_does_not_exist():
    real = {(s.command, name) for s in options_in_help() for name in s.names}
    for row in options_in_readme():
        for name in sorted(row.names):
            assert (row.command, name) in real, f"README lists `{row.command} {name}`"


@pytest.mark.parametrize(
    ("command", "kind", "record"),
    [(c, k, r) for c, k, r, _ in _help_records()],
    ids=lambda v: v if isinstance(v, str) else v[0],
)
def test_help_shows_choices_or_a_name_never_a_type(command, kind, record):
    """`--to [openai-chat|meai|...]` or `-o FILE`, never `<str>` or `{path}`."""
    shown = _shown(command, record)
    if shown.metavar is not None:
        assert METAVAR.fullmatch(shown.metavar), f"{command}: {record[0]}"


@pytest.mark.parametrize("command", ["lint", "fix", "rules", "rule", "convert", "schema"])
def test_help_printed_has_no_type_placeholder(command):
    text = CliRunner().invoke(app, [command, "--help"]).stdout
    assert not re.search(r"<[a-z_\[\]]+>|\{[a-z_]+\}", text), text


def test_a_users_path_comes_first_then_the_contributor_quickstart():
    """Install, lint and fix, CI, pre-commit; only then `make demo` / `make test`."""
    text = (ROOT / "README.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    order = [
        "## Install",
        "## Command line",
        "### In CI",
        "### pre-commit",
        "## Quickstart for contributors",
        "## Formats",
    ]
    positions = [text.find("\n" + heading + "\n") for heading in order]
    assert -1 not in positions, order[positions.index(-1)]
    assert positions == sorted(positions)
    assert headings[:3] == [*order[:2], order[4]]
    assert text.find("make demo") > positions[3]
