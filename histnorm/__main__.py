"""`python -m histnorm`: the `histnorm` command (the core itself never imports it)."""

from __future__ import annotations


def main() -> None:
    """Run the command line; it is imported only here, when asked for."""
    from histnorm_cli import main as run

    run()


if __name__ == "__main__":
    main()
