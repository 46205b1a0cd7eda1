"""`python -m histnorm_cli`: the `histnorm` command."""

from histnorm_cli.app import main

main()
