"""Checks of histnorm against real third-party data (`../shared/real-world/`, see its README).

Each check is a module, run as `python -m benchmarks.realworld.<name> FOLDER`:

- `verdicts`: lint the request bodies that real providers answered, and report the false
  positives on accepted bodies (200), the history-caused rejections (400) histnorm missed,
  and any accepted body `fix` would change.
- `claude_code`: lint real Claude Code session lines, and validate every line `fix`
  synthesizes against the community JSON Schemas of a session line.
"""
