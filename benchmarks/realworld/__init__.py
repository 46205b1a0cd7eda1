"""Checks of histnorm against real third-party data (`python -m benchmarks.realworld.<name>`)."""
