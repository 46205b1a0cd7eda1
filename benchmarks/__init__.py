"""histnorm performance benchmarks: `python -m benchmarks` (see README.md)."""
