"""Mutation fuzzing: damage valid fixtures, fix them, and check what `fix` promises.

`damages` holds the damages (plain lists: add one by appending it), `invariants` the
checks, `cases` turns `(seed, case)` into one reproducible case and runs it, and
`__main__` runs many cases over processes (`PYTHONPATH=tests python -m fuzzing --help`).
The test suite runs the same code on a few hundred cases (tests/test_fuzz_driver.py).
"""
