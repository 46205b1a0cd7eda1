"""The common syntax of `.gitignore` patterns, for `.gitignore` files and `--exclude`.

A pattern is matched against a `/`-separated path relative to a base folder (the folder
of the `.gitignore` file, or the working directory for `--exclude`):

- blank lines and lines starting with `#` are skipped; `\\#` and `\\!` escape those
  characters; trailing spaces are dropped unless escaped;
- `!` negates: a path a later negated pattern matches is not ignored (last match wins);
- a trailing `/` matches folders only;
- a pattern with a `/` at its start or middle is anchored to the base; one without
  matches a file or folder name at any depth;
- `*` matches anything but `/`, `?` one character but `/`, `[...]` a character class
  (`[!...]` negated); `**/` at the start, `/**` at the end and `/**/` in the middle match
  any number of folders.

A folder that matches is not entered at all, so nothing below it can be re-included
(as in git).
"""

from __future__ import annotations

import re

from histnorm._record import record


@record(frozen=True)
class Pattern:
    """One compiled pattern."""

    source: str
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool
    anchored: bool

    def matches(self, path: str, is_dir: bool) -> bool:
        """Whether the pattern matches `path` (relative to its base)."""
        if self.folders_only and not is_dir:
            return False
        return self.regex.fullmatch(path) is not None


def _class(text: str, start: int) -> tuple[str, int] | None:
    """The regex of the `[...]` class at `start`, and the index after it; None if open."""
    end = start + 1
    if end < len(text) and text[end] in "!^":
        end += 1
    if end < len(text) and text[end] == "]":
        end += 1
    while end < len(text) and text[end] != "]":
        end += 1
    if end >= len(text):
        return None
    body = text[start + 1 : end]
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    return "[" + body.replace("\\", "\\\\") + "]", end + 1


def _translate(glob: str) -> str:
    """The regex (without anchors) of a glob, `**` included."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == len(glob) and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (found := _class(glob, i)) is not None:
            out.append(found[0])
            i = found[1]
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def compile_pattern(line: str) -> Pattern | None:
    """The pattern a line of a `.gitignore` file states, or None for a blank or comment."""
    text = line.rstrip("\n").rstrip("\r")
    while text.endswith(" ") and not text.endswith("\\ "):
        text = text[:-1]
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated or text.startswith(("\\#", "\\!")):
        text = text[1:]
    folders_only = text.endswith("/")
    text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    text = text.removeprefix("/")
    prefix = "" if anchored or text.startswith("**/") else "(?:.*/)?"
    regex = re.compile(prefix + _translate(text), re.DOTALL)
    return Pattern(line.strip(), regex, negated, folders_only, anchored)


@record(frozen=True)
class GitIgnore:
    """The patterns of one `.gitignore` file (or exclude list), relative to `base`."""

    base: str
    """The folder the patterns are relative to, `/`-separated ("" for the root)."""
    patterns: tuple[Pattern, ...]

    @classmethod
    def parse(cls, text: str, base: str) -> GitIgnore:
        """Compile each pattern of `text`."""
        compiled = (compile_pattern(line) for line in text.splitlines())
        return cls(base, tuple(p for p in compiled if p is not None))

    @classmethod
    def of(cls, patterns: list[str] | tuple[str, ...], base: str = "") -> GitIgnore:
        """Compile a list of patterns (one per item)."""
        return cls.parse("\n".join(p.replace("\n", " ") for p in patterns), base)

    def match(self, path: str, is_dir: bool) -> bool | None:
        """True if ignored, False if re-included by a `!` pattern, None if no pattern
        matches `path` (relative to the same root as `base`)."""
        if self.base:
            if not path.startswith(self.base + "/"):
                return None
            path = path[len(self.base) + 1 :]
        for pattern in reversed(self.patterns):
            if pattern.matches(path, is_dir):
                return not pattern.negated
        return None
