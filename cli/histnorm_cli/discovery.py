"""Which files a run takes: named paths, folder scans, excludes and `.gitignore`.

A folder scan (a folder named, or the working directory when no path is given) never
enters a hidden folder nor one of `DEFAULT_EXCLUDE`, nor a folder or file an exclude
pattern or (unless `respect_gitignore` is off) a `.gitignore` matches. The `.gitignore`
files read are those in the scanned folders and, inside a git repository, those of its
parent folders up to the repository's top and `.git/info/exclude`. A file named on the
command line is always taken, unless `force_exclude` is on: then the default and the
user's exclude patterns apply to it too (not `.gitignore`: a file pre-commit passes is
tracked).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from histnorm_cli.files import DEFAULT_INCLUDE, STDIN, TEMPORARY
from histnorm_cli.gitignore import GitIgnore
from histnorm_cli.identity import regular_error

DEFAULT_EXCLUDE = (".git", ".venv", "venv", "node_modules", "__pycache__", "site-packages")
"""Folders never scanned (hidden folders, whose names start with a dot, neither)."""
_DEFAULTS = GitIgnore.of([f"{name}/" for name in DEFAULT_EXCLUDE] + [".*/"])


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _relative(path: str, base: str) -> tuple[str, bool]:
    """`path` relative to `base` ("" for itself, leading `..` dropped), and whether it
    lies inside `base`."""
    parts = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).parts
    inside = not parts or parts[0] != ".."
    while parts and parts[0] in ("..", "."):
        parts = parts[1:]
    return "/".join(parts), inside


@dataclass
class Discovery:
    """How to find files: the patterns and switches of the command line and config."""

    include: tuple[str, ...] | list[str] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] | list[str] = ()
    exclude_base: str = "."
    """The folder anchored exclude patterns are relative to."""
    force_exclude: bool = False
    respect_gitignore: bool = True
    excluded: list[str] = field(default_factory=list)
    """The named paths `force_exclude` left out (filled in by `expand`)."""

    def __post_init__(self) -> None:
        self._user = GitIgnore.of(list(self.exclude))

    def user_excludes(self, rel: str, inside: bool, is_dir: bool) -> bool:
        """Whether the user's exclude patterns match `rel` (relative to the exclude base;
        anchored patterns only apply `inside` it)."""
        for pattern in reversed(self._user.patterns):
            if (inside or not pattern.anchored) and pattern.matches(rel, is_dir):
                return not pattern.negated
        return False

    def force_excluded(self, path: str) -> bool:
        """Whether `force_exclude` leaves out a named path: it or a folder above it (below
        the exclude base) matches a default or user exclude pattern."""
        rel, inside = _relative(path, self.exclude_base)
        parts = rel.split("/") if rel else []
        for end in range(1, len(parts) + 1):
            prefix = "/".join(parts[:end])
            is_dir = end < len(parts) or os.path.isdir(path)
            if _DEFAULTS.match(prefix, is_dir) or self.user_excludes(prefix, inside, is_dir):
                return True
        return False


def _repository_top(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _read(path: Path, base: str) -> GitIgnore | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return GitIgnore.parse(text, "" if base == "." else base)


def _inherited(root: Path) -> tuple[Path, list[GitIgnore]]:
    """The folder `.gitignore` paths are relative to (the repository's top, else `root`),
    and the rules that apply to `root` from above it (most specific first)."""
    top = _repository_top(root)
    if top is None:
        return root, []
    rules: list[GitIgnore] = []
    for folder in reversed([root.parent, *root.parent.parents]):
        if folder.is_relative_to(top):
            found = _read(folder / ".gitignore", folder.relative_to(top).as_posix())
            if found is not None:
                rules.insert(0, found)
    exclude = _read(top / ".git" / "info" / "exclude", "")
    if exclude is not None:
        rules.append(exclude)
    return top, rules


def _ignored(rules: list[GitIgnore], rel: str, is_dir: bool) -> bool:
    for ruleset in rules:
        verdict = ruleset.match(rel, is_dir)
        if verdict is not None:
            return verdict
    return False


@dataclass
class _Folder:
    """A folder being scanned, with its path relative to each root patterns use."""

    path: str
    own: str
    """Relative to the scanned folder (for the default excludes)."""
    user: str
    """Relative to the exclude base."""
    top: str
    """Relative to the repository's top (for `.gitignore`)."""
    rules: list[GitIgnore]


def scan(folder: Path, discovery: Discovery) -> list[Path]:
    """The regular files below `folder` to take, sorted; a symlink is taken only when it
    points to a file inside `folder`, and one file reached by several names once."""
    root = folder.resolve()
    start = Path(os.path.abspath(folder))
    top, inherited = _inherited(start) if discovery.respect_gitignore else (start, [])
    user, inside = _relative(str(folder), discovery.exclude_base)
    stack = [_Folder(str(folder), "", user, _relative(str(folder), str(top))[0], inherited)]
    chosen: dict[str, Path] = {}
    while stack:
        here = stack.pop()
        rules = here.rules
        if discovery.respect_gitignore:
            own = _read(Path(here.path) / ".gitignore", here.top)
            rules = rules if own is None else [own, *rules]
        try:
            entries = sorted(os.scandir(here.path), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            own_rel, user_rel = _join(here.own, entry.name), _join(here.user, entry.name)
            top_rel = _join(here.top, entry.name)
            if (
                _DEFAULTS.match(own_rel, is_dir)
                or discovery.user_excludes(user_rel, inside, is_dir)
                or (discovery.respect_gitignore and _ignored(rules, top_rel, is_dir))
            ):
                continue
            path = os.path.join(here.path, entry.name)
            if is_dir:
                stack.append(_Folder(path, own_rel, user_rel, top_rel, rules))
            else:
                _take(Path(path), root, discovery, chosen)
    return sorted(chosen.values())


def _take(path: Path, root: Path, discovery: Discovery, chosen: dict[str, Path]) -> None:
    if TEMPORARY.fullmatch(path.name) or not _included(path, discovery.include):
        return
    link = path.is_symlink()
    real = path.resolve()
    if (link and not real.is_relative_to(root)) or not path.is_file():
        return  # out of the folder, dangling, a symlink to a folder, or no regular file
    key = str(real)
    if key not in chosen or (chosen[key].is_symlink() and not link):
        chosen[key] = path


def _included(path: Path, patterns: tuple[str, ...] | list[str]) -> bool:
    text = path.as_posix()
    return any(fnmatch(path.name, p) or fnmatch(text, p) for p in patterns)


def expand(paths: list[str], discovery: Discovery) -> Iterator[tuple[str, str | None]]:
    """Yield (path, error) for each file named or found below a named folder, sorted.

    Files named explicitly are taken (a symlink is followed) unless `force_exclude`
    leaves them out; files found in folders are those `scan` takes. A path that does not
    exist, or is a FIFO, device or socket, yields an error instead.
    """
    seen: set[str] = set()
    for name in paths:
        if name == STDIN:
            yield STDIN, None
            continue
        path = Path(name)
        if discovery.force_exclude and os.path.lexists(name) and discovery.force_excluded(name):
            discovery.excluded.append(name)
        elif path.is_dir():
            for file in scan(path, discovery):
                if _new(file, seen):
                    yield str(file), None
        elif path.exists():
            if _new(path, seen):
                yield name, regular_error(name)
        else:
            yield name, f"{name}: no such file or directory"


def _new(path: Path, seen: set[str]) -> bool:
    """Whether `path` names a file not yielded yet (by this or another name)."""
    keys = {os.path.normpath(path), os.path.realpath(path)}
    if keys & seen:
        return False
    seen.update(keys)
    return True
