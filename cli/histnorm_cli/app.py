"""The `histnorm` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from histnorm.schema import SCHEMAS, render

app = typer.Typer(
    help="Find and repair what makes a stored LLM chat history unreplayable.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """histnorm: lint and repair stored LLM chat transcripts."""


@app.command()
def schema(
    out: Annotated[Path, typer.Option(help="Folder the schemas are written to.")] = Path("schemas"),
    check: Annotated[bool, typer.Option(help="Exit 1 if a committed schema is stale.")] = False,
) -> None:
    """Write the JSON Schemas generated from histnorm's models, or check them."""
    stale = []
    for name in SCHEMAS:
        target = out / name
        expected = render(name)
        current = target.read_bytes() if target.exists() else None
        if current == expected:
            continue
        stale.append(name)
        if not check:
            out.mkdir(parents=True, exist_ok=True)
            target.write_bytes(expected)
            typer.echo(f"wrote {target}")
    if check and stale:
        typer.echo(f"stale schemas in {out}: {', '.join(stale)}; run `histnorm schema`", err=True)
        raise typer.Exit(1)


def main() -> None:
    """Console-script entry point."""
    app()
