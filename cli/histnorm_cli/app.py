"""The `histnorm` command line: lint, fix, rules, rule, convert, schema.

No `from __future__ import annotations` here: typer reads every parameter's annotation at
start-up, and a string annotation costs it a compile and an eval each (166 of them).
"""

import sys
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from typer.main import get_command_name
from typer.models import CommandInfo

from histnorm import __version__
from histnorm.choices import DETECT_MODES, FORMAT_NAMES, JSONL_MODES, PROFILE_NAMES, TailMode
from histnorm.choices import Scope as ScopeMode
from histnorm_cli.convert import convert_command
from histnorm_cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from histnorm_cli.run import Request

_SETTINGS: dict[str, Any] = {
    "help": "Find and repair what makes a stored LLM chat history unreplayable.",
    "no_args_is_help": True,
    "add_completion": False,
    "rich_markup_mode": None,
    "pretty_exceptions_enable": False,
}
app = typer.Typer(**_SETTINGS)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"histnorm {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Find and repair what makes a stored LLM chat history unreplayable."""


class OutputFormat(StrEnum):
    """Output formats for diagnostics."""

    AUTO = "auto"
    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    GITHUB = "github"
    SARIF = "sarif"
    GITLAB = "gitlab"
    JUNIT = "junit"
    HTML = "html"


RULES = "RULE[,RULE...]"


def _choices(values: Iterable[str]) -> str:
    """`[a|b|c]`: the choices an option takes, as help shows them."""
    return "[" + "|".join(values) + "]"


Paths = Annotated[
    list[str] | None,
    typer.Argument(metavar="PATH", show_default=False, hidden=True),  # the docstring says
]
Select = Annotated[
    list[str] | None,
    typer.Option(
        "--select",
        metavar=RULES,
        help="Only these rules: codes, names, prefixes (HN1) or ALL; comma-separated.",
    ),
]
ExtendSelect = Annotated[
    list[str] | None,
    typer.Option("--extend-select", metavar=RULES, help="Run these rules too (as for --select)."),
]
Fixable = Annotated[
    list[str] | None,
    typer.Option("--fixable", metavar=RULES, help="Only these rules may be fixed (default: ALL)."),
]
Unfixable = Annotated[
    list[str] | None,
    typer.Option("--unfixable", metavar=RULES, help="Report these rules but never fix them."),
]
Ignore = Annotated[
    list[str] | None,
    typer.Option("--ignore", metavar=RULES, help="Skip these rules (as for --select)."),
]
Format = Annotated[
    str | None,
    typer.Option(
        "--format", metavar=_choices(FORMAT_NAMES), help="Input format (default: detect)."
    ),
]
Output = Annotated[
    OutputFormat | None,
    typer.Option(
        "--output-format", metavar=_choices(OutputFormat), help="How to print diagnostics."
    ),
]
Config = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Configuration for every file: a pyproject.toml with [tool.histnorm], or a "
        "histnorm.toml (default: the nearest to each file).",
    ),
]
StdinFilename = Annotated[
    str | None,
    typer.Option(
        "--stdin-filename",
        metavar="PATH",
        help="Read standard input as if it were this file: its configuration, "
        "per-file-ignores, excludes (with --force-exclude) and layout (.jsonl) apply.",
    ),
]
Tail = Annotated[
    str | None,
    typer.Option(
        "--tail",
        metavar=_choices(TailMode),
        help="keep: open calls at the end are a live state (HN011); close: fix them too "
        "(default: close for a request body, keep otherwise).",
    ),
]
Scope = Annotated[
    str | None,
    typer.Option(
        "--scope",
        metavar=_choices(ScopeMode),
        help="all, tail (after the last user message) or marked (partial responses).",
    ),
]
Profile = Annotated[
    str | None,
    typer.Option(
        "--profile",
        metavar=_choices(PROFILE_NAMES),
        help="Replay target whose constraints apply (default: the input format's provider; "
        "bedrock names bedrock-converse).",
    ),
]
Policy = Annotated[
    list[str] | None,
    typer.Option(
        "--policy", metavar="RULE=POLICY", help="RULE=POLICY, e.g. orphan-tool-call=synthesize."
    ),
]
JsonlMode = Annotated[
    str | None,
    typer.Option(
        "--jsonl-mode",
        metavar=_choices(JSONL_MODES),
        help="auto, transcript (one per line) or message (one message per line).",
    ),
]
Detect = Annotated[
    str | None,
    typer.Option(
        "--detect",
        metavar=_choices(DETECT_MODES),
        help="file: one format per file, settled by its first transcripts (default); "
        "per-line: detect each line of a JSONL file (or item of a JSON array) on its own.",
    ),
]
Include = Annotated[
    list[str] | None,
    typer.Option(
        "--include",
        metavar="GLOB",
        help="Glob of files to take from folders (default *.json, *.jsonl, *.db, *.sqlite*).",
    ),
]
Exclude = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="PATTERN",
        help="Pattern of files or folders to skip, as in .gitignore: without a slash it "
        "matches a name at any depth (adds to the default excludes).",
    ),
]
ForceExclude = Annotated[
    bool | None,
    typer.Option(
        "--force-exclude/--no-force-exclude",
        help="Apply the excludes to paths named on the command line too (for pre-commit).",
        show_default=False,
    ),
]
RespectGitignore = Annotated[
    bool | None,
    typer.Option(
        "--respect-gitignore/--no-respect-gitignore",
        help="Skip files .gitignore ignores when scanning folders (default: on).",
        show_default=False,
    ),
]
ExitZero = Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even if diagnostics remain.")]
Strict = Annotated[bool, typer.Option("--strict", help="Warnings fail the run too.")]
Statistics = Annotated[bool, typer.Option("--statistics", help="Count diagnostics per rule.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print diagnostics, nothing else.")]
Jobs = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Worker processes (at most one per CPU and per file or share); a large JSONL "
        "file is shared between them.",
    ),
]
OutputFile = Annotated[
    str | None,
    typer.Option(
        "--output-file",
        metavar="PATH",
        help="Write the report to this file instead of standard output.",
    ),
]
AllowNoFiles = Annotated[
    bool,
    typer.Option(
        "--allow-no-files", help="Exit 0 when no file matched (default: exit 2, a likely typo)."
    ),
]


def _policies(items: list[str] | None) -> dict[str, str]:
    policies = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not value:
            raise typer.BadParameter(f"expected RULE=POLICY, got {item!r}", param_hint="--policy")
        policies[name.strip()] = value.strip()
    return policies


def _names(items: list[str] | None) -> tuple[str, ...]:
    """The rule names of repeated, comma-separated options (`--select HN001,HN008`)."""
    return tuple(n.strip() for item in items or () for n in item.split(",") if n.strip())


def _request(mode: Literal["lint", "fix"], paths: list[str] | None, **options: Any) -> "Request":
    from histnorm_cli.run import Request

    overrides: dict[str, Any] = {
        "select": _names(options.pop("select")) or None,
        "extend_select": _names(options.pop("extend_select")),
        "extend_ignore": _names(options.pop("ignore")),
        "fixable": _names(options.pop("fixable")) or None,
        "extend_unfixable": _names(options.pop("unfixable")),
        "tail": options.pop("tail"),
        "scope": options.pop("scope"),
        "profile": options.pop("profile"),
        "policy": _policies(options.pop("policy")),
        "unsafe_fixes": options.pop("unsafe_fixes", None) or None,
    }
    output = options.pop("output_format")
    stdin = options.get("stdin_filename") is not None
    return Request(
        mode=mode,
        paths=paths or (["-"] if stdin else ["."]),
        overrides=overrides,
        output_format=output.value if output else None,
        **options,
    )


@app.command()
def lint(
    paths: Paths = None,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    fixable: Fixable = None,
    unfixable: Unfixable = None,
    format: Format = None,
    output_format: Output = None,
    config: Config = None,
    tail: Tail = None,
    scope: Scope = None,
    profile: Profile = None,
    policy: Policy = None,
    jsonl_mode: JsonlMode = None,
    detect: Detect = None,
    include: Include = None,
    exclude: Exclude = None,
    force_exclude: ForceExclude = None,
    respect_gitignore: RespectGitignore = None,
    exit_zero: ExitZero = False,
    strict: Strict = False,
    statistics: Statistics = False,
    quiet: Quiet = False,
    jobs: Jobs = 1,
    allow_no_files: AllowNoFiles = False,
    stdin_filename: StdinFilename = None,
    output_file: OutputFile = None,
) -> None:
    """Report what would make each transcript fail on replay.

    PATH: files, folders, or - for stdin (default: the current folder)."""
    request = _request("lint", **locals())
    from histnorm_cli.run import run_request

    raise typer.Exit(run_request(request))


@app.command()
def fix(
    paths: Paths = None,
    select: Select = None,
    extend_select: ExtendSelect = None,
    ignore: Ignore = None,
    fixable: Fixable = None,
    unfixable: Unfixable = None,
    format: Format = None,
    output_format: Output = None,
    config: Config = None,
    tail: Tail = None,
    scope: Scope = None,
    profile: Profile = None,
    policy: Policy = None,
    jsonl_mode: JsonlMode = None,
    detect: Detect = None,
    include: Include = None,
    exclude: Exclude = None,
    force_exclude: ForceExclude = None,
    respect_gitignore: RespectGitignore = None,
    exit_zero: ExitZero = False,
    strict: Strict = False,
    statistics: Statistics = False,
    quiet: Quiet = False,
    jobs: Jobs = 1,
    allow_no_files: AllowNoFiles = False,
    stdin_filename: StdinFilename = None,
    output_file: OutputFile = None,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print a unified diff; write nothing.")
    ] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 if anything would change; write nothing.")
    ] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="Apply unsafe fixes too.")
    ] = False,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the result here (- for stdout) instead of in place.",
        ),
    ] = None,
    backup: Annotated[
        bool, typer.Option("--backup", help="Keep the original as FILE.bak.")
    ] = False,
    exit_non_zero_on_fix: Annotated[
        bool, typer.Option("--exit-non-zero-on-fix", help="Exit 1 if any file was changed.")
    ] = False,
    show_fixes: Annotated[
        bool,
        typer.Option(
            "--show-fixes", help="List each fix applied: rule, file, line, pointer, action."
        ),
    ] = False,
    quarantine: Annotated[
        str | None,
        typer.Option(
            "--quarantine",
            metavar="FILE",
            help="JSONL datasets: move each record fix cannot make clean to FILE (appended).",
        ),
    ] = None,
) -> None:
    """Repair transcripts in place (only files whose bytes change are written).

    PATH: files, folders, or - for stdin (default: the current folder)."""
    request = _request("fix", **locals())
    from histnorm_cli.run import run_request

    raise typer.Exit(run_request(request))


@app.command()
def rules(
    output_format: Annotated[
        str, typer.Option("--output-format", metavar="[text|json]", help="How to print the list.")
    ] = "text",
    write_docs: Annotated[
        Path | None,
        typer.Option(
            "--write-docs", metavar="DIR", help="Write each rule's page to DIR/<CODE>.md instead."
        ),
    ] = None,
) -> None:
    """List every rule: code, name, severity and fix."""
    from histnorm_cli import catalog

    if write_docs is not None:
        for target in catalog.write_docs(write_docs):
            typer.echo(f"wrote {target}")
        return
    if output_format not in ("text", "json"):
        typer.echo(
            f"histnorm: error: --output-format must be text or json, not {output_format!r}",
            err=True,
        )
        raise typer.Exit(ExitCode.ERROR)
    typer.echo(catalog.table(output_format == "json"), nl=False)


@app.command()
def rule(
    code: Annotated[str, typer.Argument(metavar="CODE", hidden=True)],  # the docstring says
) -> None:
    """Print one rule's documentation and examples.

    CODE: a rule code or name, e.g. HN001."""
    from histnorm_cli import catalog

    text = catalog.describe(code)
    if text is None:
        typer.echo(f"histnorm: error: unknown rule {code!r}; run `histnorm rules`", err=True)
        raise typer.Exit(ExitCode.ERROR)
    typer.echo(text, nl=False)


app.command(name="convert")(convert_command)


@app.command()
def schema(
    out: Annotated[
        Path, typer.Option(metavar="FOLDER", help="Folder the schemas are written to.")
    ] = Path("schemas"),
    reference: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="Write the configuration reference too (docs/config.md)."
        ),
    ] = None,
    check: Annotated[bool, typer.Option(help="Exit 1 if a committed file is stale.")] = False,
) -> None:
    """Write the JSON Schemas generated from histnorm's models, or check them."""
    from histnorm_cli.reference import SCHEMAS, render
    from histnorm_cli.reference import reference as config_reference

    wanted = {out / name: render(name) for name in SCHEMAS}
    if reference is not None:
        wanted[reference] = config_reference().encode()
    stale = []
    for target, expected in wanted.items():
        current = target.read_bytes() if target.exists() else None
        if current == expected:
            continue
        stale.append(target.name)
        if not check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(expected)
            typer.echo(f"wrote {target}")
    if check and stale:
        typer.echo(f"stale files: {', '.join(stale)}; run `make schema`", err=True)
        raise typer.Exit(ExitCode.FAILED)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point.

    typer builds a click command from every option of every command it holds, and every
    run pays for that: when the first argument names a command, only that one is built.
    """
    args = sys.argv[1:] if argv is None else argv
    named = [info for info in app.registered_commands if args and _name(info) == args[0]]
    if not named:
        app(args=args, prog_name="histnorm")
        return
    one = typer.Typer(**_SETTINGS)
    one.registered_callback = app.registered_callback
    one.registered_commands = named
    one(args=args, prog_name="histnorm")


def _name(info: CommandInfo) -> str:
    """The name a command is invoked by (typer's own rule for a function's name)."""
    if info.name:
        return info.name
    assert info.callback is not None
    return get_command_name(info.callback.__name__)


if __name__ == "__main__":
    main()
