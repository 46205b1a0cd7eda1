"""`python -m histnorm_cli`: the `histnorm` command."""

from histnorm_cli import main

main()
