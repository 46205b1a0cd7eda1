"""`histnorm convert`: the command's options; the work is in `histnorm_cli.convert_run`,
imported when the command runs."""

from __future__ import annotations

from typing import Annotated

import typer

from histnorm.choices import FORMAT_NAMES, JSONL_MODES, PROFILE_NAMES

FORMATS = "[" + "|".join(FORMAT_NAMES) + "]"


def convert_command(
    path: Annotated[str, typer.Argument(metavar="PATH", hidden=True)],  # the docstring says
    to: Annotated[
        str, typer.Option("--to", metavar=FORMATS, help="Target format.", show_default=False)
    ],
    source: Annotated[
        str | None,
        typer.Option("--from", metavar=FORMATS, help="Source format (default: detect)."),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    jsonl_mode: Annotated[
        str,
        typer.Option(
            "--jsonl-mode",
            metavar="[" + "|".join(JSONL_MODES) + "]",
            help="auto, transcript (one per line) or message (one message per line).",
        ),
    ] = "auto",
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            metavar="[" + "|".join(PROFILE_NAMES) + "]",
            help="Replay target the output is linted for (default: the target format's).",
        ),
    ] = None,
) -> None:
    """Convert transcripts between formats, then lint the result under the target's profile.

    What the target has no place for (token usage, request settings, other tools) is left
    out with a CV001 warning; errors in the output exit 1, as in `lint`.

    PATH: a JSON or JSONL file, or - for stdin."""
    from histnorm_cli import collect_from_here
    from histnorm_cli.convert_run import convert

    collect_from_here()
    convert(path, to, source, output, jsonl_mode, profile)
