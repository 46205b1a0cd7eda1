"""`histnorm convert`: the same conversation in another stored format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from histnorm import jsonio
from histnorm.convert import convert
from histnorm.document import encode_transcript, read_json, read_jsonl
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm_cli.exitcodes import ExitCode
from histnorm_cli.files import STDIN, write_atomically
from histnorm_cli.identity import read_regular

_FORMATS = "[" + "|".join(CODECS) + "]"
"""The choices of `--to` and `--from`, as help shows them."""


def convert_command(
    path: Annotated[str, typer.Argument(metavar="PATH", hidden=True)],  # the docstring says
    to: Annotated[
        str, typer.Option("--to", metavar=_FORMATS, help="Target format.", show_default=False)
    ],
    source: Annotated[
        str | None,
        typer.Option("--from", metavar=_FORMATS, help="Source format (default: detect)."),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
) -> None:
    """Convert transcripts between formats (lossless where both sides can express it).

    PATH: a JSON or JSONL file, or - for stdin."""
    if to not in CODECS or (source is not None and source not in CODECS):
        typer.echo(f"histnorm: error: known formats: {', '.join(CODECS)}", err=True)
        raise typer.Exit(ExitCode.ERROR)
    try:
        data = sys.stdin.buffer.read() if path == STDIN else read_regular(path)[0]
    except OSError as exc:
        typer.echo(f"histnorm: error: {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(ExitCode.ERROR) from None
    jsonl = path.endswith(".jsonl")
    document = read_jsonl(data, source, "transcript") if jsonl else read_json(data, source)
    out: list[bytes] = []
    status = ExitCode.OK
    for index, record in enumerate(document.records):
        where = f"{path}:{record.line}" if record.line else path
        if record.transcript is None:
            typer.echo(f"{where}: HN000 {record.error}", err=True)
            status = ExitCode.FAILED
            continue
        try:
            value = encode_transcript(convert(record.transcript, to))
        except HistnormError as exc:
            typer.echo(f"{where}: transcript {index} cannot be written as {to}: {exc}", err=True)
            status = ExitCode.FAILED
            continue
        out.append(jsonio.dumps(value, jsonio.COMPACT if jsonl else document.style))
    body = b"\n".join(out) + (b"\n" if jsonl and out else b"")
    if len(document.records) > 1 and not jsonl:
        body = b"[" + b",".join(out) + b"]"
    if output and output != STDIN:
        try:
            write_atomically(Path(output), body)
        except OSError as exc:
            typer.echo(f"histnorm: error: {output}: {exc.strerror or exc}", err=True)
            raise typer.Exit(ExitCode.ERROR) from None
    else:
        sys.stdout.buffer.write(body if body.endswith(b"\n") else body + b"\n")
    raise typer.Exit(status)
