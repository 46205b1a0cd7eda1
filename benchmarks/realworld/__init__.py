"""Checks of histnorm against real third-party data (`../shared/real-world/`, see its README).

`python -m benchmarks.realworld.verdicts FOLDER`: lint the request bodies that real
providers answered, and report the false positives on accepted bodies (200), the
history-caused rejections (400) histnorm missed, and any accepted body `fix` would change.
"""
