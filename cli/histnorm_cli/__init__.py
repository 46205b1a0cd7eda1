"""The histnorm command-line shell."""
